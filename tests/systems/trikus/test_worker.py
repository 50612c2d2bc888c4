"""trikus by the live worker: a test opened, declared into and resolved across a restart."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, fake_reddit

from .test_system import party_sheets


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A running FakeReddit whose moderator ``gm`` is the campaign's GM."""
    with fake_reddit() as fake:
        yield fake


def test_a_pending_test_survives_a_worker_restart(server: FakeReddit, live) -> None:
    """Declarations kept before a crash are used by the declaration that completes the test."""
    harness = live(sheets=party_sheets(), system="trikus")
    thread = server.submit(SUB, "gm", "Session 1", '[[open test 2 Zuzia, Pawel "the gate"]]')
    first = server.comment(thread, "zuzia", "Carefully. [[declare Zuzia line=1]]")
    harness.run_until_settled()
    harness.restart()
    last = server.comment(thread, "pawel", "Me too. [[declare Pawel]]")
    harness.run_until_settled()
    (waiting,) = [c["body"] for c in server.replies_to(first)]
    (resolved,) = [c["body"] for c in server.replies_to(last)]
    assert "Waiting for Pawel" in waiting
    assert "Zuzia (1 die: `line=1`), Pawel (1 die)" in resolved
    assert "Stakes: *the gate*" in resolved
    assert harness.campaign is not None
    zuzia = harness.campaign.store.table("characters").get("zuzia")["sheet"]
    assert ["free", "struck"] == [line["status"] for line in zuzia["lines"]]


def test_a_players_gm_verb_is_answered_with_the_reason(server: FakeReddit, live) -> None:
    """A player's [[go]] is refused in the reply, naming who may."""
    harness = live(sheets=party_sheets(), system="trikus")
    thread = server.submit(SUB, "gm", "Session 1", "[[open test 2 Zuzia, Pawel]]")
    post = server.comment(thread, "pawel", "Let's roll! [[go]]")
    harness.run_until_settled()
    (reply,) = [c["body"] for c in server.replies_to(post)]
    assert "Only a GM may resolve a test before every player has declared" in reply


def test_a_negotiation_between_players_waits_across_a_restart(server: FakeReddit, live) -> None:
    """A duel stopped on one player's Negotiation is answered by the other after a restart."""
    harness = live(sheets=party_sheets(), system="trikus")
    thread = server.submit(SUB, "gm", "Session 2", "[[open duel Zuzia, Pawel]]")
    server.comment(thread, "zuzia", "[[declare Zuzia negotiate=1]]")
    last = server.comment(thread, "pawel", "[[declare Pawel negotiate=1]]")
    harness.run_until_settled()
    (waiting,) = [c["body"] for c in server.replies_to(last)]
    asked = re.search(r"The duel waits for (\w+)'s player", waiting)
    assert asked is not None, waiting
    harness.restart()
    answer = server.comment(thread, asked.group(1).lower(), "[[answer no]]")
    harness.run_until_settled()
    (answered,) = [c["body"] for c in server.replies_to(answer)]
    assert f"asks to reroll {asked.group(1)}'s" in answered and "refused" in answered


def test_the_gms_undo_through_the_worker(server: FakeReddit, live) -> None:
    """[[undo]] in a live thread puts a GM edit back and marks the undone reply void."""
    harness = live(sheets=party_sheets(), system="trikus")
    thread = server.submit(SUB, "gm", "Session 3", "[[morale Zuzia 4]]")
    harness.run_until_settled()
    harness.restart()
    server.comment(thread, "gm", "Wrong one. [[undo]]")
    harness.run_until_settled()
    assert harness.campaign is not None
    zuzia = harness.campaign.store.table("characters").get("zuzia")["sheet"]
    assert 0 == zuzia["morale"]
