"""The strata of a trikus pair's top dice, and their exact law (:func:`stratum_law`).

The seeded duels (:mod:`.odds_sample`) predict each pair's end by its stratum: the
player's top die higher than the GM's, lower, both sides empty (a dead tie), or a tie
at the top, told apart by each side's copies of the top value and by whose first top
die comes first among its own dice. The chance of each stratum is counted here over
every die, so the prediction's expectation is exact.

>>> law = stratum_law(1, 1)  # one die each: a tie voids both, a dead tie
>>> round(law[HIGHER], 4), round(law[LOWER], 4), round(law[DEAD], 4)
(0.45, 0.45, 0.1)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import comb

from referee.systems.trikus.duel import SIDES

# A pair's strata (stratum_law): its top lower or higher than the GM's, a dead tie, and
# ties at the top by copies of the top value on each side and which first top came first.
LOWER, HIGHER, DEAD, TIED = 0, 1, 2, 3
COPIES = 3  # copies of the top value told apart (the last stands for that many or more)
STRATA = TIED + COPIES * COPIES * 3


def stratum_of(gm: Sequence[int], mine: Sequence[int]) -> int:
    """The stratum of a pair whose voids are set aside: the GM's dice and the player's,
    each in the order drawn, rolled or not."""
    gm_top, top = max(gm, default=0), max(mine, default=0)
    if top != gm_top:
        return HIGHER if top > gm_top else LOWER
    if not top:
        return DEAD
    first = mine.index(top) - gm.index(top)
    order = (first > 0) - (first < 0) + 1  # the player's first top later, with, earlier
    copies = min(gm.count(top), COPIES) - 1, min(mine.count(top), COPIES) - 1
    return TIED + (copies[0] * COPIES + copies[1]) * 3 + order


def stratum_name(number: int) -> str:
    """A stratum in words (for the tests' messages)."""
    if number < TIED:
        return ("lower", "higher", "dead")[number]
    gm_copies, rest = divmod(number - TIED, 3 * COPIES)
    copies, order = divmod(rest, 3)
    return f"tied: GM x{gm_copies + 1}, player x{copies + 1}, {('before', 'with', 'after')[order]}"


@lru_cache(maxsize=4096)
def stratum_law(gm_dice: int, pool: int) -> tuple[float, ...]:
    """P(each stratum) of a pair: the GM's ``gm_dice`` against a ``pool``, every die
    counted, rolled or not, after the pair's first-throw voids.

    The strata: the player's top higher, lower, both sides empty (a dead tie), and a
    tie at the top, told apart by each side's copies of the top value (1, 2, 3 or
    more) and whether the player's first top die comes after the GM's in its own
    dice, with it or before it. Exact but for float rounding (the strata steer the
    control variate; its expectation needs them to 1e-12, not as fractions).
    """
    law = [0.0] * STRATA
    for voids in range(min(gm_dice, pool) + 1):
        reach = 0.1**voids
        if voids == min(gm_dice, pool):  # a side ran out while every throw tied
            law[HIGHER if pool > gm_dice else LOWER if gm_dice > pool else DEAD] += reach
            break
        # The first unequal throw (faces x != y), then the rest of each side's dice:
        # the sum over x != y is the sum over all pairs less the pairs x == y.
        gm_rest, rest = gm_dice - voids - 1, pool - voids - 1
        width = min(gm_rest, rest) + 1  # the shorter side's dice: its top's index is less
        gm_sides = [_side(x, gm_rest, width) for x in range(1, SIDES + 1)]
        sides = [_side(y, rest, width) for y in range(1, SIDES + 1)]
        part = _joined(_summed(gm_sides), _summed(sides))
        for gm_side, side in zip(gm_sides, sides, strict=True):
            for number, p in enumerate(_joined(gm_side, side)):
                part[number] -= p
        for number, p in enumerate(part):
            law[number] += reach * p
    return tuple(law)


# A side's dice, first die given: P(top t, copies c, first top at index f), as
# table[t][c][f] (c from 0 for one copy to COPIES - 1 for COPIES or more).
_Side = list[list[list[float]]]


@lru_cache(maxsize=4096)
def _side_cached(first: int, rest: int, width: int) -> tuple[tuple[tuple[float, ...], ...], ...]:
    # Indices past the shorter side's dice compare alike: index ``width`` stands for them.
    table = [[[0.0] * (width + 1) for _ in range(COPIES)] for _ in range(SIDES + 1)]
    for more, p in enumerate(_copies(rest, first)):  # the first die is the top
        table[first][more][0] += 0.1 * p
    for top in range(first + 1, SIDES + 1):  # the top comes later, first at rest index m
        under = (top - 1) / SIDES
        for m in range(min(rest, width - 1)):
            before = under**m * 0.1
            for more, p in enumerate(_copies(rest - m - 1, top)):
                table[top][more][1 + m] += 0.1 * before * p
        if rest >= width:  # later still: what is left of the top's chance, by copies
            for more, p in enumerate(_copies(rest, top, at_least_one=True)):
                counted = sum(table[top][more][1:width])
                table[top][more][width] += max(0.0, 0.1 * p - counted)
    return tuple(tuple(tuple(row) for row in by_copies) for by_copies in table)


def _copies(dice: int, top: int, at_least_one: bool = False) -> list[float]:
    """P(``dice`` dice are all at most ``top`` with 0, 1, ... more copies of it than one
    die already showing it); the last entry stands for that many or more. With
    ``at_least_one``, the dice themselves hold every copy (one at least), counted alike.
    """
    top_p, under = 0.1, (top - 1) / SIDES
    shift = 1 if at_least_one else 0
    found = []
    for more in range(COPIES - 1):
        copies = more + shift
        found.append(
            comb(dice, copies) * top_p**copies * under ** (dice - copies) if copies <= dice else 0.0
        )
    every = (top / SIDES) ** dice - (under**dice if at_least_one else 0.0)
    found.append(max(0.0, every - sum(found)))
    return found


def _side(first: int, rest: int, width: int) -> _Side:
    """A side's table with its first die ``first`` (weighted by its tenth) and ``rest``
    more dice, first-top indices from ``width`` on taken together."""
    return [[list(row) for row in by_copies] for by_copies in _side_cached(first, rest, width)]


def _summed(tables: list[_Side]) -> _Side:
    total = [[list(row) for row in by_copies] for by_copies in tables[0]]
    for table in tables[1:]:
        for t, by_copies in enumerate(table):
            for c, row in enumerate(by_copies):
                into = total[t][c]
                for f, p in enumerate(row):
                    into[f] += p
    return total


def _joined(gm: _Side, mine: _Side) -> list[float]:
    """P(each stratum) when the GM's dice follow ``gm`` and the player's ``mine``."""
    law = [0.0] * STRATA
    gm_tops = [sum(sum(row) for row in by_copies) for by_copies in gm]
    tops = [sum(sum(row) for row in by_copies) for by_copies in mine]
    gm_below = tops_below = 0.0
    for top in range(1, SIDES + 1):
        law[HIGHER] += tops[top] * gm_below
        law[LOWER] += gm_tops[top] * tops_below
        gm_below += gm_tops[top]
        tops_below += tops[top]
        for gm_copies, gm_row in enumerate(gm[top]):
            gm_total = sum(gm_row)
            if not gm_total:
                continue
            for copies, row in enumerate(mine[top]):
                total = sum(row)
                if not total:
                    continue
                later = same = 0.0
                after = sum(row)  # the player's first top at an index past f
                for f, p in enumerate(gm_row):
                    mine_here = row[f] if f < len(row) else 0.0
                    after -= mine_here
                    later += p * after
                    same += p * mine_here
                base = TIED + (gm_copies * COPIES + copies) * 3
                law[base + 2] += later
                law[base + 1] += same
                law[base] += gm_total * total - later - same
    return law
