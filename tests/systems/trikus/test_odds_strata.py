"""The strata of a pair's top dice: their law over every die, and how ties lean."""

from __future__ import annotations

import itertools
import random

import pytest

from referee.systems.trikus.duel import PairEnd
from referee.systems.trikus.odds_sample import plain_duel, stratum
from referee.systems.trikus.odds_strata import STRATA, stratum_law, stratum_name, stratum_of


@pytest.mark.parametrize(
    ("gm", "pool"), [(1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (1, 3), (4, 2), (3, 3), (1, 0)]
)
def test_the_strata_law_is_every_die_counted(gm, pool) -> None:
    """Each stratum's chance (top higher, lower, a dead tie, ties by copies of the top and
    whose first top comes first), voids set aside, against every die enumerated."""
    counted = [0] * STRATA
    for dice in itertools.product(range(1, 11), repeat=gm + pool):
        g, p = dice[:gm], dice[gm:]
        void = 0
        while void < min(gm, pool) and g[void] == p[void]:
            void += 1
        counted[stratum_of(g[void:], p[void:])] += 1
    for number, (ways, p) in enumerate(zip(counted, stratum_law(gm, pool), strict=True)):
        assert p == pytest.approx(ways / 10 ** (gm + pool), abs=1e-12), stratum_name(number)


def test_ties_lean_by_copies_and_order_as_the_duel_plays_them() -> None:
    """The strata the control variate rests on tell ties apart: one-on-one, the side with
    more copies of the top wins (a tie it cannot lose), so their fitted Success is 0 or 1."""
    wins: dict[int, list[int]] = {}
    rng = random.Random("strata")
    for _ in range(3000):
        played = plain_duel(3, [3], True, rng.random)
        wins.setdefault(stratum(played, 0), []).append(played.ends[0] is PairEnd.WON)
    assert len(wins) > 10  # the ties met are many kinds
    for number, won in wins.items():
        name = stratum_name(number)
        if name.startswith("tied: GM x1, player x2") or name == "higher":
            assert all(won), name
        if name.startswith("tied: GM x2, player x1") or name == "lower":
            assert not any(won), name
