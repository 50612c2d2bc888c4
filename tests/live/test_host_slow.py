"""``referee host``: a slow tag in one campaign does not hold up the others' replies.

The host steps its campaigns one at a time, so a post's work delays whatever waits
behind it. The fake clock is charged for that work as the step budgets bound it: a
step of :class:`~referee.base.limits.Limits` is about a microsecond, and a post that
opens the allowance for a trikus test's chances is charged the whole allowance (the
most such a post may spend), however little it took. The chances already counted for a
test of the same shape are forgotten before each post, as a GM varying the shapes
would make them.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from itertools import islice
from pathlib import Path

import pytest

import referee.pipeline.flow
from referee.base.effort import Effort, metered
from referee.base.limits import DEFAULT_LIMITS
from referee.live.parts import post_rank
from referee.store.ledger import verify
from referee.store.store import Store
from referee.systems.trikus import chance
from referee.testing.host import Rig, host_campaign
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import bot_replies, fake_reddit

SUBS = ("ashes", "bells", "crows")
STEP_SECONDS = 1e-6  # Limits: a step is about a microsecond
# The most one post may cost: its own steps and its tests' chances.
PER_POST = (DEFAULT_LIMITS.max_post_steps + DEFAULT_LIMITS.max_post_chance_steps) * STEP_SECONDS
REPLY_BOUND = 15.0  # seconds: the README's bound on 95% of the replies
ROUNDS = "abcdefgh"  # one slow test every 30 s of the four minutes, each its own party
PARTIES = "abcdefghijklmnop"  # or four at once every minute: sixteen parties
MASTERS = [
    {
        "name": f"{name}{round_}",
        "owner": name.lower(),
        "tier": "master",
        "light_sides": ["wise"],
        "dark_sides": ["proud", "cold", "cruel"],
        "morale": 2,
        "light": 1,
    }
    for round_ in PARTIES
    for name in ("Ada", "Bo", "Cy", "Di")
]


def slow_post(round_: str) -> str:
    """A GM post opening a test of a fresh party against 5 dice and declaring for all
    four: its chances are the costliest work one tag may do."""
    names = [f"{name}{round_}" for name in ("Ada", "Bo", "Cy", "Di")]
    return f"[[open test 5 {', '.join(names)}]] " + " ".join(f"[[declare {n}]]" for n in names)


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A FakeReddit with the slow campaign's subreddit and three ordinary ones."""
    with fake_reddit(subreddits=("slow", *SUBS)) as fake:
        yield fake


def _charging(
    server: FakeReddit, charged: list[float]
) -> Callable[[int], AbstractContextManager[Effort]]:
    """``metered`` for the pipeline's posts, charging the fake clock for each post."""

    @contextmanager
    def charged_meter(budget: int) -> Iterator[Effort]:
        chance._KEPT.clear()  # as if each test were a new shape: counted afresh
        with metered(budget) as post:
            yield post
        sides = (post.sides or {}).values()
        cost = (post.spent + sum(side.budget for side in sides)) * STEP_SECONDS
        charged.append(cost)
        server.clock.advance(cost)

    return charged_meter


def _play(
    server: FakeReddit, tmp_path: Path, slow: bool, *, burst: int = 1, every: float = 30.0
) -> list[float]:
    """Four minutes of play: a post every 10 s in each ordinary campaign, and the slow
    campaign's GM opening ``burst`` tests at once (each its own post, the first in a new
    scene) every ``every`` s (``slow``) or rolling a die, once the game is active (the
    first post after a quiet spell may wait up to poll_seconds). The ordinary posts'
    seconds from post to verdict; every post answered once."""
    folders = [host_campaign(server, tmp_path / "slow", "slow", system="trikus", sheets=MASTERS)]
    folders += [host_campaign(server, tmp_path / sub, sub) for sub in SUBS]
    rig = Rig(server, tmp_path, (), folders=folders)
    clock = server.clock
    parties = iter(PARTIES)
    try:
        threads = {
            sub: server.submit(sub, "gm", "Scene", "[[roll 1d4]]") for sub in ("slow", *SUBS)
        }
        posts = list(threads.values())
        rig.run_until(clock.now() + 90, request_seconds=0.2)  # answered: the game is active
        start = clock.now()
        due = {sub: start + 3.0 * n for n, sub in enumerate(("slow", *SUBS))}
        posted: dict[str, float] = {}
        while clock.now() < start + 240:
            for sub in ("slow", *SUBS):
                if due[sub] > clock.now():
                    continue
                if sub == "slow":
                    party = next(parties)
                    body = slow_post(party) if slow else "[[roll 1d6]]"
                    scene = server.submit(sub, "gm", f"Scene {party}", body)
                    posts.append(scene)
                    for party in islice(parties, burst - 1):
                        body = slow_post(party) if slow else "[[roll 1d6]]"
                        posts.append(server.comment(scene, "gm", body))
                    due[sub] += every
                else:
                    posts.append(server.comment(threads[sub], "bob", "[[roll 1d8+1]]"))
                    posted[posts[-1]] = clock.now()
                    due[sub] += 10
            rig.run_until(clock.now() + 1.0, request_seconds=0.2)
        rig.run_until(clock.now() + 120, request_seconds=0.2)
    finally:
        rig.close()
    replies = {c["parent_id"]: c["created_utc"] for c in server.comments_by(server.bot)}
    waits = sorted(replies[post] - at for post, at in posted.items() if post in replies)
    assert (True, Counter(dict.fromkeys(posts, 1))) == (len(posted) > 60, bot_replies(server))
    return waits


@pytest.mark.slow
def test_a_slow_tag_does_not_hold_up_the_other_campaigns(
    server: FakeReddit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one campaign's GM opens a test of the costliest chances every 30 s, every
    post is answered once, the other campaigns' replies come within the README's 15 s
    (95% of them), and none later by more than one post's bound than in the same play
    without the slow tags."""
    charged: list[float] = []
    monkeypatch.setattr(referee.pipeline.flow, "metered", _charging(server, charged))
    waits = _play(server, tmp_path / "slow-play", slow=True)
    least = DEFAULT_LIMITS.max_post_chance_steps * STEP_SECONDS
    slow_posts = [cost for cost in charged if cost >= least]
    with fake_reddit(subreddits=("slow", *SUBS)) as calm:
        monkeypatch.setattr(referee.pipeline.flow, "metered", _charging(calm, []))
        baseline = _play(calm, tmp_path / "calm-play", slow=False)
    assert len(ROUNDS) == len(slow_posts)  # each charged its whole allowance
    p95 = statistics.quantiles(waits, n=20, method="inclusive")[18]
    assert p95 <= REPLY_BOUND, (p95, waits)
    assert max(waits) <= max(baseline) + PER_POST, (max(waits), max(baseline), PER_POST)


@pytest.mark.slow
def test_a_burst_of_slow_tags_does_not_hold_up_the_other_campaigns(
    server: FakeReddit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one campaign's GM opens four tests of the costliest chances at once every
    minute (each its own post), every post is answered once and the other campaigns'
    replies still come within the README's 15 s (95% of them): the host lets them go
    between the slow posts, not after the whole burst."""
    charged: list[float] = []
    monkeypatch.setattr(referee.pipeline.flow, "metered", _charging(server, charged))
    waits = _play(server, tmp_path, slow=True, burst=4, every=60.0)
    least = DEFAULT_LIMITS.max_post_chance_steps * STEP_SECONDS
    assert 4 * 4 == len([cost for cost in charged if cost >= least])  # each the whole allowance
    p95 = statistics.quantiles(waits, n=20, method="inclusive")[18]
    assert p95 <= REPLY_BOUND, (p95, waits)


def test_a_host_stopped_midway_through_a_burst_answers_each_post_once(
    server: FakeReddit, tmp_path: Path
) -> None:
    """Killed while a campaign's burst is half refereed, the host has not moved that
    campaign's cursor past a post it did not referee; started again, it answers every
    post of the burst once and rolls each once."""
    rig = Rig(server, tmp_path, ("slow", "ashes"))
    clock = server.clock
    try:
        rig.run_until(clock.now() + 60)  # start-up: the moderators, the first reads
        thread = server.submit("slow", "alice", "Scene", "Set the scene.")
        burst = [server.comment(thread, "bob", f"[[roll 1d{n + 4}]]") for n in range(6)]
        account = rig.host.accounts["bot"]
        (worker,) = [w for w in rig.host.workers if w.subreddits == ("slow",)]
        for _ in range(200):  # step as serve_host does, until half the burst is refereed
            clock.advance(max(0.0, account.next_wake() - clock.now()))
            account.step()
            if sum(post in worker.posts for post in burst) == 3:
                break
        refereed = [post in worker.posts for post in burst]
        reached = worker.cursor_rank("comments")  # stored, or covered by a shared read
        assert [True] * 3 + [False] * 3 == refereed
        assert (reached or -1) < min(post_rank(post) for post in burst[3:])
        rig.restart()  # as SIGKILL: nothing flushed since is kept
        rig.run_until(clock.now() + 300)
    finally:
        rig.close()
    assert Counter(dict.fromkeys(burst, 1)) == bot_replies(server)
    with Store(rig.folders[0] / "data" / "store.json") as store:
        rows = list(store.ledger)
    assert (len(burst), True) == (len(rows), verify(rows, None).ok)
