"""The ``edge`` moves the conformance kit checks: §4.2's table, with and without advantage.

Each :class:`~referee.system.OddsCase` pairs the exact band odds with a sampler that
moves through :func:`~referee.systems.edge.moves.resolve_move` itself. The ``System``
value that wires this engine in returns :func:`odds_cases`.

>>> [case.name for case in odds_cases()]
['2d6+0', '2d6+1, advantage 4, edge=up', '2d6+0, advantage 6, edge=strong']
"""

from __future__ import annotations

from referee.base.dice import DiceSource
from referee.system import OddsCase
from referee.systems.edge.bands import Band
from referee.systems.edge.moves import Actor, MoveRequest, Table, resolve_move
from referee.systems.edge.odds import band_odds
from referee.systems.edge.rulings import Policy
from referee.systems.edge.sheet import Sheet, State


def _case(stat: int, advantage: int, policy: Policy, name: str) -> OddsCase:
    actor = Actor(Sheet("Kara", {"cool": stat}), State(advantage, policy))
    request, table = MoveRequest("cool"), Table()

    def sample(source: DiceSource) -> Band:
        return resolve_move(request, actor, table, source).move.result.band

    return OddsCase(name, band_odds(stat, advantage, policy), sample)


def odds_cases() -> list[OddsCase]:
    """Three kinds of move: plain, advantage under ``up``, advantage under ``strong``."""
    return [
        _case(0, 1, Policy.UP, "2d6+0"),
        _case(1, 4, Policy.UP, "2d6+1, advantage 4, edge=up"),
        _case(0, 6, Policy.STRONG, "2d6+0, advantage 6, edge=strong"),
    ]
