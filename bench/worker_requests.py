"""Reddit requests per delivered verdict, idle-poll cost and local time per cycle.

Runs the real worker (real PRAW) against FakeReddit on 127.0.0.1, counts the requests
the server receives, and prints a Markdown table for the README: one column per load
(tagged comments arriving per poll interval). Each poll is one ``Worker.cycle`` a
minute apart on the fake clock: every read that is due (new comments, new submissions
and the inbox each minute, the edit sweep every fifth) and every reply; the latency of
the worker's own schedule is bench/latency.py's subject.

    .venv/bin/python bench/worker_requests.py [--cycles 20] [--loads 1 5 10 20]
        [--reddit "inbox_every = 0"]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from referee.testing.worker import POLL, Live, fake_reddit

IDLE_CYCLES = 10


@dataclass
class Figures:
    load: int  # tagged comments arriving per poll interval
    posts: int
    delivered: int
    requests: int  # all requests while busy, the drain included
    polls: int  # cycles run while busy
    idle_costs: list[int]
    local_busy: list[float]
    local_idle: list[float]


def scenario(load: int, cycles: int, subreddits: int, extra: str = "") -> Figures:
    """Start the worker, feed it ``load`` tagged comments per poll, then let it idle.

    ``extra`` adds lines to config.toml's [reddit] table (``inbox_every = 0``, say).
    """
    subs = [f"table{n}" for n in range(subreddits)]
    with fake_reddit(subs) as server, tempfile.TemporaryDirectory() as tmp:
        threads = [server.submit(sub, "gm", "Scene", "The scene opens.") for sub in subs]
        live = Live(server, Path(tmp), extra, subreddits=subs)
        worker = live.worker
        try:
            worker.cycle()  # start-up: log in, the moderators, one full read of both listings
            start = server.count()
            delivered = 0
            local_busy: list[float] = []
            for n in range(cycles):
                for i in range(load):
                    thread = threads[(n + i) % len(threads)]
                    server.comment(thread, f"player{i % 4}", f"I act [[roll 1d{i % 12 + 2}+1]]")
                report = worker.cycle()
                delivered += report.delivered
                if report.refereed:
                    local_busy.append(report.local_seconds / report.refereed)
                server.clock.advance(POLL)
            for _ in range(2):  # drain: replies held by a RATELIMIT, if any
                delivered += worker.cycle().delivered
                server.clock.advance(POLL)
            busy_requests = server.count() - start
            idle_costs: list[int] = []
            local_idle: list[float] = []
            for _ in range(IDLE_CYCLES):
                before = server.count()
                report = worker.cycle()
                idle_costs.append(server.count() - before)
                local_idle.append(report.local_seconds)
                server.clock.advance(POLL)
        finally:
            live.close()
    return Figures(
        load,
        load * cycles,
        delivered,
        busy_requests,
        cycles + 2,
        idle_costs,
        local_busy,
        local_idle,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=20, help="busy cycles per load")
    parser.add_argument("--loads", type=int, nargs="+", default=[1, 5, 10, 20])
    parser.add_argument("--subreddits", type=int, default=3, help="subreddits watched")
    parser.add_argument(
        "--reddit", default="", help='lines for config.toml\'s [reddit], e.g. "inbox_every = 0"'
    )
    args = parser.parse_args()
    extra = args.reddit.replace("\\n", "\n") + "\n" if args.reddit else ""
    runs = [scenario(load, args.cycles, args.subreddits, extra) for load in args.loads]
    ms = 1000.0

    def row(label: str, cells: list[str]) -> None:
        print(f"| {label} | " + " | ".join(cells) + " |")

    print(
        f"Worker against FakeReddit on 127.0.0.1: {args.subreddits} subreddits, "
        f"{args.cycles} busy polls per load plus 2 to drain, then {IDLE_CYCLES} idle polls"
        f"{'; [reddit] ' + args.reddit if args.reddit else ''}.\n"
    )
    row("tagged posts per poll", [str(r.load) for r in runs])
    print("|---|" + "---|" * len(runs))
    row("verdicts delivered", [f"{r.delivered} of {r.posts}" for r in runs])
    row("Reddit requests per delivered verdict", [f"{r.requests / r.delivered:.3f}" for r in runs])
    row(
        "requests per verdict beyond polling",
        [
            f"{(r.requests - r.polls * statistics.mean(r.idle_costs)) / r.delivered:.3f}"
            for r in runs
        ],
    )
    row(
        f"requests per idle poll ({args.subreddits} subreddits)",
        [f"{statistics.mean(r.idle_costs):.2f}" for r in runs],
    )
    row(
        "local processing per refereed post, median over busy cycles",
        [f"{statistics.median(r.local_busy) * ms:.1f} ms" for r in runs],
    )
    row(
        "local processing per idle cycle, median",
        [f"{statistics.median(r.local_idle) * ms:.1f} ms" for r in runs],
    )


if __name__ == "__main__":
    main()
