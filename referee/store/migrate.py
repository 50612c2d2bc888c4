"""Convert a store of the single-file format (everything in TinyDB) to the journal, once.

Until the journal, ``store.json`` held the roll ledger and every post record in TinyDB
tables named ``ledger`` and ``posts``. Opening such a store converts it: a copy of the
old file is kept beside it (``store.json.<time>.bak``), the ledger rows (byte for byte
the rows that were sealed, so their hashes and chain still verify) and the post
records become the journal's first committed batch, and the TinyDB file keeps only
the small tables. A crash part-way leaves the old file in place and the conversion
simply runs again on the next open.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
from tinydb import TinyDB

from referee.base.errors import StoreError
from referee.store.journal import START, Position, commit_line
from referee.store.ledger import GENESIS
from referee.store.tables import (
    KEY_FIELD,
    LEDGER_TABLE,
    META_TABLE,
    POSTS_TABLE,
    _by_doc_id,
    _put_line,
)
from referee.store.tinyfile import FlushOnDemand, atomic_write, backup_name, keep_copy

log = logging.getLogger(__name__)


def migrate(
    path: Path, journal_path: Path, index_path: Path, raw: Mapping[str, Any], db: TinyDB
) -> dict[str, Any]:
    """Move ``raw``'s ledger and posts into a new journal; the TinyDB tables left."""
    lines = [orjson.dumps(row) + b"\n" for row in _ledger_rows(raw.get(LEDGER_TABLE, {}))]
    for _, doc in _by_doc_id(raw.get(POSTS_TABLE, {})):
        record = {key: value for key, value in doc.items() if key != KEY_FIELD}
        lines.append(
            b"".join(_put_line(POSTS_TABLE, str(doc.get(KEY_FIELD)), orjson.dumps(record)))
        )
    backup = keep_copy(path)
    for stale in (journal_path, index_path):
        if stale.exists():  # a conversion cut short before: keep it, never overwrite
            stale.rename(backup_name(stale))
    position = START
    if lines:
        data = b"".join(lines)
        commit = commit_line(len(lines), hashlib.sha256(data).hexdigest(), GENESIS)
        commit_bytes = orjson.dumps(commit) + b"\n"
        atomic_write(journal_path, data + commit_bytes)
        position = Position(len(data) + len(commit_bytes), len(data), commit["hash"])
    db.drop_table(LEDGER_TABLE)
    db.drop_table(POSTS_TABLE)
    db.table(META_TABLE).insert(position.to_json())
    middleware: FlushOnDemand = db.storage  # type: ignore[assignment]
    middleware.flush()
    log.warning(
        "event=store_converted file=%s rows=%d posts=%d backup=%s: the ledger and the posts "
        "now live in %s",
        path,
        len(raw.get(LEDGER_TABLE, {})),
        len(raw.get(POSTS_TABLE, {})),
        backup,
        journal_path,
    )
    return middleware.read() or {}


def _ledger_rows(raw_table: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    seen: set[str] = set()
    for doc_id, row in _by_doc_id(raw_table):
        roll_id = row.get("roll_id")
        if type(roll_id) is not str or roll_id in seen:
            raise StoreError(
                f"The ledger holds a row (document {doc_id}) with a missing or repeated "
                "'roll_id'; the file was edited outside referee. Restore it from a backup."
            )
        seen.add(roll_id)
        rows.append(row)
    return rows
