"""pool on the live worker (real PRAW, FakeReddit): state across posts and restarts, GM DMs."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, fake_reddit

KARA = {
    "name": "Kara Venn",
    "kind": "pc",
    "owner": "kara_plays",
    "traits": {"dexterity": 3, "security": 3, "wits": 2},
    "willpower": 5,
}


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    with fake_reddit() as fake:
        yield fake


def _reply(server: FakeReddit, post: str) -> str:
    (reply,) = [c["body"] for c in server.replies_to(post)]
    return reply


def _tally(text: str) -> int:
    return int(re.search(r"\*\*The vault door(?: is done)?: (\d+) of 50\*\*", text)[1])


def _net(text: str) -> int:
    return int(re.search(r"success, (\d+) net\*\*", text)[1])


def test_a_task_and_willpower_survive_a_restart(server: FakeReddit, live) -> None:
    """A roll on a task, a crash-restart, a second roll: the tally and the points carry on."""
    harness = live(system="pool", sheets=[KARA])
    thread = server.submit(SUB, "gm", "The vault", "[[task the vault door target 50]]")
    first = server.comment(
        thread, "kara_plays", "[[roll Kara Venn dexterity+security willpower on the vault door]]"
    )
    harness.run_until_settled()
    harness.restart()
    second = server.comment(
        thread, "kara_plays", "[[roll Kara Venn wits+security willpower on the vault door]]"
    )
    harness.run_until_settled()
    before, after = _reply(server, first), _reply(server, second)
    kara = harness.campaign.store.table("characters").get("kara venn")["sheet"]
    record = harness.campaign.store.table("pool_threads").get(thread)
    assert (_tally(before) + _net(after), 3) == (_tally(after), kara["willpower_points"])
    assert _tally(after) == record["tasks"]["the vault door"]["tally"]


def test_a_player_s_gm_verb_is_refused_and_the_gm_s_dm_edit_lands(server: FakeReddit, live) -> None:
    """A player's [[difficulty 5]] is refused with the reason; a GM's DM gives a point back."""
    harness = live(system="pool", sheets=[KARA])
    thread = server.submit(SUB, "gm", "Scene", "[[difficulty 8]]")
    spend = server.comment(thread, "kara_plays", "[[roll Kara Venn wits willpower]]")
    cheat = server.comment(thread, "kara_plays", "[[difficulty 5]]")
    harness.run_until_settled()
    server.send_message("gm", server.bot, "edit", "[[set Kara Venn points +1]]")
    harness.run_until_settled()
    for _ in range(3):
        harness.worker.cycle()
    kara = harness.campaign.store.table("characters").get("kara venn")["sheet"]
    assert "at difficulty 8" in _reply(server, spend)
    assert "Only a GM may set the standing difficulty" in _reply(server, cheat)
    assert 5 == kara["willpower_points"]
