"""Exact odds for the ``stepped`` system, as :class:`fractions.Fraction`.

A roll is described by a :class:`RollSpec`: the trait dice, whether the roller is
named (criticals), whether a wild d6 rides along, and the sum of its modifiers.
From it this module computes, exactly:

* :func:`roll_distribution`: P(total, exceptional, critical);
* :func:`trait_distribution`: P(total) alone;
* :func:`standing_distribution`: P(grade, total), the key a contest compares
  (grade -1 for a deciding critical failure, +1 for a deciding exceptional success);
* :func:`beats`, :func:`contest_chance` (hit and wound chances) and :func:`cast_chance`.

Nothing enumerates the product of the dice. The wild die only meets the lowest
(or highest, R-1) trait die, so the count of ways is split by that extreme value
``e``: "every die at least e" minus "every die at least e+1", each a sum
convolution over a range of faces done with prefix sums. Flags such as "some die
shows the wild value" come from the same counts with that face left out
(inclusion-exclusion), so ten d12 take milliseconds::

    >>> from referee.systems.stepped.rulings import Rulings
    >>> d = trait_distribution((6,), named=False, modifier=0, rulings=Rulings())
    >>> d[1], sum(d.values())
    (Fraction(1, 6), Fraction(1, 1))
    >>> big = trait_distribution((12,) * 10, named=True, modifier=0, rulings=Rulings())
    >>> min(big), max(big), sum(big.values())
    (10, 120, Fraction(1, 1))

Results are cached on hashable arguments (:func:`functools.lru_cache`), because
every attack asks for its hit and wound chances before the dice fall.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import prod
from typing import Any

from .rulings import Rulings

WILD_SIDES = 6  # the wild die is always a d6


@dataclass(frozen=True)
class RollSpec:
    """What a roll will be, before the dice fall: enough to compute its odds.

    >>> RollSpec((8, 6), named=True, wild=True, modifier=-1).modifier
    -1
    """

    sides: tuple[int, ...]  # one entry per trait (or damage) die
    named: bool  # a named roller can fail critically (and unnamed ones only by ruling)
    wild: bool  # a wild d6 rides along (named, and on damage only by ruling)
    modifier: int = 0  # the sum of every modifier on the roll


Outcome = tuple[int, bool, bool]  # (total, exceptional, critical)
Standing = tuple[int, int]  # (grade, total): what a contest compares, lexicographically


def _sum_counts(ranges: tuple[tuple[int, int], ...], excluded: tuple[int, ...]) -> tuple[int, ...]:
    """Ways each sum comes up when die i shows a face in ``ranges[i]`` outside ``excluded``.

    The result is indexed by the sum; an empty range gives ``()`` (no way at all).

    >>> _sum_counts(((1, 2), (1, 2)), ())
    (0, 0, 1, 2, 1)
    >>> _sum_counts(((1, 3),), (2,))
    (0, 1, 0, 1)
    """
    return _sum_counts_cached(ranges, excluded)


@lru_cache(maxsize=8192)
def _sum_counts_cached(
    ranges: tuple[tuple[int, int], ...], excluded: tuple[int, ...]
) -> tuple[int, ...]:
    counts = [1]
    for low, high in ranges:
        if low > high:
            return ()
        holes = [face for face in excluded if low <= face <= high]
        prefix = [0]
        for count in counts:
            prefix.append(prefix[-1] + count)
        last = len(counts) - 1
        new = [0] * (last + high + 1)
        for total in range(low, last + high + 1):
            first, final = max(0, total - high), min(last, total - low)
            ways = prefix[final + 1] - prefix[first] if first <= final else 0
            for hole in holes:
                if 0 <= total - hole <= last:
                    ways -= counts[total - hole]
            new[total] = ways
        counts = new
    return tuple(counts)


def _minus(a: tuple[int, ...], b: tuple[int, ...]) -> list[int]:
    """Element-wise ``a - b`` with the shorter padded by zeros."""
    size = max(len(a), len(b))
    return [(a[i] if i < len(a) else 0) - (b[i] if i < len(b) else 0) for i in range(size)]


def _settle(exceptional: bool, critical: bool, rulings: Rulings) -> tuple[bool, bool]:
    """R-4: when a roll is both, one of the two gives way."""
    if exceptional and critical:
        return (False, True) if rulings.critical_beats_exceptional else (True, False)
    return exceptional, critical


@lru_cache(maxsize=4096)
def _joint_counts(
    sides: tuple[int, ...], named: bool, wild: bool, rulings: Rulings
) -> tuple[tuple[tuple[Outcome, int], ...], int]:
    """Ways each (total without modifiers, exceptional, critical) comes up, and the denominator."""
    n = len(sides)
    can_critical = named or rulings.critical_for_unnamed
    critical_any = rulings.critical_when == "any_die"
    result: dict[Outcome, int] = {}

    def add(key: Outcome, ways: int) -> None:
        if ways:
            result[key] = result.get(key, 0) + ways

    full = tuple((1, side) for side in sides)
    if not wild:
        every = _sum_counts(full, ())
        no_one = _sum_counts(full, (1,)) if can_critical and critical_any else every
        for total, ways in enumerate(every):
            if can_critical and critical_any:
                add((total, False, True), ways - no_one[total])
                add((total, False, False), no_one[total])
            else:
                add((total, False, can_critical and total == n), ways)
        return tuple(sorted(result.items())), prod(sides)

    lowest = rulings.wild_die_replaces == "lowest"
    exceptional_rule = rulings.exceptional_on.value
    for extreme in range(1, (min(sides) if lowest else max(sides)) + 1):
        if lowest:  # every die >= extreme, minus every die >= extreme + 1
            inner = tuple((extreme, side) for side in sides)
            outer = tuple((extreme + 1, side) for side in sides)
        else:  # every die <= extreme, minus every die <= extreme - 1
            inner = tuple((1, min(extreme, side)) for side in sides)
            outer = tuple((1, min(extreme - 1, side)) for side in sides)

        def exact(excluded: tuple[int, ...], inner: Any = inner, outer: Any = outer) -> list[int]:
            key = tuple(sorted(set(excluded)))
            return _minus(_sum_counts(inner, key), _sum_counts(outer, key))

        for wild_value in range(1, WILD_SIDES + 1):
            tracked: list[int] = []  # faces whose presence among the dice matters
            if exceptional_rule == "any":
                tracked.append(wild_value)
            if can_critical and critical_any and not lowest and 1 not in tracked:
                tracked.append(1)
            for present in _subsets(tracked):
                absent = tuple(face for face in tracked if face not in present)
                # inclusion-exclusion: all of `present` shown, none of `absent`
                ways_by_sum = [0] * (n * max(sides) + 1)
                for size in range(len(present) + 1):
                    for dropped in combinations(present, size):
                        sign = -1 if size % 2 else 1
                        for total, ways in enumerate(exact(absent + dropped)):
                            ways_by_sum[total] += sign * ways
                for total, ways in enumerate(ways_by_sum):
                    if not ways:
                        continue
                    exceptional = (
                        wild_value != 1
                        and {  # a wild 1 never is
                            "any": wild_value in present,
                            "replaced": wild_value == extreme,
                            "every": wild_value == extreme and total == n * wild_value,
                        }[exceptional_rule]
                    )
                    if not can_critical:
                        critical = False
                    elif critical_any:
                        critical = extreme == 1 if lowest else 1 in present
                    else:
                        critical = total == n
                    exceptional, critical = _settle(exceptional, critical, rulings)
                    add((total + max(0, wild_value - extreme), exceptional, critical), ways)
    return tuple(sorted(result.items())), prod(sides) * WILD_SIDES


def _subsets(items: list[int]) -> Iterable[tuple[int, ...]]:
    for size in range(len(items) + 1):
        yield from combinations(items, size)


def _check_sides(sides: Iterable[int]) -> tuple[int, ...]:
    checked = tuple(sides)
    if not checked or any(side < 1 for side in checked):
        raise ValueError(f"a roll needs at least one die of at least one face, not {checked}")
    return checked


def roll_distribution(
    sides: Iterable[int], named: bool, modifier: int, rulings: Rulings, *, wild: bool | None = None
) -> dict[Outcome, Fraction]:
    """P(total, exceptional, critical) of one roll; ``wild`` defaults to ``named``.

    >>> from referee.systems.stepped.rulings import Rulings
    >>> d = roll_distribution((6,), named=True, modifier=0, rulings=Rulings())
    >>> d[(6, True, False)]  # a 6 and a wild 6
    Fraction(1, 36)
    >>> d[(3, False, True)]  # a 1 on the die, a 3 on the wild die: used, but critical
    Fraction(1, 36)
    """
    return dict(
        _roll_distribution(
            _check_sides(sides), named, named if wild is None else wild, modifier, rulings
        )
    )


@lru_cache(maxsize=4096)
def _roll_distribution(
    sides: tuple[int, ...], named: bool, wild: bool, modifier: int, rulings: Rulings
) -> tuple[tuple[Outcome, Fraction], ...]:
    counts, denominator = _joint_counts(tuple(sorted(sides)), named, wild, rulings)
    return tuple(
        ((total + modifier, exceptional, critical), Fraction(ways, denominator))
        for (total, exceptional, critical), ways in counts
    )


def trait_distribution(
    sides: Iterable[int], named: bool, modifier: int, rulings: Rulings, *, wild: bool | None = None
) -> dict[int, Fraction]:
    """P(total) of one roll: trait dice, the wild d6 if named (R-1), plus ``modifier``.

    >>> from referee.systems.stepped.rulings import Rulings
    >>> trait_distribution((4,), named=True, modifier=1, rulings=Rulings())[7]  # wild 6
    Fraction(1, 6)
    """
    result: dict[int, Fraction] = {}
    joint = roll_distribution(sides, named, modifier, rulings, wild=wild)
    for (total, _, _), chance in joint.items():
        result[total] = result.get(total, Fraction(0)) + chance
    return dict(sorted(result.items()))


def chance_at_least(
    sides: Iterable[int], named: bool, modifier: int, rulings: Rulings, total: int
) -> Fraction:
    """P(a roll with these dice and modifier totals ``total`` or more), wild d6 if named.

    >>> from referee.systems.stepped.rulings import Rulings
    >>> chance_at_least((4,), named=False, modifier=0, rulings=Rulings(), total=4)
    Fraction(1, 4)
    """
    survival = _survival(_check_sides(sides), named, modifier, rulings)
    if total <= survival[0][0]:
        return Fraction(1)
    for value, chance in survival:
        if value >= total:
            return chance
    return Fraction(0)


@lru_cache(maxsize=4096)
def _survival(
    sides: tuple[int, ...], named: bool, modifier: int, rulings: Rulings
) -> tuple[tuple[int, Fraction], ...]:
    # (value, P(total >= value)) for every reachable total, lowest first.
    distribution = trait_distribution(sides, named, modifier, rulings)
    remaining = Fraction(1)
    table = []
    for value, chance in distribution.items():
        table.append((value, remaining))
        remaining -= chance
    return tuple(table)


def grade(exceptional: bool, critical: bool, rulings: Rulings) -> int:
    """-1 for a critical failure that decides, +1 for an exceptional success that does, else 0.

    >>> from referee.systems.stepped.rulings import Rulings
    >>> grade(False, True, Rulings()), grade(True, False, Rulings()), grade(False, False, Rulings())
    (-1, 0, 0)
    >>> grade(True, False, Rulings(exceptional_succeeds=True))  # R-58's option
    1
    """
    if critical and rulings.critical_fails:
        return -1
    if exceptional and rulings.exceptional_succeeds:
        return 1
    return 0


def standing_distribution(spec: RollSpec, rulings: Rulings) -> dict[Standing, Fraction]:
    """P(grade, total): the keys a contest compares, grade first.

    >>> from referee.systems.stepped.rulings import Rulings
    >>> d = standing_distribution(RollSpec((4,), named=False, wild=False), Rulings())
    >>> sorted(d)
    [(0, 1), (0, 2), (0, 3), (0, 4)]
    """
    return dict(_standing(spec, rulings))


@lru_cache(maxsize=4096)
def _standing(spec: RollSpec, rulings: Rulings) -> tuple[tuple[Standing, Fraction], ...]:
    result: dict[Standing, Fraction] = {}
    for (total, exceptional, critical), chance in _roll_distribution(
        tuple(sorted(_check_sides(spec.sides))), spec.named, spec.wild, spec.modifier, rulings
    ):
        key = (grade(exceptional, critical, rulings), total)
        result[key] = result.get(key, Fraction(0)) + chance
    return tuple(sorted(result.items()))


def beats(attack: Mapping[Any, Fraction], defence: Mapping[Any, Fraction], ties: str) -> Fraction:
    """P(the attack's key beats the defence's), with equal keys going to ``ties``.

    Keys may be totals or (grade, total) standings; they compare as Python values.

    >>> d6 = {face: Fraction(1, 6) for face in range(1, 7)}
    >>> beats(d6, d6, "defender"), beats(d6, d6, "attacker")
    (Fraction(5, 12), Fraction(7, 12))
    """
    attacker_takes_ties = ties == "attacker"
    below = Fraction(0)  # P(defence key < the current key)
    result = Fraction(0)
    for key in sorted(set(attack) | set(defence)):
        a, d = attack.get(key, Fraction(0)), defence.get(key, Fraction(0))
        result += a * below
        if attacker_takes_ties:
            result += a * d
        below += d
    return result


@lru_cache(maxsize=8192)
def contest_chance(attack: RollSpec, defence: RollSpec, rulings: Rulings) -> Fraction:
    """P(the attacking roll beats the defending one): a hit, or a wound once hit.

    >>> from referee.systems.stepped.rulings import Rulings
    >>> d6 = RollSpec((6,), named=False, wild=False)
    >>> contest_chance(d6, d6, Rulings())
    Fraction(5, 12)
    """
    return beats(
        dict(_standing(attack, rulings)), dict(_standing(defence, rulings)), rulings.ties.value
    )


hit_chance = contest_chance  # hit roll against the target's Agility roll
wound_chance = contest_chance  # damage roll against the soak (Endurance + armour) roll


@lru_cache(maxsize=4096)
def cast_chance(spec: RollSpec, needed: int, rulings: Rulings) -> Fraction:
    """P(a cast succeeds): its standing at least (0, needed), the tier's top face.

    >>> from referee.systems.stepped.rulings import Rulings
    >>> cast_chance(RollSpec((6,), named=False, wild=False), 4, Rulings())
    Fraction(1, 2)
    """
    return sum(
        (chance for key, chance in _standing(spec, rulings) if key >= (0, needed)), Fraction(0)
    )


def clear_caches() -> None:
    """Forget every cached distribution (for benchmarks that time a cold start)."""
    for cached in (
        _sum_counts_cached,
        _joint_counts,
        _roll_distribution,
        _standing,
        contest_chance,
        cast_chance,
    ):
        cached.cache_clear()
