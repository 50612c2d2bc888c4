"""Checking the whole store in one pass, and a note of how far it was checked.

``referee verify`` checks every batch of the journal against its commit line and every
ledger row (its link in the chain, its hash and, with the secret, its dice). That is
linear in the campaign: seconds on a 200,000-row ledger. So after a check that found
everything consistent, it keeps a note beside the store (``store.verified.json``): the
journal's length then, the sha256 of those bytes, and where the chain stood. The next
check hashes those bytes again (one sha256 over the file, a twentieth of the full
check's time); if they are unchanged, the rows in them are the very rows found
consistent before, and only the batches written since are checked. A byte changed
anywhere in them, a note from another store, another secret, or ``--full``: the whole
store is checked again, as the first time.

The note is a cache of a check, not a part of the store: anyone who can change the
journal can change it too, so a check that matters (before a dispute, at the end of a
campaign) uses ``--full``, and a player checks the public ledger, which has no note.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from referee.base.dice import commitment
from referee.base.errors import StoreError
from referee.store.journal import START, Journal, Position, committed
from referee.store.ledger import GENESIS, Report, verify
from referee.store.store import Store
from referee.store.tinyfile import atomic_write

__all__ = ["Checked", "Note", "check_store_whole", "note_path"]

_CHUNK = 1 << 20


@dataclass(frozen=True)
class Note:
    """How far the store was found consistent, and how to know those bytes again."""

    offset: int  # journal bytes checked: up to and including a commit line
    commit_at: int  # where that commit line starts
    commit: str  # its hash
    sha256: str  # of the journal's first ``offset`` bytes
    rows: int  # ledger rows in them
    private: int  # of which secret rolls
    last_hash: str  # the last of those rows' hash
    dice: str  # the sha256 of the secret their dice were checked with; "" for none
    checked_at: str  # when, ISO 8601 UTC

    @property
    def position(self) -> Position:
        return Position(self.offset, self.commit_at, self.commit)


@dataclass(frozen=True)
class Checked:
    """What :func:`check_store_whole` found."""

    report: Report  # every row: those of the note (counted) and those checked now
    damage: str  # the journal's own damage, "" when every batch checks out
    since: Note | None  # the note whose rows were taken as checked, None for a full check


def note_path(store_path: Path) -> Path:
    """Where the note of the store at ``store_path`` is kept."""
    return store_path.with_name(store_path.stem + ".verified.json")


def _read_note(path: Path) -> Note | None:
    try:
        data = orjson.loads(path.read_bytes())
        return Note(**{key: data[key] for key in Note.__dataclass_fields__})
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return None


def _digest(journal: Journal, start: int, end: int, digest: Any = None) -> Any:
    """``digest`` (a new sha256 if None) fed the journal's bytes from ``start`` to ``end``."""
    digest = digest or hashlib.sha256()
    for chunk in journal.chunks(start, end):
        digest.update(chunk)
    return digest


def _usable(note: Note | None, journal: Journal, secret: bytes | None) -> tuple[Note, Any] | None:
    """The note and the sha256 of its bytes, if the journal still holds them unchanged and
    its dice check fits this one (a chain-only check needs none)."""
    if note is None or note.offset > journal.size:
        return None
    if secret is not None and note.dice != commitment(secret):
        return None
    digest = _digest(journal, 0, note.offset)
    return (note, digest) if digest.hexdigest() == note.sha256 else None


def _rows(journal: Journal, start: Position, reached: list[Position]) -> Iterator[Any]:
    """The roll rows of every committed batch after ``start``, each batch checked
    against its commit line as it is read; ``reached`` ends with the last position."""
    for batch in committed(journal, start, cut=False):
        for _, line in batch.lines:
            if "op" not in line:
                yield line
        reached.append(batch.position)


def check_store_whole(
    store: Store,
    secret: bytes | None,
    published: str | None = None,
    *,
    full: bool = False,
) -> Checked:
    """Check the store's journal and ledger in one pass (after its note, unless ``full``);
    keep a note of a check that found everything consistent."""
    journal, path = store.journal, note_path(store.path)
    usable = None if full else _usable(_read_note(path), journal, secret)
    since, digest = usable if usable else (None, None)
    start = since.position if since else START
    reached = [start]
    try:
        report = verify(
            _rows(journal, start, reached),
            secret,
            published,
            previous=since.last_hash if since else GENESIS,
        )
    except StoreError as error:  # damage inside: check every row, to name the ones hit
        return Checked(verify(store.ledger, secret, published), error.message, None)
    if since is not None:
        report = replace(
            report,
            rows=report.rows + since.rows,
            dice_checked=report.dice_checked + (since.rows if secret is not None else 0),
            private=report.private + since.private,
        )
    end = reached[-1]
    if report.ok and end.offset > start.offset and report.rows == len(store.ledger):
        digest = _digest(journal, start.offset, end.offset, digest if since else None)
        _keep_note(path, end, digest.hexdigest(), report, store, secret)
    return Checked(report, "", since)


def _keep_note(
    path: Path, position: Position, sha256: str, report: Report, store: Store, secret: bytes | None
) -> None:
    """Write the note (best effort: a folder the shell may not write keeps none)."""
    note = Note(
        offset=position.offset,
        commit_at=position.commit_at,
        commit=position.commit,
        sha256=sha256,
        rows=report.rows,
        private=report.private,
        last_hash=store.ledger.last_hash,
        dice="" if secret is None else commitment(secret),
        checked_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    with contextlib.suppress(OSError):
        atomic_write(path, orjson.dumps(asdict(note)))
