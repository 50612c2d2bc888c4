"""``hits``'s state within the rules (RULES.md §5): what :meth:`Hits.invariants` checks,
and a voided tag's undo that keeps it so (:func:`undo_within_rules`).

Each character: a sheet the GM's edit could leave (Level 1–6, counters never below 0,
Influence a player's only...: :func:`.sheet.character_problems`) and Health from 0 to
2 × (Body + Level). The campaign: Tension 1 or more, each timer's segments filled short
of full (filling one empties it), and each duel in progress between characters.

>>> from .state import CampaignState, state_to_dict
>>> invariants({"hits_campaign": {"campaign": state_to_dict(CampaignState())}})
[]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.base.errors import StoreError, UserError
from referee.store.records import Undone
from referee.systems.invariants import clamp, each_character, known, outright, within

from .application import HitsSheet
from .handlers import STATE_KEY, STATE_TABLE
from .sheet import MAX_COUNTER, MAX_LEVEL, Character, character_problems
from .state import state_from_dict


def _character(c: Character, record: Mapping[str, Any]) -> list[str]:
    return [*character_problems(c), *within(c.health, 0, c.max_health, "Health")]


def invariants(tables: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Every way the stored hits state has left §5, in words."""
    problems = each_character(tables, HitsSheet(), _character)
    record = tables.get(STATE_TABLE, {}).get(STATE_KEY)
    if record is None:
        return problems
    try:
        state = state_from_dict(record)
    except (UserError, StoreError) as error:
        return [*problems, f"the campaign: {error.message}"]
    clock = state.clock
    problems += [f"the scene: {p}" for p in within(clock.scene.tension, 1, 10**6, "Tension")]
    for timer in clock.timers:
        problems += [
            f"timer {timer.name}: {p}"
            for p in within(timer.filled, 0, timer.segments - 1, "the segments filled")
        ]
    for duel in state.duels.duels:
        problems += known((duel.initiator, duel.target), tables, f"duel {duel.id}")
    return problems


_COUNTERS = ("xp", "stress", "wounds", "influence", "unchosen_levels")


def undo_within_rules(
    table: str, before: dict[str, Any] | None, undone: Undone, changes: list[list[Any]]
) -> Undone:
    """A voided tag's undo within §5: undone by difference, a counter reset since (an
    Intermission's Stress and Wounds, a spent Influence) would fall below 0; each stays
    from 0 up, the Level from 1 to 6, Health from 0 to 2 × (Body + Level)."""
    record = undone.record
    if table == STATE_TABLE and isinstance(record, dict):
        outright(before, record, changes, ["scene", "tension"])  # set by the GM, or a scene's 1
        return undone
    sheet = record.get("sheet") if isinstance(record, dict) else None
    if table != "characters" or not isinstance(sheet, dict):
        return undone
    for counter in _COUNTERS:
        clamp(sheet, counter, 0, MAX_COUNTER)
    clamp(sheet, "level", 1, MAX_LEVEL)
    saved = sheet.get("saved")
    if isinstance(saved, dict):
        for kind in list(saved):
            clamp(saved, kind, 0, MAX_COUNTER)
    body = (sheet.get("attributes") or {}).get("body")
    level = sheet.get("level")
    if type(body) is int and type(level) is int:
        clamp(sheet, "health", 0, 2 * (body + level))
    return undone
