"""Distributions of dice totals as integer ways over one denominator, and their arithmetic.

A :class:`Dist` counts the ways each value can come up out of ``denominator`` equally
likely sequences of faces, so sums and products stay exact integers. Every operation
spends from one budget per expression (:data:`MAX_OUTCOMES` values, about
:data:`MAX_STEPS` inner steps, both from :class:`~referee.base.limits.Limits`, and no
more than the open tag's and post's step budgets allow, :data:`ODDS_STEPS_PER_STEP` of
these to one of theirs) and raises :class:`TooCostly` past it.
Long polynomial products run as one multiplication of packed big integers
(:func:`convolve`), and sums of fair dice by a three-term recurrence (:func:`sum_ways`).

>>> sum_ways(2, 6).ways[7], sum_ways(2, 6).denominator
(6, 36)
>>> add_lists(Dist({1: 1, 2: 1}, 2), Dist({0: 1, 10: 1}, 2)).ways
{1: 1, 2: 1, 11: 1, 12: 1}
"""

from __future__ import annotations

import math
import threading
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from referee.base.limits import DEFAULT_LIMITS
from referee.notation.tree import Number

MAX_OUTCOMES = DEFAULT_LIMITS.max_odds_outcomes  # distinct values a distribution may hold
MAX_STEPS = DEFAULT_LIMITS.max_odds_steps  # estimated inner-loop steps for one expression
# Inner steps of a distribution in one step of a tag's or post's budget
# (see referee.base.effort).
ODDS_STEPS_PER_STEP = 16
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


class _Spent(threading.local):
    """Budget steps spent on the expression being counted, and its cap (one per thread)."""

    steps = 0
    limit = MAX_STEPS


SPENT = _Spent()


def budget(size: int) -> None:
    """Spend about ``size`` inner steps; past :data:`MAX_STEPS` for the whole
    expression (since :func:`start_budget`), the distribution is too costly."""
    SPENT.steps += size
    if SPENT.steps > SPENT.limit:
        raise TooCostly


def affordable(size: int) -> None:
    """Refuse now, spending nothing, if about ``size`` more steps would pass the budget."""
    if SPENT.steps + size > SPENT.limit:
        raise TooCostly


def start_budget(limit: int | None = None) -> None:
    """Start counting steps afresh, for one expression, up to ``limit`` of them
    (:data:`MAX_STEPS` by default)."""
    SPENT.steps = 0
    SPENT.limit = MAX_STEPS if limit is None else limit


def combine(a: Dist, b: Dist, op: Any) -> Dist:
    """``op`` of two independent distributions, value by value (a failing op is too costly)."""
    budget(len(a.ways) * len(b.ways) * COMBINE_STEP)
    ways: defaultdict[Number, int] = defaultdict(int)
    for x, wx in a.ways.items():
        for y, wy in b.ways.items():
            try:
                ways[op(x, y)] += wx * wy
            except (ZeroDivisionError, OverflowError):
                raise TooCostly from None
        if len(ways) > MAX_OUTCOMES:
            raise TooCostly  # as soon as it shows, not after a million products
    missing = a.missing * b.denominator + b.missing * a.denominator - a.missing * b.missing
    return Dist(dict(ways), a.denominator * b.denominator, missing)


COMBINE_STEP = 4  # one pair of combine: a call through op and a dictionary update


def add_lists(a: Dist, b: Dist) -> Dist:
    """Sum of two integer distributions over contiguous ranges, by list convolution."""
    if not all(type(v) is int for v in a.ways) or not all(type(v) is int for v in b.ways):
        return combine(a, b, _add)
    alow, alist = as_row(a.ways)
    blow, blist = as_row(b.ways)
    if len(alist) + len(blist) - 1 > MAX_OUTCOMES:
        raise TooCostly
    combined = convolve(alist, blist)
    missing = a.missing * b.denominator + b.missing * a.denominator - a.missing * b.missing
    ways = {alow + blow + i: w for i, w in enumerate(combined) if w}
    return Dist(ways, a.denominator * b.denominator, missing)


# ---------------------------------------------------------------------------- packed lists
# A list of non-negative coefficients packed into one integer, ``width`` bytes each, is
# a polynomial whose product with another is a single multiplication of big integers,
# done in C: far faster than a loop over pairs once the lists pass a few dozen terms.


def width_for(largest: int) -> int:
    """Bytes per coefficient that hold any value up to ``largest``."""
    return largest.bit_length() // 8 + 1


def packed(coefficients: list[int], width: int) -> int:
    """``coefficients`` (lowest first) as one integer of ``width`` bytes each."""
    return int.from_bytes(b"".join(c.to_bytes(width, "little") for c in coefficients), "little")


def unpacked(number: int, width: int, count: int) -> list[int]:
    """The first ``count`` coefficients of a packed integer."""
    data = number.to_bytes(count * width, "little")
    return [int.from_bytes(data[i : i + width], "little") for i in range(0, count * width, width)]


def product_cost(a_bytes: int, b_bytes: int) -> int:
    """Budget steps for multiplying integers of these sizes: Karatsuba on 30-bit digits,
    about longer x shorter**0.585 digit products."""
    longer, shorter = max(a_bytes, b_bytes) * 4 // 15 + 1, min(a_bytes, b_bytes) * 4 // 15 + 1
    return int(longer * shorter**0.585) // 12 + (a_bytes + b_bytes) // 16


def convolve(a: list[int], b: list[int]) -> list[int]:
    """The product of two polynomials of non-negative coefficients (lowest first)."""
    if len(a) * len(b) <= 64:
        combined = [0] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            if x:
                for j, y in enumerate(b):
                    combined[i + j] += x * y
        return combined
    width = width_for(max(a) * max(b) * min(len(a), len(b)))
    budget(product_cost(len(a) * width, len(b) * width))
    return unpacked(packed(a, width) * packed(b, width), width, len(a) + len(b) - 1)


def as_row(ways: dict[int, int]) -> tuple[int, list[int]]:
    """The lowest value and the ways of each value from it up (gaps as 0)."""
    low = min(ways)
    row = [0] * (max(ways) - low + 1)
    for value, count in ways.items():
        row[value - low] = count
    return low, row


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
    """Ways for the sum of ``count`` fair dice, each from the few before it.

    The ways are the coefficients of ``P = ((1 - x^s) / (1 - x))^n``, which satisfies
    ``(1 - x)(1 - x^s) P' = n (1 - s x^(s-1) + (s-1) x^s) P``: comparing coefficients
    gives each from three earlier ones, and the sums are symmetric, so half is enough.
    """
    size = count * (sides - 1) + 1
    if size > MAX_OUTCOMES:
        raise TooCostly
    budget(size * SUM_STEP)
    ways = [0] * size
    ways[0] = 1
    for m in range(size // 2):
        more = (m + count) * ways[m]
        if m >= sides - 1:
            more += (m - sides + 1 - count * sides) * ways[m - sides + 1]
        if m >= sides:
            more += (count * (sides - 1) - m + sides) * ways[m - sides]
        ways[m + 1] = more // (m + 1)
    for i in range(size // 2 + 1, size):
        ways[i] = ways[size - 1 - i]
    return Dist({count + i: w for i, w in enumerate(ways)}, sides**count)


SUM_STEP = 8  # one term of sum_ways: a few products of big integers


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
