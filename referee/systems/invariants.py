"""What every built-in system's invariants share: each stored character read and checked.

A system's :meth:`~referee.system.System.invariants` says every way the stored state has
left its rules. The characters are checked the same way in each: the record's sheet must
read as the system's character (:meth:`SheetFormat.from_record`), under the key its name
gives, and then by the system's own checks of one character.

>>> from referee.system import load_system
>>> sheet = load_system("edge").sheet
>>> tables = {"characters": {"kara": {"name": "Kara", "sheet": {"name": "Kara"}}}}
>>> each_character(tables, sheet, lambda c, record: ["advantage 9"])
['Kara: advantage 9']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from referee.base.errors import StoreError, UserError
from referee.store.entries import character_key


def each_character(
    tables: Mapping[str, Mapping[str, Any]],
    sheet: Any,
    check: Callable[[Any, Mapping[str, Any]], Iterable[str]],
) -> list[str]:
    """Every stored character read with ``sheet`` and checked by ``check(character,
    record)``; each problem starts with the character's name."""
    problems: list[str] = []
    for key, record in tables.get("characters", {}).items():
        try:
            character = sheet.from_record(record["sheet"])
        except (UserError, StoreError, KeyError, TypeError, ValueError) as error:
            problems.append(f"{key}: the stored sheet cannot be read ({error})")
            continue
        name = str(getattr(character, "name", key))
        if character_key(name) != key:
            problems.append(f"{name}: stored under {key!r}, not its name's key")
        problems += [f"{name}: {problem}" for problem in check(character, record)]
    return problems


def within(value: object, low: int, high: int, what: str) -> list[str]:
    """``[]`` when ``value`` is a whole number from ``low`` to ``high``, else the problem.

    >>> within(9, 1, 6, "the advantage"), within(3, 1, 6, "the advantage")
    (['the advantage is 9, not 1 to 6'], [])
    """
    if type(value) is int and low <= value <= high:
        return []
    return [f"{what} is {value!r}, not {low} to {high}"]


def known(names: Iterable[str], tables: Mapping[str, Mapping[str, Any]], where: str) -> list[str]:
    """The names among ``names`` that name no stored character (said with ``where``)."""
    stored = set(tables.get("characters", {}))
    return [
        f"{where} names {name}, who is not a character"
        for name in names
        if character_key(str(name)) not in stored
    ]


def clamp(record: dict[str, Any], field: str, low: int, high: int) -> None:
    """``record[field]``, a whole number, kept from ``low`` to ``high`` (left alone if it is
    not a whole number): a voided tag's undo by difference may pass a bound a reset or an
    outright write set since.

    >>> sheet = {"stress": -1}
    >>> clamp(sheet, "stress", 0, 3); sheet
    {'stress': 0}
    """
    value = record.get(field)
    if type(value) is int and high >= low:
        record[field] = min(max(value, low), high)


def outright(
    before: Mapping[str, Any] | None,
    record: dict[str, Any],
    changes: list[list[Any]],
    path: list[str],
) -> None:
    """A field set outright (a difficulty, not a counter): undone only if it still holds
    what the voided tag wrote; set again since, the later write stands (where the core's
    undo by difference would have made it something no tag set)."""
    for at, _, new, *_ in changes:
        if at != path:
            continue
        now: Any = before
        for key in path:
            now = now.get(key) if isinstance(now, Mapping) else None
        if now != new:
            parent: Any = record
            for key in path[:-1]:
                parent = parent.get(key) if isinstance(parent, dict) else None
            if isinstance(parent, dict):
                parent[path[-1]] = now
