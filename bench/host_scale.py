"""One host, many campaigns on one account: latency, requests, memory and CPU as they grow.

Runs ``referee host``'s :class:`~referee.live.host.Host` (real PRAW) against FakeReddit
on 127.0.0.1 on the simulated clock: N campaigns, one subreddit and one thread each, on
one account of ``budget_share`` 0.6 (60 requests a minute). For ``--busy`` simulated
minutes, each of ``min(N, --active)`` campaigns gets a tagged comment at random
(exponential gaps of ``--gap`` seconds on average); then the host idles ``--idle``
minutes. Each request takes ``--request-seconds`` of simulated time. Printed, one row
per N (a Markdown table for docs/performance.md):

* p50 / p95 post-to-verdict: from a post's creation to the bot's reply, on the clock
* requests a minute: the busiest ten minutes of the busy phase (Reddit's window), a
  minute's average, against the account's share
* RSS: the bench process (the host, its stores, and the local Reddit server with
  every post) at the end, and the growth per campaign over the host with one
* idle CPU: CPU seconds of the process per simulated second while idle, which is
  what the host spends per wall-clock second when nothing happens

    .venv/bin/python bench/host_scale.py [--campaigns 1 10 50 200] [--active 20]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from referee.testing.host import Rig
from referee.testing.worker import fake_reddit

BUDGET_SHARE = 0.6


@dataclass
class Figures:
    campaigns: int
    active: int
    posts: int
    answered: int
    p50: float
    p95: float
    worst: float
    busiest_minute: int
    budget: float
    rss_mb: float
    idle_cpu: float  # CPU seconds per simulated second while idle


def rss_mb() -> float:
    """The process's resident memory now, in MB (Linux /proc)."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() / 1e6


def scenario(
    campaigns: int, active: int, busy: float, idle: float, gap: float, request_seconds: float
) -> Figures:
    subs = [f"table{n}" for n in range(campaigns)]
    chance = random.Random(20261127 + campaigns)
    with fake_reddit(subs) as server, tempfile.TemporaryDirectory() as tmp:
        threads = [server.submit(sub, "gm", "Scene", "The scene opens.") for sub in subs]
        rig = Rig(server, Path(tmp), subs, budget_share=BUDGET_SHARE)
        try:
            clock = server.clock
            rig.run_until(clock.now() + 60, request_seconds)  # start-up: moderators, first reads
            start = clock.now()
            playing = chance.sample(range(campaigns), min(active, campaigns))
            due = {n: start + chance.expovariate(1 / gap) for n in playing}
            posted: dict[str, float] = {}
            marks: list[float] = []
            counted = server.count()
            while clock.now() < start + busy:
                for n in playing:
                    while due[n] <= clock.now():
                        body = f"I act [[roll 1d{chance.randint(4, 12)}+1]]"
                        posted[server.comment(threads[n], f"player{n % 7}", body)] = clock.now()
                        due[n] += chance.expovariate(1 / gap)
                rig.run_until(clock.now() + 1.0, request_seconds)
                now_count = server.count()
                marks += [clock.now()] * (now_count - counted)
                counted = now_count
            rig.run_until(clock.now() + 120, request_seconds)  # the last posts' replies
            replies = {c["parent_id"]: c["created_utc"] for c in server.comments_by(server.bot)}
            waits = sorted(replies[p] - at for p, at in posted.items() if p in replies)
            busiest = max((sum(1 for t in marks if s <= t < s + 600) for s in marks), default=0)
            cpu0, idle0 = time.process_time(), clock.now()
            rig.run_until(clock.now() + idle, request_seconds)
            idle_cpu = (time.process_time() - cpu0) / max(1.0, clock.now() - idle0)
            memory = rss_mb()
        finally:
            rig.close()
    quantiles = (
        statistics.quantiles(waits, n=20, method="inclusive") if len(waits) > 1 else [0.0] * 19
    )
    return Figures(
        campaigns=campaigns,
        active=len(playing),
        posts=len(posted),
        answered=len(waits),
        p50=statistics.median(waits) if waits else 0.0,
        p95=quantiles[18],
        worst=max(waits, default=0.0),
        busiest_minute=round(busiest / 10),
        budget=BUDGET_SHARE * 100,
        rss_mb=memory,
        idle_cpu=idle_cpu,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, nargs="+", default=[1, 10, 50, 200])
    parser.add_argument("--active", type=int, default=20, help="campaigns with players posting")
    parser.add_argument("--busy", type=float, default=15.0, help="simulated minutes of play")
    parser.add_argument("--idle", type=float, default=10.0, help="simulated minutes of quiet")
    parser.add_argument("--gap", type=float, default=90.0, help="mean seconds between posts")
    parser.add_argument("--request-seconds", type=float, default=0.2)
    parser.add_argument("--row", action="store_true", help="no header (one N per process)")
    args = parser.parse_args()
    if not args.row:
        print(
            "| campaigns | active | posts | answered | p50 s | p95 s | worst s | requests a "
            "minute, busiest 10 min (share) | RSS MB | idle CPU % of a core |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    if len(args.campaigns) > 1:  # each N in a process of its own, so RSS is its own
        for count in args.campaigns:
            options = _without_campaigns(sys.argv[1:])
            subprocess.run(
                [sys.executable, __file__, "--row", "--campaigns", str(count), *options],
                check=True,
            )
        return
    for count in args.campaigns:
        f = scenario(
            count, args.active, args.busy * 60, args.idle * 60, args.gap, args.request_seconds
        )
        print(
            f"| {f.campaigns} | {f.active} | {f.posts} | {f.answered} | {f.p50:.1f} | "
            f"{f.p95:.1f} | {f.worst:.1f} | {f.busiest_minute} ({f.budget:.0f}) | "
            f"{f.rss_mb:.0f} | {f.idle_cpu * 100:.2f} |",
            flush=True,
        )


def _without_campaigns(argv: list[str]) -> list[str]:
    """The command line less ``--campaigns`` and its numbers, and less ``--row``."""
    kept: list[str] = []
    skipping = False
    for arg in argv:
        if arg == "--campaigns":
            skipping = True
            continue
        if skipping and arg.lstrip("-").isdigit() and not arg.startswith("--"):
            continue
        skipping = False
        if arg != "--row":
            kept.append(arg)
    return kept


if __name__ == "__main__":
    main()
