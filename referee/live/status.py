"""The live bot's heartbeat, what ``referee status`` makes of it, and the restore mark.

After each step that read Reddit, the worker replaces ``<store>.status.json`` beside
the store (a temp file renamed over it, no fsync: it is a heartbeat, not a record) with
when it last read, how many replies wait and its budget. ``referee status`` reads it
with the store's last committed state and says whether the bot looks stuck: running
but with no successful read for longer than the longest back-off and two poll
intervals.

``referee restore`` leaves ``<store>.restored.json`` beside the store it put back: the
store may be older than the threads, so the bot, before answering a post written before
that moment, looks for its own reply below it first (it may have answered it after the
backup was made).

>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = heartbeat_path(Path(tmp) / "store.json")
...     write_heartbeat(path, {"last_read_at": 100.0})
...     read_heartbeat(path)["last_read_at"]
100.0
>>> stuck(last_read_at=100.0, poll_seconds=60, now=100.0 + 900 + 120 + 1)
True
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

from referee.live.parts import MAX_BACKOFF


def heartbeat_path(store_path: Path) -> Path:
    """Where the heartbeat of the bot writing ``store_path`` lies."""
    return store_path.with_name(store_path.stem + ".status.json")


def write_heartbeat(path: Path, data: dict[str, Any]) -> None:
    """Replace the heartbeat file with ``data`` (atomically; a failure is not fatal)."""
    temp = path.with_name(path.name + ".tmp")
    try:
        temp.write_bytes(orjson.dumps(data))
        os.replace(temp, path)
    except OSError:
        pass  # the store's own writes report a full disk; the heartbeat is best effort


def read_heartbeat(path: Path) -> dict[str, Any]:
    """The last heartbeat, or ``{}`` when there is none (or it is unreadable)."""
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def stuck(*, last_read_at: float, poll_seconds: float, now: float) -> bool:
    """Whether a running bot's last successful read is older than it can be when well:
    the longest back-off after Reddit's errors, and two idle intervals."""
    return now - last_read_at > MAX_BACKOFF + 2 * poll_seconds


def restored_path(store_path: Path) -> Path:
    """Where ``referee restore`` marks when it put the store at ``store_path`` back."""
    return store_path.with_name(store_path.stem + ".restored.json")


def restored_at(store_path: Path) -> float:
    """When the store was last restored from a backup (epoch seconds); 0.0 if never."""
    mark = read_heartbeat(restored_path(store_path))
    try:
        return float(mark.get("restored_at", 0.0))
    except (TypeError, ValueError):
        return 0.0
