"""Stepped sheets checked: every problem a character's sheet has, listed at once
(budgets, stat and magic caps by race, weapons, techniques, personal traits, wounds)."""

from __future__ import annotations

from collections.abc import Sequence

from referee.base.english import with_article
from referee.base.limits import DEFAULT_LIMITS

from .rulings import MagicPoints, Rules, find_race
from .traits import (
    BACKGROUND_NAMES,
    BUDGETS,
    LADDER,
    MAX_POINTS,
    MAX_TRAIT_MODIFIER,
    MIN_POINTS,
    TIER_CAPACITY,
    Character,
    Kind,
    Race,
    Stat,
    WeaponKind,
    _join,
    die_for_points,
)


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
    problems.extend(_budget_problems(c, rules))
    problems.extend(_magic_cap_problems(c, race, rules))
    problems.extend(_weapon_problems(c))
    problems.extend(_magic_problems(c))
    problems.extend(_trait_problems(c))
    if c.armour < 0:
        add(f"Armour is {c.armour}; it cannot be negative.")
    problems.extend(wound_track_problems(c))
    if c.wounds < 0:
        add(f"The character carries {c.wounds} wounds; it cannot be negative.")
    elif c.wounds > max(c.wounds_survived, 0) + 1:
        add(
            f"The character carries {c.wounds} wounds; one past the "
            f"{c.wounds_survived} survived already kills."
        )
    return problems


def npc_problems(c: Character, rules: Rules) -> list[str]:
    """What keeps a GM's NPC from acting, each a sentence; [] if it can enter play.

    An NPC's sheet is read and checked like any sheet: every stat from 1 to 6 points,
    weapons, magic and traits well formed, an NPC's wound track. The players' budget
    and race caps are not the GM's limits (shipped NPCs are not held to them either).

    >>> ghoul = Character("Ghoul", Kind.NPC, {Stat.STRENGTH: 2, Stat.AGILITY: 2})
    >>> npc_problems(ghoul, Rules())[0]
    'Endurance has no points; every stat needs 1 to 6.'
    """
    problems = []
    if not c.name.strip():
        problems.append("The NPC needs a name.")
    problems.extend(_stat_problems(c, None))
    problems.extend(_weapon_problems(c))
    problems.extend(_magic_problems(c))
    problems.extend(_trait_problems(c))
    if c.armour < 0:
        problems.append(f"Armour is {c.armour}; it cannot be negative.")
    problems.extend(wound_track_problems(c))
    return problems


PC_WOUNDS_SURVIVED = 3  # seed: player characters survive 3 wounds; the 4th kills
NPC_WOUNDS_SURVIVED = (0, 2, 3)  # seed: an ordinary NPC falls at once, a tough one survives 2 or 3


def wound_track_problems(c: Character) -> list[str]:
    """The seed's wound tracks: a PC survives 3; an NPC 0, or 2 or 3 when a GM makes it tough.

    >>> wound_track_problems(Character("Orla", Kind.PC, {}, wounds_survived=0))
    ['A player character always survives 3 wounds, not 0; only a GM sets tough (2 or 3) on an NPC.']
    """
    if c.kind == Kind.PC and c.wounds_survived != PC_WOUNDS_SURVIVED:
        return [
            f"A player character always survives {PC_WOUNDS_SURVIVED} wounds, not "
            f"{c.wounds_survived}; only a GM sets tough (2 or 3) on an NPC."
        ]
    if c.kind != Kind.PC and c.wounds_survived not in NPC_WOUNDS_SURVIVED:
        return [
            f"An NPC survives 0 wounds (an ordinary NPC) or 2 or 3 (a tough one), "
            f"not {c.wounds_survived}."
        ]
    return []


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
                f"{title} has {points} points; "
                f"{with_article(race.name)} may have at most {race.cap}."
            )
    return problems


def _budget_problems(c: Character, rules: Rules) -> list[str]:
    if any(stat not in c.stats for stat in Stat):
        return []
    budget = BUDGETS[c.background]
    spent = sum(c.stats[stat] for stat in Stat) - len(Stat) * MIN_POINTS
    what = "The stats spend"
    if rules.rulings.magic_points == MagicPoints.BUDGET and c.magic:
        # every magic point comes out of the budget (a parameter has no free point).
        spent += sum(parameter.points for parameter in c.magic)
        what = "The stats and magic spend"
    who = BACKGROUND_NAMES[c.background]
    if spent > budget:
        return [
            f"{what} {spent} points above 1 each; {who} has {budget}, "
            f"so {_points(spent - budget)} over."
        ]
    if spent < budget:
        return [
            f"{what} {spent} points above 1 each; {who} has {budget}, "
            f"so {_points(budget - spent)} unspent."
        ]
    return []


def _points(count: int) -> str:
    """``1 is`` or ``2 are``: the count and its verb, for the budget's sentences."""
    return f"{count} is" if count == 1 else f"{count} are"


def _magic_cap_problems(c: Character, race: Race | None, rules: Rules) -> list[str]:
    """R-60 "budget": a magic parameter obeys the race cap like a stat."""
    if race is None or rules.rulings.magic_points != MagicPoints.BUDGET:
        return []
    return [
        f"{parameter.name} has {parameter.points} points; "
        f"{with_article(race.name)} may have at most {race.cap}."
        for parameter in c.magic
        if parameter.points > race.cap
    ]


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


def _trait_problems(c: Character) -> list[str]:
    """A personal trait needs a name and modifiers of at most ±MAX_TRAIT_MODIFIER per stat."""
    problems: list[str] = []
    for trait in c.traits:
        name = trait.name.strip() or "a personal trait"
        if not trait.name.strip():
            problems.append("A personal trait needs a name.")
        if not trait.modifiers:
            problems.append(f"The trait {name} changes no stat; give it one, like `perception +1`.")
        for stat, value in trait.modifiers.items():
            if abs(value) > MAX_TRAIT_MODIFIER:
                problems.append(
                    f"The trait {name} gives {stat.value} {value:+d}; a personal trait gives "
                    f"at most ±{MAX_TRAIT_MODIFIER} to a stat."
                )
    for name in _duplicates([t.name for t in c.traits]):
        problems.append(f"Two personal traits are called '{name}'; give each its own name.")
    return problems
