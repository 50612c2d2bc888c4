"""The ``pool`` rolls the conformance kit checks: §2's odds table, Willpower, the free botch.

Each :class:`~referee.system.OddsCase` pairs an exact distribution with a sampler
that rolls through :func:`~referee.systems.pool.rolls.roll_plan` itself, so the kit's
100,000 seeded rolls test the roller against the odds the verdicts quote. The
``System`` value that wires this engine in returns :func:`odds_cases`.

>>> [case.name for case in odds_cases()][1]
'5 dice at difficulty 8, Willpower'
"""

from __future__ import annotations

from dataclasses import replace

from referee.base.dice import DiceSource
from referee.system import OddsCase
from referee.systems.pool.odds import BOTCH, net_distribution
from referee.systems.pool.rolls import (
    Outcome,
    Plan,
    PoolSpec,
    RollRequest,
    Table,
    plan_roll,
    roll_plan,
)
from referee.systems.pool.rulings import PoolRulings


def _case(dice: int, difficulty: int, willpower: bool, free_botch: bool, name: str) -> OddsCase:
    plan: Plan = plan_roll(RollRequest(PoolSpec(dice=dice), difficulty=difficulty), None, Table())
    plan = replace(plan, willpower=willpower, free_botch=free_botch)
    rulings = PoolRulings()

    def sample(source: DiceSource) -> int:
        roll = roll_plan(plan, rulings, source)
        return BOTCH if roll.outcome is Outcome.BOTCH else roll.net

    return OddsCase(name, net_distribution(dice, difficulty, willpower, free_botch), sample)


def odds_cases() -> list[OddsCase]:
    """Three kinds of pool roll: plain, with a Willpower point, with the free botch."""
    return [
        _case(6, 6, False, False, "6 dice at difficulty 6"),
        _case(5, 8, True, False, "5 dice at difficulty 8, Willpower"),
        _case(6, 7, False, True, "6 dice at difficulty 7, free botch"),
    ]
