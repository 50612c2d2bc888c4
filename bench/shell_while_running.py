"""How fast the shell's read-only commands answer while the live bot holds the store.

A campaign whose ledger holds ``--rows`` rows (200,000 by default) is held open by a
writer in this process, as the running bot holds it; each command then runs as the GM
would run it, ``referee ...`` in a child process, and its wall time is printed (Python's
start-up included). ``history`` is timed for one character (its rows are streamed);
``verify --chain-only`` reads every row.

    .venv/bin/python bench/shell_while_running.py [--rows 200000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.testing.campaign import make_campaign, sheet

COMMANDS = (
    ["characters"],
    ["applications"],
    ["failures"],
    ["history", "Kara"],
    ["roll", "2d6+1", "--seed", "1"],
    ["verify", "--chain-only"],
)


def _fill(folder: Path, rows: int) -> None:
    campaign = make_campaign(folder, [sheet("Kara", owner="alice")])
    ledger = campaign.store.ledger
    for n in range(rows):
        name = "Kara" if n % 10 == 0 else f"npc{n % 50}"
        ledger.append(
            {
                "roll_id": f"t1_{n:x}-1",
                "post": f"t1_{n:x}",
                "thread": "t3_scene",
                "author": "alice",
                "tag": "roll 2d6+1",
                "character": name,
                "outcome": {"total": 7 + n % 5},
            }
        )
        if n % 5000 == 4999:
            campaign.store.flush(sync=False)
    campaign.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        _fill(folder, args.rows)
        print(f"{args.rows:,} ledger rows written in {time.perf_counter() - started:.1f} s")
        writer = make_campaign(folder)  # the running bot: holds the store's lock
        env = {**os.environ, "REFEREE_SECRET": "test-secret"}
        print(f"\n| command while the bot runs | best of {args.repeat} (s) |\n|---|---:|")
        try:
            for command in COMMANDS:
                best = float("inf")
                for _ in range(args.repeat):
                    began = time.perf_counter()
                    done = subprocess.run(
                        [sys.executable, "-m", "referee", "--campaign", str(folder), *command],
                        capture_output=True,
                        text=True,
                        env=env,
                    )
                    best = min(best, time.perf_counter() - began)
                    if "the live bot is running" not in done.stderr:
                        raise SystemExit(f"{command}: did not read beside the bot: {done.stderr}")
                print(f"| `referee {' '.join(command)}` | {best:.2f} |")
        finally:
            writer.store.discard()


if __name__ == "__main__":
    main()
