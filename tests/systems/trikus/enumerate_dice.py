"""Every way a duel can go: each face of each die it draws, enumerated through the code itself.

:func:`enumerate_dice` runs a function of a dice source over every sequence of faces it
can draw (a prefix that runs out branches on the next die), so the tests can check
exact chances against the duel, resolve_test and the verdict's own code, fraction for
fraction. Keep the cases small: each sequence is a full run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction

from referee.systems.trikus.duel import SIDES


class _Exhausted(Exception):
    """The prefix of dice ran out: the enumeration branches on the next die."""


class Prefix:
    def __init__(self, values: tuple[int, ...]) -> None:
        self.values, self.used = values, 0

    def roll(self, sides: int) -> int:
        if self.used == len(self.values):
            raise _Exhausted
        self.used += 1
        return self.values[self.used - 1]


def enumerate_dice(run: Callable[[Prefix], object]) -> Counter:
    """Every way ``run`` can go, over every face of every die it draws, with its chance."""
    found: Counter = Counter()
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        source = Prefix(prefix)
        try:
            result = run(source)
        except _Exhausted:
            stack.extend((*prefix, face) for face in range(1, SIDES + 1))
            continue
        assert source.used == len(prefix), "a finished test left dice unread"
        found[result] += Fraction(1, SIDES ** len(prefix))
    return found
