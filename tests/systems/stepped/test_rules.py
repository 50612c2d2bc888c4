"""The stepped system's rules and rulings, dice for dice, with FixedDice."""

from __future__ import annotations

import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import ConfigError, RuleViolation, UnknownName
from referee.systems.stepped import (
    BUDGETS,
    LADDER,
    UNARMED,
    AttackKind,
    Background,
    Character,
    CriticalWhen,
    ExceptionalOn,
    Kind,
    Location,
    MagicParameter,
    Modifier,
    PenaltyAppliesTo,
    PersonalTrait,
    Race,
    Rules,
    Rulings,
    Stat,
    State,
    Technique,
    Ties,
    Weapon,
    WeaponKind,
    WildReplaces,
    apply_wounds,
    attack,
    cast,
    die_for_points,
    heal,
    initiative,
    is_named,
    load_races,
    parse_location,
    parse_stat,
    roll_dice_for,
    roll_trait,
    state_of,
    wound_penalty,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DATA = Path(__file__).resolve().parents[3] / "data"

BLASTER = Weapon("blaster pistol", WeaponKind.RANGED, 2, 6)
BATON = Weapon("stun baton", WeaponKind.MELEE, modifier=1, can_subdue=True)
KNIFE = Weapon("knife", WeaponKind.MELEE, modifier=1)


def stats(strength: int = 2, agility: int = 3, endurance: int = 3, perception: int = 3) -> dict:
    """Four stats; the default spends a soldier's 7 points."""
    return {
        Stat.STRENGTH: strength,
        Stat.AGILITY: agility,
        Stat.ENDURANCE: endurance,
        Stat.PERCEPTION: perception,
    }


def pc(name: str = "Kara", **changes: object) -> Character:
    """A valid soldier PC."""
    base = Character(
        name, Kind.PC, stats(), named=True, wounds_survived=3, weapons=(BLASTER, BATON)
    )
    return replace(base, **changes)


def npc(name: str = "Guard", **changes: object) -> Character:
    """A valid ordinary (unnamed) NPC soldier."""
    return replace(Character(name, Kind.NPC, stats()), **changes)


def values(roll) -> list[int]:
    """The faces of a roll's trait dice."""
    return [die.value for die in roll.dice]


# ---------------------------------------------------------------------------
# Stats and the ladder


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("strength", Stat.STRENGTH),
        ("STR", Stat.STRENGTH),
        ("Agility", Stat.AGILITY),
        ("agi", Stat.AGILITY),
        (" end ", Stat.ENDURANCE),
        ("Per", Stat.PERCEPTION),
        ("perception", Stat.PERCEPTION),
    ],
)
def test_parse_stat_accepts_names_and_abbreviations(word: str, expected: Stat) -> None:
    """A stat is named in full or by three letters, in any case."""
    assert expected == parse_stat(word)


def test_parse_stat_refuses_an_unknown_word() -> None:
    """An unknown stat names the four stats."""
    with pytest.raises(UnknownName) as error:
        parse_stat("venn")
    expected = "'venn' is not a stat; the stats are strength, agility, endurance and perception."
    assert expected == error.value.message


@pytest.mark.parametrize(("points", "sides"), list(zip(range(1, 7), LADDER, strict=True)))
def test_die_for_points_follows_the_ladder(points: int, sides: int) -> None:
    """Points 1..6 map to d4, d6, d8, d10, d12, d20."""
    assert sides == die_for_points(points)


@pytest.mark.parametrize("points", [0, 7, -1])
def test_die_for_points_refuses_points_off_the_ladder(points: int) -> None:
    """0 or 7 points have no die."""
    with pytest.raises(ValueError):
        die_for_points(points)


def test_budgets_are_three_five_seven() -> None:
    """Non-combatants, the experienced and soldiers distribute 3, 5 and 7 points."""
    expected = {Background.NONCOMBATANT: 3, Background.EXPERIENCED: 5, Background.SOLDIER: 7}
    assert expected == BUDGETS


# ---------------------------------------------------------------------------
# The wild d6: R-1 .. R-4


@pytest.mark.parametrize(
    ("faces", "total", "kept", "wild_kept"),
    [
        ([2, 5], 5, [False], True),  # the wild die is higher: used
        ([5, 2], 5, [True], False),  # lower: ignored
        ([4, 4], 4, [True], False),  # equal: the die stands (and it is exceptional)
        ([8, 6], 8, [True], False),
    ],
)
def test_wild_die_replaces_a_single_die_when_higher(faces, total, kept, wild_kept) -> None:
    """A named roller uses the wild d6 instead of the trait die if it is higher."""
    roll = roll_trait(pc(), [Stat.AGILITY], Rules(), FixedDice(faces))
    assert (total, kept, wild_kept) == (
        roll.total,
        [d.kept for d in roll.dice],
        roll.wild is not None and roll.wild.kept,
    )


@pytest.mark.parametrize(
    ("replaces", "faces", "total"),
    [
        (WildReplaces.LOWEST, [2, 7, 5], 12),  # 2 -> 5
        (WildReplaces.HIGHEST, [2, 7, 5], 9),  # 7 stays: 5 is not higher
        (WildReplaces.LOWEST, [1, 3, 5], 8),  # 1 -> 5
        (WildReplaces.HIGHEST, [1, 3, 5], 6),  # 3 -> 5
    ],
)
def test_r1_wild_die_replaces_lowest_or_highest(replaces, faces, total) -> None:
    """R-1: the wild die replaces the lowest trait die by default, the highest by option."""
    rules = Rules(Rulings(wild_die_replaces=replaces))
    roll = roll_trait(pc(), [Stat.AGILITY, Stat.PERCEPTION], rules, FixedDice(faces))
    assert total == roll.total


@pytest.mark.parametrize(
    ("exceptional_on", "faces", "expected"),
    [
        (ExceptionalOn.ANY, [3, 5, 5], True),  # matches the 5
        (ExceptionalOn.REPLACED, [3, 5, 5], False),  # the lowest die is 3
        (ExceptionalOn.REPLACED, [3, 5, 3], True),
        (ExceptionalOn.EVERY, [3, 5, 5], False),
        (ExceptionalOn.EVERY, [5, 5, 5], True),
        (ExceptionalOn.ANY, [3, 5, 6], False),
    ],
)
def test_r2_exceptional_success(exceptional_on, faces, expected) -> None:
    """R-2: the wild die matching any (or the replaced, or every) trait die is exceptional."""
    rules = Rules(Rulings(exceptional_on=exceptional_on))
    roll = roll_trait(pc(), [Stat.AGILITY, Stat.PERCEPTION], rules, FixedDice(faces))
    assert expected == roll.exceptional


def test_single_die_matching_the_wild_die_is_exceptional() -> None:
    """The seed: the same number on both dice is an exceptional success."""
    roll = roll_trait(pc(), [Stat.AGILITY], Rules(), FixedDice([4, 4]))
    assert (True, False) == (roll.exceptional, roll.critical)


@pytest.mark.parametrize(
    ("critical_when", "faces", "expected"),
    [
        (CriticalWhen.EVERY_DIE, [1, 5, 3], False),
        (CriticalWhen.EVERY_DIE, [1, 1, 3], True),
        (CriticalWhen.ANY_DIE, [1, 5, 3], True),
        (CriticalWhen.ANY_DIE, [2, 5, 3], False),
    ],
)
def test_r3_critical_failure(critical_when, faces, expected) -> None:
    """R-3: a critical failure needs every trait die at 1 by default, any die by option."""
    rules = Rules(Rulings(critical_when=critical_when))
    roll = roll_trait(pc(), [Stat.AGILITY, Stat.PERCEPTION], rules, FixedDice(faces))
    assert expected == roll.critical


def test_a_one_on_the_wild_die_never_hurts() -> None:
    """A 1 on the wild d6 is no critical failure."""
    roll = roll_trait(pc(), [Stat.AGILITY], Rules(), FixedDice([5, 1]))
    assert (5, False) == (roll.total, roll.critical)


def test_a_one_on_the_trait_die_fails_critically_even_if_the_wild_die_is_used() -> None:
    """A 1 on the roll die is a critical failure although the wild die's 6 is taken."""
    roll = roll_trait(pc(), [Stat.AGILITY], Rules(), FixedDice([1, 6]))
    assert (6, True) == (roll.total, roll.critical)


@pytest.mark.parametrize(
    ("critical_beats_exceptional", "expected"), [(True, (False, True)), (False, (True, False))]
)
def test_r4_critical_and_exceptional_together(critical_beats_exceptional, expected) -> None:
    """R-4: a roll both critical and exceptional fails by default, succeeds by option."""
    rules = Rules(
        Rulings(critical_when="any_die", critical_beats_exceptional=critical_beats_exceptional)
    )
    # Dice 1 and 4 (a 1: critical under any_die), the wild 4 matches the 4.
    roll = roll_trait(pc(), [Stat.AGILITY, Stat.PERCEPTION], rules, FixedDice([1, 4, 4]))
    assert expected == (roll.exceptional, roll.critical)


@pytest.mark.parametrize("critical_beats_exceptional", [True, False])
def test_r2_a_wild_one_never_makes_an_exceptional_success(critical_beats_exceptional) -> None:
    """R-2: double 1s are a critical failure only, whatever R-4 says; a wild 1 is never lucky."""
    rules = Rules(Rulings(critical_beats_exceptional=critical_beats_exceptional))
    single = roll_trait(pc(), [Stat.AGILITY], rules, FixedDice([1, 1]))
    several = roll_trait(pc(), [Stat.AGILITY, Stat.PERCEPTION], rules, FixedDice([1, 4, 1]))
    assert ((False, True), (False, False)) == (
        (single.exceptional, single.critical),
        (several.exceptional, several.critical),
    )


def test_unnamed_roller_has_no_wild_die() -> None:
    """An ordinary NPC rolls only the trait dice."""
    dice = FixedDice([3, 5])
    roll = roll_trait(npc(), [Stat.AGILITY, Stat.PERCEPTION], Rules(), dice)
    assert (None, 8, 0) == (roll.wild, roll.total, dice.remaining)


@pytest.mark.parametrize(("critical_for_unnamed", "expected"), [(False, False), (True, True)])
def test_critical_for_unnamed(critical_for_unnamed, expected) -> None:
    """Unnamed rollers fail critically only when the ruling says so."""
    rules = Rules(Rulings(critical_for_unnamed=critical_for_unnamed))
    assert expected == roll_trait(npc(), [Stat.AGILITY], rules, FixedDice([1])).critical


def test_player_characters_are_always_named() -> None:
    """A PC rolls the wild die even if the sheet forgot `named`."""
    roll = roll_trait(pc(named=False), [Stat.AGILITY], Rules(), FixedDice([2, 6]))
    assert (True, 6) == (is_named(pc(named=False)), roll.total)


def test_named_npc_rolls_the_wild_die() -> None:
    """An important NPC marked named rolls the wild die."""
    roll = roll_trait(npc(named=True), [Stat.AGILITY], Rules(), FixedDice([2, 6]))
    assert 6 == roll.total


# ---------------------------------------------------------------------------
# Modifiers on rolls: race, pain shock (R-6), situational


def test_race_modifier_applies_per_stat() -> None:
    """A race's modifier is added to rolls of that stat."""
    races = {
        "human": Race("human"),
        "wookiee": Race("wookiee", 4, {Stat.STRENGTH: 1, Stat.AGILITY: -1}),
    }
    wookiee = npc(race="wookiee")
    roll = roll_trait(wookiee, [Stat.STRENGTH, Stat.AGILITY], Rules(races=races), FixedDice([3, 4]))
    assert ((), 7) == (roll.modifiers, roll.total)  # +1 and -1 cancel
    strength = roll_trait(wookiee, [Stat.STRENGTH], Rules(races=races), FixedDice([3]))
    assert ((Modifier("race", 1),), 4) == (strength.modifiers, strength.total)


def test_the_same_sheet_rolls_by_each_campaigns_rules_and_its_own_wounds() -> None:
    """A character rolled under other rules, or wounded since, rolls by those, not the first."""
    races = {"human": Race("human"), "wookiee": Race("wookiee", 4, {Stat.STRENGTH: 1})}
    wookiee = npc(race="wookiee", wounds_survived=2)
    plain = Rules(races=races)
    painful = Rules(Rulings(wound_penalty_applies_to=PenaltyAppliesTo.ALL), races)
    first = roll_trait(wookiee, [Stat.STRENGTH], plain, FixedDice([3]))
    wounded = apply_wounds(wookiee, 1, painful)
    again = roll_trait(wounded, [Stat.STRENGTH], painful, FixedDice([3]))
    stricter = roll_trait(wounded, [Stat.STRENGTH], Rules(races=races), FixedDice([3]))
    assert (4, 3, 4) == (first.total, again.total, stricter.total)


def test_sheets_that_read_the_same_share_a_plan_and_any_difference_is_its_own() -> None:
    """Plans are kept by what a roll reads of a sheet: another character with the same
    numbers rolls the same; a different race, kind, wound or trait rolls its own."""
    races = {"human": Race("human"), "wookiee": Race("wookiee", 4, {Stat.STRENGTH: 1})}
    rules = Rules(Rulings(wound_penalty_applies_to=PenaltyAppliesTo.ALL), races)

    def strength(character: Character) -> tuple[tuple[Modifier, ...], int, bool]:
        roll = roll_trait(character, [Stat.STRENGTH], rules, FixedDice([3, 1]))
        return roll.modifiers, roll.total, roll.wild is not None

    base = npc(race="wookiee", wounds_survived=2)
    assert strength(base) == strength(replace(base, name="Other wookiee"))
    assert ((), 3, False) == strength(replace(base, race="human"))
    assert ((Modifier("race", 1),), 4, True) == strength(replace(base, kind=Kind.PC))
    wounded = strength(replace(base, wounds=1))
    assert ((Modifier("race", 1), Modifier("1 wound", -1)), 3, False) == wounded
    strong = replace(base, traits=(PersonalTrait("Mighty", {Stat.STRENGTH: 2}),))
    assert ((Modifier("race", 1), Modifier("Mighty", 2)), 6, False) == strength(strong)
    assert ((Modifier("race", 1),), 4, False) == strength(base)


def test_unknown_race_refuses_to_roll() -> None:
    """A character of a race missing from the table cannot roll."""
    with pytest.raises(UnknownName):
        roll_trait(npc(race="elf"), [Stat.AGILITY], Rules(), FixedDice([3]))


@pytest.mark.parametrize(
    ("character", "rulings", "expected"),
    [
        (pc(wounds=2), Rulings(), (Modifier("2 wounds", -2),)),
        (pc(wounds=1), Rulings(), (Modifier("1 wound", -1),)),
        (pc(wounds=0), Rulings(), ()),
        (pc(wounds=2), Rulings(wound_penalty=2), (Modifier("2 wounds", -4),)),
        (pc(wounds=2), Rulings(wound_penalty=0), ()),
        (npc(wounds_survived=2, wounds=1), Rulings(), ()),
        (
            npc(wounds_survived=2, wounds=1),
            Rulings(wound_penalty_applies_to=PenaltyAppliesTo.ALL),
            (Modifier("1 wound", -1),),
        ),
    ],
)
def test_r6_wound_penalty(character, rulings, expected) -> None:
    """R-6: -1 per wound carried, on PCs by default or everyone by option."""
    dice = FixedDice([5, 1]) if is_named(character) else FixedDice([5])
    roll = roll_trait(character, [Stat.AGILITY], Rules(rulings), dice)
    assert (expected, 5 + sum(m.value for m in expected)) == (roll.modifiers, roll.total)


@pytest.mark.parametrize(
    ("character", "rulings", "expected"),
    [
        (pc(wounds=3), Rulings(), 3),
        (pc(wounds=2), Rulings(wound_penalty=2), 4),
        (npc(wounds_survived=2, wounds=2), Rulings(), 0),
        (npc(wounds_survived=2, wounds=2), Rulings(wound_penalty_applies_to="all"), 2),
    ],
)
def test_wound_penalty_magnitude(character, rulings, expected) -> None:
    """wound_penalty gives the points pain shock takes off every roll."""
    assert expected == wound_penalty(character, Rules(rulings))


def test_situational_modifiers_are_kept_and_added() -> None:
    """Given modifiers are listed after the character's own and summed into the total."""
    roll = roll_trait(npc(), [Stat.AGILITY], Rules(), FixedDice([4]), [Modifier("situational", 2)])
    assert ((Modifier("situational", 2),), 6) == (roll.modifiers, roll.total)


def test_damage_dice_carry_the_wild_die_by_default() -> None:
    """The wild d6 goes beside ANY roll, damage dice included."""
    roll = roll_dice_for(pc(), "blaster pistol 2d6", 2, 6, Rules(), FixedDice([1, 4, 5]))
    assert ([1, 4], 9) == (values(roll), roll.total)


def test_wild_die_on_damage_can_be_turned_off() -> None:
    """With wild_die_on_damage false, damage dice roll alone."""
    dice = FixedDice([1, 4])
    roll = roll_dice_for(
        pc(), "blaster pistol 2d6", 2, 6, Rules(Rulings(wild_die_on_damage=False)), dice
    )
    assert (None, 5, 0) == (roll.wild, roll.total, dice.remaining)


@pytest.mark.parametrize(("count", "sides"), [(0, 6), (2, 0), (5000, 6)])
def test_roll_dice_for_refuses_empty_or_huge_rolls(count: int, sides: int) -> None:
    """No dice, or more than the limits allow, is refused with a message."""
    with pytest.raises(RuleViolation):
        roll_dice_for(npc(), "x", count, sides, Rules(), FixedDice([]))


# ---------------------------------------------------------------------------
# Initiative


def test_initiative_orders_highest_first_and_groups_ties() -> None:
    """Everyone rolls Perception; equal totals act together, in the asked order."""
    people = [npc("A"), npc("B"), npc("C"), npc("D")]
    result = initiative(people, Rules(), FixedDice([3, 7, 3, 8]))
    assert ((("D",), ("B",), ("A", "C")), [8, 7, 3, 3]) == (
        result.groups,
        [roll.total for roll in result.rolls],
    )


@pytest.mark.parametrize("down", [npc("Dead", wounds=1), npc("Out", incapacitated=True)])
def test_initiative_refuses_the_dead_and_incapacitated(down: Character) -> None:
    """A dead or subdued character cannot roll initiative."""
    with pytest.raises(RuleViolation):
        initiative([npc("A"), down], Rules(), FixedDice([3, 3]))


# ---------------------------------------------------------------------------
# Combat


def test_ranged_attack_hits_and_kills_an_ordinary_npc() -> None:
    """Agility+Perception beats Agility, then 2d6 beats Endurance: one wound kills."""
    # Kara: agi 5, per 2, wild 3 -> 5+3; guard agi 6 | damage 4, 2, wild 1 -> 6; soak 5
    dice = FixedDice([5, 2, 3, 6, 4, 2, 1, 5])
    result = attack(AttackKind.RANGED, pc(), npc(), Rules(), dice)
    assert (True, True, State.DEAD, 0) == (
        result.hit,
        result.wounded,
        state_of(result.target_after),
        dice.remaining,
    )
    assert (8, 6, 6, 5) == (
        result.hit_roll.total,
        result.defence_roll.total,
        result.damage_roll.total,
        result.soak_roll.total,
    )
    assert ("agility + perception", "blaster pistol 2d6", "endurance") == (
        result.hit_roll.label,
        result.damage_roll.label,
        result.soak_roll.label,
    )


def test_ranged_damage_against_endurance_armour_and_environment() -> None:
    """The soak is the target's Endurance roll plus armour plus environment."""
    target = npc(armour=1)
    # guard: hit 4+4 vs 3 | damage 4+3 = 7 vs endurance 5 + armour 1 + environment 1
    shooter = npc("Shooter", weapons=(BLASTER,))
    result = attack(
        AttackKind.RANGED, shooter, target, Rules(), FixedDice([4, 4, 3, 4, 3, 5]), environment=1
    )
    assert ((Modifier("armour", 1), Modifier("environment", 1)), 7, 7, False) == (
        result.soak_roll.modifiers,
        result.damage_roll.total,
        result.soak_roll.total,
        result.wounded,
    )


def test_melee_uses_agility_endurance_and_strength_plus_weapon() -> None:
    """Melee: Agility+Endurance to hit, Strength + the weapon's modifier for damage."""
    brute = npc("Brute", weapons=(KNIFE,))
    result = attack(AttackKind.MELEE, brute, npc(), Rules(), FixedDice([3, 3, 2, 4, 4]))
    assert ("agility + endurance", "strength", (Modifier("weapon", 1),), 5, True) == (
        result.hit_roll.label,
        result.damage_roll.label,
        result.damage_roll.modifiers,
        result.damage_roll.total,
        result.wounded,
    )


def test_melee_without_a_melee_weapon_is_unarmed() -> None:
    """A character without a melee weapon fights with bare hands."""
    shooter = npc("Shooter", weapons=(BLASTER,))
    result = attack(AttackKind.MELEE, shooter, npc(), Rules(), FixedDice([1, 1, 5]))
    assert (UNARMED, False, None) == (result.weapon, result.hit, result.damage_roll)


@pytest.mark.parametrize(("ties", "hit"), [(Ties.DEFENDER, False), (Ties.ATTACKER, True)])
def test_r5_ties_on_the_hit_roll(ties: Ties, hit: bool) -> None:
    """R-5: an equal hit roll misses by default, hits by option."""
    dice = FixedDice([3, 3, 6, 2, 5])
    result = attack(AttackKind.MELEE, npc("A"), npc("B"), Rules(Rulings(ties=ties)), dice)
    assert hit == result.hit


@pytest.mark.parametrize(("ties", "wounded"), [(Ties.DEFENDER, False), (Ties.ATTACKER, True)])
def test_r5_ties_on_the_damage_roll(ties: Ties, wounded: bool) -> None:
    """R-5: damage equal to the soak wounds only when ties go to the attacker."""
    dice = FixedDice([3, 3, 1, 4, 4])
    result = attack(AttackKind.MELEE, npc("A"), npc("B"), Rules(Rulings(ties=ties)), dice)
    assert (True, wounded) == (result.hit, result.wounded)


def test_unaware_target_is_hit_automatically_without_a_roll() -> None:
    """A ranged attack on an unaware target skips the hit and defence rolls."""
    dice = FixedDice([6, 6, 1])
    result = attack(
        AttackKind.RANGED, npc("Sniper", weapons=(BLASTER,)), npc(), Rules(), dice, aware=False
    )
    assert (True, None, None, True, Fraction(1), 0) == (
        result.automatic_hit,
        result.hit_roll,
        result.defence_roll,
        result.wounded,
        result.hit_chance,
        dice.remaining,
    )


@pytest.mark.parametrize(("auto", "expected"), [(True, True), (False, False)])
def test_unaware_melee_target_follows_the_ruling(auto: bool, expected: bool) -> None:
    """An unaware target of a melee attack is hit automatically unless the ruling says roll."""
    rules = Rules(Rulings(melee_unaware_auto_hit=auto))
    dice = FixedDice([1, 1, 6, 6, 1] if not auto else [6, 1])
    result = attack(AttackKind.MELEE, npc("A"), npc("B"), rules, dice, aware=False)
    assert expected == result.automatic_hit


@pytest.mark.parametrize(
    ("location", "rulings", "expected"),
    [
        (Location.TORSO, Rulings(), ()),
        (Location.HEAD, Rulings(), (Modifier("head shot", -4),)),
        (Location.ARM, Rulings(), (Modifier("arm shot", -2),)),
        (Location.LEG, Rulings(), (Modifier("leg shot", -2),)),
        (Location.HEAD, Rulings(called_shot_head=-6), (Modifier("head shot", -6),)),
        (Location.LEG, Rulings(called_shot_limb=-1), (Modifier("leg shot", -1),)),
    ],
)
def test_r7_called_shots_penalise_the_hit_roll(location, rulings, expected) -> None:
    """R-7: limb -2, head -4 on the hit roll; the verdict names the location."""
    result = attack(
        AttackKind.MELEE,
        npc("A"),
        npc("B"),
        Rules(rulings),
        FixedDice([4, 4, 6, 1, 1]),
        location=location,
    )
    assert (expected, location) == (result.hit_roll.modifiers, result.location)


def test_called_shot_can_turn_a_hit_into_a_miss() -> None:
    """A head shot's -4 makes 8 against 5 a miss."""
    result = attack(
        AttackKind.MELEE, npc("A"), npc("B"), Rules(), FixedDice([4, 4, 5]), location=Location.HEAD
    )
    assert (4, False) == (result.hit_roll.total, result.hit)


def test_situational_modifier_on_the_hit_roll() -> None:
    """`modifier` is a labelled situational modifier on the hit roll."""
    result = attack(
        AttackKind.MELEE, npc("A"), npc("B"), Rules(), FixedDice([2, 2, 5, 1, 1]), modifier=2
    )
    assert ((Modifier("situational", 2),), True) == (result.hit_roll.modifiers, result.hit)


def test_subdue_incapacitates_instead_of_killing() -> None:
    """A subduing blow that would kill an ordinary NPC leaves him incapacitated."""
    # Kara: 5 + 5 (wild 1) vs 3 | strength 4 (wild 1) + baton 1 = 5 vs 1
    result = attack(
        AttackKind.MELEE,
        pc(),
        npc(),
        Rules(),
        FixedDice([5, 5, 1, 3, 4, 1, 1]),
        weapon=BATON,
        subdue=True,
    )
    assert (True, State.INCAPACITATED, 0) == (
        result.wounded,
        state_of(result.target_after),
        result.target_after.wounds,
    )


def test_subdue_with_bare_hands() -> None:
    """Bare hands can subdue."""
    result = attack(
        AttackKind.MELEE, npc("A"), npc("B"), Rules(), FixedDice([5, 5, 1, 6, 1]), subdue=True
    )
    assert (UNARMED, State.INCAPACITATED) == (result.weapon, state_of(result.target_after))


def test_subdue_needs_the_means() -> None:
    """Subduing with a weapon not flagged for it is refused, naming the weapon."""
    with pytest.raises(RuleViolation) as error:
        attack(AttackKind.RANGED, pc(), npc(), Rules(), FixedDice([]), subdue=True)
    assert "The blaster pistol cannot subdue" in error.value.message


@pytest.mark.parametrize(
    ("kind", "attacker", "target", "weapon"),
    [
        (AttackKind.RANGED, pc(), pc(), None),  # attacking oneself
        (AttackKind.RANGED, pc(wounds=4), npc(), None),  # dead attacker
        (AttackKind.RANGED, pc(incapacitated=True), npc(), None),
        (AttackKind.RANGED, pc(), npc(wounds=1), None),  # dead target
        (AttackKind.MELEE, pc(), npc(incapacitated=True), None),
        (AttackKind.RANGED, npc("A"), npc("B"), None),  # no ranged weapon
        (AttackKind.MELEE, pc(), npc(), BLASTER),  # wrong kind
        (AttackKind.RANGED, pc(), npc(), BATON),
        (AttackKind.RANGED, pc(), npc(), Weapon("broken rifle", WeaponKind.RANGED)),  # no dice
    ],
)
def test_attack_refusals(kind, attacker, target, weapon) -> None:
    """Attacks the rules forbid raise RuleViolation before any die is rolled."""
    dice = FixedDice([])
    with pytest.raises(RuleViolation):
        attack(kind, attacker, target, Rules(), dice, weapon=weapon)


def test_attack_picks_the_first_weapon_of_the_kind() -> None:
    """Without a weapon named, the first of the attack's kind is used."""
    result = attack(
        AttackKind.MELEE,
        pc(weapons=(BLASTER, KNIFE, BATON)),
        npc(),
        Rules(),
        FixedDice([1, 1, 1, 6]),
    )
    assert KNIFE == result.weapon


def test_attack_reports_exact_chances() -> None:
    """An NPC d6 against a d6 with ties to the defender hits 5/12 of the time."""
    a = npc("A", stats=stats(2, 2, 2, 2), background=Background.NONCOMBATANT)
    b = npc("B", stats=stats(2, 2, 2, 2), background=Background.NONCOMBATANT)
    result = attack(AttackKind.MELEE, a, b, Rules(), FixedDice([1, 1, 6]))
    # hit: 2d6 vs d6; damage: d6 vs d6
    hit = Fraction(
        sum(1 for x in range(1, 7) for y in range(1, 7) for z in range(1, 7) if x + y > z), 216
    )
    assert (hit, Fraction(5, 12)) == (result.hit_chance, result.wound_chance)


@pytest.mark.parametrize(("critical_fails", "hit"), [(True, False), (False, True)])
def test_critical_failure_on_the_hit_roll(critical_fails: bool, hit: bool) -> None:
    """A critical hit roll misses whatever its total, unless the ruling only narrates it."""
    # Kara: 1, 1, wild 6 -> 7, critical; guard's agility 3
    rules = Rules(Rulings(critical_fails=critical_fails))
    dice = FixedDice([1, 1, 6, 3, 6, 6, 1, 1])
    assert hit == attack(AttackKind.RANGED, pc(), npc(), rules, dice).hit


@pytest.mark.parametrize(("exceptional_succeeds", "hit"), [(True, True), (False, False)])
def test_exceptional_success_on_the_hit_roll(exceptional_succeeds: bool, hit: bool) -> None:
    """An exceptional hit roll hits whatever its total, unless the ruling only narrates it."""
    # Kara: 2, 3, wild 2 -> 5, exceptional; guard's agility 7
    rules = Rules(Rulings(exceptional_succeeds=exceptional_succeeds))
    dice = FixedDice([2, 3, 2, 7, 6, 6, 1, 1])
    assert hit == attack(AttackKind.RANGED, pc(), npc(), rules, dice).hit


# ---------------------------------------------------------------------------
# Wounds


def test_pc_goes_through_every_wound_state_to_death() -> None:
    """A PC survives three wounds; the fourth kills, and no wound goes past death."""
    rules = Rules()
    kara = pc()
    seen = [state_of(kara)]
    for _ in range(5):
        kara = apply_wounds(kara, 1, rules)
        seen.append(state_of(kara))
    expected = [State.FIGHTING, State.WOUNDED, State.WOUNDED, State.WOUNDED, State.DEAD, State.DEAD]
    assert (expected, 4) == (seen, kara.wounds)


@pytest.mark.parametrize(("survived", "blows_to_kill"), [(0, 1), (2, 3), (3, 4)])
def test_wounds_survived_sets_the_killing_blow(survived: int, blows_to_kill: int) -> None:
    """Ordinary NPCs die at the first wound; tough ones survive 2 or 3."""
    tough = npc(wounds_survived=survived)
    assert (State.DEAD, False) == (
        state_of(apply_wounds(tough, blows_to_kill, Rules())),
        state_of(apply_wounds(tough, blows_to_kill - 1, Rules())) == State.DEAD,
    )


def test_subduing_wounds_stop_short_of_death() -> None:
    """Subduing wounds wound as usual until the killing one, which incapacitates."""
    kara = apply_wounds(pc(), 10, Rules(), subdue=True)
    assert (3, True, State.INCAPACITATED) == (kara.wounds, kara.incapacitated, state_of(kara))


def test_a_lethal_wound_kills_an_incapacitated_character() -> None:
    """A real wound on a subdued character kills."""
    kara = apply_wounds(apply_wounds(pc(), 4, Rules(), subdue=True), 1, Rules())
    assert State.DEAD == state_of(kara)


def test_heal() -> None:
    """Healing removes wounds; healed to 0, a subdued character is back on his feet."""
    kara = pc(wounds=3, incapacitated=True)
    assert ((2, True), (0, False), (0, False)) == (
        (heal(kara, 1).wounds, heal(kara, 1).incapacitated),
        (heal(kara).wounds, heal(kara).incapacitated),
        (heal(kara, 9).wounds, heal(kara, 9).incapacitated),
    )


def test_heal_refuses_the_dead() -> None:
    """The dead are beyond healing."""
    with pytest.raises(RuleViolation):
        heal(pc(wounds=4))


# ---------------------------------------------------------------------------
# Magic


def mage(points: int = 2, **changes: object) -> Character:
    """An unnamed mage with a Force parameter holding a d4 and a d6 technique."""
    force = MagicParameter(
        "Force", points, (Technique("Telekinesis", 4), Technique("Mind Trick", 6))
    )
    return npc("Ada", magic=(force,), **changes)


@pytest.mark.parametrize(
    ("face", "d4_tier", "d6_tier"),
    [
        (1, False, False),
        (2, False, False),
        (3, False, False),
        (4, True, False),
        (5, True, False),
        (6, True, True),
    ],
)
def test_seed_magic_example(face: int, d4_tier: bool, d6_tier: bool) -> None:
    """The seed: with a d6, a d4-tier technique succeeds on 4-6, a d6-tier one only on 6."""
    assert (d4_tier, d6_tier) == (
        cast(mage(), "Telekinesis", Rules(), FixedDice([face])).success,
        cast(mage(), "Mind Trick", Rules(), FixedDice([face])).success,
    )


def test_cast_chance_of_the_seed_example() -> None:
    """With a d6, the d4 tier succeeds half the time and the d6 tier a sixth."""
    assert (Fraction(1, 2), Fraction(1, 6)) == (
        cast(mage(), "telekinesis", Rules(), FixedDice([1])).chance,
        cast(mage(), "MIND TRICK", Rules(), FixedDice([1])).chance,
    )


def test_named_caster_rolls_the_wild_die() -> None:
    """A named mage uses the wild d6 on a cast: 2 and a wild 6 casts the d6 tier."""
    result = cast(mage(named=True), "Mind Trick", Rules(), FixedDice([2, 6]))
    assert (6, 6, True, "Force") == (
        result.roll.total,
        result.needed,
        result.success,
        result.parameter,
    )


@pytest.mark.parametrize(("critical_fails", "success"), [(True, False), (False, True)])
def test_critical_cast_fails(critical_fails: bool, success: bool) -> None:
    """A 1 beside a wild 6 is a critical failure: the cast fails unless the ruling narrates."""
    rules = Rules(Rulings(critical_fails=critical_fails))
    assert success == cast(mage(named=True), "Telekinesis", rules, FixedDice([1, 6])).success


@pytest.mark.parametrize(("exceptional_succeeds", "success"), [(True, True), (False, False)])
def test_exceptional_cast_succeeds(exceptional_succeeds: bool, success: bool) -> None:
    """A 3 beside a wild 3 is exceptional: the cast succeeds unless the ruling narrates."""
    rules = Rules(Rulings(exceptional_succeeds=exceptional_succeeds))
    assert success == cast(mage(named=True), "Mind Trick", rules, FixedDice([3, 3])).success


def test_cast_takes_the_wound_penalty_and_a_modifier() -> None:
    """Pain shock and a situational modifier apply to casts."""
    ada = replace(mage(named=True), kind=Kind.PC, wounds_survived=3, wounds=1)
    result = cast(ada, "Telekinesis", Rules(), FixedDice([4, 1]), modifier=1)
    assert ((Modifier("1 wound", -1), Modifier("situational", 1)), 4, True) == (
        result.roll.modifiers,
        result.roll.total,
        result.success,
    )


def test_unknown_technique_lists_the_characters_techniques() -> None:
    """Casting an unknown technique names the ones the character has."""
    with pytest.raises(UnknownName) as error:
        cast(mage(), "Lightning", Rules(), FixedDice([6]))
    assert "Ada's techniques are Telekinesis and Mind Trick." in error.value.message


def test_cast_without_magic() -> None:
    """A character with no magic is told so."""
    with pytest.raises(UnknownName) as error:
        cast(npc(), "Lightning", Rules(), FixedDice([6]))
    assert "knows no techniques" in error.value.message


# ---------------------------------------------------------------------------
# Locations, rulings and the race table


@pytest.mark.parametrize(
    ("word", "location"),
    [
        ("head", Location.HEAD),
        ("Torso", Location.TORSO),
        ("chest", Location.TORSO),
        ("ARM", Location.ARM),
        ("leg", Location.LEG),
    ],
)
def test_parse_location(word: str, location: Location) -> None:
    """Locations are read from a post's words."""
    assert location == parse_location(word)


def test_parse_location_refuses_unknown_words() -> None:
    """An unknown location raises UnknownName."""
    with pytest.raises(UnknownName):
        parse_location("tail")


def test_rulings_defaults_follow_rules_md() -> None:
    """The defaults are RULES.md's R-1..R-7 and the added options."""
    expected = {
        "wild_die_replaces": "lowest",
        "exceptional_on": "any",
        "critical_when": "every_die",
        "critical_beats_exceptional": True,
        "ties": "defender",
        "wound_penalty": 1,
        "wound_penalty_applies_to": "pcs",
        "wound_penalty_mode": "flat",
        "called_shot_limb": -2,
        "called_shot_head": -4,
        "critical_for_unnamed": False,
        "wild_die_on_damage": True,
        "critical_fails": True,
        "exceptional_succeeds": False,
        "melee_unaware_auto_hit": False,
        "magic_points": "budget",
    }
    assert expected == Rulings().to_mapping()


def test_rulings_from_mapping_converts_values() -> None:
    """Strings from config.toml become the rulings' enums."""
    rulings = Rulings.from_mapping(
        {
            "ties": "attacker",
            "wild_die_replaces": "highest",
            "wound_penalty": 2,
            "critical_fails": False,
        }
    )
    assert (Ties.ATTACKER, WildReplaces.HIGHEST, 2, False) == (
        rulings.ties,
        rulings.wild_die_replaces,
        rulings.wound_penalty,
        rulings.critical_fails,
    )


def test_rulings_from_mapping_lists_every_bad_key() -> None:
    """Every bad name and value is reported at once, with what is allowed."""
    with pytest.raises(ConfigError) as error:
        Rulings.from_mapping(
            {
                "ties": "both",
                "wound_penalty": "one",
                "critical_fails": 1,
                "tie": "attacker",
                "called_shot_head": 3,
            }
        )
    message = error.value.message
    expected = [
        "have 5 problems:",
        '- ties = \'both\': allowed values are "defender", "attacker".',
        "- wound_penalty = 'one': allowed values are a whole number from 0 to 6.",
        "- critical_fails = 1: allowed values are true, false.",
        "- 'tie' is not a ruling",
        "- called_shot_head = 3: allowed values are a whole number from -20 to 0.",
    ]
    assert expected == [part for part in expected if part in message]


def test_races_toml_loads() -> None:
    """The shipped race table loads, with humans capped at 3 and unmodified."""
    races = load_races(tomllib.loads((DATA / "races.toml").read_text(encoding="utf-8")))
    assert (Race("human", 3, {}), True) == (
        races["human"],
        any(race.modifiers for race in races.values()),
    )


def test_load_races_lists_every_problem() -> None:
    """A bad race table reports each problem."""
    with pytest.raises(ConfigError) as error:
        load_races(
            {
                "human": {"cap": 9},
                "elf": {"modifiers": {"charm": 1, "agi": "x"}},
                "orc": {"colour": "green"},
                "imp": 3,
            }
        )
    message = error.value.message
    expected = [
        "[human]: cap = 9",
        "'charm' is not a stat",
        "modifiers.agi = 'x'",
        "unknown key 'colour'",
        "[imp]: expected a table",
    ]
    assert expected == [part for part in expected if part in message]
