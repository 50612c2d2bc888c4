"""The TinyDB file that holds the campaign's sheets, replaced atomically when it is written.

:class:`AtomicJSONStorage` is a TinyDB storage that writes a temp file, fsyncs it and
renames it over the target, so the file is always one whole state. The store
(:mod:`referee.store.store`) keeps characters, vehicles and the other small keyed tables in
such a file and rewrites it only at a checkpoint; everything that grows with the
campaign goes to the journal (:mod:`referee.store.journal`) instead.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import Any

import orjson
from tinydb import TinyDB  # noqa: F401 - named in the doctest
from tinydb.middlewares import CachingMiddleware
from tinydb.storages import Storage

from referee.base.errors import StoreError
from referee.base.files import copy_private

__all__ = [
    "AtomicJSONStorage",
    "FlushOnDemand",
    "atomic_write",
    "fsync_directory",
    "remove_leftover_temps",
]


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

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        super().__init__()
        self.path = Path(path)
        self.writes = 0  # how many times write() has replaced the file
        if not read_only:  # a reader must not delete the writer's temp file mid-write
            remove_leftover_temps(self.path)

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
                # mkstemp made it 0600, as the sheets and the GMs' private rows in it
                # must stay: a wider mode of the file it replaces is not kept.
                os.fsync(handle.fileno())
            os.replace(temp_name, self.path)
            fsync_directory(directory)
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


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (a no-op where directories cannot be opened)."""
    if os.name != "posix":  # pragma: no cover
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class FlushOnDemand(CachingMiddleware):
    """TinyDB's CachingMiddleware that writes only when ``flush()`` is called."""

    WRITE_CACHE_SIZE = sys.maxsize

    @property
    def dirty(self) -> bool:
        """Whether the cache holds changes not yet written."""
        return bool(self._cache_modified_count)


def remove_leftover_temps(path: Path) -> None:
    """Delete the temp files a crash left beside ``path`` mid-write (never ``path`` itself).

    Only the process holding the store's lock may call it: another one's temp file
    would be in use.
    """
    for leftover in path.parent.glob(_temp_prefix(path) + "*" + _TEMP_SUFFIX):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: temp file, fsync, rename, fsync the directory."""
    fd, temp_name = tempfile.mkstemp(
        prefix=_temp_prefix(path), suffix=_TEMP_SUFFIX, dir=path.parent
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
        fsync_directory(path.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise


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
    """Copy ``path`` to a stamped backup beside it, 0600 as the store; the backup's path."""
    backup = backup_name(path)
    copy_private(path, backup)
    return backup
