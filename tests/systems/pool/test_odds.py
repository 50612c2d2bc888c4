"""Exact pool odds: §2's table, every face enumerated, and 100,000 seeded rolls."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from referee.base.dice import FixedDice, SeededDice
from referee.systems.pool.odds import BOTCH, at_least, band_chance, compare, net_distribution
from referee.systems.pool.rolls import Outcome, PoolSpec, RollRequest, Table, plan_roll, roll_plan
from referee.systems.pool.rulings import PoolRulings
from referee.testing.odds import chi_square_p

ROLLS = 100_000
P_FLOOR = 1e-4


def outcome_key(roll) -> int:
    """A rolled pool as the distribution keys it: BOTCH, or the net successes."""
    return BOTCH if roll.outcome is Outcome.BOTCH else roll.net


def plan(dice: int, difficulty: int, willpower: bool = False, free_botch: bool = False):
    """The plan of a bare pool, with Willpower and the free botch set by hand."""
    made = plan_roll(RollRequest(PoolSpec(dice=dice), difficulty=difficulty), None, Table())
    return type(made)(**{**made.__dict__, "willpower": willpower, "free_botch": free_botch})


@pytest.mark.parametrize(
    ("dice", "difficulty", "botch", "failure", "one_or_more", "three_or_more"),
    [
        (6, 6, 0.0115, 0.1120, 0.8765, 0.4944),
        (5, 8, 0.0903, 0.2606, 0.6491, 0.1280),
        (6, 7, 0.0310, 0.1696, 0.7994, 0.3354),
    ],
)
def test_rules_odds_table(dice, difficulty, botch, failure, one_or_more, three_or_more) -> None:
    """§2's exact odds table, to four places."""
    d = net_distribution(dice, difficulty)
    assert (botch, failure, one_or_more, three_or_more) == tuple(
        round(float(p), 4) for p in (d[BOTCH], d[0], at_least(d, 1), at_least(d, 3))
    )


@pytest.mark.parametrize("dice", [1, 2, 3])
@pytest.mark.parametrize("difficulty", [2, 6, 9, 10])
@pytest.mark.parametrize(
    ("willpower", "free_botch"), [(False, False), (True, False), (False, True)]
)
def test_distribution_equals_rolling_every_face(dice, difficulty, willpower, free_botch) -> None:
    """The closed form equals enumerating all 10**n faces through the roller itself."""
    counts: Counter = Counter()
    for faces in itertools.product(range(1, 11), repeat=dice):
        counts[
            outcome_key(
                roll_plan(
                    plan(dice, difficulty, willpower, free_botch), PoolRulings(), FixedDice(faces)
                )
            )
        ] += 1
    enumerated = {key: Fraction(count, 10**dice) for key, count in sorted(counts.items())}
    assert enumerated == net_distribution(dice, difficulty, willpower, free_botch)


def test_empirical_frequencies_match_the_exact_odds() -> None:
    """100,000 seeded rolls of 6 dice at difficulty 7 fall as the exact distribution says."""
    source = SeededDice(20261123)
    six = plan(6, 7)
    observed = Counter(outcome_key(roll_plan(six, PoolRulings(), source)) for _ in range(ROLLS))
    assert chi_square_p(observed, net_distribution(6, 7), ROLLS) > P_FLOOR


def test_empirical_frequencies_with_willpower() -> None:
    """20,000 seeded Willpower rolls of 3 dice at 8 match the shifted, botch-free distribution."""
    source = SeededDice(7)
    three = plan(3, 8, willpower=True)
    rolls = 20_000
    observed = Counter(outcome_key(roll_plan(three, PoolRulings(), source)) for _ in range(rolls))
    assert chi_square_p(observed, net_distribution(3, 8, willpower=True), rolls) > P_FLOOR


def test_band_chance_pools_the_last_label() -> None:
    """With the default three labels, net 5 shows P(3 or more); net 2 shows P(exactly 2)."""
    d = net_distribution(8, 6)
    assert (at_least(d, 3), d[2]) == (band_chance(d, 5, 3), band_chance(d, 2, 3))


def test_big_pools_stay_exact_and_quick() -> None:
    """A thousand dice still sum to exactly one."""
    assert Fraction(1) == sum(net_distribution(1000, 6).values())


def test_compare_against_enumeration() -> None:
    """P(win / tie / lose) of 2 dice at 6 against 2 dice at 7 equals counting all 10**4 faces."""
    first, second = plan(2, 6), plan(2, 7)
    counts: Counter = Counter()
    for faces in itertools.product(range(1, 11), repeat=4):
        dice = FixedDice(faces)
        a = outcome_key(roll_plan(first, PoolRulings(), dice))
        b = outcome_key(roll_plan(second, PoolRulings(), dice))
        counts[(a > b) - (a < b)] += 1
    exact = compare(net_distribution(2, 6), net_distribution(2, 7))
    assert (
        Fraction(counts[1], 10**4),
        Fraction(counts[0], 10**4),
        Fraction(counts[-1], 10**4),
    ) == exact
