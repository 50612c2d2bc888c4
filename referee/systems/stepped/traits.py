"""Stepped characters: the four stats, points and the die ladder, backgrounds, races, weapons,
magic parameters, and a character's state (fighting, wounded, incapacitated, dead)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from referee.base.errors import UnknownName


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
    referee.base.errors.UnknownName: 'venn' is not a stat; the stats are strength, agility, \
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


MAX_TRAIT_MODIFIER = 2  # the most one personal trait adds to or takes off a stat's rolls


@dataclass(frozen=True)
class PersonalTrait:
    """A personal trait ("личная особенность") the GM approves: roll modifiers like a race's."""

    name: str
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
    traits: tuple[PersonalTrait, ...] = ()  # personal traits, each applied like the race's


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

    >>> from dataclasses import replace
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
