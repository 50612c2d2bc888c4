"""Benchmark: the turn timers' punctuality and cost, on the local Reddit and the fake clock.

Run:  .venv/bin/python bench/pace_timers.py

1. A simulated week of a four-player fight (24-hour turns, on_expiry "skip", poll_seconds
   600): three players act two hours into their turns, one never does. Reports every
   reminder's and expiry line's lateness (the bot's comment time less its due time) and
   the requests the worker sent a simulated day.
2. The idle cost: requests over the 20 quiet hours between a turn's start and its
   reminder, with ``[pace]`` and without (the same thread, the same worker).
3. The CPU cost of a ``[[next]]`` (parse, resolve, render, record) with a deadline to
   keep and without, in one process: the ratio is what carries.
"""

from __future__ import annotations

import itertools
import statistics
import tempfile
import time
from pathlib import Path

from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.resolve.pace import HOUR
from referee.testing import make_campaign
from referee.testing.pace import PLAYERS, SHEETS, Fight, pace
from referee.testing.worker import Live, fake_reddit

IDLE = 600


def week() -> tuple[list[float], list[float], float]:
    """Lateness of reminders and of expiry lines (seconds), and requests a simulated day."""
    with fake_reddit() as server, tempfile.TemporaryDirectory() as folder:
        harness = Live(server, Path(folder), pace(24, "skip"), sheets=SHEETS, poll=IDLE)
        try:
            fight = Fight(server, harness).start()
            start, sent = server.clock.now(), server.count()
            acted: set[int] = set()
            karas: list[int] = []
            while server.clock.now() < start + 7 * 24 * HOUR:
                fight.run(0.5)
                turn, whose = fight.turn(), fight.whose()
                if whose == ("Kara Venn",):
                    karas += [] if turn.serial in karas else [turn.serial]
                elif turn.serial not in acted and server.clock.now() - turn.since >= 2 * HOUR:
                    fight.act(PLAYERS[whose[0]])
                    acted.add(turn.serial)
            per_day = (server.count() - sent) / 7
            reminders = [
                c["created_utc"] - (fight.seen[s].since + 12 * HOUR)
                for s in karas
                for c in fight.notices("remind", s)
            ]
            expiries = [
                c["created_utc"] - (fight.seen[s].since + 24 * HOUR)
                for s in karas
                for c in fight.notices("expire", s)
            ]
        finally:
            harness.close()
    return reminders, expiries, per_day


def idle_requests(config: str) -> int:
    """Requests over the 20 hours after a fight's first turn began, nobody posting."""
    with fake_reddit() as server, tempfile.TemporaryDirectory() as folder:
        harness = Live(server, Path(folder), config, sheets=SHEETS, poll=IDLE)
        try:
            Fight(server, harness).start()
            harness.run_until(server.clock.now() + HOUR)
            before = server.count()
            harness.run_until(server.clock.now() + 20 * HOUR)
            return server.count() - before
        finally:
            harness.close()


def next_cpu(config: str, posts: int = 2000) -> float:
    """CPU seconds a [[next]] post takes through the Referee, on average."""
    with tempfile.TemporaryDirectory() as folder:
        campaign = make_campaign(Path(folder), SHEETS, extra_config=config)
        referee = Referee(campaign, clock=lambda: 1.7e9)
        numbers = itertools.count(1)

        def post(author: str, body: str) -> None:
            n = next(numbers)
            referee.referee(Post(f"t1_n{n}", "t3_fight", author, body, 1.7e9 + n))

        post("gm", "[[init add Kara Venn 20]] [[init add Dax Orr 15]] [[init add Mox Rell 5]]")
        started = time.thread_time()
        for _ in range(posts):
            post("gm", "[[next]]")
        spent = (time.thread_time() - started) / posts
        campaign.close()
    return spent


def main() -> None:
    reminders, expiries, per_day = week()
    with_pace, without = idle_requests(pace(48, "skip")), idle_requests("")
    timed, plain = next_cpu(pace(48, "skip")), next_cpu("")
    print("| what | figure |")
    print("|---|---|")
    print(
        f"| reminders in a simulated week: lateness median / max | {len(reminders)}: "
        f"{statistics.median(reminders):.0f} s / {max(reminders):.0f} s (poll_seconds {IDLE}) |"
    )
    print(
        f"| expiry lines: lateness median / max | {len(expiries)}: "
        f"{statistics.median(expiries):.0f} s / {max(expiries):.0f} s |"
    )
    print(f"| requests a simulated day, the whole fight | {per_day:.0f} |")
    print(f"| requests in 20 idle hours, with [pace] / without | {with_pace} / {without} |")
    print(
        f"| a [[next]] post's CPU time, with a deadline / without | {timed * 1e6:.0f} µs / "
        f"{plain * 1e6:.0f} µs ({timed / plain:.2f}×) |"
    )


if __name__ == "__main__":
    main()
