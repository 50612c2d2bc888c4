"""Vehicle and ship rolls: a craft's state, the ordinal d10 (R-10, R-11), parameter rolls,
initiative.

A roll draws its parameter (or trait) dice, then the wild d6 if it has one, then one ordinal
d10 per die if the scale table says so."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from fractions import Fraction
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, UnknownName

from ..rolls import (
    DieRoll,
    Modifier,
    RollPlan,
    _wound_modifiers,
    act_together,
    die_of,
    execute_plan,
    plan_trait,
    refuse_if_down,
    trait_modifiers,
)
from ..rulings import Rules, Rulings, Ties, find_race
from ..traits import Character, Stat, State, die_for_points, state_of
from . import odds
from .crafts import PARAM_NAMES, PARAMS, PILOT_STAND_IN, Combatant, Crewed, Param, Vehicle, _join
from .odds import ORDINAL_SIDES, ScaledSpec
from .scale import DEFAULT_WOUNDS_SURVIVED, Scale, ScaleKind, ScaleRoll, VehicleRules, scale_kind


class VehicleState(str, Enum):
    """Where a vehicle stands in a fight."""

    INTACT = "intact"
    DAMAGED = "damaged"  # carries wounds but still fights (machines feel no pain shock)
    DESTROYED = "destroyed"


def wounds_survived(v: Vehicle, rules: VehicleRules) -> int:
    """The wounds ``v`` survives: its sheet's, else its class's.

    >>> from referee.systems.stepped.vehicles import Craft, Size, example_rules
    >>> tank = Vehicle("Tank", Craft.VEHICLE, Size.HEAVY, {})
    >>> wounds_survived(tank, example_rules()), wounds_survived(replace(tank, wounds_survived=3),
    ...                                                      example_rules())
    (0, 3)
    """
    if v.wounds_survived is not None:
        return v.wounds_survived
    return rules.wounds_survived.get(v.size, DEFAULT_WOUNDS_SURVIVED[v.size])


def vehicle_state(v: Vehicle, rules: VehicleRules) -> VehicleState:
    """Destroyed past the wounds it survives, else damaged, else intact.

    >>> from referee.systems.stepped.vehicles import Craft, Size, example_rules
    >>> bike = Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {})
    >>> rules = example_rules()
    >>> vehicle_state(bike, rules), vehicle_state(replace(bike, wounds=1), rules)
    (<VehicleState.INTACT: 'intact'>, <VehicleState.DESTROYED: 'destroyed'>)
    """
    if v.wounds > wounds_survived(v, rules):
        return VehicleState.DESTROYED
    return VehicleState.DAMAGED if v.wounds else VehicleState.INTACT


def damage(v: Vehicle, count: int, rules: VehicleRules) -> Vehicle:
    """``v`` after ``count`` more wounds; never past destroyed.

    >>> from referee.systems.stepped.vehicles import Craft, Size, example_rules
    >>> walker = Vehicle("Walker", Craft.VEHICLE, Size.HEAVY, {})
    >>> damage(walker, 5, example_rules()).wounds  # R-61: the first wound destroys it
    1
    >>> damage(replace(walker, wounds_survived=2), 5, example_rules()).wounds
    3
    """
    if count < 0:
        raise ValueError(f"cannot apply {count} wounds; repair instead")
    wounds = min(v.wounds + count, wounds_survived(v, rules) + 1)
    return v if wounds == v.wounds else replace(v, wounds=wounds)


def repair(v: Vehicle, count: int | None = None) -> Vehicle:
    """``v`` with ``count`` wounds repaired (None: all); a destroyed craft is beyond repair.

    >>> from referee.systems.stepped.vehicles import Craft, Size
    >>> repair(Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {}, wounds=1, wounds_survived=2)).wounds
    0
    """
    if count is not None and count < 0:
        raise ValueError(f"cannot repair {count} wounds")
    return replace(v, wounds=0 if count is None else max(0, v.wounds - count))


def _refuse_if_down(c: Combatant, rules: VehicleRules, doing: str) -> None:
    if isinstance(c, Character):
        refuse_if_down(c, doing)
    elif vehicle_state(c.vehicle, rules) == VehicleState.DESTROYED:
        raise RuleViolation(f"{c.name} is destroyed and cannot {doing}.")


@dataclass(frozen=True)
class Part:
    """One die of a scaled roll as a verdict shows it."""

    label: str  # "speed", "sensors (pilot Kara Venn's perception)", "agility", "d6"
    die: DieRoll  # the parameter's die; not kept when the wild d6 replaced it
    face: int  # what counts: the die, or the wild d6 that replaced it
    ordinal: DieRoll | None  # the ordinal d10 as rolled; None when the scale drops it
    reading: int  # what the d10 counts as: units 0-9, or a factor 1-10; 0 if none
    product: bool  # d12 and d20 multiply by the d10 instead of taking it as units
    value: int  # the composed value of this die


@dataclass(frozen=True)
class ScaledRoll:
    """A roll with the ordinal d10 on each die (or without, where the scale drops it)."""

    roller: str
    label: str  # e.g. "speed + sensors", "armour", "agility + perception"
    parts: tuple[Part, ...]
    wild: DieRoll | None  # the wild d6 of a named roller
    modifiers: tuple[Modifier, ...]
    total: int
    exceptional: bool  # the wild d6 matched a die
    critical: bool  # the dice showed 1
    ordinal: bool  # the ordinal d10 was rolled
    spec: ScaledSpec  # what it was before the dice fell, for its odds

    def ledger_facts(self) -> dict[str, Any]:
        """What the ledger row keeps beside the dice: the total."""
        return {"total": self.total}


@dataclass(frozen=True)
class _ScaledPlan:
    plan: RollPlan
    labels: tuple[str, ...]  # one per die
    ordinal: bool

    def spec(self) -> ScaledSpec:
        plan = self.plan
        return ScaledSpec(
            plan.sides, plan.named, plan.wild, self.ordinal, sum(m.value for m in plan.modifiers)
        )


def _roll(scaled: _ScaledPlan, rulings: Rulings, dice: DiceSource) -> ScaledRoll:
    """Roll a plan: its dice and wild d6 through stepped (R-1..R-4), then the ordinals."""
    base = execute_plan(scaled.plan, rulings, dice)
    parts = []
    for label, die in zip(scaled.labels, base.dice, strict=True):
        face = die.value if die.kept else base.wild.value  # type: ignore[union-attr]
        ordinal = reading = None
        value = face
        if scaled.ordinal:
            ordinal = DieRoll(ORDINAL_SIDES, dice.roll(ORDINAL_SIDES))
            reading = odds.ordinal_reading(die.sides, ordinal.value)
            value = odds.compose(die.sides, face, reading)
        parts.append(
            Part(label, die, face, ordinal, reading or 0, die.sides > odds.TENS_UP_TO, value)
        )
    total = sum(p.value for p in parts) + sum(m.value for m in base.modifiers)
    return ScaledRoll(
        base.roller,
        base.label,
        tuple(parts),
        base.wild,
        base.modifiers,
        total,
        base.exceptional,
        base.critical,
        scaled.ordinal,
        scaled.spec(),
    )


def _standing(roll: ScaledRoll, rulings: Rulings) -> tuple[int, int]:
    """(grade, total): criticals and exceptionals decide first, as in stepped."""
    return (odds.stepped_odds.grade(roll.exceptional, roll.critical, rulings), roll.total)


def _wins(attack: ScaledRoll, defence: ScaledRoll, rulings: Rulings) -> bool:
    a, d = _standing(attack, rulings), _standing(defence, rulings)
    return a > d or (a == d and rulings.ties == Ties.ATTACKER)


def _param_die(c: Crewed, param: Param, rules: Rules | None) -> tuple[int, str, int]:
    """The die a parameter rolls, how a verdict names it, and the pilot's race modifier.

    At 0 the pilot's stat stands in (R-9), with his race modifier and, under R-6's
    "step" mode, his pain shock (the flat penalty is added once per roll by the caller).
    """
    sides = c.vehicle.dice.get(param, 0)
    if sides:
        return sides, param.value, 0
    stat = PILOT_STAND_IN[param]
    pilot = c.pilot
    if pilot is None:
        raise RuleViolation(
            f"{c.name} has no {PARAM_NAMES[param]} of its own and no pilot to stand in; "
            f"the GM names a pilot on its sheet."
        )
    state = state_of(pilot)
    if state in (State.DEAD, State.INCAPACITATED):
        raise RuleViolation(
            f"{c.name} relies on its pilot for {PARAM_NAMES[param]}, and {pilot.name} is "
            f"{state.value}."
        )
    points = pilot.stats.get(stat)
    if points is None or not 1 <= points <= 6:
        raise RuleViolation(f"{pilot.name}'s {stat.value} has no points to stand in with.")
    words = f"{param.value} ({pilot.name}'s {stat.value})"
    if rules is None:
        return die_for_points(points), words, 0
    race = find_race(pilot.race, rules)
    bonus = race.modifiers.get(stat, 0) if race is not None else 0
    return die_of(pilot, stat, rules), words, bonus


def _plan_params(
    c: Crewed,
    params: Sequence[Param],
    modifiers: Sequence[Modifier],
    ordinal: bool,
    *,
    wild: bool = True,
    rules: Rules | None = None,
) -> _ScaledPlan:
    """A craft's roll of ``params``; with ``rules``, a standing-in pilot's race, traits, pain."""
    dice = [_param_die(c, param, rules) for param in params]
    label = " + ".join(param.value for param in params)
    named = c.vehicle.named
    pilot_modifiers: tuple[Modifier, ...] = ()
    if (
        rules is not None
        and c.pilot is not None
        and any(w != p.value for p, (_, w, _) in zip(params, dice, strict=True))
    ):
        race_bonus = sum(bonus for _, _, bonus in dice)
        race = (Modifier(f"{c.pilot.name}'s race", race_bonus),) if race_bonus else ()
        standing_in = [
            PILOT_STAND_IN[p] for p, (_, w, _) in zip(params, dice, strict=True) if w != p.value
        ]
        traits = tuple(
            Modifier(f"{c.pilot.name}'s {m.label}", m.value)
            for m in trait_modifiers(c.pilot, standing_in)
        )
        pain = tuple(
            Modifier(f"{c.pilot.name}'s {m.label}", m.value)
            for m in _wound_modifiers(c.pilot, rules)
        )
        pilot_modifiers = race + traits + pain
    plan = RollPlan(
        c.name,
        label,
        tuple(s for s, _, _ in dice),
        named,
        named and wild,
        pilot_modifiers + tuple(m for m in modifiers if m.value),
    )
    return _ScaledPlan(plan, tuple(words for _, words, _ in dice), ordinal)


def _plan_stats(
    c: Character,
    stats: Sequence[Stat],
    rules: VehicleRules,
    modifiers: Sequence[Modifier],
    ordinal: bool,
) -> _ScaledPlan:
    plan = plan_trait(c, stats, rules, tuple(m for m in modifiers if m.value))
    return _ScaledPlan(plan, tuple(Stat(s).value for s in stats), ordinal)


# The scale table's roll for a parameter rolled against another kind: Armour is a
# defence, read from the opponent's row; the rest are the roller's.
_STAT_ROLL: dict[Param, ScaleRoll] = {
    Param.WEAPON: ScaleRoll.DAMAGE,
    Param.SPEED: ScaleRoll.SPEED,
    Param.ACCELERATION: ScaleRoll.SPEED,
    Param.ARMOUR: ScaleRoll.ARMOUR,
    Param.SENSORS: ScaleRoll.SENSORS,
}


def stat_ordinal(kind: ScaleKind, param: Param, against: ScaleKind, scale: Scale) -> bool:
    """Whether a ``kind``'s ``param`` rolled against an ``against`` carries the ordinal.

    >>> from referee.systems.stepped.vehicles import example_rules
    >>> stat_ordinal(ScaleKind.SHIP, Param.ARMOUR, ScaleKind.SHIP, example_rules().scale)
    False
    """
    roll = _STAT_ROLL[param]
    if roll == ScaleRoll.ARMOUR:
        return scale.ordinal(against, kind, roll)
    return scale.ordinal(kind, against, roll)


@dataclass(frozen=True)
class StatResult:
    """A vehicle's or ship's parameter roll with the ordinal d10 (R-10, R-11)."""

    vehicle: str
    parameter: Param
    against: str | None  # the opponent it was rolled against, if any (the scale's column)
    roll: ScaledRoll
    chance: Fraction  # exact chance of this total or more


def stat_roll(
    c: Crewed,
    param: Param,
    rules: VehicleRules,
    dice: DiceSource,
    *,
    against: Combatant | None = None,
    modifier: int = 0,
) -> StatResult:
    """Roll one parameter; against nobody it reads the scale as against its own kind.

    >>> from referee.systems.stepped.vehicles import Craft, Size, example_rules
    >>> from referee.base.dice import FixedDice
    >>> bike = Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {Param.SPEED: 4}, named=True)
    >>> roll = stat_roll(Crewed(bike), Param.SPEED, example_rules(), FixedDice([2, 5, 10])).roll
    >>> roll.parts[0].face, roll.parts[0].reading, roll.total  # wild 5, then d10 10 reads 0
    (5, 0, 50)
    """
    param = Param(param)
    if param not in PARAMS[c.vehicle.craft]:
        names = _join([PARAM_NAMES[p] for p in PARAMS[c.vehicle.craft]])
        raise UnknownName(
            f"A {c.vehicle.craft.value} has no {PARAM_NAMES[param]}; "
            f"{c.name}'s parameters are {names}."
        )
    _refuse_if_down(c, rules, "roll")
    kind = scale_kind(c)
    other = scale_kind(against) if against is not None else kind
    ordinal = stat_ordinal(kind, param, other, rules.scale)
    situational = (Modifier("situational", modifier),)
    wild = param != Param.WEAPON or rules.rulings.wild_die_on_damage
    plan = _plan_params(c, [param], situational, ordinal, wild=wild, rules=rules)
    roll = _roll(plan, rules.rulings, dice)
    chance = odds.chance_at_least(plan.spec(), rules.rulings, roll.total)
    return StatResult(c.name, param, against.name if against is not None else None, roll, chance)


@dataclass(frozen=True)
class InitiativeResult:
    """Everyone's Sensors (or Perception) roll, highest first, and the order of acting."""

    rolls: tuple[ScaledRoll, ...]  # highest total first; equal totals keep the asked order
    groups: tuple[tuple[str, ...], ...]  # who acts together, first group first

    def ledger_facts(self) -> dict[str, Any]:
        """What the ledger row keeps beside the dice: the order of acting."""
        return {"order": [list(group) for group in self.groups]}


def _sensors_plan(c: Combatant, kinds: Sequence[ScaleKind], rules: VehicleRules) -> _ScaledPlan:
    own = scale_kind(c)
    others = [k for k in kinds if k != own] or [own]
    # ruling: in a mixed fight a combatant's initiative carries the ordinal only if its
    # sensors column says so against every other kind present (the largest scale rules).
    ordinal = all(rules.scale.ordinal(own, k, ScaleRoll.SENSORS) for k in others)
    if isinstance(c, Character):
        return _plan_stats(c, [Stat.PERCEPTION], rules, (), ordinal)
    return _plan_params(c, [Param.SENSORS], (), ordinal, rules=rules)


def initiative(
    combatants: Sequence[Combatant], rules: VehicleRules, dice: DiceSource
) -> InitiativeResult:
    """Vehicles and ships roll Sensors, characters Perception; highest first, ties together.

    >>> from referee.systems.stepped.vehicles import Craft, Size, example_rules
    >>> from referee.base.dice import FixedDice
    >>> tank = Crewed(Vehicle("Tank", Craft.VEHICLE, Size.HEAVY, {Param.SENSORS: 6}))
    >>> bike = Crewed(Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {Param.SENSORS: 4}))
    >>> initiative([tank, bike], example_rules(), FixedDice([2, 3, 3, 5])).groups
    (('Bike',), ('Tank',))
    """
    for c in combatants:
        _refuse_if_down(c, rules, "roll initiative")
    kinds = sorted({scale_kind(c) for c in combatants}, key=list(ScaleKind).index)
    rolls = [_roll(_sensors_plan(c, kinds, rules), rules.rulings, dice) for c in combatants]
    return InitiativeResult(*act_together(rolls))
