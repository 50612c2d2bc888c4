"""The rulings of RULES.md §5 for ``hits``: every choice the seed leaves open, with its default.

A GM sets them per campaign in config.toml; :meth:`Rulings.from_mapping` reads them with
the reader every system shares (:func:`referee.system.options.read_options`), which
refuses an unknown key (listing the known ones) and a value outside the allowed set, all
at once.

Rulings that RULES.md fixes without naming an option are applied as stated and listed
here so a reader finds them in one place: R-43 (only those tied for most hits reroll an
opposed roll), R-45 (in a quick roll Advantage adds dice, Disadvantage removes them),
R-48 (the fast-mode +1 per use is tallied at the chapter's end) and R-49 (Resist
rerolls both sides of a duel).

Options added here where RULES.md is silent, each with the reading RULES.md implies as
the default:

* ``xp_mode``: ``"standard"`` or ``"fast"`` (the seed's recommendation for short
  campaigns);
* ``start_level``: the campaign scale's starting Level (default 1, "começa em 1");
* ``npc_duel_bonus``: an NPC duels with Level + this many dice (the seed's "~ Nível + 7");
* ``stakes_wounds`` (R-24) takes 0 to 2, not only RULES.md's 0 and 2;
* ``group_ties``: when rollers of different Levels tie for the most hits in a group roll
  under R-42 ``"roller"``, whose Level sets the thresholds: ``"lowest"`` (default, the
  group gets the better result) or ``"highest"``;
* ``traits_in_roll``: what a skill, ability or benefit named in a standard roll gives
  (``"advantage"``, 1 each, the default; ``"rank"``; ``"dice"``, the Rank in dice).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from referee.system.options import coerce_options, options_mapping, read_options


class AdvantageMode(str, Enum):
    """R-23: what a point of Advantage (or Disadvantage) does to a roll."""

    FACE = "face"  # added to (subtracted from) each die's face, crit dice included
    EXTRA_DICE = "extra_dice"  # adds (removes) one die per point


class CritFace(str, Enum):
    """R-41: which face crits."""

    NATURAL = "natural"  # only a natural 6; a crit is a hit under any Disadvantage
    MODIFIED = "modified"  # a face of 6 or more after Advantage and Disadvantage


class HealthStart(str, Enum):
    """R-40: where Health comes from at creation and at a level-up."""

    # 2 x (Body + Level), recomputed at each level-up; RULES.md names no other value, the
    # option exists so config.toml can state it.
    FORMULA = "formula"


class GroupLevel(str, Enum):
    """R-42: whose Level sets the thresholds of a group roll."""

    ROLLER = "roller"  # the character whose roll counts
    HIGHEST = "highest"  # the highest Level in the group


class GroupTies(str, Enum):
    """Added: under R-42 "roller", whose Level counts when rollers tie for most hits."""

    LOWEST = "lowest"  # the group gets the better result
    HIGHEST = "highest"


class AllIn(str, Enum):
    """R-44: what the redo of All in keeps."""

    ORDINARY = "ordinary"  # the same roll with its modifiers; crits explode
    NATURAL = "natural"  # Disadvantage is ignored on the redo ("cada valor acima de 3")


class SecondKnockout(str, Enum):
    """R-46: what follows the lost stake of a second knockout in a scene."""

    OUT = "out"  # the character is knocked out
    REWAGER = "rewager"  # he may raise the stakes again ("Toda vez")


class InfluencePer(str, Enum):
    """R-25: how much Influence taking Stress or Wounds gives."""

    EVENT = "event"  # +1 per event, whatever its size
    POINT = "point"  # +1 per point


class XpAtMax(str, Enum):
    """R-28: XP at Level 6."""

    KEEP = "keep"  # still accrues and does nothing
    STOP = "stop"  # no longer awarded


class XpWaysScope(str, Enum):
    """R-47: whose Influence spends count toward a character's chapter XP."""

    OWN = "own"  # the character's own, refunded ones included
    TABLE = "table"  # anyone's at the table


class XpMode(str, Enum):
    """Added: the seed's two paces of experience."""

    STANDARD = "standard"  # 2 + 1 per distinct way Influence was spent, at most 5
    FAST = "fast"  # 3 + 1 per use, capped by R-27


class TraitsInRoll(str, Enum):
    """Added: what a skill, ability or benefit named in a roll gives. The seed rolls "um
    número de d6 igual ao atributo mais relevante" and names a skill "para adicionar
    vantagem" (its quick-roll example) without saying how much; RULES.md §5: "A roll
    throws d6 equal to the attribute"."""

    ADVANTAGE = "advantage"  # one attribute's dice; each trait named adds 1 Advantage
    RANK = "rank"  # one attribute's dice; each trait named adds its Rank in Advantage
    DICE = "dice"  # every source named adds its dice (attributes and traits by Rank)


@dataclass(frozen=True)
class Rulings:
    """Every choice §5 leaves open, with RULES.md's default.

    >>> Rulings().advantage
    <AdvantageMode.FACE: 'face'>
    >>> Rulings.from_mapping({"advantage": "extra_dice", "fast_xp_cap": "none"}).fast_xp_cap
    0
    """

    advantage: AdvantageMode = AdvantageMode.FACE
    # Wounds after raising the stakes in combat
    stakes_wounds: int = field(default=2, metadata={"range": (0, 2)})
    influence_per: InfluencePer = InfluencePer.EVENT
    resist_refund: bool = True  # a failed Resist still refunds the Influence
    # the fast mode's cap; config.toml's "none" (or 0) is no cap, held as UNCAPPED
    fast_xp_cap: int = field(default=5, metadata={"range": (0, 100)})
    xp_at_max: XpAtMax = XpAtMax.KEEP
    health_start: HealthStart = HealthStart.FORMULA
    crit_face: CritFace = CritFace.NATURAL
    group_level: GroupLevel = GroupLevel.ROLLER
    all_in: AllIn = AllIn.ORDINARY
    second_knockout: SecondKnockout = SecondKnockout.OUT
    xp_ways_scope: XpWaysScope = XpWaysScope.OWN
    xp_mode: XpMode = XpMode.STANDARD  # added
    start_level: int = field(default=1, metadata={"range": (1, 6)})  # added: the campaign scale
    # added: an NPC's duel pool is Level + this
    npc_duel_bonus: int = field(default=7, metadata={"range": (0, 50)})
    group_ties: GroupTies = GroupTies.LOWEST  # added
    traits_in_roll: TraitsInRoll = TraitsInRoll.ADVANTAGE  # added: the seed's reading

    def __post_init__(self) -> None:
        coerce_options(self)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, object]) -> Rulings:
        """Rulings from config.toml; ConfigError naming every bad key and what it allows.

        >>> Rulings.from_mapping({"advantage": "both", "stake_wounds": 2})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        referee.base.errors.ConfigError: The hits rulings in config.toml have 2 problems:
        - advantage = 'both': allowed values are "face", "extra_dice".
        - 'stake_wounds' is not a ruling; the hits rulings are advantage, stakes_wounds, ...
        """
        if isinstance(mapping, Mapping) and mapping.get("fast_xp_cap") == "none":
            mapping = {**mapping, "fast_xp_cap": UNCAPPED}
        return read_options(cls, mapping, "hits")

    def to_mapping(self) -> dict[str, object]:
        """The rulings as config.toml writes them (the inverse of :meth:`from_mapping`).

        >>> written = Rulings(fast_xp_cap=UNCAPPED).to_mapping()
        >>> written["fast_xp_cap"], Rulings.from_mapping(written) == Rulings(fast_xp_cap=UNCAPPED)
        ('none', True)
        """
        out = options_mapping(self)
        if self.fast_xp_cap == UNCAPPED:
            out["fast_xp_cap"] = "none"
        return out


UNCAPPED = 0  # fast_xp_cap's "none"
DEFAULT_RULINGS = Rulings()
