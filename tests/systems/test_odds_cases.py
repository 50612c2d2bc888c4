"""The engines' odds cases for the conformance kit (pool and edge): exact, and sampled for real."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from referee.base.dice import SeededDice
from referee.systems.edge import odds_cases as edge_cases
from referee.systems.pool import odds_cases as pool_cases
from referee.testing.odds import chi_square_p

SAMPLES = 5_000  # the kit itself rolls 100,000 once the systems are wired


@pytest.mark.parametrize("module", [pool_cases, edge_cases], ids=["pool", "edge"])
def test_each_case_sums_to_one_and_its_sampler_matches(module) -> None:
    """Every case is a distribution, and its samples through the real roller fit it."""
    source = SeededDice(11)
    for case in module.odds_cases():
        observed = Counter(case.sample(source) for _ in range(SAMPLES))
        assert (case.name, Fraction(1)) == (case.name, sum(case.distribution.values()))
        assert chi_square_p(observed, case.distribution, SAMPLES) > 1e-4, case.name
