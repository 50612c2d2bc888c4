"""Exact odds of a dice expression's total, computed from its syntax tree.

Each node's distribution is built from its children's and cached per node, so a
repeated ``2d6`` is counted once; the distribution of the whole total keeps suffix
sums, so the chance of "this high or higher" is one lookup, not a sum per call.

* Plain dice use prefix-sum convolution; ``kh``/``kl`` an order-statistics count.
* Dice whose operations act on each die alone (``ro``, ``rr``, ``mi``, ``ma``, ``e``,
  ``t``/``f`` and ``k``/``p`` on values) get one die's distribution, then its sum.
  Dice that explode or reroll without limit are cut off deep enough that the
  probability left out (the stated *precision*) is below one in a billion.
* Anything else small enough is counted by replaying the roll over every sequence
  of faces; a set's ``k``/``p`` over the product of its items' outcomes.
* Past a fixed budget (10,000 outcomes, about 2,000,000 steps), the odds are not
  computed and the verdict says so, rather than spend seconds on one tag.

>>> from referee.notation import parse_expression
>>> chance_at_least(parse_expression("2d6"), 10)
Fraction(1, 6)
>>> odds(parse_expression("1d20+5 >= 15"), 1).chance
Fraction(11, 20)
>>> odds(parse_expression("1d6!"), 13).precision > 0
True
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

from referee.notation import (
    COMPARISONS,
    Binary,
    Dice,
    Expression,
    Group,
    Literal,
    Node,
    Number,
    Operation,
    Unary,
)

MAX_OUTCOMES = 10_000  # distinct values a distribution may hold
MAX_STEPS = 2_000_000  # estimated inner-loop steps for one expression
MAX_REPLAYS = 10_000  # rolls replayed when counting outcomes one by one (~0.3 s)
CUTOFF = Fraction(1, 10**9)  # exploding and rerolling dice are followed this far
TOO_MANY = "odds not computed (too many outcomes)"


class _TooCostly(Exception):
    """The distribution would pass the budget."""


@dataclass(frozen=True)
class Dist:
    """A distribution as integer ways over one denominator; ``missing`` ways were cut off."""

    ways: dict[Any, int]  # value (int, or float after /) -> ways
    denominator: int
    missing: int = 0  # ways lost to the cut-off of endless explosions or rerolls


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


def _budget(size: int) -> None:
    if size > MAX_STEPS:
        raise _TooCostly


def _combine(a: Dist, b: Dist, op: Any) -> Dist:
    _budget(len(a.ways) * len(b.ways))
    ways: defaultdict[Number, int] = defaultdict(int)
    for x, wx in a.ways.items():
        for y, wy in b.ways.items():
            try:
                ways[op(x, y)] += wx * wy
            except (ZeroDivisionError, OverflowError):
                raise _TooCostly from None
    if len(ways) > MAX_OUTCOMES:
        raise _TooCostly
    missing = a.missing * b.denominator + b.missing * a.denominator - a.missing * b.missing
    return Dist(dict(ways), a.denominator * b.denominator, missing)


def _add_lists(a: Dist, b: Dist) -> Dist:
    """Sum of two integer distributions over contiguous ranges, by list convolution."""
    if not all(type(v) is int for v in a.ways) or not all(type(v) is int for v in b.ways):
        return _combine(a, b, _ADD)
    alow, blow = min(a.ways), min(b.ways)
    alist = [0] * (max(a.ways) - alow + 1)
    blist = [0] * (max(b.ways) - blow + 1)
    for v, w in a.ways.items():
        alist[v - alow] = w
    for v, w in b.ways.items():
        blist[v - blow] = w
    _budget(len(alist) * len(blist))
    combined = [0] * (len(alist) + len(blist) - 1)
    for i, x in enumerate(alist):
        if x:
            for j, y in enumerate(blist):
                if y:
                    combined[i + j] += x * y
    if len(combined) > MAX_OUTCOMES:
        raise _TooCostly
    missing = a.missing * b.denominator + b.missing * a.denominator - a.missing * b.missing
    ways = {alow + blow + i: w for i, w in enumerate(combined) if w}
    return Dist(ways, a.denominator * b.denominator, missing)


def _ADD(x: Number, y: Number) -> Number:
    return x + y


def _power(die: Dist, count: int) -> Dist:
    """The sum of ``count`` independent copies, by repeated squaring."""
    result = Dist({0: 1}, 1)
    base = die
    while count:
        if count & 1:
            result = _add_lists(result, base)
        count >>= 1
        if count:
            base = _add_lists(base, base)
    return result


# ---------------------------------------------------------------------------- dice


def _uniform(sides: int) -> dict[int, int]:
    return dict.fromkeys(range(1, sides + 1), 1)


def _sum_ways(count: int, sides: int) -> Dist:
    """Ways for the sum of ``count`` dice, one die at a time with prefix sums."""
    _budget(count * count * sides)
    if count * (sides - 1) + 1 > MAX_OUTCOMES:
        raise _TooCostly
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


def _keep_ways(count: int, face_ways: dict[int, int], kept: frozenset[int]) -> Dist:
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
    _budget(len(faces) * len(faces) * stop * stop * count)
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
        raise _TooCostly
    return Dist(dict(result), total_ways**count)


def _ranks_kept(operations: tuple[Operation, ...], count: int) -> frozenset[int] | None:
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


# One die's state while its operations run: (value, kept, success mark).
_State = tuple[int, bool, int]


def _picked(operation: Operation, value: int) -> bool:
    return any(s.matches(value) for s in operation.selectors)


def _per_die(node: Dice) -> Dist | None:
    """One die's contribution when every operation acts on each die alone, else None."""
    operations = node.operations
    if any(s.cat in ("h", "l") for op in operations for s in op.selectors):
        return None
    if any(op.op == "ra" for op in operations):
        return None
    explode_at = next((i for i, op in enumerate(operations) if op.op == "e"), None)
    if explode_at is not None and any(
        op.op not in ("t", "f") for op in operations[explode_at + 1 :]
    ):
        return None
    sides = node.sides
    counting = any(op.op == "t" for op in operations)
    states: dict[_State, int] = {(face, True, 0): 1 for face in range(1, sides + 1)}
    denominator = sides
    missing = 0
    for operation in operations[: explode_at if explode_at is not None else len(operations)]:
        states, denominator = _step(states, denominator, operation, sides)
        if states is None:
            return None
    after = operations[explode_at + 1 :] if explode_at is not None else ()
    if explode_at is None:
        ways: defaultdict[int, int] = defaultdict(int)
        for (value, kept, success), w in states.items():
            ways[(success if counting else value) if kept else 0] += w
        return Dist(dict(ways), denominator)
    return _exploding(states, denominator, operations[explode_at], after, sides, counting, missing)


def _step(
    states: dict[_State, int], denominator: int, operation: Operation, sides: int
) -> tuple[Any, int]:
    """One operation on one die's states; a reroll splits a picked state over fresh faces."""
    op = operation.op
    following: defaultdict[_State, int] = defaultdict(int)
    scale = 1
    fresh: list[int] = []
    if op in ("ro", "rr"):
        # ro draws any face; rr rerolls until a face is not picked, so a face that is not.
        fresh = [f for f in range(1, sides + 1) if op == "ro" or not _picked(operation, f)]
        if not fresh:
            return None, 0  # every face rerolls forever: the roll itself is refused
        scale = len(fresh)
    for (value, kept, success), w in states.items():
        if not kept:
            following[(value, kept, success)] += w * scale
        elif op == "k":
            following[(value, _picked(operation, value), success)] += w * scale
        elif op == "p":
            following[(value, not _picked(operation, value), success)] += w * scale
        elif op in ("ro", "rr"):
            if _picked(operation, value):
                for face in fresh:
                    following[(face, True, success)] += w
            else:
                following[(value, kept, success)] += w * scale
        elif op == "mi":
            following[(max(value, operation.selectors[-1].n), kept, success)] += w * scale
        elif op == "ma":
            following[(min(value, operation.selectors[-1].n), kept, success)] += w * scale
        else:  # t, f
            mark = success
            if success == 0 and _picked(operation, value):
                mark = 1 if op == "t" else -1
            following[(value, kept, mark)] += w * scale
    return dict(following), denominator * scale


def _exploding(
    states: dict[_State, int],
    denominator: int,
    explode: Operation,
    after: tuple[Operation, ...],
    sides: int,
    counting: bool,
    missing: int,
) -> Dist | None:
    """A die and the chain of dice its explosions add, followed to :data:`CUTOFF`."""

    def worth(value: int) -> int:
        if not counting:
            return value
        mark = 0
        for op in after:
            if mark == 0 and _picked(op, value):
                mark = 1 if op.op == "t" else -1
        return mark

    hot = [f for f in range(1, sides + 1) if _picked(explode, f)]
    if len(hot) == sides:
        return None  # every face explodes: the roll itself is refused
    cold = [f for f in range(1, sides + 1) if not _picked(explode, f)]
    # A fresh die's chain: cold face ends it, hot face adds and continues.
    depth = 1
    while Fraction(len(hot), sides) ** depth > CUTOFF:
        depth += 1
    chain: dict[int, int] = {0: 1}  # ways over sides**k for chains of k hot faces so far
    fresh_total: defaultdict[int, int] = defaultdict(int)
    for level in range(depth):
        _budget(len(chain) * sides)
        next_chain: defaultdict[int, int] = defaultdict(int)
        for subtotal, w in chain.items():
            for face in cold:
                fresh_total[subtotal + worth(face)] += w * sides ** (depth - level - 1)
            for face in hot:
                next_chain[subtotal + worth(face)] += w
        chain = dict(next_chain)
        if len(fresh_total) > MAX_OUTCOMES:
            raise _TooCostly
    fresh_den = sides**depth
    fresh_missing = sum(chain.values())  # chains still exploding at the cut-off
    ways: defaultdict[int, int] = defaultdict(int)
    for (value, kept, success), w in states.items():
        if not kept:
            ways[0] += w * fresh_den
            continue
        own = (success if success else worth(value)) if counting else value
        if _picked(explode, value):
            for subtotal, fw in fresh_total.items():
                ways[own + subtotal] += w * fw
            missing += w * fresh_missing
        else:
            ways[own] += w * fresh_den
    return Dist(dict(ways), denominator * fresh_den, missing)


def _dice(node: Dice) -> Dist:
    count, sides, operations = node.count, node.sides, node.operations
    if count == 0:
        return Dist({0: 1}, 1)
    if not operations:
        return _sum_ways(count, sides)
    # Rerolled or clamped dice stay independent, so kh/kl/ph/pl after them keep
    # ranks among dice with weighted faces.
    per_die = 0
    while per_die < len(operations) and operations[per_die].op in ("rr", "ro", "mi", "ma"):
        per_die += 1
    ranks = _ranks_kept(operations[per_die:], count) if per_die < len(operations) else None
    if ranks is not None:
        if not ranks:
            return Dist({0: 1}, 1)
        one = _per_die(Dice(1, sides, operations[:per_die])) if per_die else None
        faces = _uniform(sides) if not per_die else None
        if one is not None:
            faces = {int(v): w for v, w in one.ways.items()}
        if faces is not None:
            if len(ranks) == count and not per_die:
                return _sum_ways(count, sides)
            return _keep_ways(count, faces, ranks)
    one = _per_die(node)
    if one is not None:
        _budget(len(one.ways) * len(one.ways) * count)
        return _power(one, count)
    return _replayed(node)


def _replayed(node: Node) -> Dist:
    """Count outcomes by replaying the roll over every sequence of faces it can draw."""
    from referee.errors import RuleViolation
    from referee.notation_roll import roll_node

    ways: defaultdict[Number, int] = defaultdict(int)
    lost = Fraction(0)
    found = Fraction(0)
    exact: defaultdict[Number, Fraction] = defaultdict(Fraction)
    stack: list[tuple[int, ...]] = [()]
    replays = 0
    while stack:
        prefix = stack.pop()
        replays += 1
        if replays > MAX_REPLAYS:
            raise _TooCostly
        source = _Replay(prefix)
        try:
            rolled = roll_node(node, source)
            value = rolled.total
        except _NeedDie as need:
            chance = source.chance / need.sides
            if chance < CUTOFF:
                lost += source.chance
                continue
            stack.extend((*prefix, face) for face in range(need.sides, 0, -1))
            continue
        except (RuleViolation, ZeroDivisionError):  # a branch the roll refuses: left out
            lost += source.chance
            continue
        exact[value] += source.chance
        found += source.chance
    if not exact:
        raise _TooCostly
    denominator = math.lcm(*(f.denominator for f in exact.values()), lost.denominator)
    for value, chance in exact.items():
        ways[value] = chance.numerator * (denominator // chance.denominator)
    return Dist(dict(ways), denominator, lost.numerator * (denominator // lost.denominator))


class _NeedDie(Exception):
    def __init__(self, sides: int) -> None:
        self.sides = sides


class _Replay:
    """A dice source that plays back a prefix of faces, then asks for the next die."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        self.prefix = prefix
        self.index = 0
        self.chance = Fraction(1)

    def roll(self, sides: int) -> int:
        if self.index == len(self.prefix):
            raise _NeedDie(sides)
        value = self.prefix[self.index]
        self.index += 1
        self.chance /= sides
        return value


# ---------------------------------------------------------------------------- tree


def _group(node: Group) -> Dist:
    if node.parenthesised and node.operations:
        return _dist(_merge_parenthesised(node))
    if node.parenthesised:
        return _dist(node.items[0])
    if not node.operations:
        result = Dist({0: 1}, 1)
        for item in node.items:
            result = _add_lists(result, _dist(item))
        return result
    items = [_dist(item) for item in node.items]
    _budget(math.prod(len(d.ways) for d in items) * len(items))
    from referee.notation_roll import OPERATIONS

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
    from referee.notation_roll import _BINARY

    left, right = _dist(node.left), _dist(node.right)
    if node.op in ("+", "-"):
        if node.op == "-":
            right = Dist({-v: w for v, w in right.ways.items()}, right.denominator, right.missing)
        return _add_lists(left, right)
    return _combine(left, right, _BINARY[node.op])


def _literal(node: Literal) -> Dist:
    return Dist({node.value: 1}, 1)


_BUILDERS: dict[type, Any] = {
    Literal: _literal,
    Dice: _dice,
    Group: _group,
    Unary: _unary,
    Binary: _binary,
}


@functools.lru_cache(maxsize=1024)
def _dist(node: Node) -> Dist:
    return _BUILDERS[type(node)](node)


@functools.lru_cache(maxsize=1024)
def _final(node: Node) -> _Final | None:
    try:
        return _Final(_dist(node))
    except (_TooCostly, RecursionError):
        return None


# Expressions come from the parse cache, so the same object returns for the same
# text: looking it up by identity skips hashing its whole tree on every verdict.
_BY_IDENTITY: dict[int, tuple[Expression, _Final | None]] = {}


def _final_of(expression: Expression) -> _Final | None:
    entry = _BY_IDENTITY.get(id(expression))
    if entry is not None and entry[0] is expression:
        return entry[1]
    final = _final(expression.root)
    if len(_BY_IDENTITY) > 2048:
        _BY_IDENTITY.clear()
    _BY_IDENTITY[id(expression)] = (expression, final)
    return final


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
    final = _final_of(expression)
    if final is not None:
        known = final.odds.get(total)
        if known is not None:
            return known
    root = expression.root
    comparison = isinstance(root, Binary) and root.op in COMPARISONS
    if final is None:
        return Odds(None, reason=TOO_MANY, comparison=comparison)
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


def _is_comparison(expression: Expression) -> bool:
    root = expression.root
    return isinstance(root, Binary) and root.op in COMPARISONS


def _plain(expression: Expression, total: int) -> Fraction | None:
    final = _final_of(expression)
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
    final = _final_of(expression)
    if final is None:
        return None
    return {
        value: Fraction(final.suffix[i] - final.suffix[i + 1], final.denominator)
        for i, value in enumerate(final.values)
    }
