"""Replies are never starved: over the whole allowed range of the ``[reddit]`` keys.

The real worker on the fake clock (``Live.run_until`` steps it as ``serve`` does),
real PRAW against the local Reddit, a steady stream of tagged comments in threads the
bot is answering: every comment is answered once, 95% of them within 15 s of being
posted (the README's bound), and every reply within
:meth:`~referee.live.worker.Worker.reply_wait` of the read that made it ready.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from referee.pipeline.campaign import MAX_ACTIVE_POLL, comment_sources_allowed
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, Live, Step, bot_replies, fake_reddit

REQUEST_SECONDS = 0.3  # each request takes this long on the fake clock
GAP = 20.0  # seconds between two tagged comments on average: three a minute, a lively game
BOUND = 15.0  # seconds from a comment to its verdict, 95% of them, while a thread is active
ELSEWHERE = "elsewhere"  # a subreddit not watched, whose threads the bot watches one by one
EVERY_READ = {"submissions_every": 1, "inbox_every": 1, "edits_every": 1}

reddit_keys = st.fixed_dictionaries(
    {
        "poll_seconds": st.sampled_from([5, 6, 10, 30, 60, 300]),
        "active": st.sampled_from([2.0, 5.0, MAX_ACTIVE_POLL]),
        "budget_share": st.sampled_from([0.2, 0.3, 0.6, 1.0]),
        "submissions_every": st.integers(1, 5),
        "inbox_every": st.integers(0, 5),
        "edits_every": st.integers(0, 5),
    }
)


def _config(keys: dict[str, float], threads: list[str] = ()) -> tuple[int, str]:
    """poll_seconds and the other lines of ``[reddit]`` for ``keys`` (``threads`` watched)."""
    poll = int(keys["poll_seconds"])
    active = min(keys["active"], poll)
    lines = [f"active_poll_seconds = {active}"] + [
        f"{key} = {keys[key]}"
        for key in ("budget_share", "submissions_every", "inbox_every", "edits_every")
        if key in keys
    ]
    if threads:
        lines.append("threads = [" + ", ".join(f'"{t[3:]}"' for t in threads) + "]")
    return poll, "\n".join(lines) + "\n"


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[round(0.95 * (len(ordered) - 1))]


@settings(max_examples=8, deadline=None, derandomize=True)
@example(  # the setting: every read due every few seconds
    keys={"poll_seconds": 5, "active": 5.0, "budget_share": 0.6, **EVERY_READ}
)
@example(  # the least budget, the fastest reads asked
    keys={"poll_seconds": 5, "active": 2.0, "budget_share": 0.2, **EVERY_READ}
)
@given(keys=reddit_keys)
def test_a_ready_reply_is_posted_within_the_stated_wait_at_every_setting(
    keys: dict[str, float], tmp_path_factory
) -> None:
    """Each reply of a steady stream goes out once, within reply_wait of being ready."""
    poll, extra = _config(keys)
    folder: Path = tmp_path_factory.mktemp("campaign")
    with fake_reddit() as server:
        live = Live(server, folder, extra, poll=poll)
        try:
            thread = server.submit(SUB, "gm", "Scene", "The scene opens.")
            steps = live.run_until(server.clock.now() + 2 * poll, REQUEST_SECONDS)
            posts = []
            for n in range(12):
                posts.append(server.comment(thread, f"player{n % 5}", "I try [[roll 1d20]]"))
                steps += live.run_until(server.clock.now() + GAP, REQUEST_SECONDS)
            steps += live.run_until(server.clock.now() + 2 * poll + 600, REQUEST_SECONDS)
            worker = live.worker
            ready: dict[str, tuple[float, int]] = {}  # post: when ready, its place in line
            for step in steps:
                for place, post in enumerate(step.opened, start=1):
                    ready.setdefault(post, (step.ended, place))
            replies = bot_replies(server)
            assert {post: 1 for post in posts} == {post: replies[post] for post in posts}
            late = {}
            for post in posts:
                (reply,) = [c for c in server.replies_to(post) if c["author"] == server.bot]
                at, place = ready[post]
                waited = float(reply["created_utc"]) - at
                # Each request of the reads and replies ahead takes REQUEST_SECONDS too.
                bound = worker.reply_wait(place) + 2 * (place + 1) * REQUEST_SECONDS
                if waited > bound:
                    late[post] = (round(waited, 1), round(bound, 1))
            assert {} == late, (keys, worker.pace)
        finally:
            live.close()


# The corners of the allowed range: poll_seconds from 5 (no upper limit: 300 stands for
# any slow idle pace), active_poll_seconds from 2 to 12 (at most poll_seconds),
# budget_share from 0.2 to 1; either the default reads with the subreddits alone, or
# every read each interval with as many watched threads as the share allows.
CORNERS = [
    (poll, active, share, busy)
    for poll, share, busy in itertools.product((5, 300), (0.2, 0.6, 1.0), (False, True))
    for active in (2.0, min(MAX_ACTIVE_POLL, poll))
]


def _steady_stream(
    server: FakeReddit, live: Live, threads: list[str], chance: random.Random, minutes: float
) -> tuple[dict[str, float], list[Step]]:
    """Tagged comments at random (three a minute) in ``threads`` and a GM's secret roll
    now and then, for ``minutes``; each comment and when it was posted."""
    clock = server.clock
    end = clock.now() + minutes * 60
    posted: dict[str, float] = {}
    steps: list[Step] = []
    at = clock.now() + chance.expovariate(1 / GAP)
    while at < end:
        steps += live.run_until(at, REQUEST_SECONDS)
        if chance.random() < 0.15:
            server.send_message("gm", server.bot, "secret", "Ambush [[roll 1d20]]")
        else:
            thread = chance.choice(threads)
            post = server.comment(thread, f"player{chance.randint(1, 6)}", "I try [[roll 1d20]]")
            posted[post] = clock.now()
        at += chance.expovariate(1 / GAP)
    steps += live.run_until(end + 300, REQUEST_SECONDS)
    return posted, steps


@pytest.mark.parametrize(("poll", "active", "share", "busy"), CORNERS)
def test_95_percent_of_comments_in_an_active_thread_are_answered_within_15_s(
    poll: int, active: float, share: float, busy: bool, tmp_path: Path
) -> None:
    """At each corner of the allowed range, once the bot answers in a thread, a steady
    stream of tagged comments there is answered once each, 95% within 15 s."""
    with fake_reddit(subreddits=(SUB, ELSEWHERE)) as server:
        scene = server.submit(SUB, "gm", "Scene", "The scene opens.")
        watched = []
        if busy:  # as many watched threads as the share allows, besides the subreddit
            watched = [
                server.submit(ELSEWHERE, "gm", f"Side {n}", "Go.")
                for n in range(comment_sources_allowed(share) - 1)
            ]
        keys = {"poll_seconds": poll, "active": active, "budget_share": share}
        if busy:
            keys.update(EVERY_READ)
        poll, extra = _config(keys, watched)
        live = Live(server, tmp_path, extra, poll=poll)
        try:
            live.run_until(server.clock.now() + 2 * poll, REQUEST_SECONDS)  # idle
            opener = server.comment(scene, "player1", "We begin [[roll 1d20]]")
            while not bot_replies(server)[opener]:  # the game becomes active
                live.run_until(server.clock.now() + 5, REQUEST_SECONDS)
            posted, _ = _steady_stream(
                server, live, [scene, *watched], random.Random(poll + share), minutes=8
            )
            replies = bot_replies(server)
            assert {post: 1 for post in posted} == {post: replies[post] for post in posted}
            waits = []
            for post, at in posted.items():
                (reply,) = [c for c in server.replies_to(post) if c["author"] == server.bot]
                waits.append(float(reply["created_utc"]) - at)
            assert _p95(waits) <= BOUND, (sorted(waits)[-3:], live.worker.pace)
        finally:
            live.close()
