"""The live worker: poll Reddit, referee each new post once, reply to it exactly once.

The work is a handful of tasks, each due on its own clock. :meth:`Worker.step` runs the
first task due, in this order, so a read is never held up by replies, the inbox by the
edit sweep, and so on; every request is paid from the request budget
(:mod:`referee.schedule`: a share of Reddit's limit, slower when Reddit's headers say
the account's window runs low)::

    moderators at start and every ``moderators_refresh_hours``: each subreddit's
               moderators, kept in the store, join config.toml's GMs
    settle     replies left "sending" (a crash, a lost answer): find the bot's reply
               below the post (or in its sent messages), else post again
    comments   r/a+b/comments (one request for all the subreddits) and each watched
               thread, every poll interval; page on only while the page is all new;
               when the gap is deeper than a listing reaches, read the active threads
               one by one
    new        r/a+b/new, every ``submissions_every``-th poll interval
    inbox      every ``inbox_every``-th poll interval, the unread private messages. A
               GM's tags are rolled in secret (ledger rows marked private) and answered
               by private reply; anyone else's tags get a polite refusal. Then the inbox
               is marked read (comment replies and mentions too: listings cover those)
    edits      every ``edits_every``-th poll interval, one request re-reads the newest
               refereed posts (listings show only the newest edits); a known post whose
               ``edited`` is set is refereed again; the pipeline adds its note once
    reply      the oldest pending reply (a private message's too), else the next reply
               to edit for the edited note: one a step, so the next read comes first
    roster     when anything was refereed: render the roster wiki page and edit it if
               its text changed (a hash in the store); a 403 switches this off until
               restart

The poll interval is ``active_poll_seconds`` while the game is active (a tagged post in
the last ``ACTIVE_HOLD`` seconds) and doubles at each quiet read back to the idle
interval, ``poll_seconds`` less ``REPLY_MARGIN``, so even after a quiet spell a post is
answered within ``poll_seconds``; the new-submissions listing and the inbox are read at
least that often too. A read referees its new posts (newer than the source's cursor)
in reading order through the same Referee as ``referee batch``; records, ledger rows and
the advanced cursors land in one flush.

:func:`serve` runs :meth:`Worker.step` on APScheduler at the time
:meth:`Worker.next_wake` names; :meth:`Worker.cycle` runs every task due at once (and
``run --once`` every task).

Delivery is a small state machine kept in the post's record in the store's ``posts``
table, under ``delivery``; every transition is flushed before the next call to Reddit::

    refereed ─► pending ──intent flushed──► sending ──reply id flushed──► delivered
    (the intents of all replies due in a cycle share one synced flush, a step posts one;
    one that is not tried after all, after a RATELIMIT say, goes back to pending)
                 ▲   │ RATELIMIT                 │ lost answer, 5xx, crash
                 │   └► pending, retry_at        ▼
                 │                          next step: look for the bot's reply
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
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable
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
from .lookup import pending_applications
from .pipeline import Outcome, Referee
from .reddit import LISTING_REACH, Failure, Forum, ForumError
from .roster import RosterRenderer, digest, fights, roster_page
from .schedule import REDDIT_PER_MINUTE, Budget, Cadence, Pace
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
# Seconds a tagged post keeps the game "active": reads at active_poll_seconds meanwhile.
ACTIVE_HOLD = 300.0
# An idle read comes this many seconds before poll_seconds is up, so the reply to what
# it finds still lands within poll_seconds of the post.
REPLY_MARGIN = 2.0
# The most of the budget's sustained rate the periodic reads may take; the rest is for
# replies. With many watched threads the active interval grows to keep to it.
READ_SHARE = 0.5
# A private message with tags from someone who is not a GM gets this, once.
PRIVATE_REFUSAL = (
    "Only a GM of {campaign} may roll in secret by private message, so nothing was "
    "rolled. Put your tags in a reply in the game's thread, where everyone sees the "
    "dice; ask a GM if you think you should be one."
)
# Failures that say the bot may not edit the page (not a moderator or wiki contributor,
# no wiki): warned about once a run, then tried again quietly every WIKI_RETRY seconds
# (and at once when the bot shows up among the moderators), so the roster is published
# as soon as a moderator fixes the permission, without a restart.
_WIKI_REFUSED = (Failure.FORBIDDEN, Failure.NOT_FOUND, Failure.REJECTED, Failure.UNDELIVERABLE)
_WIKI_GIVE_UP = _WIKI_REFUSED  # the GMs' page: never written where it cannot be private
WIKI_RETRY = 900.0
# What the GMs' page holds until the bot has made it moderators-only.
GM_PAGE_PLACEHOLDER = (
    "*The GMs' roster: the referee bot writes it here once only moderators may read this page.*"
)
_THREAD_ADDRESS = re.compile(r"/comments/([a-z0-9]+)")
_THREAD_ID = re.compile(r"(?:t3_)?([a-z0-9]+)")


class Task(str, Enum):
    """A kind of work the worker does; when several are due, the first listed goes first."""

    MODERATORS = "moderators"
    SETTLE = "settle"
    COMMENTS = "comments"  # r/a+b/comments and each watched thread
    NEW = "new"  # r/a+b/new
    INBOX = "inbox"
    EDITS = "edits"  # the edit sweep
    REPLY = "reply"  # one pending reply, or one reply's edit
    ROSTER = "roster"


# The reads that run on a cadence; the other tasks are due when there is work for them.
_READS = (Task.COMMENTS, Task.NEW, Task.INBOX, Task.EDITS)


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
    new_posts: int = 0  # of those, posts new to the worker (not read in an earlier cycle)
    tags: int = 0  # tags in the posts and messages refereed
    refusals: int = 0  # tags answered with a problem, and secret rolls refused to non-GMs
    errors: int = 0  # posts the referee could not handle (see `referee failures`)
    skipped: bool = False  # backing off: nothing was asked of Reddit
    failure: Failure | None = None  # what cut the cycle short
    seconds: float = 0.0  # wall time of the cycle
    reddit_seconds: float = 0.0  # of which waiting for Reddit
    # The worker thread's own CPU time in the cycle, and of it in Reddit calls (PRAW):
    # unlike wall time, other programs on the machine do not inflate it.
    cpu_seconds: float = 0.0
    reddit_cpu_seconds: float = 0.0
    sources: list[str] = field(default_factory=list)

    @property
    def local_seconds(self) -> float:
        """Time spent in the worker itself: refereeing, rendering, the store."""
        return max(0.0, self.seconds - self.reddit_seconds)

    @property
    def local_cpu_seconds(self) -> float:
        """The worker thread's CPU time outside Reddit calls: refereeing, rendering, the store."""
        return max(0.0, self.cpu_seconds - self.reddit_cpu_seconds)


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
        listing_reach: int = LISTING_REACH,
    ) -> None:
        self.referee = referee
        self.forum = forum
        self.config = config
        self.clock = clock
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
        self._moderators_retry_at = 0.0  # after a failed refresh, not before this
        self._wiki_refused = False  # the roster page was refused; warned about once this run
        self._load_moderators()
        self._roster_renderer: RosterRenderer | None = None
        self._roster_due = True  # render once at start: a shell import may have changed it
        self._wiki_off = not config.wiki_page
        self._gm_wiki_off = not config.gm_wiki_page  # the GMs' page (moderators only)
        self._roster_retry_at = 0.0  # after a failed edit of the page, not before this
        self.backoff_until = 0.0
        self._backoff_step = 0
        self._reddit_seconds = self._reddit_cpu_seconds = 0.0
        self.budget = Budget(config.budget_share * REDDIT_PER_MINUTE)
        self.cadences = self._cadences()
        self.pace = self._pace()
        self._sent = forum.usage().sent  # requests counted against the budget so far
        # Posts whose reply is not settled (or whose reply awaits the edited note), kept
        # in the store so that starting never reads every post.
        saved = self.state.get(OPEN_KEY)
        if saved is None:  # a store from before the list was kept: read the posts once
            keys = [key for key, record in self.posts.items() if self._is_open(record)]
        else:
            keys = list(saved.get("posts", []))
        self._open: dict[str, None] = dict.fromkeys(keys)

    def _cadences(self) -> dict[Task, Cadence]:
        everies = {
            Task.COMMENTS: 1,
            Task.NEW: self.config.submissions_every if self.subreddits else 0,
            Task.INBOX: self.config.inbox_every,
            Task.EDITS: self.config.edits_every,
        }
        return {
            task: Cadence(task.value, every, capped=task is not Task.EDITS)
            for task, every in everies.items()
            if every
        }

    def _pace(self) -> Pace:
        """The poll intervals: idle from poll_seconds, active as fast as the budget allows."""
        idle = max(1.0, self.config.poll_seconds - REPLY_MARGIN)
        reads = (1 if self.subreddits else 0) + len(self.threads)  # requests of a COMMENTS read
        per_interval = reads + sum(
            1 / c.every for t, c in self.cadences.items() if t is not Task.COMMENTS
        )
        fastest = per_interval / (READ_SHARE * self.budget.rate)
        active = min(idle, max(float(self.config.active_poll_seconds), fastest))
        if active > self.config.active_poll_seconds:
            log.warning(
                "event=active_interval_raised seconds=%.1f: %.1f requests each poll would "
                "take more than half the budget at active_poll_seconds = %s",
                active,
                per_interval,
                self.config.active_poll_seconds,
            )
        return Pace(active=active, idle=idle, hold=ACTIVE_HOLD)

    # -- the schedule --------------------------------------------------------------

    def step(self) -> CycleReport:
        """Run the first task due now, if the budget allows a request now."""
        with self.lock:
            now = self.clock()
            if now < self.backoff_until or self.budget.ready_at(now) > now:
                return CycleReport(skipped=True)
            task = next((t for t in Task if self._due(t, now) <= now), None)
            return self._run([task] if task else [], one=True)

    def next_wake(self) -> float:
        """When :meth:`step` next has something to do (on the worker's clock)."""
        with self.lock:
            now = self.clock()
            due = min(self._due(task, now) for task in Task)
            return max(due, self.backoff_until, self.budget.ready_at(now))

    def cycle(self, *, full: bool = False) -> CycleReport:
        """Run every task due now, one after another; ``full``: every read, due or not.

        The budget is counted but not waited for: a cycle is a bounded handful of
        requests (``run --once`` from cron, and the tests).
        """
        with self.lock:
            return self._run(list(Task), full=full)

    def deliver_due(self) -> CycleReport:
        """Post the replies whose wait is over."""
        with self.lock:
            return self._run([Task.SETTLE, Task.REPLY])

    @property
    def open_posts(self) -> list[str]:
        """Posts whose reply is not yet delivered, or not yet edited."""
        return list(self._open)

    def _due(self, task: Task, now: float) -> float:
        """When ``task`` is next due; infinity when it has nothing to do."""
        never = float("inf")
        if task in self.cadences:
            return self.cadences[task].due(self.pace)
        if task is Task.MODERATORS:
            if not self.subreddits:
                return never
            refresh = self._moderators_at + self.config.moderators_refresh_hours * 3600
            return max(refresh, self._moderators_retry_at)
        if task is Task.SETTLE:
            return now if self._records(Delivery.SENDING) else never
        if task is Task.REPLY:
            return self._reply_due(now)
        if task is Task.ROSTER:
            return (
                max(now, self._roster_retry_at)
                if self._roster_due and not (self._wiki_off and self._gm_wiki_off)
                else never
            )
        return never

    def _reply_due(self, now: float) -> float:
        hold = float((self.state.get("ratelimit") or {}).get("until", 0.0))
        due = float("inf")
        for _, record in self._records(Delivery.PENDING):
            due = min(due, float(record["delivery"].get("retry_at", 0.0)))
        if self._records(Delivery.DELIVERED):  # a reply to edit for the edited note
            due = min(due, now)
        return max(due, hold) if due < float("inf") else due

    def _run(self, tasks: Iterable[Task], *, full: bool = False, one: bool = False) -> CycleReport:
        """Run ``tasks`` (those due, unless ``full``) in order; ``one``: a reply at most."""
        report = CycleReport()
        started, cpu_started = time.perf_counter(), time.thread_time()
        self._reddit_seconds = self._reddit_cpu_seconds = 0.0
        if self.clock() < self.backoff_until:
            report.skipped = True
            log.info("event=cycle_skipped backoff_until=%s", _iso(self.backoff_until))
            return report
        try:
            for task in tasks:
                now = self.clock()
                if (full and task in self.cadences) or self._due(task, now) <= now:
                    self._do(task, report, one=one)
        except _Stop as stop:
            report.failure = stop.error.failure
            self._back_off(stop.error)
        else:
            self._backoff_step = 0
        finally:
            self.store.flush(sync=False)  # nothing here must outlive a power cut
            self._pay()
            report.seconds = time.perf_counter() - started
            report.reddit_seconds = self._reddit_seconds
            report.cpu_seconds = time.thread_time() - cpu_started
            report.reddit_cpu_seconds = self._reddit_cpu_seconds
        if report.sources or report.delivered or report.failure or report.edited:
            log.info(
                "event=step_end sources=%s seen=%d refereed=%d messages=%d delivered=%d "
                "undeliverable=%d edited=%d failure=%s interval=%.0f local_ms=%.1f "
                "reddit_ms=%.1f",
                "+".join(report.sources) or "-",
                report.seen,
                report.refereed,
                report.messages,
                report.delivered,
                report.undeliverable,
                report.edited,
                report.failure.value if report.failure else "-",
                self.pace.interval,
                report.local_seconds * 1000,
                report.reddit_seconds * 1000,
            )
        return report

    def _do(self, task: Task, report: CycleReport, *, one: bool) -> None:
        now = self.clock()
        if task is Task.MODERATORS:
            self._refresh_moderators()
        elif task is Task.SETTLE:
            self._settle(report)
        elif task is Task.INBOX:
            self._read_inbox(report)
        elif task is Task.EDITS:
            self._sweep_edits(report)
        elif task is Task.REPLY:
            self._deliver(report, one=one)
            if not (one and report.delivered + report.undeliverable):
                self._edit(report, one=one)
        elif task is Task.ROSTER:
            self._publish_roster(report)
        else:
            self._read(task, report)
        if task in self.cadences:
            self.cadences[task].last = now  # read: due again one interval on
            self._note_activity(task, report, now)

    def _note_activity(self, task: Task, report: CycleReport, now: float) -> None:
        if report.refereed or report.messages:
            self._roster_due = True  # approvals, NPCs, wounds and heals all arrive in posts
            if not self.pace.is_active:
                log.info("event=active interval=%.0f", self.pace.active)
            self.pace.activity(now)
        elif task is Task.COMMENTS:
            self.pace.quiet(now)

    def _pay(self) -> None:
        """Count the requests sent since last time against the budget; heed Reddit's count."""
        usage = self.forum.usage()
        sent, self._sent = usage.sent - self._sent, usage.sent
        if sent > 0:
            now = self.clock()
            self.budget.spend(now, sent)
            self.budget.observe(now, usage.remaining, usage.reset_seconds)

    def _back_off(self, error: ForumError) -> None:
        self._backoff_step += 1
        delay = min(MAX_BACKOFF, self.pace.interval * 2 ** (self._backoff_step - 1))
        if error.retry_after:
            delay = max(delay, error.retry_after)
        if error.failure is Failure.UNCERTAIN:
            delay = 0.0  # nothing is wrong with Reddit as such; the next step looks first
        self.backoff_until = self.clock() + delay
        log.warning(
            "event=back_off failure=%s seconds=%.0f reason=%r",
            error.failure.value,
            delay,
            error.message,
        )

    def _call(self, function: Callable[..., Any], *args: Any) -> Any:
        started, cpu_started = time.perf_counter(), time.thread_time()
        try:
            return function(*args)
        finally:
            self._reddit_seconds += time.perf_counter() - started
            self._reddit_cpu_seconds += time.thread_time() - cpu_started

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
        if self._wiki_refused and self.bot in names:  # made a moderator: publish now
            self._roster_retry_at = 0.0

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
                    self._moderators_retry_at = now + self.pace.idle
                    log.warning(
                        "event=moderators_stale failure=%s: using those read before; "
                        "trying again in %.0f s",
                        error.failure.value,
                        self.pace.idle,
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

    def _sources(self, task: Task) -> list[tuple[str, str]]:
        """(kind, key) pairs a read task reads: listings "comments"/"new", or "thread"."""
        subs = "+".join(self.subreddits)
        if task is Task.NEW:
            return [("new", subs)] if self.subreddits else []
        listing = [("comments", subs)] if self.subreddits else []
        return listing + [("thread", thread) for thread in self.threads]

    def _cursor_key(self, kind: str, key: str) -> str:
        return f"cursor:{kind}:{key.lower()}"

    def _read(self, task: Task, report: CycleReport) -> None:
        fresh: dict[str, Post] = {}
        older: dict[str, Post] = {}
        cursors: dict[str, str] = {}
        sources = self._sources(task)
        index = 0
        while index < len(sources):
            kind, key = sources[index]
            index += 1
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
            if kind == "comments" and ("new", key) not in sources and self._unread_thread(new):
                # A thread newer than any submission read: read it first, in order.
                sources.append(("new", key))
                self.cadences[Task.NEW].last = self.clock()
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

    def _unread_thread(self, comments: list[Post]) -> bool:
        """Whether a comment is in a thread newer than the new-submissions listing's cursor."""
        if Task.NEW not in self.cadences:
            return False
        key = self._cursor_key("new", "+".join(self.subreddits))
        cursor = (self.state.get(key) or {}).get("newest")
        threads = [p.thread for p in comments if p.thread.startswith("t3_")]
        return any(cursor is None or _rank(t) > _rank(cursor) for t in threads)

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
        report.new_posts += not outcome.replayed  # a thread read again holds the known ones
        self._amend(outcome.amended)
        if not outcome.has_reply:
            return
        record = self.posts.get(post.fullname)
        if record is not None and "delivery" in record and outcome.note_added:
            self._amend((post.fullname,))  # seen again deleted (a thread read): say so
            return
        if record is None or "delivery" in record:
            return
        report.refereed += 1
        report.tags += outcome.tags
        report.refusals += outcome.problems
        report.errors += int(outcome.failed)
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
        if not scan.tags and not scan.problem and not scan.near:
            log.info(
                "event=message_ignored post=%s author=%s: no tags", message.fullname, message.author
            )
            return
        gm = message.author.casefold() in self.referee.gms
        log.info("event=message post=%s author=%s gm=%s", message.fullname, message.author, gm)
        if gm:
            outcome = self.referee.referee(message, private=True)
            self._amend(outcome.amended)
            report.tags += outcome.tags
            report.refusals += outcome.problems
            report.errors += int(outcome.failed)
            record = self.posts.get(message.fullname)
        else:
            report.refusals += 1
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

    def _sweep_edits(self, report: CycleReport) -> None:
        """Re-read the newest refereed posts (one request) and note any whose tags changed.

        Listings show an edit only while the post is among the newest; this reaches back
        over the last ``EDIT_SWEEP`` refereed posts whatever their age.
        """
        report.sources.append("edits")
        recent: list[str] = []
        for fullname in self.posts.newest():
            record = self.posts.get(fullname) or {}
            if fullname.startswith(("t1_", "t3_")) and not record.get("gone"):
                recent.append(fullname)  # an edited one too: it may be deleted yet
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
        if (post.edited is None and not post.gone) or post.fullname not in self.posts:
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

    def _amend(self, fullnames: Iterable[str]) -> None:
        """Edit the delivered replies a post changed (a GM's [[void]]) at the next step."""
        for fullname in fullnames:
            record = self.posts.get(fullname)
            delivery = (record or {}).get("delivery")
            if record is None or not delivery:
                continue  # never sent by the bot (a batch's), or not yet: it goes out as it is
            if delivery.get("state") == Delivery.DELIVERED.value:
                self._set(fullname, record, {**delivery, "edit_pending": True})
                log.info("event=reply_amended post=%s", fullname)

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

    def _deliver(self, report: CycleReport, *, one: bool = False) -> None:
        """Post every due reply, oldest first: all their intents in one synced flush, then
        one by one; ``one``: the oldest only (a step, so that a read can come next)."""
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
            if one:
                break
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

    def _edit(self, report: CycleReport, *, one: bool = False) -> None:
        """Edit delivered replies to carry the edited note; ``one``: the first only."""
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
            if one:
                return

    # -- the roster ----------------------------------------------------------------

    def _publish_roster(self, report: CycleReport) -> None:
        """Edit the roster wiki pages if their text changed: the GMs' page, then the public one."""
        if not self._roster_due or (self._wiki_off and self._gm_wiki_off):
            return
        if not self.subreddits:
            log.warning("event=roster_off: a wiki page needs a subreddit in [reddit] subreddits")
            self._wiki_off = self._gm_wiki_off = True
            return
        if not self._publish_gm_page(report):  # a passing failure: both pages stay due
            self._roster_retry_at = self.clock() + self.pace.idle
            return
        if self._wiki_off:
            self._roster_due = False
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
            if error.failure in _WIKI_REFUSED:
                self._roster_retry_at = self.clock() + WIKI_RETRY
                if not self._wiki_refused:  # once a run: the log is not to fill up with it
                    log.warning(
                        "event=roster_refused subreddit=%s page=%s failure=%s reason=%r: make "
                        "the bot a moderator or wiki contributor there; trying again every "
                        "%.0f s (quietly) and as soon as it is a moderator",
                        subreddit,
                        page,
                        error.failure.value,
                        error.message,
                        WIKI_RETRY,
                    )
                else:
                    log.info("event=roster_still_refused failure=%s", error.failure.value)
                self._wiki_refused = True
            else:  # throttled, 5xx or no answer: the page stays due, the next poll
                self._roster_retry_at = self.clock() + self.pace.interval
                log.warning("event=roster_failed failure=%s", error.failure.value)
            return
        self.state.put(
            "wiki",
            {"sha256": sha256, "subreddit": subreddit, "page": page, "at": _iso(self.clock())},
        )
        self.store.flush(sync=False)
        self._roster_due = False
        self._roster_retry_at = 0.0
        report.roster_published = True
        log.info(
            "event=roster_published subreddit=%s page=%s%s",
            subreddit,
            page,
            " after_refusal=true" if self._wiki_refused else "",
        )
        self._wiki_refused = False

    def _publish_gm_page(self, report: CycleReport) -> bool:
        """Publish the GMs' roster on its moderators-only page; False on a passing failure.

        The page is made moderators-only (PRAW's wiki settings, permlevel 2) before
        anything but a placeholder is written there, and checked to be so; if the bot may
        not set that, one clear warning says why and the GMs' roster is never written.
        """
        if self._gm_wiki_off:
            return True
        subreddit, page = self.subreddits[0], self.config.gm_wiki_page
        try:
            content = self._render_roster(gm=True)
        except Exception:  # a bug in the roster must not stop the replies
            log.exception("event=gm_roster_off reason='cannot render': not trying until restart")
            self._gm_wiki_off = True
            return True
        sha256 = digest(f"{subreddit.lower()}/{page}\n{content}")
        state = self.state.get("gm_wiki") or {}
        protected = state.get("protected") == f"{subreddit.lower()}/{page}"
        if protected and state.get("sha256") == sha256:
            return True
        try:
            if not protected:
                self._call(self.forum.edit_wiki, subreddit, page, GM_PAGE_PLACEHOLDER, "GMs' page")
                level = self._call(self.forum.protect_wiki, subreddit, page)
                if level != 2:
                    raise ForumError(Failure.FORBIDDEN, f"the page's permlevel stayed {level}")
                state = {"protected": f"{subreddit.lower()}/{page}"}
                self.state.put("gm_wiki", state)
            self._call(self.forum.edit_wiki, subreddit, page, content, "roster changed")
        except ForumError as error:
            if error.failure not in _WIKI_GIVE_UP:
                log.warning("event=gm_roster_failed failure=%s", error.failure.value)
                return False
            self._gm_wiki_off = True
            log.warning(
                "event=gm_roster_off subreddit=%s page=%s failure=%s reason=%r: the GMs' "
                "roster holds what players must not see, so it is published only on a page "
                "readable by moderators alone, and the bot could not make %s so. Make the "
                "bot a moderator of r/%s with wiki permission, then restart it; until then "
                "GMs get the full roster by sending the bot [[roster]] in a private message",
                subreddit,
                page,
                error.failure.value,
                error.message,
                page,
                subreddit,
            )
            return True
        self.state.put("gm_wiki", {**state, "sha256": sha256, "at": _iso(self.clock())})
        self.store.flush(sync=False)
        report.roster_published = True
        log.info("event=gm_roster_published subreddit=%s page=%s", subreddit, page)
        return True

    def _render_roster(self, gm: bool = False) -> str:
        campaign = self.referee.campaign
        if self._roster_renderer is None:
            self._roster_renderer = RosterRenderer(campaign.config.templates_dir, campaign.system)
        applications = (
            pending_applications(self.store.table("applications"), self.posts) if gm else ()
        )
        page = roster_page(
            campaign.system,
            campaign.config.name,
            self.store.table,
            gm=gm,
            npc_stats=campaign.config.npc_stats,
            rules=campaign.rules,
            applications=applications,
        )
        return self._roster_renderer.render(page, fights(self.store))


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
    if failure.tag is not None:
        raise ConfigError(
            f"{fullname} is one tag of post {failure.post}, whose other tags stand and are "
            "public, so it is not refereed again in place. Once the bug is fixed, ask "
            f"u/{failure.author} to write the tag again in a new reply, then "
            f"`referee failures --forget {fullname}`."
        )
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


def serve(worker: Worker, *, stop: threading.Event | None = None) -> None:
    """Run the worker's steps on a blocking APScheduler until SIGTERM or SIGINT.

    One job at a time: a step runs the task due, then adds the next step at the time
    :meth:`Worker.next_wake` names (the worker's clock is the wall clock here). On a
    signal the scheduler stops taking jobs, the step in flight finishes, and this
    returns; the caller then closes (flushes) the store.
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

    def plan(at: float) -> None:
        # A new job each time (not one job modified): the scheduler drops a spent date
        # job by its id while this one may already be adding the next.
        when = datetime.fromtimestamp(max(at, time.time()), tz=timezone.utc)
        with suppress(SchedulerNotRunningError):
            scheduler.add_job(run_step, "date", run_date=when)

    def run_step() -> None:
        if stopping.is_set():
            return
        wake = time.time() + worker.config.poll_seconds
        try:
            worker.step()
            wake = worker.next_wake()
        except Exception:  # a bug must not stop the bot: log it, try again after a poll
            log.exception("event=step_failed: stepping again in %s s", worker.config.poll_seconds)
        finally:
            if not stopping.is_set():
                plan(wake)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if stopping.is_set():
            return
        stopping.set()
        log.info("event=stopping signal=%s: finishing the step", signal.Signals(signum).name)
        with suppress(SchedulerNotRunningError):
            scheduler.shutdown(wait=False)

    plan(time.time())
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        log.info(
            "event=started poll_seconds=%s active_seconds=%.1f budget_per_minute=%.0f",
            worker.config.poll_seconds,
            worker.pace.active,
            worker.budget.per_minute,
        )
        scheduler.start()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    with worker.lock:  # wait for the step in flight
        pass
    log.info("event=stopped")


def summary(report: CycleReport) -> str:
    """``referee run --once``'s one line: what the cycle read, refereed, posted and missed.

    >>> report = CycleReport(new_posts=4, messages=1, refereed=3, tags=5, delivered=4, refusals=1)
    >>> summary(report).split("; ")
    ['referee: read 4 new posts and 1 message', '5 tags in 4 posts', '4 replies posted', \
'1 refusal', '0 errors.']
    """
    posts = report.refereed + report.messages

    def count(number: int, word: str, plural: str = "") -> str:
        return f"{number} {word if number == 1 else plural or word + 's'}"

    errors = report.errors + report.undeliverable + (1 if report.failure else 0)
    line = (
        f"referee: read {count(report.new_posts, 'new post')} and "
        f"{count(report.messages, 'message')}; "
        f"{count(report.tags, 'tag')} in {count(posts, 'post')}; "
        f"{count(report.delivered, 'reply', 'replies')} posted; "
        f"{count(report.refusals, 'refusal')}; {count(errors, 'error')}."
    )
    if report.roster_published:
        line = line[:-1] + "; roster published."
    if report.failure is not None:
        line = line[:-1] + f"; Reddit: {report.failure.value}, the next run picks up the rest."
    if report.skipped:
        line = "referee: backing off after Reddit's errors; nothing was read. Try again later."
    return line


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
