"""Tests for referee.testing.serve: the docs' way to watch the live bot without Reddit."""

import re
import socket

import pytest

from referee.cli import main
from referee.testing.fake_client import LocalReddit
from referee.testing.reddit_server import FakeReddit
from referee.testing.serve import describe, seed, seed_thread, write_campaign
from referee.testing.serve import main as serve
from referee.testing.shipped import DATA, REPO
from referee.testing.trial import demo_systems

DEMO = DATA / "demo"
STEPPED = demo_systems(REPO)["stepped"]


def test_the_bot_answers_the_demo_thread_on_the_local_server(tmp_path, monkeypatch, capsys):
    """`referee run --once` in the written campaign replies once to every tagged demo post."""
    with FakeReddit() as server:
        subreddit, posts = seed(server, DEMO / "thread.json")
        write_campaign(tmp_path, server, subreddit, STEPPED)
        monkeypatch.chdir(tmp_path)
        monkeypatch.delenv("REFEREE_SECRET", raising=False)
        # PRAW reads praw.ini once per process, so inside the test suite the written file
        # may be shadowed by an earlier test; its credentials go in as PRAW's variables.
        ini = dict(line.split("=", 1) for line in (tmp_path / "praw.ini").read_text().split()[1:])
        for key, value in ini.items():
            monkeypatch.setenv(f"praw_{key}", value)
        code = main(["run", "--once"])
        replies = server.comments_by(server.bot)
    parents = [reply["parent_id"] for reply in replies]
    bodies = "\n".join(reply["body"] for reply in replies)
    assert (0, 23, 22, len(parents)) == (code, posts, len(replies), len(set(parents)))
    assert {"client_id", "client_secret", "username", "password"} == set(ini)
    # The subreddit's moderator is the GM: the demo's approval goes through.
    assert ("Orla Vex is approved" in bodies, "belongs to" in bodies) == (True, True)


def _bot_env(tmp_path, monkeypatch) -> None:
    """The bot's credentials as PRAW's variables (praw.ini is read once per process)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("REFEREE_SECRET", raising=False)
    ini = dict(line.split("=", 1) for line in (tmp_path / "praw.ini").read_text().split()[1:])
    for key, value in ini.items():
        monkeypatch.setenv(f"praw_{key}", value)


def _run_once(capsys) -> str:
    assert 0 == main(["run", "--once"])
    return capsys.readouterr().out


def test_a_player_and_the_gm_post_edit_message_and_read_through_the_sub_commands(
    tmp_path, monkeypatch, capsys
):
    """The docs' local trial: posts by a player and the GM are answered; the line sums up."""
    with FakeReddit() as server:
        subreddit, thread, _ = seed_thread(server, DEMO / "thread.json")
        write_campaign(tmp_path, server, subreddit, STEPPED)
        describe(server, subreddit, thread, tmp_path / "data").write(tmp_path)
        _bot_env(tmp_path, monkeypatch)
        first = _run_once(capsys).strip().splitlines()[-1]
        at = ["--trial", str(tmp_path)]
        serve(["post", *at, "--as", "kara_venn_pbp", "Kara fires. [[roll Kara agility]]"])
        posted = capsys.readouterr().out.split(":")[0]
        serve(["message", *at, "--as", "gm_talon", "[[roll 1d20]] does the guard notice?"])
        serve(["post", *at, "--as", "dax_plays", "[[roll Kara agility]]"])
        capsys.readouterr()
        second = _run_once(capsys).strip().splitlines()[-1]
        serve(["edit", *at, "--as", "kara_venn_pbp", posted, "Kara fires twice. [[roll 1d6]]"])
        _run_once(capsys)
        serve(["replies", *at, "--limit", "3"])
        replies = capsys.readouterr().out
        serve(["inbox", *at, "--as", "gm_talon"])
        inbox = capsys.readouterr().out
        serve(["delete", *at, "--as", "kara_venn_pbp", posted])
        deleted = server.thing(posted)["author"]
        serve(["accounts", *at])
        accounts = capsys.readouterr().out
    assert first.startswith("referee: read 23 new posts and 0 messages; ")
    # How many tags are refused depends on the dice of the campaign's random secret.
    assert re.search(r"27 tags in 22 posts; 22 replies posted; \d+ refusals; 0 errors; ", first)
    assert (
        "referee: read 2 new posts and 1 message; 3 tags in 3 posts; 3 replies posted; "
        "1 refusal; 0 errors."
    ) == second
    assert (True, True, True) == (
        "Kara Venn agility" in replies,
        "edited after its rolls" in replies,
        "belongs to u&#47;kara" in replies,
    )
    assert ("**Roll 1d20**" in inbox, "[deleted]") == (True, deleted)
    assert "gm_talon        password 'password'        GM (moderator of r/DuneSeaPbP)" in accounts


def test_a_player_starts_a_new_thread_and_the_bot_answers_it(tmp_path, monkeypatch, capsys):
    """`serve submit` posts through PRAW's subreddit.submit; the bot referees the new thread."""
    with FakeReddit() as server:
        subreddit, thread, _ = seed_thread(server, DEMO / "thread.json")
        write_campaign(tmp_path, server, subreddit, STEPPED)
        describe(server, subreddit, thread, tmp_path / "data").write(tmp_path)
        _bot_env(tmp_path, monkeypatch)
        _run_once(capsys)
        at = ["--trial", str(tmp_path), "--as", "kara_venn_pbp"]
        serve(["submit", *at, "Side quest", "Kara slips away. [[roll Kara agility]]"])
        made = capsys.readouterr().out.split(":")[0]
        _run_once(capsys)
        title = server.thing(made)["title"]
        answers = [reply["body"] for reply in server.replies_to(made)]
    assert ("Side quest", 1, True) == (
        title,
        len(answers),
        "Kara Venn agility" in "".join(answers),
    )


def test_a_sub_command_without_a_running_server_says_how_to_start_one(tmp_path) -> None:
    """`post` before `start` exits saying which command starts the local Reddit."""
    with pytest.raises(SystemExit) as stopped:
        serve(["post", "--trial", str(tmp_path), "--as", "gm_talon", "[[roll 1d6]]"])
    assert f"referee-fake start --trial {tmp_path}" in str(stopped.value)


def test_a_sub_command_after_the_server_stopped_says_how_to_start_a_new_one(tmp_path) -> None:
    """The trial's state names a local Reddit that no longer listens (its terminal was
    closed): `post` says so and how to start a new one, instead of a traceback."""
    with socket.socket() as probe:  # a port on 127.0.0.1 where nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    LocalReddit(
        url=f"http://127.0.0.1:{port}",
        client_id="id",
        client_secret="secret",
        subreddit="trial",
        thread="t3_1",
        bot="referee_bot",
        accounts={"gm_talon": "password"},
        roles={"gm_talon": "GM"},
    ).write(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        serve(["post", "--trial", str(tmp_path), "--as", "gm_talon", "[[roll 1d6]]"])
    message = str(stopped.value)
    assert f"No local Reddit answers at http://127.0.0.1:{port}" in message
    assert f"referee-fake start --trial {tmp_path} --fresh" in message
