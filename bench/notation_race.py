"""Benchmark: referee's dice notation beside d20 (Avrae's dice library), in one process.

Run:  .venv/bin/python bench/notation_race.py
(needs d20: pip install -e '.[bench]')

For each expression it times, per roll, the best of 40 interleaved runs of:

* ``d20``: ``d20.roll(text)``, which parses (cached), rolls with :mod:`random` and
  writes its Markdown;
* ``bare``: ``roll_expression(parse_expression(text), seeded)``, the same work:
  parse (cached), roll with a seeded source, total;
* ``verdict``: the full verdict of ``[[roll text]]`` as the pipeline makes it: the tag
  parsed, dice from the ledger's HMAC stream (recorded for the ledger), the total's
  exact odds, and the verdict rendered through its template.

Targets (issue 20): bare <= 0.5x d20 and verdict <= 1.0x d20 (issue 12: the verdict of
``2d6+3`` <= 1.2x, of ``10d10`` <= 1.0x). Machines are noisy; the ratios within one run
are what carry.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import timeit
from pathlib import Path

import d20  # the baseline; a bench (and test) dependency

from referee.base.dice import HmacDice, SeededDice
from referee.base.posts import Post
from referee.notation import parse_expression, roll_expression
from referee.pipeline.session import Session
from referee.pipeline.tag import verdict_for
from referee.read.tags import Tag
from referee.render.renderer import Renderer
from referee.system import ParseContext
from referee.testing import make_campaign

EXPRESSIONS = ("2d6+3", "4d6kh3", "(1d20+5)*2", "8d6ro<3", "(1d6, 1d8, 1d10)kh2", "10d10")
SECRET = b"bench-secret"


def best_of(functions: dict, number: int, rounds: int) -> dict:
    """Microseconds per call of each function, the best of ``rounds`` interleaved runs.

    The runs take turns (one of each per round), so a spell of load from other programs
    lands on all of them alike; the best run is the one least disturbed. Each run is
    timed in this process's CPU time, so the turns other programs take on a shared
    machine are not counted.
    """
    best = dict.fromkeys(functions, float("inf"))
    for _ in range(rounds):
        for name, function in functions.items():
            seconds = timeit.Timer(function, timer=time.process_time).timeit(number)
            best[name] = min(best[name], seconds / number * 1e6)
    return best


def race(number: int, rounds: int) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp, make_campaign(Path(tmp)) as campaign:
        context = Session(campaign).context(Post("t1_x", "t3_x", "bench", "", 0.0))
        parse_context = ParseContext()
        renderer = Renderer()
        seeded = SeededDice(1)
        for text in EXPRESSIONS:
            tag = Tag(0, f"roll {text}")

            def theirs(text: str = text) -> None:
                d20.roll(text)

            def bare(text: str = text) -> None:
                roll_expression(parse_expression(text), seeded)

            def verdict(tag: Tag = tag) -> None:
                dice = HmacDice(SECRET, "t1_x", 0)
                made = verdict_for(tag, "x-1", context, parse_context, dice)
                renderer._verdict(made, compact=False)

            verdict()  # the first call fills the parse and odds caches, as a live run has
            timings = best_of({"d20": theirs, "bare": bare, "verdict": verdict}, number, rounds)
            rows.append({"expression": text, **timings})
        campaign.store.discard()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=500, help="calls per timing run")
    parser.add_argument("--rounds", type=int, default=40, help="interleaved runs of each")
    args = parser.parse_args()
    rows = race(args.number, args.rounds)
    header = ("expression", "d20.roll", "parse + roll", "ratio (bar 0.5)", "full verdict")
    print("| " + " | ".join(header) + " | ratio (bar 1.0) |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| `{row['expression']}` | {row['d20']:.1f} µs | {row['bare']:.1f} µs | "
            f"{row['bare'] / row['d20']:.2f}× | {row['verdict']:.1f} µs | "
            f"{row['verdict'] / row['d20']:.2f}× |"
        )


if __name__ == "__main__":
    main()
