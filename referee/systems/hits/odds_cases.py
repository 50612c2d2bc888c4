"""The ``hits`` rolls the conformance kit checks: each kind of roll with its exact odds.

Every :class:`~referee.system.OddsCase` samples through the engine's own roll functions
(:mod:`.rolls`), so the kit compares what a verdict rolls with what it says. The Level
table, quick, group and hit-count odds are exact; opposed rolls (and duels) are exact
rational sums to a depth whose left-out mass is under 10⁻¹² (:func:`.odds.opposed_odds`),
so the second roller's chance is given as the rest.

>>> [case.name for case in odds_cases()][:2]
['4 dice at Level 1, Advantage 1 (face)', '3 dice, Disadvantage 1: hits in combat']
"""

from __future__ import annotations

from fractions import Fraction

from referee.base.dice import DiceSource
from referee.system import OddsCase

from .odds import group_odds, hits_distribution, level_odds, opposed_odds, quick_odds
from .rolls import PoolSpec, QuickSpec, roll_group, roll_level, roll_opposed, roll_pool, roll_quick
from .rulings import DEFAULT_RULINGS

TOP = 5  # the hit-count case groups 5 hits or more


def _level(spec: PoolSpec, level: int, name: str) -> OddsCase:
    def sample(dice: DiceSource) -> str:
        return roll_level(spec, level, dice).outcome.value

    odds = level_odds(spec, level)
    return OddsCase(name, {o.value: p for o, p in odds.items()}, sample)


def _hits(spec: PoolSpec, name: str) -> OddsCase:
    exact = hits_distribution(spec, TOP)
    distribution = {str(k): p for k, p in enumerate(exact)}
    distribution[f"{TOP}+"] = 1 - sum(exact, Fraction(0))

    def sample(dice: DiceSource) -> str:
        hits = roll_pool(spec, dice).hits
        return str(hits) if hits < TOP else f"{TOP}+"

    return OddsCase(name, distribution, sample)


def _opposed(first: PoolSpec, second: PoolSpec, name: str) -> OddsCase:
    odds = opposed_odds([first, second])
    assert odds is not None
    distribution = {"first": odds.wins[0], "second": 1 - odds.wins[0]}

    def sample(dice: DiceSource) -> str:
        roll = roll_opposed([("first", first), ("second", second)], dice)
        return roll.winners[0]

    return OddsCase(name, distribution, sample)


def _quick(spec: QuickSpec, name: str) -> OddsCase:
    def sample(dice: DiceSource) -> str:
        return roll_quick(spec, dice).outcome.value

    return OddsCase(name, {o.value: p for o, p in quick_odds(spec).items()}, sample)


def _group(members: list[tuple[PoolSpec, int]], name: str) -> OddsCase:
    def sample(dice: DiceSource) -> str:
        named = [(f"m{i}", spec, level) for i, (spec, level) in enumerate(members)]
        return roll_group(named, dice, DEFAULT_RULINGS).outcome.value

    return OddsCase(name, {o.value: p for o, p in group_odds(members).items()}, sample)


def odds_cases() -> list[OddsCase]:
    """One case per kind of roll a verdict shows odds for (the kit rolls each 100,000 times;
    ``tests/systems/hits/test_odds.py`` covers more pools, hit counts and groups)."""
    return [
        _level(PoolSpec(4, advantage=1), 1, "4 dice at Level 1, Advantage 1 (face)"),
        _hits(PoolSpec(3, disadvantage=1), "3 dice, Disadvantage 1: hits in combat"),
        _quick(QuickSpec((4, 5), advantage=1), "quick roll: sources of 4 and 5 dice, Advantage 1"),
        _group([(PoolSpec(2), 1), (PoolSpec(3), 2)], "group: 2 dice at Level 1, 3 at Level 2"),
        _opposed(PoolSpec(4), PoolSpec(3), "opposed 4 dice vs 3 (or a duel), ties rerolled"),
    ]
