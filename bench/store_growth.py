"""Live worker cost per post as the campaign grows: local ms per post and fsyncs per reply.

Local time is shown twice: wall clock (what a player waits, inflated by whatever else
the machine runs) and the worker thread's own CPU time (``time.thread_time``, Reddit
calls left out; the fake Reddit server's threads are not counted), the steady figure.

Builds a campaign holding N prior rolls (each with its post record, delivered, as a
long campaign would), then runs the real worker (real PRAW) against FakeReddit on
127.0.0.1 for a few busy polls and prints a Markdown table for the README.

    .venv/bin/python bench/store_growth.py [--prior 100 10000 50000 200000]
        [--cycles 15] [--load 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from referee.store.ledger import make_row
from referee.testing import make_campaign
from referee.testing.worker import POLL, Live, fake_reddit


@dataclass
class Figures:
    prior: int
    journal_mb: float
    open_seconds: float
    delivered: int
    local_ms: list[float]  # per refereed post, one figure per busy cycle (wall clock)
    cpu_ms: list[float]  # the same in the worker thread's CPU time
    fsyncs: int
    writes: int


def build(folder: Path, prior: int) -> None:
    """A campaign whose store already holds ``prior`` rolls and their delivered posts."""
    with make_campaign(folder) as campaign:
        store = campaign.store
        for n in range(prior):
            post = f"t1_old{n:x}"
            store.ledger.append(
                make_row(
                    post=post,
                    thread="t3_old",
                    author=f"player{n % 7}",
                    tag_index=0,
                    tag="roll 2d6+1",
                    system="stepped",
                    kind="dice",
                    draws=(),
                    outcome={"total": 2 + n % 11},
                    recorded="2026-01-01T00:00:00+00:00",
                )
            )
            store.posts.put(
                post,
                {
                    "post": post,
                    "thread": "t3_old",
                    "author": f"player{n % 7}",
                    "tags": ["roll 2d6+1"],
                    "roll_ids": [f"old{n:x}-1"],
                    "reply": f"**roll 2d6+1**: 3 + 4 + 1 = **{8 + n % 3}** (old{n:x}-1)\n",
                    "delivery": {"state": "delivered", "reply": f"t1_r{n:x}", "attempts": 1},
                },
            )
            if n % 20_000 == 19_999:  # a worker that ran for months: its open list is kept
                store.table("worker").put("open", {"posts": []})
                store.flush(sync=False)


def scenario(prior: int, cycles: int, load: int) -> Figures:
    with fake_reddit() as server, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        build(folder, prior)
        thread = server.submit("dicegames", "gm", "Scene", "The scene opens.")
        started = time.perf_counter()
        live = Live(server, folder)
        open_seconds = time.perf_counter() - started
        worker = live.worker
        store = live.campaign.store  # type: ignore[union-attr]
        try:
            worker.cycle()
            fsyncs, writes = store.fsyncs, store.writes
            delivered = 0
            local_ms: list[float] = []
            cpu_ms: list[float] = []
            for _ in range(cycles):
                for i in range(load):
                    server.comment(thread, f"player{i % 4}", f"I act [[roll 1d{i % 12 + 2}+1]]")
                report = worker.cycle()
                delivered += report.delivered
                if report.refereed:
                    local_ms.append(report.local_seconds / report.refereed * 1000)
                    cpu_ms.append(report.local_cpu_seconds / report.refereed * 1000)
                server.clock.advance(POLL)
            for _ in range(3):
                delivered += worker.cycle().delivered
                server.clock.advance(POLL)
            figures = Figures(
                prior,
                store.journal_path.stat().st_size / 1e6,
                open_seconds,
                delivered,
                local_ms,
                cpu_ms,
                store.fsyncs - fsyncs,
                store.writes - writes,
            )
        finally:
            live.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prior", type=int, nargs="+", default=[100, 10_000, 50_000, 200_000])
    parser.add_argument("--cycles", type=int, default=15, help="busy polls")
    parser.add_argument("--load", type=int, default=5, help="tagged comments per poll")
    args = parser.parse_args()
    # The fake Reddit answers from threads of this process; a thread waiting for the
    # GIL gets it only after the switch interval (5 ms), which a real worker, whose
    # Reddit is another machine, never waits. Hand the GIL over sooner, so wall time
    # measures the worker rather than the test server's threads.
    sys.setswitchinterval(0.0002)
    runs = [scenario(prior, args.cycles, args.load) for prior in args.prior]
    print(
        f"Live worker against FakeReddit on 127.0.0.1, {args.cycles} busy polls of "
        f"{args.load} tagged comments each.\n"
    )
    print(
        "| prior rolls | journal | opening the campaign | replies | local ms per post "
        "(median, wall) | local CPU ms per post (median) | fsyncs per reply | appends per reply |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in runs:
        print(
            f"| {r.prior:,} | {r.journal_mb:.1f} MB | {r.open_seconds * 1000:.0f} ms | "
            f"{r.delivered} | {statistics.median(r.local_ms):.2f} | "
            f"**{statistics.median(r.cpu_ms):.2f}** | "
            f"{r.fsyncs / r.delivered:.2f} | {r.writes / r.delivered:.2f} |"
        )


if __name__ == "__main__":
    main()
