"""``referee host``: each private message goes to the campaign its author means."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.live.reddit import Failure, ForumError
from referee.testing.campaign import sheet
from referee.testing.host import Rig, host_campaign
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import bot_messages, fake_reddit

SUBS = ("ashes", "bells", "crows")
NAMES = {"ashes": "Ashes of Empire", "bells": "Bells", "crows": "Crows"}
PLAYERS = {"ashes": ("quinn",), "bells": ("pia",), "crows": ("quinn",)}


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A FakeReddit with three subreddits, one campaign each."""
    with fake_reddit(subreddits=SUBS) as fake:
        yield fake


@pytest.fixture
def rig(server: FakeReddit, tmp_path: Path) -> Iterator[Rig]:
    """Three campaigns, each with its own GM; pia plays in bells, quinn in ashes and crows."""
    folders = []
    for sub in SUBS:
        sheets: list[dict[str, Any]] = [
            sheet(f"{player.title()} of {sub}", owner=player) for player in PLAYERS[sub]
        ]
        folders.append(
            host_campaign(
                server, tmp_path / sub, sub, name=NAMES[sub], gms=(f"gm_{sub}",), sheets=sheets
            )
        )
    made = Rig(server, tmp_path, (), folders=folders)
    yield made
    made.close()


def _stores(rig: Rig, *messages: str) -> dict[str, list[str]]:
    """Which campaigns' stores hold each message."""
    return {
        message: [Path(w.folder).name for w in rig.host.workers if message in w.posts]
        for message in messages
    }


def _answers(server: FakeReddit, user: str) -> list[str]:
    return [m["body"] for m in server.messages_to(user) if m["author"] == server.bot]


def test_a_message_goes_to_the_campaign_its_author_plays_in(server: FakeReddit, rig: Rig) -> None:
    """A player of the second campaign asking for his catch-up, and the GM of the third
    rolling in secret, are answered by their own campaigns, not the first."""
    pia = server.send_message("pia", server.bot, "hi", "[[catchup]]")
    gm = server.send_message("gm_crows", server.bot, "secret", "[[roll 1d20]]")
    rig.run_until(server.clock.now() + 600)
    crows = next(w for w in rig.host.workers if Path(w.folder).name == "crows")
    assert {pia: ["bells"], gm: ["crows"]} == _stores(rig, pia, gm)
    assert Counter({pia: 1}) == bot_messages(server, "pia")
    assert Counter({gm: 1}) == bot_messages(server, "gm_crows")
    assert [gm] == [row["post"] for row in crows.store.ledger]


def test_a_player_of_several_campaigns_is_asked_once_which_one(
    server: FakeReddit, rig: Rig
) -> None:
    """A player of two campaigns who names none gets one answer naming both and how to
    name one; nothing is rolled or kept; naming one in the subject reaches it."""
    vague = server.send_message("quinn", server.bot, "hi", "[[catchup]]")
    rig.run_until(server.clock.now() + 600)
    (answer,) = _answers(server, "quinn")
    named = server.send_message("quinn", server.bot, "catch-up #crows", "[[catchup]]")
    rig.run_until(server.clock.now() + 600)
    assert {vague: [], named: ["crows"]} == _stores(rig, vague, named)
    assert Counter({vague: 1, named: 1}) == bot_messages(server, "quinn")
    assert all(
        part in answer for part in ("Ashes of Empire (`#", "Crows (`#crows`)", "Nothing was")
    ), answer
    assert "Bells" not in answer


def test_a_campaign_named_in_the_subject_takes_the_message(server: FakeReddit, rig: Rig) -> None:
    """A subject naming a campaign sends the message there, by its name or its folder,
    even when the author plays elsewhere: that campaign refuses a secret roll politely."""
    by_name = server.send_message("pia", server.bot, "roll #ashes-of-empire", "[[roll 1d6]]")
    by_folder = server.send_message("gm_ashes", server.bot, "re #ASHES", "[[roll 1d8]]")
    rig.run_until(server.clock.now() + 600)
    assert {by_name: ["ashes"], by_folder: ["ashes"]} == _stores(rig, by_name, by_folder)
    (refusal,) = _answers(server, "pia")
    assert "Only a GM of Ashes of Empire" in refusal


def test_an_answer_to_an_ambiguous_message_is_not_repeated(
    server: FakeReddit, rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The inbox could not be marked read after the answer (as after a crash): the
    message, read again, is found answered in the bot's sent messages, not answered twice."""
    forum = rig.host.accounts["bot"].forum
    failed: list[int] = []

    def refuse(fullnames: object) -> None:
        failed.append(1)
        raise ForumError(Failure.SERVER, "Reddit is down")

    monkeypatch.setattr(forum, "mark_read", refuse)
    vague = server.send_message("quinn", server.bot, "hi", "[[catchup]]")
    rig.run_until(server.clock.now() + 600)
    monkeypatch.undo()
    rig.run_until(server.clock.now() + 600)
    assert (True, Counter({vague: 1})) == (len(failed) > 1, bot_messages(server, "quinn"))
