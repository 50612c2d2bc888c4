"""The ``pool`` rulings (RULES.md §2, R-29 to R-38): every choice the seed leaves open.

Each field is one ruling with RULES.md's default; a GM changes it in the campaign's
``[rulings]`` table, read by :meth:`PoolRulings.from_mapping` (unknown keys are refused
with the list of known ones).

>>> PoolRulings().extended_botch
<ExtendedBotch.RESET: 'reset'>
>>> PoolRulings.from_mapping({"free_botch": True}).free_botch
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from referee.system.options import ConfigurableMixin


class OverTen(str, Enum):
    """R-29: a pool of more than 10 dice."""

    FLAG = "flag"  # rolled; the verdict says it is extraordinary
    REFUSE = "refuse"


class EmptyPool(str, Enum):
    """R-34: a single action whose pool comes to 0 dice or fewer."""

    REFUSE = "refuse"  # cannot be attempted, like one of several actions
    FAIL = "fail"  # attempted with no dice: a plain failure (never a botch)


class EmptyAction(str, Enum):
    """R-34, for one of several actions left with 0 dice or fewer by the penalty."""

    REFUSE = "refuse"  # the whole declaration is refused before a die falls; declare fewer
    SKIP = "skip"  # the seed's letter: that action is not taken, the others roll as declared


class ExtendedBotch(str, Enum):
    """R-35: what a botch does to an extended task's tally."""

    RESET = "reset"  # the accumulated successes are lost; the task goes on
    END = "end"  # the task fails for good
    KEEP = "keep"  # the tally stands; the botch is only narrated


class ResistedTie(str, Enum):
    """R-36: equal net successes in a resisted roll."""

    NOBODY = "nobody"  # no one wins and nothing changes
    DEFENDER = "defender"  # the resisting side (the second) holds


class Teamwork(str, Enum):
    """R-37: when several characters may add to one tally."""

    GM = "gm"  # only on a task the GM opened for teamwork
    ALWAYS = "always"  # on every extended task
    NEVER = "never"


class TeamBotch(str, Enum):
    """R-38: what one member's botch costs a team's shared tally (under R-35)."""

    ALL = "all"  # the whole tally
    OWN = "own"  # only what that member contributed


@dataclass(frozen=True)
class PoolRulings(ConfigurableMixin):
    """The options of a ``pool`` campaign, defaults from RULES.md §2.

    Read from config.toml with ``from_mapping`` (every problem at once), written
    with ``to_mapping``:

    >>> PoolRulings.from_mapping({"team_botch": "mine"})
    Traceback (most recent call last):
    ...
    referee.base.errors.ConfigError: The pool rulings in config.toml have 1 problem:
    - team_botch = 'mine': allowed values are "all", "own".
    >>> PoolRulings.from_mapping(PoolRulings().to_mapping()) == PoolRulings()
    True
    """

    system = "pool"

    pool_over_10: OverTen = OverTen.FLAG
    difficulty_clamp: bool = True  # a modified difficulty is clamped to 2-10
    # the label for net 1, 2, 3...; the last one covers every larger net.
    labels: tuple[str, ...] = field(
        default=("minimal", "moderate", "complete"), metadata={"length": (1, 10)}
    )
    willpower_success: bool = True  # a Willpower point buys one automatic success
    free_botch: bool = False  # each character's first botch in a session is a failure
    empty_pool: EmptyPool = EmptyPool.REFUSE
    # Added to R-34: the seed says such an action "cannot be performed"; by post, refusing
    # the declaration lets the player declare fewer actions (and a smaller penalty).
    empty_action: EmptyAction = EmptyAction.REFUSE
    extended_botch: ExtendedBotch = ExtendedBotch.RESET
    resisted_tie: ResistedTie = ResistedTie.NOBODY
    teamwork: Teamwork = Teamwork.GM
    team_botch: TeamBotch = TeamBotch.ALL
    # A player's own diff where no GM difficulty stands (the thread's, or the GM's word on
    # his roll): false, he rolls at the default 6 and only a GM writes diff; true, he
    # writes the difficulty the GM called for in prose.
    player_difficulty: bool = False

    def label_for(self, net: int) -> str:
        """The R-31 label of ``net`` successes (``""`` for none).

        >>> [PoolRulings().label_for(n) for n in (0, 1, 2, 3, 9)]
        ['', 'minimal', 'moderate', 'complete', 'complete']
        """
        if net <= 0:
            return ""
        return self.labels[min(net, len(self.labels)) - 1]
