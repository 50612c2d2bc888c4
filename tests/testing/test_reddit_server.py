"""Real PRAW against referee.testing.reddit_server.FakeReddit, over 127.0.0.1 only."""

from __future__ import annotations

import time
from collections.abc import Iterator

import praw
import prawcore
import pytest
import requests
from praw.exceptions import RedditAPIException
from praw.models import MoreComments

from referee.testing.reddit_server import FakeReddit, Fault, Request, client_sleeps

SUB = "dicegames"


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A running FakeReddit with one subreddit that u/gm moderates."""
    with FakeReddit() as fake:
        fake.add_subreddit(SUB, moderators=["gm"])
        yield fake


@pytest.fixture
def reddit(server: FakeReddit) -> praw.Reddit:
    """PRAW logged in as the bot."""
    return server.reddit()


@pytest.fixture
def sleeps() -> Iterator[list[float]]:
    """The sleeps PRAW and prawcore would have taken, recorded instead."""
    with client_sleeps() as slept:
        yield slept


def _token(server: FakeReddit) -> str:
    with requests.Session() as http:
        answer = http.post(
            f"{server.url}/api/v1/access_token",
            auth=(server.client_id, server.client_secret),
            data={"grant_type": "password", "username": server.bot, "password": "bot-password"},
        )
    return str(answer.json()["access_token"])


# -- authentication --------------------------------------------------------------


def test_script_app_logs_in_as_the_bot(server: FakeReddit, reddit: praw.Reddit) -> None:
    """A script app's password grant yields a token for the bot's account."""
    assert server.bot == reddit.user.me().name
    assert 1 == server.count("POST", "/api/v1/access_token")


def test_wrong_password_raises_oauth_exception(server: FakeReddit) -> None:
    """A wrong password answers invalid_grant, which prawcore raises."""
    reddit = server.reddit(password="nope")
    with pytest.raises(prawcore.OAuthException) as caught:
        reddit.user.me()
    assert "invalid_grant" == caught.value.error


def test_wrong_client_secret_answers_401(server: FakeReddit) -> None:
    """Bad app credentials are refused with HTTP 401."""
    reddit = server.reddit(client_secret="wrong")
    with pytest.raises(prawcore.ResponseException) as caught:
        reddit.user.me()
    assert 401 == caught.value.response.status_code


def test_missing_token_answers_401(server: FakeReddit) -> None:
    """An API call without a bearer token is refused with 401 and www-authenticate."""
    with requests.Session() as http:
        answer = http.get(f"{server.url}/api/v1/me", params={"raw_json": 1})
    assert 401 == answer.status_code
    assert 'error="invalid_token"' in answer.headers["www-authenticate"]


def test_revoked_token_is_refreshed_by_prawcore(
    server: FakeReddit, reddit: praw.Reddit, sleeps: list[float]
) -> None:
    """After a 401 prawcore fetches a new token and repeats the call."""
    reddit.user.me()
    server.revoke_tokens()
    assert server.bot == reddit.user.me(use_cache=False).name
    assert 2 == server.count("POST", "/api/v1/access_token")


def test_tokens_expire_on_the_fake_clock(
    server: FakeReddit, reddit: praw.Reddit, sleeps: list[float]
) -> None:
    """A day on the fake clock expires the token; PRAW logs in again."""
    reddit.user.me()
    server.clock.advance(86_400)
    reddit.user.me(use_cache=False)
    assert 2 == server.count("POST", "/api/v1/access_token")


# -- listings ----------------------------------------------------------------------


def test_subreddit_new_lists_submissions_newest_first(
    server: FakeReddit, reddit: praw.Reddit
) -> None:
    """r/SUB/new lists self posts newest first with Reddit's fields."""
    first = server.submit(SUB, "alice", "Session 1", "Roll [[1d20]]")
    second = server.submit(SUB, "bob", "Session 2", "")
    posts = list(reddit.subreddit(SUB).new())
    assert [second, first] == [p.fullname for p in posts]
    assert ("Session 1", "Roll [[1d20]]", "alice") == (
        posts[1].title,
        posts[1].selftext,
        posts[1].author.name,
    )


def test_subreddit_comments_pages_with_after(server: FakeReddit, reddit: praw.Reddit) -> None:
    """Paging r/SUB/comments with a small request limit walks every comment via after."""
    post = server.submit(SUB, "alice", "Session", "text")
    made = [server.comment(post, "alice", f"c{n}") for n in range(5)]
    seen = [c.fullname for c in reddit.subreddit(SUB).comments(limit=None, request_limit=2)]
    assert list(reversed(made)) == seen
    afters = [r.params.get("after") for r in server.requests if r.path.endswith("/comments")]
    assert [None, made[3], made[1]] == afters


def test_subreddit_comments_before_returns_newer(server: FakeReddit, reddit: praw.Reddit) -> None:
    """`before` answers the comments just newer than the anchor, newest first."""
    post = server.submit(SUB, "alice", "Session", "text")
    made = [server.comment(post, "alice", f"c{n}") for n in range(5)]
    page = reddit.get(f"r/{SUB}/comments", params={"before": made[1], "limit": 2})
    assert [made[3], made[2]] == [c.fullname for c in page.children]
    assert (made[3], made[2]) == (page.before, page.after)


def test_multireddit_comments_merge_subreddits(server: FakeReddit, reddit: praw.Reddit) -> None:
    """r/a+b/comments merges both subreddits' comments."""
    server.add_subreddit("other")
    here = server.comment(server.submit(SUB, "alice", "A", "a"), "bob", "one")
    there = server.comment(server.submit("other", "alice", "B", "b"), "bob", "two")
    merged = reddit.subreddit(f"{SUB}+other").comments()
    assert [there, here] == [c.fullname for c in merged]


def test_submission_comments_nest_replies(server: FakeReddit, reddit: praw.Reddit) -> None:
    """comments/ID returns the thread with replies nested under their parents."""
    post = server.submit(SUB, "alice", "Session", "text")
    top = server.comment(post, "bob", "[[2d6]]")
    child = server.comment(top, server.bot, "Rolled 7")
    submission = reddit.submission(post[3:])
    flat = submission.comments.list()
    assert [top, child] == [c.fullname for c in flat]
    assert [child] == [c.fullname for c in flat[0].replies]
    assert (0, 1) == (flat[0].depth, flat[1].depth)


def test_comment_limit_emits_more_that_praw_replaces() -> None:
    """A thread cut by comment_limit ends in a `more` object PRAW can expand."""
    with FakeReddit(comment_limit=2) as server:
        server.add_subreddit(SUB)
        post = server.submit(SUB, "alice", "Busy", "text")
        made = [server.comment(post, "bob", f"c{n}") for n in range(4)]
        submission = server.reddit().submission(post[3:])
        first = submission.comments.list()
        assert [False, False, True] == [isinstance(c, MoreComments) for c in first]
        submission.comments.replace_more(limit=None)
        assert made == [c.fullname for c in submission.comments.list()]


def test_max_depth_emits_continue_this_thread(server: FakeReddit) -> None:
    """Replies below max_depth hide behind a "continue this thread" PRAW can follow."""
    server.max_depth = 1
    post = server.submit(SUB, "alice", "Deep", "text")
    top = server.comment(post, "bob", "top")
    deep = server.comment(top, "alice", "deep")
    submission = server.reddit().submission(post[3:])
    assert isinstance(submission.comments.list()[1], MoreComments)
    submission.comments.replace_more(limit=None)
    assert [top, deep] == [c.fullname for c in submission.comments.list()]


def test_comment_refresh_loads_its_replies(server: FakeReddit, reddit: praw.Reddit) -> None:
    """comment.refresh() uses comments/ID/_/CID?context=100 to load the replies."""
    post = server.submit(SUB, "alice", "Session", "text")
    top = server.comment(post, "bob", "top")
    mid = server.comment(top, "alice", "mid")
    leaf = server.comment(mid, "bob", "leaf")
    comment = reddit.comment(mid[3:]).refresh()
    assert [leaf] == [c.fullname for c in comment.replies]


def test_info_fetches_fullnames(server: FakeReddit, reddit: praw.Reddit) -> None:
    """api/info returns the named things, skipping unknown ones."""
    post = server.submit(SUB, "alice", "Session", "text")
    comment = server.comment(post, "bob", "hello")
    found = list(reddit.info(fullnames=[comment, "t1_zzzzzz", post]))
    assert [comment, post] == [t.fullname for t in found]


def test_moderator_lists_the_subreddits_mods(server: FakeReddit, reddit: praw.Reddit) -> None:
    """r/SUB/about/moderators answers a UserList."""
    assert ["gm"] == [m.name for m in reddit.subreddit(SUB).moderator()]


def test_redditor_comments_new_lists_the_bots_comments(
    server: FakeReddit, reddit: praw.Reddit
) -> None:
    """user/NAME/comments lists that user's comments, newest first."""
    post = server.submit(SUB, "alice", "Session", "text")
    first = server.comment(post, server.bot, "one")
    server.comment(post, "alice", "not mine")
    second = server.comment(post, server.bot, "two")
    mine = reddit.redditor(server.bot).comments.new()
    assert [second, first] == [c.fullname for c in mine]


# -- writing -----------------------------------------------------------------------


def test_replies_land_on_the_server(server: FakeReddit, reddit: praw.Reddit) -> None:
    """submission.reply and comment.reply create comments under the right parents."""
    post = server.submit(SUB, "alice", "Session", "text")
    top = reddit.submission(post[3:]).reply("verdict")
    nested = reddit.comment(top.id).reply("follow-up")
    assert (post, top.fullname) == (top.parent_id, nested.parent_id)
    assert ["verdict"] == [c["body"] for c in server.replies_to(post)]
    assert ["follow-up"] == [c["body"] for c in server.replies_to(top.fullname)]


def test_praw_submits_a_self_post(server: FakeReddit, reddit: praw.Reddit) -> None:
    """subreddit.submit returns the new Submission; the subreddit's newest post is it."""
    made = reddit.subreddit(SUB).submit("Session 2", selftext="Roll! [[roll 1d20]]")
    newest = next(iter(reddit.subreddit(SUB).new(limit=1)))
    assert (made.fullname, "Session 2", "Roll! [[roll 1d20]]", server.bot) == (
        newest.fullname,
        newest.title,
        newest.selftext,
        newest.author.name,
    )


@pytest.mark.parametrize(
    ("subreddit", "title", "error_type"),
    [("nosuchsub", "Session 2", "SUBREDDIT_NOEXIST"), (SUB, "x" * 301, "TOO_LONG")],
)
def test_a_refused_submission_raises_its_error_and_posts_nothing(
    server: FakeReddit, reddit: praw.Reddit, subreddit: str, title: str, error_type: str
) -> None:
    """A missing subreddit or an over-long title raises Reddit's error type; nothing is added."""
    before = list(reddit.subreddit(SUB).new())
    with pytest.raises(RedditAPIException) as caught:
        reddit.subreddit(subreddit).submit(title, selftext="text")
    assert ([error_type], before) == (
        [item.error_type for item in caught.value.items],
        list(reddit.subreddit(SUB).new()),
    )


def test_edit_changes_the_body_and_stamps_edited(server: FakeReddit, reddit: praw.Reddit) -> None:
    """comment.edit rewrites the body and stamps `edited` with the fake clock."""
    mine = server.comment(server.submit(SUB, "alice", "S", "t"), server.bot, "old")
    now = server.clock.advance(60)
    edited = reddit.comment(mine[3:]).edit("new")
    assert ("new", now) == (edited.body, server.thing(mine)["edited"])


def test_editing_someone_elses_comment_is_forbidden(
    server: FakeReddit, reddit: praw.Reddit
) -> None:
    """Only the author may edit: anyone else gets 403, prawcore.Forbidden."""
    theirs = server.comment(server.submit(SUB, "alice", "S", "t"), "alice", "mine")
    with pytest.raises(prawcore.Forbidden):
        reddit.comment(theirs[3:]).edit("hijacked")
    assert "mine" == server.thing(theirs)["body"]


def test_html_is_escaped_unless_raw_json(server: FakeReddit) -> None:
    """Without raw_json=1 the server escapes & < > as Reddit's legacy JSON does."""
    post = server.submit(SUB, "alice", "S", "a & <b>")
    token = _token(server)
    with requests.Session() as http:
        http.headers["Authorization"] = f"bearer {token}"
        legacy = http.get(f"{server.url}/api/info", params={"id": post}).json()
        raw = http.get(f"{server.url}/api/info", params={"id": post, "raw_json": 1}).json()
    assert "a &amp; &lt;b&gt;" == legacy["data"]["children"][0]["data"]["selftext"]
    assert "a & <b>" == raw["data"]["children"][0]["data"]["selftext"]


@pytest.mark.parametrize(
    ("spoil", "error_type"),
    [
        ("lock", "THREAD_LOCKED"),
        ("archive", "TOO_OLD"),
        ("delete", "DELETED_COMMENT"),
    ],
)
def test_reply_errors_raise_reddit_api_exception(
    server: FakeReddit, reddit: praw.Reddit, spoil: str, error_type: str
) -> None:
    """Replying below a locked, archived or deleted parent raises that error type."""
    parent = server.comment(server.submit(SUB, "alice", "S", "t"), "alice", "roll")
    getattr(server, spoil)(parent)
    with pytest.raises(RedditAPIException) as caught:
        reddit.comment(parent[3:]).reply("verdict")
    assert [error_type] == [item.error_type for item in caught.value.items]
    assert [] == server.replies_to(parent)


def test_moderators_may_reply_in_locked_threads(server: FakeReddit) -> None:
    """As on Reddit, a moderator can still comment in a locked thread."""
    post = server.submit(SUB, "alice", "S", "t")
    server.lock(post)
    server.reddit("gm").submission(post[3:]).reply("mod note")
    assert ["mod note"] == [c["body"] for c in server.replies_to(post)]


def test_inbox_message_can_be_read_and_answered(server: FakeReddit, reddit: praw.Reddit) -> None:
    """The bot reads an unread DM, replies to it and marks it read."""
    sent = server.send_message("alice", server.bot, "join", "!join fighter")
    (message,) = reddit.inbox.unread()
    assert (sent, "!join fighter") == (message.fullname, message.body)
    message.reply("Welcome aboard")
    message.mark_read()
    assert [] == list(reddit.inbox.unread())
    assert ["re: join"] == [m["subject"] for m in server.messages_to("alice")]


def test_replies_and_mentions_reach_the_inbox(server: FakeReddit, reddit: praw.Reddit) -> None:
    """A reply to the bot and a u/ mention show up in its inbox as comments."""
    post = server.submit(SUB, "alice", "S", "t")
    mine = server.comment(post, server.bot, "verdict")
    server.comment(mine, "alice", "thanks")
    server.comment(post, "bob", f"ping u/{server.bot}")
    assert ["username_mention", "comment_reply"] == [c.type for c in reddit.inbox.all()]
    assert 1 == len(list(reddit.inbox.mentions()))


def test_compose_sends_a_private_message(server: FakeReddit, reddit: praw.Reddit) -> None:
    """api/compose delivers a DM to the recipient."""
    server.add_user("alice")
    reddit.redditor("alice").message(subject="Roster", message="You are in.")
    assert [("Roster", server.bot)] == [
        (m["subject"], m["author"]) for m in server.messages_to("alice")
    ]


def test_wiki_edit_publishes_a_page(server: FakeReddit) -> None:
    """A moderator's wiki edit creates the page and PRAW reads it back."""
    server.add_subreddit("campaign", moderators=[server.bot])
    reddit = server.reddit()
    reddit.subreddit("campaign").wiki.create(name="roster", content="* Alice", reason="init")
    assert "* Alice" == server.wiki_page("campaign", "roster")
    page = reddit.subreddit("campaign").wiki["roster"]
    assert ("* Alice", server.bot) == (page.content_md, page.revision_by.name)


def test_wiki_edit_needs_a_moderator(server: FakeReddit, reddit: praw.Reddit) -> None:
    """A non-moderator's wiki edit is refused with 403."""
    with pytest.raises(prawcore.Forbidden):
        reddit.subreddit(SUB).wiki["roster"].edit(content="nope")


# -- faults --------------------------------------------------------------------------


def test_ratelimit_error_surfaces_as_reddit_api_exception(
    server: FakeReddit, reddit: praw.Reddit
) -> None:
    """An injected RATELIMIT of 5 minutes raises, and no comment is made."""
    post = server.submit(SUB, "alice", "S", "t")
    server.inject("POST /api/comment", Fault.RATELIMIT)
    with pytest.raises(RedditAPIException) as caught:
        reddit.submission(post[3:]).reply("verdict")
    assert ["RATELIMIT"] == [item.error_type for item in caught.value.items]
    assert [] == server.replies_to(post)


def test_short_ratelimit_is_waited_out_by_praw(
    server: FakeReddit, reddit: praw.Reddit, sleeps: list[float]
) -> None:
    """A RATELIMIT naming a second makes PRAW wait two seconds and post again."""
    post = server.submit(SUB, "alice", "S", "t")
    server.inject("POST /api/comment", "ratelimit", message="try again in 1 second.")
    reddit.submission(post[3:]).reply("verdict")
    assert [2] == sleeps
    assert 1 == len(server.replies_to(post))


def test_forbidden_fault_raises_prawcore_forbidden(server: FakeReddit, reddit: praw.Reddit) -> None:
    """An injected 403 raises prawcore.Forbidden."""
    server.inject("GET /r/*/new", Fault.FORBIDDEN)
    with pytest.raises(prawcore.Forbidden):
        list(reddit.subreddit(SUB).new())


def test_server_error_is_retried_then_succeeds(
    server: FakeReddit, reddit: praw.Reddit, sleeps: list[float]
) -> None:
    """prawcore retries a 500 and the second attempt succeeds."""
    server.submit(SUB, "alice", "S", "t")
    server.inject("/r/*/new", Fault.SERVER_ERROR)
    assert 1 == len(list(reddit.subreddit(SUB).new()))
    assert 2 == server.count("GET", f"/r/{SUB}/new")
    assert 1 == len(sleeps)


def test_persistent_503_raises_server_error(
    server: FakeReddit, reddit: praw.Reddit, sleeps: list[float]
) -> None:
    """Three 503s in a row exhaust prawcore's retries: ServerError."""
    server.inject("/r/*/new", Fault.SERVICE_UNAVAILABLE, times=3)
    with pytest.raises(prawcore.ServerError):
        list(reddit.subreddit(SUB).new())
    assert (3, 0) == (server.count("GET", f"/r/{SUB}/new"), server.pending_faults())


def test_429_raises_and_delays_the_next_request(
    server: FakeReddit, reddit: praw.Reddit, sleeps: list[float]
) -> None:
    """A 429 raises TooManyRequests; prawcore then waits retry-after before the next call."""
    server.inject("/r/*/new", Fault.TOO_MANY_REQUESTS, retry_after=7)
    with pytest.raises(prawcore.TooManyRequests) as caught:
        list(reddit.subreddit(SUB).new())
    assert "7" == caught.value.retry_after
    list(reddit.subreddit(SUB).new())
    assert [7] == [round(s) for s in sleeps]


def test_every_answer_reports_reddits_rate_limit_as_praw_reads_it(
    server: FakeReddit, reddit: praw.Reddit
) -> None:
    """Each request counts against the window's quota; PRAW's auth.limits follows the headers,
    and a new window on the fake clock starts the count again."""
    server.clock.advance(600 - server.clock.now() % 600 + 10)  # 10 s into a window
    reddit.user.me()
    list(reddit.subreddit(SUB).new())
    first = dict(reddit.auth.limits)
    server.clock.advance(600)
    list(reddit.subreddit(SUB).new())
    assert {"remaining": 998, "used": 2} == first
    assert {"remaining": 999, "used": 1} == reddit.auth.limits
    assert (1, server.clock.now() + 590) == server.rate_limit()


def test_a_request_beyond_the_quota_is_answered_429_until_the_window_resets(
    sleeps: list[float],
) -> None:
    """Past the quota Reddit answers 429 with the seconds to the reset; then it answers again."""
    with FakeReddit(quota=3) as fake:
        fake.add_subreddit(SUB, moderators=["gm"])
        fake.clock.advance(600 - fake.clock.now() % 600 + 100)
        reddit = fake.reddit()
        for _ in range(3):
            list(reddit.subreddit(SUB).new())
        with pytest.raises(prawcore.TooManyRequests) as caught:
            list(reddit.subreddit(SUB).new())
        fake.clock.advance(500)
        list(reddit.subreddit(SUB).new())
    assert ("500", 1) == (caught.value.retry_after, reddit.auth.limits["used"])


def test_lost_response_leaves_the_comment_though_the_client_raised(
    server: FakeReddit, reddit: praw.Reddit, sleeps: list[float]
) -> None:
    """Each lost response still posts; prawcore retries, then raises RequestException."""
    post = server.submit(SUB, "alice", "S", "t")
    server.inject("POST /api/comment", Fault.LOST_RESPONSE, times=3)
    with pytest.raises(prawcore.RequestException):
        reddit.submission(post[3:]).reply("verdict")
    assert ["verdict"] * 3 == [c["body"] for c in server.replies_to(post)]


def test_one_lost_response_duplicates_the_comment(
    server: FakeReddit, reddit: praw.Reddit, sleeps: list[float]
) -> None:
    """prawcore silently retries a lost POST, so the comment lands twice."""
    post = server.submit(SUB, "alice", "S", "t")
    server.inject("POST /api/comment", Fault.LOST_RESPONSE_500)
    reddit.submission(post[3:]).reply("verdict")
    assert 2 == len(server.replies_to(post))


@pytest.mark.slow
def test_timeout_raises_request_exception_quickly(server: FakeReddit, sleeps: list[float]) -> None:
    """A stalled server surfaces as RequestException after the client's timeouts."""
    post = server.submit(SUB, "alice", "S", "t")
    reddit = server.reddit(timeout=0.2)
    reddit.user.me()
    server.inject("POST /api/comment", Fault.TIMEOUT, times=3)
    started = time.monotonic()
    with pytest.raises(prawcore.RequestException):
        reddit.submission(post[3:]).reply("verdict")
    elapsed = time.monotonic() - started
    server.release()
    assert elapsed < 3.0
    assert (3, []) == (server.count("POST", "/api/comment"), server.replies_to(post))


# -- bookkeeping ---------------------------------------------------------------------


def test_unknown_endpoints_answer_404_and_are_recorded(
    server: FakeReddit, reddit: praw.Reddit
) -> None:
    """An unimplemented endpoint answers 404 and lands in `unhandled`."""
    with pytest.raises(prawcore.NotFound):
        reddit.get("/api/v1/me/karma")
    assert ["/api/v1/me/karma"] == [r.path for r in server.unhandled]


def test_requests_are_recorded_and_counted(server: FakeReddit, reddit: praw.Reddit) -> None:
    """Every request is recorded with its normalised path and merged parameters."""
    post = server.submit(SUB, "alice", "S", "t")
    reddit.submission(post[3:]).reply("verdict")
    expected = Request(
        "POST",
        "/api/comment",
        {"raw_json": "1", "api_type": "json", "text": "verdict", "thing_id": post},
    )
    assert expected == server.requests[-1]
    assert (2, 1) == (server.count(), server.count(method="POST", path_prefix="/api/comment"))


def test_faults_fire_only_for_their_method(server: FakeReddit, reddit: praw.Reddit) -> None:
    """A fault armed for GET leaves a POST to the same path alone."""
    post = server.submit(SUB, "alice", "S", "t")
    server.inject("GET /api/comment", Fault.FORBIDDEN)
    reddit.submission(post[3:]).reply("verdict")
    assert 1 == server.pending_faults()
