"""What the worker's parts share: its tasks, reports, delivery states and limits.

The :class:`~referee.live.worker.Worker` is made of parts by topic, each a class of
its own module: reading Reddit (:mod:`referee.live.reading`), delivering replies
(:mod:`referee.live.delivery`), publishing the roster (:mod:`referee.live.wiki`) and
keeping the pace of turns (:mod:`referee.live.timers`).
:class:`WorkerParts` names what they share: the worker's state, set in its
``__init__``, and the one call every part makes through it, :meth:`Worker._call`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from typing import TYPE_CHECKING, Any

from referee.base.posts import Post
from referee.live.reddit import Failure, Forum, ForumError
from referee.live.schedule import Budget, Cadence, Pace
from referee.pipeline.campaign import RedditConfig
from referee.pipeline.flow import Referee
from referee.render.roster import RosterRenderer
from referee.store.store import Store

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
READ_SHARE = 0.6
# The most of the reads' share the read of new comments may take while the game is active;
# the other reads are spaced out first.
LEAD_SHARE = 0.5
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
WIKI_REFUSED = (Failure.FORBIDDEN, Failure.NOT_FOUND, Failure.REJECTED, Failure.UNDELIVERABLE)
WIKI_GIVE_UP = WIKI_REFUSED  # the GMs' page: never written where it cannot be private
WIKI_RETRY = 900.0
# Seconds from one edit of the roster pages to the next at least: the changes of a lively
# game share an edit, and the wiki takes little of the budget the replies need.
ROSTER_GAP = 60.0
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
    SHELL = "shell"  # the requests a GM left from the shell (referee.live.shell_requests)
    COMMENTS = "comments"  # r/a+b/comments and each watched thread
    NEW = "new"  # r/a+b/new
    INBOX = "inbox"
    EDITS = "edits"  # the edit sweep
    REPLY = "reply"  # one pending reply, or one reply's edit
    PACE = "pace"  # the turn timers due, then one waiting notice (referee.live.timers)
    ROSTER = "roster"
    DIGEST = "digest"  # the GMs' digest of problems, an hour apart at most


# The reads that run on a cadence; the other tasks are due when there is work for them.
READS = (Task.COMMENTS, Task.NEW, Task.INBOX, Task.EDITS)


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
    digests: int = 0  # GMs sent the digest of problems
    timers: int = 0  # times the turn timers due were fired
    notices: int = 0  # reminders, expiry lines, GMs' messages and catch-ups sent (or found sent)
    requests: int = 0  # requests from the shell taken (approve, failures --retry...)
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


class CycleStopped(Exception):
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


def post_rank(fullname: str) -> int:
    """Reddit ids grow with time: the order of posts of one kind."""
    return int(fullname.partition("_")[2] or "0", 36)


def iso_time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).isoformat(timespec="seconds")


class WorkerParts:
    """The state the worker's parts read and write, set by :class:`Worker`'s ``__init__``."""

    referee: Referee
    forum: Forum
    config: RedditConfig
    clock: Callable[[], float]
    listing_reach: int
    store: Store
    posts: Any  # the store's posts table
    state: Any  # the store's worker table
    bot: str
    subreddits: tuple[str, ...]
    threads: tuple[str, ...]
    claimed: frozenset[str] | None  # only these threads of the subreddits (None: all)
    excluded: frozenset[str]  # threads of the subreddits that other campaigns claim
    title_tag: str  # threads titled so are this campaign's too (casefolded; "": none)
    excluded_tags: tuple[str, ...]  # threads titled so are other campaigns' (casefolded)
    budget: Budget
    cadences: dict[Task, Cadence]
    pace: Pace
    backoff_until: float
    _open: dict[str, None]
    _roster_renderer: RosterRenderer | None
    _roster_due: bool
    _wiki_off: bool
    _gm_wiki_off: bool
    _wiki_refused: bool
    _roster_retry_at: float
    _moderators_at: float
    _restored_at: float  # when the store was restored from a backup (0: never)

    lock: Any  # the worker's RLock: one step, or one request, at a time

    if TYPE_CHECKING:

        def _run(self, tasks: Any, *, full: bool = False, one: bool = False) -> CycleReport:
            """Run tasks due (see :class:`~referee.live.worker.Worker`)."""
            ...

        def _call(self, function: Callable[..., Any], *args: Any) -> Any:
            """Call Reddit through the budget (see :class:`~referee.live.worker.Worker`)."""
            ...

        def _note_post(self, post: Post) -> None:
            """A post read and refereed (:mod:`.timers`): for [[catchup]] and the timers."""
            ...

        def _tell_undeliverable(self, fullname: str, reason: str) -> None:
            """Keep a reply that cannot be posted for the GMs' digest (:mod:`.digest`)."""
            ...

        def _tell_wiki(self, page: str, failure: str) -> None:
            """Keep a wiki page that cannot be written for the GMs' digest."""
            ...

        def _tell_notice(self, key: str, notice: dict[str, Any], reason: str) -> None:
            """Keep a notice that cannot be sent for the GMs' digest."""
            ...


def backoff_delay(failures: int, interval: float, retry_after: float | None) -> float:
    """Seconds to wait after the ``failures``-th failed request in a row: the poll interval,
    doubled each time up to :data:`MAX_BACKOFF`, and never less than Reddit asked.

    >>> backoff_delay(1, 5.0, None), backoff_delay(3, 5.0, 60.0), backoff_delay(20, 5.0, None)
    (5.0, 60.0, 900.0)
    """
    delay = min(MAX_BACKOFF, interval * 2 ** (failures - 1))
    return max(delay, retry_after) if retry_after else delay


def pay_requests(forum: Forum, budget: Budget, clock: Callable[[], float], counted: int) -> int:
    """Count the requests ``forum`` sent past ``counted`` against ``budget``, heeding
    Reddit's own count of what is left; the total counted now."""
    usage = forum.usage()
    if usage.sent > counted:
        now = clock()
        budget.spend(now, usage.sent - counted)
        budget.observe(now, usage.remaining, usage.reset_seconds)
    return usage.sent
