"""Stepped rulings (R-1..R-7 and options RULES.md left open) and the rules value: rulings, races."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, TypeGuard

from referee.base.errors import ConfigError, UnknownName
from referee.base.limits import DEFAULT_LIMITS

from .traits import MAX_POINTS, MIN_POINTS, Race, Stat, parse_stat


class WildReplaces(str, Enum):
    """R-1: which trait die the wild d6 replaces, if it is higher."""

    LOWEST = "lowest"
    HIGHEST = "highest"


class ExceptionalOn(str, Enum):
    """R-2: which trait die the wild d6 must match for an exceptional success."""

    ANY = "any"  # any trait die
    REPLACED = "replaced"  # the die R-1 compares it with
    EVERY = "every"  # every trait die


class CriticalWhen(str, Enum):
    """R-3: which trait dice must show 1 for a critical failure."""

    EVERY_DIE = "every_die"
    ANY_DIE = "any_die"


class Ties(str, Enum):
    """R-5: who wins an equal result."""

    DEFENDER = "defender"  # the attack misses, the damage does not wound
    ATTACKER = "attacker"


class PenaltyAppliesTo(str, Enum):
    """R-6: whose wounds cost a penalty on every roll."""

    PCS = "pcs"  # the seed speaks of player characters' pain shock
    ALL = "all"


class WoundPenaltyMode(str, Enum):
    """R-6: how pain shock lowers a wounded character's rolls."""

    FLAT = "flat"  # wound_penalty off every roll per wound carried
    STEP = "step"  # every stat one ladder step lower per wound (d8 -> d6, never below d4)


class MagicPoints(str, Enum):
    """R-60: where a mage's magic points come from."""

    BUDGET = "budget"  # out of the background's budget, under the race cap, like a stat
    FREE = "free"  # the GM assigns them outside the budget


@dataclass(frozen=True)
class Rulings:
    """Every choice RULES.md leaves open, with its default; a GM sets them in config.toml.

    >>> Rulings().ties
    <Ties.DEFENDER: 'defender'>
    >>> Rulings.from_mapping({"ties": "attacker"}).ties
    <Ties.ATTACKER: 'attacker'>
    """

    wild_die_replaces: WildReplaces = WildReplaces.LOWEST
    exceptional_on: ExceptionalOn = ExceptionalOn.ANY
    critical_when: CriticalWhen = CriticalWhen.EVERY_DIE
    critical_beats_exceptional: bool = True  # double 1s fail
    ties: Ties = Ties.DEFENDER
    wound_penalty: int = 1  # subtracted from every roll per wound carried (0 turns it off)
    wound_penalty_applies_to: PenaltyAppliesTo = PenaltyAppliesTo.PCS
    wound_penalty_mode: WoundPenaltyMode = WoundPenaltyMode.FLAT
    called_shot_limb: int = -2  # hit-roll modifier for an arm or a leg
    called_shot_head: int = -4  # hit-roll modifier for the head
    # The seed describes criticals in the named-characters paragraph only.
    critical_for_unnamed: bool = False
    # The seed says the wild d6 goes beside ANY roll, damage included (weapon dice
    # and melee Strength); False keeps it off damage rolls.
    wild_die_on_damage: bool = True
    # Added: RULES.md names the results but not what they do when the totals disagree
    # (a 1 beside a wild 6 totals 6). True: a critical failure loses the contest or
    # fails the cast whatever its total; False: it is only narrated.
    critical_fails: bool = True
    # the seed only names the exceptional success (a cast succeeds "only" on the
    # tier's top face). False: reported for the GM to narrate, never a win on its own;
    # True: it wins (or casts) whatever its total, unless the other side's is exceptional too.
    exceptional_succeeds: bool = False
    # the seed grants the automatic hit on an unaware target only in the ranged
    # paragraph. False: melee on the unaware is rolled as usual; True: hit automatically too.
    melee_unaware_auto_hit: bool = False
    # the seed does not say where magic points come from.
    magic_points: MagicPoints = MagicPoints.BUDGET

    def __post_init__(self) -> None:
        for name, enum in _RULING_ENUMS.items():
            object.__setattr__(self, name, enum(getattr(self, name)))

    @classmethod
    def from_mapping(cls, d: Mapping[str, object]) -> Rulings:
        """Rulings from config.toml; ConfigError naming every bad key and what it allows.

        >>> Rulings.from_mapping({"ties": "both", "wound_penaly": 1})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        referee.base.errors.ConfigError: The stepped rulings in config.toml have 2 problems:
        - ties = 'both': allowed values are "defender", "attacker".
        - 'wound_penaly' is not a ruling; the rulings are wild_die_replaces, ...
        """
        problems: list[str] = []
        values: dict[str, Any] = {}
        for key, value in d.items():
            check = _RULING_CHECKS.get(key)
            if check is None:
                problems.append(f"'{key}' is not a ruling; the rulings are {_RULING_NAMES}.")
                continue
            allowed, convert = check
            if not allowed(value):
                problems.append(f"{key} = {value!r}: allowed values are {_RULING_HELP[key]}.")
            else:
                values[key] = convert(value)
        if problems:
            count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
            raise ConfigError(
                f"The stepped rulings in config.toml have {count}:\n"
                + "\n".join(f"- {problem}" for problem in problems)
            )
        return cls(**values)

    def to_mapping(self) -> dict[str, object]:
        """The rulings as config.toml writes them (the inverse of :meth:`from_mapping`).

        >>> Rulings.from_mapping(Rulings().to_mapping()) == Rulings()
        True
        """
        return {
            f.name: (value.value if isinstance(value, Enum) else value)
            for f in fields(self)
            for value in [getattr(self, f.name)]
        }


_RULING_ENUMS: dict[str, type[Enum]] = {
    "wild_die_replaces": WildReplaces,
    "exceptional_on": ExceptionalOn,
    "critical_when": CriticalWhen,
    "ties": Ties,
    "wound_penalty_applies_to": PenaltyAppliesTo,
    "wound_penalty_mode": WoundPenaltyMode,
    "magic_points": MagicPoints,
}


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_between(low: int, high: int) -> Callable[[object], bool]:
    """A check that a config value is a whole number from ``low`` to ``high``."""
    return lambda value: (
        isinstance(value, int) and not isinstance(value, bool) and (low <= value <= high)
    )


def _member_of(enum: type[Enum]) -> Callable[[object], bool]:
    """A check that a config value names a member of ``enum``."""
    allowed = {member.value for member in enum}
    return lambda value: isinstance(value, str) and value in allowed


_RULING_CHECKS: dict[str, tuple[Callable[[object], bool], Callable[[Any], Any]]] = {
    **{name: (_member_of(enum), enum) for name, enum in _RULING_ENUMS.items()},
    **{
        name: ((lambda v: isinstance(v, bool)), bool)
        for name in (
            "critical_beats_exceptional",
            "critical_for_unnamed",
            "wild_die_on_damage",
            "critical_fails",
            "exceptional_succeeds",
            "melee_unaware_auto_hit",
        )
    },
    "wound_penalty": (_int_between(0, 6), int),
    "called_shot_limb": (_int_between(-20, 0), int),
    "called_shot_head": (_int_between(-20, 0), int),
}


_RULING_HELP: dict[str, str] = {
    **{
        name: ", ".join(f'"{member.value}"' for member in enum)
        for name, enum in _RULING_ENUMS.items()
    },
    **{name: "true, false" for name, (_, convert) in _RULING_CHECKS.items() if convert is bool},
    "wound_penalty": "a whole number from 0 to 6",
    "called_shot_limb": "a whole number from -20 to 0",
    "called_shot_head": "a whole number from -20 to 0",
}


_RULING_NAMES = ", ".join(f.name for f in fields(Rulings))


def _default_races() -> dict[str, Race]:
    return {"human": Race("human")}


@dataclass(frozen=True)
class Rules:
    """The rulings and the race table of one campaign."""

    rulings: Rulings = field(default_factory=Rulings)
    races: Mapping[str, Race] = field(default_factory=_default_races)


def _fold(name: str) -> str:
    """A name as compared: no outer spaces, any case."""
    return name.strip().casefold()


def find_race(name: str, rules: Rules) -> Race | None:
    """The race called ``name`` (any case), or None.

    >>> find_race("Human", Rules())
    Race(name='human', cap=3, modifiers={})
    """
    race = rules.races.get(name)
    if race is not None:
        return race
    wanted = _fold(name)
    return next((r for key, r in rules.races.items() if _fold(key) == wanted), None)


_RACE_KEYS = {"cap", "modifiers"}


def load_races(table: Mapping[str, Any]) -> dict[str, Race]:
    """The race table from parsed data/races.toml; ConfigError listing every problem.

    >>> load_races({"human": {"cap": 3}, "wookiee": {"cap": 4, "modifiers": {"str": 1}}})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'human': Race(name='human', cap=3, modifiers={}),
     'wookiee': Race(name='wookiee', cap=4, modifiers={<Stat.STRENGTH: 'strength'>: 1})}
    """
    problems: list[str] = []
    races: dict[str, Race] = {}
    if not table:
        problems.append("the race table is empty; it needs at least a [human] table")
    for raw_name, row in table.items():
        name = _fold(str(raw_name))
        where = f"[{raw_name}]"
        if not name:
            problems.append(f"{where}: a race needs a name")
            continue
        if name in races:
            problems.append(f"{where}: race '{name}' appears twice")
            continue
        if not isinstance(row, Mapping):
            problems.append(f"{where}: expected a table with cap and modifiers, not {row!r}")
            continue
        for key in sorted(set(row) - _RACE_KEYS):
            problems.append(f"{where}: unknown key '{key}'; a race has cap and modifiers")
        cap = row.get("cap", 3)
        if not (_is_int(cap) and MIN_POINTS <= cap <= MAX_POINTS):
            problems.append(f"{where}: cap = {cap!r}; it must be a whole number from 1 to 6")
            cap = 3
        modifiers: dict[Stat, int] = {}
        raw_modifiers = row.get("modifiers", {})
        if not isinstance(raw_modifiers, Mapping):
            problems.append(f"{where}: modifiers must be a table like {{ strength = 1 }}")
            raw_modifiers = {}
        for word, value in raw_modifiers.items():
            try:
                stat = parse_stat(str(word))
            except UnknownName as error:
                problems.append(f"{where}: modifiers: {error.message}")
                continue
            if not (_is_int(value) and abs(value) <= DEFAULT_LIMITS.max_modifier):
                problems.append(f"{where}: modifiers.{word} = {value!r}; it must be a whole number")
            elif stat in modifiers:
                problems.append(f"{where}: modifiers name {stat.value} twice")
            else:
                modifiers[stat] = value
        races[name] = Race(name, cap, modifiers)
    if problems:
        raise ConfigError(
            "The race table (data/races.toml) has problems:\n"
            + "\n".join(f"- {problem}" for problem in problems)
        )
    return races


is_whole_number = _is_int  # an int that is not a bool
