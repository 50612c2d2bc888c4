"""Exact odds of an ``edge`` move: P(miss), P(7-9), P(10+), with and without advantage.

Two d6 make 36 equally likely pairs, so the odds are counted pair by pair through
:func:`~referee.systems.edge.bands.worth_using`, the very rule the roller follows.

>>> odds = band_odds(0)
>>> [str(odds[band]) for band in Band]
['5/12', '5/12', '1/6']
>>> [str(p) for p in band_odds(1, advantage=4).values()]
['1/36', '5/12', '5/9']
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType

from referee.systems.edge.bands import Band, band_of, with_advantage, worth_using
from referee.systems.edge.rulings import Policy

PAIRS = 36
ALL_PAIRS = tuple((first, second) for first in range(1, 7) for second in range(1, 7))


@lru_cache(maxsize=1024)
def band_odds(
    modifier: int, advantage: int | None = None, policy: Policy = Policy.UP
) -> Mapping[Band, Fraction]:
    """P(each band) of 2d6 + ``modifier``, spending ``advantage`` under ``policy`` if given."""
    counts = dict.fromkeys(Band, 0)
    for dice in ALL_PAIRS:
        if advantage is not None and worth_using(policy, dice, modifier, advantage):
            dice = with_advantage(dice, advantage)
        counts[band_of(sum(dice) + modifier)] += 1
    # Cached and shared between verdicts, so read-only.
    return MappingProxyType({band: Fraction(count, PAIRS) for band, count in counts.items()})


def use_chance(modifier: int, advantage: int, policy: Policy) -> Fraction:
    """P(the advantage is spent on the roll) under ``policy``.

    >>> use_chance(0, 6, Policy.UP)
    Fraction(5, 6)
    """
    used = sum(worth_using(policy, dice, modifier, advantage) for dice in ALL_PAIRS)
    return Fraction(used, PAIRS)
