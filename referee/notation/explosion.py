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
  (:class:`~referee.notation.keep.RankReducer`): ``4d6e6kh3``, ``3d6e6ro1``,
  ``10d6k1ph1``, ``3d6ra6``.

>>> from referee.notation.parse import parse_expression
>>> dist = chained(parse_expression("4d6e6kh3").root)
>>> dist.missing > 0, max(dist.ways)
(True, 18)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from referee.notation.distributions import (
    CUTOFF,
    MAX_OUTCOMES,
    Dist,
    TooCostly,
    add_lists,
    as_row,
    budget,
    convolve,
    from_chances,
    power,
)
from referee.notation.keep import FOLD_STEP, RankReducer, fold
from referee.notation.tree import Dice, Operation

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
    # Each of the dice is cut off at its share, so all of them together lose less than CUTOFF.
    cutoff = CUTOFF / max(1, node.count)
    return _exploding(states, denominator, operations[explode_at], after, sides, counting, cutoff)


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
    cutoff: Fraction,
) -> Dist | None:
    """A die and the chain of dice its explosions add, followed until less than
    ``cutoff`` of the chance is left out."""

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
    while Fraction(len(hot), sides) ** depth > cutoff:
        depth += 1
    # No face explodes (1d1e0): the chain is the fresh die alone.
    hot_low, hot_row = as_row(Counter(worth(face) for face in hot)) if hot else (0, [0])
    cold_low, cold_row = as_row(Counter(worth(face) for face in cold))
    # Ways over sides**k of the chains of k hot faces so far, by subtotal from chain_low.
    chain_low, chain = 0, [1]
    fresh_total: defaultdict[int, int] = defaultdict(int)
    for level in range(depth):
        budget(len(chain) * 4)
        scale = sides ** (depth - level - 1)
        for i, w in enumerate(convolve(chain, cold_row)):
            if w:
                fresh_total[chain_low + cold_low + i] += w * scale
        chain_low, chain = chain_low + hot_low, convolve(chain, hot_row)
        if len(fresh_total) > MAX_OUTCOMES:
            raise TooCostly
    chain_total = sum(chain)
    fresh_den = sides**depth
    fresh_missing = chain_total  # chains still exploding at the cut-off
    missing = 0
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


FRACTION_STEP = 25  # an exact fraction's sum and product: about 25 plain steps (measured)
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


def chained(node: Dice, cutoff: Fraction = CUTOFF) -> Dist | None:
    """The total of dice with per-die operations around at most one explosion, then at
    most one ``ra``, and at most one ``kh``/``kl``/``ph``/``pl`` last; None for any other
    shape.

    Each die's chain (the die, then the dice its explosion adds) is summarised as it
    grows, with whether ``ra`` picks one of its dice; then the chains of all ``count``
    dice are merged, and where ``ra`` picked a die, one fresh die joins them.
    Operations before the explosion act on the first die of a chain only, those after
    on every die in it (and those after ``ra`` on the die it adds too). Chains are
    followed until less than ``cutoff`` of the chance is left out in all.
    """
    if node.count == 0:
        return Dist({0: 1}, 1)
    operations = node.operations
    reducer: Any = _SumReducer
    if operations:
        rank = RankReducer.of(operations[-1])
        if rank is not None:
            reducer, operations = rank, operations[:-1]
    shape = _chain_shape(operations)
    if shape is None:
        return None
    before, explode, middle, once, after = shape
    counting = any(op.op == "t" for op in operations)
    if counting and reducer is not _SumReducer:
        return None
    by_rank = once is not None and once.selectors[0].cat in ("h", "l")
    by_rank = by_rank and once is not None and any(s.n >= 1 for s in once.selectors)
    sides = node.sides

    def worth(state: _State) -> int | None:
        value, kept, success = state
        if not kept:
            return None if reducer is not _SumReducer else 0
        return success if counting else value

    def run(states: Any, operations: tuple[Operation, ...]) -> tuple[Any, int]:
        denominator = 1
        for operation in operations:
            states, denominator = step(states, denominator, operation, sides)
            if states is None:
                raise TooCostly  # every face rerolls forever: the roll is refused
        return states, denominator

    finals: dict[_State, dict[tuple[int | None, bool], Fraction]] = {}

    def final(state: _State) -> dict[tuple[int | None, bool], Fraction]:
        """What a die in ``state`` adds once the operations after the explosion ran,
        and whether ``ra`` picks it."""
        known = finals.get(state)
        if known is None:
            known = defaultdict(Fraction)
            checked, denominator = run({state: 1}, middle)
            for end, ways in checked.items():
                hit = once is not None and end[1] and (by_rank or picked(once, end[0]))
                ended, more = run({end: 1}, after)
                for last, last_ways in ended.items():
                    known[(worth(last), hit)] += Fraction(ways * last_ways, denominator * more)
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

    def added(summary: Any, state: _State) -> dict[Any, Fraction]:
        """``summary`` (of dice so far, whether ra picked one) with one more die."""
        grown: defaultdict[Any, Fraction] = defaultdict(Fraction)
        dice, hit = summary
        for (value, picked_now), p in final(state).items():
            more = dice if value is None else reducer.add(dice, value)
            grown[(more, hit or picked_now)] += p
        return grown

    empty = (reducer.empty, False)
    done: defaultdict[Any, Fraction] = defaultdict(Fraction)
    growing: defaultdict[Any, Fraction] = defaultdict(Fraction)  # chains still exploding
    for state, ways in first.items():
        chance = Fraction(ways, denominator)
        target = growing if state[1] and hot(state[0]) else done
        for summary, p in added(empty, state).items():
            target[summary] += chance * p
    fresh = [(face, True, 0) for face in range(1, sides + 1)]
    missing = Fraction(0)
    while growing:
        left = sum(growing.values())
        if left < cutoff / max(1, node.count):
            missing += left
            break
        budget(len(growing) * sides * 2 * FRACTION_STEP)
        following: defaultdict[Any, Fraction] = defaultdict(Fraction)
        for summary, chance in growing.items():
            for state in fresh:
                target = following if hot(state[0]) else done
                for grown, p in added(summary, state).items():
                    target[grown] += chance * p / sides
        growing = following
        if len(done) + len(growing) > MAX_OUTCOMES:
            raise TooCostly
    if once is None and reducer is _SumReducer:
        sums = {dice: chance for (dice, _), chance in done.items()}
        return power(from_chances(sums, missing), node.count)
    one = from_chances(dict(done), missing)
    extra = Dist({reducer.empty: 1}, 1)  # what ra's fresh die adds
    if once is not None:
        fresh_worth: defaultdict[Any, Fraction] = defaultdict(Fraction)
        for face in range(1, sides + 1):
            ended, more = run({(face, True, 0): 1}, after)
            for last, ways in ended.items():
                value = worth(last)
                dice = reducer.empty if value is None else reducer.add(reducer.empty, value)
                fresh_worth[dice] += Fraction(ways, more * sides)
        extra = from_chances(dict(fresh_worth))
    if reducer is _SumReducer:
        return _summed_once(one, node.count, extra)
    merged = fold(one.ways, node.count, lambda a, b: (reducer.merge(a[0], b[0]), a[1] or b[1]))
    budget(len(merged) * len(extra.ways) * FOLD_STEP)
    totals: defaultdict[int, int] = defaultdict(int)
    for (dice, hit), ways in merged.items():
        if hit:
            for more, extra_ways in extra.ways.items():
                totals[reducer.total(reducer.merge(dice, more))] += ways * extra_ways
        else:
            totals[reducer.total(dice)] += ways * extra.denominator
    denominator = one.denominator**node.count * extra.denominator
    found = (one.denominator - one.missing) ** node.count * extra.denominator
    return Dist(dict(totals), denominator, denominator - found)


def _summed_once(one: Dist, count: int, extra: Dist) -> Dist:
    """The sum of ``count`` dice summarised as ``(sum, ra picked one)``, with ``extra``
    added when any was picked: all the dice, less those where none was, by powers."""
    every: defaultdict[int, int] = defaultdict(int)
    unpicked: defaultdict[int, int] = defaultdict(int)
    for (dice, hit), ways in one.ways.items():
        every[dice] += ways
        if not hit:
            unpicked[dice] += ways
    all_dice = power(Dist(dict(every), one.denominator), count)
    none_picked = Dist({}, all_dice.denominator)  # ra picks a die whenever one is kept
    if unpicked:
        none_picked = power(Dist(dict(unpicked), one.denominator), count)
    some_picked = {
        total: ways - none_picked.ways.get(total, 0) for total, ways in all_dice.ways.items()
    }
    some_picked = {total: ways for total, ways in some_picked.items() if ways}
    totals: defaultdict[int, int] = defaultdict(int)
    if some_picked:
        for total, ways in add_lists(Dist(some_picked, 1), extra).ways.items():
            totals[total] += ways
    for total, ways in none_picked.ways.items():
        totals[total] += ways * extra.denominator
    denominator = all_dice.denominator * extra.denominator
    found = (one.denominator - one.missing) ** count * extra.denominator
    return Dist(
        {total: ways for total, ways in totals.items() if ways}, denominator, denominator - found
    )


def _chain_shape(operations: tuple[Operation, ...]) -> tuple[Any, ...] | None:
    """``(before, explode, middle, ra, after)`` of per-die operations around at most one
    explosion (on values) followed by at most one ``ra``; None for any other shape."""
    explode_at = [i for i, op in enumerate(operations) if op.op == "e"]
    once_at = [i for i, op in enumerate(operations) if op.op == "ra"]
    if len(explode_at) > 1 or len(once_at) > 1:
        return None
    if explode_at and once_at and once_at[0] < explode_at[0]:
        return None  # the die ra adds would explode: not a chain of its own
    special = explode_at + once_at
    if not all(_acts_alone(op) for i, op in enumerate(operations) if i not in special):
        return None
    explode = operations[explode_at[0]] if explode_at else None
    if explode is not None and any(s.cat in ("h", "l") for s in explode.selectors):
        return None
    once = operations[once_at[0]] if once_at else None
    if once is not None and len({s.cat in ("h", "l") for s in once.selectors}) > 1:
        return None
    first = special[0] if special else len(operations)
    end_middle = once_at[0] if once_at else len(operations)
    middle = operations[explode_at[0] + 1 : end_middle] if explode_at else ()
    after = operations[once_at[0] + 1 :] if once_at else ()
    return operations[:first], explode, middle, once, after
