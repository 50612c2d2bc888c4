"""Distributions of dice totals as integer ways over one denominator, and their arithmetic.

A :class:`Dist` counts the ways each value can come up out of ``denominator`` equally
likely sequences of faces, so sums and products stay exact integers. Every operation
checks the fixed budget first (:data:`MAX_OUTCOMES` values, about :data:`MAX_STEPS`
inner steps) and raises :class:`TooCostly` past it, so one tag never spends seconds.

>>> sum_ways(2, 6).ways[7], sum_ways(2, 6).denominator
(6, 36)
>>> add_lists(Dist({1: 1, 2: 1}, 2), Dist({0: 1, 10: 1}, 2)).ways
{1: 1, 2: 1, 11: 1, 12: 1}
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from referee.notation_tree import Number

MAX_OUTCOMES = 10_000  # distinct values a distribution may hold
MAX_STEPS = 2_000_000  # estimated inner-loop steps for one expression
MAX_REPLAYS = 2_500  # rolls replayed when counting outcomes one by one (~0.2 s)
CUTOFF = Fraction(1, 10**9)  # exploding and rerolling dice are followed this far
TOO_MANY = "odds not computed (too many outcomes)"


class TooCostly(Exception):
    """The distribution would pass the budget."""


@dataclass(frozen=True)
class Dist:
    """A distribution as integer ways over one denominator; ``missing`` ways were cut off."""

    ways: dict[Any, int]  # value (int, or float after /) -> ways
    denominator: int
    missing: int = 0  # ways lost to the cut-off of endless explosions or rerolls


def budget(size: int) -> None:
    """Refuse work of about ``size`` inner steps past :data:`MAX_STEPS`."""
    if size > MAX_STEPS:
        raise TooCostly


def combine(a: Dist, b: Dist, op: Any) -> Dist:
    """``op`` of two independent distributions, value by value (a failing op is too costly)."""
    budget(len(a.ways) * len(b.ways))
    ways: defaultdict[Number, int] = defaultdict(int)
    for x, wx in a.ways.items():
        for y, wy in b.ways.items():
            try:
                ways[op(x, y)] += wx * wy
            except (ZeroDivisionError, OverflowError):
                raise TooCostly from None
    if len(ways) > MAX_OUTCOMES:
        raise TooCostly
    missing = a.missing * b.denominator + b.missing * a.denominator - a.missing * b.missing
    return Dist(dict(ways), a.denominator * b.denominator, missing)


def add_lists(a: Dist, b: Dist) -> Dist:
    """Sum of two integer distributions over contiguous ranges, by list convolution."""
    if not all(type(v) is int for v in a.ways) or not all(type(v) is int for v in b.ways):
        return combine(a, b, _add)
    alow, blow = min(a.ways), min(b.ways)
    alist = [0] * (max(a.ways) - alow + 1)
    blist = [0] * (max(b.ways) - blow + 1)
    for v, w in a.ways.items():
        alist[v - alow] = w
    for v, w in b.ways.items():
        blist[v - blow] = w
    budget(len(alist) * len(blist))
    combined = [0] * (len(alist) + len(blist) - 1)
    for i, x in enumerate(alist):
        if x:
            for j, y in enumerate(blist):
                if y:
                    combined[i + j] += x * y
    if len(combined) > MAX_OUTCOMES:
        raise TooCostly
    missing = a.missing * b.denominator + b.missing * a.denominator - a.missing * b.missing
    ways = {alow + blow + i: w for i, w in enumerate(combined) if w}
    return Dist(ways, a.denominator * b.denominator, missing)


def _add(x: Number, y: Number) -> Number:
    return x + y


def power(die: Dist, count: int) -> Dist:
    """The sum of ``count`` independent copies, by repeated squaring."""
    result = Dist({0: 1}, 1)
    base = die
    while count:
        if count & 1:
            result = add_lists(result, base)
        count >>= 1
        if count:
            base = add_lists(base, base)
    return result


# ---------------------------------------------------------------------------- dice


def uniform(sides: int) -> dict[int, int]:
    """One fair die's faces, one way each."""
    return dict.fromkeys(range(1, sides + 1), 1)


def sum_ways(count: int, sides: int) -> Dist:
    """Ways for the sum of ``count`` dice, one die at a time with prefix sums."""
    budget(count * count * sides)
    if count * (sides - 1) + 1 > MAX_OUTCOMES:
        raise TooCostly
    ways = [1]
    for _ in range(count):
        prefix = [0]
        running = 0
        for w in ways:
            running += w
            prefix.append(running)
        size = len(ways)
        ways = [
            prefix[min(i + 1, size)] - prefix[max(0, i + 1 - sides)]
            for i in range(size + sides - 1)
        ]
    return Dist({count + i: w for i, w in enumerate(ways)}, sides**count)


def from_chances(chances: dict[Any, Fraction], missing: Fraction = Fraction(0)) -> Dist:
    """A distribution from exact chances, ``missing`` being the chance left out."""
    denominator = math.lcm(
        *(chance.denominator for chance in chances.values()), missing.denominator
    )
    ways = {
        value: chance.numerator * (denominator // chance.denominator)
        for value, chance in chances.items()
        if chance
    }
    return Dist(ways, denominator, missing.numerator * (denominator // missing.denominator))


def chances(dist: Dist) -> Iterable[tuple[Any, Fraction]]:
    """Each value of ``dist`` with its chance."""
    for value, ways in dist.ways.items():
        yield value, Fraction(ways, dist.denominator)
