"""The campaign store: a small TinyDB file of sheets, and an append-only journal.

Three files beside each other (for ``store.json``)::

    store.json           TinyDB: characters, vehicles, applications, encounters, the
                         worker's cursors. Small; rewritten only at a checkpoint.
    store.ledger.jsonl   the journal (referee.journal): every roll row, every post
                         record and every change to a keyed table, appended in
                         committed batches. Never rewritten.
    store.index          a checkpoint of where each post's latest record lies in the
                         journal, the roll count and the last roll's hash.

A change is in memory until :meth:`Store.flush`, which appends it as ONE batch (one
write, one fsync). At a checkpoint (on close, and after every ``CHECKPOINT_BYTES`` of
journal) the TinyDB file and the index are rewritten to reflect the journal up to
that point; opening reads both and replays only the journal after them. So the cost
of a flush and of opening does not grow with the campaign, and neither does memory:
posts stay on disk (found through the index), and the ledger is streamed.

A store is used by one thread of one process at a time. While it is open it holds an
advisory lock on ``<file>.lock``, so a second referee on the same campaign fails at
once instead of writing over the first one's rolls.

>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as tmp:
...     with Store(Path(tmp) / "campaign.json") as store:
...         store.table("characters").put("kara", {"name": "Kara", "hp": 12})
...         _ = store.ledger.append({"roll_id": "kx9f2a-1", "total": 17})
...     with Store(Path(tmp) / "campaign.json") as store:
...         (store.table("characters").get("kara"), len(store.ledger))
({'name': 'Kara', 'hp': 12}, 1)
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import shutil
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from operator import itemgetter
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Protocol

import orjson
from tinydb import TinyDB

from .errors import StoreError
from .journal import COMMIT, START, Journal, Position, commit_line, committed
from .ledger import GENESIS, seal_line
from .tinyfile import AtomicJSONStorage, FlushOnDemand, atomic_write, remove_leftover_temps

try:  # POSIX; elsewhere the store runs without the single-writer lock
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["AtomicJSONStorage", "KeyedTable", "Ledger", "PostTable", "Store", "Table"]

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
        unflushed = list(self._unflushed)
        if self._journal is not None:
            for _, raw in self._journal.lines():
                if not raw.startswith(b'{"op"'):
                    yield orjson.loads(raw)
        for line in unflushed:
            yield orjson.loads(line)

    def __len__(self) -> int:
        return self._rows

    def __repr__(self) -> str:
        return f"<Ledger: {len(self)} rows>"


class Store:
    """The campaign's persistence: keyed tables, the posts and the ledger.

    Every read and write is in memory (or one line read from the journal) until
    :meth:`flush`, which appends every change as one committed batch. Used as a
    context manager, the store flushes and closes on a normal exit; on an exception
    it closes WITHOUT flushing, so half a batch never lands (the changes since the
    last flush are dropped and a re-run redoes them).

    Raises :class:`StoreError` if a file is corrupt or unreadable, its directory does
    not exist, or another process has the store open.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.journal_path = self.path.with_name(self.path.stem + ".ledger.jsonl")
        self.index_path = self.path.with_name(self.path.stem + ".index")
        self._lock = _lock(self.path)
        remove_leftover_temps(self.index_path)  # the sheets file's storage does its own
        self._closed = False
        self._batch: list[bytes] = []  # the lines of the next flush, in pieces
        self._batch_size = 0
        self._batch_lines = 0
        self._tables: dict[str, KeyedTable] = {}
        # Where the batch stood when the open savepoint began (see _open_savepoint).
        self._savepoint: tuple[Any, ...] | None = None
        try:
            self._db = TinyDB(self.path, storage=FlushOnDemand(AtomicJSONStorage))
            self._middleware: FlushOnDemand = self._db.storage  # type: ignore[assignment]
            raw = self._middleware.read() or {}
            if META_TABLE not in raw and (LEDGER_TABLE in raw or POSTS_TABLE in raw):
                from .migrate import migrate  # once per campaign: not worth a load otherwise

                raw = migrate(self.path, self.journal_path, self.index_path, raw, self._db)
            self.journal = Journal(self.journal_path)
            self._open(raw)
        except BaseException:
            with contextlib.suppress(Exception):
                self.journal.close()
            self._lock.close()
            raise

    # -- opening -------------------------------------------------------------------

    def _open(self, raw: Mapping[str, Any]) -> None:
        meta = next(iter(raw.get(META_TABLE, {}).values()), None)
        tables_at = Position.from_json(meta) or START
        if not self._valid(tables_at):
            raise StoreError(
                f"The sheets file {self.path} says it reflects the journal up to byte "
                f"{tables_at.offset}, but {self.journal_path} does not hold that commit. "
                "The two files come from different backups; restore both from the same one."
            )
        index, index_at = self._read_index()
        posts: dict[str, int] = index.get("posts", {})
        rolls, last_hash = int(index.get("rolls", 0)), str(index.get("last_roll", GENESIS))
        start = min(tables_at, index_at, key=lambda position: position.offset)
        self.position = start
        for batch in committed(self.journal, start):
            for offset, line in batch.lines:
                op = line.get("op")
                if offset >= index_at.offset and op is None:
                    rolls += 1
                    last_hash = str(line.get("hash") or GENESIS)
                elif line.get("table") == POSTS_TABLE:
                    if offset >= index_at.offset and op == "put":
                        posts[line["key"]] = offset
                    elif offset >= index_at.offset:
                        posts.pop(line["key"], None)
                elif offset >= tables_at.offset and op in ("put", "delete"):
                    self._keyed(line["table"])._replay(line)
            self.position = batch.position
        self._checkpointed = (tables_at, index_at)
        self.posts = PostTable(POSTS_TABLE, self.journal, posts, self._emit)
        self.ledger = Ledger(self.journal, last_hash, rolls, self._emit)

    def _valid(self, position: Position) -> bool:
        """Whether the journal holds ``position``'s commit where the position says."""
        if position == START:
            return True
        if position.offset > self.journal.size:
            return False
        try:
            line = orjson.loads(self.journal.read_line(position.commit_at))
        except (StoreError, orjson.JSONDecodeError):
            return False
        return (
            isinstance(line, dict)
            and line.get("op") == COMMIT
            and line.get("hash") == position.commit
            and position.commit_at + len(self.journal.read_line(position.commit_at))
            == position.offset
        )

    def _read_index(self) -> tuple[dict[str, Any], Position]:
        """The checkpointed index and where it stands; a bad one is rebuilt from the journal."""
        try:
            index = orjson.loads(self.index_path.read_bytes())
        except FileNotFoundError:
            return {}, START
        except (OSError, orjson.JSONDecodeError) as exc:
            log.warning("event=index_rebuilt file=%s reason=%r", self.index_path, str(exc))
            return {}, START
        position = Position.from_json(index.get("position")) if isinstance(index, dict) else None
        if position is None or not self._valid(position):
            log.warning(
                "event=index_rebuilt file=%s reason='does not match the journal'", self.index_path
            )
            return {}, START
        return index, position

    # -- writing -------------------------------------------------------------------

    def _emit(self, *pieces: bytes) -> int:
        offset = self._batch_size
        self._batch.extend(pieces)
        self._batch_size += sum(map(len, pieces))
        self._batch_lines += 1
        return offset

    def table(self, name: str) -> Table:
        """The table ``name`` (created on first use), such as ``"characters"`` or ``"posts"``."""
        if name == POSTS_TABLE and hasattr(self, "posts"):
            return self.posts
        return self._keyed(name)

    def _keyed(self, name: str) -> KeyedTable:
        table = self._tables.get(name)
        if table is None:
            if name in (LEDGER_TABLE, POSTS_TABLE, META_TABLE):
                raise ValueError(f"{name!r} is not a keyed table; use Store.ledger")
            raw = self._middleware.read() or {}
            table = self._tables[name] = KeyedTable(name, raw.get(name, {}), self._emit)
            if self._savepoint is not None:
                table._begin()
        return table

    def savepoint(self) -> _Savepoint:
        """Undo every change made inside the block if it raises, then re-raise.

        The refereeing of one post runs in a savepoint, so a post that fails halfway
        leaves no half of itself behind for the next flush. Changes kept are flushed
        as usual; do not flush inside the block.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "c.json") as store:
        ...     try:
        ...         with store.savepoint():
        ...             store.table("characters").put("kara", {"hp": 1})
        ...             raise RuntimeError("a bug")
        ...     except RuntimeError:
        ...         pass
        ...     "kara" in store.table("characters")
        False
        """
        return _Savepoint(self)

    def _open_savepoint(self) -> None:
        if self._savepoint is not None:
            raise RuntimeError("a savepoint is already open")
        ledger, posts = self.ledger, self.posts
        # Where the batch, the ledger and the posts stand now: what a rewind goes back to.
        self._savepoint = (
            len(self._batch),
            self._batch_size,
            self._batch_lines,
            ledger.last_hash,
            len(ledger),
            len(ledger._unflushed),
        )
        posts._undo = []
        for table in self._tables.values():
            table._begin()

    def _close_savepoint(self, *, undo: bool) -> None:
        if undo:
            pieces, size, lines, last_hash, rows, unflushed = self._savepoint  # type: ignore[misc]
            del self._batch[pieces:]
            self._batch_size, self._batch_lines = size, lines
            ledger = self.ledger
            ledger.last_hash, ledger._rows = last_hash, rows
            del ledger._unflushed[unflushed:]
            self.posts._rewind()
        self.posts._undo = None
        for table in self._tables.values():
            table._end(undo=undo)
        self._savepoint = None

    def flush(self, *, sync: bool = True) -> bool:
        """Append every change since the last flush as one batch; return whether it wrote.

        ``sync=False`` skips the fsync: the batch survives the process being killed,
        and the next synced flush makes it survive a power cut too. Raises
        :class:`StoreError` if the journal cannot be written; the changes then stay in
        memory and the next flush tries again.
        """
        if self._closed:
            raise StoreError(f"The store {self.path} is closed; open it again to write.")
        if self._savepoint is not None:
            raise RuntimeError("flush after the savepoint closes: it could not be undone")
        if not self._batch:
            return False
        digest = hashlib.sha256()
        for piece in self._batch:
            digest.update(piece)
        commit = commit_line(self._batch_lines, digest.hexdigest(), self.position.commit)
        commit_bytes = orjson.dumps(commit) + b"\n"
        self._batch.append(commit_bytes)  # one join, one write
        try:
            start = self.journal.append(b"".join(self._batch), sync=sync)
        finally:
            self._batch.pop()
        end = start + self._batch_size + len(commit_bytes)
        self.position = Position(end, end - len(commit_bytes), commit["hash"])
        self.posts._flushed(start)
        self.ledger._unflushed.clear()
        self._batch.clear()
        self._batch_size = 0
        self._batch_lines = 0
        behind = self.position.offset - min(p.offset for p in self._checkpointed)
        if behind > CHECKPOINT_BYTES:
            self.checkpoint()
        return True

    def checkpoint(self) -> None:
        """Bring the TinyDB file and the index up to the journal (after a flush)."""
        if self._batch:
            raise StoreError("flush before a checkpoint")
        tables_at, index_at = self._checkpointed
        if tables_at != self.position:
            for table in self._tables.values():
                table._apply(self._db)
            meta = self._db.table(META_TABLE)
            meta.truncate()
            meta.insert(self.position.to_json())
            self._middleware.flush()
        if index_at != self.position:
            index = {
                "position": self.position.to_json(),
                "rolls": len(self.ledger),
                "last_roll": self.ledger.last_hash,
                "posts": self.posts._index,
            }
            atomic_write(self.index_path, orjson.dumps(index))
        self._checkpointed = (self.position, self.position)

    def audit(self) -> int:
        """Check every batch's commit line against its lines; how many lines were checked.

        Raises :class:`StoreError` naming the first batch that does not check out.
        """
        return sum(len(batch.lines) + 1 for batch in committed(self.journal, START, cut=False))

    @property
    def writes(self) -> int:
        """How many batches this store has appended since it was opened."""
        return self.journal.appends

    @property
    def fsyncs(self) -> int:
        """How many times this store has fsynced its journal since it was opened."""
        return self.journal.fsyncs

    def close(self) -> None:
        """Flush and checkpoint, then release the files and the lock; twice does nothing.

        The store is released even if this last flush fails; it then raises
        :class:`StoreError` and the changes since the previous flush are lost, so a
        caller that cannot afford that flushes (and handles the error) first.
        """
        if self._closed:
            return
        try:
            self.flush()
            self.checkpoint()
        finally:
            self._release()

    def discard(self) -> None:
        """Release the files WITHOUT writing: what changed since the last flush is dropped."""
        if not self._closed:
            self._release()

    def _release(self) -> None:
        self._closed = True
        self.journal.close()
        self._middleware.storage.close()
        self._lock.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.discard()

    def __repr__(self) -> str:
        return f"<Store {str(self.path)!r}>"


class _Savepoint:
    """:meth:`Store.savepoint`'s block (a class: a post opens one, and a generator-based
    context manager cost more than the savepoint's own work)."""

    __slots__ = ("_store",)

    def __init__(self, store: Store) -> None:
        self._store = store

    def __enter__(self) -> None:
        self._store._open_savepoint()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._store._close_savepoint(undo=exc_type is not None)


def backup_name(path: Path) -> Path:
    """A name beside ``path`` for a copy kept before changing it, stamped with the time."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    candidate = path.with_name(f"{path.name}.{stamp}.bak")
    number = 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}.{stamp}-{number}.bak")
    return candidate


def keep_copy(path: Path) -> Path:
    """Copy ``path`` to a stamped backup beside it; the backup's path."""
    backup = backup_name(path)
    shutil.copy2(path, backup)
    return backup


def _lock(path: Path) -> IO[str]:
    """Open and lock ``<path>.lock`` so only one process uses the store at a time."""
    lock_path = path.with_name(path.name + ".lock")
    try:
        handle = open(lock_path, "a+")  # noqa: SIM115 - held open for the store's life
    except OSError as exc:
        raise StoreError(
            f"Cannot open the store {path}: {exc.strerror} ({lock_path}). Check that "
            "the directory exists and this user may write in it."
        ) from exc
    if fcntl is None:  # pragma: no cover
        return handle
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        handle.close()
        raise StoreError(
            f"The store {path} is open in another process (another referee running on "
            "this campaign?). Stop it first; two writers would overwrite each other's "
            "rolls."
        ) from exc
    return handle
