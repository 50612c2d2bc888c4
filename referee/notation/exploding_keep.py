"""Odds of exploding dice under a keep (``20d6e6kh10``, ``5d10e10pl1``): hot and cold faces.

``NdX`` exploding on a set of *hot* faces rolls each die's chain of hot faces ended by
one *cold* face. So however the dice fall there are exactly N cold dice, each a fair
pick of the cold faces, and G hot dice, each a fair pick of the hot faces, with G
counted by the negative binomial: ``C(N-1+G, G)`` ways to spread G hot faces over N
chains. When every hot value is above every cold one (``e6``, ``e>4``, ``!``) or below
(``e1``), the highest or lowest kept dice are the extremes of each group, so for each
G the total is the keep of the hot group plus the keep of the cold group: two
order-statistics counts (:func:`~referee.notation.keep.top_ways`), not a list of every
chain. G is followed until less than :data:`~referee.notation.distributions.CUTOFF`
of the chance is left out, and that part is the stated precision.

Rerolls and clamps after the explosion (``rr``, ``ro``, ``mi``, ``ma`` on values)
act on every die alone, so they only change each group's face weights.

>>> from referee.notation.parse import parse_expression
>>> dist = exploding_keep(parse_expression("20d6e6kh10").root)
>>> (max(dist.ways), 0 < dist.missing * 10**9 < dist.denominator)
(60, True)
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

from referee.notation.distributions import (
    CUTOFF,
    MAX_OUTCOMES,
    Dist,
    TooCostly,
    as_row,
    budget,
    convolve,
)
from referee.notation.explosion import picked, step
from referee.notation.keep import RankReducer, top_ways
from referee.notation.tree import Dice, Operation

# Operations after the explosion that change each die's value alone and drop none.
_RESHAPING = frozenset(("rr", "ro", "mi", "ma"))


def exploding_keep(node: Dice, cutoff: Fraction = CUTOFF) -> Dist | None:
    """The total of ``NdX e<faces>`` with value rerolls or clamps after it and one
    ``kh``/``kl``/``ph``/``pl`` last, when hot and cold faces keep apart; else None.

    Hot dice are counted until less than ``cutoff`` of the chance is left: that part is
    the result's ``missing``."""
    operations = node.operations
    if len(operations) < 2 or operations[0].op != "e" or node.count == 0:
        return None
    rank = RankReducer.of(operations[-1])
    explode, reshaping = operations[0], operations[1:-1]
    if rank is None or any(s.cat in ("h", "l") for s in explode.selectors):
        return None
    if not all(_reshapes(operation) for operation in reshaping):
        return None
    sides = node.sides
    hot = [face for face in range(1, sides + 1) if picked(explode, face)]
    cold = [face for face in range(1, sides + 1) if not picked(explode, face)]
    if not hot or not cold:
        return None  # nothing explodes (plain keeps count it), or the roll is refused
    hot_ways, scale = _reshaped(hot, reshaping, sides)
    cold_ways, _ = _reshaped(cold, reshaping, sides)
    if min(hot_ways) >= max(cold_ways):
        hot_is_high = True
    elif max(hot_ways) <= min(cold_ways):
        hot_is_high = False
    else:
        return None  # the groups interleave: counted die by die instead
    count = node.count
    per_die = sides * scale  # each die's ways, hot or cold
    spreads = _hot_counts(count, len(hot), sides, cutoff)
    most = len(spreads) - 1
    highest = rank.highest != rank.drop  # kh and pl keep the highest dice, kl and ph the lowest
    keeps: dict[tuple[bool, int, int], tuple[int, list[int]]] = {}

    def keep(group_is_hot: bool, dice: int, kept: int) -> tuple[int, list[int]]:
        """The lowest kept sum of one group and the ways of each sum from it."""
        key = (group_is_hot, dice, kept)
        if key not in keeps:
            dist = top_ways(dice, hot_ways if group_is_hot else cold_ways, kept, highest)
            keeps[key] = as_row(dist.ways)
        return keeps[key]

    totals: defaultdict[int, int] = defaultdict(int)
    hot_first = hot_is_high == highest  # the keep takes hot dice before any cold one
    for g, spread in enumerate(spreads):
        kept = _kept_count(rank, g + count)
        hot_kept = min(g, kept) if hot_first else max(0, kept - count)
        cold_kept = kept - hot_kept
        hot_low, hot_row = keep(True, g, hot_kept)
        cold_low, cold_row = keep(False, count, cold_kept)
        budget((len(hot_row) + len(cold_row)) * 4)
        weight = spread * per_die ** (most - g)
        for i, ways in enumerate(convolve(hot_row, cold_row)):
            if ways:
                totals[hot_low + cold_low + i] += ways * weight
        if len(totals) > MAX_OUTCOMES:
            raise TooCostly
    denominator = per_die ** (count + most)
    return Dist(dict(totals), denominator, denominator - sum(totals.values()))


def _reshapes(operation: Operation) -> bool:
    return operation.op in _RESHAPING and all(s.cat not in ("h", "l") for s in operation.selectors)


def _reshaped(
    faces: list[int], operations: tuple[Operation, ...], sides: int
) -> tuple[dict[int, int], int]:
    """Ways of each value the ``faces`` end on after ``operations``, and the factor by
    which the operations multiply one die's ways (the same for every face)."""
    states = {(face, True, 0): 1 for face in faces}
    denominator = 1
    for operation in operations:
        stepped, denominator = step(states, denominator, operation, sides)
        if stepped is None:
            raise TooCostly  # every face rerolls forever: the roll is refused
        states = stepped
    ways: defaultdict[int, int] = defaultdict(int)
    for (value, _, _), w in states.items():
        ways[value] += w
    return dict(ways), denominator


def _hot_counts(count: int, hot: int, sides: int, cutoff: Fraction) -> list[int]:
    """``C(count-1+g, g)`` for g = 0, 1, ... hot faces, up to where less than
    ``cutoff`` of the chance lies beyond."""
    cold = sides - hot
    spreads: list[int] = []
    left = Fraction(1)
    g = 0
    while left >= cutoff:
        spread = math.comb(count - 1 + g, g)
        spreads.append(spread)
        left -= Fraction(spread * hot**g * cold**count, sides ** (count + g))
        g += 1
        budget(count + g)
        if g > MAX_OUTCOMES:
            raise TooCostly
    return spreads


def _kept_count(rank: RankReducer, dice: int) -> int:
    """How many of ``dice`` dice the rank operation keeps."""
    if rank.drop:
        return max(0, dice - rank.n)
    return min(dice, rank.n)
