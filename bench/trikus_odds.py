"""Benchmark: the exact trikus odds of team tests, by size (RULES.md §3.3, issue 15).

Run:  .venv/bin/python bench/trikus_odds.py [--markdown]

For each test (the GM's pool against players of the given dice: line dice, plus
Morale and Empowerment dice where named, which play alike) it computes every
player's exact chance of each end with :func:`referee.systems.trikus.odds.end_chances`
and reports the process's CPU time, the work done (joint transitions) and the first
player's chance of Success. Past the budget the verdict says "not computed": the
row shows the work needed, measured with no budget, unless that takes longer than
``--give-up`` seconds of CPU.

Every case runs in a fresh memo (one call each), as a verdict does.
"""

from __future__ import annotations

import argparse
import time

from referee.systems.trikus import odds
from referee.systems.trikus.duel import DieKind, Entrant, PairEnd

LINE, MORALE, EMPOWER = DieKind.LINE, DieKind.MORALE, DieKind.EMPOWER
NAMES = "PZMK"

# (GM dice, each player's hand as (line, morale, empowerment) dice)
CASES = [
    (3, ((2, 0, 0), (3, 0, 0), (1, 0, 0))),  # the old recursion took 105 s
    (3, ((3, 0, 0),) * 3),
    (4, ((3, 0, 0),) * 3),
    (5, ((3, 0, 0),) * 3),
    (5, ((1, 0, 0), (2, 0, 0), (3, 0, 0))),
    (5, ((3, 1, 0), (2, 0, 0), (1, 0, 0))),
    (3, ((3, 0, 0),) * 4),
    (4, ((2, 0, 0), (2, 0, 0), (1, 0, 0), (1, 0, 0))),
    (5, ((3, 0, 0), (2, 0, 0), (1, 0, 0), (1, 0, 0))),
    (4, ((3, 0, 0),) * 4),
    (5, ((3, 0, 0),) * 4),
    (5, ((3, 2, 0), (3, 0, 0), (3, 0, 0))),
    (5, ((3, 0, 2), (2, 0, 0), (1, 0, 0))),
    (5, ((3, 2, 2), (3, 2, 2), (3, 2, 2), (3, 2, 2))),
]


def entrants(hands: tuple[tuple[int, int, int], ...]) -> tuple[Entrant, ...]:
    return tuple(
        Entrant(name, (LINE,) * line + (MORALE,) * morale + (EMPOWER,) * empower)
        for name, (line, morale, empower) in zip(NAMES, hands, strict=False)
    )


def describe(hands: tuple[tuple[int, int, int], ...]) -> str:
    parts = []
    for line, morale, empower in hands:
        extra = (f"+{morale}M" if morale else "") + (f"+{empower}E" if empower else "")
        parts.append(f"{line}{extra}")
    return ", ".join(parts)


def measure(gm: int, players: tuple[Entrant, ...], give_up: float) -> tuple[str, str, str]:
    """(CPU time, work, first player's chance), or what stopped it."""
    start = time.process_time()
    try:
        ends = odds.end_chances(gm, players)
    except odds.OddsTooCostly:
        needed = _work_needed(gm, players, give_up)
        return "not computed", needed, "–"
    took = time.process_time() - start
    chance = ends[PairEnd.WON][0]
    return f"{took:.2f} s", f"≤ {odds.MAX_WORK:,}", f"{float(chance):.4f}"


def _work_needed(gm: int, players: tuple[Entrant, ...], give_up: float) -> str:
    """The CPU time the odds take without a budget, if under ``give_up`` seconds."""
    budget = odds.MAX_WORK
    start = time.process_time()
    while time.process_time() - start < give_up:
        budget *= 4
        try:
            odds.end_chances(gm, players, max_work=budget)
        except odds.OddsTooCostly:
            continue
        took = time.process_time() - start
        return f"{budget // 4:,}-{budget:,} (found in {took:.0f} s of retries)"
    return f"> {budget // 4:,} (gave up after {give_up:.0f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--give-up", type=float, default=30.0, help="CPU seconds per case")
    args = parser.parse_args()
    rows = []
    for gm, hands in CASES:
        players = entrants(hands)
        rows.append((str(gm), describe(hands), *measure(gm, players, args.give_up)))
    header = ("GM dice", "players' dice", "CPU time", "work (joint transitions)", "P(first wins)")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        for row in (header, *rows):
            print("  ".join(f"{cell:>24}" for cell in row))


if __name__ == "__main__":
    main()
