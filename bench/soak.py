"""72 simulated hours of the live bot: latency and memory hour by hour, crashes included.

The real worker in its own process (``referee.testing.soak_bot``) against the local
Reddit look-alike through real PRAW, on the look-alike's clock (every request takes
0.3 s of it), as ``referee.testing.soak`` drives it: a session of play of two hours
every eight hours and one in the last two (players' tagged and untagged comments, new
scenes, the GM's rolls, wounds and heals on the roster page, secret rolls and a
stranger's refused ones by private message, edits of answered posts, deletions), a
tagged comment now and then between sessions. In the first day the bot is restarted
three times and killed with SIGKILL thirteen times (between steps, at random points of
its requests, and right after Reddit took a reply whose answer it never read); from
the 22nd hour on one process runs to the end.

It prints a Markdown table, one row an hour: the tagged comments of the sessions posted
in that hour and their seconds from post to verdict (p50, p95, max), the requests sent,
the bot's resident memory at the hour's end, the processes started so far and the
hour's crashes; then the audit (duplicate and missed replies, missed edit notes) and
the first hour against the last.

    .venv/bin/python bench/soak.py [--hours 72] [--seed 72]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from referee.testing.soak import Hour, Plan, soak

SESSION_EVERY = 8.0  # hours from one session's start to the next
SESSION_HOURS = 2.0
RESTARTS = (6.0, 14.0, 22.0)
KILLS = (1.2, 8.3, 9.1, 16.4, 17.2)  # within the bot's next few requests
REPLY_KILLS = (1.5, 8.7, 9.5, 16.8, 17.6)  # once Reddit took its next reply
IDLE_KILLS = (4.0, 12.0, 20.0)  # between two steps


def plan(hours: float, seed: int) -> Plan:
    """The soak of ``hours``: sessions every eight hours and in the last two."""
    starts = [n * SESSION_EVERY for n in range(int(hours // SESSION_EVERY) + 1)]
    sessions = {(s, min(hours, s + SESSION_HOURS)) for s in starts if s < hours}
    last = max(0.0, hours - SESSION_HOURS)
    if all(end <= last for _, end in sessions):  # and one in the last two hours
        sessions.add((last, hours))
    within = lambda moments: tuple(m for m in moments if m < hours)  # noqa: E731
    return Plan(
        hours=hours,
        sessions=tuple(sorted(sessions)),
        restarts=within(RESTARTS),
        kills=within(KILLS),
        idle_kills=within(IDLE_KILLS),
        reply_kills=within(REPLY_KILLS),
        seed=seed,
    )


def _row(hour: Hour) -> str:
    delays = sorted(hour.delays)
    timing = (
        f"{len(delays)} | {hour.p50:.1f} | {hour.p95:.1f} | {delays[-1]:.1f}"
        if delays
        else "0 | - | - | -"
    )
    events = ", ".join(hour.events) or ""
    return (
        f"| {hour.number} | {timing} | {hour.requests} | {hour.rss / 1e6:.1f} "
        f"| {hour.starts} | {events} |"
    )


def _progress(hour: Hour) -> None:
    print(f"hour {hour.number}: {hour.requests} requests, {hour.rss / 1e6:.1f} MB", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=72.0)
    parser.add_argument("--seed", type=int, default=72)
    args = parser.parse_args()
    soak_plan = plan(args.hours, args.seed)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        report = soak(Path(tmp) / "campaign", soak_plan, progress=_progress)
    seconds = time.perf_counter() - started
    print(
        f"{args.hours:g} simulated hours in {seconds / 60:.1f} minutes, seed {args.seed}; "
        f"sessions at {', '.join(f'{a:g}-{b:g}' for a, b in soak_plan.sessions)} h\n"
    )
    print("| hour | comments | p50 | p95 | max | requests | RSS (MB) | processes | events |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for hour in report.hours:
        print(_row(hour))
    audit = report.audit
    print(
        f"\n{report.posts} posts; answered twice {len(audit.duplicates)}, missed "
        f"{len(audit.missed)}, edit notes missed {len(audit.notes_missed)}; "
        f"{report.starts} processes, {report.crashes} killed; ledger chain "
        f"{'holds' if report.ledger_ok else 'BROKEN'}; requests Reddit refused: {report.refused}"
    )
    hours = report.hours
    first, last = hours[0], hours[-1]
    # The last process's hours: from the hour of the last restart or kill (a restart on
    # an hour's boundary is that hour's event; the hour before ended in the old process).
    lasting = hours[max((i for i, h in enumerate(hours) if h.events), default=0) :]
    print(
        f"RSS: hour 1 {first.rss / 1e6:.1f} MB, hour {last.number} {last.rss / 1e6:.1f} MB "
        f"({(last.rss / first.rss - 1) * 100:+.1f}%); the last process: hour "
        f"{lasting[0].number} {lasting[0].rss / 1e6:.1f} MB, hour {last.number} "
        f"{last.rss / 1e6:.1f} MB ({(last.rss / lasting[0].rss - 1) * 100:+.1f}%)"
    )
    print(
        f"latency of the session's comments: hour 1 p50 {first.p50:.1f} s p95 "
        f"{first.p95:.1f} s; hour {last.number} p50 {last.p50:.1f} s p95 {last.p95:.1f} s"
    )


if __name__ == "__main__":
    main()
