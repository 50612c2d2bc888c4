"""The request budget and the polling pace, on a clock the tests move."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.live.schedule import BURST, Budget, Cadence, Pace, Plan, reads_per_second


def _busiest(sent: list[tuple[float, int]], seconds: float) -> int:
    """The most requests in any ``seconds`` [t, t + seconds) of a (time, requests) log."""
    return max(sum(n for u, n in sent if t <= u < t + seconds) for t, _ in sent)


@settings(max_examples=60, deadline=None)
@given(
    per_minute=st.integers(min_value=20, max_value=100),
    waits=st.lists(st.floats(min_value=0, max_value=30), min_size=1, max_size=400),
    sizes=st.lists(st.integers(min_value=1, max_value=3), min_size=1, max_size=400),
)
def test_a_worker_that_waits_for_the_budget_never_exceeds_its_share(
    per_minute: int, waits: list[float], sizes: list[int]
) -> None:
    """Whatever the pauses between requests, any ten minutes (Reddit's window) hold at
    most ten times per_minute of them, and any one minute per_minute and the burst."""
    budget = Budget(per_minute)
    now, sent = 0.0, []
    for wait, size in zip(waits, sizes * len(waits), strict=False):
        now = budget.ready_at(now + wait)
        budget.spend(now, size)
        sent.append((now, size))
    # A step may spend past the bucket (a read of several requests): by its last one.
    assert _busiest(sent, 600) <= 10 * per_minute + 2
    assert _busiest(sent, 60) <= per_minute + BURST + 2


def test_a_full_bucket_sends_a_burst_at_once_then_paces() -> None:
    """Ten requests go at once (a read and its replies), the next at the sustained rate:
    60 a minute over ten minutes, less the burst."""
    budget = Budget(60, burst=10)
    for _ in range(10):
        assert 0.0 == budget.ready_at(0.0)
        budget.spend(0.0, 1)
    assert 600 / 590 == budget.ready_at(0.0)


def test_the_share_of_0_2_keeps_19_requests_a_minute_sustained() -> None:
    """The burst is spread over Reddit's ten-minute window, not taken from each minute."""
    assert 19.0 == round(Budget(20).rate * 60, 6)


def test_a_spent_reddit_window_holds_every_request_until_its_reset() -> None:
    """Reddit's remaining count down to the reserve: nothing until the window resets."""
    budget = Budget(60)
    budget.observe(100.0, remaining=8.0, reset_seconds=240.0)
    assert 340.0 == budget.ready_at(100.0)


def test_a_low_reddit_window_spreads_what_is_left_until_the_reset() -> None:
    """Reddit's remaining 40 (30 past the reserve) with 300 s to go: one request per 10 s."""
    budget = Budget(60)
    budget.observe(0.0, remaining=40.0, reset_seconds=300.0)
    budget.spend(0.0, 1)
    assert 10.0 == budget.ready_at(0.0)


def test_a_roomy_reddit_window_leaves_the_share_alone() -> None:
    """With plenty left in Reddit's window the budget's own pace applies."""
    budget = Budget(60, burst=10)
    budget.observe(0.0, remaining=990.0, reset_seconds=600.0)
    budget.spend(0.0, 1)
    assert 0.0 == budget.ready_at(0.0)


def test_pace_is_fast_while_active_then_doubles_back_to_idle() -> None:
    """A tagged post: active interval for the hold, then one doubling per quiet read."""
    pace = Pace(active=5, idle=58, hold=300)
    pace.activity(0.0)
    intervals = []
    now = 0.0
    while now < 600:
        now += pace.interval
        pace.quiet(now)
        intervals.append(pace.interval)
    assert [5] * 59 + [10, 20, 40, 58] == intervals[:63]


def test_capped_cadences_are_never_slower_than_idle() -> None:
    """Submissions and the inbox are read every Nth interval, but at least every idle one."""
    pace = Pace(active=5, idle=58, hold=300)
    new, sweep = Cadence("new", every=3, capped=True), Cadence("edits", every=5, capped=False)
    idle = (new.interval(pace), sweep.interval(pace))
    pace.activity(0.0)
    assert ((58, 290), (15, 25)) == (idle, (new.interval(pace), sweep.interval(pace)))


def test_new_comments_keep_their_pace_and_the_other_reads_make_room() -> None:
    """Every read asked each 2 s on 0.2 requests a second: new comments get half (every
    10 s), the other three share the rest, and all four stay within the limit."""
    lead = Cadence("comments", 1, capped=True)
    trailing = [
        Cadence("new", 1, capped=True),
        Cadence("inbox", 1, capped=True),
        Cadence("edits", 1, capped=False),
    ]
    plan = Plan(lead, trailing, limit=0.2, active=2.0, idle=58.0, lead_share=0.5)
    least = plan.least(plan.active)
    load = 1 / plan.active + sum(
        1 / max(least, c.seconds(plan.active, plan.idle)) for c in trailing
    )
    assert (10.0, 30.0) == (plan.active, least)
    assert load <= 0.2


def test_at_the_idle_pace_every_read_keeps_its_own_interval() -> None:
    """Idle, the reads fit the limit together and none is spaced further."""
    lead = Cadence("comments", 1, capped=True, requests=2)
    trailing = [Cadence("new", 2, capped=True), Cadence("edits", 5, capped=False)]
    plan = Plan(lead, trailing, limit=0.2, active=5.0, idle=58.0, lead_share=0.5)
    assert 0.0 == plan.least(plan.idle)
    assert reads_per_second(plan.idle, plan.idle, [lead, *trailing]) <= 0.2


@settings(max_examples=80, deadline=None)
@given(
    limit=st.floats(min_value=0.05, max_value=2.0),
    active=st.floats(min_value=2.0, max_value=12.0),
    idle=st.floats(min_value=3.0, max_value=600.0),
    requests=st.integers(min_value=1, max_value=6),
    everies=st.lists(st.integers(min_value=1, max_value=6), min_size=0, max_size=3),
)
def test_the_plan_never_asks_more_than_its_limit_at_any_pace(
    limit: float, active: float, idle: float, requests: int, everies: list[int]
) -> None:
    """At every pace from active to idle the reads ask at most ``limit`` requests a second."""
    lead = Cadence("comments", 1, capped=True, requests=requests)
    trailing = [Cadence(f"r{n}", every, capped=n != 2) for n, every in enumerate(everies)]
    plan = Plan(lead, trailing, limit=limit, active=active, idle=idle, lead_share=0.5)
    interval = plan.active
    while True:
        least = plan.least(interval)
        load = requests / interval + sum(
            c.requests / max(least, c.seconds(interval, plan.idle)) for c in trailing
        )
        assert load <= limit * 1.0001, (interval, least)
        if interval >= plan.idle:
            break
        interval = min(plan.idle, interval * 2)
