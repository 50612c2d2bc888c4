"""The trikus rulings (RULES.md §3): every choice the seed leaves open, as one frozen value.

Each field is a ruling with RULES.md's default; a GM changes it in config.toml, which
:meth:`Rulings.from_mapping` reads through the systems' shared reader
(:func:`~referee.system.options.read_options`), refusing an unknown key or a value
outside the allowed ones and listing every problem at once.

>>> Rulings().dead_tie
<DeadTie.GM: 'gm'>
>>> Rulings.from_mapping({"together_tie": "gm"}).together_tie
<TogetherTie.GM: 'gm'>
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from referee.system.options import options_mapping, read_options


class DeadTie(Enum):
    """R-15: a first-throw tie that leaves both sides of a pair without dice."""

    GM = "gm"  # the GM wins the pair
    NONE = "none"  # the pair has no result


class TogetherTie(Enum):
    """R-16: a player's die equal to a GM value set by a die that landed at the same moment."""

    PLAYER = "player"  # the player takes control ("Remis wystarcza")
    GM = "gm"  # the GM keeps it


class LossOrder(Enum):
    """R-18: which die of a combat pool goes when its owner loses a round."""

    ALLIES_FIRST = "allies_first"  # an ally's die (the ally dies), then line dice
    OWNER = "owner"  # the commander's declared ``lose=`` choice


class FightMorale(Enum):
    """R-54: Morale for winning a whole fight."""

    ROUNDS = "rounds"  # only the rounds' own +1 each
    FIGHT = "fight"  # one more die for each player holding dice when the GM's pool empties


class CatastropheLine(Enum):
    """R-20: which line a Catastrophe takes."""

    USED = "used"  # the line struck for that test, else the largest he has
    LARGEST = "largest"  # always the largest line he has


class CatastropheMaster(Enum):
    """R-52: may a Master whose only line is lost test at all."""

    NONE = "none"  # no test of any kind ("jakiegokolwiek testu")
    RESOURCES = "resources"  # with Morale, Light or Empowerment, as when exhausted


class RefreshTiming(Enum):
    """R-50: when the party's lines return."""

    AFTER_TEST = "after_test"  # when the test that struck the last line ends
    ON_STRIKE = "on_strike"  # the moment that line is struck, before the test's dice


class CombatPenalty(Enum):
    """R-56: a player who lost a round with Empowerment or after a Negotiation."""

    ROUND = "round"  # takes the penalties and fights on with his remaining dice
    OUT = "out"  # leaves the fight


class HelpfulDie(Enum):
    """R-55: the die a helpful item adds to a combat pool."""

    FIGHT = "fight"  # counted with the line dice for the whole fight, lost last
    ROUND = "round"  # one round only, like a Morale die


class Consent(Enum):
    """§3.6: the GM's standing answer to a player's proposed Negotiation."""

    ASK = "ask"  # the verdict waits for the GM's answer in a later post
    ALWAYS = "always"
    NEVER = "never"  # no Negotiation is ever proposed, so none can cost a Catastrophe


def _whole(low: int, high: int) -> Any:
    """A whole-number ruling's allowed range, for the shared reader."""
    return {"range": (low, high)}


@dataclass(frozen=True)
class Rulings:
    """Every trikus ruling with its RULES.md default.

    >>> Rulings.from_mapping(Rulings().to_mapping()) == Rulings()
    True
    """

    dead_tie: DeadTie = DeadTie.GM
    together_tie: TogetherTie = TogetherTie.PLAYER
    loss_order: LossOrder = LossOrder.ALLIES_FIRST
    catastrophe_line: CatastropheLine = CatastropheLine.USED
    # difficulty points per offensive or defensive pip
    equipment_modifier: int = field(default=1, metadata=_whole(0, 5))
    # proposals per player per test (0: none)
    negotiations_per_test: int = field(default=1, metadata=_whole(0, 10))
    refresh_timing: RefreshTiming = RefreshTiming.AFTER_TEST
    # refreshes before a lost line returns, counted from the Catastrophe
    catastrophe_return: int = field(default=2, metadata=_whole(1, 10))
    catastrophe_master: CatastropheMaster = CatastropheMaster.NONE
    fight_morale: FightMorale = FightMorale.ROUNDS
    helpful_die: HelpfulDie = HelpfulDie.FIGHT
    combat_penalty: CombatPenalty = CombatPenalty.ROUND
    negotiation_consent: Consent = Consent.ASK  # §3.6
    # §3.4: the Combat Difficulty when a GM turns it on without a number
    combat_difficulty: int = field(default=3, metadata=_whole(1, 20))
    party_writes_master_dark: bool = False  # §3.7: the Master writes 1 Dark side, others 2
    gm_blind_dark: bool = False  # §3.7: Dark sides hidden from the GM; the player picks one

    @classmethod
    def from_mapping(cls, values: object) -> Rulings:
        """Rulings from config.toml's rulings table; ConfigError naming every problem.

        >>> Rulings.from_mapping({"dead_tie": "player", "loss": "owner"})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        referee.base.errors.ConfigError: The trikus rulings in config.toml have 2 problems:
        - dead_tie = 'player': allowed values are "gm", "none".
        - 'loss' is not a ruling; the trikus rulings are dead_tie, together_tie, ...
        """
        return read_options(cls, values, "trikus")

    def to_mapping(self) -> dict[str, object]:
        """The rulings as config.toml writes them (the inverse of :meth:`from_mapping`)."""
        return options_mapping(self)
