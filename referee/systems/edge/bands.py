"""The three result bands of an ``edge`` move and when the advantage die is spent (R-39).

A move totals two d6 and a modifier: 6 or less is a **miss** (the GM makes a move),
7-9 a **weak hit** (success with a cost), 10+ a **strong hit**. The advantage die may
replace the lower of the two dice; :func:`worth_using` says whether a policy spends
it on given dice. The roller and the exact odds both decide through it, so they
cannot disagree.

>>> band_of(6), band_of(8), band_of(10)
(<Band.MISS: 'miss'>, <Band.WEAK: 'weak'>, <Band.STRONG: 'strong'>)
>>> worth_using(Policy.UP, (3, 2), 1, 4)
True
"""

from __future__ import annotations

from enum import Enum

from referee.systems.edge.rulings import Policy

MISS_AT_MOST, STRONG_AT_LEAST = 6, 10


class Band(str, Enum):
    """A move's result band, worst first."""

    MISS = "miss"  # 6-: a miss or serious complication; the GM makes a move
    WEAK = "weak"  # 7-9: success with a cost or a small complication
    STRONG = "strong"  # 10+: a clean success


BAND_ORDER = {Band.MISS: 0, Band.WEAK: 1, Band.STRONG: 2}


def band_of(total: int) -> Band:
    """The band a total falls in."""
    if total <= MISS_AT_MOST:
        return Band.MISS
    if total < STRONG_AT_LEAST:
        return Band.WEAK
    return Band.STRONG


def with_advantage(dice: tuple[int, int], advantage: int) -> tuple[int, int]:
    """The two dice with the lower one replaced by the advantage value (the first if equal).

    >>> with_advantage((3, 2), 4), with_advantage((5, 5), 6)
    ((3, 4), (6, 5))
    """
    first, second = dice
    return (first, advantage) if second < first else (advantage, second)


def worth_using(policy: Policy, dice: tuple[int, int], modifier: int, advantage: int) -> bool:
    """Whether ``policy`` spends an advantage of ``advantage`` on these dice.

    ``up`` whenever the band rises; ``hit`` only from a miss to 7+; ``strong`` only
    to 10+; ``always`` whenever the total rises; ``never`` never.
    """
    before = sum(dice) + modifier
    after = sum(with_advantage(dice, advantage)) + modifier
    old, new = band_of(before), band_of(after)
    if policy is Policy.UP:
        return BAND_ORDER[new] > BAND_ORDER[old]
    if policy is Policy.HIT:
        return old is Band.MISS and new is not Band.MISS
    if policy is Policy.STRONG:
        return old is not Band.STRONG and new is Band.STRONG
    if policy is Policy.ALWAYS:
        return after > before
    return False
