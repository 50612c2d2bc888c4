"""Exact stepped odds: against brute force, and against 100,000 seeded rolls."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from fractions import Fraction

import pytest

from referee.base.dice import FixedDice, SeededDice
from referee.systems.stepped import (
    Character,
    CriticalWhen,
    ExceptionalOn,
    Kind,
    Modifier,
    Rules,
    Rulings,
    Stat,
    WildReplaces,
    is_named,
    roll_dice_for,
    roll_trait,
)
from referee.systems.stepped import odds as stepped_odds
from referee.systems.stepped.odds import (
    RollSpec,
    beats,
    cast_chance,
    contest_chance,
    roll_distribution,
    standing_distribution,
    trait_distribution,
)
from referee.systems.stepped.rolls import _execute, _Plan
from referee.testing.odds import chi_square_p

ROLLS = 100_000
P_FLOOR = 1e-4


def brute_force(sides: tuple[int, ...], named: bool, wild: bool, rulings: Rulings) -> dict:
    """P(total, exceptional, critical) by rolling every combination through the rules."""
    c = Character("X", Kind.PC if named else Kind.NPC, dict.fromkeys(Stat, 1))
    rules = Rules(Rulings(**{**rulings.to_mapping(), "wild_die_on_damage": wild}))
    counts: Counter = Counter()
    wild_faces = range(1, 7) if wild else [None]
    for faces in itertools.product(*(range(1, s + 1) for s in sides)):
        for wild_face in wild_faces:
            dice = FixedDice([*faces, *([wild_face] if wild_face else [])])
            roll = _roll_mixed(c, sides, rules, dice)
            counts[(roll.total, roll.exceptional, roll.critical)] += 1
    total = sum(counts.values())
    return {key: Fraction(count, total) for key, count in counts.items()}


def _roll_mixed(c: Character, sides: tuple[int, ...], rules: Rules, dice: FixedDice):
    """One roll of any dice (even off the ladder), through the code every rule rolls with."""
    named = is_named(c)
    plan = _Plan(c.name, "x", sides, named, named and rules.rulings.wild_die_on_damage, ())
    return _execute(plan, rules.rulings, dice)


ALL_RULINGS = [
    Rulings(
        wild_die_replaces=replaces,
        exceptional_on=exceptional_on,
        critical_when=critical_when,
        critical_beats_exceptional=beats_exceptional,
        critical_for_unnamed=for_unnamed,
    )
    for replaces in WildReplaces
    for exceptional_on in ExceptionalOn
    for critical_when in CriticalWhen
    for beats_exceptional in (True, False)
    for for_unnamed in (True, False)
]


@pytest.mark.parametrize(
    "sides", [(4,), (6,), (20,), (4, 6), (8, 8), (10, 4), (4, 4, 4), (2, 6, 3)]
)
@pytest.mark.parametrize(("named", "wild"), [(True, True), (False, False), (True, False)])
def test_distribution_matches_brute_force_under_every_ruling(sides, named, wild) -> None:
    """The DP equals enumerating every face, for every combination of R-1..R-4 options."""
    mismatched = [
        rulings
        for rulings in ALL_RULINGS
        if roll_distribution(sides, named, 0, rulings, wild=wild)
        != brute_force(sides, named, wild, rulings)
    ]
    assert [] == mismatched


def test_distributions_sum_to_one_and_shift_by_the_modifier() -> None:
    """A distribution is a probability and a modifier moves it."""
    base = trait_distribution((8, 6), True, 0, Rulings())
    shifted = trait_distribution((8, 6), True, -2, Rulings())
    assert (Fraction(1), {k - 2: v for k, v in base.items()}) == (sum(base.values()), shifted)


def test_many_dice_are_fast() -> None:
    """Ten d12 (and ten d20 under the slowest options) take well under a second, uncached."""
    stepped_odds.clear_caches()
    start = time.perf_counter()
    twelve = trait_distribution((12,) * 10, True, 0, Rulings())
    twenty = trait_distribution(
        (20,) * 10,
        True,
        0,
        Rulings(wild_die_replaces=WildReplaces.HIGHEST, critical_when=CriticalWhen.ANY_DIE),
    )
    elapsed = time.perf_counter() - start
    assert (True, Fraction(1), Fraction(1)) == (
        elapsed < 2.0,
        sum(twelve.values()),
        sum(twenty.values()),
    )


def test_ten_d12_agrees_with_a_direct_check() -> None:
    """P(ten d12 all 12, with or without the wild die) is 12**-10."""
    d = trait_distribution((12,) * 10, True, 0, Rulings())
    assert Fraction(1, 12**10) == d[120]


def test_beats_and_ties() -> None:
    """d6 against d6: 15/36 strictly higher, 21/36 with ties to the attacker."""
    d6 = {face: Fraction(1, 6) for face in range(1, 7)}
    assert (Fraction(15, 36), Fraction(21, 36)) == (
        beats(d6, d6, "defender"),
        beats(d6, d6, "attacker"),
    )


def test_standings_grade_only_criticals_by_default() -> None:
    """R-58: a named d4's exceptional successes do not rise above ordinary totals."""
    d = standing_distribution(RollSpec((4,), True, True), Rulings())
    assert (Fraction(1, 4), Fraction(0)) == (
        sum(p for (grade, _), p in d.items() if grade == -1),
        sum(p for (grade, _), p in d.items() if grade == 1),
    )


def test_standings_put_grades_before_totals() -> None:
    """A named d4: a critical sits below every ordinary total, an exceptional above by option."""
    d = standing_distribution(RollSpec((4,), True, True), Rulings(exceptional_succeeds=True))
    # critical: die 1 (any wild); exceptional: die == wild for 2..4
    assert (Fraction(1, 4), Fraction(3, 24)) == (
        sum(p for (grade, _), p in d.items() if grade == -1),
        sum(p for (grade, _), p in d.items() if grade == 1),
    )


@pytest.mark.parametrize(
    "rulings",
    [
        Rulings(),
        Rulings(ties="attacker"),
        Rulings(critical_fails=False, exceptional_succeeds=False),
    ],
)
def test_contest_chance_matches_brute_force(rulings: Rulings) -> None:
    """The exact hit chance of a named d8+d6 against a named d8 equals enumeration."""
    attack, defence = RollSpec((8, 6), True, True, -1), RollSpec((8,), True, True)
    a = brute_force((8, 6), True, True, rulings)
    d = brute_force((8,), True, True, rulings)
    grade = stepped_odds.grade
    wins = Fraction(0)
    for (ta, ea, ca), pa in a.items():
        for (td, ed, cd), pd in d.items():
            sa, sd = (grade(ea, ca, rulings), ta - 1), (grade(ed, cd, rulings), td)
            if sa > sd or (sa == sd and rulings.ties == "attacker"):
                wins += pa * pd
    assert wins == contest_chance(attack, defence, rulings)


def test_cast_chance_seed_example() -> None:
    """Unnamed d6: 4+ is 1/2, 6 is 1/6."""
    spec = RollSpec((6,), False, False)
    assert (Fraction(1, 2), Fraction(1, 6)) == (
        cast_chance(spec, 4, Rulings()),
        cast_chance(spec, 6, Rulings()),
    )


# ---------------------------------------------------------------------------
# Empirical against exact


KARA = Character(
    "Kara",
    Kind.PC,
    {Stat.STRENGTH: 2, Stat.AGILITY: 3, Stat.ENDURANCE: 3, Stat.PERCEPTION: 2},
    wounds_survived=3,
    wounds=1,
)
GUARD = Character(
    "Guard",
    Kind.NPC,
    {Stat.STRENGTH: 3, Stat.AGILITY: 3, Stat.ENDURANCE: 2, Stat.PERCEPTION: 3},
    armour=1,
)


def standing(roll, rulings: Rulings) -> tuple[int, int]:
    """The (grade, total) a contest compares."""
    return (stepped_odds.grade(roll.exceptional, roll.critical, rulings), roll.total)


def test_stat_roll_frequencies_match_the_exact_distribution() -> None:
    """100,000 named d8 rolls with the wild d6 (and a -1 wound) fit the exact odds."""
    dice, rules = SeededDice(2002), Rules()
    observed = Counter(roll_trait(KARA, [Stat.AGILITY], rules, dice).total for _ in range(ROLLS))
    exact = trait_distribution((8,), True, -1, Rulings())
    wrong = trait_distribution((8,), False, -1, Rulings())  # forgets the wild die
    assert (True, True) == (
        chi_square_p(observed, exact, ROLLS) > P_FLOOR,
        chi_square_p(observed, wrong, ROLLS) < P_FLOOR,
    )


def test_hit_roll_frequencies_match_the_exact_distribution() -> None:
    """100,000 Agility+Perception hit rolls against Agility fit the exact hit odds."""
    dice, rules = SeededDice(2003), Rules()
    rulings = rules.rulings
    totals: Counter = Counter()
    hits: Counter = Counter()
    for _ in range(ROLLS):
        hit = roll_trait(
            KARA, [Stat.AGILITY, Stat.PERCEPTION], rules, dice, [Modifier("arm shot", -2)]
        )
        defence = roll_trait(GUARD, [Stat.AGILITY], rules, dice)
        totals[standing(hit, rulings)] += 1
        hits[standing(hit, rulings) > standing(defence, rulings)] += 1
    spec = RollSpec((8, 6), True, True, -3)
    exact_totals = standing_distribution(spec, rulings)
    chance = contest_chance(spec, RollSpec((8,), False, False), rulings)
    wrong = Fraction(chance.numerator + chance.denominator // 50, chance.denominator)  # +2%
    assert (True, True, True) == (
        chi_square_p(totals, exact_totals, ROLLS) > P_FLOOR,
        chi_square_p(hits, {False: 1 - chance, True: chance}, ROLLS) > P_FLOOR,
        chi_square_p(hits, {False: 1 - wrong, True: wrong}, ROLLS) < P_FLOOR,
    )


def test_damage_against_defence_frequencies_match_the_exact_chance() -> None:
    """100,000 named 2d6 damage rolls against Endurance + armour fit the exact wound odds."""
    dice, rules = SeededDice(2004), Rules()
    rulings = rules.rulings
    damage_totals: Counter = Counter()
    wounds: Counter = Counter()
    for _ in range(ROLLS):
        damage = roll_dice_for(KARA, "blaster 2d6", 2, 6, rules, dice)
        soak = roll_trait(GUARD, [Stat.ENDURANCE], rules, dice, [Modifier("armour", 1)])
        damage_totals[damage.total] += 1
        wounds[standing(damage, rulings) > standing(soak, rulings)] += 1
    damage_spec = RollSpec((6, 6), True, True, -1)
    chance = contest_chance(damage_spec, RollSpec((6,), False, False, 1), rulings)
    no_wild = contest_chance(
        RollSpec((6, 6), True, False, -1), RollSpec((6,), False, False, 1), rulings
    )
    assert (True, True, True) == (
        chi_square_p(damage_totals, trait_distribution((6, 6), True, -1, rulings), ROLLS) > P_FLOOR,
        chi_square_p(wounds, {False: 1 - chance, True: chance}, ROLLS) > P_FLOOR,
        chi_square_p(wounds, {False: 1 - no_wild, True: no_wild}, ROLLS) < P_FLOOR,
    )
