"""``trikus``'s state within the rules (RULES.md §3): what :meth:`Trikus.invariants` checks.

Each character: Morale, Light and Dark never below 0; an active character holds fewer
than 3 active Dark tokens (the third turns him, §3.5); a line lost to a Catastrophe waits
1 refresh or more, a free or struck line none (§3.5: "Musi odczekać"). Each fight in
progress: its pools are characters', and a pool still fighting is an active character's
(the dead and the fallen are out of it); the GM's dice never below 0. Each thread's open
test or fight names characters only.

>>> invariants({"trikus_party": {"party": {"refreshes": -1, "fights": {}}}})
['the party: the refresh count is -1, not 0 to 1000000']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.base.errors import StoreError
from referee.store.entries import character_key
from referee.systems.invariants import each_character, known, within

from .party import PARTY_KEY, PARTY_TABLE, SHEET, THREADS
from .state import Character, Fight, LineStatus, Status

_DARK_TO_FALL = 3


def _character(c: Character, record: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    for what, value in (
        ("Morale", c.morale),
        ("Light", c.light),
        ("active Dark", c.dark_active),
        ("used Dark", c.dark_used),
    ):
        problems += within(value, 0, 10**6, what)
    if c.status is Status.ACTIVE and c.dark_active >= _DARK_TO_FALL:
        problems.append(f"active with {c.dark_active} Dark tokens: the third turns him")
    for place, line in enumerate(c.lines, start=1):
        waiting = line.refreshes_left
        if line.status is LineStatus.LOST and not (type(waiting) is int and waiting >= 1):
            problems.append(f"line {place} is lost for {waiting!r} refreshes, not 1 or more")
        elif line.status is not LineStatus.LOST and waiting:
            problems.append(f"line {place} is {line.status.value} yet waits {waiting} refreshes")
    return problems


def invariants(tables: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Every way the stored trikus state has left §3, in words."""
    problems = each_character(tables, SHEET, _character)
    statuses: dict[str, Status] = {}
    for key, record in tables.get("characters", {}).items():
        try:
            statuses[key] = SHEET.from_record(record["sheet"]).status
        except (StoreError, KeyError, TypeError, ValueError):
            continue  # reported above
    party = tables.get(PARTY_TABLE, {}).get(PARTY_KEY)
    if party is not None:
        problems += [
            f"the party: {p}" for p in within(party.get("refreshes"), 0, 10**6, "the refresh count")
        ]
        for thread, data in party.get("fights", {}).items():
            problems += _fight(thread, data, statuses, tables)
    for thread, record in tables.get(THREADS, {}).items():
        opened = record.get("open") or {}
        problems += known(opened.get("participants", ()), tables, f"the open test of {thread}")
    return problems


def _fight(
    thread: str,
    data: Mapping[str, Any],
    statuses: Mapping[str, Status],
    tables: Mapping[str, Mapping[str, Any]],
) -> list[str]:
    where = f"the fight in {thread}"
    try:
        fight = Fight.from_dict(data)
    except StoreError as error:
        return [f"{where}: {error.message}"]
    problems = [f"{where}: {p}" for p in within(fight.gm_dice, 0, 10**6, "the GM's dice")]
    problems += known((pool.name for pool in fight.pools), tables, where)
    for pool in fight.pools:
        status = statuses.get(character_key(pool.name))
        if not pool.out and pool.dice and status not in (None, Status.ACTIVE):
            problems.append(f"{where}: {pool.name} is {status.value} yet still fights")
    return problems
