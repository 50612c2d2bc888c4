"""Exact odds for vehicle and ship rolls with the ordinal d10, as :class:`fractions.Fraction`.

A parameter with the ordinal d10 (RULES.md §1.5, R-10) is worth, per die:

* d4 to d10: ``10 × face + units``, the d10 read 10 → 0, so a d4 gives 10-49;
* d12 and d20: ``face × d10``, the d10 read 1-10, so a d12 gives 1-120.

The wild d6 of a named vehicle changes the face before the ordinal is attached
(R-11), so the face distribution is the ``stepped`` one: this module rolls every
combination of faces and wild die through :func:`referee.systems.stepped.execute_plan`
(the very code a verdict runs, so the odds cannot drift from the rules), groups the
kept faces, then convolves each face with its ordinal d10. Vehicle rolls hold one or
two dice, so that is at most 20 × 20 × 6 combinations, cached.

>>> from referee.systems.stepped import Rulings
>>> d4 = ordinal_distribution(ScaledSpec((4,), named=False, wild=False, ordinal=True), Rulings())
>>> min(d4), max(d4), d4[(0, 37)], sum(d4.values())
((0, 10), (0, 49), Fraction(1, 40), Fraction(1, 1))
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import prod

from referee.base.dice import FixedDice

from .. import odds as stepped_odds
from ..rulings import Rulings

ORDINAL_SIDES = 10  # the ordinal die is a d10
TENS_UP_TO = 10  # d4 to d10 make the tens; bigger dice multiply

Standing = tuple[int, int]  # (grade, total), compared lexicographically as in stepped


def ordinal_reading(sides: int, rolled: int) -> int:
    """What the ordinal d10 counts as beside a ``sides`` die: units 0-9, or a factor 1-10.

    >>> ordinal_reading(6, 10), ordinal_reading(6, 3), ordinal_reading(12, 10)
    (0, 3, 10)
    """
    if sides <= TENS_UP_TO:
        return rolled % ORDINAL_SIDES
    return rolled


def compose(sides: int, face: int, reading: int) -> int:
    """A parameter's value from its die's face and the ordinal's reading (R-10).

    ``sides`` is the parameter's die; ``face`` may be a wild d6 that replaced it (R-11).

    >>> compose(4, 3, 7), compose(10, 10, 0), compose(20, 20, 10), compose(4, 6, 2)
    (37, 100, 200, 62)
    """
    if sides <= TENS_UP_TO:
        return 10 * face + reading
    return face * reading


@dataclass(frozen=True)
class ScaledSpec:
    """A roll before the dice fall, with or without the ordinal d10 on each die.

    >>> ScaledSpec((8, 6), named=True, wild=True, ordinal=True, modifier=-1).modifier
    -1
    """

    sides: tuple[int, ...]  # the parameter (or trait, or damage) dice
    named: bool  # can fail critically (as stepped.RollSpec)
    wild: bool  # the wild d6 rides along (R-11: before the ordinal)
    ordinal: bool  # each die gets an ordinal d10 (the scale table decides, R-12)
    modifier: int = 0


@lru_cache(maxsize=1024)
def _faces(
    spec_sides: tuple[int, ...], named: bool, wild: bool, rulings: Rulings
) -> tuple[tuple[tuple[tuple[int, ...], int], int], ...]:
    """Ways each (kept faces per die, grade) comes up, over every face and wild combination."""
    from referee.systems.stepped import RollPlan, execute_plan  # stepped imports this module

    plan = RollPlan("", "", spec_sides, named, wild, ())
    counts: Counter[tuple[tuple[int, ...], int]] = Counter()
    wild_faces = range(1, stepped_odds.WILD_SIDES + 1) if wild else (None,)
    for faces in itertools.product(*(range(1, s + 1) for s in spec_sides)):
        for wild_face in wild_faces:
            drawn = [*faces] if wild_face is None else [*faces, wild_face]
            roll = execute_plan(plan, rulings, FixedDice(drawn))
            kept = tuple(
                d.value if d.kept else roll.wild.value  # type: ignore[union-attr]
                for d in roll.dice
            )
            counts[(kept, stepped_odds.grade(roll.exceptional, roll.critical, rulings))] += 1
    return tuple(sorted(counts.items()))


def _slot_values(sides: int, face: int, ordinal: bool) -> dict[int, Fraction]:
    """P(value) of one die showing ``face``, with its ordinal d10 or without."""
    if not ordinal:
        return {face: Fraction(1)}
    tenth = Fraction(1, ORDINAL_SIDES)
    result: dict[int, Fraction] = {}
    for rolled in range(1, ORDINAL_SIDES + 1):
        value = compose(sides, face, ordinal_reading(sides, rolled))
        result[value] = result.get(value, Fraction(0)) + tenth
    return result


def _convolve(a: Mapping[int, Fraction], b: Mapping[int, Fraction]) -> dict[int, Fraction]:
    result: dict[int, Fraction] = {}
    for x, p in a.items():
        for y, q in b.items():
            result[x + y] = result.get(x + y, Fraction(0)) + p * q
    return result


def ordinal_distribution(spec: ScaledSpec, rulings: Rulings) -> dict[Standing, Fraction]:
    """P(grade, total) of a scaled roll: the key a contest compares.

    >>> from referee.systems.stepped import Rulings
    >>> d12 = ordinal_distribution(ScaledSpec((12,), False, False, True), Rulings())
    >>> d12[(0, 12)]  # 2×6, 3×4, 4×3, 6×2 and 12×1: 5 ways in 120
    Fraction(1, 24)
    """
    return dict(_ordinal_distribution(spec, rulings))


@lru_cache(maxsize=1024)
def _ordinal_distribution(
    spec: ScaledSpec, rulings: Rulings
) -> tuple[tuple[Standing, Fraction], ...]:
    if not spec.sides or any(side < 1 for side in spec.sides):
        raise ValueError(f"a roll needs at least one die of at least one face, not {spec.sides}")
    denominator = prod(spec.sides) * (stepped_odds.WILD_SIDES if spec.wild else 1)
    result: dict[Standing, Fraction] = {}
    for (kept, grade), ways in _faces(spec.sides, spec.named, spec.wild, rulings):
        totals: dict[int, Fraction] = {spec.modifier: Fraction(1)}
        for sides, face in zip(spec.sides, kept, strict=True):
            totals = _convolve(totals, _slot_values(sides, face, spec.ordinal))
        weight = Fraction(ways, denominator)
        for total, chance in totals.items():
            key = (grade, total)
            result[key] = result.get(key, Fraction(0)) + weight * chance
    return tuple(sorted(result.items()))


def total_distribution(spec: ScaledSpec, rulings: Rulings) -> dict[int, Fraction]:
    """P(total) of a scaled roll, whatever its grade.

    >>> from referee.systems.stepped import Rulings
    >>> d10 = total_distribution(ScaledSpec((10,), False, False, True), Rulings())
    >>> min(d10), max(d10), len(d10)
    (10, 109, 100)
    """
    return dict(_totals(spec, rulings))


@lru_cache(maxsize=1024)
def _totals(spec: ScaledSpec, rulings: Rulings) -> tuple[tuple[int, Fraction], ...]:
    result: dict[int, Fraction] = {}
    for (_, total), chance in _ordinal_distribution(spec, rulings):
        result[total] = result.get(total, Fraction(0)) + chance
    return tuple(sorted(result.items()))


@lru_cache(maxsize=1024)
def _at_least(spec: ScaledSpec, rulings: Rulings) -> tuple[tuple[int, ...], tuple[Fraction, ...]]:
    """Every reachable total, lowest first, and P(total or more) for each."""
    totals = _totals(spec, rulings)
    remaining, chances = Fraction(1), []
    for _, chance in totals:
        chances.append(remaining)
        remaining -= chance
    return tuple(total for total, _ in totals), tuple(chances)


@lru_cache(maxsize=4096)
def contest_chance(attack: ScaledSpec, defence: ScaledSpec, rulings: Rulings) -> Fraction:
    """P(the attacking roll beats the defending one): a hit, or a wound once hit (R-5 ties).

    >>> from referee.systems.stepped import Rulings
    >>> plain_d6 = ScaledSpec((6,), False, False, False)
    >>> contest_chance(ScaledSpec((4,), False, False, True), plain_d6, Rulings())
    Fraction(1, 1)
    """
    return stepped_odds.beats(
        dict(_ordinal_distribution(attack, rulings)),
        dict(_ordinal_distribution(defence, rulings)),
        rulings.ties.value,
    )


def chance_at_least(spec: ScaledSpec, rulings: Rulings, total: int) -> Fraction:
    """P(a scaled roll totals ``total`` or more).

    >>> from referee.systems.stepped import Rulings
    >>> chance_at_least(ScaledSpec((4,), False, False, True), Rulings(), 40)
    Fraction(1, 4)
    """
    totals, chances = _at_least(spec, rulings)
    index = bisect_left(totals, total)
    return chances[index] if index < len(totals) else Fraction(0)
