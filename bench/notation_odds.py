"""Benchmark: exact odds of dice notation, counted cold (nothing cached), form by form.

Run:  .venv/bin/python bench/notation_odds.py

For each expression it prints the best of ``--rounds`` cold counts (the caches emptied
before each, CPU time of this process), how many totals the distribution holds, the
stated precision (what explosions cut off) and the budget steps spent, or that the
odds are not computed. The forms are the hard ones of issue 20 (keeps of many dice,
explosions under keeps, explosions with ``ra``) and the refusals past the budget of
:class:`~referee.base.limits.Limits` (``max_odds_outcomes``, ``max_odds_steps``), which
must come back as quickly.
"""

from __future__ import annotations

import argparse
import importlib
import time

from referee.notation import distributions as notation_distributions
from referee.notation import parse_expression
from referee.notation.odds import distribution, odds

# The module itself: the package's name `odds` is the function the module defines.
notation_odds = importlib.import_module("referee.notation.odds")

FORMS = (
    "4d6kh3",
    "100d6kh50",
    "30d30kh15",
    "(1d20, 1d20, 1d20)kh2",
    "100d100",
    "20d6e6kh10",
    "5d10e10pl1",
    "2d6e>4ra6",
    "3d6e6ro1",
    "10d10e>8t8",
    "4*(3d8kh2+9[fire]+(9d2e2+3[cold])/2)",
    "1000d1000",
    "100d100kh50",
    "1d1000*1d1000",
    "(1d1000, 1d999)kh1",
)


def _cold(text: str) -> tuple[float, int]:
    """Seconds for one count from nothing cached, and the budget steps it spent."""
    expression = parse_expression(text)
    notation_odds._DISTS.clear()
    notation_odds._FINALS.clear()
    spent = [0]
    start_budget = notation_distributions.start_budget

    def recording(limit: int = notation_distributions.MAX_STEPS) -> None:
        spent[0] = max(spent[0], notation_distributions.SPENT.steps)
        start_budget(limit)

    notation_odds.start_budget = recording  # type: ignore[attr-defined]
    try:
        start = time.process_time()
        odds(expression, 1)
        return time.process_time() - start, spent[0]
    finally:
        notation_odds.start_budget = start_budget  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="cold counts of each form")
    args = parser.parse_args()
    print("| expression | cold count | totals | stated precision | budget steps |")
    print("|---|---|---|---|---|")
    for text in FORMS:
        runs = [_cold(text) for _ in range(args.rounds)]
        seconds, steps = min(runs)
        expression = parse_expression(text)
        result = odds(expression, 1)
        if result.chance is None:
            totals, precision = "not computed", "–"
        else:
            totals = f"{len(distribution(expression) or {}):,}"
            precision = f"{float(result.precision):.0e}" if result.precision else "exact"
        print(f"| `{text}` | {seconds * 1e3:.1f} ms | {totals} | {precision} | {steps:,} |")


if __name__ == "__main__":
    main()
