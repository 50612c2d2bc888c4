"""When the live worker may ask Reddit, and how often it reads: the budget and the pace.

Pure bookkeeping over times the caller passes in (seconds on any clock), so the worker's
schedule runs the same on the wall clock and on a simulated one::

    Budget     a token bucket that holds the worker to its share of Reddit's limit
               (over Reddit's ten-minute window), and slows it further when Reddit's
               x-ratelimit headers say the account's window is running out (other
               tools of the account count too)
    Pace       the polling interval: ``active`` seconds while the game is active (a
               tagged post within ``hold`` seconds), then doubling at each quiet read
               back to ``idle``
    Cadence    one kind of read (new comments, new submissions, the inbox, the edit
               sweep): every ``every``-th poll interval, and, when ``capped``, never
               slower than the idle interval
    Plan       the intervals fitted to the reads' share of the budget: new comments
               first, the other reads spaced out to make room while the game is active

>>> pace = Pace(active=5, idle=58, hold=300)
>>> pace.activity(now=0.0)
>>> [pace.interval, Cadence("new", every=2, capped=True).interval(pace)]
[5, 10]
>>> for now in (300, 305, 315, 335, 375):
...     pace.quiet(now)
>>> pace.interval
58
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

# Queries a minute Reddit allows an OAuth client, averaged over its window of WINDOW seconds.
REDDIT_PER_MINUTE = 100
WINDOW = 600.0
# Requests the bucket holds when full: a read and the replies it found go out at once.
BURST = 10
# Requests of Reddit's window the worker leaves unspent: a restart's first look for
# replies it may have posted, and other tools of the same account.
RESERVE = 10


class Budget:
    """At most ``per_minute`` requests a minute over Reddit's window, and never past its count.

    Reddit averages its limit over a window of ten minutes, so that is what the share is
    held to: a token bucket of ``burst`` requests refilled at ``per_minute`` a minute less
    the burst spread over the window. Whatever the order of requests, any ten minutes
    hold at most ten times ``per_minute`` (and any one minute ``per_minute + burst``).

    >>> budget = Budget(per_minute=60, burst=10)
    >>> budget.spend(0.0, 10)
    >>> budget.ready_at(0.0)  # one request refills in 600 / (600 - 10) seconds
    1.0169491525423728
    >>> budget.observe(0.0, remaining=10.0, reset_seconds=300)  # Reddit's window is spent
    >>> budget.ready_at(0.0)
    300.0
    """

    def __init__(self, per_minute: float, *, burst: int = BURST, reserve: int = RESERVE) -> None:
        window_requests = per_minute * WINDOW / 60.0
        if window_requests <= burst:
            raise ValueError(f"a budget of {per_minute} a minute leaves nothing past the burst")
        self.per_minute = per_minute
        self.burst = burst
        self.reserve = reserve
        self.rate = (window_requests - burst) / WINDOW  # requests a second, sustained
        self._tokens = float(burst)
        self._at: float | None = None  # when the tokens were counted
        self.hold_until = 0.0  # Reddit's window is spent: nothing before its reset
        self._reddit_gap = 0.0  # seconds a request while Reddit's window runs low
        self._reddit_next = 0.0  # the next request Reddit's window allows

    def _refill(self, now: float) -> None:
        if self._at is None or now < self._at:
            self._at = now if self._at is None else self._at
            return
        self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        self._at = now

    def ready_at(self, now: float) -> float:
        """When the next request may be sent: ``now`` or later."""
        self._refill(now)
        local = now if self._tokens >= 1 else now + (1 - self._tokens) / self.rate
        return max(local, self.hold_until, self._reddit_next)

    def spend(self, now: float, requests: int) -> None:
        """Count ``requests`` sent at ``now``."""
        if requests <= 0:
            return
        self._refill(now)
        self._tokens -= requests
        if self._reddit_gap:
            self._reddit_next = max(self._reddit_next, now) + requests * self._reddit_gap

    def request_seconds(self, requests: float = 1.0) -> float:
        """Seconds the bucket takes, once empty, to allow ``requests`` more (its sustained pace).

        >>> Budget(per_minute=60, burst=10).request_seconds(2)
        2.0338983050847457
        """
        return requests / self.rate

    def observe(self, now: float, remaining: float | None, reset_seconds: float | None) -> None:
        """Take Reddit's count of the account's window, told just before ``now``.

        Spread what is left of the window (less the reserve) evenly until its reset;
        with nothing left, wait for the reset. Slower only, never faster than the share.
        """
        if remaining is None or reset_seconds is None:
            return
        left = remaining - self.reserve
        if left < 1:
            self.hold_until = max(self.hold_until, now + max(1.0, reset_seconds))
            return
        gap = reset_seconds / left
        self._reddit_gap = gap if gap > 1 / self.rate else 0.0
        if not self._reddit_gap:
            self._reddit_next = 0.0


@dataclass
class Pace:
    """The polling interval: fast while the game is active, stepping back to idle."""

    active: float  # seconds between reads while active
    idle: float  # seconds between reads when nothing happens
    hold: float  # seconds a tagged post keeps the game active
    interval: float = field(init=False)
    active_until: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        self.interval = self.idle

    def activity(self, now: float) -> None:
        """A tagged post was read: poll fast for ``hold`` seconds."""
        self.interval = self.active
        self.active_until = now + self.hold

    def quiet(self, now: float) -> None:
        """A read found nothing: once the hold is over, double the interval (up to idle)."""
        if now >= self.active_until:
            self.interval = min(self.idle, self.interval * 2)

    @property
    def is_active(self) -> bool:
        """Whether reads are faster than idle."""
        return self.interval < self.idle


@dataclass
class Cadence:
    """One kind of read, every ``every``-th poll interval; when it last ran."""

    name: str
    every: int
    capped: bool  # never less often than the idle interval (a first post after a quiet spell)
    requests: int = 1  # requests one read takes (new comments: one per listing and thread)
    last: float | None = None  # None: never ran, so due at once

    def seconds(self, interval: float, idle: float) -> float:
        """Seconds between two of these reads at a poll ``interval``."""
        seconds = interval * self.every
        return min(seconds, idle) if self.capped else seconds

    def interval(self, pace: Pace, least: float = 0.0) -> float:
        """Seconds between two of these reads at the present pace, ``least`` at least."""
        return max(least, self.seconds(pace.interval, pace.idle))

    def due(self, pace: Pace, least: float = 0.0) -> float:
        """When this read is next due."""
        return float("-inf") if self.last is None else self.last + self.interval(pace, least)


def reads_per_second(interval: float, idle: float, cadences: Iterable[Cadence]) -> float:
    """Requests a second the ``cadences`` ask at a poll ``interval`` (``idle`` caps them).

    >>> reads = [Cadence("comments", 1, capped=True, requests=2), Cadence("new", 2, capped=True)]
    >>> reads_per_second(5, 60, reads)  # 2 / 5 + 1 / 10
    0.5
    >>> reads_per_second(5, 6, reads)  # the new submissions are capped at 6 s
    0.5666666666666667
    """
    return sum(cadence.requests / cadence.seconds(interval, idle) for cadence in cadences)


class Plan:
    """The reads' intervals within ``limit`` requests a second, the lead read first.

    The lead read (new comments) sets how soon a post in a thread is answered, so it is
    paced first: ``active`` seconds apart while the game is active, as asked unless it
    alone would take more than ``lead_share`` of the limit. The trailing reads (new
    submissions, the inbox, the edit sweep) take what the lead leaves: at a fast pace
    they may be read less often than their ``every`` asks (:meth:`least`). The idle
    interval holds every read to the limit at once.

    >>> lead = Cadence("comments", 1, capped=True)
    >>> trailing = [Cadence("new", 1, capped=True), Cadence("inbox", 1, capped=True)]
    >>> plan = Plan(lead, trailing, limit=0.2, active=2.0, idle=58.0, lead_share=0.5)
    >>> [plan.active, plan.idle]  # the lead alone: 1 request each 10 s
    [10.0, 58.0]
    >>> plan.least(10.0)  # the other two share the other 0.1 a second
    20.0
    >>> plan.least(58.0)  # idle, their own interval is slow enough
    0.0
    """

    def __init__(
        self,
        lead: Cadence,
        trailing: Iterable[Cadence],
        *,
        limit: float,
        active: float,
        idle: float,
        lead_share: float,
    ) -> None:
        self.lead = lead
        self.trailing = list(trailing)
        self.limit = limit
        everything = [lead, *self.trailing]
        self.idle = fit_interval(idle, limit, lambda s: reads_per_second(s, s, everything))
        alone = fit_interval(
            min(active, self.idle), lead_share * limit, lambda s: lead.requests / s
        )
        self.active = min(self.idle, alone)
        self._least: dict[float, float] = {}

    def least(self, interval: float) -> float:
        """The trailing reads' least interval at a poll ``interval`` (0: as they ask)."""
        if interval not in self._least:
            room = self.limit - self.lead.requests / interval

            def load(least: float) -> float:
                return sum(
                    c.requests / max(least, c.seconds(interval, self.idle)) for c in self.trailing
                )

            fitted = 0.0
            if self.trailing and load(interval) > room:
                fitted = fit_interval(interval, max(room, 1e-6), load)
            self._least[interval] = fitted
        return self._least[interval]


def fit_interval(least: float, limit: float, load: Callable[[float], float]) -> float:
    """The shortest interval from ``least`` on whose ``load`` (falling as it grows) is
    within ``limit`` requests a second, to a tenth of a second.

    >>> fit_interval(2.0, 0.5, lambda seconds: 3 / seconds)  # 3 requests each 6 s
    6.0
    >>> fit_interval(10.0, 0.5, lambda seconds: 3 / seconds)  # already within
    10.0
    """
    if load(least) <= limit:
        return least
    low, high = least, least * 2
    while load(high) > limit:
        low, high = high, high * 2
    while high - low > 0.05:
        middle = (low + high) / 2
        low, high = (low, middle) if load(middle) <= limit else (middle, high)
    return round(high + 0.049, 1)
