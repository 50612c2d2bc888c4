"""Tests for referee.resolve.npc: [[npc NAME: sheet]] in every system that keeps NPCs."""

from pathlib import Path

import pytest

from referee.base.errors import Forbidden, UserError
from referee.cli import main
from referee.pipeline.campaign import Campaign
from referee.resolve.dispatch import verbs_for
from referee.resolve.npc import example, keeps_npcs
from referee.system.registry import installed_systems, load_system
from referee.testing import fake_client, resolve_tag, tag_context
from referee.testing.fake_client import LocalReddit
from referee.testing.reddit_server import FakeReddit
from referee.testing.serve import describe, seed_source, write_campaign
from referee.testing.trial import Source, make_folder

OWN_NPC = {"stepped"}  # a system with an npc verb of its own keeps it


def _campaign(system: str, folder: Path) -> Campaign:
    main(["new", str(folder), "--system", system, "--name", "NPC test"])
    config = folder / "config.toml"
    config.write_text(config.read_text().replace("gms = []", 'gms = ["gm"]'), encoding="utf-8")
    return Campaign.open(folder)


def test_every_system_has_an_npc_verb_or_keeps_no_npcs() -> None:
    """Each installed system has [[npc]] (its own or the core's), or its sheets refuse NPCs."""
    missing = [
        name
        for name in installed_systems()
        if "npc" not in verbs_for(load_system(name)) and keeps_npcs(load_system(name))
    ]
    assert [] == missing


@pytest.mark.parametrize(
    "system",
    [n for n in installed_systems() if n not in OWN_NPC and keeps_npcs(load_system(n))],
)
def test_a_gms_npc_reads_the_systems_sheet_and_enters_play(system, tmp_path, capsys) -> None:
    """The verb's example, written by a GM, puts an approved NPC without owner on the roster."""
    with _campaign(system, tmp_path / system) as campaign:
        tag = example(campaign.system)
        resolution = resolve_tag(tag_context(campaign, "gm"), tag)
        record = campaign.store.table("characters").get("watcher")
        with pytest.raises(Forbidden):
            resolve_tag(tag_context(campaign, "player_one"), tag.replace("Watcher", "Other"))
        with pytest.raises(UserError) as refused:
            resolve_tag(tag_context(campaign, "gm"), "npc Broken: nonsense 99")
    assert ("npc_entered", None, True) == (
        resolution.kind,
        record["owner"],
        bool(record["approved"]),
    )
    assert f"[[{tag}]]" in refused.value.message


def _bot_env(folder: Path, monkeypatch) -> None:
    """The bot's credentials as PRAW's variables (praw.ini is read once per process)."""
    monkeypatch.chdir(folder)
    monkeypatch.delenv("REFEREE_TRIAL_SECRET", raising=False)
    ini = dict(line.split("=", 1) for line in (folder / "praw.ini").read_text().split()[1:])
    for key, value in ini.items():
        monkeypatch.setenv(f"praw_{key}", value)


def test_an_npc_brought_in_by_private_message_stays_hidden(tmp_path, monkeypatch, capsys):
    """A GM's [[npc]] by private message: the GM is answered in private, a player sees no NPC."""
    campaign = tmp_path / "campaign"
    _campaign("pool", campaign).close()
    trial = tmp_path / "trial"
    make_folder(trial, fresh=False)
    source = Source(campaign / "config.toml", None, "a new campaign")
    with FakeReddit() as server:
        subreddit, thread, _ = seed_source(server, source)
        write_campaign(trial, server, subreddit, source)
        describe(server, subreddit, thread, trial / "data").write(trial)
        local = LocalReddit.read(trial)
        _bot_env(trial, monkeypatch)
        tag = example(load_system("pool"))
        fake_client.message(local, "gm", f"An ambush: [[{tag}]]", "ambush", "")
        main(["run", "--once"])
        asked = fake_client.post(local, "new_player", "[[sheet Watcher]]", None)
        main(["run", "--once"])
        capsys.readouterr()
        inbox = [body for _, _, body in fake_client.inbox(local, "gm", 5)]
        answer = " ".join(reply["body"] for reply in server.replies_to(asked))
    assert (True, True, False) == (
        any("Watcher enters play" in body for body in inbox),
        "Watcher" in answer,
        "perception 3" in answer,
    )
