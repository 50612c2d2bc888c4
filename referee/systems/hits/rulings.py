"""The rulings of RULES.md §5 for ``hits``: every choice the seed leaves open, with its default.

A GM sets them per campaign in config.toml; :meth:`Rulings.from_mapping` refuses an
unknown key (listing the known ones) and a value outside the allowed set, all at once.

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
* ``group_ties``: when rollers of different Levels tie for the most hits in a group roll
  under R-42 ``"roller"``, whose Level sets the thresholds: ``"lowest"`` (default, the
  group gets the better result) or ``"highest"``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from referee.errors import ConfigError


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


@dataclass(frozen=True)
class Rulings:
    """Every choice §5 leaves open, with RULES.md's default.

    >>> Rulings().advantage
    <AdvantageMode.FACE: 'face'>
    >>> Rulings.from_mapping({"advantage": "extra_dice", "fast_xp_cap": "none"}).fast_xp_cap is None
    True
    """

    advantage: AdvantageMode = AdvantageMode.FACE
    stakes_wounds: int = 2  # Wounds after raising the stakes in combat
    influence_per: InfluencePer = InfluencePer.EVENT
    resist_refund: bool = True  # a failed Resist still refunds the Influence
    fast_xp_cap: int | None = 5  # None is "none", no cap in fast mode
    xp_at_max: XpAtMax = XpAtMax.KEEP
    health_start: HealthStart = HealthStart.FORMULA
    crit_face: CritFace = CritFace.NATURAL
    group_level: GroupLevel = GroupLevel.ROLLER
    all_in: AllIn = AllIn.ORDINARY
    second_knockout: SecondKnockout = SecondKnockout.OUT
    xp_ways_scope: XpWaysScope = XpWaysScope.OWN
    xp_mode: XpMode = XpMode.STANDARD  # added
    start_level: int = 1  # added: the campaign scale
    npc_duel_bonus: int = 7  # added: NPC duel pool is Level + this
    group_ties: GroupTies = GroupTies.LOWEST  # added

    def __post_init__(self) -> None:
        for name, enum in _ENUMS.items():
            object.__setattr__(self, name, enum(getattr(self, name)))

    @classmethod
    def from_mapping(cls, d: Mapping[str, object]) -> Rulings:
        """Rulings from config.toml; ConfigError naming every bad key and what it allows.

        >>> Rulings.from_mapping({"advantage": "both", "stake_wounds": 2})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        referee.errors.ConfigError: The hits rulings in config.toml have 2 problems:
        - advantage = 'both': allowed values are "face", "extra_dice".
        - 'stake_wounds' is not a ruling; the rulings are advantage, stakes_wounds, ...
        """
        problems: list[str] = []
        values: dict[str, Any] = {}
        for key, value in d.items():
            check = _CHECKS.get(key)
            if check is None:
                problems.append(f"{key!r} is not a ruling; the rulings are {_NAMES}.")
                continue
            allowed, convert, help_text = check
            if allowed(value):
                values[key] = convert(value)
            else:
                problems.append(f"{key} = {value!r}: allowed values are {help_text}.")
        if problems:
            count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
            raise ConfigError(
                f"The hits rulings in config.toml have {count}:\n"
                + "\n".join(f"- {problem}" for problem in problems)
            )
        return cls(**values)

    def to_mapping(self) -> dict[str, object]:
        """The rulings as config.toml writes them (the inverse of :meth:`from_mapping`).

        >>> uncapped = Rulings(fast_xp_cap=None)
        >>> Rulings.from_mapping(uncapped.to_mapping()) == uncapped
        True
        """
        out: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Enum):
                value = value.value
            elif f.name == "fast_xp_cap" and value is None:
                value = "none"
            out[f.name] = value
        return out


_ENUMS: dict[str, type[Enum]] = {
    "advantage": AdvantageMode,
    "influence_per": InfluencePer,
    "xp_at_max": XpAtMax,
    "health_start": HealthStart,
    "crit_face": CritFace,
    "group_level": GroupLevel,
    "all_in": AllIn,
    "second_knockout": SecondKnockout,
    "xp_ways_scope": XpWaysScope,
    "xp_mode": XpMode,
    "group_ties": GroupTies,
}


def _int_between(low: int, high: int) -> Callable[[object], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _member_of(enum: type[Enum]) -> Callable[[object], bool]:
    allowed = {member.value for member in enum}
    return lambda v: isinstance(v, str) and v in allowed


def _xp_cap(value: object) -> bool:
    return value == "none" or _int_between(2, 100)(value)


_Check = tuple[Callable[[object], bool], Callable[[Any], Any], str]
_CHECKS: dict[str, _Check] = {
    **{
        name: (_member_of(enum), enum, ", ".join(f'"{m.value}"' for m in enum))
        for name, enum in _ENUMS.items()
    },
    "stakes_wounds": (lambda v: v in (0, 2) and not isinstance(v, bool), int, "0, 2"),
    "resist_refund": (lambda v: isinstance(v, bool), bool, "true, false"),
    "fast_xp_cap": (
        _xp_cap,
        lambda v: None if v == "none" else int(v),
        'a whole number from 2 to 100, "none"',
    ),
    "start_level": (_int_between(1, 6), int, "a whole number from 1 to 6"),
    "npc_duel_bonus": (_int_between(0, 50), int, "a whole number from 0 to 50"),
}
_NAMES = ", ".join(f.name for f in fields(Rulings))

DEFAULT_RULINGS = Rulings()
