"""Tests for referee.testing.serve: the README's way to watch the live bot without Reddit."""

from pathlib import Path

from referee.cli import main
from referee.testing.reddit_server import FakeReddit
from referee.testing.serve import seed, write_campaign

DEMO = Path(__file__).resolve().parent.parent.parent / "data" / "demo"


def test_the_bot_answers_the_demo_thread_on_the_local_server(tmp_path, monkeypatch, capsys):
    """`referee run --once` in the written campaign replies once to every tagged demo post."""
    with FakeReddit() as server:
        subreddit, posts = seed(server, DEMO / "thread.json")
        write_campaign(tmp_path, server, subreddit, DEMO)
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
