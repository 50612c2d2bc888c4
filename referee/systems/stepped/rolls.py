"""Stepped rolls: trait dice, the wild d6 (R-1..R-4), modifiers and pain shock, and initiative.

A roll draws its trait (or damage) dice in order, then the wild d6 if it has one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, UnknownName
from referee.base.limits import DEFAULT_LIMITS

from . import odds
from .odds import RollSpec
from .rulings import (
    CriticalWhen,
    ExceptionalOn,
    PenaltyAppliesTo,
    Rules,
    Rulings,
    WildReplaces,
    WoundPenaltyMode,
    find_race,
)
from .traits import (
    MAX_POINTS,
    MIN_POINTS,
    Character,
    Kind,
    Race,
    Stat,
    State,
    _join,
    die_for_points,
    is_named,
    state_of,
)


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
    exceptional: bool  # the wild d6 (never a 1) matched a trait die
    critical: bool  # the trait dice showed 1; wins over exceptional

    def ledger_facts(self) -> dict[str, Any]:
        """What the ledger row keeps beside the dice: the total."""
        return {"total": self.total}


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
    if rules.rulings.wound_penalty_mode != WoundPenaltyMode.FLAT:
        return 0
    return rules.rulings.wound_penalty * _pained_wounds(c, rules)


def _pained_wounds(c: Character, rules: Rules) -> int:
    """The wounds whose pain shock ``c`` feels (R-6: PCs only, unless the ruling says all)."""
    applies = rules.rulings.wound_penalty_applies_to == PenaltyAppliesTo.ALL or c.kind == Kind.PC
    return max(c.wounds, 0) if applies else 0


def stepped_down(c: Character, points: int, rules: Rules) -> int:
    """R-6 option "step": ``points`` lowered one ladder step per wound felt, never below d4.

    >>> kara = Character("Kara", Kind.PC, {}, wounds_survived=3, wounds=1)
    >>> stepped_down(kara, 3, Rules(Rulings(wound_penalty_mode="step")))  # d8 -> d6
    2
    >>> stepped_down(kara, 3, Rules())  # the flat default leaves the die alone
    3
    """
    if rules.rulings.wound_penalty_mode != WoundPenaltyMode.STEP:
        return points
    return max(MIN_POINTS, points - _pained_wounds(c, rules))


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


def trait_modifiers(c: Character, stats: Sequence[Stat]) -> tuple[Modifier, ...]:
    """Each personal trait touching ``stats``, labelled with its name: ("Keen eyes", +1)."""
    bonuses = (
        (trait.name, sum(trait.modifiers.get(stat, 0) for stat in stats)) for trait in c.traits
    )
    return tuple(Modifier(name, bonus) for name, bonus in bonuses if bonus)


def die_of(c: Character, stat: Stat, rules: Rules) -> int:
    """The die ``c`` rolls for ``stat``: its points, stepped down by pain shock (R-6 "step")."""
    points = c.stats.get(stat)
    if points is None or not MIN_POINTS <= points <= MAX_POINTS:
        raise RuleViolation(
            f"{c.name}'s {stat.value} has {points or 'no'} points; it needs 1 to 6 to roll."
        )
    return die_for_points(stepped_down(c, points, rules))


# What a plan takes from the sheet (see _trait_base): label, dice, named, own modifiers.
_TraitBase = tuple[str, tuple[int, ...], bool, tuple[Modifier, ...]]


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
    label, sides, named, own = _trait_base(c, stats, rules)
    return _Plan(c.name, label, sides, named, named and wild, own + tuple(modifiers))


def _trait_base(c: Character, stats: Sequence[Stat], rules: Rules) -> _TraitBase:
    """What a trait plan takes from the sheet: label, dice, named, own modifiers."""
    stats = [stat if type(stat) is Stat else Stat(stat) for stat in stats]
    race = _race(c, rules)
    race_bonus = sum(race.modifiers.get(stat, 0) for stat in stats)
    race_modifier = (Modifier("race", race_bonus),) if race_bonus else ()
    own = race_modifier + trait_modifiers(c, stats)
    return (
        " + ".join(stat.value for stat in stats),
        tuple(die_of(c, stat, rules) for stat in stats),
        is_named(c),
        own + _wound_modifiers(c, rules),
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


_EXCEPTIONAL: dict[ExceptionalOn, Callable[[list[int], int, int], bool]] = {
    ExceptionalOn.ANY: lambda values, wild, replaced: wild in values,
    ExceptionalOn.REPLACED: lambda values, wild, replaced: wild == values[replaced],
    ExceptionalOn.EVERY: lambda values, wild, replaced: values.count(wild) == len(values),
}


_CRITICAL: dict[CriticalWhen, Callable[[list[int]], bool]] = {
    CriticalWhen.EVERY_DIE: lambda values: values.count(1) == len(values),
    CriticalWhen.ANY_DIE: lambda values: 1 in values,
}


# DieRoll values are frozen and few (a side count, a face, two flags): each is made once
# and shared, instead of a new dataclass per die (three to six a roll).
_DICE_SHOWN: dict[tuple[int, int, bool, bool], DieRoll] = {}
_DICE_SHOWN_MAX = 8192  # past this many (huge custom dice), new ones are made, not kept


def _die(sides: int, value: int, kept: bool = True, wild: bool = False) -> DieRoll:
    key = (sides, value, kept, wild)
    die = _DICE_SHOWN.get(key)
    if die is None:
        die = DieRoll(sides, value, kept, wild)
        if len(_DICE_SHOWN) < _DICE_SHOWN_MAX:
            _DICE_SHOWN[key] = die
    return die


def _execute(plan: _Plan, rulings: Rulings, dice: DiceSource) -> TraitRoll:
    """Roll a plan: its dice in order, then the wild d6 (R-1..R-4)."""
    sides = plan.sides
    roll = dice.roll
    values = [roll(side) for side in sides]
    wild_die: DieRoll | None = None
    exceptional = False
    replaced = -1
    if plan.wild:
        wild_value = roll(odds.WILD_SIDES)
        chosen = 0 if len(values) == 1 else _PICK_EXTREME[rulings.wild_die_replaces](values)
        if wild_value > values[chosen]:
            replaced = chosen
        wild_die = _die(odds.WILD_SIDES, wild_value, replaced >= 0, True)
        # a wild 1 is harmless and never lucky ("единица на 1д6 не страшна").
        exceptional = wild_value != 1 and _EXCEPTIONAL[rulings.exceptional_on](
            values, wild_value, chosen
        )
    can_critical = plan.named or rulings.critical_for_unnamed
    critical = can_critical and _CRITICAL[rulings.critical_when](values)
    if exceptional and critical:
        exceptional, critical = (
            (False, True) if rulings.critical_beats_exceptional else (True, False)
        )
    if replaced < 0:
        shown = tuple([_die(side, value) for side, value in zip(sides, values, strict=True)])
    else:
        shown = tuple(
            [
                _die(side, value, index != replaced)
                for index, (side, value) in enumerate(zip(sides, values, strict=True))
            ]
        )
    # The kept dice: all of them, the one the wild d6 replaced taken out, the wild d6 in.
    modifiers = plan.modifiers
    total = sum(values)
    for modifier in modifiers:
        total += modifier.value
    if replaced >= 0:
        total += wild_value - values[replaced]
    return TraitRoll(
        plan.roller, plan.label, shown, wild_die, modifiers, total, exceptional, critical
    )


def roll_trait(
    c: Character,
    stats: Sequence[Stat],
    rules: Rules,
    dice: DiceSource,
    modifiers: Sequence[Modifier] = (),
) -> TraitRoll:
    """Roll one die per stat with race and trait modifiers, pain shock (R-6), a wild d6 if named.

    >>> from referee.base.dice import FixedDice
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

    >>> from referee.base.dice import FixedDice
    >>> kara = Character("Kara", Kind.PC, dict.fromkeys(Stat, 2), wounds_survived=3)
    >>> roll = roll_dice_for(kara, "blaster 2d6", 2, 6, Rules(), FixedDice([1, 4, 5]))
    >>> [d.kept for d in roll.dice], roll.total  # the wild 5 replaced the 1
    ([False, True], 9)
    """
    return _execute(_plan_dice(c, label, count, sides, rules, modifiers), rules.rulings, dice)


@dataclass(frozen=True)
class InitiativeResult:
    """Everyone's Perception roll, highest first, and the order of acting."""

    rolls: tuple[TraitRoll, ...]  # highest total first; equal totals keep the asked order
    groups: tuple[tuple[str, ...], ...]  # who acts together, first group first

    def ledger_facts(self) -> dict[str, Any]:
        """What the ledger row keeps beside the dice: the order of acting."""
        return {"order": [list(group) for group in self.groups]}


def _refuse_if_down(c: Character, doing: str) -> None:
    state = state_of(c)
    if state in (State.DEAD, State.INCAPACITATED):
        raise RuleViolation(f"{c.name} is {state.value} and cannot {doing}.")


def initiative(characters: Sequence[Character], rules: Rules, dice: DiceSource) -> InitiativeResult:
    """Everyone rolls Perception; highest acts first; equal totals act together.

    >>> from referee.base.dice import FixedDice
    >>> a, b, c = (Character(n, Kind.NPC, dict.fromkeys(Stat, 2)) for n in "ABC")
    >>> initiative([a, b, c], Rules(), FixedDice([3, 5, 3])).groups
    (('B',), ('A', 'C'))
    """
    for c in characters:
        _refuse_if_down(c, "roll initiative")
    rolls = [roll_trait(c, [Stat.PERCEPTION], rules, dice) for c in characters]
    return InitiativeResult(*act_together(rolls))


def act_together(rolls: Sequence[Any]) -> tuple[tuple[Any, ...], tuple[tuple[str, ...], ...]]:
    """Initiative rolls highest first, and the rollers grouped by equal totals (acting together).

    Serves characters and crafts alike: a roll needs only ``total`` and ``roller``.
    """
    ordered = sorted(rolls, key=lambda roll: -roll.total)
    groups: list[list[str]] = []
    previous: int | None = None
    for roll in ordered:
        if roll.total == previous:
            groups[-1].append(roll.roller)
        else:
            groups.append([roll.roller])
        previous = roll.total
    return tuple(ordered), tuple(tuple(group) for group in groups)


RollPlan = _Plan  # a roll before the dice fall: roller, label, die sides, named, wild, modifiers


def plan_trait(
    c: Character, stats: Sequence[Stat], rules: Rules, modifiers: Sequence[Modifier] = ()
) -> RollPlan:
    """The plan of a stat roll of ``c``: race and trait modifiers, pain shock, the wild d6.

    >>> guard = Character("Guard", Kind.NPC, dict.fromkeys(Stat, 2))
    >>> plan_trait(guard, [Stat.AGILITY], Rules()).sides
    (6,)
    """
    return _plan_trait(c, stats, rules, modifiers)


def execute_plan(plan: RollPlan, rulings: Rulings, dice: DiceSource) -> TraitRoll:
    """Roll a plan: its dice in order, then the wild d6 (R-1..R-4).

    >>> from referee.base.dice import FixedDice
    >>> plan = RollPlan("Kara", "agility", (8,), True, True, ())
    >>> execute_plan(plan, Rulings(), FixedDice([2, 5])).total
    5
    """
    return _execute(plan, rulings, dice)


def refuse_if_down(c: Character, doing: str) -> None:
    """Raise RuleViolation if ``c`` is dead or incapacitated and so cannot do ``doing``."""
    _refuse_if_down(c, doing)
