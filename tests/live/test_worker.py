"""The live worker against FakeReddit: cycles, cursor, exactly-once delivery, errors, edits."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.base.errors import ConfigError
from referee.live.parts import Task, thread_fullname
from referee.pipeline.campaign import load_config
from referee.pipeline.flow import EDITED_NOTE
from referee.testing import make_campaign
from referee.testing.reddit_server import FakeReddit, Fault
from referee.testing.worker import POLL, SUB, fake_reddit, reddit_section, worker_env


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A running FakeReddit with one subreddit; PRAW's sleeps are recorded, not slept."""
    with fake_reddit() as fake:
        yield fake


def _tagged(server: FakeReddit, count: int, parent: str | None = None) -> list[str]:
    post = parent or server.submit(SUB, "alice", "Session", "Scene set.")
    return [server.comment(post, "bob", f"I try [[roll 1d{n + 2}]]") for n in range(count)]


# -- the cycle -------------------------------------------------------------------------


def test_each_tagged_post_gets_exactly_one_reply(server: FakeReddit, live) -> None:
    """A tagged submission and tagged comments each get one reply; untagged posts none."""
    harness = live()
    submission = server.submit(SUB, "alice", "Ambush", "We open fire [[roll 2d6]]")
    comments = _tagged(server, 3, submission)
    server.comment(submission, "carol", "no tags here")
    harness.run_until_settled()
    assert Counter({submission: 1, **dict.fromkeys(comments, 1)}) == harness.bot_replies()


def test_reply_text_is_the_pipelines_verdict(server: FakeReddit, live) -> None:
    """The reply posted is the reply the pipeline stored for the post."""
    harness = live()
    (comment,) = _tagged(server, 1)
    harness.run_until_settled()
    record = harness.campaign.store.table("posts").get(comment)
    assert [record["reply"]] == [c["body"] for c in server.replies_to(comment)]


def test_the_bots_own_comments_are_never_refereed(server: FakeReddit, live) -> None:
    """A comment by the bot that quotes a tag is left alone."""
    harness = live()
    post = server.submit(SUB, "alice", "S", "t")
    server.comment(post, server.bot, "Quoting [[roll 1d6]]")
    harness.run_until_settled()
    assert 0 == len(harness.campaign.store.ledger)


def test_listed_thread_is_watched_outside_the_subreddits(server: FakeReddit, live) -> None:
    """A thread in [reddit] threads is read whole each cycle and its tags answered."""
    server.add_subreddit("elsewhere")
    thread = server.submit("elsewhere", "alice", "Side quest", "[[roll 1d4]]")
    harness = live(f'threads = ["{thread[3:]}"]\n')
    comment = server.comment(thread, "bob", "[[roll 1d8]]")
    harness.run_until_settled()
    assert Counter({thread: 1, comment: 1}) == harness.bot_replies()


def test_thread_fullname_accepts_ids_and_addresses() -> None:
    """Watched threads may be ids, fullnames or addresses."""
    assert ["t3_abc"] * 3 == [
        thread_fullname(v) for v in ("abc", "t3_abc", "https://old.reddit.com/r/x/comments/abc/")
    ]


# -- cursor, restart, backfill ----------------------------------------------------------


def test_restart_resumes_from_the_cursor(server: FakeReddit, live) -> None:
    """After a restart only posts newer than the cursor are refereed; nothing twice."""
    harness = live()
    first = _tagged(server, 2)
    harness.run_until_settled()
    harness.close()
    later = _tagged(server, 2)
    harness.start()
    harness.run_until_settled()
    assert Counter(dict.fromkeys(first + later, 1)) == harness.bot_replies()


def test_gap_deeper_than_the_listing_is_filled_thread_by_thread(server: FakeReddit, live) -> None:
    """Comments the listing no longer reaches are found by reading the active threads."""
    harness = live(page_size=2, listing_reach=4)
    threads = [server.submit(SUB, "alice", f"Scene {n}", "Set.") for n in range(2)]
    first = _tagged(server, 1, threads[0])
    harness.run_until_settled()
    harness.close()
    missed = _tagged(server, 5, threads[0]) + _tagged(server, 5, threads[1])
    harness.start()
    harness.run_until_settled()
    assert Counter(dict.fromkeys(first + missed, 1)) == harness.bot_replies()
    assert 1 <= server.count("GET", f"/comments/{threads[1][3:]}")


def test_a_crash_after_posting_finds_the_reply_instead_of_posting_again(
    server: FakeReddit, live
) -> None:
    """A reply posted but not recorded (crash) is found by parent_id, not posted twice."""
    harness = live()
    (comment,) = _tagged(server, 1)
    worker = harness.worker
    real_reply = worker.forum.reply

    def reply_then_crash(parent: str, text: str) -> str:
        real_reply(parent, text)
        raise SystemExit("killed after the POST")

    worker.forum.reply = reply_then_crash  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        worker.cycle()
    harness.restart()
    before = server.count("POST", "/api/comment")
    harness.run_until_settled()
    assert (Counter({comment: 1}), before) == (
        harness.bot_replies(),
        server.count("POST", "/api/comment"),
    )


def test_a_crash_before_posting_posts_after_looking(server: FakeReddit, live) -> None:
    """An intent recorded but never sent is looked for, then posted once."""
    harness = live()
    (comment,) = _tagged(server, 1)

    def crash(parent: str, text: str) -> str:
        raise SystemExit("killed before the POST")

    harness.worker.forum.reply = crash  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        harness.worker.cycle()
    harness.restart()
    harness.run_until_settled()
    assert Counter({comment: 1}) == harness.bot_replies()
    assert 1 == server.count("GET", f"/user/{server.bot}/comments")


def test_a_post_refereed_by_batch_is_looked_for_before_posting(server: FakeReddit, live) -> None:
    """A post the batch command already refereed is delivered once, after a look."""
    harness = live()
    (comment,) = _tagged(server, 1)
    harness.worker.referee.referee(harness.worker.forum.listing("comments", [SUB]).posts[0])
    harness.run_until_settled()
    assert Counter({comment: 1}) == harness.bot_replies()


# -- Reddit's errors -----------------------------------------------------------------------


@pytest.mark.parametrize(("spoil", "error"), [("lock", "THREAD_LOCKED"), ("archive", "TOO_OLD")])
def test_locked_or_archived_thread_is_undeliverable_and_never_retried(
    server: FakeReddit, live, spoil: str, error: str
) -> None:
    """THREAD_LOCKED and TOO_OLD record the reply as undeliverable; the roll stays."""
    harness = live()
    post = server.submit(SUB, "alice", "S", "t")
    (comment,) = _tagged(server, 1, post)
    getattr(server, spoil)(post)
    harness.run_until_settled()
    for _ in range(3):
        harness.worker.cycle()
    record = harness.campaign.store.table("posts").get(comment)
    assert ("undeliverable", error) == (
        record["delivery"]["state"],
        record["delivery"]["reason"].split(":")[0],
    )
    assert (1, 1) == (server.count("POST", "/api/comment"), len(harness.campaign.store.ledger))


def test_deleted_comment_is_undeliverable(server: FakeReddit, live) -> None:
    """A tag comment deleted before the reply gets DELETED_COMMENT: recorded, not retried."""
    harness = live()
    (comment,) = _tagged(server, 1)
    worker = harness.worker
    real_reply = worker.forum.reply

    def delete_then_reply(parent: str, text: str) -> str:
        server.delete(parent)
        return real_reply(parent, text)

    worker.forum.reply = delete_then_reply  # type: ignore[method-assign]
    harness.run_until_settled()
    record = harness.campaign.store.table("posts").get(comment)
    assert "undeliverable" == record["delivery"]["state"]
    assert "DELETED_COMMENT" in record["delivery"]["reason"]


def test_ratelimit_schedules_a_retry_instead_of_waiting(server: FakeReddit, live) -> None:
    """RATELIMIT holds replies until the time Reddit named: the next step is planned then."""
    harness = live()
    comments = _tagged(server, 2)
    server.inject("POST /api/comment", Fault.RATELIMIT, message="try again in 3 minutes.")
    now = server.clock.now()
    harness.worker.cycle()
    planned = harness.worker._due(Task.REPLY, now)
    harness.worker.cycle()
    assert (now + 180, Counter()) == (planned, harness.bot_replies())
    assert 1 == server.count("POST", "/api/comment")  # held, not hammered
    server.clock.advance(180)
    harness.worker.deliver_due()
    assert Counter(dict.fromkeys(comments, 1)) == harness.bot_replies()


def test_forbidden_reply_is_logged_and_skipped(server: FakeReddit, live, caplog) -> None:
    """A 403 on the reply (banned, or the post removed) is recorded and not retried."""
    harness = live()
    (comment,) = _tagged(server, 1)
    server.inject("POST /api/comment", Fault.FORBIDDEN)
    with caplog.at_level(logging.WARNING, "referee.live.worker"):
        harness.run_until_settled()
    assert 1 == server.count("POST", "/api/comment")
    assert f"event=undeliverable post={comment}" in caplog.text


def test_forbidden_listing_is_skipped_and_the_cycle_goes_on(server: FakeReddit, live) -> None:
    """A 403 on one listing skips it; the other sources are still read."""
    harness = live()
    comments = _tagged(server, 1)
    server.inject("GET /r/*/new", Fault.FORBIDDEN)
    report = harness.worker.cycle()
    assert (None, Counter(dict.fromkeys(comments, 1))) == (report.failure, harness.bot_replies())


@pytest.mark.parametrize("fault", [Fault.TOO_MANY_REQUESTS, Fault.SERVICE_UNAVAILABLE])
def test_throttling_and_server_errors_back_off(server: FakeReddit, live, fault: Fault) -> None:
    """429 or persistent 5xx cut the cycle short; the next cycles wait, then catch up."""
    harness = live()
    harness.worker.cycle()
    comments = _tagged(server, 2)
    server.inject("GET /r/*/comments", fault, times=3, retry_after=30)
    server.clock.advance(POLL)
    failed = harness.worker.cycle()
    before = server.count()
    skipped = harness.worker.cycle()
    assert (True, True, before) == (failed.failure is not None, skipped.skipped, server.count())
    server.clock.advance(POLL)
    harness.run_until_settled()
    assert Counter(dict.fromkeys(comments, 1)) == harness.bot_replies()


def test_network_loss_keeps_the_worker_running(server: FakeReddit, live) -> None:
    """Dropped connections on reads end the cycle without an exception; later it recovers."""
    harness = live()
    harness.worker.cycle()
    comments = _tagged(server, 1)
    server.inject("GET /r/*/comments", Fault.LOST_RESPONSE, times=3)
    server.clock.advance(POLL)
    report = harness.worker.cycle()
    server.clock.advance(POLL)
    harness.run_until_settled()
    assert ("network", Counter(dict.fromkeys(comments, 1))) == (
        report.failure.value if report.failure else None,
        harness.bot_replies(),
    )


# -- edits ---------------------------------------------------------------------------------


def test_edited_tags_add_the_note_to_the_reply_once(server: FakeReddit, live) -> None:
    """A post whose tags change after the reply gets the note by an edit of the reply."""
    harness = live()
    (comment,) = _tagged(server, 1)
    harness.run_until_settled()
    (reply,) = server.replies_to(comment)
    server.clock.advance(10)
    server.edit(comment, "I try [[roll 1d100]] instead")
    for _ in range(4):
        harness.worker.cycle()
        server.clock.advance(POLL)
    body = server.thing(reply["name"])["body"]
    assert (True, 1, 1) == (
        body.startswith(reply["body"].rstrip("\n")) and EDITED_NOTE in body,
        server.count("POST", "/api/editusertext"),
        len(harness.campaign.store.ledger),
    )


def test_an_edit_older_than_the_listing_reaches_is_found_by_the_sweep(
    server: FakeReddit, live
) -> None:
    """An edited post no longer among the newest comments still gets the note, through
    the edit sweep's one api/info request, on the sweep's own turn."""
    harness = live("edits_every = 5\n", page_size=2)
    (old,) = _tagged(server, 1)
    harness.run_until_settled()
    later = _tagged(server, 3)  # three newer comments push `old` off the 2-comment page
    harness.run_until_settled()
    (reply,) = server.replies_to(old)
    server.clock.advance(10)
    server.edit(old, "I try [[roll 1d100]] instead")
    sweeps_before = server.count("GET", "/api/info")
    for _ in range(12):  # every fifth cycle sweeps, unless the inbox has that turn
        harness.worker.cycle()
        server.clock.advance(POLL)
        if server.count("GET", "/api/info") > sweeps_before:
            break
    body = server.thing(reply["name"])["body"]
    assert (True, True, 1) == (
        EDITED_NOTE in body,
        server.count("GET", "/api/info") > sweeps_before,
        server.count("POST", "/api/editusertext"),
    )
    assert [1, 1, 1] == [len(server.replies_to(post)) for post in later]


@pytest.mark.parametrize("setting", ["edits_every = -2", "edits_every = -1"])
def test_config_refuses_an_edit_sweep_that_cannot_run(tmp_path: Path, setting: str) -> None:
    """edits_every counts poll intervals: 0 (never) or more; a negative one is refused."""
    path = tmp_path / "config.toml"
    path.write_text(f"[reddit]\n{setting}\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert "edits_every" in error.value.message


def test_an_edit_without_tag_changes_leaves_the_reply(server: FakeReddit, live) -> None:
    """Fixing a typo outside the tags changes nothing."""
    harness = live()
    (comment,) = _tagged(server, 1)
    harness.run_until_settled()
    server.edit(comment, server.thing(comment)["body"] + " (typo fixed)")
    for _ in range(3):
        harness.worker.cycle()
    assert 0 == server.count("POST", "/api/editusertext")


# -- logs and the command --------------------------------------------------------------------


def test_one_post_can_be_followed_from_seen_to_replied(server: FakeReddit, live, caplog) -> None:
    """Every line about a post carries post=<fullname>, from event=seen to event=replied."""
    harness = live()
    (comment,) = _tagged(server, 1)
    with caplog.at_level(logging.INFO, "referee"):
        harness.run_until_settled()
    events = [
        m.split()[0] for m in (r.getMessage() for r in caplog.records) if f"post={comment}" in m
    ]
    assert ["event=seen", "refereed", "event=refereed", "event=replying", "event=replied"] == events


def _subprocess_campaign(server: FakeReddit, folder: Path, poll: int = 5) -> dict[str, str]:
    extra = reddit_section(server, "timeout = 2.0\n", poll=poll)
    make_campaign(folder, extra_config=extra).close()
    return worker_env(server)


def _run_once(folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", "--campaign", str(folder), "run", "--once"],
        env=env,
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_run_once_answers_and_exits(server: FakeReddit, tmp_path: Path) -> None:
    """`python -m referee run --once` reads every source once, replies, and exits 0."""
    comments = _tagged(server, 2)
    done = _run_once(tmp_path, _subprocess_campaign(server, tmp_path))
    replies = Counter(c["parent_id"] for c in server.comments_by(server.bot))
    assert (0, Counter(dict.fromkeys(comments, 1))) == (done.returncode, replies), done.stderr


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_run_stops_cleanly_on_a_signal(server: FakeReddit, tmp_path: Path, signum: int) -> None:
    """A signal in mid-step: `referee run` finishes the reply in flight, flushes and exits 0;
    what it had not started stays pending, and the next run answers it, once."""
    comments = _tagged(server, 2)
    env = _subprocess_campaign(server, tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "--campaign", str(tmp_path), "run"],
        env=env,
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    watchdog = threading.Timer(30, process.kill)  # bounds the wait for the first reply
    watchdog.start()
    lines = []
    for line in process.stderr:  # bounded: the process is killed by the timeout below
        lines.append(line)
        if "event=replying" in line:  # the first of two replies: mid-step
            break
    process.send_signal(signum)
    try:
        _, rest = process.communicate(timeout=30)
    finally:
        watchdog.cancel()
        process.kill()
    log = "".join(lines) + rest
    reopened = make_campaign(tmp_path)
    try:
        delivered = [
            r["delivery"]["state"]
            for r in reopened.store.table("posts").values()
            if "delivery" in r
        ]
    finally:
        reopened.close()
    replies = Counter(c["parent_id"] for c in server.comments_by(server.bot))
    assert (0, "delivered") == (process.returncode, delivered[0]), log
    assert {"delivered", "pending"} >= set(delivered)
    assert (delivered.count("delivered"), {1}) == (len(replies), set(replies.values()))
    assert "event=stopped" in log
    # The reopening above rewrote config.toml: write the [reddit] table again.
    again = _run_once(tmp_path, _subprocess_campaign(server, tmp_path))
    assert 0 == again.returncode, again.stderr
    assert Counter(dict.fromkeys(comments, 1)) == Counter(
        c["parent_id"] for c in server.comments_by(server.bot)
    )


def test_a_tag_a_bracket_short_is_answered_on_reddit_and_prose_is_not(
    server: FakeReddit, live
) -> None:
    """On the local Reddit [[roll 2d6] gets the right form; [[citation needed] gets no reply."""
    harness = live()
    post = server.submit(SUB, "alice", "Session", "Scene set.")
    short = server.comment(post, "bob", "I try the lock [[roll 2d6]")
    prose = server.comment(post, "carol", "As the wiki says [[citation needed]")
    harness.run_until_settled()
    replies = [c["body"] for c in server.replies_to(short)]
    assert (1, True, []) == (
        len(replies),
        "write &#91;&#91;roll 2d6&#93;&#93; in a new reply" in replies[0],
        server.replies_to(prose),
    )
