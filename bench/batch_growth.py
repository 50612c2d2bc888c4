"""Batch throughput and peak memory as the ledger and the roster grow.

For each (ledger rows, characters) pair: builds the campaign on disk, then referees a
generated thread of ``--tags`` tags in a fresh child process (so its peak memory is the
run's own) and prints a Markdown table row for the README.

    .venv/bin/python bench/batch_growth.py [--rows 0 50000 200000]
        [--characters 2000 20000] [--tags 10000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from batch_throughput import build_campaign, build_thread  # type: ignore[import-not-found]

CHILD = Path(__file__).with_name("batch_throughput.py")


def measure(rows: int, characters: int, tags: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        build_campaign(folder, characters, rows)
        build_thread(folder / "thread.json", tags, characters)
        output = subprocess.run(
            [sys.executable, str(CHILD), "--child", str(folder), str(folder / "thread.json")],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        journal = folder / "data" / "store.ledger.jsonl"
        run = json.loads(output.strip().splitlines()[-1])
        run["journal_mb"] = journal.stat().st_size / 1e6 if journal.exists() else 0.0
        return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[0, 50_000, 200_000])
    parser.add_argument("--characters", type=int, nargs="+", default=[2_000, 20_000])
    parser.add_argument("--tags", type=int, default=10_000)
    args = parser.parse_args()
    print(f"`referee batch` of {args.tags:,} tags in a fresh process.\n")
    print(
        "| ledger rows | characters | tags/s end to end (wall) | tags per CPU second | "
        "opening | peak RSS |"
    )
    print("|---|---|---|---|---|---|")
    for characters in args.characters:
        for rows in args.rows:
            run = measure(rows, characters, args.tags)
            print(
                f"| {rows:,} | {characters:,} | {run['tags_per_second']:,.0f} | "
                f"**{run['tags_per_cpu_second']:,.0f}** | "
                f"{run['open_seconds'] * 1000:.0f} ms | **{run['peak_mb']:.0f} MB** |",
                flush=True,
            )


if __name__ == "__main__":
    main()
