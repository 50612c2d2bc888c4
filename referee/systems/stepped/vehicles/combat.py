"""Vehicle and ship attacks: hit, hit defence, damage and armour, in that order, at any scale."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation

from ..combat import (
    DEFENCE_STATS,
    HIT_STATS,
    SOAK_STATS,
    AttackKind,
    Location,
    apply_wounds,
    automatic_hit,
    called_shot_modifier,
    exchange,
    nothing_to_attack,
    plan_damage,
)
from ..rolls import Modifier
from ..traits import Character, State, Weapon, state_of
from . import odds
from .crafts import MOBILITY, PARAM_NAMES, Combatant, Crewed, Param
from .rolls import (
    ScaledRoll,
    VehicleState,
    _plan_params,
    _plan_stats,
    _refuse_if_down,
    _roll,
    _ScaledPlan,
    _wins,
    damage,
    vehicle_state,
)
from .scale import ScaleKind, ScaleRoll, VehicleRules, scale_kind


@dataclass(frozen=True)
class AttackResult:
    """The verdict of one attack in which a vehicle or ship takes part."""

    kind: AttackKind
    attacker: str
    target: str
    attacker_kind: ScaleKind
    target_kind: ScaleKind
    weapon: str  # "Weapon power" for a craft, else the character's weapon
    location: Location  # where a character target is hit; the torso for crafts
    automatic_hit: bool  # the target was unaware: no hit or defence roll
    hit_roll: ScaledRoll | None
    defence_roll: ScaledRoll | None
    hit: bool
    damage_roll: ScaledRoll | None  # None on a miss
    armour_roll: ScaledRoll | None
    wounded: bool
    target_before: Combatant
    target_after: Combatant
    hit_chance: Fraction  # exact, before the dice
    wound_chance: Fraction  # exact P(wound | hit)

    def ledger_facts(self) -> dict[str, Any]:
        """What the ledger row keeps beside the dice: whether it hit and wounded."""
        return {"hit": self.hit, "wounded": self.wounded, "automatic_hit": self.automatic_hit}


def _refuse(
    attacker: Combatant,
    target: Combatant,
    kind: AttackKind,
    weapon: str | None,
    location: Location,
    subdue: bool,
) -> None:
    if attacker.name.strip().casefold() == target.name.strip().casefold():
        raise RuleViolation(f"{attacker.name} cannot attack itself.")
    if isinstance(attacker, Crewed):
        if kind == AttackKind.MELEE:
            raise RuleViolation(
                f"{attacker.name} fights with its guns: write shoot, not melee "
                "(the rules have no ramming)."
            )
        if weapon is not None:
            raise RuleViolation(
                f"{attacker.name} fires its Weapon power; leave out 'with {weapon}'."
            )
    if subdue:
        raise RuleViolation(
            "Vehicles and ships cannot subdue or be subdued; attack without 'subdue'."
        )
    if isinstance(target, Crewed) and location != Location.TORSO:
        raise RuleViolation(
            f"{target.name} is a {target.vehicle.craft.value}: aim at it as a whole, "
            f"not at its {location.value}."
        )


def attack(
    kind: AttackKind,
    attacker: Combatant,
    target: Combatant,
    rules: VehicleRules,
    dice: DiceSource,
    *,
    weapon: Weapon | None = None,
    location: Location = Location.TORSO,
    aware: bool = True,
    subdue: bool = False,
    modifier: int = 0,
    environment: int = 0,
) -> AttackResult:
    """One attack with a vehicle or ship on either side (§1.5: same rules, other parameters).

    Hit: Speed (Acceleration) + Sensors against Speed (Acceleration); characters use
    their own stats (§1.3). Wound: Weapon power against Armour (+ ``environment``).
    Each roll carries the ordinal d10 where the scale table says so. Dice are drawn
    hit, defence, damage, armour.

    >>> from referee.systems.stepped.vehicles import Craft, Size, Vehicle, example_rules
    >>> from referee.base.dice import FixedDice
    >>> tank = Crewed(Vehicle("Tank", Craft.VEHICLE, Size.HEAVY, {Param.WEAPON: 8,
    ...     Param.SPEED: 4, Param.ARMOUR: 10, Param.SENSORS: 6}))
    >>> bike = Crewed(Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {Param.WEAPON: 6,
    ...     Param.SPEED: 8, Param.ARMOUR: 4, Param.SENSORS: 4}))
    >>> # hit 3|5=35 + 4|2=42 = 77 vs speed 6|1=61; weapon 7|7=77 vs armour 2|9=29
    >>> result = attack(AttackKind.RANGED, tank, bike, example_rules(),
    ...                 FixedDice([3, 4, 5, 2, 6, 1, 7, 7, 2, 9]))
    >>> after = result.target_after.vehicle
    >>> result.hit, result.wounded, vehicle_state(after, example_rules()).value
    (True, True, 'destroyed')
    """
    kind = AttackKind(kind)
    location = Location(location)
    _refuse(
        attacker,
        target,
        kind,
        weapon.name if weapon and isinstance(attacker, Crewed) else None,
        location,
        subdue,
    )
    _refuse_if_down(attacker, rules, "attack")
    if isinstance(target, Crewed):
        if vehicle_state(target.vehicle, rules) == VehicleState.DESTROYED:
            raise RuleViolation(nothing_to_attack(target.name, "destroyed"))
    else:
        state = state_of(target)
        if state in (State.DEAD, State.INCAPACITATED):
            raise RuleViolation(nothing_to_attack(target.name, state.value))
    rulings, scale = rules.rulings, rules.scale
    a_kind, t_kind = scale_kind(attacker), scale_kind(target)

    def ordinal(roll: ScaleRoll) -> bool:
        return scale.ordinal(a_kind, t_kind, roll)

    hit_modifiers = [Modifier("situational", modifier)]
    if isinstance(target, Character):
        hit_modifiers.insert(
            0, Modifier(f"{location.value} shot", called_shot_modifier(location, rulings))
        )
    armour_modifiers = [Modifier("environment", environment)]
    if isinstance(attacker, Crewed):
        mobility = MOBILITY[attacker.vehicle.craft]
        hit_plan = _plan_params(
            attacker,
            [mobility, Param.SENSORS],
            hit_modifiers,
            ordinal(ScaleRoll.ATTACK),
            rules=rules,
        )
        damage_plan = _plan_params(
            attacker,
            [Param.WEAPON],
            (),
            ordinal(ScaleRoll.DAMAGE),
            wild=rulings.wild_die_on_damage,
            rules=rules,
        )
        weapon_name = PARAM_NAMES[Param.WEAPON]
    else:
        hit_plan = _plan_stats(
            attacker, HIT_STATS[kind], rules, hit_modifiers, ordinal(ScaleRoll.ATTACK)
        )
        chosen, plan = plan_damage(kind, attacker, weapon, rules)
        labels = tuple(f"d{s}" for s in plan.sides) if kind == AttackKind.RANGED else ("strength",)
        damage_plan = _ScaledPlan(plan, labels, ordinal(ScaleRoll.DAMAGE))
        weapon_name = chosen.name
    if isinstance(target, Crewed):
        mobility = MOBILITY[target.vehicle.craft]
        defence_plan = _plan_params(
            target, [mobility], (), ordinal(ScaleRoll.HIT_DEFENCE), rules=rules
        )
        armour_plan = _plan_params(
            target, [Param.ARMOUR], armour_modifiers, ordinal(ScaleRoll.ARMOUR), rules=rules
        )
    else:
        defence_plan = _plan_stats(target, DEFENCE_STATS, rules, (), ordinal(ScaleRoll.HIT_DEFENCE))
        armour_plan = _plan_stats(
            target,
            SOAK_STATS,
            rules,
            [Modifier("armour", target.armour), *armour_modifiers],
            ordinal(ScaleRoll.ARMOUR),
        )

    automatic = automatic_hit(kind, aware, rulings)
    hit_chance = (
        Fraction(1)
        if automatic
        else odds.contest_chance(hit_plan.spec(), defence_plan.spec(), rulings)
    )
    wound_chance = odds.contest_chance(damage_plan.spec(), armour_plan.spec(), rulings)

    rolls = exchange(
        (hit_plan, defence_plan, damage_plan, armour_plan),
        lambda plan: _roll(plan, rulings, dice),
        lambda a, d: _wins(a, d, rulings),
        automatic,
    )
    after: Combatant = target
    if rolls.wounded:
        if isinstance(target, Crewed):
            after = replace(target, vehicle=damage(target.vehicle, 1, rules))
        else:
            after = apply_wounds(target, 1, rules)
    return AttackResult(
        kind,
        attacker.name,
        target.name,
        a_kind,
        t_kind,
        weapon_name,
        location,
        automatic,
        rolls.hit_roll,
        rolls.defence_roll,
        rolls.hit,
        rolls.damage_roll,
        rolls.soak_roll,
        rolls.wounded,
        target,
        after,
        hit_chance,
        wound_chance,
    )
