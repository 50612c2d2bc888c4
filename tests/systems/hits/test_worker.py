"""hits on the live worker (real PRAW, FakeReddit): campaign state across posts and restarts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, fake_reddit

PAGE = "roster"
KARA = {
    "name": "Kara Venn",
    "kind": "pc",
    "owner": "kara_plays",
    "primary": "body",
    "secondary": "mind",
    "influence": 4,
    "skills": {"Swordsmanship": 2},
}
OGRE = {"name": "Ogre", "kind": "npc", "level": 1, "body": 4, "talent": 2, "spirit": 1, "mind": 1}


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    with fake_reddit(wiki_contributors=("referee_bot",)) as fake:
        yield fake


def _reply(server: FakeReddit, post: str) -> str:
    (reply,) = [c["body"] for c in server.replies_to(post)]
    return reply


def test_scene_chapter_timers_and_duels_survive_a_restart(server: FakeReddit, live) -> None:
    """Tension, a timer, a spend and a waiting duel set before a crash-restart hold after it:
    the duel then costs by the stored Tension, rolls, and the chapter's XP counts both ways."""
    harness = live(f'wiki_page = "{PAGE}"\n', system="hits", sheets=[KARA, OGRE])
    thread = server.submit(
        SUB,
        "gm",
        "Chapter 1",
        '[[chapter start]] [[scene combat]] [[tension 2]] [[timer new Alarm 4 "guards"]]',
    )
    leave = server.comment(thread, "kara_plays", "[[leave Kara]]")
    harness.run_until_settled()
    harness.restart()
    duel = server.comment(thread, "kara_plays", "[[duel Kara -> Ogre with body]]")
    gm = server.comment(thread, "gm", "[[timer alarm +1]] [[duel 1 roll]]")
    harness.run_until_settled()
    kara = harness.campaign.store.table("characters").get("kara venn")["sheet"]
    state = harness.campaign.store.table("hits_campaign").get("campaign")
    assert "Influence 4 → **3**" in _reply(server, leave)
    assert "2 Influence" in _reply(server, duel)
    assert "Alarm: 1/4." in _reply(server, gm)
    assert (["leave", "duel"], 1, 2, 1) == (
        [s["way"] for s in state["chapter"]["spends"]],
        state["timers"][0]["filled"],
        state["scene"]["tension"],
        kara["influence"],  # 4, less 1 for Leave and 2 for a duel at Tension 2
    )
    page = server.wiki_page(SUB, PAGE) or ""
    assert ("Scene 1: combat, Tension 2." in page, "| Alarm | 1/4 ●○○○ | guards |" in page) == (
        True,
        True,
    )


def test_gm_verbs_by_a_player_are_refused_with_the_reason(server: FakeReddit, live) -> None:
    """A player's [[scene combat]] and [[set ...]] are refused; nothing of the campaign moves."""
    harness = live(system="hits", sheets=[KARA, OGRE])
    thread = server.submit(SUB, "kara_plays", "Scene", "[[scene combat]] [[set Kara xp 20]]")
    harness.run_until_settled()
    reply = _reply(server, thread)
    kara = harness.campaign.store.table("characters").get("kara venn")["sheet"]
    assert (
        "Only a GM may start or end a scene" in reply,
        "Only a GM may edit characters" in reply,
    ) == (
        True,
        True,
    )
    assert (0, None) == (kara["xp"], harness.campaign.store.table("hits_campaign").get("campaign"))
