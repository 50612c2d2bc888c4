"""Exact odds of hits: §5.2's probability figures, and the dice against them empirically."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as F

import pytest

from referee.base.dice import SeededDice
from referee.systems.hits.odds import (
    at_least,
    group_odds,
    hits_distribution,
    level_odds,
    opposed_odds,
    quick_odds,
)
from referee.systems.hits.rolls import (
    Outcome,
    PoolSpec,
    QuickSpec,
    roll_group,
    roll_level,
    roll_opposed,
    roll_pool,
    roll_quick,
)
from referee.systems.hits.rulings import Rulings
from referee.testing.odds import chi_square_p

SIGNIFICANCE = 1e-4  # a seeded run either passes for ever or fails for ever; this is the bar


def test_one_die_table():
    """§5.2: one die scores 0/1/2/≥3 hits with 1/2, 5/12, 5/72, 1/72."""
    assert (F(1, 2), F(5, 12), F(5, 72)) == hits_distribution(PoolSpec(1), 3)
    assert F(1, 72) == at_least(PoolSpec(1), 3)


def test_four_dice_level_one():
    """§5.2: 4 dice at Level 1 fail/partial/success 13/48, 115/216, 85/432."""
    expected = {Outcome.FAIL: F(13, 48), Outcome.PARTIAL: F(115, 216), Outcome.SUCCESS: F(85, 432)}
    assert expected == level_odds(PoolSpec(4), 1)


def test_four_dice_advantage_one():
    """§5.2: with Advantage 1 (face, crit dice included) 23/243, 1135/2187, 845/2187."""
    expected = {
        Outcome.FAIL: F(23, 243),
        Outcome.PARTIAL: F(1135, 2187),
        Outcome.SUCCESS: F(845, 2187),
    }
    assert expected == level_odds(PoolSpec(4, advantage=1), 1)


def test_opposed_four_against_three():
    """§5.2: 4 dice against 3, ties rerolled, wins 0.6589 (0.5184 won, 0.2133 tied at first)."""
    odds = opposed_odds([PoolSpec(4), PoolSpec(3)])
    assert odds is not None
    assert [0.5184, 0.2133, 0.6589] == [
        round(float(p), 4) for p in (odds.first_round[0], odds.first_round_tie, odds.wins[0])
    ]
    assert odds.truncated <= F(1, 10**12)
    assert abs(1 - sum(odds.wins)) <= odds.truncated * 10


def test_distribution_sums_to_one_for_every_modifier():
    """For any net modifier the exact distribution plus its exact tail is 1."""
    for modifier in range(-6, 7):
        spec = PoolSpec(3, advantage=max(0, modifier), disadvantage=max(0, -modifier))
        assert 1 == sum(hits_distribution(spec, 12), F(0)) + at_least(spec, 12)


def test_quick_odds():
    """A quick roll of 3 dice: no hit 1/8, one hit 3/8, more 1/2."""
    expected = {Outcome.FAIL: F(1, 8), Outcome.PARTIAL: F(3, 8), Outcome.SUCCESS: F(1, 2)}
    assert expected == quick_odds(QuickSpec((2, 2, 2)))


def test_group_odds_one_member_equals_its_own_roll():
    """A group of one has the odds of that roller's own roll."""
    assert level_odds(PoolSpec(3), 2) == group_odds([(PoolSpec(3), 2)])


def test_group_odds_highest_level_ruling():
    """R-42 highest: fail is every member below the highest Level's partial threshold."""
    odds = group_odds([(PoolSpec(2), 1), (PoolSpec(1), 2)], Rulings(group_level="highest"))
    below = (1 - at_least(PoolSpec(2), 3)) * (1 - at_least(PoolSpec(1), 3))
    assert below == odds[Outcome.FAIL]


def test_opposed_odds_three_way_are_a_distribution():
    """Three rollers, ties rerolled among the tied: the chances of winning sum to 1."""
    odds = opposed_odds([PoolSpec(2), PoolSpec(2), PoolSpec(3)])
    assert odds is not None
    assert odds.wins[0] == odds.wins[1]
    assert abs(1 - sum(odds.wins)) <= F(1, 10**9)


def test_pool_hits_match_exact_odds_over_100k_rolls():
    """100k seeded 4-dice pools: the hit counts fit the exact distribution (chi-square)."""
    rolls, tail = 100_000, 8
    dice = SeededDice(20251123)
    observed = Counter(min(tail, roll_pool(PoolSpec(4), dice).hits) for _ in range(rolls))
    exact = dict(enumerate(hits_distribution(PoolSpec(4), tail)))
    exact[tail] = at_least(PoolSpec(4), tail)
    assert chi_square_p(observed, exact, rolls) > SIGNIFICANCE


@pytest.mark.parametrize(
    "rulings", [Rulings(), Rulings(advantage="extra_dice"), Rulings(crit_face="modified")]
)
def test_advantage_outcomes_match_exact_odds(rulings):
    """20k seeded rolls with Advantage 2 and Disadvantage 1 fit the exact Level table."""
    rolls, spec = 20_000, PoolSpec(3, advantage=2, disadvantage=1)
    dice = SeededDice(7)
    observed = Counter(roll_level(spec, 1, dice, rulings).outcome for _ in range(rolls))
    exact = level_odds(spec, 1, rulings)
    observed_by_index = Counter({list(Outcome).index(o): n for o, n in observed.items()})
    exact_by_index = {list(Outcome).index(o): p for o, p in exact.items()}
    assert chi_square_p(observed_by_index, exact_by_index, rolls) > SIGNIFICANCE


def test_opposed_wins_match_exact_odds():
    """20k seeded opposed rolls of 4 dice against 3 fit the exact chance of winning."""
    rolls = 20_000
    dice = SeededDice(11)
    sides = [("A", PoolSpec(4)), ("B", PoolSpec(3))]
    observed = Counter(roll_opposed(sides, dice).winners == ("A",) for _ in range(rolls))
    odds = opposed_odds([PoolSpec(4), PoolSpec(3)])
    assert odds is not None
    exact = {True: odds.wins[0], False: 1 - odds.wins[0]}
    assert chi_square_p(observed, exact, rolls) > SIGNIFICANCE


def test_group_and_quick_outcomes_match_exact_odds():
    """20k seeded group rolls and 20k quick rolls fit their exact outcome chances."""
    rolls = 20_000
    dice = SeededDice(13)
    members = [("A", PoolSpec(2), 1), ("B", PoolSpec(3), 2)]
    index = {o: i for i, o in enumerate(Outcome)}
    group = Counter(index[roll_group(members, dice).outcome] for _ in range(rolls))
    exact = group_odds([(spec, level) for _, spec, level in members])
    assert chi_square_p(group, {index[o]: p for o, p in exact.items()}, rolls) > SIGNIFICANCE
    spec = QuickSpec((3, 5))
    quick = Counter(index[roll_quick(spec, dice).outcome] for _ in range(rolls))
    exact = quick_odds(spec)
    assert chi_square_p(quick, {index[o]: p for o, p in exact.items()}, rolls) > SIGNIFICANCE
