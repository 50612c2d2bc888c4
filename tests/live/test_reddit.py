"""The Reddit adapter against FakeReddit: Posts from PRAW, guarded writes, errors, credentials."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import praw
import pytest
import requests
from praw.exceptions import RedditAPIException, RedditErrorItem

from referee.base.errors import ConfigError
from referee.base.posts import Post
from referee.live.reddit import Failure, ForumError, RedditForum, classify, connect, post_from_praw
from referee.pipeline.campaign import RedditConfig
from referee.testing.reddit_server import FakeReddit, Fault, client_sleeps

SUB = "dicegames"


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A running FakeReddit with one subreddit."""
    with FakeReddit() as fake, client_sleeps():
        fake.add_subreddit(SUB, moderators=["gm"])
        yield fake


@pytest.fixture
def http() -> Iterator[requests.Session]:
    """An HTTP session for the bot's client, closed after the test."""
    with requests.Session() as session:
        yield session


def _forum(server: FakeReddit, http: requests.Session, **config: object) -> RedditForum:
    reddit_config = RedditConfig(oauth_url=server.url, reddit_url=server.url, **config)  # type: ignore[arg-type]
    settings = {k: v for k, v in server.praw_settings().items() if not k.endswith("_url")}
    return RedditForum(connect(reddit_config, session=http, **settings))


def test_post_from_praw_submission_keeps_raw_text(server: FakeReddit, http) -> None:
    """A submission becomes a Post with its selftext as Reddit stored it (raw_json=1),
    and its title (by which a campaign may claim the thread)."""
    post = server.submit(SUB, "alice", "S & <T>", "[[shoot Kara -> Trooper]] & <go>")
    (found,) = _forum(server, http).listing("new", [SUB]).posts
    body = "[[shoot Kara -> Trooper]] & <go>"
    expected = Post(post, post, "alice", body, server.clock.now(), subreddit=SUB, title="S & <T>")
    assert expected == found


def test_a_comment_of_the_comments_listing_carries_its_threads_title(
    server: FakeReddit, http
) -> None:
    """A comment read from r/sub/comments carries its thread's title (Reddit's link_title)."""
    thread = server.submit(SUB, "alice", "[Ashes] Session 1", "Set the scene.")
    server.comment(thread, "bob", "[[roll 1d6]]")
    (found,) = _forum(server, http).listing("comments", [SUB]).posts
    assert ("[Ashes] Session 1", thread) == (found.title, found.thread)


def test_post_from_praw_comment_has_thread_parent_and_edit_time(server: FakeReddit, http) -> None:
    """A comment keeps link_id as its thread, parent_id and the edited stamp."""
    post = server.submit(SUB, "alice", "S", "text")
    comment = server.comment(post, "bob", "[[roll 1d20]]")
    edited_at = server.clock.advance(30)
    server.edit(comment, "[[roll 1d20]] -> edited")
    (found,) = _forum(server, http).listing("comments", [SUB]).posts
    assert (comment, post, post, "[[roll 1d20]] -> edited", edited_at) == (
        found.fullname,
        found.thread,
        found.parent,
        found.body,
        found.edited,
    )


def test_post_from_praw_turns_a_lone_surrogate_into_a_replacement_character(
    server: FakeReddit, http
) -> None:
    """A "\\ud800" in Reddit's JSON reaches the referee as U+FFFD, encodable everywhere."""
    post = server.submit(SUB, "alice", "S", "text")
    server.comment(post, "bob", "[[roll d6 \ud800]]")
    (found,) = _forum(server, http).listing("comments", [SUB]).posts
    assert "[[roll d6 \ufffd]]" == found.body


def test_post_from_praw_reads_no_attribute_lazily(server: FakeReddit, http) -> None:
    """Building a Post from listing objects costs no request."""
    server.comment(server.submit(SUB, "alice", "S", "t"), "bob", "c")
    reddit = _forum(server, http).reddit
    listing = reddit.get(f"r/{SUB}/comments")
    before = server.count()
    [post_from_praw(thing) for thing in listing.children]
    assert before == server.count()


def test_multireddit_listing_is_one_request_for_many_subreddits(server: FakeReddit, http) -> None:
    """r/a+b+c/comments reads three subreddits in one request."""
    for name in ("b", "c"):
        server.add_subreddit(name)
        server.comment(server.submit(name, "alice", "S", "t"), "bob", "hi")
    forum = _forum(server, http)
    forum.listing("comments", [SUB])  # logs in first
    before = server.count()
    page = forum.listing("comments", [SUB, "b", "c"])
    assert (1, 2) == (server.count() - before, len(page.posts))


def test_lost_reply_response_is_uncertain_and_lands_once(server: FakeReddit, http) -> None:
    """A reply whose 500 answer hides success is UNCERTAIN, and prawcore did not post it twice."""
    post = server.submit(SUB, "alice", "S", "t")
    server.inject("POST /api/comment", Fault.LOST_RESPONSE_500)
    with pytest.raises(ForumError) as caught:
        _forum(server, http).reply(post, "verdict")
    assert (Failure.UNCERTAIN, 1) == (caught.value.failure, len(server.replies_to(post)))


def test_dropped_reply_connection_is_uncertain_and_lands_once(server: FakeReddit, http) -> None:
    """A reply whose connection drops after the action is UNCERTAIN, posted exactly once."""
    post = server.submit(SUB, "alice", "S", "t")
    server.inject("POST /api/comment", Fault.LOST_RESPONSE)
    with pytest.raises(ForumError) as caught:
        _forum(server, http).reply(post, "verdict")
    assert (Failure.UNCERTAIN, 1) == (caught.value.failure, len(server.replies_to(post)))


def test_config_timeout_applies_and_a_stalled_reply_is_uncertain(server: FakeReddit, http) -> None:
    """With timeout 0.3 s a stalled reply gives up at once, sent once, and is UNCERTAIN."""
    post = server.submit(SUB, "alice", "S", "t")
    forum = _forum(server, http, timeout=0.3)
    forum.listing("new", [SUB])
    server.inject("POST /api/comment", Fault.TIMEOUT)
    with pytest.raises(ForumError) as caught:
        forum.reply(post, "verdict")
    server.release()
    assert (Failure.UNCERTAIN, 1) == (caught.value.failure, server.count("POST", "/api/comment"))


def test_reads_still_retry_after_a_server_error(server: FakeReddit, http) -> None:
    """A 500 on a listing is retried by prawcore as before: reads are safe to repeat."""
    server.submit(SUB, "alice", "S", "t")
    server.inject("GET /r/*/new", Fault.SERVER_ERROR)
    assert 1 == len(_forum(server, http).listing("new", [SUB]).posts)


def test_edit_replaces_the_bots_reply(server: FakeReddit, http) -> None:
    """edit rewrites the bot's own comment."""
    post = server.submit(SUB, "alice", "S", "t")
    forum = _forum(server, http)
    reply = forum.reply(post, "verdict")
    forum.edit(reply, "verdict + note")
    assert "verdict + note" == server.thing(reply)["body"]


def test_find_replies_reads_the_bots_comments_once(server: FakeReddit, http) -> None:
    """The bot's recent comments, matched by parent_id, find replies in one request."""
    post = server.submit(SUB, "alice", "S", "t")
    asked = server.comment(post, "bob", "[[roll 1d6]]")
    other = server.comment(post, "bob", "[[roll 1d8]]")
    mine = server.comment(asked, server.bot, "verdict")
    forum = _forum(server, http)
    forum.listing("new", [SUB])
    before = server.count()
    assert {asked: mine} == forum.find_replies({asked: post, other: post})
    assert 1 == server.count() - before


def test_find_replies_looks_below_the_target_when_history_is_long(server: FakeReddit, http) -> None:
    """When the bot's comment page is full, a target not on it is checked by its own replies."""
    post = server.submit(SUB, "alice", "S", "t")
    comment = server.comment(post, "bob", "[[roll 1d6]]")
    below_comment = server.comment(comment, server.bot, "verdict one")
    below_post = server.comment(post, server.bot, "verdict two")
    elsewhere = server.submit(SUB, "carol", "Other", "t")
    for n in range(3):
        server.comment(elsewhere, server.bot, f"later {n}")
    forum = _forum(server, http)
    forum.page_size = 2
    found = forum.find_replies({comment: post, post: post})
    assert {comment: below_comment, post: below_post} == found


@pytest.mark.parametrize(
    ("error_type", "message", "failure", "wait"),
    [
        ("RATELIMIT", "you are doing that too much. try again in 5 minutes.", "ratelimited", 300),
        ("RATELIMIT", "try again in 9 seconds.", "ratelimited", 9),
        ("THREAD_LOCKED", "Comments are locked.", "undeliverable", None),
        ("TOO_OLD", "that's a piece of history now", "undeliverable", None),
        ("DELETED_COMMENT", "that comment has been deleted", "undeliverable", None),
        ("TOO_LONG", "this is too long (max: 10000)", "rejected", None),
    ],
)
def test_classify_reply_errors(error_type, message, failure, wait) -> None:
    """Each Reddit reply error maps to one failure, RATELIMIT with its wait."""
    error = classify(
        RedditAPIException([RedditErrorItem(error_type, message=message, field="x")]), write=True
    )
    assert error is not None
    assert (Failure(failure), wait) == (error.failure, error.retry_after)


def test_classify_leaves_bugs_alone() -> None:
    """A non-Reddit exception is not a ForumError: it is a bug and propagates."""
    assert classify(KeyError("x"), write=False) is None


def test_forbidden_and_throttled_listings_raise_forum_errors(server: FakeReddit, http) -> None:
    """A 403 listing is FORBIDDEN; a 429 is THROTTLED with retry-after."""
    forum = _forum(server, http)
    server.inject("GET /r/*/new", Fault.FORBIDDEN)
    server.inject("GET /r/*/comments", Fault.TOO_MANY_REQUESTS, retry_after=7)
    failures = []
    for kind in ("new", "comments"):
        with pytest.raises(ForumError) as caught:
            forum.listing(kind, [SUB])
        failures.append((caught.value.failure, caught.value.retry_after))
    assert [(Failure.FORBIDDEN, None), (Failure.THROTTLED, 7.0)] == failures


def test_connect_reads_praw_environment_variables(
    server: FakeReddit, http, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Without a praw.ini section, praw_* environment variables log the bot in."""
    monkeypatch.chdir(tmp_path)
    settings = server.praw_settings()
    for key in ("client_id", "client_secret", "username", "password"):
        monkeypatch.setenv(f"praw_{key}", settings[key])
    config = RedditConfig(site="no-such-site", oauth_url=server.url, reddit_url=server.url)
    reddit = connect(config, session=http)
    assert (server.bot, server.bot) == (reddit.config.username, reddit.user.me().name)


def test_connect_reads_a_praw_ini_site(
    server: FakeReddit, http, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The praw.ini section named by [reddit] site holds the credentials."""
    settings = server.praw_settings()
    ini = "[mybot]\n" + "".join(
        f"{k}={settings[k]}\n" for k in ("client_id", "client_secret", "username", "password")
    )
    (tmp_path / "praw.ini").write_text(ini, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(praw.config.Config, "CONFIG", None)  # PRAW caches praw.ini per process
    config = RedditConfig(site="mybot", oauth_url=server.url, reddit_url=server.url)
    try:
        assert server.bot == connect(config, session=http).user.me().name
    finally:
        praw.config.Config.CONFIG = None


def test_connect_without_credentials_says_where_they_go(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Missing credentials raise ConfigError naming praw.ini and praw_* variables."""
    monkeypatch.chdir(tmp_path)
    for key in ("client_id", "client_secret", "username", "password", "site"):
        monkeypatch.delenv(f"praw_{key}", raising=False)
    with pytest.raises(ConfigError) as caught:
        connect(RedditConfig(site="nowhere"))
    assert "praw_client_id" in caught.value.message and "config.toml" in caught.value.message
