"""The store's append-only journal: JSON lines, grouped into committed batches.

Everything the campaign records over time (roll rows, the posts refereed and how
their replies stand, every change to a character) is one line appended to this file;
nothing already written is ever rewritten. One :meth:`Journal.append` writes a whole
batch of lines followed by a *commit line*::

    {"roll_id": "kx9f2a-1", ..., "prev": "<hash of the roll before>", "hash": "..."}
    {"op": "put", "table": "posts", "key": "t1_kx9f2a", "value": {...}}
    {"op": "commit", "lines": 2, "digest": "<sha256 of those 2 lines>",
     "prev": "<hash of the commit before>", "hash": "<sha256 of this commit's body>"}

A batch counts only once its commit line is on disk, so a flush lands whole or not at
all. A crash mid-append leaves a torn or uncommitted tail: :func:`committed` finds the
last good commit and the store cuts the tail off there, keeping the cut bytes in a
``.torn`` file beside the journal and logging a warning. Damage anywhere before the
last good commit is never cut: it is reported as a :class:`StoreError`.

Roll rows keep the ledger's own chain (``prev``/``hash`` from row to row, see
:mod:`referee.store.ledger`); the commit lines chain every batch, so no post record or sheet
change can be removed or altered unseen either.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from referee.base.errors import StoreError
from referee.base.files import open_private, write_private
from referee.store.ledger import GENESIS, row_hash

log = logging.getLogger(__name__)

COMMIT = "commit"  # the "op" of a commit line; roll rows have no "op" at all
_READ_CHUNK = 1 << 20  # bytes read at a time when scanning


def commit_line(lines: int, digest: str, previous: str) -> dict[str, Any]:
    """The commit line closing a batch of ``lines`` lines whose bytes hash to ``digest``."""
    line: dict[str, Any] = {"op": COMMIT, "lines": lines, "digest": digest, "prev": previous}
    line["hash"] = row_hash(line)
    return line


@dataclass(frozen=True)
class Position:
    """A point in the journal just after a commit line: where a checkpoint stands."""

    offset: int  # bytes up to and including the commit line
    commit_at: int  # where that commit line starts (-1 at the start of the journal)
    commit: str  # its hash (GENESIS at the start)

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "commit_at": self.commit_at, "commit": self.commit}

    @classmethod
    def from_json(cls, value: Any) -> Position | None:
        try:
            return cls(int(value["offset"]), int(value["commit_at"]), str(value["commit"]))
        except (KeyError, TypeError, ValueError):
            return None


START = Position(0, -1, GENESIS)


class Journal:
    """One journal file, opened for appending and for reading lines by offset."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = path
        self.read_only = read_only  # a reader beside the writer: never cuts, never appends
        flags = os.O_RDONLY if read_only else os.O_RDWR | os.O_CREAT | os.O_APPEND
        try:
            # It holds the GMs' secret rolls in clear: its owner's alone (0600), and an
            # older journal made 0644 is tightened by its writer.
            self._fd = os.open(path, flags) if read_only else open_private(path, flags)
        except OSError as exc:
            raise StoreError(
                f"Cannot open the journal {path}: {exc.strerror}. Check that the directory "
                "exists and this user may write in it."
            ) from exc
        self.size = os.fstat(self._fd).st_size
        self.appends = 0  # batches written since opening
        self.fsyncs = 0

    def append(self, data: bytes, *, sync: bool) -> int:
        """Write ``data`` at the end (one write call), fsync if ``sync``; its offset.

        Raises :class:`StoreError` if it cannot be written; a part written before the
        failure is cut off again, so the next append starts on a clean line.
        """
        if self.read_only:
            raise StoreError(f"The journal {self.path} was opened to read only.")
        start = self.size
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
            if sync:
                os.fsync(self._fd)
                self.fsyncs += 1
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, start)
            raise StoreError(
                f"Cannot write the journal {self.path}: {exc.strerror or exc}. What was "
                "recorded before is intact and the unsaved changes are still in memory; "
                "free disk space or fix the directory's permissions and the next flush "
                "writes them."
            ) from exc
        self.size = start + len(data)
        self.appends += 1
        return start

    def sync(self) -> None:
        """fsync what was appended without it."""
        os.fsync(self._fd)
        self.fsyncs += 1

    def read_line(self, offset: int) -> bytes:
        """The whole line starting at ``offset``, its newline included."""
        chunks = []
        while True:
            chunk = os.pread(self._fd, 4096, offset)
            end = chunk.find(b"\n")
            if end >= 0:
                chunks.append(chunk[: end + 1])
                return b"".join(chunks)
            if not chunk:
                raise StoreError(f"The journal {self.path} ends inside the line at {offset}.")
            chunks.append(chunk)
            offset += len(chunk)

    def chunks(self, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The bytes from ``start`` to ``end`` (the committed size), a megabyte at a time."""
        end = self.size if end is None else end
        offset = start
        while offset < end:
            chunk = os.pread(self._fd, min(_READ_CHUNK, end - offset), offset)
            if not chunk:
                return
            yield chunk
            offset += len(chunk)

    def runs(self, start: int = 0, end: int | None = None) -> Iterator[tuple[bytes, int]]:
        """Runs of whole lines from ``start`` to ``end``, about a megabyte each, for a search
        over many lines at once: ``(data, whole)``, where ``data``'s first ``whole`` bytes
        are whole lines (the rest is read again with the next run, never copied)."""
        end = self.size if end is None else end
        offset, size = start, _READ_CHUNK
        while offset < end:
            data = os.pread(self._fd, min(size, end - offset), offset)
            whole = data.rfind(b"\n") + 1
            if not whole:  # a line longer than a run (or a tail without its newline)
                if len(data) < min(size, end - offset) or offset + len(data) >= end:
                    return
                size *= 2
                continue
            yield data, whole
            offset, size = offset + whole, _READ_CHUNK

    def lines(self, start: int = 0, end: int | None = None) -> Iterator[tuple[int, bytes]]:
        """``(offset, line)`` for every newline-terminated line from ``start`` to ``end``."""
        end = self.size if end is None else end
        offset = start
        rest = b""
        while offset + len(rest) < end:
            chunk = os.pread(
                self._fd, min(_READ_CHUNK, end - offset - len(rest)), offset + len(rest)
            )
            if not chunk:
                return
            data = rest + chunk
            begin = 0
            while (newline := data.find(b"\n", begin)) >= 0:
                yield offset + begin, data[begin : newline + 1]
                begin = newline + 1
            offset += begin
            rest = data[begin:]

    def cut(self, offset: int, why: str) -> None:
        """Cut the file at ``offset``, keeping the cut bytes in a ``.torn`` file beside it.

        Read only, the file is left alone: the tail is the batch the writer is
        appending, ignored until its commit line is there."""
        if self.read_only:
            self.size = offset
            return
        cut_bytes = os.pread(self._fd, self.size - offset, offset)
        keep = _unused(self.path.with_name(f"{self.path.name}.torn-{int(time.time())}"))
        write_private(keep, cut_bytes)  # rows of the journal: as private as it is
        os.ftruncate(self._fd, offset)
        os.fsync(self._fd)
        log.warning(
            "event=journal_tail_dropped file=%s bytes=%d kept_in=%s: %s",
            self.path,
            len(cut_bytes),
            keep,
            why,
        )
        self.size = offset

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


@dataclass
class Batch:
    """One committed batch met while scanning: its lines (offset, parsed) and its commit."""

    lines: list[tuple[int, dict[str, Any]]]
    position: Position


def committed(journal: Journal, start: Position, *, cut: bool = True) -> Iterator[Batch]:
    """Every committed batch after ``start``, checked; cuts a torn or uncommitted tail.

    Raises :class:`StoreError` when a bad line is followed by a good commit: that is
    damage inside the journal, not a crash at its end, and nothing is cut. With
    ``cut=False`` (an audit of an open store) any bad line raises.
    """
    pending: list[tuple[int, dict[str, Any]]] = []
    digest = hashlib.sha256()
    previous = start.commit
    good_end = start.offset
    trouble = ""
    for offset, raw in journal.lines(start.offset):
        try:
            line = orjson.loads(raw)
        except orjson.JSONDecodeError:
            trouble = f"the line at byte {offset} is not JSON (torn by a crash)"
            break
        if not isinstance(line, dict):
            trouble = f"the line at byte {offset} is not a JSON object"
            break
        if line.get("op") != COMMIT:
            pending.append((offset, line))
            digest.update(raw)
            continue
        if (
            line.get("lines") != len(pending)
            or line.get("digest") != digest.hexdigest()
            or line.get("prev") != previous
            or line.get("hash") != row_hash(line)
        ):
            trouble = f"the commit at byte {offset} does not match the lines before it"
            break
        previous = line["hash"]
        good_end = offset + len(raw)
        yield Batch(pending, Position(good_end, offset, previous))
        pending = []
        digest = hashlib.sha256()
    if journal.size == good_end:
        return
    if not cut:
        raise StoreError(f"The journal {journal.path} does not check out: {trouble}.")
    if trouble and _commit_after(journal, good_end):
        raise StoreError(
            f"The journal {journal.path} is damaged inside ({trouble}), with committed "
            "records after the damage. Referee never rewrites earlier lines, so something "
            "outside referee changed this file. Stop the bot and restore the file from "
            "your latest backup."
        )
    journal.cut(good_end, trouble or "the last batch was never committed (a crash mid-write)")


def _unused(path: Path) -> Path:
    """``path``, or ``path-2``, ``path-3``...: never a file kept by an earlier cut."""
    candidate, number = path, 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}-{number}")
    return candidate


def _commit_after(journal: Journal, start: int) -> bool:
    """Whether any well-formed commit line follows ``start``."""
    for _, raw in journal.lines(start):
        if b'"op":"commit"' in raw:
            with contextlib.suppress(orjson.JSONDecodeError):
                line = orjson.loads(raw)
                if isinstance(line, dict) and line.get("hash") == row_hash(line):
                    return True
    return False
