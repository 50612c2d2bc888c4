"""A consistent copy of a store while its writer runs, and the check a copy must pass.

The store is three files (:mod:`referee.store.store`). Its writer only ever appends to
the journal, and replaces the sheets file and the index whole, by a rename, at a
checkpoint. So a copy made in this order is one consistent state, with no lock taken:

1. the sheets file and the index (each read is one whole version of it);
2. the journal, last, up to its size at that moment: it holds every commit the first
   two reflect, since they are written only after the journal they describe;
3. the copy is cut at its last committed batch (a batch the writer was appending is
   left out, exactly as a crash would leave it) and checked whole (:func:`check_store`).

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     folder = Path(tmp)
...     with Store(folder / "store.json") as store:
...         _ = store.ledger.append({"roll_id": "a-1"})
...     (folder / "copy").mkdir()
...     copy_store(folder / "store.json", folder / "copy").rows
1
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from referee.base.errors import StoreError
from referee.store.ledger import verify
from referee.store.store import Store

__all__ = ["StoreCheck", "check_store", "copy_store", "store_files"]

_CHUNK = 1 << 20


@dataclass(frozen=True)
class StoreCheck:
    """What a whole check of a store found: all of it consistent."""

    rows: int  # ledger rows
    last_hash: str  # the last row's hash: the ledger's head
    journal_bytes: int  # the journal up to its last commit


def store_files(path: Path) -> tuple[Path, Path, Path]:
    """The store's three files: the sheets file ``path``, its index and its journal."""
    return (
        path,
        path.with_name(path.stem + ".index"),
        path.with_name(path.stem + ".ledger.jsonl"),
    )


def copy_store(path: Path, into: Path) -> StoreCheck:
    """Copy the store at ``path`` into the folder ``into`` (same names), consistently,
    while its writer may be writing; cut the copy at its last commit and check it.

    Raises :class:`StoreError` if the copy does not check out (the store is damaged).
    """
    sheets, index, journal = store_files(path)
    for source in (sheets, index):
        try:
            shutil.copyfile(source, into / source.name)
        except FileNotFoundError:
            continue  # a store not checkpointed yet has none: its journal has it all
    if journal.exists():
        with open(journal, "rb") as reading, open(into / journal.name, "wb") as writing:
            left = os.fstat(reading.fileno()).st_size  # what is there now; more may come
            while left > 0 and (chunk := reading.read(min(_CHUNK, left))):
                writing.write(chunk)
                left -= len(chunk)
    return check_store(into / sheets.name, cut=True)


def check_store(path: Path, *, cut: bool = False) -> StoreCheck:
    """Open the store at ``path`` read-only and check it whole: the sheets file and the
    index against the journal, every batch of the journal against its commit line, and
    the ledger's chain. ``cut``: drop a batch left half-written at the journal's end
    (a copy's, never a live store's).

    Raises :class:`StoreError` saying what does not check out.
    """
    with Store(path, read_only=True) as store:
        store.audit()
        report = verify(store.ledger, None)
        if not report.ok:
            first = report.mismatches[0]
            raise StoreError(
                f"The ledger in {store.journal_path} does not check out: row "
                f"{first.roll_id}: {first.reason} ({len(report.mismatches)} mismatch(es))."
            )
        check = StoreCheck(len(store.ledger), store.ledger.last_hash, store.position.offset)
        journal = store.journal_path
    if cut and journal.exists() and journal.stat().st_size > check.journal_bytes:
        os.truncate(journal, check.journal_bytes)
    return check
