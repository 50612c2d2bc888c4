"""The ``edge`` rulings (RULES.md §4, R-13 and R-39): what the seed leaves open.

>>> EdgeRulings().edge_use
<EdgeUse.POLICY: 'policy'>
>>> EdgeRulings.from_mapping({"edge_raise": "player"}).edge_raise
<EdgeRaise.PLAYER: 'player'>
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from referee.system.options import ConfigurableMixin


class EdgeRaise(str, Enum):
    """R-13: who raises the advantage die (the seed does not say)."""

    GM = "gm"  # the GM (or a move's text, through the GM) raises it, one step at a time
    PLAYER = "player"  # the player raises it by a tag; the GM may lower it back


class EdgeUse(str, Enum):
    """R-39: how a player, who cannot choose after seeing the dice by post, uses advantage."""

    POLICY = "policy"  # each character's standing policy decides, overridable per roll
    ASK = "ask"  # when it would raise the band, the verdict waits for `edge` or `keep`


class Policy(str, Enum):
    """A character's standing choice of when to spend the advantage die (R-39)."""

    UP = "up"  # whenever it raises the result band
    HIT = "hit"  # only to turn a miss (6-) into 7+
    STRONG = "strong"  # only to reach 10+
    ALWAYS = "always"  # whenever it raises the total at all, even within a band (the issue's
    #                    "always on this roll"; never when the lower die already beats it)
    NEVER = "never"


@dataclass(frozen=True)
class EdgeRulings(ConfigurableMixin):
    """The options of an ``edge`` campaign, defaults from RULES.md §4.

    Read from config.toml with ``from_mapping`` (every problem at once), written
    with ``to_mapping``:

    >>> EdgeRulings.from_mapping({"edge_rise": "gm"})
    Traceback (most recent call last):
    ...
    referee.base.errors.ConfigError: The edge rulings in config.toml have 1 problem:
    - 'edge_rise' is not a ruling; the edge rulings are edge_raise, edge_use, default_policy.
    >>> EdgeRulings.from_mapping(EdgeRulings().to_mapping()) == EdgeRulings()
    True
    """

    system = "edge"

    edge_raise: EdgeRaise = EdgeRaise.GM
    edge_use: EdgeUse = EdgeUse.POLICY
    # Added: the policy a new character starts with (R-39 names `up` as the default).
    default_policy: Policy = Policy.UP
