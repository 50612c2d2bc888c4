"""``pool``'s state within the rules (RULES.md §2): what :meth:`Pool.invariants` checks,
and a voided tag's undo that keeps it so (:func:`undo_within_rules`).

Each character: a sheet a GM's edit could leave (traits 0–5 of the campaign's lists,
Willpower and Humanity 1–10) and Willpower points from 0 to the sheet's Willpower. Each
thread: a standing difficulty of 2–10 or none, tasks and contests whose tallies are never
below 0, and the GM's words on a roll and the declared sides naming characters only.

>>> invariants({"pool_threads": {"t3_a": ThreadState(difficulty=12).to_dict()}}, Table())
['thread t3_a: the standing difficulty is 12, not 2 to 10']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.base.errors import StoreError
from referee.store.records import Undone
from referee.systems.invariants import clamp, each_character, known, outright, within

from .character import PoolCharacter, PoolSheet
from .rolls import Table
from .sheet import sheet_problems, state_problems
from .threads import THREADS, ThreadState


def invariants(tables: Mapping[str, Mapping[str, Any]], rules: Table) -> list[str]:
    """Every way the stored pool state has left §2, in words."""

    def check(character: PoolCharacter, record: Mapping[str, Any]) -> list[str]:
        return [
            *sheet_problems(character.sheet, rules.traits),
            *state_problems(character.state, character.sheet),
        ]

    problems = each_character(tables, PoolSheet(), check)
    for thread, record in tables.get(THREADS, {}).items():
        where = f"thread {thread}"
        try:
            state = ThreadState.from_dict(record)
        except StoreError as error:
            problems.append(f"{where}: {error.message}")
            continue
        if state.difficulty is not None:
            problems += [
                f"{where}: {p}" for p in within(state.difficulty, 2, 10, "the standing difficulty")
            ]
        for call in state.calls.values():
            if call.difficulty is not None:
                problems += [
                    f"{where}: {p}" for p in within(call.difficulty, 2, 10, "a roll's difficulty")
                ]
        problems += known(state.calls, tables, f"{where}: the GM's word on a roll")
        problems += known((p.roller for p in state.pending), tables, f"{where}: a declared side")
        tallies = [(task.name, task.tally) for task in state.tasks.values()]
        tallies += [(c.name, t) for c in state.contests.values() for t in c.tallies]
        for name, tally in tallies:
            problems += [f"{where}: {p}" for p in within(tally, 0, 10**6, f"{name}'s tally")]
    return problems


def undo_within_rules(
    table: str, before: dict[str, Any] | None, undone: Undone, changes: list[list[Any]]
) -> Undone:
    """A voided tag's undo within §2: a difficulty is set outright (set again since, the
    later one stands, never the difference of the two), Willpower points stay from 0 to
    the sheet's Willpower."""
    record = undone.record
    if record is None or before is None:
        return undone
    if table == THREADS:
        outright(before, record, changes, ["difficulty"])
        for key in record.get("calls") or {}:
            outright(before, record, changes, ["calls", key, "difficulty"])
    elif table == "characters" and isinstance(record.get("sheet"), dict):
        sheet = record["sheet"]
        willpower = sheet.get("willpower")
        clamp(sheet, "willpower_points", 0, willpower if type(willpower) is int else 10)
    return undone
