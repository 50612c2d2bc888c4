"""The live worker against a poison post: good posts around it are all answered once,
the poison post gets its one reply, and neither a restart nor the next cycle meets it again."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator

import pytest

from referee.pipeline.failures import FAILURE_REPLY, FailureLog
from referee.render.renderer import Renderer
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, fake_reddit

POISON_APPLICATION = (
    "Here is Orla. [[apply]]\n\n```\nname: Orla\nrace: human\nbackground: soldier\n"
    "strength: 99999999999999999999\nagility: 2\nendurance: 2\nperception: 2\n"
    "armour: 99999999999999999999\n```\n"
)
BUG = "a bug no test foresaw"


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A running FakeReddit with one subreddit; PRAW's sleeps are recorded, not slept."""
    with fake_reddit() as fake:
        yield fake


@pytest.fixture
def buggy_templates(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Rendering any reply to an application raises, as a broken template would; the
    posts it raised for are listed."""
    render = Renderer.render
    raised: list[str] = []

    def broken(self: Renderer, reply) -> str:
        if any(verdict.kind == "application" for verdict in reply.verdicts):
            raised.append(reply.post_fullname)
            raise RuntimeError(BUG)
        return render(self, reply)

    monkeypatch.setattr(Renderer, "render", broken)
    return raised


def _good(server: FakeReddit, thread: str, count: int) -> list[str]:
    return [server.comment(thread, "bob", f"I try [[roll 1d{n + 4}]]") for n in range(count)]


def test_the_issues_poison_application_is_answered_with_its_problem(
    server: FakeReddit, live
) -> None:
    """The application of issue 18 (strength 99999999999999999999) is a problem verdict;
    every post around it, before and after a restart, is answered exactly once."""
    harness = live()
    thread = server.submit(SUB, "alice", "Applications", "Post your sheets.")
    before = _good(server, thread, 2)
    poison = server.comment(thread, "orla", POISON_APPLICATION)
    after = _good(server, thread, 2)
    harness.run_until_settled()
    harness.restart()
    later = _good(server, thread, 2)
    harness.run_until_settled()
    expected = Counter(dict.fromkeys([*before, poison, *after, *later], 1))
    (reply,) = server.replies_to(poison)
    assert expected == harness.bot_replies()
    assert "Strength must be a whole number from -99 to 99" in reply["body"]


def test_a_post_that_fails_is_answered_once_and_the_bot_keeps_serving(
    server: FakeReddit, live, buggy_templates, caplog: pytest.LogCaptureFixture
) -> None:
    """A post that raises is answered once with the notice and logged at ERROR with its
    link (once: after a restart, an edit of it does not run it again); the posts around
    it, and after the restart, are answered exactly once and the next cycle is normal."""
    harness = live()
    thread = server.submit(SUB, "alice", "Applications", "Post your sheets.")
    before = _good(server, thread, 2)
    poison = server.comment(thread, "orla", POISON_APPLICATION.replace("99999999999999999999", "2"))
    after = _good(server, thread, 2)
    caplog.set_level(logging.ERROR, logger="referee")
    harness.run_until_settled()
    harness.restart()
    server.edit(poison, server.thing(poison)["body"] + "\n\nEdited.")  # seen again: no re-run
    later = _good(server, thread, 2)
    harness.run_until_settled()
    report = harness.worker.cycle()
    expected = Counter(dict.fromkeys([*before, poison, *after, *later], 1))
    (reply,) = server.replies_to(poison)
    failure = FailureLog(harness.campaign.store).get(poison)
    link = f"https://www.reddit.com/comments/{thread[3:]}/_/{poison[3:]}/"
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert expected == harness.bot_replies()
    assert (FAILURE_REPLY.format(post=poison), f"RuntimeError: {BUG}") == (
        reply["body"],
        failure.error,
    )
    assert 1 == sum(f"post={poison} link={link}" in message for message in errors)
    assert ([poison], None, False) == (buggy_templates, report.failure, report.skipped)
    assert "Edited." in harness.worker.forum.info([poison])[0].body


def test_a_roster_that_cannot_be_rendered_does_not_stop_the_replies(
    server: FakeReddit, live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broken roster template turns the wiki page off; every post is still answered."""
    from referee.render.roster import RosterRenderer

    def broken(self: RosterRenderer, view) -> str:
        raise RuntimeError("a broken roster template")

    monkeypatch.setattr(RosterRenderer, "render", broken)
    harness = live('wiki_page = "roster"\n')
    thread = server.submit(SUB, "alice", "Scene", "Go.")
    posts = _good(server, thread, 3)
    harness.run_until_settled()
    report = harness.worker.cycle()
    assert (Counter(dict.fromkeys(posts, 1)), None) == (harness.bot_replies(), report.failure)
