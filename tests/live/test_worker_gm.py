"""The worker's GM tools against FakeReddit: moderators as GMs, secret rolls, the wiki roster."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.base.errors import ConfigError
from referee.base.markdown import escape_markdown
from referee.live.parts import WIKI_RETRY
from referee.pipeline.campaign import load_config
from referee.store.ledger import verify
from referee.testing import sheet
from referee.testing.reddit_server import FakeReddit, Fault
from referee.testing.worker import (
    POLL,
    SECRET,
    SUB,
    bot_messages,
    fake_reddit,
    reddit_section,
)

MOD = "mira"  # a moderator of the subreddit who is not in config.toml's gms
PAGE = "roster"
APPLICATION = """[[apply]] Here is Orla.

```
name: Orla Vex
background: experienced
strength: 2
agility: 2
endurance: 1
perception: 2
magic: Force 2
technique: Telekinesis d4
technique: Mind Trick d6
```
"""


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """FakeReddit whose subreddit is moderated by gm and mira; the bot may edit its wiki."""
    with fake_reddit(moderators=("gm", MOD), wiki_contributors=("referee_bot",)) as fake:
        for user in ("orla_player", "bob"):
            fake.add_user(user)
        yield fake


def _application(server: FakeReddit) -> tuple[str, str]:
    thread = server.submit(SUB, "gm", "Applications", "Apply below.")
    return thread, server.comment(thread, "orla_player", APPLICATION)


def _messages_from_bot(server: FakeReddit, user: str) -> list[dict[str, Any]]:
    return [m for m in server.messages_to(user) if m["author"] == server.bot]


# -- moderators are GMs ----------------------------------------------------------------


def test_a_moderators_approval_works(server: FakeReddit, live) -> None:
    """mira is no GM in config.toml, but moderates the subreddit: her [[approve]] counts."""
    harness = live()
    _, application = _application(server)
    approval = server.comment(application, MOD, "[[approve]]")
    harness.run_until_settled()
    (reply,) = server.replies_to(approval)
    record = harness.campaign.store.table("characters").get("orla vex")
    assert (True, "orla_player") == (record["approved"], record["owner"])
    assert "Only a GM" not in reply["body"]


def test_a_non_moderators_approval_is_refused_with_a_clear_reply(server: FakeReddit, live) -> None:
    """bob neither moderates nor is listed: his [[approve]] is refused, and says why."""
    harness = live()
    _, application = _application(server)
    approval = server.comment(application, "bob", "[[approve]]")
    harness.run_until_settled()
    (reply,) = server.replies_to(approval)
    assert "Only a GM may approve applications" in reply["body"]
    assert "moderators" in reply["body"]
    assert None is harness.campaign.store.table("characters").get("orla vex")


def test_moderators_are_read_at_start_kept_and_refreshed_after_the_hours(
    server: FakeReddit, live
) -> None:
    """One read at start; a restart within moderators_refresh_hours reads none; a cycle
    after them reads again."""
    harness = live("moderators_refresh_hours = 2\n")
    harness.worker.cycle()
    harness.close()
    harness.start()
    for _ in range(3):
        harness.worker.cycle()
        server.clock.advance(POLL)
    before = server.count("GET", f"/r/{SUB}/about/moderators")
    server.clock.advance(2 * 3600)
    harness.worker.cycle()
    harness.worker.cycle()
    after = server.count("GET", f"/r/{SUB}/about/moderators")
    assert (1, 2) == (before, after)
    assert {"gm", MOD} <= harness.worker.referee.gms


def test_config_rejects_bad_moderator_and_inbox_settings(tmp_path: Path) -> None:
    """moderators_refresh_hours must be an hour or more; inbox_every 0 (never) or more."""
    path = tmp_path / "config.toml"
    path.write_text("[reddit]\nmoderators_refresh_hours = 0.5\ninbox_every = -1\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = error.value.message
    assert (True, True) == ("moderators_refresh_hours" in message, "inbox_every" in message)
    path.write_text("[reddit]\ninbox_every = 1\n")  # every poll: reads no longer take turns
    assert 1 == load_config(path).reddit.inbox_every


def test_config_defaults_for_the_new_keys(tmp_path: Path) -> None:
    """Refresh the moderators every 6 hours and read the inbox every cycle by default."""
    path = tmp_path / "config.toml"
    path.write_text("")
    reddit = load_config(path).reddit
    assert (6.0, 3, "") == (reddit.moderators_refresh_hours, reddit.inbox_every, reddit.wiki_page)


# -- secret rolls by private message -----------------------------------------------------


def test_a_gms_secret_roll_is_answered_privately_once_and_in_the_ledger(
    server: FakeReddit, live
) -> None:
    """A GM's DM with tags gets one private reply; the rolls are in the ledger, marked
    private, and their dice follow from HMAC(secret, the message's t4_ fullname, index)."""
    harness = live(sheets=[sheet("Trooper 1", "npc", named=False)])
    message = server.send_message(
        MOD, server.bot, "secret", "[[roll 1d20+3]] and [[roll Trooper 1 perception]]"
    )
    harness.run_until_settled()
    for _ in range(3):
        harness.worker.cycle()
    rows = [r for r in harness.campaign.store.ledger if r["post"] == message]
    (reply,) = _messages_from_bot(server, MOD)
    assert Counter({message: 1}) == bot_messages(server, MOD)
    assert reply["body"] == harness.campaign.store.table("posts").get(message)["reply"]
    assert ([0, 1], [True, True]) == (
        [r["tag_index"] for r in rows],
        [r["outcome"]["private"] for r in rows],
    )
    assert verify(list(harness.campaign.store.ledger), SECRET.encode()).ok
    assert [] == [c for c in server.comments_by(server.bot)]  # nothing public


def test_a_non_gms_dm_is_refused_once_and_nothing_rolled(server: FakeReddit, live) -> None:
    """Tags by DM from someone who is not a GM: one polite private refusal, no roll."""
    harness = live()
    message = server.send_message("bob", server.bot, "hi", "[[roll 1d20]] secretly please")
    harness.run_until_settled()
    for _ in range(3):
        harness.worker.cycle()
    (reply,) = _messages_from_bot(server, "bob")
    assert Counter({message: 1}) == bot_messages(server, "bob")
    assert "Only a GM" in reply["body"] and "nothing was rolled" in reply["body"]
    assert 0 == len(harness.campaign.store.ledger)


def test_a_lost_answer_on_the_private_reply_does_not_double_it(server: FakeReddit, live) -> None:
    """The reply lands but its answer is lost: the bot's sent box shows it; no second one."""
    harness = live()
    message = server.send_message(MOD, server.bot, "secret", "[[roll 2d6]]")
    server.inject("POST /api/comment", Fault.LOST_RESPONSE)
    harness.run_until_settled()
    for _ in range(3):
        harness.worker.cycle()
    record = harness.campaign.store.table("posts").get(message)
    assert Counter({message: 1}) == bot_messages(server, MOD)
    assert ("delivered", 1) == (record["delivery"]["state"], server.count("POST", "/api/comment"))
    assert 1 <= server.count("GET", "/message/sent")


def test_a_crash_before_the_private_reply_replies_after_looking(server: FakeReddit, live) -> None:
    """The intent is flushed and the worker dies before replying: a restart looks, then
    replies once; the message, already marked read, is not taken in again."""
    harness = live()
    message = server.send_message(MOD, server.bot, "secret", "[[roll 2d6]]")

    def crash(parent: str, text: str) -> str:
        raise SystemExit("killed before the POST")

    harness.worker.forum.reply = crash  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        harness.worker.cycle()
    harness.restart()
    harness.run_until_settled()
    assert Counter({message: 1}) == bot_messages(server, MOD)
    assert 1 == len(harness.campaign.store.ledger)


def test_comment_replies_and_mentions_are_not_dms(server: FakeReddit, live) -> None:
    """Inbox items that are comments get no private answer; listings cover them."""
    harness = live()
    thread = server.submit(SUB, "bob", "Scene", "u/referee_bot look [[roll 1d4]]")
    harness.run_until_settled()
    (reply,) = server.replies_to(thread)
    server.comment(reply["name"], "bob", "thanks! [[roll 1d6]]")
    harness.run_until_settled()
    unread = server.reddit().inbox.unread(limit=None)
    assert ([], 0) == (_messages_from_bot(server, "bob"), len(list(unread)))
    assert 2 == len(server.comments_by(server.bot))


def test_dms_without_tags_are_left_unanswered(server: FakeReddit, live) -> None:
    """A chatty DM, even a GM's, gets no reply."""
    harness = live()
    server.send_message(MOD, server.bot, "hello", "Thanks for refereeing!")
    harness.run_until_settled()
    assert [] == _messages_from_bot(server, MOD)


def test_inbox_every_zero_never_reads_the_inbox(server: FakeReddit, live) -> None:
    """inbox_every = 0 switches secret rolls off: the inbox is never read."""
    harness = live("inbox_every = 0\n")
    server.send_message(MOD, server.bot, "secret", "[[roll 2d6]]")
    harness.run_until_settled()
    assert (0, []) == (server.count("GET", "/message/unread"), _messages_from_bot(server, MOD))


# -- the roster on the wiki ----------------------------------------------------------------


def test_the_wiki_roster_follows_an_approval_and_is_not_re_edited(server: FakeReddit, live) -> None:
    """After an approval the page lists the character; unchanged, it is not edited again."""
    harness = live(f'wiki_page = "{PAGE}"\n')
    harness.run_until_settled()
    edits_before = server.count("POST", f"/r/{SUB}/api/wiki/edit")
    before = server.wiki_page(SUB, PAGE)
    _, application = _application(server)
    server.comment(application, MOD, "[[approve]]")
    harness.run_until_settled()
    server.comment(application, "orla_player", "[[roll 1d6]]")  # a roll changes no sheet
    harness.run_until_settled()
    page = server.wiki_page(SUB, PAGE)
    assert (1, 2) == (edits_before, server.count("POST", f"/r/{SUB}/api/wiki/edit"))
    assert ("Orla Vex" in (before or ""), "Orla Vex" in (page or "")) == (False, True)
    assert f"u&#47;{escape_markdown('orla_player')}" in (page or "")


def test_a_restart_does_not_republish_an_unchanged_roster(server: FakeReddit, live) -> None:
    """The page's hash is kept in the store: a new process with the same roster edits nothing."""
    harness = live(f'wiki_page = "{PAGE}"\n', sheets=[sheet("Kara", owner="kara_p")])
    harness.run_until_settled()
    harness.close()
    harness.start()
    harness.run_until_settled()
    assert 1 == server.count("POST", f"/r/{SUB}/api/wiki/edit")
    assert "Kara" in (server.wiki_page(SUB, PAGE) or "")


def test_a_wound_republishes_the_roster(server: FakeReddit, live) -> None:
    """[[wound X +1]] by a GM changes the roster page."""
    harness = live(f'wiki_page = "{PAGE}"\n', sheets=[sheet("Kara", owner="kara_p")])
    harness.run_until_settled()
    thread = server.submit(SUB, "gm", "Scene", "[[wound Kara +1]]")
    harness.run_until_settled()
    assert 2 == server.count("POST", f"/r/{SUB}/api/wiki/edit"), server.replies_to(thread)
    assert "| 1/3 |" in (server.wiki_page(SUB, PAGE) or "")


def test_wounds_in_quick_succession_share_a_roster_edit_a_minute(server: FakeReddit, live) -> None:
    """Six wounds and heals ten seconds apart: the page is edited at the first, then once
    a minute on with where they left Kara, so the wiki never takes the replies' budget."""
    harness = live(f'wiki_page = "{PAGE}"\n', sheets=[sheet("Kara", owner="kara_p")])
    clock = server.clock
    harness.run_until(clock.now() + 120, 0.3)
    thread = server.submit(SUB, "gm", "Scene", "The fight begins. [[roll 1d20]]")
    harness.run_until(clock.now() + 60, 0.3)  # answered: the game is active
    for change in ("wound Kara +1", "heal Kara 1") * 2 + ("wound Kara +1",) * 2:
        server.comment(thread, "gm", f"[[{change}]]")
        harness.run_until(clock.now() + 10, 0.3)
    harness.run_until(clock.now() + 240, 0.3)
    # At start, at the first wound, and a minute on (one an edit without the gap: seven).
    assert 3 == server.count("POST", f"/r/{SUB}/api/wiki/edit")
    assert "| 2/3 |" in (server.wiki_page(SUB, PAGE) or "")


def test_a_403_on_the_wiki_is_warned_once_and_retried_quietly_until_it_works(
    server: FakeReddit, live, caplog
) -> None:
    """Not allowed to edit the wiki: one warning a run, quiet retries; replies go on."""
    harness = live(f'wiki_page = "{PAGE}"\n', sheets=[sheet("Kara", owner="kara_p")])
    server.inject(f"POST /r/{SUB}/api/wiki/edit", Fault.FORBIDDEN, times=2)
    start = server.clock.now()
    with caplog.at_level(logging.INFO, "referee.live.worker"):
        harness.run_until(start + 60)
        _, application = _application(server)
        approval = server.comment(application, MOD, "[[approve]]")
        harness.run_until(start + 2.5 * WIKI_RETRY)
    assert (3, 1, 1) == (
        server.count("POST", f"/r/{SUB}/api/wiki/edit"),
        caplog.text.count("event=roster_refused"),
        len(server.replies_to(approval)),
    )
    assert "Orla Vex" in (server.wiki_page(SUB, PAGE) or "")


def test_made_a_moderator_the_bot_publishes_the_roster_at_once(server: FakeReddit, live) -> None:
    """Refused, then made a moderator: the roster goes up when the moderators are next read."""
    harness = live(
        f'wiki_page = "{PAGE}"\nmoderators_refresh_hours = 1\n',
        sheets=[sheet("Kara", owner="kara_p")],
    )
    server.inject(f"POST /r/{SUB}/api/wiki/edit", Fault.FORBIDDEN, times=1)
    start = server.clock.now()
    harness.run_until(start + 30)
    server.add_moderator(SUB, server.bot)
    harness.run_until(start + 3600 + 120)
    assert (2, True) == (
        server.count("POST", f"/r/{SUB}/api/wiki/edit"),
        "Kara" in (server.wiki_page(SUB, PAGE) or ""),
    )


def test_the_roster_shows_each_thread_s_initiative_and_conditions(server: FakeReddit, live) -> None:
    """A GM's fight in a thread goes on the wiki page: order, whose turn, conditions."""
    harness = live(f'wiki_page = "{PAGE}"\n', sheets=[sheet("Kara", owner="kara_p")])
    thread = server.submit(
        SUB, "gm", "Ambush", "[[init add Goblin 14]] [[init add Kara 9]] [[next]]"
    )
    server.comment(thread, "gm", "[[init effect Kara stunned 2]]")
    harness.run_until_settled()
    page = server.wiki_page(SUB, PAGE) or ""
    assert (True, True, True) == (
        "## Initiative" in page,
        "round 1, **Goblin**'s turn; then Kara" in page,
        "2. 9: Kara · *stunned* until round 3" in page,
    )


def test_a_5xx_on_the_wiki_is_retried_next_cycle(server: FakeReddit, live) -> None:
    """A passing failure leaves the page due: the next cycle edits it."""
    harness = live(f'wiki_page = "{PAGE}"\n', sheets=[sheet("Kara", owner="kara_p")])
    server.inject(f"POST /r/{SUB}/api/wiki/edit", Fault.SERVICE_UNAVAILABLE, times=3)
    harness.run_until_settled()
    assert "Kara" in (server.wiki_page(SUB, PAGE) or "")


def test_reddit_section_points_at_the_server(server: FakeReddit) -> None:
    """The harness's [reddit] table names the subreddit and the server's address."""
    text = reddit_section(server, "inbox_every = 2\n", subreddits=["a", "b"])
    assert ('subreddits = ["a", "b"]', server.url in text) == (text.splitlines()[1], True)
