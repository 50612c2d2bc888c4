"""The live worker: poll Reddit, referee each new post once, reply to it exactly once.

The work is a handful of tasks, each due on its own clock. :meth:`Worker.step` runs the
first task due, in this order, but for one exception: a ready reply goes before every
read but new comments'. So the read of new comments is never held up, the inbox is not
held up by the edit sweep, and so on; every request is paid from the request budget
(:mod:`referee.live.schedule`: a share of Reddit's limit, slower when Reddit's headers say
the account's window runs low)::

    moderators at start and every ``moderators_refresh_hours``: each subreddit's
               moderators, kept in the store, join config.toml's GMs
    settle     replies left "sending" (a crash, a lost answer): find the bot's reply
               below the post (or in its sent messages), else post again; notices
               left "sending" likewise, by the mark each ends with
    shell      the requests a GM left from the shell (approve, failures --retry...):
               each taken once, its reply left pending (:mod:`.shell_requests`);
               :func:`~referee.live.service.serve` also looks for them every second
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
               to edit for the edited note: one a step, so a read of new comments that
               falls due comes next; it goes before the other reads (new, inbox, edits)
    pace       when a turn timer is due (asked of the store, never of Reddit): fire it,
               then send one waiting notice (a reminder, an expiry line, a GM's message,
               a catch-up) exactly once, as replies are (referee.live.timers)
    roster     when anything was refereed: render the roster wiki page and edit it if
               its text changed (a hash in the store), ``ROSTER_GAP`` apart at least;
               a 403 switches this off until restart

The poll interval is ``active_poll_seconds`` while the game is active (a tagged post in
the last ``ACTIVE_HOLD`` seconds) and doubles at each quiet read back to the idle
interval, ``poll_seconds`` less ``REPLY_MARGIN``, so even after a quiet spell a post is
answered within ``poll_seconds``; the new-submissions listing and the inbox are read at
least that often too. The reads may take ``READ_SHARE`` of the budget, so the replies
keep the rest (:meth:`Worker.reply_wait`); the read of new comments, which sets how
soon a post in a thread is answered, ``LEAD_SHARE`` of that, and the other reads are
spaced out first while the game is active (:class:`~referee.live.schedule.Plan`). The
intervals are raised when even so the reads would take more.
A read referees its new posts (newer than the source's cursor) in reading order
through the same Referee as ``referee batch``; records, ledger rows and the advanced
cursors land in one flush.

:func:`~referee.live.service.serve` runs :meth:`Worker.step` on APScheduler at the time
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
import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from referee.live.digest import TellsGMs
from referee.live.parts import (
    ACTIVE_HOLD,
    LEAD_SHARE,
    OPEN_KEY,
    READ_SHARE,
    REPLY_MARGIN,
    WORKER_TABLE,
    CycleReport,
    CycleStopped,
    Delivery,
    Task,
    backoff_delay,
    iso_time,
    pay_requests,
    thread_fullname,
)
from referee.live.reading import ReadsReddit
from referee.live.reddit import LISTING_REACH, Failure, Forum, ForumError
from referee.live.schedule import (
    REDDIT_PER_MINUTE,
    Budget,
    Cadence,
    Pace,
    Plan,
)
from referee.live.shell_requests import TakesShellRequests
from referee.live.status import heartbeat_path, restored_at, write_heartbeat
from referee.live.timers import KeepsPace
from referee.live.wiki import PublishesRoster
from referee.pipeline.campaign import RedditConfig
from referee.pipeline.flow import Referee
from referee.render.roster import RosterRenderer
from referee.store.store import Store

log = logging.getLogger(__name__)

# The reads a ready reply goes before (not new comments, which keep their pace: the
# replies to what they find depend on them).
YIELDING = (Task.NEW, Task.INBOX, Task.EDITS)


class Worker(ReadsReddit, PublishesRoster, TellsGMs, TakesShellRequests, KeepsPace):
    """Polls through a :class:`~referee.live.reddit.Forum` and referees through a ``Referee``.

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
        listed = tuple(thread_fullname(t) for t in config.threads)
        # Threads read one by one (none when the subreddits' listing brings them), and
        # the threads of the subreddits that are this campaign's (None: all of them but
        # ``excluded``, those a host gave to other campaigns of the same subreddits).
        self.threads = () if config.only_threads else listed
        self.claimed: frozenset[str] | None = frozenset(listed) if config.only_threads else None
        self.excluded: frozenset[str] = frozenset()
        # Title tags claiming threads (casefolded): this campaign's, and other campaigns'.
        self.title_tag = config.title_tag.casefold() if config.only_threads else ""
        self.excluded_tags: tuple[str, ...] = ()
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
        self._roster_retry_at = 0.0  # after a failed or a recent edit of the page, not before this
        self.backoff_until = 0.0
        self._backoff_step = 0
        self._reddit_seconds = self._reddit_cpu_seconds = 0.0
        self.budget = Budget(config.budget_share * REDDIT_PER_MINUTE)
        self.cadences = self._cadences()
        self.plan = self._plan()
        self.pace = Pace(active=self.plan.active, idle=self.plan.idle, hold=ACTIVE_HOLD)
        self._sent = forum.usage().sent  # requests counted against the budget so far
        # Posts whose reply is not settled (or whose reply awaits the edited note), kept
        # in the store so that starting never reads every post.
        saved = self.state.get(OPEN_KEY)
        if saved is None:  # a store from before the list was kept: read the posts once
            keys = [key for key, record in self.posts.items() if self._is_open(record)]
        else:
            keys = list(saved.get("posts", []))
        self._open: dict[str, None] = dict.fromkeys(keys)
        self._restored_at = restored_at(self.store.path)  # posts before it: look first
        self._load_digest()
        self._load_pace()
        self._collect_failures()  # ``referee batch``'s, or from before a restart

    def _cadences(self) -> dict[Task, Cadence]:
        everies = {
            Task.COMMENTS: 1,
            Task.NEW: self.config.submissions_every if self.subreddits else 0,
            Task.INBOX: self.config.inbox_every,
            Task.EDITS: self.config.edits_every,
        }
        requests = {Task.COMMENTS: max(1, self._comments_requests)}
        return {
            task: Cadence(
                task.value, every, capped=task is not Task.EDITS, requests=requests.get(task, 1)
            )
            for task, every in everies.items()
            if every
        }

    def _plan(self) -> Plan:
        """The reads' intervals: as asked, unless the reads would take more than their share.

        The reads (the capped ones at least once an idle interval) may take READ_SHARE of
        the budget's sustained rate, so the replies always have the rest; new comments,
        which set how soon a post in a thread is answered, may take LEAD_SHARE of that,
        and the other reads are slowed first while the game is active. A small
        ``budget_share`` or ``poll_seconds``, or many watched threads, raise the
        intervals (with a warning) rather than starve the replies.
        """
        reads = dict(self.cadences)
        lead = reads.pop(Task.COMMENTS)
        asked_idle = max(1.0, self.config.poll_seconds - REPLY_MARGIN)
        plan = Plan(
            lead,
            reads.values(),
            limit=READ_SHARE * self.budget.rate,
            active=float(self.config.active_poll_seconds),
            idle=asked_idle,
            lead_share=LEAD_SHARE,
        )
        for key, was, now in (
            ("poll_seconds", asked_idle + REPLY_MARGIN, plan.idle + REPLY_MARGIN),
            ("active_poll_seconds", float(self.config.active_poll_seconds), plan.active),
        ):
            if now > was:
                log.warning(
                    "event=interval_raised key=%s asked=%.0f seconds=%.1f: the reads would "
                    "take more than their share of the budget (budget_share = %s), leaving "
                    "too little for the replies; raise budget_share or watch fewer threads "
                    "to read faster",
                    key,
                    was,
                    now,
                    self.config.budget_share,
                )
        least = plan.least(plan.active)
        if least:
            log.info(
                "event=reads_spaced seconds=%.1f: while the game is active, new submissions, "
                "the inbox and the edit sweep are read %.1f s apart at least, so that new "
                "comments keep their pace within budget_share = %s",
                least,
                least,
                self.config.budget_share,
            )
        return plan

    @property
    def _comments_requests(self) -> int:
        """Requests of one COMMENTS read: the subreddits' listing and each watched thread."""
        return (1 if self.subreddits else 0) + len(self.threads)

    def reply_wait(self, waiting: int = 1) -> float:
        """Seconds at most from a reply's being ready to its being posted, when the budget
        is spent and Reddit neither refuses nor holds the account: the ``waiting``-th
        reply in line goes after the ``waiting - 1`` ahead of it and a read of new
        comments before each at most (no other read goes before a ready reply), with
        the read that made it ready still to be paid for; each request at the budget's
        sustained pace."""
        comments = max(self._comments_requests, 1)
        # The read that made it ready: new comments and the new submissions it found
        # unread (the inbox's is two requests: read, then marked read).
        return self.budget.request_seconds((waiting + 1) * (comments + 1))

    # -- the schedule --------------------------------------------------------------

    def step(self) -> CycleReport:
        """Run the first task due now, if the budget allows a request now."""
        with self.lock:
            now = self.clock()
            if now < self.backoff_until or self.budget.ready_at(now) > now:
                return CycleReport(skipped=True)
            task = next((t for t in Task if self._due(t, now) <= now), None)
            if task in YIELDING and self._due(Task.REPLY, now) <= now:
                task = Task.REPLY  # a ready reply goes before any read but new comments'
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
        requests (``run --once`` from cron, and the tests). A ``full`` cycle ends by
        sending the GMs' digest if one is due, with the failures it met itself: the
        next ``run --once`` may be hours away.
        """
        with self.lock:
            report = self._run(list(Task), full=full)
            if full and self._digest_due(self.clock()) <= self.clock():
                report.digests += self._run([Task.DIGEST]).digests
            return report

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
        if task is Task.COMMENTS:
            return self.cadences[task].due(self.pace)
        if task in self.cadences:
            return self.cadences[task].due(self.pace, self.plan.least(self.pace.interval))
        if task is Task.MODERATORS:
            if not self.subreddits:
                return never
            refresh = self._moderators_at + self.config.moderators_refresh_hours * 3600
            return max(refresh, self._moderators_retry_at)
        if task is Task.SETTLE:
            return now if self._records(Delivery.SENDING) or self._notices_sending() else never
        if task is Task.SHELL:
            return self._requests_due(now)
        if task is Task.REPLY:
            return self._reply_due(now)
        if task is Task.DIGEST:
            return self._digest_due(now)
        if task is Task.PACE:
            return self._pace_due(now)
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
            log.info("event=cycle_skipped backoff_until=%s", iso_time(self.backoff_until))
            return report
        try:
            for task in tasks:
                now = self.clock()
                if (full and task in self.cadences) or self._due(task, now) <= now:
                    self._do(task, report, one=one)
        except CycleStopped as stop:
            report.failure = stop.error.failure
            self._back_off(stop.error)
        else:
            self._backoff_step = 0
        finally:
            if report.errors:
                self._collect_failures()
            self.store.flush(sync=False)  # nothing here must outlive a power cut
            if report.sources and report.failure is None:
                self._heartbeat()
            self._pay()
            report.seconds = time.perf_counter() - started
            report.reddit_seconds = self._reddit_seconds
            report.cpu_seconds = time.thread_time() - cpu_started
            report.reddit_cpu_seconds = self._reddit_cpu_seconds
        if report.sources or report.delivered or report.failure or report.edited or report.notices:
            log.info(
                "event=step_end sources=%s seen=%d refereed=%d messages=%d delivered=%d "
                "undeliverable=%d edited=%d notices=%d failure=%s interval=%.0f "
                "local_ms=%.1f reddit_ms=%.1f",
                "+".join(report.sources) or "-",
                report.seen,
                report.refereed,
                report.messages,
                report.delivered,
                report.undeliverable,
                report.edited,
                report.notices,
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
            self._settle_notices(report)
        elif task is Task.SHELL:
            self._take_requests(report)
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
        elif task is Task.DIGEST:
            self._send_digest(report)
        elif task is Task.PACE:
            self._keep_pace(report, one=one)
        else:
            self._read(task, report)
        if task in self.cadences:
            self.cadences[task].last = now  # read: due again one interval on
            self._note_activity(task, report, now)

    def _heartbeat(self) -> None:
        """After a successful read: what ``referee status`` shows (see :mod:`.status`)."""
        write_heartbeat(
            heartbeat_path(self.store.path),
            {
                "pid": os.getpid(),
                "last_read_at": self.clock(),
                "replies_waiting": len(self._open),
                "interval": self.pace.interval,
                "budget_per_minute": self.budget.per_minute,
                "requests_sent": self.forum.usage().sent,
                "poll_seconds": self.config.poll_seconds,
            },
        )

    def _note_activity(self, task: Task, report: CycleReport, now: float) -> None:
        if report.refereed or report.messages:
            self._roster_due = True  # approvals, NPCs, wounds and heals all arrive in posts
            self._timers_changed()  # and turns, deadlines and away days
            if not self.pace.is_active:
                log.info("event=active interval=%.0f", self.pace.active)
            self.pace.activity(now)
        elif task is Task.COMMENTS:
            self.pace.quiet(now)

    def _pay(self) -> None:
        """Count the requests sent since last time against the budget; heed Reddit's count."""
        self._sent = pay_requests(self.forum, self.budget, self.clock, self._sent)

    def _back_off(self, error: ForumError) -> None:
        self._backoff_step += 1
        delay = backoff_delay(self._backoff_step, self.pace.interval, error.retry_after)
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
                        raise CycleStopped(error) from error
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


# -- failed posts ----------------------------------------------------------------------


def stored_moderators(store: Store) -> set[str]:
    """The moderators the worker last read (casefolded): GMs for a command run offline."""
    cached = (store.table(WORKER_TABLE).get("moderators") or {}).get("subreddits") or {}
    return {str(name).casefold() for names in cached.values() for name in names}
