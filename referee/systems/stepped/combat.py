"""Stepped combat: contests, called shots, attacks and wounds.

An attack draws its hit, defence, damage and soak rolls in that order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from fractions import Fraction
from typing import Any, Generic, TypeVar

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, UnknownName

from . import odds
from .rolls import (
    Modifier,
    RollPlan,
    TraitRoll,
    _execute,
    _Plan,
    _plan_dice,
    _plan_trait,
    _refuse_if_down,
)
from .rulings import Rules, Rulings, Ties, _fold
from .traits import UNARMED, Character, Stat, State, Weapon, state_of


def _standing(roll: TraitRoll, rulings: Rulings) -> tuple[int, int]:
    """(grade, total): criticals and exceptionals decide first, then the total."""
    return (odds.grade(roll.exceptional, roll.critical, rulings), roll.total)


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

    def ledger_facts(self) -> dict[str, Any]:
        """What the ledger row keeps beside the dice: whether it hit and wounded."""
        return {"hit": self.hit, "wounded": self.wounded, "automatic_hit": self.automatic_hit}


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


def nothing_to_attack(name: str, state: str) -> str:
    """The refusal of an attack on a target out of the fight, saying what to do instead.

    >>> nothing_to_attack("Trooper 1", "incapacitated")  # doctest: +ELLIPSIS
    'Trooper 1 is already incapacitated; ... a GM can bring them back with [[heal Trooper 1]].'
    """
    advice = "Choose a target still in the fight"
    if state == "incapacitated":
        return (
            f"{name} is already incapacitated; there is nothing to attack. {advice}, or a GM "
            f"can bring them back with [[heal {name}]]."
        )
    return (
        f"{name} is already {state}; there is nothing to attack. {advice}, or a GM brings "
        "in a new foe with [[npc NAME as TEMPLATE]] (or [[npc NAME: str 2, agi 2, end 2, per 2]])."
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

    >>> from referee.systems.stepped import Kind, WeaponKind
    >>> from referee.base.dice import FixedDice
    >>> guard = Character("Guard", Kind.NPC, dict.fromkeys(Stat, 2))
    >>> kara = Character("Kara", Kind.NPC, dict.fromkeys(Stat, 2),
    ...                  weapons=(Weapon("blaster", WeaponKind.RANGED, 2, 6),))
    >>> # hit 4+3 vs 5, damage 6+2 vs 3: one wound kills an ordinary guard
    >>> result = attack(AttackKind.RANGED, kara, guard, Rules(), FixedDice([4, 3, 5, 6, 2, 3]))
    >>> result.hit, result.wounded, state_of(result.target_after).value
    (True, True, 'dead')
    """
    rulings = rules.rulings
    # Members pass as they are: an Enum call costs a microsecond even for a member.
    kind = kind if type(kind) is AttackKind else AttackKind(kind)
    location = location if type(location) is Location else Location(location)
    if _fold(attacker.name) == _fold(target.name):
        raise RuleViolation(f"{attacker.name} cannot attack themselves.")
    _refuse_if_down(attacker, "attack")
    state = state_of(target)
    if state in (State.DEAD, State.INCAPACITATED):
        raise RuleViolation(nothing_to_attack(target.name, state.value))
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

    called = _CALLED_SHOT[location]
    shot = called(rulings) if called else 0
    # Only the modifiers that are not zero (most attacks have none of the four).
    hit_modifiers: tuple[Modifier, ...] = (
        (Modifier(f"{location.value} shot", shot),) if shot else ()
    ) + ((Modifier("situational", modifier),) if modifier else ())
    soak_modifiers: tuple[Modifier, ...] = (
        (Modifier("armour", target.armour),) if target.armour else ()
    ) + ((Modifier("environment", environment),) if environment else ())
    hit_plan = _plan_trait(attacker, HIT_STATS[kind], rules, hit_modifiers)
    defence_plan = _plan_trait(target, DEFENCE_STATS, rules, ())
    damage_plan = _damage_plan(kind, attacker, chosen, rules)
    soak_plan = _plan_trait(target, SOAK_STATS, rules, soak_modifiers)

    automatic = automatic_hit(kind, aware, rulings)
    chance_to_hit = (
        Fraction(1) if automatic else odds.hit_chance(hit_plan.spec(), defence_plan.spec(), rulings)
    )
    chance_to_wound = odds.wound_chance(damage_plan.spec(), soak_plan.spec(), rulings)

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
        location,
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

    >>> from referee.systems.stepped import Kind
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

    >>> from referee.systems.stepped import Kind
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


def plan_damage(
    kind: AttackKind, attacker: Character, weapon: Weapon | None, rules: Rules
) -> tuple[Weapon, RollPlan]:
    """The weapon an attack uses (the sheet's first of its kind if None) and its damage plan.

    >>> from referee.systems.stepped import Kind, WeaponKind
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
