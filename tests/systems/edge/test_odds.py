"""Exact edge odds: §4.2's table, each policy against brute force, and 100,000 seeded moves."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from referee.base.dice import FixedDice, SeededDice
from referee.systems.edge.bands import Band
from referee.systems.edge.moves import Actor, MoveRequest, Table, resolve_move
from referee.systems.edge.odds import band_odds, use_chance
from referee.systems.edge.rulings import Policy
from referee.systems.edge.sheet import Sheet, State
from referee.testing.odds import chi_square_p

ROLLS = 100_000
P_FLOOR = 1e-4
F = Fraction


@pytest.mark.parametrize(
    ("stat", "advantage", "miss", "weak", "strong"),
    [
        (0, None, F(5, 12), F(5, 12), F(1, 6)),
        (0, 4, F(1, 9), F(5, 9), F(1, 3)),
        (0, 6, F(0), F(1, 4), F(3, 4)),
        (1, None, F(5, 18), F(4, 9), F(5, 18)),
        (1, 4, F(1, 36), F(5, 12), F(5, 9)),
        (1, 6, F(0), F(1, 9), F(8, 9)),
    ],
)
def test_rules_odds_table(stat, advantage, miss, weak, strong) -> None:
    """§4.2's exact odds (miss / 7-9 / 10+) with edge=up, and the issue's 15/36, 15/36, 6/36."""
    assert {Band.MISS: miss, Band.WEAK: weak, Band.STRONG: strong} == band_odds(stat, advantage)


def rolled_bands(stat: int, advantage: int, policy: Policy) -> dict[Band, Fraction]:
    """P(band) by moving on every one of the 36 pairs through resolve_move."""
    actor = Actor(Sheet("Kara", {"cool": stat}), State(advantage, policy))
    counts: Counter = Counter()
    for first in range(1, 7):
        for second in range(1, 7):
            verdict = resolve_move(MoveRequest("cool"), actor, Table(), FixedDice([first, second]))
            counts[verdict.move.result.band] += 1
    return {band: Fraction(counts[band], 36) for band in Band}


@pytest.mark.parametrize("policy", list(Policy))
@pytest.mark.parametrize("stat", [-3, 0, 2])
@pytest.mark.parametrize("advantage", [1, 4, 6])
def test_odds_equal_every_pair_rolled_through_the_mover(policy, stat, advantage) -> None:
    """The exact odds under each policy equal the mover's own bands over all 36 pairs."""
    assert rolled_bands(stat, advantage, policy) == band_odds(stat, advantage, policy)


def test_advantage_one_never_changes_the_odds() -> None:
    """An advantage of 1 never beats the lower die: the odds are the plain ones."""
    assert (band_odds(0), F(0)) == (band_odds(0, 1, Policy.ALWAYS), use_chance(0, 1, Policy.ALWAYS))


def test_empirical_frequencies_match_the_exact_odds() -> None:
    """100,000 seeded moves at Cool +1 with advantage 4 (edge=up) fall as band_odds says."""
    source = SeededDice(20261123)
    actor = Actor(Sheet("Kara", {"cool": 1}), State(4))
    request, table = MoveRequest("cool"), Table()
    observed = Counter(
        resolve_move(request, actor, table, source).move.result.band for _ in range(ROLLS)
    )
    order = {Band.MISS: 0, Band.WEAK: 1, Band.STRONG: 2}
    exact = {order[band]: p for band, p in band_odds(1, 4).items()}
    assert chi_square_p(Counter({order[b]: n for b, n in observed.items()}), exact, ROLLS) > P_FLOOR
