"""The campaign store: a small TinyDB file of sheets, and an append-only journal.

Three files beside each other (for ``store.json``)::

    store.json           TinyDB: characters, vehicles, applications, encounters, the
                         worker's cursors. Small; rewritten only at a checkpoint.
    store.ledger.jsonl   the journal (referee.store.journal): every roll row, every post
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
once instead of writing over the first one's rolls. A store opened ``read_only`` takes
no lock and writes nothing: it reads the last committed state (a batch the writer is
appending is not read until its commit line is there), so the shell can look at a
campaign while the live bot runs.

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
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson
from tinydb import TinyDB

from referee.base.errors import StoreError
from referee.store.journal import COMMIT, START, Journal, Position, commit_line, committed
from referee.store.ledger import GENESIS
from referee.store.migrate import migrate
from referee.store.tables import (
    CHECKPOINT_BYTES,
    LEDGER_TABLE,
    META_TABLE,
    POSTS_TABLE,
    KeyedTable,
    Ledger,
    PostTable,
    Table,
)
from referee.store.tinyfile import (
    AtomicJSONStorage,
    FlushOnDemand,
    atomic_write,
    remove_leftover_temps,
)

try:  # POSIX; elsewhere the store runs without the single-writer lock
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["Store", "writer_running"]

log = logging.getLogger(__name__)


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

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.journal_path = self.path.with_name(self.path.stem + ".ledger.jsonl")
        self.index_path = self.path.with_name(self.path.stem + ".index")
        self.read_only = read_only
        if read_only:
            if not (self.path.exists() or self.journal_path.exists()):
                raise StoreError(
                    f"There is no store {self.path} yet: nothing to read. Run `referee "
                    "batch` or the live bot once first."
                )
            self._lock: IO[str] | None = None
        else:
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
            self._db = TinyDB(
                self.path, read_only=read_only, storage=FlushOnDemand(AtomicJSONStorage)
            )
            self._middleware: FlushOnDemand = self._db.storage  # type: ignore[assignment]
            raw = self._middleware.read() or {}
            if META_TABLE not in raw and (LEDGER_TABLE in raw or POSTS_TABLE in raw):
                if read_only:
                    raise StoreError(
                        f"The store {self.path} is of an older layout, which the next "
                        "command that writes converts; stop the bot and run it once."
                    )
                raw = migrate(self.path, self.journal_path, self.index_path, raw, self._db)
            self.journal = Journal(self.journal_path, read_only=read_only)
            self._open(raw)
        except BaseException:
            with contextlib.suppress(Exception):
                self.journal.close()
            if self._lock is not None:
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
        if self.read_only and self._batch:
            raise StoreError(
                f"The store {self.path} was opened to read only (the live bot may be "
                "writing it); stop the bot to change the campaign from the shell."
            )
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
        if self.read_only:
            self._release()
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
        if self._lock is not None:
            self._lock.close()

    @property
    def committed_at(self) -> float:
        """When the last batch was committed (the journal's modification time, epoch
        seconds); 0.0 for a store never written."""
        try:
            return self.journal_path.stat().st_mtime
        except FileNotFoundError:
            return 0.0

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


def writer_running(path: Path) -> bool:
    """Whether another process holds the store's writer lock (the live bot, say)."""
    lock_path = path.with_name(path.name + ".lock")
    if fcntl is None or not lock_path.exists():  # pragma: no cover - Windows
        return False
    with open(lock_path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


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
            f"The store {path} is open in another process (the live bot running on this "
            "campaign?), and this command changes the campaign: two writers would "
            "overwrite each other's rolls. Stop the bot first, then run it again. "
            "`referee characters`, `history`, `applications`, `failures`, `verify` and "
            "`roll` work while the bot runs, and `approve`, `reject`, `revise`, `import` "
            "and `failures --retry` are carried out by the bot."
        ) from exc
    return handle
