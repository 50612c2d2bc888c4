"""Exact odds of a dice expression's total, computed from its syntax tree.

Each node's distribution is built from its children's and cached per node, so a
repeated ``2d6`` is counted once; the distribution of the whole total keeps suffix
sums, so the chance of "this high or higher" is one lookup, not a sum per call. By
topic:

* :mod:`referee.notation.distributions`: integer ways, sums, products, the budget;
* :mod:`referee.notation.keep`: ``kh``/``kl``/``ph``/``pl`` by order statistics;
* :mod:`referee.notation.exploding_keep`: exploding dice under a keep, as hot and cold
  groups of faces;
* :mod:`referee.notation.explosion`: rerolls, clamps, explosions, ``ra`` and counts die
  by die, followed until less than one chance in a billion is left out (the stated
  precision);
* :mod:`referee.notation.replay`: anything else small enough, counted by replaying the
  roll over every sequence of faces.

Past a fixed budget (:class:`~referee.base.limits.Limits`: 10,000 totals and a count of
inner steps, spent once per expression), the odds are not computed and the
verdict says so, rather than spend seconds on one tag.

>>> from referee.notation import parse_expression
>>> chance_at_least(parse_expression("2d6"), 10)
Fraction(1, 6)
>>> odds(parse_expression("1d20+5 >= 15"), 1).chance
Fraction(11, 20)
>>> odds(parse_expression("1d6!"), 13).precision > 0
True
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

from referee.base.effort import outermost
from referee.notation import distributions
from referee.notation.distributions import (
    ODDS_STEPS_PER_STEP,
    SPENT,
    TOO_MANY,
    Dist,
    TooCostly,
    add_lists,
    budget,
    combine,
    power,
    start_budget,
    sum_ways,
    uniform,
)
from referee.notation.exploding_keep import exploding_keep
from referee.notation.explosion import chained, per_die
from referee.notation.keep import keep_ways, ranks_kept, top_ways
from referee.notation.replay import replayed
from referee.notation.roll import _BINARY, OPERATIONS
from referee.notation.tree import (
    COMPARISONS,
    Binary,
    Dice,
    Expression,
    Group,
    Literal,
    Node,
    Number,
    Unary,
)

__all__ = ["TOO_MANY", "Odds", "bounds", "chance_at_least", "distribution", "odds"]


@dataclass(frozen=True)
class Odds:
    """The chance a verdict shows, and how exact it is."""

    chance: Fraction | None  # None when not computed
    precision: Fraction = Fraction(0)  # the chance may be off by at most this
    reason: str = ""  # why there is no chance, for the reader
    comparison: bool = False  # the chance is of a comparison being true


class _Final:
    """The total's distribution sorted, with suffix sums for "at least" lookups."""

    __slots__ = ("denominator", "missing", "odds", "suffix", "values")

    def __init__(self, dist: Dist) -> None:
        merged: defaultdict[int, int] = defaultdict(int)
        for value, ways in dist.ways.items():
            merged[int(value)] += ways
        self.values = sorted(merged)
        suffix = [0] * (len(self.values) + 1)
        for i in range(len(self.values) - 1, -1, -1):
            suffix[i] = suffix[i + 1] + merged[self.values[i]]
        self.suffix = suffix
        self.denominator = dist.denominator
        self.missing = dist.missing
        self.odds: dict[int, Odds] = {}  # per total asked for, as verdicts repeat

    def at_least(self, total: int) -> Fraction:
        return Fraction(self.suffix[bisect_left(self.values, total)], self.denominator)


# ---------------------------------------------------------------------------- combining
# ---------------------------------------------------------------------------- dice


def _dice(node: Dice) -> Dist:
    count, sides, operations = node.count, node.sides, node.operations
    if count == 0:
        return Dist({0: 1}, 1)
    if not operations:
        return sum_ways(count, sides)
    # Rerolled or clamped dice stay independent, so kh/kl/ph/pl after them keep
    # ranks among dice with weighted faces.
    leading = 0
    while leading < len(operations) and operations[leading].op in ("rr", "ro", "mi", "ma"):
        leading += 1
    ranks = ranks_kept(operations[leading:], count) if leading < len(operations) else None
    if ranks is not None:
        if not ranks:
            return Dist({0: 1}, 1)
        one = per_die(Dice(1, sides, operations[:leading])) if leading else None
        faces = uniform(sides) if not leading else None
        if one is not None:
            faces = {int(v): w for v, w in one.ways.items()}
        if faces is not None:
            if len(ranks) == count and not leading:
                return sum_ways(count, sides)
            if ranks == frozenset(range(len(ranks))):
                return top_ways(count, faces, len(ranks))
            if ranks == frozenset(range(count - len(ranks), count)):
                return top_ways(count, faces, len(ranks), highest=False)
            return keep_ways(count, faces, ranks)
    one = per_die(node)
    if one is not None:
        return power(one, count)
    whole = exploding_keep(node) or chained(node)
    if whole is not None:
        return whole
    return replayed(node)


def _group(node: Group) -> Dist:
    if node.parenthesised and node.operations:
        return _dist(_merge_parenthesised(node))
    if node.parenthesised:
        return _dist(node.items[0])
    if not node.operations:
        result = Dist({0: 1}, 1)
        for item in node.items:
            result = add_lists(result, _dist(item))
        return result
    alike = _alike_items_kept(node)
    if alike is not None:
        return alike
    items = [_dist(item) for item in node.items]
    # Each combination runs the set's operations on fresh items: some 20 steps an item.
    budget(math.prod(len(d.ways) for d in items) * (len(items) + 1) * 20)

    ways: defaultdict[Number, int] = defaultdict(int)
    for outcome in product(*(d.ways.items() for d in items)):
        values = [_Item(value) for value, _ in outcome]
        for operation in node.operations:
            OPERATIONS[operation.op](operation, values, None, 0)  # type: ignore[arg-type]
        weight = math.prod(w for _, w in outcome)
        ways[sum(v.total for v in values)] += weight
    denominator = math.prod(d.denominator for d in items)
    missing = denominator - sum(ways.values()) if any(d.missing for d in items) else 0
    return Dist(dict(ways), denominator, missing)


def _alike_items_kept(node: Group) -> Dist | None:
    """``(1d20, 1d20, 1d20)kh2``: identical items kept by rank are independent dice whose
    faces are the item's totals, so order statistics count them (else None)."""
    if not node.items or any(item != node.items[0] for item in node.items):
        return None
    first = node.items[0]
    count = len(node.items)
    ranks = ranks_kept(node.operations, count)
    if ranks is None:
        return None
    one = _dist(first)
    if not all(type(value) is int for value in one.ways):
        return None
    if ranks == frozenset(range(len(ranks))):
        kept = top_ways(count, one.ways, len(ranks))
    elif ranks == frozenset(range(count - len(ranks), count)):
        kept = top_ways(count, one.ways, len(ranks), highest=False)
    else:
        return None
    denominator = one.denominator**count
    return Dist(kept.ways, denominator, denominator - kept.denominator)


class _Item:
    __slots__ = ("kept", "value")

    def __init__(self, value: Number) -> None:
        self.value = value
        self.kept = True

    @property
    def total(self) -> Number:
        return self.value if self.kept else 0


def _merge_parenthesised(node: Group) -> Node:
    """``(4d6)kh3`` is ``4d6kh3``; ``((1, 2))k1`` is ``(1, 2)k1``; ``(1d6+1)k1`` a set of one."""
    inner = node.items[0]
    if isinstance(inner, Dice):
        return Dice(inner.count, inner.sides, inner.operations + node.operations)
    if isinstance(inner, Group):
        merged = Group(inner.items, inner.operations + node.operations, inner.parenthesised)
        return merged
    return Group((inner,), node.operations)


def _unary(node: Unary) -> Dist:
    inner = _dist(node.operand)
    if node.op == "+":
        return inner
    return Dist({-v: w for v, w in inner.ways.items()}, inner.denominator, inner.missing)


def _binary(node: Binary) -> Dist:
    if node.op in ("+", "-"):
        return _sum(node)
    return combine(_dist(node.left), _dist(node.right), _BINARY[node.op])


def _sum(node: Binary) -> Dist:
    """A chain of ``+`` and ``-``, with a term repeated n times counted as one n-fold sum
    (``1d20+1d20+...`` is the 51st power of one d20, not 50 additions)."""
    terms: Counter[tuple[int, Node]] = Counter()
    pending: list[tuple[int, Node]] = [(1, node)]
    while pending:
        sign, term = pending.pop()
        if isinstance(term, Binary) and term.op in ("+", "-"):
            pending.append((sign, term.left))
            pending.append((-sign if term.op == "-" else sign, term.right))
        else:
            terms[(sign, term)] += 1
    result = Dist({0: 1}, 1)
    for (sign, term), times in terms.items():
        if isinstance(term, Dice) and not term.operations:
            part = _dist(Dice(term.count * times, term.sides))
        else:
            part = power(_dist(term), times)
        if sign < 0:
            part = Dist({-v: w for v, w in part.ways.items()}, part.denominator, part.missing)
        result = add_lists(result, part)
    return result


def _literal(node: Literal) -> Dist:
    return Dist({node.value: 1}, 1)


_BUILDERS: dict[type, Any] = {
    Literal: _literal,
    Dice: _dice,
    Group: _group,
    Unary: _unary,
    Binary: _binary,
}


# Each node's distribution with the budget steps it cost, children included. A node
# found here spends its steps again, so whether an expression's odds are computed
# never depends on what was asked before.
_DISTS: dict[Node, tuple[Dist, int]] = {}


def _dist(node: Node) -> Dist:
    known = _DISTS.get(node)
    if known is not None:
        budget(known[1])
        return known[0]
    before = SPENT.steps
    dist = _BUILDERS[type(node)](node)
    if len(_DISTS) >= 1024:
        _DISTS.clear()
    _DISTS[node] = (dist, SPENT.steps - before)
    return dist


def _final(node: Node) -> _Final | None:
    """The node's final distribution, or None when it costs more than the budget allows.

    Inside the pipeline the budget is also what the tag's and the post's step budgets
    have left (:mod:`referee.base.effort`), so a post of many costly rolls stays within
    the work one post may cause. A distribution computed is kept; a refusal is kept only
    when the full budget refused it (a smaller allowance may pass in another post).
    """
    if node in _FINALS:
        return _FINALS[node]
    meter = outermost()  # the post's: a roll's own cap is MAX_STEPS, the same everywhere
    most = distributions.MAX_STEPS
    limit = most if meter is None else min(most, meter.left * ODDS_STEPS_PER_STEP)
    start_budget(limit)
    try:
        final: _Final | None = _Final(_dist(node))
    except (TooCostly, RecursionError):
        final = None
    finally:
        spent = SPENT.steps
        start_budget()  # what callers outside count afterwards starts from nothing
    if meter is not None:
        meter.spend(min(meter.left, -(-spent // ODDS_STEPS_PER_STEP)))
    if final is not None or limit == most:
        if len(_FINALS) >= 1024:
            _FINALS.clear()
        _FINALS[node] = final
    return final


_FINALS: dict[Node, _Final | None] = {}  # each node's final distribution, once counted
# Why the odds of a roll the full budget could count were not: its post's earlier rolls.
POST_SPENT = (
    "odds not computed (the rolls before it in this post took the work one post may "
    "cause; roll it in a post of its own for its odds)"
)


# ---------------------------------------------------------------------------- public


def bounds(node: Node) -> tuple[Number, Number] | None:
    """The lowest and highest value of sums of plain dice and numbers; None for the rest.

    >>> from referee.notation import parse_expression
    >>> bounds(parse_expression("4d6kh3-1d4+2").root)
    (1, 19)
    """
    if isinstance(node, Literal):
        return node.value, node.value
    if isinstance(node, Dice):
        kept = node.count
        if node.operations:
            last = node.operations[0]
            if len(node.operations) > 1 or last.op != "k" or last.selectors[0].cat not in "hl":
                return None
            kept = min(kept, last.selectors[0].n)
        return kept, kept * node.sides
    if isinstance(node, Unary):
        inner = bounds(node.operand)
        if inner is None or node.op == "+":
            return inner
        return -inner[1], -inner[0]
    if isinstance(node, Binary) and node.op in ("+", "-"):
        left, right = bounds(node.left), bounds(node.right)
        if left is None or right is None:
            return None
        if node.op == "+":
            return left[0] + right[0], left[1] + right[1]
        return left[0] - right[1], left[1] - right[0]
    return None


def odds(expression: Expression, total: int) -> Odds:
    """The chance of a total this high or higher (of 1, for a comparison), and its precision.

    >>> from referee.notation import parse_expression
    >>> odds(parse_expression("4d6kh3"), 18)
    Odds(chance=Fraction(7, 432), precision=Fraction(0, 1), reason='', comparison=False)
    >>> odds(parse_expression("1000d1000"), 500_000).reason
    'odds not computed (too many outcomes)'
    """
    final = _final(expression.root)
    if final is not None:
        known = final.odds.get(total)
        if known is not None:
            return known
    root = expression.root
    comparison = isinstance(root, Binary) and root.op in COMPARISONS
    if final is None:
        reason = TOO_MANY if root in _FINALS else POST_SPENT
        return Odds(None, reason=reason, comparison=comparison)
    target = 1 if comparison else total
    precision = Fraction(final.missing, final.denominator)
    result = Odds(final.at_least(target), precision, "", comparison)
    if len(final.odds) < 4096:
        final.odds[total] = result
    return result


def chance_at_least(expression: Expression, total: int) -> Fraction | None:
    """The exact chance that ``expression`` rolls ``total`` or more; None if too costly.

    >>> from referee.notation import parse_expression
    >>> chance_at_least(parse_expression("4d6kh3"), 18)
    Fraction(7, 432)
    >>> chance_at_least(parse_expression("1000d1000"), 1000)
    Fraction(1, 1)
    """
    return _plain(expression, total)


def _plain(expression: Expression, total: int) -> Fraction | None:
    final = _final(expression.root)
    if final is not None:
        return final.at_least(total)
    known = bounds(expression.root)
    if known is not None and total <= known[0]:
        return Fraction(1)
    if known is not None and total > known[1]:
        return Fraction(0)
    return None


def distribution(expression: Expression) -> dict[int, Fraction] | None:
    """The chance of each total (whole numbers, as totals are shown), or None if too costly.

    >>> from referee.notation import parse_expression
    >>> distribution(parse_expression("2d20kh1"))[20]
    Fraction(39, 400)
    >>> distribution(parse_expression("1000d1000")) is None
    True
    """
    final = _final(expression.root)
    if final is None:
        return None
    return {
        value: Fraction(final.suffix[i] - final.suffix[i + 1], final.denominator)
        for i, value in enumerate(final.values)
    }
