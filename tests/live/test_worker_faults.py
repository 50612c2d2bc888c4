"""Exactly once under faults: injected HTTP failures, and a worker process killed at random."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.store.ledger import verify
from referee.testing import make_campaign
from referee.testing.reddit_server import FakeReddit, Fault
from referee.testing.worker import (
    POLL,
    Live,
    bot_replies,
    fake_reddit,
    reddit_section,
    seed_tagged,
    worker_env,
)


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A running FakeReddit with one subreddit; PRAW's sleeps are recorded, not slept."""
    with fake_reddit() as fake:
        yield fake


FAULTS = [
    pytest.param("POST /api/comment", Fault.TOO_MANY_REQUESTS, 2, id="reply-429"),
    pytest.param("POST /api/comment", Fault.SERVER_ERROR, 2, id="reply-500"),
    pytest.param("POST /api/comment", Fault.SERVICE_UNAVAILABLE, 2, id="reply-503"),
    pytest.param("POST /api/comment", Fault.TIMEOUT, 2, id="reply-timeout"),
    pytest.param("POST /api/comment", Fault.LOST_RESPONSE, 2, id="reply-lost"),
    pytest.param("POST /api/comment", Fault.LOST_RESPONSE_500, 2, id="reply-lost-500"),
    pytest.param("POST /api/comment", Fault.RATELIMIT, 1, id="reply-ratelimit"),
    pytest.param("GET /r/*/comments", Fault.TOO_MANY_REQUESTS, 2, id="listing-429"),
    pytest.param("GET /r/*/comments", Fault.SERVER_ERROR, 4, id="listing-500"),
    pytest.param("GET /r/*/comments", Fault.TIMEOUT, 3, id="listing-timeout"),
    pytest.param("GET /r/*/comments", Fault.LOST_RESPONSE, 3, id="listing-lost"),
    pytest.param("GET /user/*/comments", Fault.LOST_RESPONSE, 3, id="lookup-lost"),
]


@pytest.mark.parametrize("driver", ["cycles", "steps"])
@pytest.mark.parametrize(("route", "fault", "times"), FAULTS)
def test_injected_faults_leave_no_duplicate_and_no_miss(
    server: FakeReddit, tmp_path: Path, route: str, fault: Fault, times: int, driver: str
) -> None:
    """Under each fault every tagged post ends with exactly one reply: in cycles a poll
    apart (``run --once``), and in the worker's own steps at the active pace."""
    tagged = seed_tagged(server, threads=2, per_thread=4)
    live = Live(server, tmp_path, "timeout = 0.3\n")
    try:
        # Faults on the bot's own comments need an uncertain reply to make it look.
        if route.startswith("GET /user"):
            server.inject("POST /api/comment", Fault.LOST_RESPONSE_500)
        server.inject(route, fault, times=times, retry_after=5)
        for _ in range(40):
            if driver == "cycles":
                live.worker.cycle()
                server.clock.advance(POLL)
            else:
                live.run_until(server.clock.now() + POLL, request_seconds=0.3)
            server.release()
            if not live.worker.open_posts and bot_replies(server).keys() >= set(tagged):
                break
    finally:
        live.close()
    replies = bot_replies(server)
    duplicates = {post: n for post, n in replies.items() if n > 1}
    missed = [post for post in tagged if post not in replies]
    assert ({}, [], 0) == (duplicates, missed, server.pending_faults())


def _await_replies(
    server: FakeReddit, process: subprocess.Popen[bytes], target: int, more: int
) -> bool:
    """Wait (bounded) until the bot has ``target`` replies, or a moment when ``more`` is 0.

    Returns False if the worker exited first. Each check also waits on the process, so
    nothing sleeps blindly.
    """
    deadline = time.monotonic() + 30
    settle = time.monotonic() + 0.25  # with more == 0: kill within the first quarter second
    while time.monotonic() < deadline:
        try:
            process.wait(timeout=0.005)
            return False
        except subprocess.TimeoutExpired:
            pass
        if (more == 0 and time.monotonic() >= settle) or (
            more and len(bot_replies(server)) >= target
        ):
            return True
    return True


@pytest.fixture
def roomy_server() -> Iterator[FakeReddit]:
    """A FakeReddit whose quota outlasts hundreds of requests on a clock standing still
    (the worker processes here run on the wall clock; prawcore would pace them)."""
    with fake_reddit(quota=1_000_000_000) as fake:
        yield fake


@pytest.mark.slow
def test_sigkill_at_random_points_loses_and_doubles_nothing(
    roomy_server: FakeReddit, tmp_path: Path
) -> None:
    """Kill `referee run --once` with SIGKILL at random moments over 200+ tags, restart it
    each time: in the end every tag is answered exactly once and rolled exactly once."""
    server = roomy_server
    tagged = seed_tagged(server, threads=4, per_thread=50)  # 204 tags in 204 posts
    make_campaign(tmp_path, extra_config=reddit_section(server, "timeout = 2.0\n")).close()
    command = [sys.executable, "-m", "referee", "--campaign", str(tmp_path), "run", "--once"]
    chance = random.Random(20260214)  # a fixed seed: the same kill points on every run
    kills = finished = 0
    killed_mid_delivery = 0  # kills after which some but not all tags were answered
    log_path = tmp_path / "worker.log"
    for run in range(16):
        with log_path.open("a") as log_file:
            process = subprocess.Popen(
                command,
                env=worker_env(server),
                cwd=tmp_path,
                stdout=subprocess.DEVNULL,
                stderr=log_file,
            )
        try:
            if run < 15:
                # Kill at a point of progress, not of time, so every machine speed sees the
                # same story: right after `more` new replies land (0: during start-up or
                # resolution, before any reply of this run).
                more = chance.randint(0, 12)
                if _await_replies(server, process, len(bot_replies(server)) + more, more):
                    process.send_signal(signal.SIGKILL)
                    process.wait(timeout=10)
                    kills += 1
                    killed_mid_delivery += 0 < len(bot_replies(server)) < len(tagged)
                    continue
            else:
                process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        if process.returncode == 0 and bot_replies(server).keys() >= set(tagged):
            finished += 1
            break
    replies = bot_replies(server)
    duplicates = {post: n for post, n in replies.items() if n > 1}
    missed = [post for post in tagged if post not in replies]
    campaign = make_campaign(tmp_path)
    try:
        rows = list(campaign.store.ledger)
        records = list(campaign.store.table("posts").values())
    finally:
        campaign.close()
    states = Counter(r["delivery"]["state"] for r in records)
    assert 204 == len(tagged)
    assert (1, {}, []) == (finished, duplicates, missed)
    assert (204, {"delivered": 204}, True) == (len(rows), dict(states), verify(rows, None).ok)
    log = log_path.read_text()
    print(
        f"kills={kills} killed_mid_delivery={killed_mid_delivery} tags={len(tagged)} "
        f"replies_found_after_crash={log.count('event=reply_found')} "
        f"intents_replayed={log.count('event=reply_not_found')}"
    )
    assert 15 == kills
    assert killed_mid_delivery >= 10  # the kills landed while replying, not just at start-up


@pytest.mark.slow
def test_sigkill_of_the_scheduled_bot_loses_and_doubles_nothing(
    roomy_server: FakeReddit, tmp_path: Path
) -> None:
    """Kill `referee run` (the scheduler: a read or one reply a step, at the active pace)
    with SIGKILL after a random number of replies, restart it, and end with `run --once`:
    every tag is answered exactly once and rolled exactly once."""
    server = roomy_server
    tagged = seed_tagged(server, threads=2, per_thread=14)  # 30 tags in 30 posts
    extra = reddit_section(server, "timeout = 2.0\nbudget_share = 1.0\n", poll=5)
    make_campaign(tmp_path, extra_config=extra).close()
    base = [sys.executable, "-m", "referee", "--campaign", str(tmp_path), "run"]
    chance = random.Random(20260222)
    kills = 0
    for _ in range(4):
        process = subprocess.Popen(
            base, env=worker_env(server), cwd=tmp_path, stderr=subprocess.DEVNULL
        )
        try:
            more = chance.randint(1, 6)
            if _await_replies(server, process, len(bot_replies(server)) + more, more):
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=10)
                kills += 1
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    final = subprocess.run(
        [*base, "--once"], env=worker_env(server), cwd=tmp_path, capture_output=True, timeout=60
    )
    replies = bot_replies(server)
    campaign = make_campaign(tmp_path)
    try:
        rows = list(campaign.store.ledger)
    finally:
        campaign.close()
    assert (4, 0) == (kills, final.returncode)
    assert ({}, []) == (
        {post: n for post, n in replies.items() if n > 1},
        [post for post in tagged if post not in replies],
    )
    assert (30, True) == (len(rows), verify(rows, None).ok)
