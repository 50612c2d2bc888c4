"""The ``stepped`` system (seed 002, RULES.md §1.1-1.4): stepped dice, the wild d6, combat, magic.

Everything here is a pure function over small frozen values. Randomness comes in
through a :class:`~referee.dice.DiceSource`; the dice are drawn in a fixed order so
a worked example can be replayed with :class:`~referee.dice.FixedDice`:

* a roll draws its trait (or damage) dice in order, then the wild d6 if it has one;
* an attack draws the hit roll, the defence roll, the damage roll, then the soak roll.

The stages of one roll::

    Character --plan--> (dice, wild?, modifiers) --dice--> TraitRoll
                                   \\--odds--> exact chance (stepped_odds)

A Kara with Agility 3 (d8) rolls with her wild d6 and takes the higher:

>>> from referee.dice import FixedDice
>>> kara = Character("Kara", Kind.PC, {Stat.STRENGTH: 2, Stat.AGILITY: 3,
...     Stat.ENDURANCE: 3, Stat.PERCEPTION: 3}, named=True, wounds_survived=3)
>>> roll = roll_trait(kara, [Stat.AGILITY], Rules(), FixedDice([2, 5]))
>>> roll.total, roll.exceptional, roll.critical
(5, False, False)

Where RULES.md leaves a choice, :class:`Rulings` names it (R-1..R-7 and the few
options this module had to add), and a GM sets it in config.toml.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from fractions import Fraction
from typing import Any, Generic, TypeVar

from referee.dice import DiceSource
from referee.errors import ConfigError, RuleViolation, UnknownName, UserError
from referee.limits import DEFAULT_LIMITS
from referee.systems import stepped_odds
from referee.systems.stepped_odds import RollSpec

# ---------------------------------------------------------------------------
# Stats, points and dice


class Stat(str, Enum):
    """The four stats every character has (Сила, Ловкость, Стойкость, Восприятие)."""

    STRENGTH = "strength"
    AGILITY = "agility"
    ENDURANCE = "endurance"
    PERCEPTION = "perception"


STAT_WORDS: dict[str, Stat] = {
    **{stat.value: stat for stat in Stat},
    **{stat.value[:3]: stat for stat in Stat},  # str, agi, end, per
}


def _join(words: Sequence[str], conjunction: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


def parse_stat(word: str) -> Stat:
    """The stat a player named: a full name or its first three letters, any case.

    >>> parse_stat("AGI"), parse_stat(" Perception ")
    (<Stat.AGILITY: 'agility'>, <Stat.PERCEPTION: 'perception'>)
    >>> parse_stat("venn")
    Traceback (most recent call last):
    ...
    referee.errors.UnknownName: 'venn' is not a stat; the stats are strength, agility, \
endurance and perception.
    """
    stat = STAT_WORDS.get(word.strip().casefold())
    if stat is None:
        names = _join([s.value for s in Stat])
        raise UnknownName(f"'{word}' is not a stat; the stats are {names}.")
    return stat


LADDER = (4, 6, 8, 10, 12, 20)  # points 1..6 -> die sides
MIN_POINTS, MAX_POINTS = 1, 6


def die_for_points(points: int) -> int:
    """The die a stat (or magic parameter) rolls for its points: 1->d4 ... 6->d20.

    >>> die_for_points(3), die_for_points(6)
    (8, 20)
    >>> die_for_points(7)
    Traceback (most recent call last):
    ...
    ValueError: a stat has 1 to 6 points, not 7
    """
    if not MIN_POINTS <= points <= MAX_POINTS:
        raise ValueError(f"a stat has {MIN_POINTS} to {MAX_POINTS} points, not {points}")
    return LADDER[points - 1]


class Background(str, Enum):
    """How much a character has fought; it sets the points to distribute."""

    NONCOMBATANT = "noncombatant"
    EXPERIENCED = "experienced"  # has combat experience
    SOLDIER = "soldier"  # a professional soldier


BUDGETS: dict[Background, int] = {
    Background.NONCOMBATANT: 3,
    Background.EXPERIENCED: 5,
    Background.SOLDIER: 7,
}
BACKGROUND_NAMES: dict[Background, str] = {  # as a player reads it in a message
    Background.NONCOMBATANT: "a non-combatant",
    Background.EXPERIENCED: "a combat-experienced character",
    Background.SOLDIER: "a professional soldier",
}
BACKGROUND_WORDS: dict[str, Background] = {
    **{background.value: background for background in Background},
    "non-combatant": Background.NONCOMBATANT,
    "combat-experienced": Background.EXPERIENCED,
    "professional soldier": Background.SOLDIER,
}


class Kind(str, Enum):
    """Who plays the character."""

    PC = "pc"  # a player character: always named, survives 3 wounds
    NPC = "npc"  # played by the GM; named only if the sheet says so


@dataclass(frozen=True)
class Race:
    """A row of the race table: the stat cap and the roll modifier per stat."""

    name: str
    cap: int = 3  # most points a stat may hold before modifiers
    modifiers: Mapping[Stat, int] = field(default_factory=dict)  # added to rolls of that stat


class WeaponKind(str, Enum):
    """Which attack a weapon serves."""

    RANGED = "ranged"
    MELEE = "melee"


@dataclass(frozen=True)
class Weapon:
    """A weapon on a sheet. Ranged weapons roll their dice; melee adds its modifier to Strength."""

    name: str
    kind: WeaponKind
    dice_count: int = 0  # ranged damage dice, e.g. 2 in 2d6
    dice_sides: int = 0  # e.g. 6 in 2d6
    modifier: int = 0  # added to the damage roll
    can_subdue: bool = False  # may take a target alive (stun baton, bare hands)


UNARMED = Weapon("bare hands", WeaponKind.MELEE, can_subdue=True)


@dataclass(frozen=True)
class Technique:
    """A magic technique and the tier it sits under."""

    name: str
    tier: int  # die sides 4/6/8/10/12/20; casting needs this face or more


@dataclass(frozen=True)
class MagicParameter:
    """A kind of magic (Force techniques, vampire disciplines...) with points like a stat."""

    name: str
    points: int
    techniques: tuple[Technique, ...] = ()


# How many techniques each tier holds: the faces it adds to the die below it.
TIER_CAPACITY: dict[int, int] = {4: 4, 6: 2, 8: 2, 10: 2, 12: 2, 20: 8}


@dataclass(frozen=True)
class Character:
    """A character sheet as the rules see it."""

    name: str
    kind: Kind
    stats: Mapping[Stat, int]  # points 1..6 per stat
    background: Background = Background.SOLDIER
    race: str = "human"
    named: bool = False  # rolls the wild d6; player characters always do
    wounds_survived: int = 0  # wounds the character survives: PC 3, ordinary NPC 0, tough NPC 2-3
    wounds: int = 0  # wounds carried now
    incapacitated: bool = False  # subdued: out of the fight but alive
    armour: int = 0  # added to every soak roll
    weapons: tuple[Weapon, ...] = ()
    magic: tuple[MagicParameter, ...] = ()


DEFAULT_WOUNDS_SURVIVED: dict[Kind, int] = {Kind.PC: 3, Kind.NPC: 0}


def is_named(c: Character) -> bool:
    """Whether ``c`` rolls the wild d6: every PC, and NPCs marked named.

    >>> is_named(Character("Kara", Kind.PC, {})), is_named(Character("Guard", Kind.NPC, {}))
    (True, False)
    """
    return c.kind == Kind.PC or c.named


class State(str, Enum):
    """Where a character stands in a fight."""

    FIGHTING = "fighting"
    WOUNDED = "wounded"  # carries wounds but still acts (with pain shock, R-6)
    INCAPACITATED = "incapacitated"  # subdued: alive, out of the fight
    DEAD = "dead"


def state_of(c: Character) -> State:
    """Dead past the wounds it survives, else incapacitated, else wounded, else fighting.

    >>> guard = Character("Guard", Kind.NPC, {})
    >>> state_of(guard), state_of(replace(guard, wounds=1))
    (<State.FIGHTING: 'fighting'>, <State.DEAD: 'dead'>)
    """
    if c.wounds > c.wounds_survived:
        return State.DEAD
    if c.incapacitated:
        return State.INCAPACITATED
    if c.wounds > 0:
        return State.WOUNDED
    return State.FIGHTING


# ---------------------------------------------------------------------------
# Rulings and rules


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
    # Added, the same question the other way: True: an exceptional success wins (or
    # casts) whatever its total, unless the other side's is exceptional too.
    exceptional_succeeds: bool = True
    # Added: the seed grants the automatic hit on an unaware target only in the ranged
    # paragraph. True: an unaware target of a melee attack is hit automatically too.
    melee_unaware_auto_hit: bool = True

    def __post_init__(self) -> None:
        for name, enum in _RULING_ENUMS.items():
            object.__setattr__(self, name, enum(getattr(self, name)))

    @classmethod
    def from_mapping(cls, d: Mapping[str, object]) -> Rulings:
        """Rulings from config.toml; ConfigError naming every bad key and what it allows.

        >>> Rulings.from_mapping({"ties": "both", "wound_penaly": 1})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        referee.errors.ConfigError: The stepped rulings in config.toml have 2 problems:
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
}


def _is_int(value: object) -> bool:
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


# ---------------------------------------------------------------------------
# Validation


def _capacity_words(sides: int) -> str:
    return f"d{sides}"


def validate_character(c: Character, rules: Rules) -> list[str]:
    """Every problem with a sheet at once, each a sentence the player can act on; [] if none.

    >>> kara = Character("Kara", Kind.PC, {Stat.STRENGTH: 2, Stat.AGILITY: 4,
    ...     Stat.ENDURANCE: 3, Stat.PERCEPTION: 2}, wounds_survived=3)
    >>> validate_character(kara, Rules())
    ['Agility has 4 points; a human may have at most 3.']
    """
    problems: list[str] = []
    add = problems.append
    if not c.name.strip():
        add("The character needs a name.")
    race = find_race(c.race, rules)
    if race is None:
        known = _join(sorted(rules.races), "or")
        add(f"The race '{c.race}' is not in the race table; choose {known}.")
    problems.extend(_stat_problems(c, race))
    problems.extend(_budget_problems(c))
    problems.extend(_weapon_problems(c))
    problems.extend(_magic_problems(c))
    if c.armour < 0:
        add(f"Armour is {c.armour}; it cannot be negative.")
    if not 0 <= c.wounds_survived <= 3:
        add(f"The character survives {c.wounds_survived} wounds; it must be 0 to 3.")
    if c.wounds < 0:
        add(f"The character carries {c.wounds} wounds; it cannot be negative.")
    elif c.wounds > max(c.wounds_survived, 0) + 1:
        add(
            f"The character carries {c.wounds} wounds; one past the "
            f"{c.wounds_survived} survived already kills."
        )
    return problems


def _stat_problems(c: Character, race: Race | None) -> list[str]:
    problems: list[str] = []
    for key in c.stats:
        if not isinstance(key, Stat):
            names = _join([s.value for s in Stat])
            problems.append(f"'{key}' is not a stat; the stats are {names}.")
    for stat in Stat:
        title = stat.value.capitalize()
        points = c.stats.get(stat)
        if points is None:
            problems.append(f"{title} has no points; every stat needs 1 to 6.")
            continue
        if not MIN_POINTS <= points <= MAX_POINTS:
            problems.append(f"{title} has {points} points; a stat has 1 to 6 points.")
        if race is not None and points > race.cap:
            problems.append(
                f"{title} has {points} points; a {race.name} may have at most {race.cap}."
            )
    return problems


def _budget_problems(c: Character) -> list[str]:
    if any(stat not in c.stats for stat in Stat):
        return []
    budget = BUDGETS[c.background]
    spent = sum(c.stats[stat] for stat in Stat) - len(Stat) * MIN_POINTS
    who = BACKGROUND_NAMES[c.background]
    if spent > budget:
        return [
            f"The stats spend {spent} points above 1 each; {who} has {budget}, "
            f"so {spent - budget} are over."
        ]
    if spent < budget:
        return [
            f"The stats spend {spent} points above 1 each; {who} has {budget}, "
            f"so {budget - spent} are unspent."
        ]
    return []


def _duplicates(names: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    repeated: list[str] = []
    for name in names:
        key = name.strip().casefold()
        if key in seen and name not in repeated:
            repeated.append(name)
        seen.add(key)
    return repeated


def _weapon_problems(c: Character) -> list[str]:
    problems: list[str] = []
    limits = DEFAULT_LIMITS
    for weapon in c.weapons:
        label = f"The {weapon.kind.value} weapon '{weapon.name}'"
        if not weapon.name.strip():
            problems.append(f"A {weapon.kind.value} weapon needs a name.")
        has_dice = weapon.dice_count != 0 or weapon.dice_sides != 0
        if weapon.kind == WeaponKind.RANGED and (weapon.dice_count < 1 or weapon.dice_sides < 1):
            problems.append(f"{label} has no damage dice; write its damage as NdX, like 2d6.")
        elif weapon.kind == WeaponKind.MELEE and has_dice:
            problems.append(
                f"{label} has damage dice; melee damage is a Strength roll plus the "
                "weapon's modifier, so give it a modifier instead."
            )
        if weapon.dice_count > limits.max_dice or weapon.dice_sides > limits.max_sides:
            problems.append(
                f"{label} rolls too many dice; at most {limits.max_dice} dice of "
                f"{limits.max_sides} sides."
            )
        if abs(weapon.modifier) > limits.max_modifier:
            problems.append(f"{label} has a modifier beyond ±{limits.max_modifier}.")
    for name in _duplicates([w.name for w in c.weapons]):
        problems.append(f"Two weapons are called '{name}'; give each its own name.")
    return problems


def _magic_problems(c: Character) -> list[str]:
    problems: list[str] = []
    tiers = _join([f"d{t}" for t in LADDER])
    for parameter in c.magic:
        name = parameter.name or "a magic parameter"
        if not parameter.name.strip():
            problems.append("A magic parameter needs a name.")
        if not MIN_POINTS <= parameter.points <= MAX_POINTS:
            problems.append(
                f"{name} has {parameter.points} points; a magic parameter has 1 to 6 points."
            )
            own = None
        else:
            own = die_for_points(parameter.points)
        for technique in parameter.techniques:
            if not technique.name.strip():
                problems.append(f"A technique of {name} needs a name.")
            if technique.tier not in TIER_CAPACITY:
                problems.append(
                    f"{technique.name} sits at d{technique.tier}, which is not a tier; "
                    f"the tiers are {tiers}."
                )
            elif own is not None and technique.tier > own:
                problems.append(
                    f"{technique.name} sits at d{technique.tier}, above {name}'s own d{own}."
                )
        for tier, capacity in TIER_CAPACITY.items():
            held = sum(1 for t in parameter.techniques if t.tier == tier)
            if held > capacity:
                problems.append(
                    f"{name} holds {held} techniques at d{tier}; the d{tier} tier holds {capacity}."
                )
        if own is not None and len(parameter.techniques) > own:
            problems.append(
                f"{name} holds {len(parameter.techniques)} techniques; "
                f"a d{own} holds at most {own}."
            )
    for name in _duplicates([p.name for p in c.magic]):
        problems.append(f"Two magic parameters are called '{name}'; give each its own name.")
    all_techniques = [t.name for p in c.magic for t in p.techniques]
    for name in _duplicates(all_techniques):
        problems.append(f"Two techniques are called '{name}'; give each its own name.")
    return problems


# ---------------------------------------------------------------------------
# Sheets: records (parsed TOML or JSON) <-> characters

_SHEET_KEYS = (
    "name",
    "kind",
    "race",
    "background",
    "named",
    "wounds_survived",
    "wounds",
    "incapacitated",
    "armour",
    "stats",
    "weapons",
    "magic",
)
_WEAPON_KEYS = ("name", "kind", "damage", "modifier", "subdue")
_MAGIC_KEYS = ("name", "points", "techniques")
_TECHNIQUE_KEYS = ("name", "tier")
_DAMAGE = re.compile(r"^\s*(\d{1,9})\s*[dD]\s*(\d{1,9})\s*(?:([+-])\s*(\d{1,9}))?\s*$")
_TIER = re.compile(r"^\s*[dD]?(\d{1,9})\s*$")


def parse_damage(text: str) -> tuple[int, int, int]:
    """(count, sides, modifier) of a damage string "NdX" or "NdX+M".

    >>> parse_damage("2d6"), parse_damage("1d8-1")
    ((2, 6, 0), (1, 8, -1))
    """
    match = _DAMAGE.match(text)
    if match is None:
        raise UserError(f"'{text}' is not a damage roll; write it like 2d6 or 2d6+1.")
    count, sides, sign, bonus = match.groups()
    modifier = int(bonus) * (-1 if sign == "-" else 1) if bonus else 0
    return int(count), int(sides), modifier


class _Reader:
    """Collects every structural problem of one record while reading it."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def unknown(self, record: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
        for key in record:
            if key not in allowed:
                self.problems.append(
                    f"{where}'{key}' is not a field; the fields are {_join(list(allowed))}."
                )

    def text(self, record: Mapping[str, Any], key: str, where: str, default: str | None) -> str:
        value = record.get(key, default)
        if value is None:
            self.problems.append(f"{where}{key} is missing.")
            return ""
        if not isinstance(value, str) or (key == "name" and not value.strip()):
            self.problems.append(f"{where}{key} must be a non-empty text, not {value!r}.")
            return ""
        return value

    def integer(self, record: Mapping[str, Any], key: str, where: str, default: int | None) -> int:
        value = record.get(key, default)
        if value is None:
            self.problems.append(f"{where}{key} is missing.")
            return 0
        if not _is_int(value):
            self.problems.append(f"{where}{key} must be a whole number, not {value!r}.")
            return 0
        return int(value)

    def flag(self, record: Mapping[str, Any], key: str, where: str, default: bool) -> bool:
        value = record.get(key, default)
        if not isinstance(value, bool):
            self.problems.append(f"{where}{key} must be true or false, not {value!r}.")
            return default
        return value

    def choice(
        self,
        record: Mapping[str, Any],
        key: str,
        where: str,
        words: Mapping[str, Any],
        default: Any,
    ) -> Any:
        value = record.get(key, default)
        if value is None:
            choices = _join(list(words), "or")
            self.problems.append(f"{where}{key} is missing; it is one of {choices}.")
            return None
        if isinstance(value, Enum):
            value = value.value
        found = words.get(value.strip().casefold()) if isinstance(value, str) else None
        if found is None:
            self.problems.append(
                f"{where}{key} {value!r} is not one of {_join(list(words), 'or')}."
            )
        return found

    def items(self, record: Mapping[str, Any], key: str, where: str) -> list[Mapping[str, Any]]:
        value = record.get(key, [])
        if not isinstance(value, (list, tuple)):
            self.problems.append(f"{where}{key} must be a list.")
            return []
        good = []
        for index, item in enumerate(value, start=1):
            if isinstance(item, Mapping):
                good.append(item)
            else:
                self.problems.append(f"{where}{key} entry {index} must be a table, not {item!r}.")
        return good


def _read_stats(reader: _Reader, raw: object) -> dict[Stat, int]:
    stats: dict[Stat, int] = {}
    if not isinstance(raw, Mapping):
        reader.problems.append(
            "stats is missing; give strength, agility, endurance and perception."
        )
        return stats
    mentioned: set[Stat] = set()
    for word, value in raw.items():
        try:
            stat = parse_stat(str(word))
        except UnknownName as error:
            reader.problems.append(error.message)
            continue
        if stat in mentioned:
            reader.problems.append(f"stats name {stat.value} twice.")
        elif not _is_int(value):
            reader.problems.append(f"stats.{stat.value} must be a whole number, not {value!r}.")
        else:
            stats[stat] = value
        mentioned.add(stat)
    return stats  # a stat left out is a rules problem: validate_character names it


def _read_weapon(reader: _Reader, record: Mapping[str, Any], index: int) -> Weapon:
    where = f"weapon {index}: "
    reader.unknown(record, _WEAPON_KEYS, where)
    name = reader.text(record, "name", where, None)
    if name:
        where = f"weapon '{name}': "
    kind = reader.choice(record, "kind", where, {k.value: k for k in WeaponKind}, None)
    count = sides = 0
    modifier = reader.integer(record, "modifier", where, 0)
    damage = record.get("damage")
    if damage is not None:
        try:
            if not isinstance(damage, str):
                raise UserError(f"{damage!r} is not a damage roll; write it like 2d6 or 2d6+1.")
            count, sides, bonus = parse_damage(damage)
        except UserError as error:
            reader.problems.append(where + error.message)
        else:
            if bonus and "modifier" in record:
                reader.problems.append(f"{where}give the modifier once, in damage or in modifier.")
            modifier += bonus
    subdue = reader.flag(record, "subdue", where, False)
    return Weapon(name, kind or WeaponKind.MELEE, count, sides, modifier, subdue)


def _read_magic(reader: _Reader, record: Mapping[str, Any], index: int) -> MagicParameter:
    where = f"magic {index}: "
    reader.unknown(record, _MAGIC_KEYS, where)
    name = reader.text(record, "name", where, None)
    if name:
        where = f"magic '{name}': "
    points = reader.integer(record, "points", where, None)
    techniques = []
    for number, raw in enumerate(reader.items(record, "techniques", where), start=1):
        at = f"{where}technique {number}: "
        reader.unknown(raw, _TECHNIQUE_KEYS, at)
        title = reader.text(raw, "name", at, None)
        tier_raw = raw.get("tier")
        tier = 0
        if isinstance(tier_raw, int) and not isinstance(tier_raw, bool):
            tier = tier_raw
        elif isinstance(tier_raw, str) and _TIER.match(tier_raw):
            tier = int(_TIER.match(tier_raw).group(1))  # type: ignore[union-attr]
        else:
            reader.problems.append(f"{at}tier must be a die like d4 or d6, not {tier_raw!r}.")
        techniques.append(Technique(title, tier))
    return MagicParameter(name, points, tuple(techniques))


def character_from_record(record: Mapping[str, Any]) -> Character:
    """A character from a sheet record (parsed TOML or JSON); UserError listing every problem.

    Rules problems (too many points, an unknown race) are :func:`validate_character`'s;
    this only refuses a record it cannot read.

    >>> c = character_from_record({"name": "Guard", "kind": "npc", "stats": {"str": 2,
    ...     "agi": 2, "end": 2, "per": 2}})
    >>> c.wounds_survived, c.stats[Stat.AGILITY]
    (0, 2)
    >>> character_from_record({"kind": "pc", "stats": {"str": "three"}})
    Traceback (most recent call last):
    ...
    referee.errors.UserError: The character sheet has 2 problems:
    - name is missing.
    - stats.strength must be a whole number, not 'three'.
    """
    if not isinstance(record, Mapping):
        raise UserError("The character sheet must be a table of fields, like name and stats.")
    reader = _Reader()
    reader.unknown(record, _SHEET_KEYS, "")
    name = reader.text(record, "name", "", None)
    kind = reader.choice(record, "kind", "", {k.value: k for k in Kind}, None)
    race = reader.text(record, "race", "", "human")
    background = reader.choice(record, "background", "", BACKGROUND_WORDS, "soldier")
    named = reader.flag(record, "named", "", False)
    survived_default = DEFAULT_WOUNDS_SURVIVED.get(kind, 0) if kind else 0
    wounds_survived = reader.integer(record, "wounds_survived", "", survived_default)
    wounds = reader.integer(record, "wounds", "", 0)
    incapacitated = reader.flag(record, "incapacitated", "", False)
    armour = reader.integer(record, "armour", "", 0)
    stats = _read_stats(reader, record.get("stats"))
    weapons = tuple(
        _read_weapon(reader, raw, index)
        for index, raw in enumerate(reader.items(record, "weapons", ""), start=1)
    )
    magic = tuple(
        _read_magic(reader, raw, index)
        for index, raw in enumerate(reader.items(record, "magic", ""), start=1)
    )
    if reader.problems:
        count = "1 problem" if len(reader.problems) == 1 else f"{len(reader.problems)} problems"
        raise UserError(
            f"The character sheet has {count}:\n"
            + "\n".join(f"- {problem}" for problem in reader.problems)
        )
    return Character(
        name=name,
        kind=kind,
        stats=stats,
        background=background,
        race=race,
        named=named,
        wounds_survived=wounds_survived,
        wounds=wounds,
        incapacitated=incapacitated,
        armour=armour,
        weapons=weapons,
        magic=magic,
    )


def _weapon_record(weapon: Weapon) -> dict[str, Any]:
    record: dict[str, Any] = {"name": weapon.name, "kind": weapon.kind.value}
    if weapon.dice_count or weapon.dice_sides:
        bonus = f"{weapon.modifier:+d}" if weapon.modifier else ""
        record["damage"] = f"{weapon.dice_count}d{weapon.dice_sides}{bonus}"
    elif weapon.modifier:
        record["modifier"] = weapon.modifier
    if weapon.can_subdue:
        record["subdue"] = True
    return record


def character_to_record(c: Character) -> dict[str, Any]:
    """The JSON-safe sheet record of ``c``; :func:`character_from_record` reads it back exactly.

    >>> guard = Character("Guard", Kind.NPC, dict.fromkeys(Stat, 2))
    >>> character_from_record(character_to_record(guard)) == guard
    True
    """
    return {
        "name": c.name,
        "kind": Kind(c.kind).value,
        "race": c.race,
        "background": Background(c.background).value,
        "named": c.named,
        "wounds_survived": c.wounds_survived,
        "wounds": c.wounds,
        "incapacitated": c.incapacitated,
        "armour": c.armour,
        "stats": {stat.value: c.stats[stat] for stat in Stat if stat in c.stats},
        "weapons": [_weapon_record(weapon) for weapon in c.weapons],
        "magic": [
            {
                "name": parameter.name,
                "points": parameter.points,
                "techniques": [
                    {"name": t.name, "tier": f"d{t.tier}"} for t in parameter.techniques
                ],
            }
            for parameter in c.magic
        ],
    }


# ---------------------------------------------------------------------------
# Rolls


@dataclass(frozen=True)
class DieRoll:
    """One die as shown in a verdict."""

    sides: int
    value: int
    kept: bool = True  # counts toward the total (a trait die the wild d6 replaced does not)
    wild: bool = False  # this is the wild d6


@dataclass(frozen=True)
class Modifier:
    """A labelled number added to a roll, e.g. ("race", +1) or ("head shot", -4)."""

    label: str
    value: int


@dataclass(frozen=True)
class TraitRoll:
    """One roll with every die kept for display, its total and its special result."""

    roller: str
    label: str  # e.g. "agility + perception", "blaster pistol 2d6", "endurance"
    dice: tuple[DieRoll, ...]  # the trait (or damage) dice, in the order rolled
    wild: DieRoll | None  # the wild d6, for a named roller
    modifiers: tuple[Modifier, ...]
    total: int
    exceptional: bool  # the wild d6 matched a trait die
    critical: bool  # the trait dice showed 1; wins over exceptional


@dataclass(frozen=True)
class _Plan:
    """A roll before the dice fall; rolling and odds both read it, so they cannot drift."""

    roller: str
    label: str
    sides: tuple[int, ...]
    named: bool
    wild: bool
    modifiers: tuple[Modifier, ...]

    def spec(self) -> RollSpec:
        return RollSpec(self.sides, self.named, self.wild, sum(m.value for m in self.modifiers))


def wound_penalty(c: Character, rules: Rules) -> int:
    """R-6: the points pain shock takes off every roll of ``c`` (0 when none; never negative).

    >>> wound_penalty(Character("Kara", Kind.PC, {}, wounds_survived=3, wounds=2), Rules())
    2
    >>> wound_penalty(Character("Brute", Kind.NPC, {}, wounds_survived=2, wounds=1), Rules())
    0
    """
    rulings = rules.rulings
    applies = rulings.wound_penalty_applies_to == PenaltyAppliesTo.ALL or c.kind == Kind.PC
    return rulings.wound_penalty * c.wounds if applies and c.wounds > 0 else 0


def _wound_modifiers(c: Character, rules: Rules) -> tuple[Modifier, ...]:
    """R-6 as a labelled modifier, e.g. ("2 wounds", -2)."""
    penalty = wound_penalty(c, rules)
    if not penalty:
        return ()
    label = "1 wound" if c.wounds == 1 else f"{c.wounds} wounds"
    return (Modifier(label, -penalty),)


def _race(c: Character, rules: Rules) -> Race:
    race = find_race(c.race, rules)
    if race is None:
        known = _join(sorted(rules.races))
        raise UnknownName(
            f"{c.name}'s race '{c.race}' is not in the race table; the races are {known}."
        )
    return race


def _die_of(c: Character, stat: Stat) -> int:
    points = c.stats.get(stat)
    if points is None or not MIN_POINTS <= points <= MAX_POINTS:
        raise RuleViolation(
            f"{c.name}'s {stat.value} has {points or 'no'} points; it needs 1 to 6 to roll."
        )
    return die_for_points(points)


def _plan_trait(
    c: Character,
    stats: Sequence[Stat],
    rules: Rules,
    modifiers: Sequence[Modifier],
    *,
    wild: bool = True,
) -> _Plan:
    if not stats:
        raise ValueError("a trait roll needs at least one stat")
    race = _race(c, rules)
    race_bonus = sum(race.modifiers.get(stat, 0) for stat in stats)
    own = (Modifier("race", race_bonus),) if race_bonus else ()
    named = is_named(c)
    return _Plan(
        c.name,
        " + ".join(Stat(stat).value for stat in stats),
        tuple(_die_of(c, Stat(stat)) for stat in stats),
        named,
        named and wild,
        own + _wound_modifiers(c, rules) + tuple(modifiers),
    )


def _plan_dice(
    c: Character, label: str, count: int, sides: int, rules: Rules, modifiers: Sequence[Modifier]
) -> _Plan:
    limits = DEFAULT_LIMITS
    if count < 1 or sides < 1:
        raise RuleViolation(f"{label} has no dice to roll; write damage as NdX, like 2d6.")
    if count > limits.max_dice or sides > limits.max_sides:
        raise RuleViolation(
            f"{label} rolls too many dice; at most {limits.max_dice} dice "
            f"of {limits.max_sides} sides."
        )
    named = is_named(c)
    return _Plan(
        c.name,
        label,
        (sides,) * count,
        named,
        named and rules.rulings.wild_die_on_damage,
        _wound_modifiers(c, rules) + tuple(modifiers),
    )


_PICK_EXTREME: dict[WildReplaces, Callable[[Sequence[int]], int]] = {
    WildReplaces.LOWEST: lambda values: min(range(len(values)), key=values.__getitem__),
    WildReplaces.HIGHEST: lambda values: max(range(len(values)), key=values.__getitem__),
}
_EXCEPTIONAL: dict[ExceptionalOn, Callable[[Sequence[int], int, int], bool]] = {
    ExceptionalOn.ANY: lambda values, wild, replaced: wild in values,
    ExceptionalOn.REPLACED: lambda values, wild, replaced: wild == values[replaced],
    ExceptionalOn.EVERY: lambda values, wild, replaced: all(v == wild for v in values),
}
_CRITICAL: dict[CriticalWhen, Callable[[Sequence[int]], bool]] = {
    CriticalWhen.EVERY_DIE: lambda values: all(v == 1 for v in values),
    CriticalWhen.ANY_DIE: lambda values: 1 in values,
}


def _execute(plan: _Plan, rulings: Rulings, dice: DiceSource) -> TraitRoll:
    """Roll a plan: its dice in order, then the wild d6 (R-1..R-4)."""
    values = [dice.roll(sides) for sides in plan.sides]
    wild_die: DieRoll | None = None
    exceptional = False
    replaced = -1
    if plan.wild:
        wild_value = dice.roll(stepped_odds.WILD_SIDES)
        chosen = _PICK_EXTREME[rulings.wild_die_replaces](values)
        if wild_value > values[chosen]:
            replaced = chosen
        wild_die = DieRoll(stepped_odds.WILD_SIDES, wild_value, kept=replaced >= 0, wild=True)
        exceptional = _EXCEPTIONAL[rulings.exceptional_on](values, wild_value, chosen)
    can_critical = plan.named or rulings.critical_for_unnamed
    critical = can_critical and _CRITICAL[rulings.critical_when](values)
    if exceptional and critical:
        exceptional, critical = (
            (False, True) if rulings.critical_beats_exceptional else (True, False)
        )
    shown = tuple(
        DieRoll(sides, value, kept=index != replaced)
        for index, (sides, value) in enumerate(zip(plan.sides, values, strict=True))
    )
    total = sum(d.value for d in shown if d.kept) + sum(m.value for m in plan.modifiers)
    if wild_die is not None and wild_die.kept:
        total += wild_die.value
    return TraitRoll(
        plan.roller, plan.label, shown, wild_die, plan.modifiers, total, exceptional, critical
    )


def roll_trait(
    c: Character,
    stats: Sequence[Stat],
    rules: Rules,
    dice: DiceSource,
    modifiers: Sequence[Modifier] = (),
) -> TraitRoll:
    """Roll one die per stat, with race modifiers, pain shock (R-6) and the wild d6 if named.

    >>> from referee.dice import FixedDice
    >>> guard = Character("Guard", Kind.NPC, dict.fromkeys(Stat, 2))
    >>> roll = roll_trait(guard, [Stat.AGILITY, Stat.PERCEPTION], Rules(), FixedDice([3, 5]),
    ...                   [Modifier("situational", 2)])
    >>> roll.label, roll.total, roll.wild
    ('agility + perception', 10, None)
    """
    return _execute(_plan_trait(c, stats, rules, modifiers), rules.rulings, dice)


def roll_dice_for(
    c: Character,
    label: str,
    count: int,
    sides: int,
    rules: Rules,
    dice: DiceSource,
    modifiers: Sequence[Modifier] = (),
) -> TraitRoll:
    """Roll ``count``d``sides`` for ``c`` (weapon damage): the wild d6 if named and R allows.

    >>> from referee.dice import FixedDice
    >>> kara = Character("Kara", Kind.PC, dict.fromkeys(Stat, 2), wounds_survived=3)
    >>> roll = roll_dice_for(kara, "blaster 2d6", 2, 6, Rules(), FixedDice([1, 4, 5]))
    >>> [d.kept for d in roll.dice], roll.total  # the wild 5 replaced the 1
    ([False, True], 9)
    """
    return _execute(_plan_dice(c, label, count, sides, rules, modifiers), rules.rulings, dice)


def _standing(roll: TraitRoll, rulings: Rulings) -> tuple[int, int]:
    """(grade, total): criticals and exceptionals decide first, then the total."""
    return (stepped_odds.grade(roll.exceptional, roll.critical, rulings), roll.total)


def _wins(attack: TraitRoll, defence: TraitRoll, rulings: Rulings) -> bool:
    """Whether the attacking roll beats the defending one; ties by R-5."""
    a, d = _standing(attack, rulings), _standing(defence, rulings)
    return a > d or (a == d and rulings.ties == Ties.ATTACKER)


PlanT = TypeVar("PlanT")
RollT = TypeVar("RollT")


@dataclass(frozen=True)
class Exchange(Generic[RollT]):
    """The dice of one attack, whatever rolls them (characters here, crafts in vehicles)."""

    hit_roll: RollT | None  # None: an automatic hit
    defence_roll: RollT | None
    damage_roll: RollT | None  # None: the attack missed
    soak_roll: RollT | None
    hit: bool
    wounded: bool


def automatic_hit(kind: AttackKind, aware: bool, rulings: Rulings) -> bool:
    """An unaware target is hit without a roll: at range always, in melee by option."""
    return not aware and (kind == AttackKind.RANGED or rulings.melee_unaware_auto_hit)


def exchange(
    plans: tuple[PlanT, PlanT, PlanT, PlanT],
    roll: Callable[[PlanT], RollT],
    wins: Callable[[RollT, RollT], bool],
    automatic: bool,
) -> Exchange[RollT]:
    """Roll an attack's (hit, defence, damage, soak) plans in that fixed order.

    Hit and defence are skipped for an automatic hit; damage and soak for a miss.
    """
    hit_plan, defence_plan, damage_plan, soak_plan = plans
    hit_roll = defence_roll = None
    if automatic:
        hit = True
    else:
        hit_roll = roll(hit_plan)
        defence_roll = roll(defence_plan)
        hit = wins(hit_roll, defence_roll)
    if not hit:
        return Exchange(hit_roll, defence_roll, None, None, False, False)
    damage_roll = roll(damage_plan)
    soak_roll = roll(soak_plan)
    return Exchange(
        hit_roll, defence_roll, damage_roll, soak_roll, True, wins(damage_roll, soak_roll)
    )


# ---------------------------------------------------------------------------
# Initiative


@dataclass(frozen=True)
class InitiativeResult:
    """Everyone's Perception roll, highest first, and the order of acting."""

    rolls: tuple[TraitRoll, ...]  # highest total first; equal totals keep the asked order
    groups: tuple[tuple[str, ...], ...]  # who acts together, first group first


def _refuse_if_down(c: Character, doing: str) -> None:
    state = state_of(c)
    if state in (State.DEAD, State.INCAPACITATED):
        raise RuleViolation(f"{c.name} is {state.value} and cannot {doing}.")


def initiative(characters: Sequence[Character], rules: Rules, dice: DiceSource) -> InitiativeResult:
    """Everyone rolls Perception; highest acts first; equal totals act together.

    >>> from referee.dice import FixedDice
    >>> a, b, c = (Character(n, Kind.NPC, dict.fromkeys(Stat, 2)) for n in "ABC")
    >>> initiative([a, b, c], Rules(), FixedDice([3, 5, 3])).groups
    (('B',), ('A', 'C'))
    """
    for c in characters:
        _refuse_if_down(c, "roll initiative")
    rolls = [roll_trait(c, [Stat.PERCEPTION], rules, dice) for c in characters]
    ordered = sorted(rolls, key=lambda roll: -roll.total)
    groups: list[list[str]] = []
    previous: int | None = None
    for roll in ordered:
        if roll.total == previous:
            groups[-1].append(roll.roller)
        else:
            groups.append([roll.roller])
        previous = roll.total
    return InitiativeResult(tuple(ordered), tuple(tuple(group) for group in groups))


# ---------------------------------------------------------------------------
# Combat


class Location(str, Enum):
    """Where an attack aims; anything but the torso is a called shot (R-7)."""

    TORSO = "torso"
    HEAD = "head"
    ARM = "arm"
    LEG = "leg"


LOCATION_WORDS: dict[str, Location] = {
    **{location.value: location for location in Location},
    "body": Location.TORSO,
    "chest": Location.TORSO,
}


def parse_location(word: str) -> Location:
    """The location a post names.

    >>> parse_location("Head")
    <Location.HEAD: 'head'>
    """
    location = LOCATION_WORDS.get(word.strip().casefold())
    if location is None:
        raise UnknownName(
            f"'{word}' is not a hit location; aim at the torso, the head, an arm or a leg."
        )
    return location


# the ruling that sets each called shot's hit-roll modifier (None: no called shot).
_CALLED_SHOT: dict[Location, Callable[[Rulings], int] | None] = {
    Location.TORSO: None,
    Location.HEAD: lambda rulings: rulings.called_shot_head,
    Location.ARM: lambda rulings: rulings.called_shot_limb,
    Location.LEG: lambda rulings: rulings.called_shot_limb,
}


class AttackKind(str, Enum):
    """Ranged or melee; it picks the hit stats and the damage roll."""

    RANGED = "ranged"
    MELEE = "melee"


HIT_STATS: dict[AttackKind, tuple[Stat, ...]] = {
    AttackKind.RANGED: (Stat.AGILITY, Stat.PERCEPTION),
    AttackKind.MELEE: (Stat.AGILITY, Stat.ENDURANCE),
}
DEFENCE_STATS: tuple[Stat, ...] = (Stat.AGILITY,)
SOAK_STATS: tuple[Stat, ...] = (Stat.ENDURANCE,)


@dataclass(frozen=True)
class AttackResult:
    """The verdict of one attack, with every roll and the target before and after."""

    kind: AttackKind
    attacker: str
    target: str
    weapon: Weapon
    location: Location
    subdue: bool
    automatic_hit: bool  # the target was unaware: no hit or defence roll
    hit_roll: TraitRoll | None
    defence_roll: TraitRoll | None
    hit: bool
    damage_roll: TraitRoll | None  # None on a miss
    soak_roll: TraitRoll | None
    wounded: bool
    target_before: Character
    target_after: Character
    hit_chance: Fraction  # exact, before the dice
    wound_chance: Fraction  # exact P(wound | hit)


def _pick_weapon(kind: AttackKind, attacker: Character, weapon: Weapon | None) -> Weapon:
    if weapon is not None:
        if weapon.kind.value != kind.value:
            raise RuleViolation(
                f"The {weapon.name} is a {weapon.kind.value} weapon; "
                f"use it for a {weapon.kind.value} attack."
            )
        return weapon
    found = next((w for w in attacker.weapons if w.kind.value == kind.value), None)
    if found is not None:
        return found
    if kind == AttackKind.MELEE:
        return UNARMED
    raise RuleViolation(
        f"{attacker.name} has no ranged weapon; add one to the sheet or attack in melee."
    )


def _damage_plan(kind: AttackKind, attacker: Character, weapon: Weapon, rules: Rules) -> _Plan:
    bonus = (Modifier("weapon", weapon.modifier),) if weapon.modifier else ()
    if kind == AttackKind.RANGED:
        label = f"{weapon.name} {weapon.dice_count}d{weapon.dice_sides}"
        return _plan_dice(attacker, label, weapon.dice_count, weapon.dice_sides, rules, bonus)
    return _plan_trait(
        attacker, [Stat.STRENGTH], rules, bonus, wild=rules.rulings.wild_die_on_damage
    )


def attack(
    kind: AttackKind,
    attacker: Character,
    target: Character,
    rules: Rules,
    dice: DiceSource,
    *,
    weapon: Weapon | None = None,
    location: Location = Location.TORSO,
    aware: bool = True,
    subdue: bool = False,
    modifier: int = 0,
    environment: int = 0,
) -> AttackResult:
    """Resolve one attack: hit roll against Agility, then damage against the soak.

    ``modifier`` is a situational modifier on the hit roll; ``environment`` is added
    to the target's soak roll. Dice are drawn hit, defence, damage, soak.

    >>> from referee.dice import FixedDice
    >>> guard = Character("Guard", Kind.NPC, dict.fromkeys(Stat, 2))
    >>> kara = Character("Kara", Kind.NPC, dict.fromkeys(Stat, 2),
    ...                  weapons=(Weapon("blaster", WeaponKind.RANGED, 2, 6),))
    >>> # hit 4+3 vs 5, damage 6+2 vs 3: one wound kills an ordinary guard
    >>> result = attack(AttackKind.RANGED, kara, guard, Rules(), FixedDice([4, 3, 5, 6, 2, 3]))
    >>> result.hit, result.wounded, state_of(result.target_after).value
    (True, True, 'dead')
    """
    rulings = rules.rulings
    kind = AttackKind(kind)
    if _fold(attacker.name) == _fold(target.name):
        raise RuleViolation(f"{attacker.name} cannot attack themselves.")
    _refuse_if_down(attacker, "attack")
    state = state_of(target)
    if state in (State.DEAD, State.INCAPACITATED):
        raise RuleViolation(f"{target.name} is already {state.value}; there is nothing to attack.")
    chosen = _pick_weapon(kind, attacker, weapon)
    if subdue and not chosen.can_subdue:
        raise RuleViolation(
            f"The {chosen.name} cannot subdue; to take {target.name} alive, attack with a "
            "weapon flagged for subduing or with bare hands."
        )
    if kind == AttackKind.RANGED and (chosen.dice_count < 1 or chosen.dice_sides < 1):
        raise RuleViolation(
            f"The {chosen.name} has no damage dice; write its damage on the sheet, like 2d6."
        )

    called = _CALLED_SHOT[Location(location)]
    hit_modifiers = tuple(
        m
        for m in (
            Modifier(f"{Location(location).value} shot", called(rulings) if called else 0),
            Modifier("situational", modifier),
        )
        if m.value
    )
    soak_modifiers = tuple(
        m
        for m in (Modifier("armour", target.armour), Modifier("environment", environment))
        if m.value
    )
    hit_plan = _plan_trait(attacker, HIT_STATS[kind], rules, hit_modifiers)
    defence_plan = _plan_trait(target, DEFENCE_STATS, rules, ())
    damage_plan = _damage_plan(kind, attacker, chosen, rules)
    soak_plan = _plan_trait(target, SOAK_STATS, rules, soak_modifiers)

    automatic = automatic_hit(kind, aware, rulings)
    chance_to_hit = (
        Fraction(1)
        if automatic
        else stepped_odds.hit_chance(hit_plan.spec(), defence_plan.spec(), rulings)
    )
    chance_to_wound = stepped_odds.wound_chance(damage_plan.spec(), soak_plan.spec(), rulings)

    rolls = exchange(
        (hit_plan, defence_plan, damage_plan, soak_plan),
        lambda plan: _execute(plan, rulings, dice),
        lambda a, d: _wins(a, d, rulings),
        automatic,
    )
    after = apply_wounds(target, 1, rules, subdue=subdue) if rolls.wounded else target
    return AttackResult(
        kind,
        attacker.name,
        target.name,
        chosen,
        Location(location),
        subdue,
        automatic,
        rolls.hit_roll,
        rolls.defence_roll,
        rolls.hit,
        rolls.damage_roll,
        rolls.soak_roll,
        rolls.wounded,
        target,
        after,
        chance_to_hit,
        chance_to_wound,
    )


def apply_wounds(c: Character, count: int, rules: Rules, *, subdue: bool = False) -> Character:
    """``c`` after ``count`` more wounds; a subduing wound that would kill incapacitates instead.

    Wounds never pass ``wounds_survived + 1`` (dead). ``rules`` is taken so callers
    pass the campaign's rules to every rule function alike.

    >>> kara = Character("Kara", Kind.PC, {}, wounds_survived=3, wounds=3)
    >>> state_of(apply_wounds(kara, 1, Rules(), subdue=True)).value
    'incapacitated'
    >>> apply_wounds(kara, 5, Rules()).wounds
    4
    """
    if count < 0:
        raise ValueError(f"cannot apply {count} wounds; heal instead")
    wounds, incapacitated = c.wounds, c.incapacitated
    deadly = max(c.wounds_survived, 0) + 1
    for _ in range(count):
        if wounds >= deadly:
            break
        if wounds + 1 >= deadly and subdue:
            incapacitated = True
        else:
            wounds += 1
    if (wounds, incapacitated) == (c.wounds, c.incapacitated):
        return c
    return replace(c, wounds=wounds, incapacitated=incapacitated)


def heal(c: Character, count: int | None = None) -> Character:
    """``c`` with ``count`` wounds healed (None: all); healed to 0 clears incapacitation.

    >>> kara = Character("Kara", Kind.PC, {}, wounds_survived=3, wounds=3, incapacitated=True)
    >>> heal(kara, 1).wounds, heal(kara).incapacitated
    (2, False)
    """
    if state_of(c) == State.DEAD:
        raise RuleViolation(f"{c.name} is dead; healing cannot help.")
    if count is not None and count < 0:
        raise ValueError(f"cannot heal {count} wounds")
    wounds = 0 if count is None else max(0, c.wounds - count)
    return replace(c, wounds=wounds, incapacitated=c.incapacitated and wounds > 0)


# ---------------------------------------------------------------------------
# Magic


@dataclass(frozen=True)
class CastResult:
    """The verdict of one cast."""

    caster: str
    parameter: str  # the magic parameter whose die was rolled
    technique: Technique
    roll: TraitRoll
    needed: int  # the tier's top face
    success: bool
    chance: Fraction  # exact, before the dice


def cast(
    c: Character, technique_name: str, rules: Rules, dice: DiceSource, *, modifier: int = 0
) -> CastResult:
    """Cast a technique: roll its parameter's die (wild d6 if named); the tier's top face or more.

    The seed's example: with a d6, a d4-tier technique succeeds on 4 or more.

    >>> from referee.dice import FixedDice
    >>> mage = Character("Ada", Kind.NPC, dict.fromkeys(Stat, 2), magic=(MagicParameter(
    ...     "Force", 2, (Technique("Push", 4), Technique("Lift", 6))),))
    >>> cast(mage, "push", Rules(), FixedDice([5])).success
    True
    >>> cast(mage, "Lift", Rules(), FixedDice([5])).success
    False
    """
    wanted = technique_name.strip().casefold()
    for parameter in c.magic:
        for technique in parameter.techniques:
            if technique.name.strip().casefold() == wanted:
                return _cast(c, parameter, technique, rules, dice, modifier)
    known = [t.name for p in c.magic for t in p.techniques]
    if not known:
        raise UnknownName(f"{c.name} knows no techniques, so cannot cast '{technique_name}'.")
    raise UnknownName(
        f"{c.name} has no technique '{technique_name}'; {c.name}'s techniques are {_join(known)}."
    )


def _cast(
    c: Character,
    parameter: MagicParameter,
    technique: Technique,
    rules: Rules,
    dice: DiceSource,
    modifier: int,
) -> CastResult:
    _refuse_if_down(c, "cast")
    if not MIN_POINTS <= parameter.points <= MAX_POINTS:
        raise RuleViolation(
            f"{c.name}'s {parameter.name} has {parameter.points} points; it needs 1 to 6 to roll."
        )
    named = is_named(c)
    situational = (Modifier("situational", modifier),) if modifier else ()
    plan = _Plan(
        c.name,
        f"{parameter.name} ({technique.name})",
        (die_for_points(parameter.points),),
        named,
        named,
        _wound_modifiers(c, rules) + situational,
    )
    chance = stepped_odds.cast_chance(plan.spec(), technique.tier, rules.rulings)
    roll = _execute(plan, rules.rulings, dice)
    success = _standing(roll, rules.rulings) >= (0, technique.tier)
    return CastResult(c.name, parameter.name, technique, roll, technique.tier, success, chance)


# ---------------------------------------------------------------------------
# Public handles on the roll machinery, for systems built on this one (vehicles)

RollPlan = _Plan  # a roll before the dice fall: roller, label, die sides, named, wild, modifiers
SheetReader = _Reader  # collects every structural problem of a sheet record while reading it
is_whole_number = _is_int  # an int that is not a bool


def plan_trait(
    c: Character, stats: Sequence[Stat], rules: Rules, modifiers: Sequence[Modifier] = ()
) -> RollPlan:
    """The plan of a stat roll of ``c``: race modifiers, pain shock and the wild d6 if named.

    >>> guard = Character("Guard", Kind.NPC, dict.fromkeys(Stat, 2))
    >>> plan_trait(guard, [Stat.AGILITY], Rules()).sides
    (6,)
    """
    return _plan_trait(c, stats, rules, modifiers)


def plan_damage(
    kind: AttackKind, attacker: Character, weapon: Weapon | None, rules: Rules
) -> tuple[Weapon, RollPlan]:
    """The weapon an attack uses (the sheet's first of its kind if None) and its damage plan.

    >>> kara = Character("Kara", Kind.NPC, dict.fromkeys(Stat, 2),
    ...                  weapons=(Weapon("blaster", WeaponKind.RANGED, 2, 6),))
    >>> weapon, plan = plan_damage(AttackKind.RANGED, kara, None, Rules())
    >>> weapon.name, plan.sides
    ('blaster', (6, 6))
    """
    kind = AttackKind(kind)
    chosen = _pick_weapon(kind, attacker, weapon)
    if kind == AttackKind.RANGED and (chosen.dice_count < 1 or chosen.dice_sides < 1):
        raise RuleViolation(
            f"The {chosen.name} has no damage dice; write its damage on the sheet, like 2d6."
        )
    return chosen, _damage_plan(kind, attacker, chosen, rules)


def called_shot_modifier(location: Location, rulings: Rulings) -> int:
    """R-7: the hit-roll modifier of aiming at ``location`` (0 for the torso).

    >>> [called_shot_modifier(place, Rulings()) for place in (Location.HEAD, Location.ARM)]
    [-4, -2]
    """
    called = _CALLED_SHOT[Location(location)]
    return called(rulings) if called else 0


def execute_plan(plan: RollPlan, rulings: Rulings, dice: DiceSource) -> TraitRoll:
    """Roll a plan: its dice in order, then the wild d6 (R-1..R-4).

    >>> from referee.dice import FixedDice
    >>> plan = RollPlan("Kara", "agility", (8,), True, True, ())
    >>> execute_plan(plan, Rulings(), FixedDice([2, 5])).total
    5
    """
    return _execute(plan, rulings, dice)


def refuse_if_down(c: Character, doing: str) -> None:
    """Raise RuleViolation if ``c`` is dead or incapacitated and so cannot do ``doing``."""
    _refuse_if_down(c, doing)
