"""Exact odds of a ``pool`` roll: the distribution of net successes, botch included.

One d10 against difficulty ``d`` is a success on ``d``..10 (``11 - d`` faces), a 1 on
one face, and blank on the ``d - 2`` faces between. The pool's net before the
botch rule is the coefficient of ``x**k`` in ``(S*x + 1/x + B)**n``, counted in
whole numbers and divided by ``10**n`` at the end. The botch needs no convolution:
it is "no success and not every die blank", ``(B + 1)**n - B**n`` ways. Every roll
with no success that is not a botch, and every roll whose 1s cancel all its
successes, is a plain failure (net 0).

The result maps net successes to a :class:`~fractions.Fraction`, with
:data:`BOTCH` (-1) for a botch. §2's table, 6 dice at difficulty 6:

>>> d = net_distribution(6, 6)
>>> [round(float(p), 4) for p in (d[BOTCH], d[0], at_least(d, 1), at_least(d, 3))]
[0.0115, 0.112, 0.8765, 0.4944]

A Willpower point (R-32) adds one success after the 1s cancel, so the roll cannot
botch; a free botch (R-33) turns the botch into a failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType

FACES = 10
BOTCH = -1  # the key of a botch in a net distribution


@lru_cache(maxsize=512)
def _net_ways(dice: int, difficulty: int) -> tuple[tuple[int, ...], int]:
    """Ways for each ``successes - ones`` (index ``k + dice``) and the ways to botch."""
    hits, blanks = FACES + 1 - difficulty, difficulty - 2
    ways = [1]  # the empty pool: difference 0, one way
    for _ in range(dice):
        grown = [0] * (len(ways) + 2)
        for i, count in enumerate(ways):
            if count:
                grown[i] += count  # a 1: one down
                grown[i + 1] += count * blanks
                grown[i + 2] += count * hits
        ways = grown
    return tuple(ways), (blanks + 1) ** dice - blanks**dice


@lru_cache(maxsize=512)
def net_distribution(
    dice: int, difficulty: int, willpower: bool = False, botch_forgiven: bool = False
) -> Mapping[int, Fraction]:
    """P(net successes) for ``dice`` d10 at ``difficulty`` (2-10), :data:`BOTCH` for a botch.

    ``willpower``: one automatic success after the 1s cancel (R-32).
    ``botch_forgiven``: a botch counts as a plain failure (R-33's free botch).

    >>> dict(net_distribution(1, 6))
    {-1: Fraction(1, 10), 0: Fraction(2, 5), 1: Fraction(1, 2)}
    >>> dict(net_distribution(1, 6, willpower=True))
    {1: Fraction(1, 2), 2: Fraction(1, 2)}
    >>> dict(net_distribution(0, 6))
    {0: Fraction(1, 1)}
    """
    if not 2 <= difficulty <= FACES:
        raise ValueError(f"a difficulty is 2 to 10, not {difficulty}")
    if dice < 0:
        raise ValueError(f"a pool has 0 dice or more, not {dice}")
    ways, botches = _net_ways(dice, difficulty)
    total = FACES**dice
    counts: dict[int, int] = {}
    for index, count in enumerate(ways):
        net = index - dice
        if net > 0 and count:
            counts[net] = count
    counts[BOTCH] = botches
    counts[0] = total - botches - sum(counts[n] for n in counts if n > 0)
    if botch_forgiven or willpower:
        counts[0] += counts.pop(BOTCH)
    if willpower:
        counts = {net + 1: count for net, count in counts.items()}
    # Cached and shared between verdicts, so read-only.
    return MappingProxyType(
        {net: Fraction(count, total) for net, count in sorted(counts.items()) if count}
    )


def at_least(distribution: Mapping[int, Fraction], net: int) -> Fraction:
    """P(at least ``net`` net successes).

    >>> at_least(net_distribution(1, 6), 1)
    Fraction(1, 2)
    """
    return sum((p for n, p in distribution.items() if n >= net), Fraction(0))


def band_chance(distribution: Mapping[int, Fraction], net: int, labels: int) -> Fraction:
    """P(the band of ``net``): botch, failure, or the net's R-31 label among ``labels``.

    Net ``labels`` and above share the last label's band, so with the three default
    labels a complete success of 5 shows P(3 or more).

    >>> band_chance(net_distribution(1, 6), BOTCH, 3), band_chance(net_distribution(2, 6), 2, 1)
    (Fraction(1, 10), Fraction(13, 20))
    """
    if net < labels:
        return distribution.get(net, Fraction(0))
    return at_least(distribution, labels)


def band_chances(
    distribution: Mapping[int, Fraction], labels: tuple[str, ...]
) -> tuple[tuple[str, Fraction], ...]:
    """Every band a roll may fall in, with its exact chance: botch, failure, each R-31 label.

    Bands the roll cannot reach (a botch with Willpower) are left out.

    >>> [(band, float(p)) for band, p in band_chances(net_distribution(1, 6), ("minimal",))]
    [('botch', 0.1), ('failure', 0.4), ('minimal', 0.5)]
    """
    bands = [
        ("botch", distribution.get(BOTCH, Fraction(0))),
        ("failure", distribution.get(0, Fraction(0))),
    ]
    for net, label in enumerate(labels, 1):
        bands.append((label, band_chance(distribution, net, len(labels))))
    return tuple((band, chance) for band, chance in bands if chance)


@lru_cache(maxsize=4096)
def chance_of_band(
    dice: int, difficulty: int, willpower: bool, botch_forgiven: bool, net: int, labels: int
) -> Fraction:
    """:func:`band_chance` of the roll :func:`net_distribution` describes, cached per band.

    >>> chance_of_band(6, 6, False, False, BOTCH, 3) == net_distribution(6, 6)[BOTCH]
    True
    """
    distribution = net_distribution(dice, difficulty, willpower, botch_forgiven)
    return band_chance(distribution, min(net, labels), labels)


def compare(
    first: Mapping[int, Fraction], second: Mapping[int, Fraction], defender_holds: bool = False
) -> tuple[Fraction, Fraction, Fraction]:
    """P(first wins), P(nobody), P(second wins) of a resisted roll (R-36).

    A botch loses to anything but a botch; two botches, or equal nets, are a tie,
    which the second side (the defender) wins under ``defender_holds``.

    >>> compare({0: Fraction(1)}, {BOTCH: Fraction(1, 2), 1: Fraction(1, 2)})
    (Fraction(1, 2), Fraction(0, 1), Fraction(1, 2))
    """
    wins = ties = losses = Fraction(0)
    for a, pa in first.items():
        for b, pb in second.items():
            if a > b:  # BOTCH is -1, below every net, so a plain comparison is R-36's
                wins += pa * pb
            elif a < b:
                losses += pa * pb
            else:
                ties += pa * pb
    if defender_holds:
        return wins, Fraction(0), losses + ties
    return wins, ties, losses
