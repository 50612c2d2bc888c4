"""Exact odds of every ``hits`` roll, exploding dice included, as :class:`fractions.Fraction`.

**Method.** One die has three fates: a miss (q), a plain hit (h) or a crit (c), which is a
hit and throws one more die. Its generating function in hits is therefore the *rational*
function G(x) = (q + h·x) / (1 − c·x), and n dice give G(x)ⁿ = (q + h·x)ⁿ (1 − c·x)⁻ⁿ, whose
k-th coefficient is the finite sum

    P(k hits) = Σⱼ C(n, j) qⁿ⁻ʲ hʲ · C(n − 1 + k − j, k − j) cᵏ⁻ʲ.

So every P(k hits) is exact, with no truncation, and so is every threshold chance
(P(≥ t) = 1 − Σ_{k<t} P(k)): the Level table, quick and group rolls are **exact**.

Opposed rolls (and duels) compare two unbounded counts; their chances are **exact rational
sums to a bounded depth** K: every term with all counts below K is summed exactly, and
:attr:`OpposedOdds.truncated` states the mass left out, at most Σᵢ P(roller i scores ≥ K),
which K is chosen to bring under ``precision`` (default 10⁻¹²). Ties rerolled (R-43) are
solved exactly over the tied subsets, for up to :data:`MAX_EXACT_ROLLERS` rollers throwing
:data:`MAX_EXACT_DICE` dice together; past that :func:`opposed_odds` answers None (the
verdict then shows no chance) rather than stall the worker.

>>> from referee.systems.hits.rolls import PoolSpec
>>> [str(p) for p in hits_distribution(PoolSpec(1), 3)], str(at_least(PoolSpec(1), 3))
(['1/2', '5/12', '5/72'], '1/72')
>>> {o.value: str(p) for o, p in level_odds(PoolSpec(4), level=1).items()}
{'fail': '13/48', 'partial': '115/216', 'success': '85/432'}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations
from math import comb, prod

from referee.base.errors import RuleViolation
from referee.base.limits import DEFAULT_LIMITS

from .rolls import (
    MAX_PARTICIPANTS,
    SIDES,
    Outcome,
    PoolSpec,
    QuickSpec,
    check_level,
    judge,
    pool_shape,
    quick_dice,
    thresholds,
)
from .rulings import DEFAULT_RULINGS, GroupLevel, GroupTies, Rulings

MAX_EXACT_ROLLERS = 5  # subsets of tied rollers grow as 2ⁿ; larger opposed rolls get no odds
MAX_EXACT_DICE = 200  # dice of all rollers together; past it the sums take seconds: no odds
DEFAULT_PRECISION = Fraction(1, 10**12)


@dataclass(frozen=True)
class OpposedOdds:
    """The chances of an opposed roll, one entry per roller in the roll's order."""

    first_round: tuple[Fraction, ...]  # winning the first round outright
    first_round_tie: Fraction  # some roll for most hits is shared in the first round
    wins: tuple[Fraction, ...]  # winning in the end, ties rerolled
    truncated: Fraction  # the mass left out of every sum (at most, see the module)


def die_fates(modifier: int, rulings: Rulings = DEFAULT_RULINGS) -> tuple[int, int, int]:
    """Faces of a d6 (out of 6) that miss, hit plainly and crit, under R-23 and R-41.

    >>> die_fates(0), die_fates(1), die_fates(-3)
    ((3, 2, 1), (2, 3, 1), (5, 0, 1))
    """
    dice = [judge(face, modifier, rulings) for face in range(1, SIDES + 1)]
    crits = sum(d.crit for d in dice)
    hits = sum(d.hit for d in dice) - crits
    return SIDES - hits - crits, hits, crits


@lru_cache(maxsize=4096)
def _counts(dice: int, fates: tuple[int, int, int], k: int) -> Fraction:
    """P(exactly k hits) for ``dice`` dice of the given fates, by the module's sum."""
    if dice == 0:
        return Fraction(int(k == 0))
    miss, hit, crit = fates
    total = 0
    for j in range(min(dice, k) + 1):
        extra = k - j  # hits that came from crit dice beyond the first hit of each
        total += (
            comb(dice, j)
            * miss ** (dice - j)
            * hit**j
            * SIDES**j
            * comb(dice - 1 + extra, extra)
            * crit**extra
        )
    return Fraction(total, SIDES ** (dice + k))


def _shape(spec: PoolSpec, rulings: Rulings) -> tuple[int, tuple[int, int, int]]:
    count, modifier = pool_shape(spec, rulings, DEFAULT_LIMITS)
    return count, die_fates(modifier, rulings)


def hits_distribution(
    spec: PoolSpec, upto: int, rulings: Rulings = DEFAULT_RULINGS
) -> tuple[Fraction, ...]:
    """Exact P(0 hits), P(1 hit), … P(upto − 1 hits) of a pool."""
    count, fates = _shape(spec, rulings)
    return tuple(_counts(count, fates, k) for k in range(upto))


def at_least(spec: PoolSpec, hits: int, rulings: Rulings = DEFAULT_RULINGS) -> Fraction:
    """Exact P(a pool scores ``hits`` or more)."""
    return 1 - sum(hits_distribution(spec, max(0, hits), rulings), Fraction(0))


def _table(below_partial: Fraction, below_success: Fraction) -> dict[Outcome, Fraction]:
    return {
        Outcome.FAIL: below_partial,
        Outcome.PARTIAL: below_success - below_partial,
        Outcome.SUCCESS: 1 - below_success,
    }


def level_odds(
    spec: PoolSpec, level: int, rulings: Rulings = DEFAULT_RULINGS
) -> dict[Outcome, Fraction]:
    """Exact chances of fail, partial and success on the Level table.

    >>> {o.value: str(p) for o, p in level_odds(PoolSpec(4, advantage=1), level=1).items()}
    {'fail': '23/243', 'partial': '1135/2187', 'success': '845/2187'}
    """
    needed = thresholds(level)
    return _table(
        1 - at_least(spec, needed.partial, rulings), 1 - at_least(spec, needed.success, rulings)
    )


def quick_odds(spec: QuickSpec) -> dict[Outcome, Fraction]:
    """Exact chances of a quick roll: each die hits on 4+ (one in two), no crits.

    >>> {o.value: str(p) for o, p in quick_odds(QuickSpec((4,), advantage=1)).items()}
    {'fail': '1/4', 'partial': '1/2', 'success': '1/4'}
    """
    n = quick_dice(spec)
    none = Fraction(1, 2**n)
    return _table(none, none + Fraction(n, 2**n))


def group_odds(
    members: Sequence[tuple[PoolSpec, int]], rulings: Rulings = DEFAULT_RULINGS
) -> dict[Outcome, Fraction]:
    """Exact chances of a group roll's outcome (the most hits counts; R-42 and group_ties).

    Members are (pool, Level) in roll order. Every count at or past the highest success
    threshold is a success whoever rolled it, so the sums below it are finite and exact.
    """
    if not 1 <= len(members) <= MAX_PARTICIPANTS:
        raise RuleViolation(f"A group roll takes 1 to {MAX_PARTICIPANTS} rollers.")
    levels = [level for _, level in members]
    for level in levels:
        check_level(level)
    if rulings.group_level == GroupLevel.HIGHEST:
        level = max(levels)
        needed = thresholds(level)
        below = [
            [1 - at_least(spec, t, rulings) for t in (needed.partial, needed.success)]
            for spec, _ in members
        ]
        return _table(
            prod((b[0] for b in below), start=Fraction(1)),
            prod((b[1] for b in below), start=Fraction(1)),
        )
    top = max(thresholds(level).success for level in levels)
    dists = [hits_distribution(spec, top + 1, rulings) for spec, _ in members]
    # Whose Level counts among rollers tied for most: the added group_ties ruling.
    sign = 1 if rulings.group_ties == GroupTies.LOWEST else -1
    order = sorted(range(len(members)), key=lambda i: (sign * levels[i], i))
    result = dict.fromkeys(Outcome, Fraction(0))
    for k in range(top):
        for place, i in enumerate(order):
            # i counts at k: every roller before it in `order` has fewer, every later one ≤ k.
            p = dists[i][k]
            for j in order[:place]:
                p *= sum(dists[j][:k], Fraction(0))
            for j in order[place + 1 :]:
                p *= sum(dists[j][: k + 1], Fraction(0))
            needed = thresholds(levels[i])
            outcome = (
                Outcome.SUCCESS
                if k >= needed.success
                else Outcome.PARTIAL
                if k >= needed.partial
                else Outcome.FAIL
            )
            result[outcome] += p
    result[Outcome.SUCCESS] = 1 - result[Outcome.FAIL] - result[Outcome.PARTIAL]
    return result


def opposed_odds(
    specs: Sequence[PoolSpec],
    rulings: Rulings = DEFAULT_RULINGS,
    precision: Fraction = DEFAULT_PRECISION,
) -> OpposedOdds | None:
    """Chances of each roller in an opposed roll; None past the exact sums' bounds.

    >>> odds = opposed_odds([PoolSpec(4), PoolSpec(3)])
    >>> [round(float(p), 4) for p in (odds.first_round[0], odds.first_round_tie, odds.wins[0])]
    [0.5184, 0.2133, 0.6589]
    >>> odds.truncated < Fraction(1, 10**12)
    True
    """
    if not 2 <= len(specs) <= MAX_EXACT_ROLLERS:
        return None
    shapes = [_shape(spec, rulings) for spec in specs]
    if sum(count for count, _ in shapes) > MAX_EXACT_DICE:
        return None
    depth, dists = _deep_enough(shapes, precision)
    below = [_prefix(d) for d in dists]  # below[i][k] = P(i scores fewer than k), k ≤ depth
    truncated = sum((1 - b[depth] for b in below), Fraction(0))
    everyone = tuple(range(len(specs)))

    def outcome_of(rollers: tuple[int, ...], tied: tuple[int, ...]) -> Fraction:
        """P(exactly ``tied`` share the most hits among ``rollers``), summed below depth."""
        others = [j for j in rollers if j not in tied]
        return sum(
            (
                prod((dists[i][k] for i in tied), start=Fraction(1))
                * prod((below[j][k] for j in others), start=Fraction(1))
                for k in range(depth)
            ),
            Fraction(0),
        )

    @cache
    def wins(rollers: tuple[int, ...]) -> tuple[Fraction, ...]:
        """P(each of ``rollers`` wins in the end), rerolling the tied for most (R-43)."""
        all_tied = outcome_of(rollers, rollers)
        result = []
        for i in rollers:
            p = outcome_of(rollers, (i,))
            for size in range(2, len(rollers)):
                for tied in combinations(rollers, size):
                    if i in tied:
                        p += outcome_of(rollers, tied) * wins(tied)[tied.index(i)]
            result.append(p / (1 - all_tied) if all_tied != 1 else Fraction(0))
        return tuple(result)

    first = tuple(outcome_of(everyone, (i,)) for i in everyone)
    ties = sum(
        (
            outcome_of(everyone, tied)
            for size in range(2, len(everyone) + 1)
            for tied in combinations(everyone, size)
        ),
        Fraction(0),
    )
    return OpposedOdds(
        first_round=first,
        first_round_tie=ties,
        wins=wins(everyone),
        truncated=truncated,
    )


def _prefix(dist: Sequence[Fraction]) -> list[Fraction]:
    out = [Fraction(0)]
    for p in dist:
        out.append(out[-1] + p)
    return out


def _deep_enough(
    shapes: Sequence[tuple[int, tuple[int, int, int]]], precision: Fraction
) -> tuple[int, list[list[Fraction]]]:
    """The first depth K (doubling) whose left-out mass Σᵢ P(i ≥ K) is within ``precision``."""
    depth = 8
    while True:
        dists = [[_counts(n, fates, k) for k in range(depth)] for n, fates in shapes]
        if sum((1 - sum(d, Fraction(0)) for d in dists), Fraction(0)) <= precision:
            return depth, dists
        depth *= 2
