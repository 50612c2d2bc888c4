"""One account's shared reads: each listing, the inbox and the edit sweep read once for
every campaign the account serves, then handed to each campaign's worker.

A host (:mod:`referee.live.host`) serves many campaigns on one Reddit account. Their
workers do not read Reddit's listings themselves: :class:`Feed` reads
``r/a+b+c/comments`` (and ``r/a+b+c/new``) once per poll for the subreddits of all
of them, paging back until it reaches the oldest cursor among them, and each
:class:`HostedWorker` takes from those pages the posts of its own subreddits, as its
own read would have found them. Reddit's ids grow with time across subreddits, so a
worker's cursor may be moved on to the newest post the shared read covered.

A private message goes to the campaign its subject names (``#`` and the campaign's
name or folder, letters and digits only: ``roll #ashesofempire``), else to the one
campaign its author plays in (a GM, or the owner of a character or an application
there), else to the first campaign, which refuses it politely. When the author plays
in several and names none, nothing is rolled: the host answers once, naming the
campaigns and how to name one (:func:`ambiguity_note`). The edit sweep re-reads the
newest refereed posts of all the campaigns in one request.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.base.markdown import escape_markdown
from referee.base.posts import Post, reading_order
from referee.live.parts import EDIT_SWEEP, CycleReport, Delivery, Task, post_rank
from referee.live.reddit import Forum, ForumError, Page, Unread
from referee.live.worker import Worker
from referee.read.tags import find_tags

log = logging.getLogger(__name__)

# The most subreddits one r/a+b/... request names (Reddit's multireddit paths cap them).
MULTI_LIMIT = 100
_HASHED = re.compile(r"#([\w-]+)")  # a campaign named in a private message's subject


@dataclass
class Listing:
    """What one shared read of a listing found: its posts, newest first, and its reach."""

    posts: list[Post] = field(default_factory=list)
    truncated: bool = False  # stopped at the listing's reach before the oldest cursor
    oldest: int = -1  # the rank of the oldest post read (when truncated)
    newest: str | None = None  # the newest post read


class Feed:
    """One account's shared reads for the workers of its campaigns (see the module)."""

    def __init__(self, forum: Forum, listing_reach: int) -> None:
        self.forum = forum
        self.listing_reach = listing_reach
        self.listings: dict[str, Listing] = {}  # by kind, this poll's
        self.unread: dict[Any, list[Post]] = {}  # private messages by campaign folder, this read
        self.swept: dict[str, Post] = {}  # the edit sweep's posts, by fullname

    def read_listing(self, kind: str, subreddits: Sequence[str], floor: int | None) -> Listing:
        """Read ``kind`` ("comments" or "new") of all ``subreddits`` back to the post of
        rank ``floor`` (None: as deep as the listing reaches). Raises ForumError."""
        found = Listing()
        for start in range(0, len(subreddits), MULTI_LIMIT):
            chunk = subreddits[start : start + MULTI_LIMIT]
            after: str | None = None
            read = 0
            while True:
                page: Page = self.forum.listing(kind, chunk, after)
                read += len(page.posts)
                found.posts.extend(page.posts)
                reached = floor is not None and any(
                    post_rank(p.fullname) <= floor for p in page.posts
                )
                if reached or page.after is None:
                    break
                if read >= self.listing_reach:
                    if floor is not None and page.posts:
                        found.truncated = True
                        found.oldest = max(found.oldest, post_rank(page.posts[-1].fullname))
                    break
                after = page.after
        if found.posts:
            found.newest = max((p.fullname for p in found.posts), key=post_rank)
        self.listings[kind] = found
        return found

    def route_messages(
        self, unread: Unread, workers: Sequence[HostedWorker]
    ) -> list[tuple[Post, list[HostedWorker]]]:
        """Hand each private message to the worker of its campaign (see the module); the
        messages whose campaign is ambiguous, each with the campaigns it may mean."""
        self.unread = {worker.folder: [] for worker in workers}
        ambiguous: list[tuple[Post, list[HostedWorker]]] = []
        players: dict[Any, frozenset[str]] = {}  # by campaign folder, read once per inbox read
        for message in unread.messages:
            named = campaigns_named(message.subject, workers)
            if len(named) == 1:
                self.unread[named[0].folder].append(message)
                continue
            author = message.author.casefold()
            mine = []
            for worker in named or workers:
                if worker.folder not in players:
                    players[worker.folder] = worker.players()
                if author in players[worker.folder]:
                    mine.append(worker)
            if len(mine) > 1:
                ambiguous.append((message, mine))
            else:
                self.unread[(mine or named or workers)[0].folder].append(message)
        return ambiguous

    def sweep(self, workers: Iterable[HostedWorker]) -> list[str]:
        """The newest refereed posts of all the campaigns, at most one request's worth."""
        recent: list[str] = []
        for worker in workers:
            recent.extend(worker.recent_refereed())
        recent.sort(key=post_rank, reverse=True)
        return recent[:EDIT_SWEEP]


def handle(text: str) -> str:
    """A campaign's name (or folder) as a subject names it: letters and digits, lower case.

    >>> handle("Ashes of Empire")
    'ashesofempire'
    """
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def handles(worker: HostedWorker) -> frozenset[str]:
    """The ``#`` names a subject may give a campaign: its name's and its folder's."""
    names = (worker.referee.campaign.config.name, Path(worker.folder or "").name)
    return frozenset(filter(None, map(handle, names)))


def campaigns_named(subject: str, workers: Sequence[HostedWorker]) -> list[HostedWorker]:
    """The campaigns a message's subject names with ``#name``."""
    words = {handle(word) for word in _HASHED.findall(subject)}
    return [worker for worker in workers if words & handles(worker)]


def ambiguity_note(campaigns: Sequence[HostedWorker]) -> str:
    """The one answer to a private message whose author plays in several campaigns."""
    listed = ", ".join(
        f"{escape_markdown(w.referee.campaign.config.name)} (`#{min(handles(w), key=len)}`)"
        for w in campaigns
    )
    example = min(handles(campaigns[0]), key=len)
    return (
        f"You play in several campaigns this bot referees: {listed}. Nothing was rolled, "
        "since it cannot tell which one you mean. Send your message again with the "
        f"campaign's name after a # in its subject, for example `roll #{example}`."
    )


def answer_ambiguous(
    forum: Forum, ambiguous: list[tuple[Post, list[HostedWorker]]], report: CycleReport
) -> list[str]:
    """Say once to each message whose campaign is ambiguous which campaigns it may
    mean (nothing is rolled); the messages done with, to mark read.

    A message answered before its inbox was marked read (a crash, a failed mark) is
    found answered in the bot's sent messages and not answered again."""
    tagged: list[tuple[Post, list[HostedWorker]]] = []
    done: list[str] = []
    for message, campaigns in ambiguous:
        scan = find_tags(message.body, campaigns[0].referee.limits)
        if scan.tags or scan.problem or scan.near:
            tagged.append((message, campaigns))
        else:
            done.append(message.fullname)  # no tags: ignored, as a campaign would
    if not tagged:
        return done
    try:
        answered = forum.find_replies({m.fullname: m.thread for m, _ in tagged})
    except ForumError as error:  # unread still: looked at next time
        log.warning("event=ambiguity_untold items=%d reason=%r", len(tagged), error.message)
        return done
    for message, campaigns in tagged:
        if message.fullname not in answered:
            try:
                forum.reply(message.fullname, ambiguity_note(campaigns))
            except ForumError as error:
                log.warning(
                    "event=ambiguity_untold post=%s reason=%r", message.fullname, error.message
                )
                continue
            report.messages += 1
            log.info(
                "event=message_ambiguous post=%s author=%s campaigns=%d",
                message.fullname,
                message.author,
                len(campaigns),
            )
        done.append(message.fullname)
    return done


class CampaignForum:
    """The account's forum as one campaign's worker sees it: its share of the shared reads.

    The inbox, the edit sweep's posts and the listings come from the :class:`Feed`
    (read once for every campaign); everything else (threads, replies, edits, the
    moderators, wiki pages) goes to the account's forum as it is.
    """

    def __init__(self, forum: Forum, feed: Feed) -> None:
        self._forum = forum
        self._feed = feed
        self.folder: Any = None  # the campaign folder of its worker, set once the worker exists

    def __getattr__(self, name: str) -> Any:
        return getattr(self._forum, name)

    @property
    def username(self) -> str:
        return self._forum.username

    def unread(self) -> Unread:
        return Unread(tuple(self._feed.unread.get(self.folder, ())), ())

    def mark_read(self, fullnames: Iterable[str]) -> None:
        """The host marks the account's inbox read once every campaign has its messages."""

    def info(self, fullnames: Sequence[str]) -> tuple[Post, ...]:
        swept = self._feed.swept
        return tuple(swept[name] for name in fullnames if name in swept)


class HostedWorker(Worker):
    """A campaign's worker in a host: the host decides when it reads, and pays its requests.

    Its own tasks (settling, replies, the shell's requests, the roster, the digest, the
    moderators) run as :meth:`Worker.step` runs them; its reads run when the host has
    read the account's listings (:meth:`read`), from the :class:`Feed`.

    A read only queues the new posts it found (its *backlog*); the host has them
    refereed one answered post a turn (:meth:`referee_turn`), the campaigns taking
    turns and every ready reply going first, so a burst of costly posts in one campaign
    holds up the others by one post's work at most. The read's cursors are stored once
    the whole backlog is refereed, never before: a post left in it (a restart, a crash)
    is read again, and one refereed already is answered from its record, not again.
    """

    def __init__(self, *args: Any, feed: Feed, folder: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.feed = feed
        self.folder = folder
        self.covered: dict[str, str] = {}  # by kind: the newest post a shared read covered
        self.backlog: dict[str, Post] = {}  # new posts read, not yet refereed, by fullname
        self.held: dict[str, str] = {}  # the cursors to store once the backlog is refereed
        self.held_cover: dict[str, str] = {}  # and the shared reads' reach, by kind
        self.turn = 0  # the host's count when this campaign last had a turn
        if isinstance(self.forum, CampaignForum):
            self.forum.folder = folder

    # -- what the host asks -----------------------------------------------------------

    def read(self, task: Task) -> CycleReport:
        """Run the read ``task`` now, on what the feed holds."""
        with self.lock:
            return self._run([task], full=True)

    def referee_turn(self) -> CycleReport:
        """Referee the backlog's posts in reading order up to the first one answered now;
        once it is empty, store the cursors of the reads that filled it."""
        with self.lock:
            report = CycleReport()
            try:
                while self.backlog:
                    post = min(self.backlog.values(), key=reading_order)
                    del self.backlog[post.fullname]
                    if self._referee_new(post, report):
                        break
                self._store_held()
            except BaseException:  # the cursors stay put: the next read brings them again
                self._forget_backlog()
                raise
            if report.refereed:
                self._note_activity(Task.COMMENTS, report, self.clock())
            self.store.flush(sync=False)  # records, ledger rows and cursors together
            return report

    def _store_held(self) -> None:
        """Once the backlog is refereed, the cursors of the reads that filled it move on."""
        if self.backlog:
            return
        for cursor_key, newest in self.held.items():
            self.state.put(cursor_key, {"newest": newest})  # flushed as the step ends
        self.covered.update(self.held_cover)
        self.held, self.held_cover = {}, {}

    def _forget_backlog(self) -> None:
        self.backlog, self.held, self.held_cover = {}, {}, {}

    def due_at(self, now: float) -> float:
        """When this campaign's own work (not the reads) is next due; not the budget's say."""
        with self.lock:
            due = min(self._due(task, now) for task in Task)
            return max(min(due, now) if self.backlog else due, self.backoff_until)

    def reply_rank(self, now: float) -> float:
        """The rank of this campaign's oldest reply ready to post now; infinity when none."""
        with self.lock:
            if self._reply_due(now) > now:
                return float("inf")
            ready = [
                post_rank(name)
                for name, record in self._records(Delivery.PENDING)
                if float(record["delivery"].get("retry_at", 0.0)) <= now
            ]
            return min(ready, default=float("inf"))

    def reply_step(self) -> CycleReport:
        """Post this campaign's oldest ready reply (after settling any left in doubt),
        before its other work: the host picked it for that reply."""
        with self.lock:
            if self.clock() < self.backoff_until:
                return CycleReport(skipped=True)
            return self._run([Task.SETTLE, Task.REPLY], one=True)

    def cursor_rank(self, kind: str) -> int | None:
        """The rank of the newest post of ``kind`` this campaign has read (None: never read)."""
        stored = (self.state.get(self._cursor_key(kind, "+".join(self.subreddits))) or {}).get(
            "newest"
        )
        marks = [post_rank(name) for name in (stored, self.covered.get(kind)) if name]
        return max(marks) if marks else None

    def wants(self, kind: str, listing: Listing) -> bool:
        """Whether a shared read holds anything for this campaign (else it is skipped)."""
        if self.threads or self.cursor_rank(kind) is None:
            return True
        floor = self.cursor_rank(kind) or 0
        mine = {sub.lower() for sub in self.subreddits}
        for post in listing.posts:
            if (
                post.subreddit.lower() in mine
                and self.owns(post)
                and (post_rank(post.fullname) > floor or post.edited is not None or post.gone)
            ):
                return True
        return listing.truncated and listing.oldest > floor

    def cover(self, kind: str, listing: Listing) -> None:
        """The shared read covered this campaign's subreddits up to its newest post (once
        the backlog is refereed, when there is one)."""
        if listing.newest is None:
            return
        if self.backlog or self.held:
            self.held_cover[kind] = listing.newest
        else:
            self.covered[kind] = listing.newest

    def quiet_heartbeat(self) -> None:
        """What ``referee status`` shows, when the host had nothing new for this campaign."""
        with self.lock:
            self._heartbeat()

    def players(self) -> frozenset[str]:
        """Who plays in this campaign (casefolded): its GMs, and the owners of its
        characters and of its applications."""
        with self.lock:
            people = set(self.referee.gms)
            for table in ("characters", "applications"):
                for record in self.store.table(table).values():
                    if isinstance(record, dict) and record.get("owner"):
                        people.add(str(record["owner"]).casefold())
            return frozenset(people)

    def recent_refereed(self) -> list[str]:
        """The refereed posts the edit sweep re-reads, newest first (see ``_sweep_edits``)."""
        recent: list[str] = []
        for fullname in self.posts.newest():
            record = self.posts.get(fullname) or {}
            if fullname.startswith(("t1_", "t3_")) and not record.get("gone"):
                recent.append(fullname)
            if len(recent) == EDIT_SWEEP:
                break
        return recent

    # -- the worker, hosted -------------------------------------------------------------

    def _due(self, task: Task, now: float) -> float:
        if task in self.cadences:
            return float("inf")  # the host reads for every campaign at once
        return super()._due(task, now)

    def _pay(self) -> None:
        """The host pays the account's requests, once, whoever sent them."""

    def _read(self, task: Task, report: CycleReport) -> None:
        super()._read(task, report)  # its new posts queued (see _take_read)
        kind = "new" if task is Task.NEW else "comments"
        listing = self.feed.listings.get(kind)
        if listing is not None and listing.newest is not None and self.subreddits:
            key = self._cursor_key(kind, "+".join(self.subreddits))
            held = self.held.get(key) or (self.state.get(key) or {}).get("newest")
            if held is None or post_rank(listing.newest) > post_rank(held):
                self.held[key] = listing.newest  # the others' posts there are not its own
            self.cover(kind, listing)
        self._store_held()  # nothing queued: the cursors move on now (flushed as the step ends)

    def _take_read(
        self, fresh: list[Post], older: list[Post], cursors: dict[str, str], report: CycleReport
    ) -> None:
        """Queue a read's new posts for the host's turns (the bot's own left out), the
        latest text of each; look at its older ones for edits now."""
        for post in older:
            self._check_edit(post)
        for post in fresh:
            if post.author.lower() != self.bot:
                self.backlog[post.fullname] = post
        self.held.update(cursors)  # each read's cursors cover only posts queued by now

    def _read_listing(self, kind: str, cursor: str | None) -> tuple[list[Post], list[Post], bool]:
        listing = self.feed.listings.get(kind) or Listing()
        mine = {sub.lower() for sub in self.subreddits}
        new: list[Post] = []
        old: list[Post] = []
        for post in listing.posts:
            if post.subreddit.lower() in mine and self.owns(post):
                (new if self._is_new(post, cursor) else old).append(post)
        floor = self.cursor_rank(kind)
        gap = listing.truncated and floor is not None and listing.oldest > floor
        return new, old, gap
