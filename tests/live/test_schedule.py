"""The request budget and the polling pace, on a clock the tests move."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.live.schedule import Budget, Cadence, Pace


def _busiest_minute(sent: list[tuple[float, int]]) -> int:
    """The most requests in any 60 seconds [t, t + 60) of a (time, requests) log."""
    return max(sum(n for u, n in sent if t <= u < t + 60) for t, _ in sent)


@settings(max_examples=60, deadline=None)
@given(
    per_minute=st.integers(min_value=20, max_value=100),
    waits=st.lists(st.floats(min_value=0, max_value=30), min_size=1, max_size=300),
)
def test_a_worker_that_waits_for_the_budget_never_exceeds_its_share(
    per_minute: int, waits: list[float]
) -> None:
    """Whatever the pauses between requests, any minute holds at most per_minute of them."""
    budget = Budget(per_minute)
    now, sent = 0.0, []
    for wait in waits:
        now = budget.ready_at(now + wait)
        budget.spend(now, 1)
        sent.append((now, 1))
    assert _busiest_minute(sent) <= per_minute


def test_a_full_bucket_sends_a_burst_at_once_then_paces() -> None:
    """Ten requests go at once (a read and its replies), the next at the sustained rate."""
    budget = Budget(60, burst=10)
    for _ in range(10):
        assert 0.0 == budget.ready_at(0.0)
        budget.spend(0.0, 1)
    assert 1.2 == round(budget.ready_at(0.0), 6)


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
