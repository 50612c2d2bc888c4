"""``[[catchup]]``: what happened in a thread since the asker's last post there.

The verdicts in order (one line each: roll id and link, who, the tag, the result), and
whose turn it is now with its deadline; campaign-wide (asked by private message), one
summary line per thread the asker plays in. Read from the store's post records, newest
first and at most ``HISTORY_SCAN`` of them, as ``[[history]]`` does: the asker's last
post in a thread is the newest one the live worker saw there (``last_posts``, tags or
not), or their newest refereed one. A GM's secret rolls stay out unless a GM asks in
private. Nothing here rolls or writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.base.posts import Post, post_link
from referee.resolve import pace_state, tracker_verbs
from referee.resolve.tracker import Tracker, from_record
from referee.store.records import HISTORY_SCAN
from referee.system import Context

CATCHUP_LINES = 25  # verdict lines of one thread; the rest are counted
CATCHUP_THREADS = 20  # threads of a campaign-wide catch-up


@dataclass(frozen=True)
class CatchupLine:
    """One verdict since the asker's last post."""

    roll_id: str
    link: str
    author: str
    tag: str
    result: str
    void: bool = False


@dataclass(frozen=True)
class ThreadCatchup:
    """One thread's catch-up for one asker."""

    thread: str
    link: str
    lines: tuple[CatchupLine, ...]  # oldest first
    more: int  # verdicts since then beyond the lines shown
    since_post: bool  # False: the asker has no post there that the bot saw
    tracker: Tracker | None  # the thread's initiative now (None: no fight)
    until: float | None = None  # the current turn's deadline
    overdue: bool = False
    title: str = ""  # the thread's title, when a read saw it ("" otherwise)

    @property
    def count(self) -> int:
        """Verdicts since the asker's last post."""
        return len(self.lines) + self.more


@dataclass(frozen=True)
class CatchupResult:
    """A catch-up: one thread in detail, or a line per thread (campaign-wide)."""

    asker: str
    threads: tuple[ThreadCatchup, ...]
    campaign_wide: bool
    scanned: int  # post records looked through
    complete: bool  # False when older records were not read

    def ledger_facts(self) -> dict[str, Any]:
        """What the ledger row keeps: the threads and how many verdicts each had."""
        return {"catchup": {t.thread: t.count for t in self.threads}}

    def to_data(self) -> dict[str, Any]:
        """The catch-up as JSON, for a notice the worker sends later."""
        return {
            "asker": self.asker,
            "campaign_wide": self.campaign_wide,
            "complete": self.complete,
            "threads": [
                {
                    "thread": t.thread,
                    "title": t.title,
                    "link": t.link,
                    "lines": [line.__dict__ for line in t.lines],
                    "more": t.more,
                    "since_post": t.since_post,
                    "whose": _whose_names(t.tracker),
                    "round": t.tracker.round if t.tracker else 0,
                    "until": t.until,
                    "overdue": t.overdue,
                }
                for t in self.threads
            ],
        }


def _whose_names(tracker: Tracker | None) -> list[str]:
    current = tracker.current if tracker is not None else None
    return list(current.names) if current is not None else []


def thread_link(thread: str) -> str:
    """A thread's address on Reddit."""
    return post_link(Post(thread, thread, "", "", 0.0))


def catchup(context: Context, *, campaign_wide: bool) -> CatchupResult:
    """The asker's catch-up: the post's thread, or every thread they play in."""
    asker = context.post.author
    here = context.post.thread
    posts = context.changes.table("posts")
    voids = context.table("voids")
    last_seen = context.table(pace_state.LAST_POSTS)
    mine: set[str] = set()  # threads where the asker's last post was met
    found: dict[str, list[CatchupLine]] = {}
    more: dict[str, int] = {}
    scanned = 0
    complete = True
    for fullname in posts.newest():
        if scanned >= HISTORY_SCAN:
            complete = False
            break
        scanned += 1
        if fullname == context.post.fullname:
            continue
        record = posts.get(fullname) or {}
        thread = str(record.get("thread", ""))
        if thread in mine or not thread.startswith("t3_") or (not campaign_wide and thread != here):
            continue
        if _is_last(record, last_seen.get(pace_state.last_post_key(thread, asker)), asker):
            mine.add(thread)
            if not campaign_wide:
                break
            continue
        if record.get("private") and not context.sees_hidden:
            continue
        lines = found.setdefault(thread, [])
        for line in reversed(_lines(fullname, record, voids)):
            if len(lines) < CATCHUP_LINES:
                lines.append(line)
            else:
                more[thread] = more.get(thread, 0) + 1
    threads = [here] if not campaign_wide else _played(context, asker, mine, found)
    summaries = tuple(
        _summary(context, thread, found.get(thread, []), more.get(thread, 0), thread in mine)
        for thread in threads[:CATCHUP_THREADS]
    )
    return CatchupResult(asker, summaries, campaign_wide, scanned, complete)


def _is_last(record: Mapping[str, Any], seen: Mapping[str, Any] | None, asker: str) -> bool:
    """Whether ``record`` is by the asker, or older than their last post the worker saw."""
    if str(record.get("author", "")).casefold() == asker.casefold():
        return True
    created = record.get("created")
    if not seen or not isinstance(created, (int, float)):
        return False
    return created <= float(seen["created"])


def _lines(fullname: str, record: Mapping[str, Any], voids: Any) -> list[CatchupLine]:
    tags = record.get("tags", [])
    link = post_link(Post(fullname, str(record.get("thread", "")), "", "", 0.0))
    lines = []
    for entry in record.get("rolls", []):
        index = int(str(entry["id"]).rpartition("-")[2] or 1) - 1
        lines.append(
            CatchupLine(
                str(entry["id"]),
                link,
                str(record.get("author", "")),
                str(tags[index]) if 0 <= index < len(tags) else "",
                str(entry.get("result", "")),
                voids.get(str(entry["id"])) is not None,
            )
        )
    return lines


def _played(context: Context, asker: str, mine: set[str], found: Mapping[str, Any]) -> list[str]:
    """The threads a campaign-wide catch-up covers: where the asker posted, or has a
    character in the initiative; the busiest first."""
    threads = set(mine)
    prefix = f" {asker.casefold()}"
    threads.update(
        key.rpartition(" ")[0]
        for key in context.table(pace_state.LAST_POSTS)
        if key.endswith(prefix)
    )
    for thread, record in context.table(tracker_verbs.TABLE).items():
        names = (c.get("name", "") for c in record.get("combatants", ()))
        if any(
            (tracker_verbs.owner_of(context, str(n)) or "").casefold() == asker.casefold()
            for n in names
        ):
            threads.add(thread)
    return sorted(threads, key=lambda t: (-len(found.get(t, ())), t))


def _summary(
    context: Context, thread: str, lines: list[CatchupLine], more: int, since_post: bool
) -> ThreadCatchup:
    record = context.table(tracker_verbs.TABLE).get(thread)
    tracker = from_record(record) if record else None
    until, overdue = None, False
    if tracker is not None:
        pace = pace_state.load(context, thread)
        until, overdue = pace_state.turn_deadline(context, pace, tracker, context.post.created)
    return ThreadCatchup(
        thread,
        thread_link(thread),
        tuple(reversed(lines)),
        more,
        since_post,
        tracker,
        until,
        overdue,
        str((context.table(pace_state.THREAD_TITLES).get(thread) or {}).get("title", "")),
    )
