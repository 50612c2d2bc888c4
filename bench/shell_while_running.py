"""How fast the shell's read-only commands answer while the live bot holds the store.

A campaign whose ledger holds ``--rows`` rows (200,000 by default) is held open by a
writer in this process, as the running bot holds it; each command then runs as the GM
would run it, ``referee ...`` in a child process, and its wall time is printed (Python's
start-up included), with the CPU time it used (user and system: what other programs on
the machine do not inflate). The rows are as the bot writes them: a tag naming a character (one
in ten is Kara's, the rest are among fifty NPCs'), its names, two HMAC dice each.
Before every run the writer appends and flushes a batch of 100 rows, as the bot keeps
writing between a GM's commands.

``history Kara`` lists 10% of the ledger (20,000 rolls at 200,000). ``verify`` is timed
four ways, in this order: ``--chain-only --full`` (every row; it leaves the note of a
check that found all well), ``--chain-only`` (the rows added since the note, after one
sha256 over the bytes the note covers), ``--full`` with the secret (every row's dice
too) and plain ``verify`` after it.

    .venv/bin/python bench/shell_while_running.py [--rows 200000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.base.dice import HmacDice, RecordingDice
from referee.base.names import name_key
from referee.pipeline.campaign import Campaign
from referee.store.ledger import make_row
from referee.testing.campaign import make_campaign, sheet

SECRET = b"test-secret"  # make_campaign's; the children read it from REFEREE_SECRET
COMMANDS = (
    ["characters"],
    ["applications"],
    ["failures"],
    ["history", "Kara"],
    ["roll", "2d6+1", "--seed", "1"],
    ["verify", "--chain-only", "--full"],
    ["verify", "--chain-only"],
    ["verify", "--full"],
    ["verify"],
)


def _row(n: int) -> dict[str, object]:
    name = "Kara" if n % 10 == 0 else f"Npc {n % 50}"
    post = f"t1_{n:x}"
    dice = RecordingDice(HmacDice(SECRET, post, 0))
    total = dice.roll(6) + dice.roll(6)
    return make_row(
        post=post,
        thread="t3_scene",
        author="alice",
        tag_index=0,
        tag=f"roll {name} agility",
        system="stepped",
        kind="stat",
        draws=dice.draws,
        outcome={"total": total, "names": [name_key(name)]},
        recorded="2026-11-27T12:00:00+00:00",
    )


def _fill(folder: Path, rows: int) -> None:
    campaign = make_campaign(folder, [sheet("Kara", owner="alice")])
    ledger = campaign.store.ledger
    for n in range(rows):
        ledger.append(_row(n))
        if n % 5000 == 4999:
            campaign.store.flush(sync=False)
    campaign.close()


def _more(writer: Campaign, start: int) -> int:
    """The bot's next batch: 100 rows, flushed."""
    for n in range(start, start + 100):
        writer.store.ledger.append(_row(n))
    writer.store.flush(sync=False)
    return start + 100


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
        next_row = args.rows
        env = {**os.environ, "REFEREE_SECRET": SECRET.decode()}
        print(
            f"\n| command while the bot runs | best of {args.repeat}: wall (s) | its CPU (s) |"
            "\n|---|---:|---:|"
        )
        try:
            for command in COMMANDS:
                best = cpu = float("inf")
                for _ in range(args.repeat):
                    next_row = _more(writer, next_row)
                    used = resource.getrusage(resource.RUSAGE_CHILDREN)
                    began = time.perf_counter()
                    done = subprocess.run(
                        [sys.executable, "-m", "referee", "--campaign", str(folder), *command],
                        capture_output=True,
                        text=True,
                        env=env,
                    )
                    best = min(best, time.perf_counter() - began)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu = min(
                        cpu,
                        after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime,
                    )
                    if "the live bot is running" not in done.stderr or done.returncode not in (
                        0,
                        1,
                    ):
                        raise SystemExit(f"{command}: did not read beside the bot: {done.stderr}")
                print(f"| `referee {' '.join(command)}` | {best:.2f} | {cpu:.2f} |")
        finally:
            writer.store.discard()


if __name__ == "__main__":
    main()
