"""The public ledger: the rows a player may see, in one file anyone can check.

The store's journal holds everything the campaign recorded, secret rolls and the sheets
of characters the GMs alone know of included, so it is never handed out. ``referee
export --public FILE`` writes this file instead, JSON lines::

    {"referee_public_ledger": 2, "campaign": "...", "secret_sha256": "...",
     "rows": 120, "shown": 112, "withheld": {"private": 7, "hidden": 1}, ...}
    {"roll_id": "kx9f2a-1", ..., "prev": "<hash of the row before>", "hash": "..."}
    {"withheld": "private", "prev": "...", "hash": "..."}
    ...

Every ledger row in order: a row a player may see exactly as recorded (the bytes its
hash covers), a row withheld as a *stub* holding only its ``prev`` and ``hash``. The
stubs keep the chain whole, so :func:`referee.store.ledger.verify` checks every link
and every shown row's hash and dice, and a row removed, added or changed anywhere
breaks it; what a withheld row said stays the GM's, and the file says how many there
are and why. The first line is the header: it is not covered by the chain, and a
verifier recounts what it claims.

A stub never holds the row's ``salt`` (:mod:`referee.store.ledger`): without it the
hash cannot be matched by trying the guessable fields of a secret roll. A row shown
holds its salt, so its hash is recomputed from the file alone. Format 2 is the first
whose rows may hold salts (a secret roll's dice then take its salt, which an older
verifier would call a mismatch); a file of format 1 reads as before.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from referee.base.errors import ConfigError
from referee.base.files import open_regular
from referee.store.ledger import SALT, WITHHELD

__all__ = ["HEADER_KEY", "PublicLedger", "read_public", "write_public"]

HEADER_KEY = "referee_public_ledger"  # the header's key; its value is the format's version
FORMAT = 2
READABLE = frozenset({1, FORMAT})  # the formats read_public opens: 1 holds no salted rows
MAX_LINE = 1 << 20  # bytes of one line a verifier reads at most: a row is far smaller
HEADER_ROOM = 2048  # bytes kept for the header line (padded with spaces)

Withhold = Callable[[Mapping[str, Any]], str | None]  # a row -> why it is withheld, or None


@dataclass
class Exported:
    """What :func:`write_public` wrote."""

    rows: int = 0
    shown: int = 0
    withheld: dict[str, int] = field(default_factory=dict)  # reason -> rows
    # Withheld rows recorded before rows had salts: their stubs can be matched by guessing.
    unsalted: int = 0


def write_public(
    path: Path,
    lines: Iterable[bytes],
    withhold: Withhold,
    header: Mapping[str, Any],
) -> Exported:
    """Write the public ledger of the rows ``lines`` (journal lines) into ``path``.

    The file is written beside ``path`` and renamed over it when whole, so a reader
    never sees half of one. Raises :class:`ConfigError` if it cannot be written.
    """
    done = Exported()
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise ConfigError(f"Cannot write {path}: {exc.strerror or exc}.") from exc
    try:
        with os.fdopen(fd, "wb") as body:
            body.write(b" " * HEADER_ROOM + b"\n")  # room for the header, written once counted
            for line in lines:
                row = orjson.loads(line)
                done.rows += 1
                reason = withhold(row)
                if reason is None:
                    done.shown += 1
                    body.write(line if line.endswith(b"\n") else line + b"\n")
                    continue
                done.withheld[reason] = done.withheld.get(reason, 0) + 1
                done.unsalted += SALT not in row
                stub = {WITHHELD: reason, "prev": row.get("prev"), "hash": row.get("hash")}
                body.write(orjson.dumps(stub) + b"\n")
            counts = {"rows": done.rows, "shown": done.shown, "withheld": done.withheld}
            _write_header(body, {**header, **counts})
            body.flush()
            os.fsync(body.fileno())
        os.replace(temp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise ConfigError(f"Cannot write {path}: {exc.strerror or exc}.") from exc
        raise
    return done


def _write_header(body: IO[bytes], header: Mapping[str, Any]) -> None:
    """Put the header into the room left at the start of the file (padded with spaces)."""
    text = orjson.dumps({HEADER_KEY: FORMAT, **header})
    if len(text) > HEADER_ROOM:
        raise ValueError("the header does not fit the room left for it")
    body.seek(0)
    body.write(text + b" " * (HEADER_ROOM - len(text)))


@dataclass
class PublicLedger:
    """A public ledger file opened for checking: its header, then its rows, streamed."""

    path: Path
    header: dict[str, Any]
    _handle: IO[bytes]

    def rows(self) -> Iterator[Any]:
        """Each row line parsed (a row, a stub, or whatever a changed file holds).

        A line that is not JSON, or longer than any row, comes as ``None``: the
        verifier reports it where it stands, and the lines after it are still read.
        """
        while True:
            line = self._handle.readline(MAX_LINE + 1)
            if not line:
                return
            if len(line) > MAX_LINE:
                while line and not line.endswith(b"\n"):  # skip the rest of that line
                    line = self._handle.readline(MAX_LINE)
                yield None
                continue
            if not line.strip():
                continue
            try:
                yield orjson.loads(line)
            except orjson.JSONDecodeError:
                yield None

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> PublicLedger:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def read_public(path: Path) -> PublicLedger:
    """Open a public ledger; :class:`ConfigError` if it is missing or not one."""
    try:
        # A regular file only: a FIFO or a device would hang the check (lines are capped).
        handle = os.fdopen(open_regular(path, "The public ledger"), "rb")
    except OSError as exc:
        raise ConfigError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    first = handle.readline(MAX_LINE)
    try:
        header = orjson.loads(first)
    except orjson.JSONDecodeError:
        header = None
    version = header.get(HEADER_KEY) if isinstance(header, dict) else None
    if type(version) is int and version > FORMAT:
        handle.close()
        raise ConfigError(
            f"{path} is a public ledger of format {version}; this referee reads formats up to "
            f"{FORMAT}. Check it with a newer referee."
        )
    if version not in READABLE:
        handle.close()
        raise ConfigError(
            f"{path} is not a public ledger written by `referee export --public` (its first "
            "line is not the header). Check that you have the file the GM published."
        )
    return PublicLedger(path, header, handle)
