"""The table's records on the local Reddit: voids, GM secrets, the GMs' page, deleted rolls.

Real PRAW against FakeReddit, with a GM (a moderator), two players and a stranger, each
writing posts and private messages as on Reddit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from referee.store.ledger import verify
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


# -- the GMs' page --------------------------------------------------------------------------


@pytest.fixture
def moderator_bot() -> Iterator[FakeReddit]:
    """FakeReddit where the bot is a moderator (wiki settings need it); two players."""
    with fake_reddit(moderators=(GM, "referee_bot")) as fake:
        for user in ("kara", "dax"):
            fake.add_user(user)
        yield fake


def test_the_gm_page_holds_the_secrets_and_only_moderators_may_read_it(
    moderator_bot: FakeReddit, tmp_path
) -> None:
    """A private NPC and a private wound: the GMs' page holds both and is moderators-only
    (permlevel 2, unlisted): a player reading it is refused; the public page holds neither."""
    from referee.testing.worker import Live

    server = moderator_bot
    harness = Live(
        server,
        tmp_path / "campaign",
        f'wiki_page = "{PAGE}"\ngm_wiki_page = "{PAGE}/gm"\n',
        sheets=SHEETS,
    )
    try:
        server.send_message(GM, server.bot, "ambush", "[[npc Shadow Agent as veteran]]")
        server.send_message(GM, server.bot, "quietly", "[[wound Trooper 2 +1]]")
        thread = server.submit(SUB, "kara", "Applications", "")
        server.comment(thread, "dax", "[[apply]]\n\n```\nname: Orla Vex\nstrength: 2\n```\n")
        harness.run_until_settled()
    finally:
        harness.close()
    gm_page = server.wiki_page(SUB, f"{PAGE}/gm") or ""
    public = _roster(server)
    player = server.reddit("kara")
    with pytest.raises(Exception) as refused:
        player.subreddit(SUB).wiki[f"{PAGE}/gm"].content_md  # noqa: B018 - the read is the test
    assert {"permlevel": 2, "listed": False} == {
        key: server.wiki_settings(SUB, f"{PAGE}/gm")[key] for key in ("permlevel", "listed")
    }
    assert "403" in str(refused.value)
    assert "| Shadow Agent | human |" in gm_page
    assert "| Trooper 2 | human | str d6, agi d8, end d6, per d8 | 1/0 | dead |" in gm_page
    assert "| Orla Vex | u&#47;dax |" in gm_page
    assert ("Shadow" not in public, "| 0/0 | fighting |" in public.split("Trooper 2")[1]) == (
        True,
        True,
    )


def test_a_bot_that_may_not_protect_the_gm_page_warns_once_and_writes_nothing(
    server: FakeReddit, live, caplog
) -> None:
    """The bot edits the wiki but moderates nothing: one clear warning; no roster there."""
    harness = _live(live, f'gm_wiki_page = "{PAGE}/gm"\n')
    server.send_message(GM, server.bot, "ambush", "[[npc Shadow Agent as veteran]]")
    with caplog.at_level("WARNING", logger="referee"):
        harness.run_until_settled()
        server.send_message(GM, server.bot, "more", "[[npc Night Agent as veteran]]")
        harness.run_until_settled()
    warnings = [r.getMessage() for r in caplog.records if "gm_roster_off" in r.getMessage()]
    assert 1 == len(warnings)
    assert "Make the bot a moderator of r/dicegames with wiki permission" in warnings[0]
    assert "Shadow" not in (server.wiki_page(SUB, f"{PAGE}/gm") or "")
    assert "| Trooper 1 |" in _roster(server)  # the public page goes on as before


# -- a roll stands when its post is deleted ---------------------------------------------------


def test_a_deleted_roll_is_recorded_noted_in_its_reply_and_on_the_next_roll(
    server: FakeReddit, live
) -> None:
    """Kara rolls, sees a low total, deletes the post and rolls again: her old reply says
    the post was deleted and the roll stands, the new verdict names the deleted roll, the
    ledger has an appended row for it, and verify still passes."""
    harness = _live(live)
    thread = server.submit(SUB, GM, "Scene 3", "The wall is high.")
    first = server.comment(thread, "kara", "[[roll Kara agility]] I climb.")
    harness.run_until_settled()
    server.delete(first)
    harness.run_until_settled()  # the edit sweep re-reads it: [deleted]
    second = server.comment(thread, "kara", "[[roll Kara agility]] I climb.")
    harness.run_until_settled()
    rows = list(harness.campaign.store.ledger)
    gone = [row for row in rows if row["kind"] == "deleted"]
    first_id = first.partition("_")[2]
    assert "The post this answers was deleted by its author" in _reply(server, first)
    assert f"Kara Venn rolled {first_id}-1 \\(total" in _reply(server, second)
    assert "that was since deleted; that roll stands" in _reply(server, second)
    assert [f"{first_id}-deleted"] == [row["roll_id"] for row in gone]
    assert [f"{first_id}-1"] == gone[0]["outcome"]["rolls"]
    assert verify(rows, SECRET.encode()).ok


def test_a_repost_in_the_same_poll_cycle_carries_the_note_itself(server: FakeReddit, live) -> None:
    """Kara deletes her rolled post and reposts before the bot polls again: the note that
    her first roll stands is on the repost's own verdict, not on a later, unrelated one."""
    harness = _live(live)
    thread = server.submit(SUB, GM, "Scene 3b", "The wall is high.")
    first = server.comment(thread, "kara", "[[roll Kara agility]] I climb.")
    harness.run_until_settled()
    server.delete(first)
    repost = server.comment(thread, "kara", "[[roll Kara agility]] I climb.")
    harness.run_until_settled()
    later = server.comment(thread, "kara", "[[roll Kara perception]] I look around.")
    harness.run_until_settled()
    first_id = first.partition("_")[2]
    assert "The post this answers was deleted by its author" in _reply(server, first)
    assert f"Kara Venn rolled {first_id}-1 \\(total" in _reply(server, repost)
    assert "that was since deleted; that roll stands" in _reply(server, repost)
    assert "that roll stands" not in _reply(server, later)
    assert verify(list(harness.campaign.store.ledger), SECRET.encode()).ok


def test_a_repost_answered_before_the_deletion_is_seen_is_edited_to_say_it(
    server: FakeReddit, live
) -> None:
    """Kara reposts, the bot answers, then she deletes the first post: the repost's
    delivered reply is edited to carry the note."""
    harness = _live(live)
    thread = server.submit(SUB, GM, "Scene 3c", "The wall is high.")
    first = server.comment(thread, "kara", "[[roll Kara agility]] I climb.")
    harness.run_until_settled()
    repost = server.comment(thread, "kara", "[[roll Kara agility]] I climb.")
    harness.run_until_settled()
    answered = _reply(server, repost)
    server.delete(first)
    harness.run_until_settled()
    first_id = first.partition("_")[2]
    assert "that roll stands" not in answered
    assert f"Kara Venn rolled {first_id}-1 \\(total" in _reply(server, repost)
    assert 1 == harness.bot_replies()[repost]


def test_a_moderators_removal_is_recorded_as_a_removal(server: FakeReddit, live) -> None:
    """The GM removes Dax's rolled post: recorded as removed, said in its reply and on
    Dax's next roll; `[[history Dax]]` marks the roll as in a removed post."""
    harness = _live(live)
    thread = server.submit(SUB, GM, "Scene 4", "The door.")
    rolled = server.comment(thread, "dax", "[[roll Dax perception]]")
    harness.run_until_settled()
    server.reddit(GM).comment(rolled.partition("_")[2]).mod.remove()
    harness.run_until_settled()
    again = server.comment(thread, "dax", "[[roll Dax perception]] [[history Dax]]")
    harness.run_until_settled()
    kinds = [row["kind"] for row in harness.campaign.store.ledger]
    assert "removed" in kinds and "deleted" not in kinds
    assert "was removed by a moderator" in _reply(server, rolled)
    text = _reply(server, again)
    assert "that was since removed; that roll stands" in text
    assert "(the post was removed; the roll stands)" in text


def test_the_permission_matrix_still_holds_for_the_new_verbs(server: FakeReddit, live) -> None:
    """Players may look things up; only a GM voids, revives, renames, removes, reveals."""
    harness = _live(live)
    thread = server.submit(SUB, GM, "Scene 5", "")
    rolled = server.comment(thread, "kara", "[[roll Kara agility]]")
    harness.run_until_settled()
    roll = rolled.partition("_")[2] + "-1"
    tries = server.comment(
        thread,
        "dax",
        f"[[sheet Kara]] [[history Kara]] [[pending]] [[void {roll} no]] [[revive Trooper 1]] "
        "[[rename Trooper 1 -> X]] [[remove Trooper 1]] [[reveal Trooper 1]]",
    )
    harness.run_until_settled()
    text = _reply(server, tries)
    assert 5 == text.count("Only a GM may")
    assert "**Kara Venn**, played by u&#47;kara" in text and "No application awaits" in text


def test_a_players_verbless_tag_never_names_a_hidden_npc(server: FakeReddit, live) -> None:
    """[[Shadow Agent agility]] by a player: no "write it as [[roll Shadow Agent ...]]"."""
    harness = _live(live)
    server.send_message(GM, server.bot, "ambush", "[[npc Shadow Agent as veteran]]")
    thread = server.submit(SUB, GM, "Scene 6", "")
    probe = server.comment(thread, "kara", "[[Shadow Agent agility]] [[Shadow Agnt agility]]")
    harness.run_until_settled()
    text = _reply(server, probe)
    assert [] == [leak for leak in ("[[roll Shadow", "Did you mean Shadow") if leak in text]
