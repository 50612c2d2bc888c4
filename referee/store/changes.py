"""The change set of one tag: every store write it makes, kept if it resolves, undone if not.

A verb reads and writes the campaign's state (characters, encounters, a system's
own tables) only through :class:`TrackedTable` views of one :class:`ChangeSet`. The
core opens the set before a tag and, when the tag resolves, keeps what it wrote;
when the tag fails (a refusal, a bug), it puts back every record the tag changed,
in reverse order, so a failed tag never leaves half a change behind (a target
wounded by an attack whose verdict was never given).

>>> from referee.store.tables import KeyedTable
>>> changes = ChangeSet({"characters": KeyedTable("characters", {}, None)})
>>> table = changes.table("characters")
>>> table.put("kara", {"wounds": 0})
>>> changes.commit()
>>> table.put("kara", {"wounds": 1})
>>> changes.rollback()
>>> table.get("kara")
{'wounds': 0}
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import orjson

from referee.store.tables import Table

Snapshot = bytes | dict[str, Any] | None  # a record as a tag found it: its JSON, or a copy


class ChangeSet:
    """Tracked views of the store's tables, with an undo log since the last commit."""

    def __init__(self, tables: Mapping[str, Table] | Callable[[str], Table]) -> None:
        self._open = tables if callable(tables) else tables.__getitem__
        self._views: dict[str, TrackedTable] = {}
        self._undo: list[tuple[Table, str, Snapshot]] = []
        self._listeners: list[Callable[[], None]] = []

    def table(self, name: str) -> TrackedTable:
        """The tracked view of the store table ``name``."""
        view = self._views.get(name)
        if view is None:
            view = self._views[name] = TrackedTable(self._open(name), self)
        return view

    def on_rollback(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after a rollback (a cache of parsed records forgets them)."""
        self._listeners.append(listener)

    @property
    def pending(self) -> int:
        """How many writes a rollback would undo."""
        return len(self._undo)

    def commit(self) -> None:
        """Keep every write since the last commit."""
        self._undo.clear()

    def written(self) -> list[tuple[str, str, dict[str, Any] | None, dict[str, Any] | None]]:
        """Every record written since the last commit: ``(table, key, before, after)``.

        One entry per record, in the order first written; ``before`` is the record when
        the tag began (None: the tag created it), ``after`` is it now (None: deleted).
        What a later ``[[void]]`` needs to undo the tag (see :mod:`referee.resolve.corrections`).

        >>> from referee.store.tables import KeyedTable
        >>> changes = ChangeSet({"characters": KeyedTable("characters", {}, None)})
        >>> changes.table("characters").put("kara", {"wounds": 1})
        >>> changes.written()
        [('characters', 'kara', None, {'wounds': 1})]
        """
        first: dict[tuple[str, str], tuple[Table, Snapshot]] = {}
        for table, key, before in self._undo:
            first.setdefault((str(getattr(table, "name", "")), key), (table, before))
        written = []
        for (name, key), (table, noted) in first.items():
            now = _snapshot(table, key)
            if now == noted:
                continue
            before, after = _decoded(noted), _decoded(now)
            if before != after:  # the same record in another key order is no change
                written.append((name, key, before, after))
        return written

    def rollback(self) -> None:
        """Put back every record written since the last commit, newest first."""
        undo, self._undo = self._undo, []
        for table, key, noted in reversed(undo):
            before = _decoded(noted)
            if before is None:
                table.delete(key)
            else:
                table.put(key, before)
        if undo:
            for listener in self._listeners:
                listener()

    def _note(self, table: Table, key: str) -> None:
        self._undo.append((table, key, _snapshot(table, key)))


def _snapshot(table: Table, key: str) -> Snapshot:
    """The record under ``key`` as it is now: its JSON if the table keeps it (no copy made)."""
    dumps = getattr(table, "dumps", None)
    return dumps(key) if dumps is not None else table.get(key)


def _snapshot_bytes(table: Table, key: str) -> bytes | None:
    snapshot = _snapshot(table, key)
    return snapshot if snapshot is None or isinstance(snapshot, bytes) else orjson.dumps(snapshot)


def _decoded(snapshot: Snapshot) -> dict[str, Any] | None:
    return orjson.loads(snapshot) if isinstance(snapshot, bytes) else snapshot


class TrackedTable:
    """A store table whose writes go into a :class:`ChangeSet`'s undo log; reads pass through."""

    def __init__(self, table: Table, changes: ChangeSet) -> None:
        self._table = table
        self._changes = changes
        self.name = getattr(table, "name", "")

    def get(self, key: str) -> dict[str, Any] | None:
        return self._table.get(key)

    def dumps(self, key: str) -> bytes | None:
        """The record under ``key`` as JSON, or None: the table's own bytes when it keeps them
        (the same object until the record is written again), else freshly encoded."""
        return _snapshot_bytes(self._table, key)

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        self._changes._note(self._table, key)
        self._table.put(key, record)

    def delete(self, key: str) -> bool:
        if key not in self._table:
            return False
        self._changes._note(self._table, key)
        return self._table.delete(key)

    def __contains__(self, key: object) -> bool:
        return key in self._table

    def __len__(self) -> int:
        return len(self._table)

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def keys(self) -> Iterator[str]:
        return self._table.keys()

    def values(self) -> Iterator[dict[str, Any]]:
        return self._table.values()

    def items(self) -> Iterator[tuple[str, dict[str, Any]]]:
        return self._table.items()

    def newest(self) -> Iterator[str]:
        """The keys, most recently first put first, if the table keeps that order (posts)."""
        newest = getattr(self._table, "newest", None)
        return newest() if newest is not None else reversed(list(self._table.keys()))
