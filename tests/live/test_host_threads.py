"""``referee host``: several campaigns in one subreddit, each claiming its threads."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.live.host import LEFT_OUT_SUBJECT
from referee.testing.host import Rig, host_campaign
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import Live, bot_replies, fake_reddit

SUB = "pbp"


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A FakeReddit with one shared subreddit and one of its own for a bystander."""
    with fake_reddit(subreddits=(SUB, "quiet")) as fake:
        yield fake


def _thread(server: FakeReddit, title: str) -> str:
    return server.submit(SUB, "alice", title, "Set the scene.")


def _claiming(server: FakeReddit, root: Path, name: str, threads: list[str]) -> Path:
    """A campaign of r/pbp claiming ``threads`` only (by their ids, as a GM copies them)."""
    ids = ", ".join(f'"{t.removeprefix("t3_")}"' for t in threads)
    extra = f"threads = [{ids}]\nonly_threads = true\n"
    return host_campaign(server, root / name, SUB, extra=extra)


def _held(rig: Rig, posts: dict[str, str]) -> dict[str, list[str]]:
    """Which campaign's store holds each of ``posts`` (by campaign folder name)."""
    return {
        Path(w.folder).name: sorted(k for k, post in posts.items() if post in w.posts)
        for w in rig.host.workers
    }


def test_each_thread_goes_to_the_campaign_claiming_it(server: FakeReddit, tmp_path: Path) -> None:
    """In one subreddit, a post goes to the campaign claiming its thread; a thread no
    campaign claims goes to the one that claims the whole subreddit."""
    scenes = {name: _thread(server, name) for name in ("open", "bells", "crows")}
    folders = [
        host_campaign(server, tmp_path / "ashes", SUB),  # the whole subreddit
        _claiming(server, tmp_path, "bells", [scenes["bells"]]),
        _claiming(server, tmp_path, "crows", [scenes["crows"]]),
    ]
    rig = Rig(server, tmp_path, (), folders=folders)
    try:
        posts = {name: server.comment(t, "bob", "[[roll 1d6]]") for name, t in scenes.items()}
        rig.run_until(server.clock.now() + 300)
        held = _held(rig, posts)
    finally:
        rig.close()
    assert Counter(dict.fromkeys(posts.values(), 1)) == bot_replies(server)
    assert {"ashes": ["open"], "bells": ["bells"], "crows": ["crows"]} == held


def test_a_thread_claimed_by_no_campaign_is_left_alone(server: FakeReddit, tmp_path: Path) -> None:
    """When every campaign of a subreddit claims threads, a post elsewhere there is not
    answered, and the claimed ones are, by their own campaign."""
    scenes = {name: _thread(server, name) for name in ("stranger", "bells", "crows")}
    folders = [_claiming(server, tmp_path, name, [scenes[name]]) for name in ("bells", "crows")]
    rig = Rig(server, tmp_path, (), folders=folders)
    try:
        posts = {name: server.comment(t, "bob", "[[roll 1d6]]") for name, t in scenes.items()}
        rig.run_until(server.clock.now() + 300)
        held = _held(rig, posts)
    finally:
        rig.close()
    claimed = Counter({posts["bells"]: 1, posts["crows"]: 1})
    assert claimed == bot_replies(server)
    assert {"bells": ["bells"], "crows": ["crows"]} == held


@pytest.mark.parametrize(
    ("claims", "words"),
    [
        ((None, None), ("the whole of r/pbp", "only_threads = true")),
        (("shared", "shared"), ("the thread t3_", "in one campaign's [reddit] threads only")),
    ],
)
def test_a_clashing_pair_is_left_out_and_the_others_run(
    server: FakeReddit,
    tmp_path: Path,
    claims: tuple[str | None, str | None],
    words: tuple[str, str],
) -> None:
    """Two campaigns claiming the whole of one subreddit, or one thread, are both left out
    and their GMs told how to fix it; a campaign elsewhere is served."""
    shared = _thread(server, "shared")
    folders = [
        host_campaign(server, tmp_path / name, SUB)
        if claim is None
        else _claiming(server, tmp_path, name, [shared])
        for name, claim in zip(("ashes", "bells"), claims, strict=True)
    ]
    folders.append(host_campaign(server, tmp_path / "elsewhere", "quiet"))
    post = server.comment(shared, "bob", "[[roll 1d6]]")
    elsewhere = server.comment(server.submit("quiet", "al", "S", "x"), "bo", "[[roll 1d6]]")
    rig = Rig(server, tmp_path, (), folders=folders)
    try:
        rig.run_until(server.clock.now() + 300)
        left = dict(rig.host.left_out)
    finally:
        rig.close()
    assert {folders[0], folders[1]} == set(left)
    assert all(word in left[folders[0]] for word in (*words, "bells")), left[folders[0]]
    assert Counter({elsewhere: 1}) == bot_replies(server)
    assert post not in bot_replies(server)
    told = [m["body"] for m in server.messages_to("gm") if m["subject"] == LEFT_OUT_SUBJECT]
    assert [True, True] == [words[1] in body for body in told], told


def test_a_thread_claimed_on_reload_moves_to_its_campaign(
    server: FakeReddit, tmp_path: Path
) -> None:
    """A GM adds a new scene's thread to the campaign's config.toml and reloads the host:
    the thread's posts go to that campaign, no longer to the subreddit's whole claimer."""
    first, later = _thread(server, "bells 1"), _thread(server, "bells 2")
    folders = [
        host_campaign(server, tmp_path / "ashes", SUB),
        _claiming(server, tmp_path, "bells", [first]),
    ]
    rig = Rig(server, tmp_path, (), folders=folders)
    try:
        before = server.comment(later, "bob", "[[roll 1d6]]")
        rig.run_until(server.clock.now() + 120)
        config = folders[1] / "config.toml"  # the GM adds the thread to config.toml
        text = config.read_text(encoding="utf-8")
        old_line = f'threads = ["{first[3:]}"]'
        assert old_line in text
        new_line = f'threads = ["{first[3:]}", "{later[3:]}"]'
        config.write_text(text.replace(old_line, new_line), encoding="utf-8")
        rig.host.reload()
        after = server.comment(later, "bob", "[[roll 1d8]]")
        rig.run_until(server.clock.now() + 120)
        held = _held(rig, {"before": before, "after": after})
    finally:
        rig.close()
    assert Counter({before: 1, after: 1}) == bot_replies(server)
    assert {"ashes": ["before"], "bells": ["after"]} == held


def test_referee_run_with_only_threads_answers_its_threads_only(tmp_path: Path) -> None:
    """A campaign run alone with only_threads referees its listed threads of the
    subreddit, found in the subreddit's listing, and leaves the other threads alone."""
    with fake_reddit(subreddits=(SUB,)) as server:
        mine, theirs = _thread(server, "mine"), _thread(server, "theirs")
        live = Live(
            server,
            tmp_path,
            f'threads = ["{mine[3:]}"]\nonly_threads = true\n',
            subreddits=(SUB,),
        )
        try:
            posts = [server.comment(t, "bob", "[[roll 1d6]]") for t in (mine, theirs, mine)]
            live.run_until(server.clock.now() + 300)
        finally:
            live.close()
        thread_reads = server.count("GET", "/comments/")
        assert Counter({posts[0]: 1, posts[2]: 1}) == bot_replies(server)
    assert 0 == thread_reads  # no request of its own for the thread


def _tagged_campaign(server: FakeReddit, root: Path, name: str, tag: str) -> Path:
    """A campaign of r/pbp claiming the threads whose title starts with ``tag``."""
    extra = f'title_tag = "{tag}"\nonly_threads = true\n'
    return host_campaign(server, root / name, SUB, extra=extra)


def test_a_title_tag_claims_new_threads_without_a_reload(
    server: FakeReddit, tmp_path: Path
) -> None:
    """Threads titled with a campaign's tag (any case), opened while the host runs, go
    to it; a thread another campaign lists by id stays that campaign's whatever its
    title; the rest goes to the campaign claiming the whole subreddit."""
    listed = _thread(server, "[Crows] but listed by bells")
    folders = [
        host_campaign(server, tmp_path / "ashes", SUB),
        _claiming(server, tmp_path, "bells", [listed]),
        _tagged_campaign(server, tmp_path, "crows", "[Crows]"),
    ]
    rig = Rig(server, tmp_path, (), folders=folders)
    try:
        rig.run_until(server.clock.now() + 60)
        scenes = {
            "tagged": _thread(server, "[Crows] Session 1"),
            "lower": _thread(server, "[crows] session 2"),
            "listed": listed,
            "open": _thread(server, "Open table"),
        }
        posts = {name: server.comment(t, "bob", "[[roll 1d6]]") for name, t in scenes.items()}
        opening = server.submit(SUB, "gm", "[Crows] Session 3", "[[roll 1d4]]")
        rig.run_until(server.clock.now() + 300)
        held = _held(rig, {**posts, "opening": opening})
    finally:
        rig.close()
    assert Counter(dict.fromkeys([*posts.values(), opening], 1)) == bot_replies(server)
    expected = {"ashes": ["open"], "bells": ["listed"], "crows": ["lower", "opening", "tagged"]}
    assert expected == held


@pytest.mark.parametrize("other", ["[Crow", "[crows]"])
def test_title_tags_one_of_which_starts_the_other_clash(
    server: FakeReddit, tmp_path: Path, other: str
) -> None:
    """Tags "[Crow" (or "[crows]") and "[Crows]" would both claim "[Crows] ...": neither
    campaign is served, and the reason says how to fix it."""
    folders = [
        _tagged_campaign(server, tmp_path, "crows", "[Crows]"),
        _tagged_campaign(server, tmp_path, "crow", other),
        host_campaign(server, tmp_path / "elsewhere", "quiet"),
    ]
    rig = Rig(server, tmp_path, (), folders=folders)
    left = dict(rig.host.left_out)
    rig.close()
    assert {folders[0], folders[1]} == set(left)
    assert "does not start another's" in left[folders[0]]
