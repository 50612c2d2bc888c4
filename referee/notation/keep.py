"""Odds of keeping and dropping dice by rank (``kh3``, ``pl1``): order statistics.

:func:`keep_ways` counts a fixed number of independent dice with weighted faces;
:class:`RankReducer` summarises a growing multiset of dice (exploding dice add to
it) by what a single ``kh``/``kl``/``ph``/``pl`` needs of it, so dice are folded in one
at a time without listing every sequence.

>>> keep_ways(4, uniform(6), frozenset({0, 1, 2})).ways[18]
21
>>> from referee.notation.tree import Selector
>>> reducer = RankReducer.of(Operation("k", (Selector("h", 2),)))
>>> reducer.total(reducer.merge(reducer.add(reducer.empty, 3), reducer.add(reducer.empty, 5)))
8
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from referee.notation.distributions import (
    MAX_OUTCOMES,
    Dist,
    TooCostly,
    affordable,
    budget,
    convolve,
    power,
    product_cost,
)
from referee.notation.distributions import uniform as uniform  # for the example above
from referee.notation.tree import Operation


def keep_ways(count: int, face_ways: dict[int, int], kept: frozenset[int]) -> Dist:
    """Ways for the sum of the dice whose ranks (from the highest, 0-based) are ``kept``
    among ``count`` dice: ``{0, 1, 2}`` is kh3, ``{count - 1}`` kl1.

    Order statistics: faces are visited from the highest down; a state is (dice placed
    on higher faces, sum of the kept ones among them). Once every kept rank is placed
    the rest show any lower face. ``face_ways`` weighs each face (1 each for a fair die).
    """
    stop = max(kept) + 1
    before = [0] * (count + 1)  # before[i]: kept ranks below i
    for rank in range(count):
        before[rank + 1] = before[rank] + (rank in kept)
    faces = sorted(face_ways, reverse=True)
    total_ways = sum(face_ways.values())
    budget(len(faces) * len(faces) * stop * stop * count)
    result: defaultdict[int, int] = defaultdict(int)
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    lower = total_ways
    for face in faces:
        weight = face_ways[face]
        lower -= weight
        following: defaultdict[tuple[int, int], int] = defaultdict(int)
        for (placed, subtotal), ways in states.items():
            left = count - placed
            for m in range(left + 1):
                now = placed + m
                kept_sum = subtotal + face * (before[now] - before[placed])
                w = ways * math.comb(left, m) * weight**m
                if now >= stop:
                    result[kept_sum] += w * lower ** (count - now)
                else:
                    following[(now, kept_sum)] += w
        states = following
    if len(result) > MAX_OUTCOMES:
        raise TooCostly
    return Dist(dict(result), total_ways**count)


def top_ways(count: int, face_ways: dict[int, int], kept: int, highest: bool = True) -> Dist:
    """Ways for the sum of the ``kept`` highest (or lowest) of ``count`` independent dice
    whose faces are weighed by ``face_ways`` (``kh``/``kl``; ``pl``/``ph`` are their
    complements).

    Counted by the face ``t`` of the last kept die: ``j`` dice above ``t`` (their sum by
    repeated convolution), then at least ``kept - j`` of the other ``count - j`` dice
    showing ``t`` and the rest below it. That is faces x kept convolutions, so
    ``100d6kh50`` takes milliseconds where listing placements would take seconds.

    >>> top_ways(4, uniform(6), 3).ways[18], top_ways(2, uniform(20), 1, highest=False).ways[20]
    (21, 1)
    """
    if not highest:
        low = top_ways(count, {-face: w for face, w in face_ways.items()}, kept)
        return Dist({-value: w for value, w in low.ways.items()}, low.denominator)
    total_ways = sum(face_ways.values())
    kept = min(kept, count)
    faces = sorted((face for face, w in face_ways.items() if w), reverse=True)
    least, span = faces[-1], faces[0] - faces[-1]
    if kept == 0:
        return Dist({0: total_ways**count}, total_ways**count)
    if kept == count:
        return power(Dist(face_ways, total_ways), count)
    if kept * span + 1 > MAX_OUTCOMES:
        raise TooCostly
    # Refused up front when the convolutions alone would pass the budget (a low estimate
    # of them: a roll it lets through still stops at the budget, as the loop spends).
    affordable(len(faces) * kept * kept * (span + 1))
    # A power of one die's ways to the count costs about a third of a product of two
    # numbers that long (measured).
    power_cost = product_cost(*[count * total_ways.bit_length() // 8] * 2) // 3 + 1
    sums = [0] * (kept * span + 1)  # ways of each kept sum less kept * least
    above: list[int] = []  # one die's ways for the faces above t, from the lowest of them
    above_ways, lowest_above = 0, faces[0]
    for face in faces:
        weight, shift = face_ways[face], face - least
        below_ways = total_ways - above_ways - weight
        up = [1]  # ways of each sum of j dice above t, from j times the lowest face above
        for j in range(kept if above else 1):
            if j:
                up = convolve(up, above)
            rest, needed = count - j, kept - j
            budget(len(up) * 4 + (min(needed, rest - needed) + 1) * power_cost)
            factor = math.comb(count, j) * _at_least(rest, needed, weight, below_ways)
            if factor:
                offset = needed * shift + j * (lowest_above - least)
                for i, w in enumerate(up):
                    sums[offset + i] += w * factor
        # t joins the faces above the next one
        above = [weight, *[0] * (lowest_above - face - 1), *above] if above else [weight]
        above_ways, lowest_above = above_ways + weight, face
    return Dist({kept * least + i: w for i, w in enumerate(sums) if w}, total_ways**count)


def _at_least(rest: int, needed: int, weight: int, below: int) -> int:
    """Ways ``rest`` dice show at least ``needed`` faces of ``weight`` ways, the others
    faces of ``below`` ways in all; summed from the shorter side."""
    if needed <= 0:
        return (weight + below) ** rest
    if needed > rest:
        return 0
    if needed <= rest - needed:
        fewer = sum(math.comb(rest, m) * weight**m * below ** (rest - m) for m in range(needed))
        return (weight + below) ** rest - fewer
    return sum(
        math.comb(rest, m) * weight**m * below ** (rest - m) for m in range(needed, rest + 1)
    )


def ranks_kept(operations: tuple[Operation, ...], count: int) -> frozenset[int] | None:
    """The ranks (from the highest) that k/p operations with h/l selectors leave kept.

    As in d20, an operation's selectors are unioned: ``kl3kh2`` keeps the 3 lowest and
    the 2 highest. None when a selector picks by value instead.
    """
    kept = list(range(count))  # kept ranks, highest first
    for operation in operations:
        if operation.op not in ("k", "p"):
            return None
        chosen: set[int] = set()
        for selector in operation.selectors:
            if selector.cat == "h":
                chosen.update(kept[: selector.n])
            elif selector.cat == "l":
                chosen.update(kept[len(kept) - min(selector.n, len(kept)) :])
            else:
                return None
        if operation.op == "k":
            kept = [rank for rank in kept if rank in chosen]
        else:
            kept = [rank for rank in kept if rank not in chosen]
    return frozenset(kept)


@dataclass(frozen=True)
class RankReducer:
    """What a single rank operation needs of a multiset of kept dice, as a small state.

    ``kh n``/``kl n`` need the n highest/lowest values; ``ph n``/``pl n`` the sum of all
    and the n highest/lowest. A state is ``(sum of all, sorted extremes)``.
    """

    drop: bool  # p: the total is the sum of all minus the selected
    highest: bool  # h: the selected are the highest
    n: int

    @staticmethod
    def of(operation: Operation) -> RankReducer | None:
        """The reducer of a single k/p with one h/l selector, else None."""
        if operation.op not in ("k", "p") or len(operation.selectors) != 1:
            return None
        selector = operation.selectors[0]
        if selector.cat not in ("h", "l"):
            return None
        return RankReducer(operation.op == "p", selector.cat == "h", selector.n)

    @property
    def empty(self) -> tuple[int, tuple[int, ...]]:
        return (0, ())

    def _extremes(self, values: list[int]) -> tuple[int, ...]:
        values.sort(reverse=self.highest)
        return tuple(values[: self.n])

    def add(self, state: Any, value: int) -> Any:
        """``state`` with one more kept die showing ``value``."""
        total, extremes = state
        return (total + value if self.drop else 0, self._extremes([*extremes, value]))

    def merge(self, a: Any, b: Any) -> Any:
        """The state of two disjoint multisets of dice together."""
        return (a[0] + b[0], self._extremes([*a[1], *b[1]]))

    def total(self, state: Any) -> int:
        total, extremes = state
        return total - sum(extremes) if self.drop else sum(extremes)


def fold(chain: dict[Any, int], count: int, merge: Any) -> dict[Any, int]:
    """The states of ``count`` independent copies of ``chain`` (state -> ways), merged.

    Each merge costs about as much as :data:`FOLD_STEP` plain steps of the budget.
    """
    result = dict(chain)
    for _ in range(count - 1):
        budget(len(result) * len(chain) * FOLD_STEP)
        following: defaultdict[Any, int] = defaultdict(int)
        for a, wa in result.items():
            for b, wb in chain.items():
                following[merge(a, b)] += wa * wb
        if len(following) > MAX_OUTCOMES:
            raise TooCostly
        result = dict(following)
    return result


FOLD_STEP = 10  # a merge sorts and slices small tuples: about ten plain steps
