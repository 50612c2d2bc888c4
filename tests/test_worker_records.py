"""The table's records on the local Reddit: voids, GM secrets, the GMs' page, deleted rolls.

Real PRAW against FakeReddit, with a GM (a moderator), two players and a stranger, each
writing posts and private messages as on Reddit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from referee.ledger import verify
from referee.testing import sheet
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SECRET, SUB, fake_reddit

GM = "gm"
PAGE = "roster"
SHEETS = (
    sheet("Kara Venn", owner="kara"),
    sheet("Dax Orrel", owner="dax"),
    sheet("Trooper 1", kind="npc"),
    sheet("Trooper 2", kind="npc"),
)


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """FakeReddit moderated by the GM; the bot may edit the wiki; two players and a stranger."""
    with fake_reddit(moderators=(GM,), wiki_contributors=("referee_bot",)) as fake:
        for user in ("kara", "dax", "stranger"):
            fake.add_user(user)
        yield fake


def _reply(server: FakeReddit, fullname: str) -> str:
    (reply,) = [r for r in server.replies_to(fullname) if r["author"] == server.bot]
    return str(reply["body"])


def _dm_reply(server: FakeReddit, user: str) -> str:
    bodies = [m["body"] for m in server.messages_to(user) if m["author"] == server.bot]
    return str(bodies[-1])


def _roster(server: FakeReddit) -> str:
    return server.wiki_page(SUB, PAGE) or ""


def _live(live: Any, extra: str = "") -> Any:
    return live(f'wiki_page = "{PAGE}"\n{extra}', sheets=SHEETS)


# -- the GM's corrections -----------------------------------------------------------------


def test_a_gms_void_edits_the_voided_reply_and_undoes_the_wound(server: FakeReddit, live) -> None:
    """Kara's shot kills Trooper 1; the GM voids it in the thread: the reply says void and
    why, Trooper 1 stands again on the roster, and the ledger still verifies."""
    harness = _live(live)
    thread = server.submit(SUB, GM, "Scene 1", "The troopers advance.")
    shot = server.comment(thread, "kara", "[[wound Trooper 1 +1]] I shoot!")
    harness.run_until_settled()
    refused = _reply(server, shot)
    gm_wound = server.comment(thread, GM, "[[wound Trooper 1 +1]]")
    harness.run_until_settled()
    roll = gm_wound.partition("_")[2] + "-1"
    void = server.comment(thread, GM, f"[[void {roll} that shot was out of range]]")
    harness.run_until_settled()
    voided_reply = _reply(server, gm_wound)
    trooper = harness.campaign.store.table("characters").get("trooper 1")["sheet"]
    assert "Only a GM" in refused
    assert "is void** (the GM, u&#47;gm): that shot was out of range" in voided_reply
    assert "undone: Trooper 1" in _reply(server, void)
    assert 0 == trooper["wounds"]
    assert "| Trooper 1 | human | str d6, agi d8, end d6, per d8 | 0/0 | fighting |" in _roster(
        server
    )
    assert verify(list(harness.campaign.store.ledger), SECRET.encode()).ok


# -- what a GM does in private stays private --------------------------------------------


def test_a_private_npc_is_absent_for_players_until_revealed(server: FakeReddit, live) -> None:
    """The GM creates Shadow Agent by private message: the public roster, a player's
    [[sheet]] and a player's misspelt tag never name it; after [[reveal]] all do."""
    harness = _live(live)
    server.send_message(GM, server.bot, "ambush", "[[npc Shadow Agent as veteran]]")
    harness.run_until_settled()
    created = _dm_reply(server, GM)
    thread = server.submit(SUB, GM, "Scene 2", "Quiet streets.")
    probe = server.comment(
        thread, "kara", "[[sheet Shadow Agent]] [[shoot Kara -> Shadw Agent]] [[roster]]"
    )
    harness.run_until_settled()
    before = (_roster(server), _reply(server, probe))
    server.comment(thread, GM, "The agent steps out. [[reveal Shadow Agent]]")
    harness.run_until_settled()
    after = server.comment(thread, "dax", "[[sheet Shadow Agent]]")
    harness.run_until_settled()
    assert "**Shadow Agent enters play**" in created
    assert "Shadow" not in before[0]
    assert ("named 'Shadow Agent'", "named 'Shadw Agent'") == (
        "named 'Shadow Agent'" if "named 'Shadow Agent'" in before[1] else before[1],
        "named 'Shadw Agent'" if "named 'Shadw Agent'" in before[1] else before[1],
    )
    assert [] == [leak for leak in ("Did you mean", "| Shadow", "GMs only") if leak in before[1]]
    assert "| Shadow Agent | human |" in _roster(server)
    assert "**Shadow Agent**, the GM's character" in _reply(server, after)


def test_a_private_wound_is_not_public_but_the_gm_sees_it(server: FakeReddit, live) -> None:
    """[[wound Trooper 2 +1]] by private message: the public roster keeps Trooper 2
    fighting; the GM's [[roster]] by message shows him dead."""
    harness = _live(live)
    harness.run_until_settled()
    server.send_message(GM, server.bot, "quietly", "[[wound Trooper 2 +1]]")
    harness.run_until_settled()
    server.send_message(GM, server.bot, "check", "[[roster]]")
    harness.run_until_settled()
    gm_view = _dm_reply(server, GM)
    assert "| Trooper 2 | human | str d6, agi d8, end d6, per d8 | 0/0 | fighting |" in _roster(
        server
    )
    assert "| Trooper 2 | human | str d6, agi d8, end d6, per d8 | 1/0 | dead |" in gm_view
    assert "## Applications awaiting a decision" in gm_view


def test_a_strangers_roster_by_message_is_refused_and_shows_nothing(
    server: FakeReddit, live
) -> None:
    """Someone who is no GM sends [[roster]] by message: a refusal, no roster."""
    harness = _live(live)
    server.send_message(GM, server.bot, "ambush", "[[npc Shadow Agent as veteran]]")
    server.send_message("stranger", server.bot, "hi", "[[roster]]")
    harness.run_until_settled()
    answer = _dm_reply(server, "stranger")
    assert "Only a GM" in answer and "Shadow" not in answer


def test_npc_stats_hidden_keeps_stats_off_the_public_roster(server: FakeReddit, live) -> None:
    """roster.npc_stats = "hidden": the wiki roster shows Trooper 1's state, not his dice."""
    harness = _live(live, '\n[roster]\nnpc_stats = "hidden"\n')
    harness.run_until_settled()
    page = _roster(server)
    assert "| Trooper 1 | 0/0 | fighting |" in page
    assert "| Kara Venn | u&#47;kara | human | soldier | str d6, agi d8" in page
