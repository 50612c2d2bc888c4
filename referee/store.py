"""The campaign store: characters, posts, the roll ledger and the rest, in one TinyDB file.

Three layers, each doing one thing::

    Store, KeyedTable, Ledger      in-memory indexes; O(1) reads and writes
        │  flush(): pending changes applied to TinyDB tables in bulk
    _FlushOnDemand                 TinyDB's CachingMiddleware, automatic flush disabled
        │  one write per Store.flush(), none when nothing changed
    AtomicJSONStorage              temp file, fsync, rename over the target, fsync the dir

Everything lives in one file, so one flush lands atomically across characters, ledger
and posts: after a crash the file holds exactly the state of some completed flush,
never half of one. The file stays a plain TinyDB JSON file (keyed records carry their
key in a ``_key`` field), so ``TinyDB(path)`` can open and query it.

A store is used by one thread of one process at a time. While it is open it holds an
advisory lock on ``<file>.lock``, so a second referee on the same campaign fails at
once instead of overwriting the first one's rolls.

>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as tmp:
...     with Store(Path(tmp) / "campaign.json") as store:
...         store.table("characters").put("kara", {"name": "Kara", "hp": 12})
...         added = store.ledger.append({"roll_id": "kx9f2a-1", "total": 17})
...     with Store(Path(tmp) / "campaign.json") as store:
...         (store.table("characters").get("kara"), len(store.ledger))
({'name': 'Kara', 'hp': 12}, 1)
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from itertools import islice
from operator import itemgetter
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson
from tinydb import TinyDB
from tinydb.middlewares import CachingMiddleware
from tinydb.storages import Storage

from .errors import StoreError

try:  # POSIX; elsewhere the store runs without the single-writer lock
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["AtomicJSONStorage", "KeyedTable", "Ledger", "Store"]

KEY_FIELD = "_key"  # the field that holds a keyed record's key inside its TinyDB document
LEDGER_TABLE = "ledger"

Record = dict[str, Any]


def _temp_prefix(target: Path) -> str:
    return f".{target.name}."


_TEMP_SUFFIX = ".tmp"


class AtomicJSONStorage(Storage):
    """A TinyDB storage that replaces its file atomically on every write.

    TinyDB's own ``JSONStorage`` rewrites the file in place, so a crash mid-write
    leaves it truncated or with the old tail after the new text. This one writes a
    temp file beside the target, fsyncs it, renames it over the target and fsyncs the
    directory: the file on disk is always either the old or the new state.

    ``read()`` returns ``None`` for a missing or empty file (TinyDB's "empty
    database") and raises :class:`StoreError` for one that is not valid JSON.
    Temp files left by a crash are removed when the storage opens, so open a file
    from one process at a time (:class:`Store` holds a lock for this).

    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     db = TinyDB(Path(tmp) / "db.json", storage=AtomicJSONStorage)
    ...     doc_id = db.insert({"name": "Kara"})
    ...     (Path(tmp) / "db.json").read_text()
    '{"_default":{"1":{"name":"Kara"}}}'
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = Path(path)
        self.writes = 0  # how many times write() has replaced the file
        for leftover in self.path.parent.glob(_temp_prefix(self.path) + "*" + _TEMP_SUFFIX):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()

    def read(self) -> dict[str, dict[str, Any]] | None:
        """The whole database, or ``None`` if the file is missing or empty."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(
                f"Cannot read the store {self.path}: {exc.strerror}. "
                "Check that the file and its directory are readable by this user."
            ) from exc
        if not raw or raw.isspace():
            return None
        try:
            with _gc_paused():
                data = orjson.loads(raw)
        except ValueError as exc:  # orjson.JSONDecodeError, also for invalid UTF-8
            raise self._corrupt(f"it is not valid JSON ({exc})") from exc
        if not isinstance(data, dict) or not all(isinstance(t, dict) for t in data.values()):
            raise self._corrupt("it is JSON but not a TinyDB database (an object of tables)")
        return data

    def write(self, data: Mapping[str, Mapping[str, Any]]) -> None:
        """Replace the file with ``data``: temp file, fsync, rename, fsync the directory."""
        directory = self.path.parent
        try:
            fd, temp_name = tempfile.mkstemp(
                prefix=_temp_prefix(self.path), suffix=_TEMP_SUFFIX, dir=directory
            )
        except OSError as exc:
            raise self._unwritable(exc) from exc
        try:
            with os.fdopen(fd, "wb") as handle:
                for piece in _json_pieces(data):
                    handle.write(piece)
                handle.flush()
                with contextlib.suppress(FileNotFoundError):
                    os.fchmod(handle.fileno(), self.path.stat().st_mode & 0o7777)
                os.fsync(handle.fileno())
            os.replace(temp_name, self.path)
            _fsync_directory(directory)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp_name)
            if isinstance(exc, OSError):
                raise self._unwritable(exc) from exc
            raise
        self.writes += 1

    def _corrupt(self, why: str) -> StoreError:
        return StoreError(
            f"The store {self.path} is corrupt: {why}. Referee never overwrites the "
            "previous good version in place, so something outside referee changed "
            "this file. Stop the bot, restore the file from your latest backup (or "
            "move it aside to start an empty store) and start again."
        )

    def _unwritable(self, exc: OSError) -> StoreError:
        return StoreError(
            f"Cannot write the store {self.path}: {exc.strerror or exc}. The previous "
            "version of the file is intact and the unsaved changes are still in "
            "memory; free disk space or fix the directory's permissions and the next "
            "flush writes them."
        )


_PIECE_DOCUMENTS = 1000  # documents serialized per piece: bounds the bytes held at once


def _json_pieces(data: Mapping[str, Mapping[str, Any]]) -> Iterator[bytes]:
    """Compact UTF-8 JSON of a TinyDB database, in pieces of a thousand documents.

    orjson writes the same bytes as the standard library's compact JSON, several times
    faster; writing in pieces keeps the whole file (tens of megabytes) from being held
    in memory at once.

    >>> import json
    >>> data = {"ledger": {str(i): {"roll_id": f"r{i}", "é": [1, None]} for i in range(2500)},
    ...         "meta": {}}
    >>> standard = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    >>> b"".join(_json_pieces(data)) == standard
    True
    """
    yield b"{"
    for number, (name, table) in enumerate(data.items()):
        yield (b"," if number else b"") + orjson.dumps(name) + b":{"
        documents = iter(table.items())
        separator = b""
        while chunk := dict(islice(documents, _PIECE_DOCUMENTS)):
            yield separator + orjson.dumps(chunk)[1:-1]
            separator = b","
        yield b"}"
    yield b"}"


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects that form no cycles.

    Loading a large store creates hundreds of thousands of dicts; without the pause
    the collector re-scans them over and over, which costs about a third of the time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (a no-op where directories cannot be opened)."""
    if os.name != "posix":  # pragma: no cover
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _FlushOnDemand(CachingMiddleware):
    """TinyDB's CachingMiddleware that writes only when ``flush()`` is called."""

    WRITE_CACHE_SIZE = sys.maxsize

    @property
    def dirty(self) -> bool:
        """Whether the cache holds changes not yet written."""
        return bool(self._cache_modified_count)


def _plain(value: Any) -> Any:
    """A deep copy of a JSON-safe value; anything else raises TypeError.

    >>> _plain({"hp": 3, "tags": ("a", "b")})
    {'hp': 3, 'tags': ['a', 'b']}
    >>> _plain({"when": 1j})
    Traceback (most recent call last):
    TypeError: store only JSON values (dict, list, str, int, float, bool, None), not complex
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is dict:
        copy = {}
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError(f"store only string keys in records, not {type(key).__name__}")
            copy[key] = _plain(item)
        return copy
    if kind is list or kind is tuple:
        return [_plain(item) for item in value]
    raise TypeError(
        f"store only JSON values (dict, list, str, int, float, bool, None), not {kind.__name__}"
    )


def _writable(doc: Record) -> Record:
    """``doc`` itself if the store's file can hold it; TypeError saying why otherwise.

    Checked when a record is staged, not when the file is written, so one record the
    encoder cannot take (an integer past 64 bits, a lone surrogate) is refused alone
    instead of failing the flush that carries everyone else's changes.

    >>> _writable({"points": 2**64})
    Traceback (most recent call last):
    TypeError: the store cannot write this record: Integer exceeds 64-bit range
    """
    try:
        orjson.dumps(doc)
    except orjson.JSONEncodeError as exc:
        raise TypeError(f"the store cannot write this record: {exc}") from None
    return doc


def _copy(value: Any) -> Any:
    """A deep copy of a value already checked by :func:`_plain` (faster: no checks)."""
    kind = type(value)
    if kind is dict:
        return {key: _copy(item) for key, item in value.items()}
    if kind is list:
        return [_copy(item) for item in value]
    return value


def _by_doc_id(raw_table: Mapping[str, Any]) -> Iterable[tuple[int, Any]]:
    """A raw TinyDB table's documents in doc-id order, which is insertion order.

    The file already lists them in that order unless someone edited it, so sorting
    is only the fallback.
    """
    ids = list(map(int, raw_table))
    if ids == sorted(ids):
        return zip(ids, raw_table.values(), strict=True)
    return sorted(zip(ids, raw_table.values(), strict=True), key=itemgetter(0))


def _raw_table(db: TinyDB, name: str) -> dict[str, Any]:
    """The documents TinyDB holds in its cache for table ``name``, by string doc id."""
    tables: dict[str, dict[str, Any]] = db.storage.read() or {}
    return tables.get(name, {})


class KeyedTable:
    """Records (JSON-safe dicts) under string keys the caller chooses, in insertion order.

    Reads and writes touch only in-memory indexes; :meth:`Store.flush` persists them.
    ``get`` and the iterators return copies and ``put`` stores one, so a caller never
    changes the store by mutating a dict it holds.

    >>> table = KeyedTable("characters", {})
    >>> table.put("kara", {"hp": 12})
    >>> record = table.get("kara")
    >>> record["hp"] = 0
    >>> table.get("kara")
    {'hp': 12}
    """

    def __init__(self, name: str, raw_table: Mapping[str, Any]) -> None:
        self.name = name
        # Each record as its TinyDB document (the key in KEY_FIELD). A flushed one is
        # the very dict TinyDB caches, so the table costs no second copy in memory.
        self._docs: dict[str, Record] = {}
        self._doc_ids: dict[str, int] = {}  # keys that have a document in TinyDB
        self._changed: dict[str, None] = {}  # keys put since the last flush, in order
        self._removed: list[int] = []  # doc ids of keys deleted since the last flush
        # While a savepoint is open: how to undo each change since (see Store.savepoint).
        self._journal: list[Any] | None = None
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
        doc = self._docs.get(key)
        return None if doc is None else _record(doc)

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        """Store a copy of ``record`` under ``key``, replacing any record there.

        Raises ``TypeError`` for a non-string key or a value JSON cannot hold and
        ``ValueError`` for a record with a ``_key`` field (that name is the store's).
        """
        if type(key) is not str:
            raise TypeError(f"keys are strings, not {type(key).__name__}")
        if KEY_FIELD in record:
            raise ValueError(f"{KEY_FIELD!r} is reserved for the store; rename that field")
        doc = _writable(_plain(record if type(record) is dict else dict(record)))
        doc[KEY_FIELD] = key
        previous = self._docs.get(key)
        if previous == doc:
            return
        if self._journal is not None:
            self._journal.append((key, previous, key in self._changed))
        self._docs[key] = doc
        self._changed[key] = None

    def delete(self, key: str) -> bool:
        """Remove the record under ``key``; return whether there was one."""
        if key not in self._docs:
            return False
        if self._journal is not None:  # rare: keep the whole table to restore its order
            self._journal.append((self._docs.copy(), self._doc_ids.copy(), self._changed.copy()))
            self._journal.append(list(self._removed))
        del self._docs[key]
        self._changed.pop(key, None)
        doc_id = self._doc_ids.pop(key, None)
        if doc_id is not None:
            self._removed.append(doc_id)
        return True

    def _begin(self) -> None:
        self._journal = []

    def _end(self, *, undo: bool) -> None:
        """Close the savepoint; with ``undo``, restore the table as it was when it opened."""
        journal, self._journal = self._journal or [], None
        while undo and journal:
            entry = journal.pop()
            if type(entry) is list:  # a delete: the whole table before it
                self._removed = entry
                self._docs, self._doc_ids, self._changed = journal.pop()
                continue
            key, previous, was_changed = entry
            if previous is None:
                del self._docs[key]
            else:
                self._docs[key] = previous
            if not was_changed:
                del self._changed[key]

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
        return (_record(doc) for doc in list(self._docs.values()))

    def items(self) -> Iterator[tuple[str, Record]]:
        """``(key, copy of record)`` pairs in insertion order."""
        return ((key, _record(doc)) for key, doc in list(self._docs.items()))

    def __repr__(self) -> str:
        return f"<KeyedTable {self.name!r}: {len(self)} records>"

    def _apply(self, db: TinyDB) -> None:
        """Write the changes since the last flush into ``db``'s table, in bulk.

        Three passes at most (remove, update, insert), each one rebuild of the table
        inside TinyDB, however many records changed.
        """
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
        cached = _raw_table(db, self.name)
        for key in self._changed:  # share TinyDB's copies instead of keeping our own
            docs[key] = cached[str(self._doc_ids[key])]
        self._changed.clear()
        self._removed.clear()


def _record(doc: Record) -> Record:
    """A copy of a keyed table's document without its key field."""
    record = _copy(doc)
    del record[KEY_FIELD]
    return record


class Ledger:
    """The append-only roll ledger: rows keyed by a unique ``roll_id``, in append order.

    Appending a ``roll_id`` the ledger already holds changes nothing and returns
    ``False``, so re-running a batch adds no rows. Rows come back as copies.

    >>> ledger = Ledger({})
    >>> ledger.append({"roll_id": "kx9f2a-1", "total": 17})
    True
    >>> ledger.append({"roll_id": "kx9f2a-1", "total": 3})
    False
    >>> ledger.get("kx9f2a-1")
    {'roll_id': 'kx9f2a-1', 'total': 17}
    """

    def __init__(self, raw_table: Mapping[str, Any]) -> None:
        # Flushed rows are the very dicts TinyDB caches: no second copy in memory.
        self._rows: dict[str, Record] = {}
        self._pending: list[Record] = []  # rows appended since the last flush
        for doc_id, row in _by_doc_id(raw_table):
            roll_id = row.get("roll_id")
            if type(roll_id) is not str or roll_id in self._rows:
                raise StoreError(
                    f"The ledger holds a row (document {doc_id}) with a missing or "
                    "repeated 'roll_id'; the file was edited outside referee. Restore "
                    "it from a backup."
                )
            self._rows[roll_id] = row

    def append(self, row: Mapping[str, Any]) -> bool:
        """Add a copy of ``row``; return ``False`` (adding nothing) if its roll_id exists.

        Raises ``ValueError`` if ``row`` has no string ``roll_id`` and ``TypeError``
        for a value JSON cannot hold.
        """
        roll_id = row.get("roll_id")
        if type(roll_id) is not str:
            raise ValueError(f"a ledger row needs a string 'roll_id', got {roll_id!r}")
        if roll_id in self._rows:
            return False
        plain = _writable(_plain(row if type(row) is dict else dict(row)))
        self._rows[roll_id] = plain
        self._pending.append(plain)
        return True

    def _mark(self) -> int:
        """Where a savepoint starts: the rows appended so far and not yet flushed."""
        return len(self._pending)

    def _undo(self, mark: int) -> None:
        """Drop the rows appended since ``mark``."""
        while len(self._pending) > mark:
            del self._rows[self._pending.pop()["roll_id"]]

    def __contains__(self, roll_id: object) -> bool:
        return roll_id in self._rows

    def get(self, roll_id: str) -> Record | None:
        """A copy of the row with ``roll_id``, or ``None``."""
        row = self._rows.get(roll_id)
        return None if row is None else _copy(row)

    def last(self) -> Record | None:
        """A copy of the most recently appended row, or ``None`` for an empty ledger."""
        if not self._rows:
            return None
        return _copy(next(reversed(self._rows.values())))

    def __iter__(self) -> Iterator[Record]:
        return (_copy(row) for row in list(self._rows.values()))

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"<Ledger: {len(self)} rows>"

    def _apply(self, db: TinyDB) -> None:
        """Insert the rows appended since the last flush into ``db``'s ledger table."""
        if not self._pending:
            return
        new_ids = db.table(LEDGER_TABLE).insert_multiple(self._pending)
        cached = _raw_table(db, LEDGER_TABLE)
        for doc_id, row in zip(new_ids, self._pending, strict=True):
            self._rows[row["roll_id"]] = cached[str(doc_id)]
        self._pending.clear()


class Store:
    """The campaign's persistence: named keyed tables and the ledger, in one file.

    Opening reads the file once and indexes it; every read and write after that is
    in memory until :meth:`flush`, which writes all changes in one atomic file
    replacement. Used as a context manager, the store flushes and closes on a normal
    exit; on an exception it closes WITHOUT flushing, so half a batch never lands
    (the changes since the last flush are dropped and a re-run redoes them).

    Raises :class:`StoreError` if the file is corrupt or unreadable, its directory
    does not exist, or another process has the store open.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = _lock(self.path)
        try:
            self._db = TinyDB(self.path, storage=_FlushOnDemand(AtomicJSONStorage))
            self._middleware: _FlushOnDemand = self._db.storage  # type: ignore[assignment]
            self.ledger = Ledger((self._middleware.read() or {}).get(LEDGER_TABLE, {}))
        except BaseException:
            self._lock.close()
            raise
        self._tables: dict[str, KeyedTable] = {}
        self._closed = False
        self._savepoint: int | None = None  # the ledger's mark while a savepoint is open

    def table(self, name: str) -> KeyedTable:
        """The keyed table ``name`` (created on first use), such as ``"characters"``."""
        table = self._tables.get(name)
        if table is None:
            if name == LEDGER_TABLE:
                raise ValueError(f"{LEDGER_TABLE!r} is the ledger; use Store.ledger")
            raw = self._middleware.read() or {}
            table = self._tables[name] = KeyedTable(name, raw.get(name, {}))
            if self._savepoint is not None:
                table._begin()
        return table

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
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
        if self._savepoint is not None:
            raise RuntimeError("a savepoint is already open")
        self._savepoint = self.ledger._mark()
        for table in self._tables.values():
            table._begin()
        undo = True
        try:
            yield
            undo = False
        finally:
            if undo:
                self.ledger._undo(self._savepoint)
            for table in self._tables.values():
                table._end(undo=undo)
            self._savepoint = None

    def flush(self) -> bool:
        """Write every change since the last flush in one atomic write; return whether it wrote.

        Raises :class:`StoreError` if the file cannot be written; the changes then
        stay in memory and the next flush tries again.
        """
        if self._closed:
            raise StoreError(f"The store {self.path} is closed; open it again to write.")
        if self._savepoint is not None:
            raise RuntimeError("flush after the savepoint closes: it could not be undone")
        self.ledger._apply(self._db)
        for table in self._tables.values():
            table._apply(self._db)
        if not self._middleware.dirty:
            return False
        self._middleware.flush()
        return True

    @property
    def writes(self) -> int:
        """How many times this store has written its file since it was opened."""
        storage: AtomicJSONStorage = self._middleware.storage  # type: ignore[assignment]
        return storage.writes

    def close(self) -> None:
        """Flush, then release the file and its lock; closing twice does nothing.

        The store is released even if this last flush fails; it then raises
        :class:`StoreError` and the changes since the previous flush are lost, so a
        caller that cannot afford that flushes (and handles the error) first.
        """
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._release()

    def discard(self) -> None:
        """Release the file WITHOUT writing: what changed since the last flush is dropped."""
        if not self._closed:
            self._release()

    def _release(self) -> None:
        self._closed = True
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
