"""Replies are never starved: over the whole allowed range of the ``[reddit]`` keys.

The real worker on the fake clock (``Live.run_until`` steps it as ``serve`` does),
real PRAW against the local Reddit, a steady stream of tagged comments: every reply
is posted once, within :meth:`~referee.live.worker.Worker.reply_wait` of the read
that made it ready, as the README's "The live bot" states.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from referee.testing.worker import SUB, Live, bot_replies, fake_reddit

REQUEST_SECONDS = 0.3  # each request takes this long on the fake clock
GAP = 20.0  # seconds between two tagged comments: three a minute, as in a lively game
POSTS = 12

reddit_keys = st.fixed_dictionaries(
    {
        "poll_seconds": st.sampled_from([5, 6, 10, 30, 60, 300]),
        "active": st.sampled_from([2.0, 5.0, 15.0, 1e9]),  # 1e9: as slow as poll_seconds
        "budget_share": st.sampled_from([0.2, 0.3, 0.6, 1.0]),
        "submissions_every": st.integers(1, 5),
        "inbox_every": st.integers(0, 5),
        "edits_every": st.integers(0, 5),
    }
)


def _config(keys: dict[str, float]) -> tuple[int, str]:
    poll = int(keys["poll_seconds"])
    active = min(keys["active"], poll)
    lines = [f"active_poll_seconds = {active}"] + [
        f"{key} = {keys[key]}"
        for key in ("budget_share", "submissions_every", "inbox_every", "edits_every")
    ]
    return poll, "\n".join(lines) + "\n"


@settings(max_examples=8, deadline=None, derandomize=True)
@example(  # the setting: every read due every few seconds
    keys={
        "poll_seconds": 5,
        "active": 5.0,
        "budget_share": 0.6,
        "submissions_every": 1,
        "inbox_every": 1,
        "edits_every": 1,
    }
)
@example(  # the least budget, the fastest reads asked
    keys={
        "poll_seconds": 5,
        "active": 2.0,
        "budget_share": 0.2,
        "submissions_every": 1,
        "inbox_every": 1,
        "edits_every": 1,
    }
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
            for n in range(POSTS):
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
