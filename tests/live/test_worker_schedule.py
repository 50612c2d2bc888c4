"""The worker's schedule on the fake clock: real PRAW, FakeReddit, the worker's own steps.

Each test drives the worker as ``serve`` does (``Live.run_until``: jump to the next
wake, step), so what is measured is the worker's schedule, not a timed run.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest

from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, Step, fake_reddit

HOUR = 3600.0
REQUEST_SECONDS = 0.3  # each request takes this long on the fake clock


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A running FakeReddit with three subreddits; PRAW's sleeps are recorded, not slept."""
    with fake_reddit(subreddits=(SUB, "b", "c")) as fake:
        yield fake


def _reads(steps: list[Step], source: str) -> list[float]:
    return [step.started for step in steps if source in step.sources]


def _gaps(times: list[float]) -> list[float]:
    return [round(b - a, 1) for a, b in itertools.pairwise(times)]


def _busiest_minute(steps: list[Step]) -> int:
    return max(sum(s.requests for s in steps if t <= s.started < t + 60) for t in _starts(steps))


def _starts(steps: list[Step]) -> list[float]:
    return [s.started for s in steps]


def _answer_delay(server: FakeReddit, post: str) -> float:
    (reply,) = server.replies_to(post)
    return float(reply["created_utc"]) - float(server.thing(post)["created_utc"])


def test_an_idle_worker_asks_at_most_five_requests_a_minute(server: FakeReddit, live) -> None:
    """Idle, the three subreddits cost one listing of each kind and the inbox per poll."""
    harness = live(subreddits=(SUB, "b", "c"))
    clock = server.clock
    harness.run_until(clock.now() + 600, REQUEST_SECONDS)  # start-up
    before, paths = server.count(), len(server.requests)
    harness.run_until(clock.now() + HOUR, REQUEST_SECONDS)
    per_minute = (server.count() - before) / (HOUR / 60)
    read = {r.path for r in server.requests[paths:]}
    assert {f"/r/{SUB}+b+c/comments", f"/r/{SUB}+b+c/new", "/message/unread"} == read
    assert 3.0 <= per_minute <= 5.0


def test_the_first_post_after_an_hour_of_silence_is_answered_within_poll_seconds(
    server: FakeReddit, live
) -> None:
    """Whenever a post comes after a quiet spell, its verdict lands within poll_seconds (60).

    Fifteen minutes of silence leave the worker as an hour does: idle since the tenth
    (the bench measures whole hours)."""
    harness = live(subreddits=(SUB, "b", "c"))
    thread = server.submit(SUB, "alice", "Scene", "Quiet now.")
    chance = random.Random(22)
    delays = []
    for _ in range(4):
        harness.run_until(server.clock.now() + 900 + chance.uniform(0, 60), REQUEST_SECONDS)
        post = server.comment(thread, "bob", "[[roll 1d20]]")
        harness.run_until(server.clock.now() + 90, REQUEST_SECONDS)
        delays.append(_answer_delay(server, post))
    assert max(delays) <= 60, delays


def test_a_tagged_post_speeds_reads_up_then_they_back_off_step_by_step(
    server: FakeReddit, live
) -> None:
    """Reads every 5 s while a tagged post is recent, then 10, 20, 40 and the idle 58 s."""
    harness = live(subreddits=(SUB, "b", "c"))
    clock = server.clock
    harness.run_until(clock.now() + 600)
    thread = server.submit(SUB, "alice", "Scene", "Fight!")
    harness.run_until(clock.now() + 30)
    server.comment(thread, "bob", "[[roll 1d20]]")
    steps = harness.run_until(clock.now() + 900)
    gaps = _gaps(_reads(steps, "comments"))
    fast = gaps.index(10.0)
    assert [5.0] * fast + [10.0, 20.0, 40.0, 58.0, 58.0] == gaps[: fast + 5]
    assert 300 <= 5 * fast <= 360  # fast for the hold after the post, about five minutes


def test_a_burst_of_100_posts_is_answered_in_order_once_and_within_the_budget(
    server: FakeReddit, live
) -> None:
    """100 tagged comments in one minute: every one answered once, oldest first, no minute
    above the 60 requests of the budget and its burst of 10, no ten minutes above 600,
    and the reads of new comments keep their pace meanwhile."""
    harness = live(subreddits=(SUB, "b", "c"))
    clock = server.clock
    harness.run_until(clock.now() + 600, REQUEST_SECONDS)
    thread = server.submit(SUB, "alice", "Battle", "Roll!")
    steps = harness.run_until(clock.now() + 5, REQUEST_SECONDS)
    posts = []
    for n in range(100):
        steps += harness.run_until(clock.now() + 0.6, REQUEST_SECONDS)
        posts.append(server.comment(thread, f"player{n % 7}", f"[[roll {n % 3 + 1}d6]]"))
    steps += harness.run_until(clock.now() + 600, REQUEST_SECONDS)
    replies = [(c["parent_id"], c["name"]) for c in server.comments_by(server.bot)]
    answered_in_order = [parent for parent, _ in sorted(replies, key=lambda r: int(r[1][3:], 36))]
    read_gaps = _gaps(_reads(steps, "comments"))[:60]
    assert (posts, 0) == (answered_in_order, server.refused)
    assert _busiest_minute(steps) <= 60 + 10
    assert sum(s.requests for s in steps) <= 600
    assert max(read_gaps) <= 5 + 1.2 + 3 * REQUEST_SECONDS  # a reply in flight, at most


def test_the_worker_slows_down_before_reddit_would_refuse(server: FakeReddit, live) -> None:
    """Another tool of the account has spent most of Reddit's window: the worker spreads
    what is left, waits for the reset, and is never answered 429."""
    harness = live(subreddits=(SUB, "b", "c"))
    clock = server.clock
    clock.advance(600 - clock.now() % 600)  # a window starts
    harness.run_until(clock.now() + 60, REQUEST_SECONDS)
    server.use_quota(server.quota - server.rate_limit()[0] - 40)
    thread = server.submit(SUB, "alice", "Battle", "Roll!")
    posts = [server.comment(thread, "bob", f"[[roll 1d{n + 4}]]") for n in range(50)]
    harness.run_until(clock.now() + 900, REQUEST_SECONDS)
    assert 0 == server.refused
    assert [1] * 50 == [len(server.replies_to(post)) for post in posts]


def test_watched_threads_share_the_budget_and_new_comments_keep_a_fast_pace(
    server: FakeReddit, live
) -> None:
    """The most watched threads a budget_share of 1 allows (the subreddits' listing and
    four threads): new comments are still read within 12 s while the game is active, and
    every read together takes at most 60% of the budget's 99 requests a minute."""
    threads = [server.submit(SUB, "alice", f"Scene {n}", "Go.") for n in range(4)]
    names = ", ".join(f'"{t[3:]}"' for t in threads)
    harness = live(
        f"threads = [{names}]\nbudget_share = 1.0\nactive_poll_seconds = 2\n"
        "submissions_every = 1\ninbox_every = 1\nedits_every = 1\n"
    )
    worker = harness.worker
    active = worker.pace.active
    least = worker.plan.least(active)
    per_second = 5 / active + 3 / max(least, active)  # listing and threads; the other three
    assert (True, True) == (active <= 12, per_second * 60 <= 0.6 * 99)
