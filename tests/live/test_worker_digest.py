"""GMs are told for real: problems reach them by private message, one digest an hour.

Real PRAW against the local Reddit, the worker on the fake clock: a post the referee
cannot handle and a wiki page the bot may not write each become a line of a private
message to every GM (the subreddit's moderators), at most one message an hour however
many problems come, each problem told once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

from referee.cli import main
from referee.live import operate
from referee.live.digest import DIGEST_EVERY
from referee.render.renderer import Renderer
from referee.testing.campaign import make_campaign, sheet
from referee.testing.reddit_server import FakeReddit
from referee.testing.soak import SoakBot
from referee.testing.worker import SUB, fake_reddit, reddit_section, worker_env

APPLICATION = (
    "Here is Orla. [[apply]]\n\n```\nname: Orla\nrace: human\nbackground: soldier\n"
    "strength: 2\nagility: 2\nendurance: 2\nperception: 2\n```\n"
)


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A FakeReddit whose one subreddit two GMs moderate."""
    with fake_reddit(moderators=("gm", "gm2")) as fake:
        yield fake


@pytest.fixture
def broken_applications(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rendering a reply to an application raises, as a broken template would."""
    render = Renderer.render

    def broken(self: Renderer, reply) -> str:
        if any(verdict.kind == "application" for verdict in reply.verdicts):
            raise RuntimeError("a bug no test foresaw")
        return render(self, reply)

    monkeypatch.setattr(Renderer, "render", broken)


def _digests(server: FakeReddit, user: str) -> list[dict]:
    return [
        m
        for m in server.messages_to(user)
        if m["author"] == server.bot and m["subject"].startswith("referee:")
    ]


def test_a_failed_post_reaches_every_gm_by_private_message_once_an_hour_at_most(
    server: FakeReddit, live, broken_applications
) -> None:
    """Two failures an hour apart: each GM gets one digest for the first, none for the
    second until an hour has passed, then one with it alone; the bot is never told."""
    harness = live()
    thread = server.submit(SUB, "alice", "Applications", "Post your sheets.")
    first = server.comment(thread, "orla", APPLICATION)
    harness.run_until(server.clock.now() + 120)
    second = server.comment(thread, "brak", APPLICATION.replace("Orla", "Brak"))
    harness.run_until(server.clock.now() + 600)
    (gm_digest,) = _digests(server, "gm")
    assert [gm_digest["body"]] == [m["body"] for m in _digests(server, "gm2")]
    assert first in gm_digest["body"] and second not in gm_digest["body"]
    assert f"referee failures --retry {first}" in gm_digest["body"]
    harness.run_until(server.clock.now() + DIGEST_EVERY)
    later = _digests(server, "gm")
    assert 2 == len(later)
    assert second in later[-1]["body"] and first not in later[-1]["body"]
    assert float(later[-1]["created_utc"]) - float(gm_digest["created_utc"]) >= DIGEST_EVERY
    harness.run_until(server.clock.now() + 3 * DIGEST_EVERY)
    assert 2 == len(_digests(server, "gm"))  # each problem told once
    assert [] == _digests(server, server.bot)


def test_a_wiki_page_the_bot_may_not_write_is_told_once(server: FakeReddit, live) -> None:
    """The bot is no wiki contributor: the GMs hear of it once, with what to do."""
    harness = live('wiki_page = "roster"\n')
    thread = server.submit(SUB, "alice", "Scene", "Roll.")
    server.comment(thread, "bob", "[[roll 1d20]]")
    harness.run_until(server.clock.now() + 4 * DIGEST_EVERY)
    (digest,) = _digests(server, "gm")
    assert "roster" in digest["body"] and "moderator" in digest["body"]


def test_run_once_exits_1_when_its_cycle_had_errors(
    server: FakeReddit, live, broken_applications, monkeypatch, capsys
) -> None:
    """`referee run --once` prints "1 error", tells the GMs at once and exits 1 (cron
    mails it); a clean run 0."""
    harness = live()
    folder = harness.folder
    harness.close()
    for key, value in worker_env(server).items():
        monkeypatch.setenv(key, value)
    thread = server.submit(SUB, "alice", "Applications", "Post your sheets.")
    server.comment(thread, "orla", APPLICATION)
    assert 1 == main(["--campaign", str(folder), "run", "--once"])
    assert "1 error." in capsys.readouterr().out
    (digest,) = _digests(server, "gm")  # told now, not at the next run
    assert "orla" in digest["body"]
    server.comment(thread, "bob", "[[roll 1d20]]")
    assert 0 == main(["--campaign", str(folder), "run", "--once"])
    assert 1 == len(_digests(server, "gm"))


def test_a_step_that_crashed_on_the_store_reaches_the_gms(server: FakeReddit, live) -> None:
    """A step that raised (a disk full, say) is told to the GMs with what to do."""
    harness = live()
    harness.worker.tell_crash(OSError(28, "No space left on device"))
    harness.run_until(server.clock.now() + 60)
    (digest,) = _digests(server, "gm")
    assert "No space left on device" in digest["body"] and "free space" in digest["body"]


def test_run_with_a_log_file_writes_the_log_there_and_rotates_it(
    server: FakeReddit, live, monkeypatch, tmp_path
) -> None:
    """`referee run --once --log-file FILE` writes its key=value lines to FILE, rotated
    past its size (FILE.1 the older lines), and leaves the process's logging as it was."""
    harness = live()
    folder = harness.folder
    harness.close()
    for key, value in worker_env(server).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(operate, "LOG_FILE_BYTES", 1000)  # a few lines a file
    thread = server.submit(SUB, "alice", "Scene", "Roll.")
    first = server.comment(thread, "bob", "[[roll 1d20]]")
    log_file = tmp_path / "referee.log"
    referee_log = logging.getLogger("referee")
    before = (referee_log.level, list(referee_log.handlers))
    assert 0 == main(["--campaign", str(folder), "run", "--once", "--log-file", str(log_file)])
    second = server.comment(thread, "bob", "[[roll 1d6]]")
    server.clock.advance(60)
    assert 0 == main(["--campaign", str(folder), "run", "--once", "--log-file", str(log_file)])
    logs = [log_file, *(log_file.with_name(f"referee.log.{n}") for n in range(1, 6))]
    written = "".join(f.read_text(encoding="utf-8") for f in logs if f.exists())
    assert (True, True) == (
        f"event=replied post={first}" in written,
        f"event=replied post={second}" in written,
    )
    assert log_file.with_name("referee.log.1").exists()  # rotated
    assert before == (referee_log.level, list(referee_log.handlers))


def test_status_says_the_bot_is_well_then_stuck_then_stopped(
    server: FakeReddit, live, monkeypatch, capsys
) -> None:
    """`referee status` exits 0 while the bot reads, 1 once it has not read for too long,
    and 1 when no bot runs: a service manager's health check."""
    harness = live()
    thread = server.submit(SUB, "alice", "Scene", "Roll.")
    server.comment(thread, "bob", "[[roll 1d20]]")
    harness.run_until(server.clock.now() + 120)
    monkeypatch.setattr(time, "time", server.clock.now)
    assert 0 == main(["--campaign", str(harness.folder), "status"])
    out = capsys.readouterr().out
    assert "bot: running" in out and "replies waiting: 0" in out and "failures: 0" in out
    server.clock.advance(3 * 3600)  # the bot does not step: as if hung
    assert 1 == main(["--campaign", str(harness.folder), "status"])
    assert "looks stuck" in capsys.readouterr().err
    harness.close()
    assert 1 == main(["--campaign", str(harness.folder), "status"])
    assert "no bot is running" in capsys.readouterr().err


def test_a_bot_killed_right_after_its_digest_sends_no_second_one_within_the_hour(
    tmp_path,
) -> None:
    """SIGKILL once Reddit took the GM's digest, before the bot read the answer: the bot
    started again sends no second digest within the hour (a crash loop is no flood)."""
    with FakeReddit() as server:
        server.add_subreddit(SUB, moderators=["gm"])  # the bot may not write the wiki
        extra = reddit_section(server, 'wiki_page = "roster"\n')
        make_campaign(tmp_path / "campaign", [sheet("Kara")], extra_config=extra).close()
        with (tmp_path / "bot.log").open("a", encoding="utf-8") as log:
            bot = SoakBot(server, tmp_path / "campaign", log)
            bot.start()
            thread = server.submit(SUB, "alice", "Scene", "Roll.")
            server.comment(thread, "bob", "[[roll 1d20]]")
            bot.kill_within(path="/api/compose", after_action=True)
            bot.run_until(server.clock.now() + 600)
            assert (1, 1) == (bot.crashes, len(_digests(server, "gm")))  # killed, and sent
            bot.run_until(server.clock.now() + DIGEST_EVERY - 900)
            bot.stop()
        assert 1 == len(_digests(server, "gm"))
