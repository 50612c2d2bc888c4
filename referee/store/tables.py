"""The store's tables in memory: keyed records, posts and the ledger, as journal lines.

Every change to a table is also a journal line (:mod:`referee.store.journal`), so it
lands with the flush that makes it; the TinyDB file catches up at a checkpoint. A
:class:`KeyedTable` holds records under keys in TinyDB; a :class:`PostTable` keeps post
records in the journal, found through the index; the :class:`Ledger` appends hash-chained
roll rows and streams them back.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from operator import itemgetter
from typing import Any, Protocol

import orjson
from tinydb import TinyDB

from referee.base.errors import StoreError
from referee.store.journal import Journal
from referee.store.ledger import GENESIS, seal_line  # noqa: F401 - GENESIS is in a doctest

try:  # POSIX; elsewhere the store runs without the single-writer lock
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["KeyedTable", "Ledger", "PostTable", "Table"]

log = logging.getLogger(__name__)


KEY_FIELD = "_key"  # the field that holds a keyed record's key inside its TinyDB document
LEDGER_TABLE = "ledger"
POSTS_TABLE = "posts"  # grows with the campaign: kept in the journal, not in TinyDB
META_TABLE = "_journal"  # TinyDB's note of the journal position its tables reflect
CHECKPOINT_BYTES = 32 << 20  # journal bytes after which a flush also checkpoints
_CACHED_POSTS = 512  # post records kept in memory after they are written

Record = dict[str, Any]
Emit = Callable[..., int]  # adds a line (in pieces) to the store's batch; its offset there


class Table(Protocol):
    """What every table of the store offers: records under string keys, as copies."""

    def get(self, key: str) -> Record | None: ...
    def put(self, key: str, record: Mapping[str, Any]) -> None: ...
    def delete(self, key: str) -> bool: ...
    def __contains__(self, key: object) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def keys(self) -> Iterator[str]: ...
    def values(self) -> Iterator[Record]: ...
    def items(self) -> Iterator[tuple[str, Record]]: ...


def _json(value: Any) -> bytes:
    """``value`` as compact JSON; TypeError saying why for anything the file cannot hold.

    Checked when a record is staged, not when the journal is written, so one record
    the encoder cannot take (an integer past 64 bits, a lone surrogate) is refused
    alone instead of failing the flush that carries everyone else's changes.

    >>> _json({"points": 2**64})
    Traceback (most recent call last):
    TypeError: the store cannot write this record: Integer exceeds 64-bit range
    """
    try:
        encoded = orjson.dumps(value)
    except TypeError as exc:
        raise TypeError(f"the store cannot write this record: {exc}") from None
    # orjson's result keeps the buffer it grew (4 KB at least) however short the JSON;
    # records wait in memory until their flush, so keep an exact-size copy instead.
    return memoryview(encoded).tobytes()


def _put_line(table: str, key: str, value: bytes) -> tuple[bytes, bytes, bytes]:
    """A put line in three pieces, so the record's bytes are not copied into it."""
    head = b'{"op":"put","table":%b,"key":%b,"value":' % (orjson.dumps(table), orjson.dumps(key))
    return head, value, b"}\n"


def _delete_line(table: str, key: str) -> bytes:
    return b'{"op":"delete","table":%b,"key":%b}\n' % (orjson.dumps(table), orjson.dumps(key))


def _by_doc_id(raw_table: Mapping[str, Any]) -> Iterable[tuple[int, Any]]:
    """A raw TinyDB table's documents in doc-id order, which is insertion order."""
    ids = list(map(int, raw_table))
    if ids == sorted(ids):
        return zip(ids, raw_table.values(), strict=True)
    return sorted(zip(ids, raw_table.values(), strict=True), key=itemgetter(0))


class KeyedTable:
    """Records (JSON-safe dicts) under string keys the caller chooses, in insertion order.

    Kept in memory and in the TinyDB file. Every change is also a journal line, so
    it lands with the flush that makes it; the TinyDB file catches up at a checkpoint.
    ``get`` and the iterators return copies and ``put`` stores one, so a caller never
    changes the store by mutating a dict it holds.
    """

    def __init__(self, name: str, raw_table: Mapping[str, Any], emit: Emit | None) -> None:
        self.name = name
        self._emit = emit
        self._docs: dict[str, Record] = {}  # each record as its TinyDB document
        self._doc_ids: dict[str, int] = {}  # keys that have a document in TinyDB
        self._changed: dict[str, None] = {}  # keys put since the last checkpoint, in order
        self._removed: list[int] = []  # doc ids of keys deleted since the last checkpoint
        self._json: dict[str, bytes] = {}  # records put since the last checkpoint, as JSON
        # While a savepoint is open: how to undo each change since (see Store.savepoint).
        self._undo: list[Any] | None = None
        for doc_id, doc in _by_doc_id(raw_table):
            key = doc.get(KEY_FIELD)
            if type(key) is not str or key in self._docs:
                raise StoreError(
                    f"Table {name!r} of the store holds a document (id {doc_id}) with a "
                    f"missing or repeated {KEY_FIELD!r}; the file was edited outside "
                    "referee. Fix or remove that document, or restore a backup."
                )
            self._docs[key] = doc
            self._doc_ids[key] = doc_id

    def get(self, key: str) -> Record | None:
        """A copy of the record under ``key``, or ``None``."""
        value = self.dumps(key)
        return None if value is None else orjson.loads(value)  # the copy, made in C

    def dumps(self, key: str) -> bytes | None:
        """The record under ``key`` as JSON (what :meth:`get` decodes), or ``None``.

        A record put since the last checkpoint is kept as the JSON it was put as; the
        change set notes a record's state before a tag as these bytes, and decodes
        them only if the tag is undone or its writes are listed.
        """
        doc = self._docs.get(key)
        return None if doc is None else self._encoded(key, doc)

    def _encoded(self, key: str, doc: Record) -> bytes:
        value = self._json.get(key)
        if value is None:
            value = orjson.dumps({name: item for name, item in doc.items() if name != KEY_FIELD})
        return value

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        """Store a copy of ``record`` under ``key``, replacing any record there.

        Raises ``TypeError`` for a non-string key or a value JSON cannot hold and
        ``ValueError`` for a record with a ``_key`` field (that name is the store's).
        """
        if type(key) is not str:
            raise TypeError(f"keys are strings, not {type(key).__name__}")
        if KEY_FIELD in record:
            raise ValueError(f"{KEY_FIELD!r} is reserved for the store; rename that field")
        value = _json(record if type(record) is dict else dict(record))
        doc = orjson.loads(value)  # the copy, made in C
        doc[KEY_FIELD] = key
        previous = self._docs.get(key)
        if previous == doc:
            return
        if self._undo is not None:
            self._undo.append((key, previous, key in self._changed))
        self._set(key, doc)
        self._json[key] = value
        if self._emit is not None:
            self._emit(*_put_line(self.name, key, value))

    def delete(self, key: str) -> bool:
        """Remove the record under ``key``; return whether there was one."""
        if key not in self._docs:
            return False
        if self._undo is not None:  # rare: keep the whole table to restore its order
            self._undo.append((self._docs.copy(), self._doc_ids.copy(), self._changed.copy()))
            self._undo.append(list(self._removed))
        self._drop(key)
        if self._emit is not None:
            self._emit(_delete_line(self.name, key))
        return True

    def _begin(self) -> None:
        self._undo = []

    def _end(self, *, undo: bool) -> None:
        """Close the savepoint; with ``undo``, restore the table as it was when it opened."""
        entries, self._undo = self._undo or [], None
        if undo and entries:
            self._json.clear()  # rare: the records' JSON is made again when asked
        while undo and entries:
            entry = entries.pop()
            if type(entry) is list:  # a delete: the whole table before it
                self._removed = entry
                self._docs, self._doc_ids, self._changed = entries.pop()
                continue
            key, previous, was_changed = entry
            if previous is None:
                del self._docs[key]
            else:
                self._docs[key] = previous
            if not was_changed:
                del self._changed[key]

    def _set(self, key: str, doc: Record) -> None:
        self._docs[key] = doc
        self._changed[key] = None

    def _drop(self, key: str) -> bool:
        self._json.pop(key, None)
        if self._docs.pop(key, None) is None:
            return False
        self._changed.pop(key, None)
        doc_id = self._doc_ids.pop(key, None)
        if doc_id is not None:
            self._removed.append(doc_id)
        return True

    def _replay(self, line: Mapping[str, Any]) -> None:
        """Apply a journal line written by :meth:`put` or :meth:`delete`."""
        key = line["key"]
        if line["op"] == "put":
            doc = line["value"]
            doc[KEY_FIELD] = key
            self._set(key, doc)
            self._json.pop(key, None)
        else:
            self._drop(key)

    def __contains__(self, key: object) -> bool:
        return key in self._docs

    def __len__(self) -> int:
        return len(self._docs)

    def __iter__(self) -> Iterator[str]:
        return self.keys()

    def keys(self) -> Iterator[str]:
        """The keys in insertion order (a snapshot: deleting while iterating is safe)."""
        return iter(list(self._docs))

    def values(self) -> Iterator[Record]:
        """Copies of the records in insertion order."""
        return (orjson.loads(self._encoded(*item)) for item in list(self._docs.items()))

    def items(self) -> Iterator[tuple[str, Record]]:
        """``(key, copy of record)`` pairs in insertion order."""
        return ((item[0], orjson.loads(self._encoded(*item))) for item in list(self._docs.items()))

    def __repr__(self) -> str:
        return f"<KeyedTable {self.name!r}: {len(self)} records>"

    def _apply(self, db: TinyDB) -> None:
        """Write the changes since the last checkpoint into ``db``'s table, in bulk."""
        if not (self._changed or self._removed):
            return
        table = db.table(self.name)
        if self._removed:
            table.remove(doc_ids=self._removed)
        docs = self._docs
        updated = [self._doc_ids[key] for key in self._changed if key in self._doc_ids]
        if updated:

            def replace(doc: MutableMapping[str, Any]) -> None:
                new = docs[doc[KEY_FIELD]]
                doc.clear()
                doc.update(new)

            table.update(replace, doc_ids=updated)
        added = [key for key in self._changed if key not in self._doc_ids]
        if added:
            new_ids = table.insert_multiple(docs[key] for key in added)
            self._doc_ids.update(zip(added, new_ids, strict=True))
        cached = (db.storage.read() or {}).get(self.name, {})
        for key in self._changed:  # share TinyDB's copies instead of keeping our own
            docs[key] = cached[str(self._doc_ids[key])]
        self._changed.clear()
        self._json.clear()
        self._removed.clear()


class PostTable:
    """Keyed records that stay on disk: the journal holds them, an index finds them.

    The same reading and writing methods as :class:`KeyedTable`; ``get`` costs one
    read of one line (the last few hundred records written are kept in memory).
    Memory holds one offset per key, not the records.
    """

    def __init__(self, name: str, journal: Journal, index: dict[str, int], emit: Emit) -> None:
        self.name = name
        self._journal = journal
        self._index = index  # key -> offset of the line holding its latest record
        self._emit = emit
        self._unflushed: dict[str, tuple[int, bytes]] = {}  # key -> (batch offset, record)
        self._deleted: list[str] = []  # keys deleted since the last flush
        # While a savepoint is open: (key, its unflushed entry before, deleted count).
        self._undo: list[tuple[str, tuple[int, bytes] | None, int]] | None = None
        self._cache: OrderedDict[str, bytes] = OrderedDict()

    def get(self, key: str) -> Record | None:
        """A copy of the record under ``key``, or ``None``."""
        found = self._find(key)
        if isinstance(found, bytes):
            return orjson.loads(found)
        return found

    def dumps(self, key: str) -> bytes | None:
        """The record under ``key`` as JSON (what :meth:`get` decodes), or ``None``."""
        found = self._find(key)
        return orjson.dumps(found) if isinstance(found, dict) else found

    def _find(self, key: str) -> bytes | Record | None:
        """The record's JSON if it is in memory, else the record read from the journal."""
        unflushed = self._unflushed.get(key)
        if unflushed is not None:
            return unflushed[1]
        if key in self._deleted:
            return None
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        offset = self._index.get(key)
        if offset is None:
            return None
        record: Record = orjson.loads(self._journal.read_line(offset))["value"]
        return record

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        """Store ``record`` under ``key`` (it lands with the next flush)."""
        if type(key) is not str:
            raise TypeError(f"keys are strings, not {type(key).__name__}")
        value = _json(record if type(record) is dict else dict(record))
        if value == self.dumps(key):
            return
        self._remember_undo(key)
        self._unflushed[key] = (self._emit(*_put_line(self.name, key, value)), value)

    def _remember_undo(self, key: str) -> None:
        if self._undo is not None:
            self._undo.append((key, self._unflushed.get(key), len(self._deleted)))

    def _rewind(self) -> None:
        """Undo every put and delete since the savepoint opened."""
        for key, before, deleted in reversed(self._undo or []):
            if before is None:
                self._unflushed.pop(key, None)
            else:
                self._unflushed[key] = before
            del self._deleted[deleted:]
        self._undo = None

    def delete(self, key: str) -> bool:
        """Remove the record under ``key``; return whether there was one."""
        if key not in self:
            return False
        self._remember_undo(key)
        self._emit(_delete_line(self.name, key))
        self._unflushed.pop(key, None)
        self._deleted.append(key)
        return True

    def __contains__(self, key: object) -> bool:
        return key in self._unflushed or (key in self._index and key not in self._deleted)

    def __len__(self) -> int:
        return (
            sum(1 for _ in self.keys())
            if self._deleted
            else len(self._index) + sum(1 for key in self._unflushed if key not in self._index)
        )

    def __iter__(self) -> Iterator[str]:
        return self.keys()

    def keys(self) -> Iterator[str]:
        """The keys in the order they were first put (a snapshot)."""
        return iter(list(self._keys()))

    def _keys(self) -> Iterator[str]:
        deleted = set(self._deleted)
        yield from (key for key in self._index if key not in deleted or key in self._unflushed)
        yield from (key for key in self._unflushed if key not in self._index)

    def newest(self) -> Iterator[str]:
        """The keys, the most recently first put first (lazily: stop when you have enough)."""
        deleted = set(self._deleted)
        yield from reversed([key for key in self._unflushed if key not in self._index])
        yield from (
            key for key in reversed(self._index) if key not in deleted or key in self._unflushed
        )

    def values(self) -> Iterator[Record]:
        """Copies of the records in key order, read one at a time."""
        return (record for key in self.keys() if (record := self.get(key)) is not None)

    def items(self) -> Iterator[tuple[str, Record]]:
        """``(key, copy of record)`` pairs in key order, read one at a time."""
        return ((key, record) for key in self.keys() if (record := self.get(key)) is not None)

    def _flushed(self, batch_start: int) -> None:
        """The batch holding the unflushed records now starts at ``batch_start``."""
        for key in self._deleted:
            if key not in self._unflushed:
                self._index.pop(key, None)
                self._cache.pop(key, None)
        for key, (offset, value) in self._unflushed.items():
            self._index[key] = batch_start + offset
            self._remember(key, value)
        self._unflushed.clear()
        self._deleted.clear()

    def _remember(self, key: str, value: bytes) -> None:
        self._cache[key] = value
        self._cache.move_to_end(key)
        if len(self._cache) > _CACHED_POSTS:
            self._cache.popitem(last=False)

    def __repr__(self) -> str:
        return f"<PostTable {self.name!r}: {len(self)} records>"


class Ledger:
    """The roll ledger: rows in append order, each sealed with the hash of the one before.

    :meth:`append` seals a row (its ``prev`` and ``hash``) and adds it to the batch;
    iterating streams the rows from the journal, so the ledger is never held in memory.
    A post's rolls are appended once: the pipeline never rolls a post it has recorded.

    >>> ledger = Ledger(None, GENESIS, 0, lambda line: 0)
    >>> row = ledger.append({"roll_id": "kx9f2a-1", "total": 17})
    >>> (row["prev"] == GENESIS, row["hash"] == ledger.last_hash, len(ledger))
    (True, True, 1)
    """

    def __init__(self, journal: Journal | None, last_hash: str, rows: int, emit: Emit) -> None:
        self._journal = journal
        self.last_hash = last_hash  # of the newest row, flushed or not; GENESIS if none
        self._rows = rows
        self._emit = emit
        self._unflushed: list[bytes] = []

    def append(self, row: Mapping[str, Any]) -> Record:
        """Seal a copy of ``row`` after the last row and add it; the sealed row.

        Raises ``ValueError`` if ``row`` has no string ``roll_id`` and ``TypeError``
        for a value JSON cannot hold.
        """
        roll_id = row.get("roll_id")
        if type(roll_id) is not str:
            raise ValueError(f"a ledger row needs a string 'roll_id', got {roll_id!r}")
        if "op" in row:
            raise ValueError("'op' is reserved for the journal's own lines; rename that field")
        try:
            sealed, line = seal_line(row, self.last_hash)
        except TypeError as exc:
            raise TypeError(f"the store cannot write this record: {exc}") from None
        self._emit(line)
        self._unflushed.append(line)
        self.last_hash = sealed["hash"]
        self._rows += 1
        return sealed

    def __iter__(self) -> Iterator[Record]:
        """Every row in append order, streamed from the journal, then the unflushed ones."""
        return map(orjson.loads, self.lines())

    def lines(self) -> Iterator[bytes]:
        """Every row as its JSON line (the bytes its hash covers, and the hash), in order."""
        unflushed = list(self._unflushed)
        if self._journal is not None:
            for _, raw in self._journal.lines():
                if not raw.startswith(b'{"op"'):
                    yield raw
        yield from unflushed

    def __len__(self) -> int:
        return self._rows

    def __repr__(self) -> str:
        return f"<Ledger: {len(self)} rows>"
