"""``referee host``: one process serving many campaign folders, one budget per account.

The host file (:mod:`referee.live.host_config`) names Reddit accounts and the campaign
folders each serves. Per account the host keeps one PRAW client, one request
:class:`~referee.live.schedule.Budget` and one :class:`~referee.live.feed.Feed`; per
campaign a :class:`~referee.live.feed.HostedWorker` on the campaign's own store,
secret, GMs and rulings, exactly as ``referee run`` would open it::

    account step    the first of these that is due, if the account's budget allows:
      comments      r/a+b+c/comments once for every campaign (and each watched thread
                    by its campaign); each worker with posts there queues them
      new           r/a+b+c/new, every ``submissions_every``-th poll
      inbox         the unread private messages once, each to its campaign's worker
                    (or, when its campaign is ambiguous, answered with the campaigns it
                    may mean: see :mod:`~referee.live.feed`), then marked read once
      edits         one api/info request for the newest refereed posts of all campaigns
      a campaign    the campaign whose work is due (a reply, settling, the shell's
                    requests, the roster, the digest, its moderators), the one with the
                    oldest reply waiting first; a read of new comments goes before it,
                    the other reads take turns with it
      a turn        a campaign with posts queued referees them up to the first one it
                    answers, after every ready reply and other work, the campaigns
                    taking turns: one campaign's burst of costly posts delays the
                    others by one post's work, not by the burst's

Requests are counted against the account's budget once, by the host, whichever
campaign sent them. A campaign whose config is broken or whose store cannot be opened
is left out (logged, noted in its ``referee status`` and, when its config names GMs, a
private message to them) and the others run. A crash in one campaign's step is logged
and told to its GMs; the others go on.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from referee.base.errors import ConfigError, OperatorError, UserError
from referee.live.claims import claim_of, clashes, excluded, excluded_tags
from referee.live.feed import (
    MULTI_LIMIT,
    CampaignForum,
    Feed,
    HostedWorker,
    Listing,
    answer_ambiguous,
)
from referee.live.host_config import Account, HostedCampaign, HostFile, load_host
from referee.live.parts import (
    ACTIVE_HOLD,
    LEAD_SHARE,
    READ_SHARE,
    READS,
    REPLY_MARGIN,
    CycleReport,
    Task,
    backoff_delay,
    pay_requests,
)
from referee.live.reddit import LISTING_REACH, Failure, Forum, ForumError, open_forum
from referee.live.schedule import (
    REDDIT_PER_MINUTE,
    Budget,
    Cadence,
    Pace,
    Plan,
)
from referee.live.status import heartbeat_path, write_heartbeat
from referee.pipeline.campaign import Campaign, Config, find_config, load_config, load_secret
from referee.pipeline.flow import Referee

log = logging.getLogger(__name__)

# Seconds between heartbeats of a campaign whose reads the host skipped (nothing new):
# `referee status` shows its last read within a minute (a small file's write a minute).
QUIET_HEARTBEAT = 60.0
LEFT_OUT_SUBJECT = "referee: your campaign is not being served"


class AccountHost:
    """The campaigns of one Reddit account: one client, one budget, one feed."""

    def __init__(
        self,
        account: Account,
        forum: Forum,
        *,
        clock: Callable[[], float] = time.time,
        listing_reach: int = LISTING_REACH,
    ) -> None:
        self.account = account
        self.forum = forum
        self.clock = clock
        self.listing_reach = listing_reach
        self.feed = Feed(forum, listing_reach)
        self.budget = Budget(account.reddit.budget_share * REDDIT_PER_MINUTE)
        self.workers: list[HostedWorker] = []
        self.lock = threading.RLock()
        self.backoff_until = 0.0
        self._backoff_step = 0
        self._sent = forum.usage().sent
        self._replies_turn = False
        self._turns = 0  # the campaigns' turns at refereeing so far
        self._beats: dict[Path, float] = {}
        self._warned = (0.0, 0.0)  # the raised intervals last warned about
        self.cadences: dict[Task, Cadence] = {}
        self.pace = Pace(active=5.0, idle=58.0, hold=ACTIVE_HOLD)
        self.schedule: Plan  # set by plan(), with the first campaign

    # -- the campaigns ---------------------------------------------------------------

    def add(self, worker: HostedWorker) -> None:
        with self.lock:
            worker.budget = self.budget
            self.workers.append(worker)
            self.plan()

    def remove(self, worker: HostedWorker) -> None:
        with self.lock, worker.lock:
            self.workers.remove(worker)
            worker.store.flush()
            worker.referee.campaign.close()
            self.plan()

    @property
    def subreddits(self) -> list[str]:
        """Every subreddit of the account's campaigns, once, in the host file's order."""
        seen: dict[str, None] = {}
        for worker in self.workers:
            for sub in worker.subreddits:
                seen.setdefault(sub.lower())
        return list(seen)

    def plan(self) -> None:
        """The account's reads and poll intervals, from its campaigns' settings.

        The fastest asked of any campaign, raised (as a worker raises its own) when the
        reads would take more than ``READ_SHARE`` of the account's budget."""
        configs = [worker.config for worker in self.workers]
        if not configs:
            self.cadences = {}
            return

        def every(name: str) -> int:
            asked = [getattr(config, name) for config in configs if getattr(config, name)]
            return min(asked) if asked else 0

        everies = {
            Task.COMMENTS: 1,
            Task.NEW: every("submissions_every") if self.subreddits else 0,
            Task.INBOX: every("inbox_every"),
            Task.EDITS: every("edits_every"),
        }
        comments = -(-len(self.subreddits) // MULTI_LIMIT) + sum(
            len(w.threads) for w in self.workers
        )
        requests = {Task.COMMENTS: max(1, comments), Task.INBOX: 2}  # the inbox: read, mark
        old = self.cadences
        self.cadences = {
            task: Cadence(
                task.value, n, capped=task is not Task.EDITS, requests=requests.get(task, 1)
            )
            for task, n in everies.items()
            if n
        }
        for task, cadence in self.cadences.items():
            cadence.last = old[task].last if task in old else None
        reads = dict(self.cadences)
        lead = reads.pop(Task.COMMENTS)
        asked_idle = max(1.0, min(c.poll_seconds for c in configs) - REPLY_MARGIN)
        asked = min(float(c.active_poll_seconds) for c in configs)
        self.schedule = Plan(
            lead,
            reads.values(),
            limit=READ_SHARE * self.budget.rate,
            active=asked,
            idle=asked_idle,
            lead_share=LEAD_SHARE,
        )
        active, idle = self.schedule.active, self.schedule.idle
        if (idle > asked_idle or active > asked) and (active, idle) != self._warned:
            self._warned = (active, idle)
            log.warning(
                "event=interval_raised account=%s campaigns=%d active=%.1f idle=%.1f: the "
                "reads would take more than their share of the account's budget; give the "
                "account a larger budget_share or move campaigns to a second account",
                self.account.name,
                len(configs),
                active,
                idle,
            )
        was = self.pace
        self.pace = Pace(active=active, idle=idle, hold=ACTIVE_HOLD)
        if was.is_active:
            self.pace.activity(max(0.0, was.active_until - ACTIVE_HOLD))

    # -- the schedule ------------------------------------------------------------------

    def next_wake(self) -> float:
        """When :meth:`step` next has something to do (on the host's clock)."""
        with self.lock:
            now = self.clock()
            due = min((self._read_due(task) for task in self.cadences), default=float("inf"))
            turns = float("inf")  # refereeing queued posts sends no request: never held
            for worker in self.workers:
                due = min(due, worker.due_at(now))
                if worker.backlog:
                    turns = min(turns, max(now, worker.backoff_until))
            return min(max(due, self.backoff_until, self.budget.ready_at(now)), turns)

    def step(self) -> CycleReport | None:
        """Run the first thing due now (see the module); None when nothing was."""
        with self.lock:
            now = self.clock()
            if now < self.backoff_until or self.budget.ready_at(now) > now:
                waiting = [w for w in self.workers if w.backlog and w.backoff_until <= now]
                if not waiting:
                    return None
                return self._turn(min(waiting, key=lambda w: w.turn), now)
            read = next((t for t in READS if t in self.cadences and self._read_due(t) <= now), None)
            worker = None
            if read is None or (read is not Task.COMMENTS and self._replies_turn):
                worker = self._next_worker(now)
            try:
                if worker is not None:
                    self._replies_turn = False
                    if worker.reply_rank(now) < float("inf"):  # picked for its reply
                        report = _guarded(worker, worker.reply_step)
                        if report is not None and report.delivered + report.undeliverable:
                            worker.quiet_heartbeat()  # `referee status`: one reply fewer waits
                        return report
                    if worker.backlog:  # picked for its turn at refereeing
                        return self._turn(worker, now)
                    return _guarded(worker, worker.step)
                if read is not None:
                    self._replies_turn = True
                    return self._read(read, now)
                return None
            finally:
                self._pay()

    def _turn(self, worker: HostedWorker, now: float) -> CycleReport | None:
        """The campaign's turn at refereeing the posts its reads queued."""
        self._turns += 1
        worker.turn = self._turns
        report = _guarded(worker, worker.referee_turn)
        if report is not None and report.refereed:
            self.pace.activity(now)  # a tagged post: the game is active (after its read)
        return report

    def _read_due(self, task: Task) -> float:
        """When the account's read ``task`` is next due (the others make room for comments)."""
        least = 0.0 if task is Task.COMMENTS else self.schedule.least(self.pace.interval)
        return self.cadences[task].due(self.pace, least)

    def take_requests(self) -> None:
        """Each campaign takes the requests its GMs left from the shell."""
        for worker in list(self.workers):
            _guarded(worker, worker.take_requests)
        self._pay()

    def _next_worker(self, now: float) -> HostedWorker | None:
        """The campaign whose own work is due now: the one with the oldest reply first,
        then any with other work, then those with posts to referee, the one whose turn
        was longest ago first."""
        best: tuple[float, int, int] | None = None
        chosen = None
        for number, worker in enumerate(self.workers):
            if worker.due_at(now) > now:
                continue
            key = (worker.reply_rank(now), worker.turn if worker.backlog else -1, number)
            if best is None or key < best:
                best, chosen = key, worker
        return chosen

    def _read(self, task: Task, now: float) -> CycleReport:
        report = CycleReport()
        try:
            if task in (Task.COMMENTS, Task.NEW):
                self._read_listing(task, report)
            elif task is Task.INBOX:
                self._read_inbox(report)
            else:
                self._sweep_edits(report)
        except ForumError as error:
            if error.failure in (Failure.FORBIDDEN, Failure.NOT_FOUND):
                log.warning(
                    "event=source_skipped source=%s failure=%s", task.value, error.failure.value
                )
            else:
                report.failure = error.failure
                self._back_off(error)
        else:
            self._backoff_step = 0
        self.cadences[task].last = now
        if report.refereed or report.messages:  # a read's new posts: see _turn
            self.pace.activity(now)
        elif task is Task.COMMENTS:
            self.pace.quiet(now)
        return report

    def _read_listing(self, task: Task, report: CycleReport) -> None:
        kind = "new" if task is Task.NEW else "comments"
        subs = self.subreddits
        listing = Listing()
        if subs:
            ranks = [w.cursor_rank(kind) for w in self.workers if w.subreddits]
            floor = None if None in ranks else min(r for r in ranks if r is not None)
            listing = self.feed.read_listing(kind, subs, floor)
            report.sources.append(kind)
            report.seen += len(listing.posts)
        now = self.clock()
        for worker in list(self.workers):
            if worker.wants(kind, listing):
                _add(report, _guarded(worker, lambda w=worker: w.read(task)))  # type: ignore[misc]
            else:
                worker.cover(kind, listing)
                if now - self._beats.get(worker.folder, float("-inf")) >= QUIET_HEARTBEAT:
                    self._beats[worker.folder] = now
                    worker.quiet_heartbeat()

    def _read_inbox(self, report: CycleReport) -> None:
        report.sources.append("inbox")
        unread = self.forum.unread()
        if not self.workers:
            return
        ambiguous = self.feed.route_messages(unread, self.workers)
        done: list[str] = list(unread.others)
        done += answer_ambiguous(self.forum, ambiguous, report)
        for worker in list(self.workers):
            messages = self.feed.unread.get(worker.folder, [])
            if not messages:
                continue
            taken = _guarded(worker, lambda w=worker: w.read(Task.INBOX))  # type: ignore[misc]
            _add(report, taken)
            if taken is not None and taken.failure is None:
                done.extend(m.fullname for m in messages)  # in its store: may be marked read
        self.feed.unread = {}
        if done:
            try:
                self.forum.mark_read(done)
            except ForumError as error:  # harmless: known messages are skipped next time
                log.warning("event=mark_read_failed items=%d reason=%r", len(done), error.message)

    def _sweep_edits(self, report: CycleReport) -> None:
        report.sources.append("edits")
        recent = self.feed.sweep(self.workers)
        if not recent:
            return
        posts = self.forum.info(recent)
        self.feed.swept = {post.fullname: post for post in posts}
        changed = [p.fullname for p in posts if p.edited is not None or p.gone]
        for worker in list(self.workers):
            if any(name in worker.posts for name in changed):
                _add(report, _guarded(worker, lambda w=worker: w.read(Task.EDITS)))  # type: ignore[misc]
        self.feed.swept = {}

    def _pay(self) -> None:
        """Count the account's requests since last time against its budget, once."""
        self._sent = pay_requests(self.forum, self.budget, self.clock, self._sent)

    def _back_off(self, error: ForumError) -> None:
        self._backoff_step += 1
        delay = backoff_delay(self._backoff_step, self.pace.interval, error.retry_after)
        self.backoff_until = self.clock() + delay
        log.warning(
            "event=back_off account=%s failure=%s seconds=%.0f reason=%r",
            self.account.name,
            error.failure.value,
            delay,
            error.message,
        )

    def close(self) -> None:
        """Let the step in flight end, then flush and close every campaign's store."""
        with self.lock:
            for worker in list(self.workers):
                with worker.lock:
                    try:
                        worker.referee.campaign.close()
                    except OperatorError as error:
                        log.error(
                            "event=close_failed campaign=%s reason=%r", worker.folder, error.message
                        )
            self.workers.clear()


def _guarded(worker: HostedWorker, run: Callable[[], CycleReport | None]) -> CycleReport | None:
    """Run one campaign's work; a bug there is logged and told to its GMs, not raised."""
    try:
        return run()
    except Exception as error:
        log.exception("event=step_failed campaign=%s", worker.folder)
        try:
            worker.tell_crash(error)
        except Exception:
            log.exception("event=tell_failed campaign=%s", worker.folder)
        return None


def _digest(folder: Path) -> str:
    """The campaign's config.toml as it is now (a change re-opens the campaign on reload)."""
    try:
        return hashlib.sha256(find_config(folder).read_bytes()).hexdigest()
    except (OperatorError, OSError):
        return ""


def _add(total: CycleReport, part: CycleReport | None) -> None:
    if part is None:
        return
    total.refereed += part.refereed
    total.messages += part.messages
    total.delivered += part.delivered
    total.errors += part.errors


ForumFactory = Callable[[Account], Forum]


class Host:
    """Every account of a host file and the campaigns each serves (see the module)."""

    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], float] = time.time,
        forums: ForumFactory | None = None,
        listing_reach: int = LISTING_REACH,
    ) -> None:
        self.path = path
        self.clock = clock
        self.forums = forums or (lambda account: open_forum(account.reddit))
        self.listing_reach = listing_reach
        self.accounts: dict[str, AccountHost] = {}
        self.left_out: dict[Path, str] = {}  # campaign folder: why it is not served
        self._told: set[tuple[Path, str]] = set()
        self._digests: dict[Path, str] = {}  # each served campaign's config.toml, as opened
        self.reload()

    @property
    def workers(self) -> list[HostedWorker]:
        return [w for account in self.accounts.values() for w in account.workers]

    def reload(self) -> HostFile:
        """Read the host file again: open the campaigns added, close those taken out.

        A broken host file raises ConfigError and changes nothing."""
        host = load_host(self.path)
        for name in list(self.accounts):
            if name not in host.accounts or host.accounts[name] != self.accounts[name].account:
                self.accounts.pop(name).close()
                log.info("event=account_closed account=%s", name)
        for name, account in host.accounts.items():
            if name not in self.accounts:
                self.accounts[name] = AccountHost(
                    account,
                    self.forums(account),
                    clock=self.clock,
                    listing_reach=self.listing_reach,
                )
        wanted = {(c.folder, c.account) for c in host.campaigns}
        for serving in self.accounts.values():
            for worker in list(serving.workers):
                if (worker.folder, serving.account.name) not in wanted:
                    serving.remove(worker)
                    log.info("event=campaign_removed campaign=%s", worker.folder)
                elif _digest(worker.folder) != self._digests.get(worker.folder):
                    serving.remove(worker)  # its config.toml changed: opened again below
                    log.info("event=campaign_reopened campaign=%s", worker.folder)
        served = {(w.folder, a.account.name) for a in self.accounts.values() for w in a.workers}
        self.left_out = {}
        opening: list[tuple[HostedCampaign, Config]] = []
        for hosted in host.campaigns:
            if (hosted.folder, hosted.account) not in served:
                config = self._load(hosted)
                if config is not None:
                    opening.append((hosted, config))
        running = [claim_of(w.folder, w.config) for w in self.workers]
        new = [claim_of(hosted.folder, config.reddit) for hosted, config in opening]
        refused = clashes(running, new)
        for hosted, config in opening:
            if hosted.folder in refused:
                self._leave_out(hosted, config, refused[hosted.folder])
            else:
                self._open(hosted, config)
        claims = running + new
        for worker in self.workers:
            worker.excluded = excluded(worker.folder, claims)
            worker.excluded_tags = excluded_tags(worker.folder, claims)
        log.info(
            "event=host_loaded accounts=%d campaigns=%d left_out=%d",
            len(self.accounts),
            len(self.workers),
            len(self.left_out),
        )
        return host

    def _load(self, hosted: HostedCampaign) -> Config | None:
        """The campaign's checked config, or None when it is left out (told why)."""
        config = None
        try:
            config = load_config(find_config(hosted.folder))
            if not config.reddit.subreddits and not config.reddit.threads:
                raise ConfigError(
                    f"Nothing to watch: set [reddit] subreddits or threads in {config.path}."
                )
        except (OperatorError, UserError, OSError) as error:
            self._leave_out(hosted, config, getattr(error, "message", str(error)))
            return None
        return config

    def _open(self, hosted: HostedCampaign, config: Config) -> None:
        account = self.accounts[hosted.account]
        digest = _digest(hosted.folder)
        try:
            campaign = Campaign(config, load_secret(config))
        except (OperatorError, UserError, OSError) as error:
            self._leave_out(hosted, config, getattr(error, "message", str(error)))
            return
        try:
            worker = HostedWorker(
                Referee(campaign, clock=self.clock),
                CampaignForum(account.forum, account.feed),
                config.reddit,
                clock=self.clock,
                listing_reach=self.listing_reach,
                feed=account.feed,
                folder=hosted.folder,
            )
        except Exception as error:  # its store or Reddit failed it: the others go on
            campaign.store.discard()
            log.exception("event=campaign_failed campaign=%s", hosted.folder)
            self._leave_out(hosted, config, f"{type(error).__name__}: {error}")
            return
        account.add(worker)
        self._digests[hosted.folder] = digest
        write_heartbeat(heartbeat_path(config.store_path), {"pid": os.getpid()})
        log.info("event=campaign_added campaign=%s account=%s", hosted.folder, hosted.account)

    def _leave_out(self, hosted: HostedCampaign, config: object, reason: str) -> None:
        account = self.accounts[hosted.account]
        self.left_out[hosted.folder] = reason
        log.error("event=campaign_left_out campaign=%s reason=%r", hosted.folder, reason)
        store_path = getattr(config, "store_path", None)
        if store_path is not None and Path(store_path).parent.is_dir():
            write_heartbeat(heartbeat_path(store_path), {"pid": os.getpid(), "left_out": reason})
        gms: Iterable[str] = getattr(config, "gms", ())
        if (hosted.folder, reason) in self._told:
            return
        self._told.add((hosted.folder, reason))
        for gm in gms:
            try:
                account.forum.message(
                    gm,
                    LEFT_OUT_SUBJECT,
                    f"The referee host could not open the campaign in {hosted.folder.name}, "
                    f"so nothing there is refereed until it is fixed: {reason} The other "
                    "campaigns run; once fixed, reload the host (`referee host --reload`).",
                )
            except ForumError as error:
                log.warning("event=left_out_untold gm=%s reason=%r", gm, error.message)

    def close(self) -> None:
        """Flush and close every campaign (each after its step in flight)."""
        for account in self.accounts.values():
            account.close()
        self.accounts.clear()
