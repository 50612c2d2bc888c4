"""Checking a roller against its exact distribution: the chi-square test the dice tests share.

Needs scipy (the ``test`` extra); only tests import this module.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping
from fractions import Fraction

from scipy.stats import chisquare


def chi_square_p(observed: Counter, exact: Mapping[Hashable, Fraction], rolls: int) -> float:
    """Chi-square p-value of observed counts against exact probabilities.

    Outcomes are taken in sorted order and neighbouring cells are pooled until each
    expects at least 5 observations, as the test requires. An outcome the exact
    distribution calls impossible fails at once.

    >>> chi_square_p(Counter({1: 500, 2: 500}), {1: Fraction(1, 2), 2: Fraction(1, 2)}, 1000)
    1.0
    """
    impossible = set(observed) - set(exact)
    assert not impossible, f"impossible outcomes seen: {impossible}"
    pooled_observed: list[float] = []
    pooled_expected: list[float] = []
    run_observed, run_expected = 0.0, 0.0
    # Outcomes are ints or tuples of ints: sortable, though typed only as Hashable.
    for key in sorted(exact):  # type: ignore[type-var]
        run_observed += observed.get(key, 0)
        run_expected += float(exact[key]) * rolls
        if run_expected >= 5:
            pooled_observed.append(run_observed)
            pooled_expected.append(run_expected)
            run_observed, run_expected = 0.0, 0.0
    pooled_observed[-1] += run_observed
    pooled_expected[-1] += run_expected
    return float(chisquare(pooled_observed, pooled_expected).pvalue)
