"""``referee host``: many campaigns on one account, one shared read, one budget."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.base.errors import ConfigError
from referee.cli import main
from referee.live.host import LEFT_OUT_SUBJECT
from referee.live.host_config import load_host
from referee.live.status import heartbeat_path, read_heartbeat
from referee.store.store import Store
from referee.testing.host import Rig
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import bot_replies, fake_reddit

SUBS = ("ashes", "bells", "crows")


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A FakeReddit with three subreddits, one campaign each."""
    with fake_reddit(subreddits=SUBS) as fake:
        yield fake


@pytest.fixture
def rig(server: FakeReddit, tmp_path: Path) -> Iterator[Rig]:
    """A host serving one campaign per subreddit on one account."""
    made = Rig(server, tmp_path, SUBS)
    yield made
    made.close()


def _tagged(server: FakeReddit, sub: str, count: int) -> list[str]:
    thread = server.submit(sub, "alice", "Scene", "Set the scene.")
    return [server.comment(thread, "bob", f"[[roll 1d{n + 4}]]") for n in range(count)]


def test_each_campaigns_posts_get_one_reply_from_one_host(server: FakeReddit, rig: Rig) -> None:
    """Tagged posts in three campaigns' subreddits each get exactly one reply."""
    posts = [p for sub in SUBS for p in _tagged(server, sub, 3)]
    rig.run_until(server.clock.now() + 300)
    assert Counter(dict.fromkeys(posts, 1)) == bot_replies(server)


def test_each_reply_is_refereed_by_its_own_campaign(server: FakeReddit, rig: Rig) -> None:
    """A post is refereed into the store of the campaign watching its subreddit only."""
    posts = {sub: _tagged(server, sub, 1)[0] for sub in SUBS}
    rig.run_until(server.clock.now() + 300)
    stores = {Path(w.folder).name: w.posts for w in rig.host.workers}
    held = {name: sorted(p for p in posts.values() if p in table) for name, table in stores.items()}
    assert {f"campaign-{sub}": [post] for sub, post in posts.items()} == held


def test_one_read_of_new_comments_serves_every_campaign(server: FakeReddit, rig: Rig) -> None:
    """Each poll reads r/ashes+bells+crows/comments once, not once per campaign."""
    rig.run_until(server.clock.now() + 60)
    before = server.count("GET", "/r/")
    rig.run_until(server.clock.now() + 600)
    multi = server.count("GET", "/r/ashes+bells+crows/comments")
    single = sum(server.count("GET", f"/r/{sub}/comments") for sub in SUBS)
    listings = server.count("GET", "/r/") - before
    assert (True, 0) == (multi >= 9, single)
    assert listings <= 2 * multi  # new comments, and new submissions every other poll


def test_requests_stay_within_the_accounts_share(server: FakeReddit, tmp_path: Path) -> None:
    """Ten busy campaigns on one account never send more than its share over Reddit's
    ten-minute window (nor more than the share and the burst in any minute)."""
    subs = [f"sub{n}" for n in range(10)]
    for sub in subs:
        server.add_subreddit(sub, moderators=["gm"])
        _tagged(server, sub, 12)
    rig = Rig(server, tmp_path, subs, budget_share=0.3)
    start = server.clock.now()
    times: list[float] = []
    counted = server.count()
    while server.clock.now() < start + 900:
        rig.run_until(server.clock.now() + 1, request_seconds=0.05)
        now_count = server.count()
        times += [server.clock.now()] * (now_count - counted)
        counted = now_count
    rig.close()
    minute = max(sum(1 for t in times if s <= t < s + 60) for s in times)
    window = max(sum(1 for t in times if s <= t < s + 600) for s in times)
    assert 120 == sum(bot_replies(server).values())
    # Reddit averages over ten minutes: 10 x 30 there, 30 and the burst of 10 in any
    # minute; and PRAW's own login and token request.
    assert (True, True) == (window <= 300 + 2, minute <= 30 + 10 + 2), (window, minute)


def test_the_oldest_reply_goes_first_whatever_its_campaign(
    server: FakeReddit, tmp_path: Path
) -> None:
    """Replies of all campaigns leave in the order their posts were written."""
    subs = [f"sub{n}" for n in range(4)]
    for sub in subs:
        server.add_subreddit(sub, moderators=["gm"])
    posts = [
        server.comment(server.submit(subs[n % 4], "al", "S", "x"), "bo", "[[roll 1d6]]")
        for n in range(8)
    ]
    rig = Rig(server, tmp_path, subs)
    rig.run_until(server.clock.now() + 300)
    rig.close()
    replies = sorted(server.comments_by(server.bot), key=lambda c: int(c["id"], 36))
    order = [c["parent_id"] for c in replies]
    assert posts == order


def test_a_broken_campaign_is_left_out_and_the_others_run(
    server: FakeReddit, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A campaign whose config is broken, and one whose store is held by another process,
    are reported (log, `referee status`, a message to the GMs) and the others answered."""
    rig = Rig(server, tmp_path, SUBS)
    rig.close()
    broken, locked, _fine = rig.folders
    (broken / "config.toml").write_text(
        (broken / "config.toml").read_text(encoding="utf-8") + "\nnonsense = [\n",
        encoding="utf-8",
    )
    holder = Store(locked / "data" / "store.json")  # as a `referee run` on it would
    try:
        posts = {sub: _tagged(server, sub, 1)[0] for sub in SUBS}
        rig.start()
        rig.run_until(server.clock.now() + 300)
        left = dict(rig.host.left_out)
        rig.close()
    finally:
        holder.close()
    assert {broken, locked} == set(left)
    assert Counter({posts["crows"]: 1}) == bot_replies(server)
    told = [m for m in server.messages_to("gm") if m["subject"] == LEFT_OUT_SUBJECT]
    assert 1 == len(
        told
    )  # the broken config names no GMs it can be trusted for; the locked one does
    assert locked.name in told[0]["body"]
    capsys.readouterr()
    assert 1 == main(["--campaign", str(locked), "status"])
    assert "the host left this campaign out" in capsys.readouterr().err


def test_a_crash_in_one_campaign_does_not_stop_the_others(
    server: FakeReddit, rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug raised while one campaign referees its posts leaves the others answered."""
    posts = {sub: _tagged(server, sub, 1)[0] for sub in SUBS}
    first = rig.host.workers[0]

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug in one campaign")

    monkeypatch.setattr(first.referee, "referee", broken)
    rig.run_until(server.clock.now() + 300)
    assert Counter({posts["bells"]: 1, posts["crows"]: 1}) == bot_replies(server)


def test_host_file_problems_are_all_reported(tmp_path: Path) -> None:
    """A host file with an unknown key, a bad share and a campaign of no account is refused
    with every problem named."""
    path = tmp_path / "host.toml"
    path.write_text(
        '[accounts.bot]\nbudget_share = 3\ncolour = "red"\n'
        '[[campaigns]]\nfolder = "a"\naccount = "other"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as refused:
        load_host(path)
    assert all(
        word in refused.value.message for word in ("budget_share = 3", "'colour'", "'other'")
    )


def test_status_of_a_hosted_campaign_is_at_most_a_minute_old(server: FakeReddit, rig: Rig) -> None:
    """Once its reply is posted, a campaign's heartbeat says no reply waits; while nothing
    new comes, it still says the host read within the last minute."""
    _tagged(server, "ashes", 1)
    rig.run_until(server.clock.now() + 120)
    rig.run_until(server.clock.now() + 600)  # ten quiet minutes
    worker = next(w for w in rig.host.workers if Path(w.folder).name == "campaign-ashes")
    beat = read_heartbeat(heartbeat_path(worker.store.path))
    assert 0 == beat["replies_waiting"]
    assert server.clock.now() - beat["last_read_at"] <= 60 + 10  # a minute and a poll


def test_a_host_file_that_is_a_device_or_past_its_cap_is_refused(tmp_path: Path) -> None:
    """The host file is read as a regular file of at most 1 MiB, never a device or a FIFO."""
    with pytest.raises(ConfigError, match="The host file /dev/null is a device"):
        load_host(Path("/dev/null"))
    big = tmp_path / "host.toml"
    big.write_text("#" * (1024 * 1024 + 1))
    with pytest.raises(ConfigError, match="larger than 1,048,576 bytes"):
        load_host(big)
