"""The live worker: poll Reddit, referee each new post once, reply to it exactly once.

One cycle::

    settle     replies left "sending" (a crash, a lost answer): find the bot's reply
               below the post (or in its sent messages), else post again
    GMs        at start and every ``moderators_refresh_hours``: each subreddit's
               moderators, kept in the store, join config.toml's GMs
    read       one listing page per source, newest first: r/a+b/comments or r/a+b/new
               (alternating, so an idle cycle is ONE request for all subreddits), and
               each listed thread; page on only while the page is all new; when the
               gap is deeper than a listing reaches, read the active threads one by one
    referee    new posts (newer than the source's cursor) in reading order, through
               the same Referee as ``referee batch``; records, ledger rows and the
               advanced cursors land in one flush
    inbox      every ``inbox_every``-th cycle reads the unread private messages INSTEAD of
               a listing (so an idle cycle stays one request). A GM's tags
               are rolled in secret (ledger rows marked private) and answered by
               private reply; anyone else's tags get a polite refusal. Then the inbox
               is marked read (comment replies and mentions too: listings cover those)
    edits      every ``edits_every``-th cycle, instead of a listing, one request re-reads
               the newest refereed posts (listings show only the newest edits);
               a known post whose ``edited`` is set is refereed again; the pipeline
               adds its note once, and the worker edits its reply
    deliver    each pending reply, oldest first (a private message's reply too)
    roster     when anything was refereed: render the roster wiki page and edit it if
               its text changed (a hash in the store); a 403 switches this off until
               restart

Delivery is a small state machine kept in the post's record in the store's ``posts``
table, under ``delivery``; every transition is flushed before the next call to Reddit::

    refereed ─► pending ──intent flushed──► sending ──reply id flushed──► delivered
    (the intents of all replies due in a cycle share one synced flush; one that is
    not tried after all, after a RATELIMIT say, goes back to pending)
                 ▲   │ RATELIMIT                 │ lost answer, 5xx, crash
                 │   └► pending, retry_at        ▼
                 │                          next cycle: look for the bot's reply
                 └──────────── none found ───────┘        found ─► delivered
    THREAD_LOCKED, TOO_OLD, DELETED_COMMENT, 403, other API errors, or too many
    attempts ─► undeliverable (the rolls stay in the ledger; never retried)

A post refereed before but never delivered by the worker (by ``referee batch``, say)
enters as ``sending``: it is looked for before it is posted.

Every log line is ``event=... post=<fullname> ...`` so one post can be followed from
seen to replied with ``grep post=t1_abc``.
"""

from __future__ import annotations

import logging
import math
import re
import signal
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from itertools import islice
from types import FrameType
from typing import Any

from .campaign import RedditConfig
from .errors import ConfigError
from .forum import Post, reading_order
from .pipeline import Outcome, Referee
from .reddit import LISTING_REACH, Failure, Forum, ForumError
from .roster import RosterRenderer, digest, roster_view
from .store import Store
from .tags import find_tags

log = logging.getLogger(__name__)

# Attempts at posting one reply before it is recorded as undeliverable.
MAX_ATTEMPTS = 8
# The longest pause after repeated 429s, 5xx or network loss, in seconds.
MAX_BACKOFF = 900.0
# The most threads read one by one to fill a gap deeper than a listing reaches.
BACKFILL_THREADS = 50
# Refereed posts re-read for edits in one sweep: one api/info request takes 100.
EDIT_SWEEP = 100
WORKER_TABLE = "worker"
OPEN_KEY = "open"  # the worker table's list of posts whose reply is not settled
# A private message with tags from someone who is not a GM gets this, once.
PRIVATE_REFUSAL = (
    "Only a GM of {campaign} may roll in secret by private message, so nothing was "
    "rolled. Put your tags in a reply in the game's thread, where everyone sees the "
    "dice; ask a GM if you think you should be one."
)
# Failures after which the roster is not published again until the worker restarts.
_WIKI_GIVE_UP = (Failure.FORBIDDEN, Failure.NOT_FOUND, Failure.REJECTED, Failure.UNDELIVERABLE)
_THREAD_ADDRESS = re.compile(r"/comments/([a-z0-9]+)")
_THREAD_ID = re.compile(r"(?:t3_)?([a-z0-9]+)")


class Delivery(str, Enum):
    """Where a post's reply stands."""

    PENDING = "pending"  # refereed; the reply is to be posted (at retry_at, if set)
    SENDING = "sending"  # intent recorded: a reply may exist; look before posting again
    DELIVERED = "delivered"  # the reply's fullname is recorded
    UNDELIVERABLE = "undeliverable"  # never to be posted; the rolls stay in the ledger


@dataclass
class CycleReport:
    """What one cycle did, and where its time went."""

    seen: int = 0  # posts read from Reddit
    refereed: int = 0  # new posts run through the pipeline
    delivered: int = 0  # replies posted or found already posted
    undeliverable: int = 0
    edited: int = 0  # replies edited to carry the edited note
    messages: int = 0  # private messages with tags taken in (rolled, or refused)
    roster_published: bool = False  # the wiki roster page was edited
    skipped: bool = False  # backing off: nothing was asked of Reddit
    failure: Failure | None = None  # what cut the cycle short
    seconds: float = 0.0  # wall time of the cycle
    reddit_seconds: float = 0.0  # of which waiting for Reddit
    sources: list[str] = field(default_factory=list)

    @property
    def local_seconds(self) -> float:
        """Time spent in the worker itself: refereeing, rendering, the store."""
        return max(0.0, self.seconds - self.reddit_seconds)


class _Stop(Exception):
    """Ends a cycle early; Reddit is throttling, failing or unreachable."""

    def __init__(self, error: ForumError) -> None:
        super().__init__(error.message)
        self.error = error


def thread_fullname(value: str) -> str:
    """A watched thread's fullname from an id, a fullname or an address.

    >>> thread_fullname("https://www.reddit.com/r/dicegames/comments/1gq7xk2/session_1/")
    't3_1gq7xk2'
    >>> thread_fullname("1gq7xk2")
    't3_1gq7xk2'
    """
    found = _THREAD_ADDRESS.search(value) or _THREAD_ID.fullmatch(value.strip())
    if not found:
        raise ValueError(f"not a thread id or address: {value!r}")
    return f"t3_{found.group(1)}"


def _rank(fullname: str) -> int:
    """Reddit ids grow with time: the order of posts of one kind."""
    return int(fullname.partition("_")[2] or "0", 36)


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).isoformat(timespec="seconds")


class Worker:
    """Polls through a :class:`~referee.reddit.Forum` and referees through a ``Referee``.

    Not thread-safe by itself; every public method takes the worker's lock, so the
    scheduler's jobs and a signal never interleave on the store.
    """

    def __init__(
        self,
        referee: Referee,
        forum: Forum,
        config: RedditConfig,
        *,
        clock: Callable[[], float] = time.time,
        schedule_retry: Callable[[float], None] | None = None,
        listing_reach: int = LISTING_REACH,
    ) -> None:
        self.referee = referee
        self.forum = forum
        self.config = config
        self.clock = clock
        self.schedule_retry = schedule_retry
        self.listing_reach = listing_reach
        self.store = referee.campaign.store
        self.posts = referee.posts
        self.state = self.store.table(WORKER_TABLE)
        self.bot = forum.username.lower()
        self.subreddits = tuple(config.subreddits)
        self.threads = tuple(thread_fullname(t) for t in config.threads)
        self.lock = threading.RLock()
        # GMs: whoever the referee was given (config.toml's), plus the moderators.
        self._base_gms = referee.gms
        self._moderators_at = 0.0  # when the moderators in use were read from Reddit
        self._load_moderators()
        self._roster_renderer: RosterRenderer | None = None
        self._roster_due = True  # render once at start: a shell import may have changed it
        self._wiki_off = not config.wiki_page
        self.backoff_until = 0.0
        self._backoff_step = 0
        self._first_cycle = True
        self._number = 0  # cycles run; picks the listing of a cycle
        self._reddit_seconds = 0.0
        # Posts whose reply is not settled (or whose reply awaits the edited note), kept
        # in the store so that starting never reads every post.
        saved = self.state.get(OPEN_KEY)
        if saved is None:  # a store from before the list was kept: read the posts once
            keys = [key for key, record in self.posts.items() if self._is_open(record)]
        else:
            keys = list(saved.get("posts", []))
        self._open: dict[str, None] = dict.fromkeys(keys)

    # -- the cycle ---------------------------------------------------------------

    def cycle(self, *, full: bool = False) -> CycleReport:
        """Run one poll cycle; ``full`` reads every source (the first cycle always does)."""
        with self.lock:
            report = CycleReport()
            started = time.perf_counter()
            self._reddit_seconds = 0.0
            if self.clock() < self.backoff_until:
                report.skipped = True
                log.info("event=cycle_skipped backoff_until=%s", _iso(self.backoff_until))
                return report
            full = full or self._first_cycle
            self._number += 1  # in memory: an idle cycle writes nothing to the store
            number = self._number
            try:
                self._settle(report)
                self._refresh_moderators()
                # The inbox and the edit sweep take a cycle's turn instead of adding a
                # request to it, so an idle cycle costs one request; the first cycle reads
                # every listing and the inbox.
                turn = "listing" if full else self._turn(number)
                if turn == "listing":
                    self._read(self._listing_turn(number), full, report)
                if self.config.inbox_every and (full or turn == "inbox"):
                    self._read_inbox(report)
                if turn == "edits":
                    self._sweep_edits(report)
                self._deliver(report)
                self._edit(report)
                self._publish_roster(report)
            except _Stop as stop:
                report.failure = stop.error.failure
                self._back_off(stop.error)
                self._number -= 1  # read the same sources again next time
            else:
                self._first_cycle = False
                self._backoff_step = 0
            finally:
                self.store.flush(sync=False)  # nothing here must outlive a power cut
                report.seconds = time.perf_counter() - started
                report.reddit_seconds = self._reddit_seconds
            log.info(
                "event=cycle_end cycle=%d sources=%s seen=%d refereed=%d messages=%d "
                "delivered=%d undeliverable=%d edited=%d failure=%s local_ms=%.1f "
                "reddit_ms=%.1f",
                number,
                "+".join(report.sources) or "-",
                report.seen,
                report.refereed,
                report.messages,
                report.delivered,
                report.undeliverable,
                report.edited,
                report.failure.value if report.failure else "-",
                report.local_seconds * 1000,
                report.reddit_seconds * 1000,
            )
            return report

    def deliver_due(self) -> CycleReport:
        """Post the replies whose wait is over (the scheduler's retry job)."""
        with self.lock:
            report = CycleReport()
            try:
                self._settle(report)
                self._deliver(report)
                self._edit(report)
            except _Stop as stop:
                report.failure = stop.error.failure
                self._back_off(stop.error)
            finally:
                self.store.flush(sync=False)
            return report

    @property
    def open_posts(self) -> list[str]:
        """Posts whose reply is not yet delivered, or not yet edited."""
        return list(self._open)

    def _back_off(self, error: ForumError) -> None:
        self._backoff_step += 1
        delay = min(MAX_BACKOFF, self.config.poll_seconds * 2 ** (self._backoff_step - 1))
        if error.retry_after:
            delay = max(delay, error.retry_after)
        if error.failure is Failure.UNCERTAIN:
            delay = 0.0  # nothing is wrong with Reddit as such; the next cycle looks first
        self.backoff_until = self.clock() + delay
        log.warning(
            "event=back_off failure=%s seconds=%.0f reason=%r",
            error.failure.value,
            delay,
            error.message,
        )

    def _call(self, function: Callable[..., Any], *args: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args)
        finally:
            self._reddit_seconds += time.perf_counter() - started

    # -- GMs -------------------------------------------------------------------------

    def _load_moderators(self) -> None:
        """Take the moderators kept in the store, if they are of the subreddits watched."""
        cached = self.state.get("moderators") or {}
        by_sub = cached.get("subreddits") or {}
        if sorted(by_sub) != sorted(sub.lower() for sub in self.subreddits):
            return  # another set of subreddits: read them afresh
        self._moderators_at = float(cached.get("fetched_at", 0.0))
        self._use_moderators(by_sub)

    def _use_moderators(self, by_sub: dict[str, list[str]]) -> None:
        names = {name.casefold() for names in by_sub.values() for name in names}
        self.referee.gms = self._base_gms | names

    def _refresh_moderators(self) -> None:
        """Read each subreddit's moderators when the ones in use are too old."""
        if not self.subreddits:
            return
        now = self.clock()
        if now < self._moderators_at + self.config.moderators_refresh_hours * 3600:
            return
        cached = (self.state.get("moderators") or {}).get("subreddits") or {}
        by_sub: dict[str, list[str]] = {}
        for sub in self.subreddits:
            try:
                by_sub[sub.lower()] = list(self._call(self.forum.moderators, sub))
            except ForumError as error:
                if error.failure not in (Failure.FORBIDDEN, Failure.NOT_FOUND):
                    if not self._moderators_at:
                        # Unknown GMs would refuse a moderator's approval for good: wait.
                        raise _Stop(error) from error
                    log.warning(
                        "event=moderators_stale failure=%s: using those read before; "
                        "trying again next cycle",
                        error.failure.value,
                    )
                    return
                by_sub[sub.lower()] = list(cached.get(sub.lower(), []))
                log.warning(
                    "event=moderators_unreadable subreddit=%s failure=%s: keeping %d known",
                    sub,
                    error.failure.value,
                    len(by_sub[sub.lower()]),
                )
        self.state.put("moderators", {"fetched_at": now, "subreddits": by_sub})
        self.store.flush(sync=False)
        self._moderators_at = now
        self._use_moderators(by_sub)
        log.info(
            "event=moderators_read subreddits=%d moderators=%d",
            len(by_sub),
            sum(map(len, by_sub.values())),
        )

    # -- reading -------------------------------------------------------------------

    def _sources(self, number: int, full: bool) -> list[tuple[str, str]]:
        """(kind, key) pairs to read this cycle: listings "comments"/"new", or "thread"."""
        subs = "+".join(self.subreddits)
        sources: list[tuple[str, str]] = []
        if self.subreddits and full:
            sources += [("new", subs), ("comments", subs)]
        elif self.subreddits:
            every = self.config.submissions_every
            sources.append(("new" if number % every == 1 else "comments", subs))
        return sources + [("thread", thread) for thread in self.threads]

    def _cursor_key(self, kind: str, key: str) -> str:
        return f"cursor:{kind}:{key.lower()}"

    def _read(self, number: int, full: bool, report: CycleReport) -> None:
        fresh: dict[str, Post] = {}
        older: dict[str, Post] = {}
        cursors: dict[str, str] = {}
        for kind, key in self._sources(number, full):
            report.sources.append(kind)
            cursor_key = self._cursor_key(kind, key)
            cursor = (self.state.get(cursor_key) or {}).get("newest")
            try:
                if kind == "thread":
                    new, old = self._read_thread(key, cursor)
                else:
                    new, old, gap = self._read_listing(kind, cursor)
                    if gap and kind == "comments":
                        new += self._backfill(cursor, new + old)
                    elif gap:
                        log.warning(
                            "event=gap source=%s cursor=%s: submissions older than the "
                            "listing reaches are not read",
                            kind,
                            cursor,
                        )
            except ForumError as error:
                if error.failure in (Failure.FORBIDDEN, Failure.NOT_FOUND):
                    log.warning(
                        "event=source_skipped source=%s:%s failure=%s reason=%r",
                        kind,
                        key,
                        error.failure.value,
                        error.message,
                    )
                    continue
                raise _Stop(error) from error
            report.seen += len(new) + len(old)
            for post in new:
                fresh.setdefault(post.fullname, post)
            for post in old:
                older.setdefault(post.fullname, post)
            comments = [p.fullname for p in new if p.fullname.startswith("t1_")]
            if kind == "thread" and (cursor is None or comments):
                cursors[cursor_key] = max(comments, key=_rank) if comments else key
            elif new:
                cursors[cursor_key] = max((p.fullname for p in new), key=_rank)
        for post in sorted(fresh.values(), key=reading_order):
            self._referee_new(post, report)
        for post in older.values():
            if post.fullname not in fresh:
                self._check_edit(post)
        for cursor_key, newest in cursors.items():
            self.state.put(cursor_key, {"newest": newest})  # every new post is newer
        # Records, ledger rows and cursors land together. No fsync: lost to a power cut,
        # they are read and rolled again with the same dice; the intent's fsync before
        # any reply makes them durable first.
        self.store.flush(sync=False)

    def _is_new(self, post: Post, cursor: str | None) -> bool:
        if cursor is None:
            return True
        if post.fullname[:2] != cursor[:2]:
            return post.fullname.startswith("t1_")  # comments after a thread's submission
        return _rank(post.fullname) > _rank(cursor)

    def _read_listing(self, kind: str, cursor: str | None) -> tuple[list[Post], list[Post], bool]:
        """New and already-seen posts of a listing, and whether a gap lies beyond its reach."""
        new: list[Post] = []
        old: list[Post] = []
        after: str | None = None
        read = 0
        while True:
            page = self._call(self.forum.listing, kind, self.subreddits, after)
            read += len(page.posts)
            for post in page.posts:
                (new if self._is_new(post, cursor) else old).append(post)
            if old or page.after is None:
                return new, old, False
            if read >= self.listing_reach:
                return new, old, cursor is not None
            after = page.after

    def _read_thread(self, thread: str, cursor: str | None) -> tuple[list[Post], list[Post]]:
        posts = self._call(self.forum.thread, thread)
        new = [p for p in posts if self._is_new(p, cursor)]
        old = [p for p in posts if not self._is_new(p, cursor)]
        return new, old

    def _backfill(self, cursor: str | None, listed: list[Post]) -> list[Post]:
        """Comments newer than ``cursor`` that the listing no longer reaches, thread by thread."""
        threads: dict[str, None] = {}
        for post in sorted(listed, key=lambda p: -_rank(p.fullname)):
            threads.setdefault(post.thread)
        for fullname in islice(self.posts.newest(), BACKFILL_THREADS * 20):
            threads.setdefault(str((self.posts.get(fullname) or {}).get("thread")))
            if len(threads) >= BACKFILL_THREADS:
                break
        for thread in self.threads:
            threads.setdefault(thread)
        found: list[Post] = []
        for thread in list(threads)[:BACKFILL_THREADS]:
            if not thread.startswith("t3_"):
                continue
            posts = self._call(self.forum.thread, thread)
            found += [p for p in posts if p.fullname.startswith("t1_") and self._is_new(p, cursor)]
        log.warning(
            "event=backfill cursor=%s threads=%d comments=%d",
            cursor,
            min(len(threads), BACKFILL_THREADS),
            len(found),
        )
        return found

    def _referee_new(self, post: Post, report: CycleReport) -> None:
        if post.author.lower() == self.bot:
            return
        log.info(
            "event=seen post=%s thread=%s author=%s edited=%s",
            post.fullname,
            post.thread,
            post.author,
            post.edited is not None,
        )
        outcome = self.referee.referee(post)
        if not outcome.has_reply:
            return
        record = self.posts.get(post.fullname)
        if record is None or "delivery" in record:
            return
        report.refereed += 1
        # A post refereed before without the worker (by `referee batch`) may have a reply.
        state = Delivery.SENDING if outcome.replayed else Delivery.PENDING
        self._set(post.fullname, record, {"state": state.value, "attempts": 0})
        log.info(
            "event=refereed post=%s tags=%d problems=%d failed=%s state=%s",
            post.fullname,
            outcome.tags,
            outcome.problems,
            outcome.failed,
            state.value,
        )

    def _read_inbox(self, report: CycleReport) -> None:
        """Take in the unread private messages, then mark the inbox read."""
        report.sources.append("inbox")
        try:
            unread = self._call(self.forum.unread)
        except ForumError as error:
            if error.failure in (Failure.FORBIDDEN, Failure.NOT_FOUND):
                log.warning("event=inbox_unreadable failure=%s", error.failure.value)
                return
            raise _Stop(error) from error
        for message in sorted(unread.messages, key=lambda m: _rank(m.fullname)):
            if message.author.lower() != self.bot and message.fullname not in self.posts:
                self._take_message(message, report)
        self.store.flush()  # every message's record and intent, durable before it is marked read
        read = [m.fullname for m in unread.messages] + list(unread.others)
        if not read:
            return
        try:
            self._call(self.forum.mark_read, read)
        except ForumError as error:  # harmless: known messages are skipped next time
            log.warning("event=mark_read_failed items=%d reason=%r", len(read), error.message)

    def _take_message(self, message: Post, report: CycleReport) -> None:
        scan = find_tags(message.body, self.referee.limits)
        if not scan.tags and not scan.problem:
            log.info(
                "event=message_ignored post=%s author=%s: no tags", message.fullname, message.author
            )
            return
        gm = message.author.casefold() in self.referee.gms
        log.info("event=message post=%s author=%s gm=%s", message.fullname, message.author, gm)
        if gm:
            self.referee.referee(message, private=True)
            record = self.posts.get(message.fullname)
        else:
            record = {
                "post": message.fullname,
                "thread": message.thread,
                "author": message.author,
                "private": True,
                "refused": "not a GM",  # nothing was rolled
                "reply": PRIVATE_REFUSAL.format(campaign=self.referee.campaign.config.name),
            }
        if record is None:
            return
        report.messages += 1
        self._set(message.fullname, record, {"state": Delivery.PENDING.value, "attempts": 0})
        log.info("event=refereed post=%s private=true refused=%s", message.fullname, not gm)

    def _turn(self, number: int) -> str:
        """What cycle ``number``'s one request reads: "inbox", "edits" or a "listing"."""
        inbox, edits = self.config.inbox_every, self.config.edits_every
        if inbox and number % inbox == 0:
            return "inbox"
        if edits and number % edits == 0:
            return "edits"
        return "listing"

    def _listing_turn(self, number: int) -> int:
        """How many of cycles 1..``number`` read a listing: the new/comments alternation."""
        inbox, edits = self.config.inbox_every, self.config.edits_every
        taken = number // inbox if inbox else 0
        if edits:  # edit turns, less those the inbox already took
            taken += number // edits - (number // math.lcm(inbox, edits) if inbox else 0)
        return number - taken

    def _sweep_edits(self, report: CycleReport) -> None:
        """Re-read the newest refereed posts (one request) and note any whose tags changed.

        Listings show an edit only while the post is among the newest; this reaches back
        over the last ``EDIT_SWEEP`` refereed posts whatever their age.
        """
        report.sources.append("edits")
        recent: list[str] = []
        for fullname in self.posts.newest():
            record = self.posts.get(fullname) or {}
            if fullname.startswith(("t1_", "t3_")) and not record.get("edited_note"):
                recent.append(fullname)
            if len(recent) == EDIT_SWEEP:
                break
        if not recent:
            return
        try:
            posts = self._call(self.forum.info, recent)
        except ForumError as error:
            if error.failure in (Failure.FORBIDDEN, Failure.NOT_FOUND):
                log.warning("event=edit_sweep_unreadable failure=%s", error.failure.value)
                return
            raise _Stop(error) from error
        for post in posts:
            self._check_edit(post)

    def _check_edit(self, post: Post) -> None:
        if post.edited is None or post.fullname not in self.posts:
            return
        if post.author.lower() == self.bot:
            return
        outcome = self.referee.referee(post)
        if not outcome.note_added:
            return
        record = self.posts.get(post.fullname)
        if record is None:
            return
        delivery = dict(record.get("delivery") or {})
        delivery["edit_pending"] = True
        self._set(post.fullname, record, delivery)
        log.info("event=edit_seen post=%s note=added", post.fullname)

    # -- delivery ------------------------------------------------------------------

    @staticmethod
    def _is_open(record: dict[str, Any]) -> bool:
        delivery = record.get("delivery")
        if not delivery:
            return False
        state = delivery.get("state")
        if state in (Delivery.PENDING.value, Delivery.SENDING.value):
            return True
        return state == Delivery.DELIVERED.value and bool(delivery.get("edit_pending"))

    def _set(self, fullname: str, record: dict[str, Any], delivery: dict[str, Any]) -> None:
        record = {**record, "delivery": delivery}
        self.posts.put(fullname, record)
        was_open = fullname in self._open
        if self._is_open(record):
            self._open[fullname] = None
        else:
            self._open.pop(fullname, None)
        if was_open != (fullname in self._open):
            self.state.put(OPEN_KEY, {"posts": list(self._open)})

    def _records(self, state: Delivery) -> list[tuple[str, dict[str, Any]]]:
        found = []
        for fullname in list(self._open):
            record = self.posts.get(fullname)
            if record and (record.get("delivery") or {}).get("state") == state.value:
                found.append((fullname, record))
        return found

    def _settle(self, report: CycleReport) -> None:
        """Look for the bot's reply below every post left "sending"."""
        sending = self._records(Delivery.SENDING)
        if not sending:
            return
        targets = {fullname: str(record.get("thread") or "") for fullname, record in sending}
        try:
            found = self._call(self.forum.find_replies, targets)
        except ForumError as error:
            raise _Stop(error) from error
        for fullname, record in sending:
            delivery = dict(record["delivery"])
            if fullname in found:
                delivery.update(state=Delivery.DELIVERED.value, reply=found[fullname])
                report.delivered += 1
                log.info("event=reply_found post=%s reply=%s", fullname, found[fullname])
            else:
                delivery["state"] = Delivery.PENDING.value
                log.info("event=reply_not_found post=%s: posting again", fullname)
            self._set(fullname, record, delivery)
        self.store.flush(sync=False)  # lost, the next cycle looks again

    def _deliver(self, report: CycleReport) -> None:
        """Post every due reply: all their intents in one synced flush, then one by one."""
        now = self.clock()
        hold = float((self.state.get("ratelimit") or {}).get("until", 0.0))
        if now < hold:
            return
        due: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
        for fullname, record in self._records(Delivery.PENDING):
            delivery = dict(record["delivery"])
            if float(delivery.get("retry_at", 0.0)) > now:
                continue
            attempts = int(delivery.get("attempts", 0)) + 1
            if attempts > MAX_ATTEMPTS:
                reason = f"gave up after {MAX_ATTEMPTS}"
                self._undeliverable(fullname, record, delivery, reason, report)
                continue
            due.append((fullname, record, delivery))
            sending = {**delivery, "state": Delivery.SENDING.value, "since": _iso(now)}
            sending.pop("retry_at", None)
            self._set(fullname, record, sending)
        if not due:
            return
        # The intents, durable before any of these replies can exist: one fsync for all.
        self.store.flush()
        for number, (fullname, record, _) in enumerate(due):
            try:
                self._deliver_one(fullname, record, report)
            except _Stop:
                self._not_tried(due[number + 1 :])
                raise
            if float((self.state.get("ratelimit") or {}).get("until", 0.0)) > now:
                self._not_tried(due[number + 1 :])
                return  # RATELIMIT holds every reply of the account, not just this one

    def _not_tried(self, due: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> None:
        """Put replies whose intent was written but which were never posted back to pending."""
        for fullname, record, delivery in due:
            self._set(fullname, record, delivery)
        if due:  # lost, they stay "sending" and the next cycle looks for them first
            self.store.flush(sync=False)

    def _deliver_one(self, fullname: str, record: dict[str, Any], report: CycleReport) -> None:
        delivery = dict((self.posts.get(fullname) or record)["delivery"])
        # Counted as it is tried, not with the intents: a crash before its turn costs
        # a post no attempt. No fsync: a power cut can only undercount by one.
        delivery["attempts"] = int(delivery.get("attempts", 0)) + 1
        self._set(fullname, record, delivery)
        self.store.flush(sync=False)
        log.info("event=replying post=%s attempt=%d", fullname, delivery["attempts"])
        text = str(record["reply"])
        try:
            reply = self._call(self.forum.reply, fullname, text)
        except ForumError as error:
            self._reply_failed(fullname, record, delivery, error, report)
            return
        delivery.update(state=Delivery.DELIVERED.value, reply=reply, edit_pending=False)
        self._set(fullname, record, delivery)
        # No fsync: if a power cut loses this, the post stays "sending" and the next
        # cycle finds the reply below it; the next intent's fsync makes it durable.
        self.store.flush(sync=False)
        report.delivered += 1
        log.info("event=replied post=%s reply=%s", fullname, reply)

    def _reply_failed(
        self,
        fullname: str,
        record: dict[str, Any],
        delivery: dict[str, Any],
        error: ForumError,
        report: CycleReport,
    ) -> None:
        failure = error.failure
        if failure is Failure.UNCERTAIN:
            # It may have landed: stay "sending"; the next cycle looks before posting.
            log.warning("event=reply_uncertain post=%s reason=%r", fullname, error.message)
            raise _Stop(error)
        if failure in (
            Failure.UNDELIVERABLE,
            Failure.REJECTED,
            Failure.FORBIDDEN,
            Failure.NOT_FOUND,
        ):
            self._undeliverable(fullname, record, delivery, error.message, report)
            return
        # Nothing was posted: RATELIMIT, 429, 5xx or a failed read before the POST.
        delivery["state"] = Delivery.PENDING.value
        if failure is Failure.RATELIMITED:
            wait = error.retry_after or 60.0
            until = self.clock() + wait
            delivery["retry_at"] = until
            self._set(fullname, record, delivery)
            self.state.put("ratelimit", {"until": until})
            self.store.flush(sync=False)
            log.warning(
                "event=ratelimited post=%s retry_in=%.0f reason=%r", fullname, wait, error.message
            )
            if self.schedule_retry is not None:
                self.schedule_retry(until)
            return
        self._set(fullname, record, delivery)
        self.store.flush(sync=False)
        raise _Stop(error)

    def _undeliverable(
        self,
        fullname: str,
        record: dict[str, Any],
        delivery: dict[str, Any],
        reason: str,
        report: CycleReport,
    ) -> None:
        delivery.update(state=Delivery.UNDELIVERABLE.value, reason=reason, edit_pending=False)
        self._set(fullname, record, delivery)
        self.store.flush(sync=False)
        report.undeliverable += 1
        log.warning("event=undeliverable post=%s reason=%r", fullname, reason)

    def _edit(self, report: CycleReport) -> None:
        """Edit delivered replies to carry the edited note."""
        now = self.clock()
        if now < float((self.state.get("ratelimit") or {}).get("until", 0.0)):
            return
        for fullname, record in self._records(Delivery.DELIVERED):
            delivery = dict(record["delivery"])
            try:
                self._call(self.forum.edit, delivery["reply"], str(record["reply"]))
            except ForumError as error:
                if error.failure in (Failure.THROTTLED, Failure.SERVER, Failure.NETWORK):
                    raise _Stop(error) from error
                if error.failure is Failure.RATELIMITED:
                    self.state.put("ratelimit", {"until": now + (error.retry_after or 60.0)})
                    return
                log.warning("event=edit_failed post=%s reason=%r", fullname, error.message)
            else:
                report.edited += 1
                log.info("event=reply_edited post=%s reply=%s", fullname, delivery["reply"])
            delivery["edit_pending"] = False
            self._set(fullname, record, delivery)
            self.store.flush(sync=False)  # lost, the reply is edited again: same text

    # -- the roster ----------------------------------------------------------------

    def _publish_roster(self, report: CycleReport) -> None:
        """Edit the roster wiki page if its text changed; one edit per cycle at most."""
        if report.refereed or report.messages:
            self._roster_due = True  # approvals, NPCs, wounds and heals all arrive in posts
        if self._wiki_off or not self._roster_due:
            return
        if not self.subreddits:
            log.warning("event=roster_off: a wiki page needs a subreddit in [reddit] subreddits")
            self._wiki_off = True
            return
        subreddit, page = self.subreddits[0], self.config.wiki_page
        try:
            content = self._render_roster()
        except Exception:  # a bug in the roster must not stop the replies
            log.exception("event=roster_off reason='cannot render': not trying again until restart")
            self._wiki_off = True
            return
        sha256 = digest(f"{subreddit.lower()}/{page}\n{content}")
        if (self.state.get("wiki") or {}).get("sha256") == sha256:
            self._roster_due = False
            return
        try:
            self._call(self.forum.edit_wiki, subreddit, page, content, "roster changed")
        except ForumError as error:
            if error.failure in _WIKI_GIVE_UP:
                self._wiki_off = True
                log.warning(
                    "event=roster_off subreddit=%s page=%s failure=%s reason=%r: make the bot "
                    "a moderator or wiki contributor there; not trying again until restart",
                    subreddit,
                    page,
                    error.failure.value,
                    error.message,
                )
            else:  # throttled, 5xx or no answer: the page stays due for the next cycle
                log.warning("event=roster_failed failure=%s", error.failure.value)
            return
        self.state.put(
            "wiki",
            {"sha256": sha256, "subreddit": subreddit, "page": page, "at": _iso(self.clock())},
        )
        self.store.flush(sync=False)
        self._roster_due = False
        report.roster_published = True
        log.info("event=roster_published subreddit=%s page=%s", subreddit, page)

    def _render_roster(self) -> str:
        campaign = self.referee.campaign
        if self._roster_renderer is None:
            self._roster_renderer = RosterRenderer(campaign.config.templates_dir, campaign.system)
        view = roster_view(campaign.system, campaign.config.name, self.store)
        return self._roster_renderer.render(view)


# -- failed posts ----------------------------------------------------------------------


def stored_moderators(store: Store) -> set[str]:
    """The moderators the worker last read (casefolded): GMs for a command run offline."""
    cached = (store.table(WORKER_TABLE).get("moderators") or {}).get("subreddits") or {}
    return {str(name).casefold() for names in cached.values() for name in names}


def retry_failure(referee: Referee, fullname: str) -> Outcome:
    """Referee a failed post again, after a fix; the bot then corrects its reply.

    The failure notice the bot already posted is edited into the new reply (or, if it
    was never posted, the new reply is posted instead), through the same delivery
    states as every reply. If the post fails again, it stays recorded as failed and
    its reply is left as it is. Raises :class:`ConfigError` for a post that did not fail.
    """
    failure = referee.failures.get(fullname)
    if failure is None:
        raise ConfigError(f"No failed post {fullname}; `referee failures` lists them.")
    record = referee.posts.get(fullname) or {}
    delivery = record.get("delivery")
    if record.get("failed"):
        referee.posts.delete(fullname)  # a stub: the post was never refereed
    referee.failures.clear(fullname)
    outcome = referee.referee(failure.as_post(), private=failure.private)
    new = referee.posts.get(fullname)
    if delivery and new is not None:
        delivery = dict(delivery)
        if not outcome.failed and delivery.get("state") in (
            Delivery.DELIVERED.value,
            Delivery.SENDING.value,
        ):
            delivery["edit_pending"] = True
        referee.posts.put(fullname, {**new, "delivery": delivery})
    log.info("event=retried post=%s failed=%s", fullname, outcome.failed)
    return outcome


# -- running ---------------------------------------------------------------------------


def serve(worker: Worker, poll_seconds: float, *, stop: threading.Event | None = None) -> None:
    """Run cycles every ``poll_seconds`` on a blocking APScheduler until SIGTERM or SIGINT.

    On a signal the scheduler stops taking jobs, the cycle in flight finishes, and
    this returns; the caller then closes (flushes) the store.
    """
    from apscheduler.executors.pool import ThreadPoolExecutor
    from apscheduler.schedulers import SchedulerNotRunningError
    from apscheduler.schedulers.blocking import BlockingScheduler

    scheduler = BlockingScheduler(
        executors={"default": ThreadPoolExecutor(max_workers=1)},  # one job at a time
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
        timezone=timezone.utc,
    )
    stopping = stop or threading.Event()

    def run_cycle() -> None:
        if not stopping.is_set():
            worker.cycle()

    def run_retry() -> None:
        if not stopping.is_set():
            worker.deliver_due()

    def schedule_retry(at: float) -> None:
        when = datetime.fromtimestamp(at, tz=timezone.utc)
        scheduler.add_job(run_retry, "date", run_date=when, id="retry", replace_existing=True)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if stopping.is_set():
            return
        stopping.set()
        log.info("event=stopping signal=%s: finishing the cycle", signal.Signals(signum).name)
        with suppress(SchedulerNotRunningError):
            scheduler.shutdown(wait=False)

    worker.schedule_retry = schedule_retry
    scheduler.add_job(
        run_cycle,
        "interval",
        seconds=poll_seconds,
        id="cycle",
        next_run_time=datetime.now(tz=timezone.utc),
    )
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        log.info("event=started poll_seconds=%s", poll_seconds)
        scheduler.start()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    with worker.lock:  # wait for the cycle in flight
        pass
    log.info("event=stopped")


def run_once(worker: Worker) -> CycleReport:
    """One full cycle (every source), for cron; SIGTERM and SIGINT wait for it to end."""
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()
        log.info("event=stopping signal=%s: finishing the cycle", signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        return worker.cycle(full=True)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
