"""Timers exactly once: lost answers, crashes, clock jumps, a restart after the deadline,
and a worker process killed with SIGKILL around its reminders."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.cli import main
from referee.live.timers import KeepsPace
from referee.render.notices import notice_mark
from referee.resolve.pace import HOUR
from referee.testing import make_campaign, sheet
from referee.testing.pace import PLAYERS, SHEETS, Fight, bot_pms, pace
from referee.testing.reddit_server import FakeClock, FakeReddit, Fault, client_sleeps
from referee.testing.worker import SUB, bot_replies, fake_reddit, reddit_section, worker_env

IDLE = 600  # poll_seconds


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """FakeReddit with one subreddit moderated by the GM; the players have accounts."""
    with fake_reddit() as fake:
        for player in PLAYERS.values():
            fake.add_user(player)
        yield fake


@pytest.mark.parametrize(
    ("fault", "by_message"),
    [
        pytest.param(Fault.LOST_RESPONSE, False, id="thread-lost"),
        pytest.param(Fault.LOST_RESPONSE_500, False, id="thread-lost-500"),
        pytest.param(Fault.TIMEOUT, False, id="thread-timeout"),
        pytest.param(Fault.SERVER_ERROR, False, id="thread-500"),
        pytest.param(Fault.RATELIMIT, False, id="thread-ratelimit"),
        pytest.param(Fault.LOST_RESPONSE, True, id="message-lost"),
        pytest.param(Fault.TIMEOUT, True, id="message-timeout"),
        pytest.param(Fault.SERVICE_UNAVAILABLE, True, id="message-503"),
    ],
)
def test_a_reminder_whose_answer_is_lost_is_sent_exactly_once(
    server, live, fault, by_message
) -> None:
    """Reddit loses the answer to the reminder (or refuses it for now): the worker looks
    for it by its mark before trying again, and Kara is reminded once."""
    harness = live("timeout = 0.3\n" + pace(24, "gm"), sheets=SHEETS, poll=IDLE)
    fight = Fight(server, harness)
    if by_message:
        setup = server.submit(SUB, "gm", "Setup", "How to remind you?")
        server.comment(setup, "kara", "[[remind me by message]]")
    fight.start()
    fight.run(11.9)
    route = "POST /api/compose" if by_message else "POST /api/comment"
    server.inject(route, fault, retry_after=5, message="try again in 1 minute.")
    for _ in range(8):
        fight.run(0.25)
        server.release()
    reminders = (
        bot_pms(server, "kara", "is running out") if by_message else fight.notices("remind", 1)
    )
    assert (1, 0, {}) == (
        len(reminders),
        server.pending_faults(),
        dict(harness.campaign.store.table("notices").items()),
    )


@pytest.mark.parametrize("crash", ["after-posting", "before-sending"])
def test_a_crash_around_a_reminder_neither_loses_nor_doubles_it(
    server, live, monkeypatch, crash
) -> None:
    """The worker dies just after the reminder landed (its answer lost, nothing more
    flushed), or while firing it before anything was sent: started again, it finds the
    one it sent, or sends the one it never did; Kara is reminded once."""
    harness = live(pace(24, "gm"), sheets=SHEETS, poll=IDLE)
    fight = Fight(server, harness).start()
    fight.run(11.9)
    if crash == "after-posting":
        server.inject("POST /api/comment", Fault.LOST_RESPONSE)
    else:
        send = KeepsPace._send_notices
        calls = []

        def dies(self, report, *, one):
            calls.append(1)
            if len(calls) == 1:
                raise RuntimeError("killed")
            return send(self, report, one=one)

        monkeypatch.setattr(KeepsPace, "_send_notices", dies)
    with pytest.raises(RuntimeError) if crash == "before-sending" else _nothing():
        fight.run(0.5)
    harness.restart()
    fight.run(1)
    assert 1 == len(fight.notices("remind", 1))


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


def test_a_clock_jump_passes_one_turn_and_the_next_one_starts_at_the_jump(server, live) -> None:
    """Six hours into Kara's turn the clock jumps five days (a suspended machine): no late
    reminder, one line passing her turn, and Dax's turn begins then, with its full day."""
    fight = Fight(server, live(pace(24, "skip"), sheets=SHEETS, poll=IDLE)).start()
    fight.run(6)
    server.clock.advance(5 * 24 * HOUR)
    jumped = server.clock.now()
    fight.run(2)
    (line,) = fight.notices("expire", 1)
    dax = fight.turn()
    assert ([], ("Dax Orr",), []) == (
        fight.notices("remind", 1),
        fight.whose(),
        fight.notices("expire", 2),
    )
    assert 0 <= dax.since - jumped <= IDLE and 0 <= line["created_utc"] - jumped <= IDLE
    fight.run(20)  # 22 hours after the jump: Dax reminded at 12, his turn not yet over
    assert (1, ("Dax Orr",)) == (len(fight.notices("remind", 2)), fight.whose())


def test_a_restart_after_the_deadline_passed_sends_the_expiry_alone_once(server, live) -> None:
    """The worker is down from hour 2 to hour 30 of Kara's 24-hour turn: started again it
    tells the GM once that her time ran out, and never sends the missed reminder."""
    harness = live(pace(24, "gm"), sheets=SHEETS, poll=IDLE)
    fight = Fight(server, harness).start()
    fight.run(2)
    server.clock.advance(28 * HOUR)
    harness.restart()
    fight.run(1)
    harness.restart()
    fight.run(48)
    assert ([], 1) == (fight.notices("remind", 1), len(bot_pms(server, "gm", "ran out at")))


def test_after_a_restore_a_reminder_sent_since_the_backup_is_not_sent_again(
    server, live, tmp_path, capsys
) -> None:
    """The backup was made before Kara's reminder went out; restored after it, the store
    says she was never reminded: the bot finds the reminder it sent instead of sending it
    again, and her turn's expiry still goes to the GM once."""
    harness = live(pace(24, "gm"), sheets=SHEETS, poll=IDLE)
    fight = Fight(server, harness).start()
    fight.run(2)
    harness.close()
    assert 0 == main(["--campaign", str(harness.folder), "backup", str(tmp_path / "b.tar.gz")])
    harness.start()
    fight.run(11)
    harness.close()
    assert 1 == len(fight.notices("remind", 1))
    assert 0 == main(["--campaign", str(harness.folder), "restore", str(tmp_path / "b.tar.gz")])
    capsys.readouterr()
    harness.start()
    fight.run(13)
    assert (1, 1) == (len(fight.notices("remind", 1)), len(bot_pms(server, "gm", "ran out at")))


def _await_notices(server: FakeReddit, process: subprocess.Popen[bytes], target: int) -> bool:
    """Wait (bounded) until the bot has posted ``target`` reminders; False if it exited."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            process.wait(timeout=0.005)
            return False
        except subprocess.TimeoutExpired:
            pass
        if _reminders(server) >= target:
            return True
    return True


def _reminders(server: FakeReddit) -> int:
    return sum("is running out" in c["body"] for c in server.comments_by(server.bot))


@pytest.mark.slow
def test_sigkill_around_reminders_loses_and_doubles_none(tmp_path: Path) -> None:
    """Twelve fights whose turns began 13 hours ago (24-hour turns): `referee run` is
    killed with SIGKILL after a random number of reminders, four times, then `run --once`
    finishes: every turn has exactly one reminder and every tag one reply."""
    clock = FakeClock(time.time() - 13 * HOUR)  # the bot runs on the wall clock
    with FakeReddit(clock=clock, quota=1_000_000_000) as server, client_sleeps():
        server.add_subreddit(SUB, moderators=["gm"])
        threads, orders = [], []
        for n in range(12):
            thread = server.submit(SUB, "gm", f"Fight {n}", "Initiative!")
            threads.append(thread)
            orders.append(
                server.comment(
                    thread, "gm", "[[init add Kara Venn 20]] [[init add Dax Orr 15]] [[next]]"
                )
            )
        extra = reddit_section(
            server, "timeout = 2.0\nbudget_share = 1.0\n" + pace(24, "gm"), poll=5
        )
        sheets = [sheet("Kara Venn", owner="kara"), sheet("Dax Orr", owner="dax")]
        make_campaign(tmp_path, sheets, extra_config=extra).close()
        base = [sys.executable, "-m", "referee", "--campaign", str(tmp_path), "run"]
        chance = random.Random(20261203)
        kills = killed_mid = 0
        log_path = tmp_path / "worker.log"
        for _ in range(4):
            with log_path.open("a") as log_file:
                process = subprocess.Popen(
                    base, env=worker_env(server), cwd=tmp_path, stderr=log_file
                )
            try:
                landed = _reminders(server)
                if _await_notices(server, process, landed + chance.randint(1, 3)):
                    process.send_signal(signal.SIGKILL)
                    process.wait(timeout=10)
                    kills += 1
                    killed_mid += 0 < _reminders(server) < 12
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
        final = subprocess.run(
            [*base, "--once"], env=worker_env(server), cwd=tmp_path, capture_output=True, timeout=60
        )
        bot = server.comments_by(server.bot)
        per_thread = [
            sum(notice_mark(f"remind:{thread}:1") in c["body"] for c in bot) for thread in threads
        ]
        replies = bot_replies(server)
    log = log_path.read_text()
    print(
        f"kills={kills} killed_mid_reminders={killed_mid} "
        f"found_after_crash={log.count('event=notice_found')} "
        f"sent_again={log.count('event=notice_not_found')}"
    )
    assert (4, 0) == (kills, final.returncode)
    assert killed_mid >= 3  # the kills landed while reminding, not before or after
    assert [1] * 12 == per_thread
    assert [1] * 12 == [replies[order] for order in orders]
