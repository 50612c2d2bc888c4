"""When the live worker may ask Reddit, and how often it reads: the budget and the pace.

Pure bookkeeping over times the caller passes in (seconds on any clock), so the worker's
schedule runs the same on the wall clock and on a simulated one::

    Budget     a token bucket that holds the worker to its share of Reddit's limit,
               and slows it further when Reddit's x-ratelimit headers say the
               account's window is running out (other tools of the account count too)
    Pace       the polling interval: ``active`` seconds while the game is active (a
               tagged post within ``hold`` seconds), then doubling at each quiet read
               back to ``idle``
    Cadence    one kind of read (new comments, new submissions, the inbox, the edit
               sweep): every ``every``-th poll interval, and, when ``capped``, never
               slower than the idle interval

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

from dataclasses import dataclass, field

# Queries a minute Reddit allows an OAuth client (averaged over its ten-minute window).
REDDIT_PER_MINUTE = 100
# Requests the bucket holds when full: a read and the replies it found go out at once.
BURST = 10
# Requests of Reddit's window the worker leaves unspent: a restart's first look for
# replies it may have posted, and other tools of the same account.
RESERVE = 10


class Budget:
    """At most ``per_minute`` requests in any minute, and never past Reddit's window.

    A token bucket of ``burst`` requests refilled at ``per_minute - burst`` a minute:
    whatever the order of requests, any 60 seconds hold at most ``per_minute``.

    >>> budget = Budget(per_minute=60, burst=10)
    >>> budget.spend(0.0, 10)
    >>> budget.ready_at(0.0)  # one request refills in 60 / 50 seconds
    1.2
    >>> budget.observe(0.0, remaining=10.0, reset_seconds=300)  # Reddit's window is spent
    >>> budget.ready_at(0.0)
    300.0
    """

    def __init__(self, per_minute: float, *, burst: int = BURST, reserve: int = RESERVE) -> None:
        if per_minute <= burst:
            raise ValueError(f"a budget of {per_minute} a minute leaves nothing past the burst")
        self.per_minute = per_minute
        self.burst = burst
        self.reserve = reserve
        self.rate = (per_minute - burst) / 60.0  # requests a second, sustained
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
    last: float | None = None  # None: never ran, so due at once

    def interval(self, pace: Pace) -> float:
        """Seconds between two of these reads at the present pace."""
        seconds = pace.interval * self.every
        return min(seconds, pace.idle) if self.capped else seconds

    def due(self, pace: Pace) -> float:
        """When this read is next due."""
        return float("-inf") if self.last is None else self.last + self.interval(pace)
