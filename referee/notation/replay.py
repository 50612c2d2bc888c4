"""Odds counted by replaying a roll over every sequence of faces it can draw.

The fallback for shapes no closed form covers (``ra``, keeps mixing highest and
lowest, explosions on ``h``/``l``): the roll itself (:mod:`referee.notation.roll`) is
run against a dice source that plays back a prefix of faces and asks for the next
die, depth first, so the count is exact by construction. Branches less likely than
:data:`~referee.notation.distributions.CUTOFF` are left out (and counted as missing);
past :data:`~referee.notation.distributions.MAX_REPLAYS` rolls it gives up.

>>> from referee.notation.parse import parse_expression
>>> replayed(parse_expression("1d6ra6").root).ways[7]
1
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

from referee.base.errors import RuleViolation
from referee.notation.distributions import CUTOFF, MAX_REPLAYS, Dist, TooCostly, budget
from referee.notation.roll import roll_node
from referee.notation.tree import Node, Number


def replayed(node: Node) -> Dist:
    """Count outcomes by replaying the roll over every sequence of faces it can draw."""

    ways: defaultdict[Number, int] = defaultdict(int)
    lost = Fraction(0)
    found = Fraction(0)
    exact: defaultdict[Number, Fraction] = defaultdict(Fraction)
    stack: list[tuple[int, ...]] = [()]
    replays = 0
    drawn = 0  # faces played back over all replays: long prefixes cost more
    while stack:
        prefix = stack.pop()
        replays += 1
        drawn += len(prefix)
        if replays > MAX_REPLAYS or drawn > 10 * MAX_REPLAYS:
            raise TooCostly
        budget(REPLAY_STEP + len(prefix) * REPLAY_STEP // 10)
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
        raise TooCostly
    denominator = math.lcm(*(f.denominator for f in exact.values()), lost.denominator)
    for value, chance in exact.items():
        ways[value] = chance.numerator * (denominator // chance.denominator)
    return Dist(dict(ways), denominator, lost.numerator * (denominator // lost.denominator))


REPLAY_STEP = 400  # one replayed roll: the roll itself, from a fresh tree


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
