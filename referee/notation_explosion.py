"""Odds of dice whose operations act on each die alone: rerolls, clamps, explosions.

A die's *state* while its operations run is ``(value, kept, success mark)``; each
operation maps a die's states to the next (a reroll splits a picked state over the
fresh faces it may draw). An explosion adds a chain of fresh dice to each die it
picks; chains are followed until less than :data:`CUTOFF` of the chance is left
out, and that part is returned as ``missing`` (the verdict's stated precision).

* :func:`per_die` gives one die's contribution when every operation acts on each die
  alone (exploding dice then counted only by ``t``/``f``): the roll is its sum.
* :func:`chained` follows each die and its chain through operations before and after
  the explosion (or an ``ra``, which adds one die when any is picked), summarised for
  the sum or for one final ``kh``/``kl``/``ph``/``pl``
  (:class:`~referee.notation_keep.RankReducer`): ``4d6e6kh3``, ``3d6e6ro1``,
  ``10d6k1ph1``, ``3d6ra6``.

>>> from referee.notation_parse import parse_expression
>>> dist = chained(parse_expression("4d6e6kh3").root)
>>> dist.missing > 0, max(dist.ways)
(True, 18)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from referee.notation_distributions import (
    CUTOFF,
    MAX_OUTCOMES,
    Dist,
    TooCostly,
    budget,
    from_chances,
    power,
)
from referee.notation_keep import RankReducer, fold
from referee.notation_tree import Dice, Operation

# One die's state while its operations run: (value, kept, success mark).
_State = tuple[int, bool, int]


def picked(operation: Operation, value: int) -> bool:
    return any(s.matches(value) for s in operation.selectors)


def per_die(node: Dice) -> Dist | None:
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
        states, denominator = step(states, denominator, operation, sides)
        if states is None:
            return None
    after = operations[explode_at + 1 :] if explode_at is not None else ()
    if explode_at is None:
        ways: defaultdict[int, int] = defaultdict(int)
        for (value, kept, success), w in states.items():
            ways[(success if counting else value) if kept else 0] += w
        return Dist(dict(ways), denominator)
    return _exploding(states, denominator, operations[explode_at], after, sides, counting, missing)


def step(
    states: dict[_State, int], denominator: int, operation: Operation, sides: int
) -> tuple[Any, int]:
    """One operation on one die's states; a reroll splits a picked state over fresh faces."""
    op = operation.op
    following: defaultdict[_State, int] = defaultdict(int)
    scale = 1
    fresh: list[int] = []
    if op in ("ro", "rr"):
        # ro draws any face; rr rerolls until a face is not picked, so a face that is not.
        fresh = [f for f in range(1, sides + 1) if op == "ro" or not picked(operation, f)]
        if not fresh:
            return None, 0  # every face rerolls forever: the roll itself is refused
        scale = len(fresh)
    for (value, kept, success), w in states.items():
        if not kept:
            following[(value, kept, success)] += w * scale
        elif op == "k":
            following[(value, picked(operation, value), success)] += w * scale
        elif op == "p":
            following[(value, not picked(operation, value), success)] += w * scale
        elif op in ("ro", "rr"):
            if picked(operation, value):
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
            if success == 0 and picked(operation, value):
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
            if mark == 0 and picked(op, value):
                mark = 1 if op.op == "t" else -1
        return mark

    hot = [f for f in range(1, sides + 1) if picked(explode, f)]
    if len(hot) == sides:
        return None  # every face explodes: the roll itself is refused
    cold = [f for f in range(1, sides + 1) if not picked(explode, f)]
    # A fresh die's chain: cold face ends it, hot face adds and continues.
    depth = 1
    while Fraction(len(hot), sides) ** depth > CUTOFF:
        depth += 1
    chain: dict[int, int] = {0: 1}  # ways over sides**k for chains of k hot faces so far
    fresh_total: defaultdict[int, int] = defaultdict(int)
    for level in range(depth):
        budget(len(chain) * sides)
        next_chain: defaultdict[int, int] = defaultdict(int)
        for subtotal, w in chain.items():
            for face in cold:
                fresh_total[subtotal + worth(face)] += w * sides ** (depth - level - 1)
            for face in hot:
                next_chain[subtotal + worth(face)] += w
        chain = dict(next_chain)
        if len(fresh_total) > MAX_OUTCOMES:
            raise TooCostly
    fresh_den = sides**depth
    fresh_missing = sum(chain.values())  # chains still exploding at the cut-off
    ways: defaultdict[int, int] = defaultdict(int)
    for (value, kept, success), w in states.items():
        if not kept:
            ways[0] += w * fresh_den
            continue
        own = (success if success else worth(value)) if counting else value
        if picked(explode, value):
            for subtotal, fw in fresh_total.items():
                ways[own + subtotal] += w * fw
            missing += w * fresh_missing
        else:
            ways[own] += w * fresh_den
    return Dist(dict(ways), denominator * fresh_den, missing)


FRACTION_STEP = 10  # an exact fraction's sum and product: about ten plain steps
# Operations that act on each die alone (k/p only with value selectors).
_PER_DIE = frozenset(("rr", "ro", "mi", "ma", "t", "f", "k", "p"))


def _acts_alone(operation: Operation) -> bool:
    return operation.op in _PER_DIE and all(s.cat not in ("h", "l") for s in operation.selectors)


class _SumReducer:
    """Dice summarised by their sum (of values, or of success marks when counting)."""

    empty = 0

    @staticmethod
    def add(state: int, value: int) -> int:
        return state + value

    @staticmethod
    def merge(a: int, b: int) -> int:
        return a + b

    @staticmethod
    def total(state: int) -> int:
        return state


def chained(node: Dice) -> Dist | None:
    """The total of dice with per-die operations around at most one explosion, and at
    most one ``kh``/``kl``/``ph``/``pl`` last; None for any other shape.

    Each die's chain (the die, then the dice its explosion adds) is summarised as it
    grows, then the chains of all ``count`` dice are merged. Operations before the
    explosion act on the first die of a chain only, those after on every die in it.
    """
    if node.count == 0:
        return Dist({0: 1}, 1)
    operations = node.operations
    reducer: Any = _SumReducer
    if operations:
        rank = RankReducer.of(operations[-1])
        if rank is not None:
            reducer, operations = rank, operations[:-1]
    explode_at = [i for i, op in enumerate(operations) if op.op in ("e", "ra")]
    if len(explode_at) > 1:
        return None
    if not all(_acts_alone(op) for i, op in enumerate(operations) if i not in explode_at):
        return None
    ranked = explode_at and [s.cat in ("h", "l") for s in operations[explode_at[0]].selectors]
    if ranked and ((any(ranked) and operations[explode_at[0]].op == "e") or len(set(ranked)) > 1):
        return None
    counting = any(op.op == "t" for op in operations)
    if counting and reducer is not _SumReducer:
        return None
    split = explode_at[0] if explode_at else len(operations)
    before, after = operations[:split], operations[split + 1 :]
    explode = operations[split] if explode_at else None
    once = None
    if explode is not None and explode.op == "ra":
        once, explode = explode, None
    sides = node.sides

    def worth(state: tuple[int, bool, int]) -> int | None:
        value, kept, success = state
        if not kept:
            return None if reducer is not _SumReducer else 0
        return success if counting else value

    finals: dict[tuple[int, bool, int], dict[int | None, Fraction]] = {}

    def final(state: tuple[int, bool, int]) -> dict[int | None, Fraction]:
        """What a die in ``state`` adds once the operations after the explosion ran."""
        known = finals.get(state)
        if known is None:
            states: Any = {state: 1}
            denominator = 1
            for operation in after:
                states, denominator = step(states, denominator, operation, sides)
                if states is None:
                    raise TooCostly  # every face rerolls forever: the roll is refused
            known = defaultdict(Fraction)
            for end, ways in states.items():
                known[worth(end)] += Fraction(ways, denominator)
            finals[state] = known = dict(known)
        return known

    hot: Callable[[int], bool] = (
        (lambda value: picked(explode, value)) if explode is not None else (lambda value: False)
    )
    if explode is not None and all(hot(face) for face in range(1, sides + 1)):
        return None  # every face explodes: the roll itself is refused
    first: Any = {(face, True, 0): 1 for face in range(1, sides + 1)}
    denominator = sides
    for operation in before:
        first, denominator = step(first, denominator, operation, sides)
        if first is None:
            return None

    def added(state: Any, worth_chances: dict[int | None, Fraction]) -> dict[Any, Fraction]:
        return _grown(reducer, state, worth_chances)

    if once is not None:
        by_rank = bool(ranked and ranked[0]) and any(s.n >= 1 for s in once.selectors)
        return _added_once(node, once, first, denominator, final, reducer, by_rank)
    done: defaultdict[Any, Fraction] = defaultdict(Fraction)
    growing: defaultdict[Any, Fraction] = defaultdict(Fraction)  # chains still exploding
    for state, ways in first.items():
        chance = Fraction(ways, denominator)
        target = growing if state[1] and hot(state[0]) else done
        for summary, p in added(reducer.empty, final(state)).items():
            target[summary] += chance * p
    fresh = [(face, True, 0) for face in range(1, sides + 1)]
    missing = Fraction(0)
    work = 0
    while growing:
        left = sum(growing.values())
        if left < CUTOFF / max(1, node.count):
            missing += left
            break
        work += len(growing) * sides * 2
        budget(work * FRACTION_STEP)
        following: defaultdict[Any, Fraction] = defaultdict(Fraction)
        for summary, chance in growing.items():
            for state in fresh:
                target = following if hot(state[0]) else done
                for grown, p in added(summary, final(state)).items():
                    target[grown] += chance * p / sides
        growing = following
        if len(done) + len(growing) > MAX_OUTCOMES:
            raise TooCostly
    if reducer is _SumReducer:
        return power(from_chances(dict(done), missing), node.count)
    one = from_chances(dict(done), missing)
    merged = fold(one.ways, node.count, reducer.merge)
    totals: defaultdict[int, int] = defaultdict(int)
    for summary, ways in merged.items():
        totals[reducer.total(summary)] += ways
    denominator = one.denominator**node.count
    kept = denominator - (one.denominator - one.missing) ** node.count
    return Dist(dict(totals), denominator, kept)


def _grown(
    reducer: Any, state: Any, worth_chances: dict[int | None, Fraction]
) -> dict[Any, Fraction]:
    """``state`` with one more die, for each of what it may add (None: it was dropped)."""
    return {
        (state if value is None else reducer.add(state, value)): chance
        for value, chance in worth_chances.items()
    }


def _added_once(
    node: Dice,
    once: Operation,
    first: dict[tuple[int, bool, int], int],
    denominator: int,
    final: Callable[[tuple[int, bool, int]], dict[int | None, Fraction]],
    reducer: Any,
    by_rank: bool,
) -> Dist:
    """``ra``: one die more when any die is picked (by ``h``/``l``: whenever one is kept).

    Each die is summarised with whether it could be picked; the dice are merged, and
    where one was, a fresh die (through the operations after ``ra``) joins them.
    """
    per_die: defaultdict[Any, Fraction] = defaultdict(Fraction)
    for state, ways in first.items():
        chance = Fraction(ways, denominator)
        hit = state[1] and (by_rank or picked(once, state[0]))
        for summary, p in _grown(reducer, reducer.empty, final(state)).items():
            per_die[(summary, hit)] += chance * p
    one = from_chances(dict(per_die))
    merged = fold(one.ways, node.count, lambda a, b: (reducer.merge(a[0], b[0]), a[1] or b[1]))
    sides = node.sides
    fresh: defaultdict[Any, Fraction] = defaultdict(Fraction)
    for face in range(1, sides + 1):
        for summary, p in _grown(reducer, reducer.empty, final((face, True, 0))).items():
            fresh[summary] += p / sides
    extra = from_chances(dict(fresh))
    budget(len(merged) * len(extra.ways) * 4)
    totals: defaultdict[int, int] = defaultdict(int)
    for (summary, hit), ways in merged.items():
        if hit:
            for more, extra_ways in extra.ways.items():
                totals[reducer.total(reducer.merge(summary, more))] += ways * extra_ways
        else:
            totals[reducer.total(summary)] += ways * extra.denominator
    return Dist(dict(totals), one.denominator**node.count * extra.denominator)
