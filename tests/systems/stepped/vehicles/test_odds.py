"""Exact vehicle odds: brute force, and chi-square against 100,000 seeded rolls."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

from referee.base.dice import FixedDice, SeededDice
from referee.systems.stepped import Rulings
from referee.systems.stepped.vehicles import (
    Craft,
    Crewed,
    Param,
    Size,
    Vehicle,
    attack,
    stat_roll,
)
from referee.systems.stepped.vehicles.odds import (
    ScaledSpec,
    contest_chance,
    ordinal_distribution,
    total_distribution,
)
from referee.systems.stepped.vehicles.rolls import _plan_params, _roll, _wins
from referee.testing.odds import chi_square_p
from tests.systems.stepped.vehicles.test_vehicles import RULES, TANK

ROLLS = 100_000
P_FLOOR = 1e-4


NAMED = Vehicle(
    "Kestrel",
    Craft.SHIP,
    Size.LIGHT,
    {Param.WEAPON: 12, Param.ACCELERATION: 6, Param.ARMOUR: 8, Param.SENSORS: 6},
    named=True,
)
SPEEDER = Vehicle(
    "Speeder",
    Craft.VEHICLE,
    Size.LIGHT,
    {Param.WEAPON: 6, Param.SPEED: 6, Param.ARMOUR: 4, Param.SENSORS: 4},
    named=True,
)


def test_d4_to_d10_with_the_ordinal_are_uniform_on_their_range() -> None:
    """A plain d4 parameter is 10-49, a d10 10-109, each value equally likely."""
    d4 = total_distribution(ScaledSpec((4,), False, False, True), Rulings())
    d10 = total_distribution(ScaledSpec((10,), False, False, True), Rulings())
    assert (list(range(10, 50)), {Fraction(1, 40)}, list(range(10, 110)), {Fraction(1, 100)}) == (
        list(d4),
        set(d4.values()),
        list(d10),
        set(d10.values()),
    )


def test_exact_odds_match_brute_force_through_the_rules() -> None:
    """A named two-die roll's distribution equals rolling every face, wild and d10 for real."""
    counts: Counter = Counter()
    speeder = Crewed(SPEEDER)
    for faces in itertools.product(range(1, 7), range(1, 7), range(1, 11)):
        roll = stat_roll(speeder, Param.SPEED, RULES, FixedDice(faces)).roll
        counts[roll.total] += 1
    brute = {total: Fraction(n, 360) for total, n in counts.items()}
    assert brute == total_distribution(ScaledSpec((6,), True, True, True), Rulings())


def test_stat_roll_frequencies_match_the_exact_distribution() -> None:
    """100,000 named d12 Weapon power rolls fit the exact odds; forgetting the wild d6 fails."""
    dice = SeededDice(2012)
    observed = Counter(
        stat_roll(Crewed(NAMED), Param.WEAPON, RULES, dice).roll.total for _ in range(ROLLS)
    )
    # the bare stat roll of a ship is plain (ship against ship): d12 with the wild d6
    exact = total_distribution(ScaledSpec((12,), True, True, False), Rulings())
    wrong = total_distribution(ScaledSpec((12,), True, False, False), Rulings())
    assert (True, True) == (
        chi_square_p(observed, exact, ROLLS) > P_FLOOR,
        chi_square_p(observed, wrong, ROLLS) < P_FLOOR,
    )


def test_ordinal_roll_frequencies_match_the_exact_distribution() -> None:
    """100,000 named d6 Speed rolls with the ordinal fit the exact odds; a plain d6 x 10 fails."""
    dice = SeededDice(2010)
    observed = Counter(
        stat_roll(Crewed(SPEEDER), Param.SPEED, RULES, dice).roll.total for _ in range(ROLLS)
    )
    exact = total_distribution(ScaledSpec((6,), True, True, True), Rulings())
    wrong = total_distribution(ScaledSpec((6,), True, False, True), Rulings())  # no wild d6
    assert (True, True) == (
        chi_square_p(observed, exact, ROLLS) > P_FLOOR,
        chi_square_p(observed, wrong, ROLLS) < P_FLOOR,
    )


def test_vehicle_hit_frequencies_match_the_exact_chance() -> None:
    """100,000 tank hit rolls against a named speeder's Speed fit the exact chance; +2% fails."""
    dice, rulings = SeededDice(2005), RULES.rulings
    hit_plan = _plan_params(Crewed(TANK), [Param.SPEED, Param.SENSORS], (), True)
    defence_plan = _plan_params(Crewed(SPEEDER), [Param.SPEED], (), True)
    hits = Counter(
        _wins(_roll(hit_plan, rulings, dice), _roll(defence_plan, rulings, dice), rulings)
        for _ in range(ROLLS)
    )
    chance = attack("ranged", Crewed(TANK), Crewed(SPEEDER), RULES, SeededDice(1)).hit_chance
    wrong = chance + Fraction(1, 50)
    assert (True, True, chance) == (
        chi_square_p(hits, {False: 1 - chance, True: chance}, ROLLS) > P_FLOOR,
        chi_square_p(hits, {False: 1 - wrong, True: wrong}, ROLLS) < P_FLOOR,
        contest_chance(hit_plan.spec(), defence_plan.spec(), rulings),
    )


def test_contest_with_the_ordinal_against_plain_dice_is_certain() -> None:
    """A d4 with the ordinal (10+) always beats a plain d8 (at most 8)."""
    assert Fraction(1) == contest_chance(
        ScaledSpec((4,), False, False, True), ScaledSpec((8,), False, False, False), Rulings()
    )


def test_grades_are_kept() -> None:
    """A named d4 showing 1 (a quarter of rolls) fails critically, graded -1, whatever its value."""
    d = ordinal_distribution(ScaledSpec((4,), True, True, True), Rulings())
    assert Fraction(1, 4) == sum(p for (grade, _), p in d.items() if grade == -1)
