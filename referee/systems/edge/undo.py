"""``edge``'s state within the rules (RULES.md §4.1: the advantage is 1–6): its invariants,
and voiding a tag without leaving them.

:func:`invariants`: each character's sheet and state as a GM's edit would have to leave
them (stats and counters of the campaign, within their bounds; the advantage 1–6), and
each encounter naming characters only.

The core takes a voided tag's writes back field by field, a number by the difference
it made (:func:`referee.records.undo`). That suits a raise or a lower, not the
advantage's outright writes: a spend (→ 1), the GM's ``set``, an encounter's end (→ 1).
Undone by difference, a spend of 4 after which the GM set 6 would leave 9. So:

* a voided tag's advantage comes back only when nothing set it outright since (each
  character counts its outright writes in ``resets``); otherwise the later write stands;
* what comes back stays within 1–6 (a raise since a voided spend of 6 is not a 7);
* an encounter's record is never deleted by voiding the tag that opened it while the
  encounter holds more (later participants still go back to 1 at its end).

>>> from referee.store.records import Undone
>>> before = {"sheet": {"advantage": 6, "resets": 2}}
>>> spent = [[["sheet", "advantage"], 4, 1], [["sheet", "resets"], 0, 1]]
>>> undone = Undone({"sheet": {"advantage": 9, "resets": 1}}, ())
>>> undo_within_rules("characters", before, undone, spent).record["sheet"]["advantage"]
6
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.store.records import Undone
from referee.systems.invariants import clamp, each_character, known, within

from .application import EdgeCharacter, EdgeSheet
from .handlers import ENCOUNTERS
from .moves import Table
from .sheet import ADVANTAGE_MAX, ADVANTAGE_MIN, sheet_problems, state_problems

CHARACTERS = "characters"
_ADVANTAGE = ["sheet", "advantage"]
_RESETS = ["sheet", "resets"]


def _written(changes: list[list[Any]], path: list[str]) -> tuple[Any, Any] | None:
    """What the voided tag wrote at ``path``: (before, after), or None if it did not."""
    for at, old, new, *_ in changes:
        if at == path:
            return old, new
    return None


def undo_within_rules(
    table: str, before: dict[str, Any] | None, undone: Undone, changes: list[list[Any]]
) -> Undone:
    """The core's undo of one record, kept within the rules; ``before``: the record until now."""
    if table == ENCOUNTERS and undone.record is None and before is not None:
        return Undone(before, ())  # the encounter goes on: the void takes nobody out of it
    if table != CHARACTERS or undone.record is None or before is None:
        return undone
    sheet = undone.record.get("sheet")
    if not isinstance(sheet, dict):
        return undone
    clamp(sheet, "resets", 0, 10**9)  # a revive since set it back to 0
    if _written(changes, _ADVANTAGE) is None:
        return undone
    outright = _written(changes, _RESETS)
    resets_now = before.get("sheet", {}).get("resets", 0)
    if outright is not None and resets_now != outright[1]:
        # Set outright since (spent, set, an encounter ended): that write stands.
        sheet["advantage"] = before["sheet"]["advantage"]
    clamp(sheet, "advantage", ADVANTAGE_MIN, ADVANTAGE_MAX)
    kept = tuple(field for field in undone.kept if field != "sheet.advantage")
    return Undone(undone.record, kept)


def invariants(tables: Mapping[str, Mapping[str, Any]], rules: Table) -> list[str]:
    """Every way the stored edge state has left §4.1, in words."""

    def check(character: EdgeCharacter, record: Mapping[str, Any]) -> list[str]:
        actor = character.actor(rules)
        return [
            *sheet_problems(actor.sheet, rules.lists),
            *state_problems(actor.state, rules.lists),
            *within(character.resets, 0, 10**9, "the count of outright advantage writes"),
        ]

    problems = each_character(tables, EdgeSheet(), check)
    for thread, record in tables.get(ENCOUNTERS, {}).items():
        problems += known(record.get("participants", ()), tables, f"the encounter of {thread}")
    return problems
