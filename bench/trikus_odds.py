"""Benchmark: the exact trikus odds of team tests, by size (RULES.md §3.3, issue 15).

Run:  .venv/bin/python bench/trikus_odds.py [--markdown]

For each test (the GM's pool against players of the given dice: line dice, plus
Morale and Empowerment dice where named, which play alike) it computes every
player's exact chance of each end with :func:`referee.systems.trikus.odds.end_chances`
and reports the process's CPU time, the work done (the budget's units: joint
transitions, stretch outcomes and last-die terms) and the first player's chance of
Success. Past the budget the verdict says "not computed": the row then shows the CPU
time and work with no budget, unless that takes longer than ``--give-up`` seconds.

``--check N`` also plays N seeded duels of the largest four-player case within the
budget (GM 4 against four Masters) and of GM 5 against four Masters, and checks each
player's ends against the exact chances (chi-square; too slow for the unit tests).

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


class _Counted(odds._Walk):
    """The walk, keeping its work done where the bench can read it."""

    last_work = 0

    def run(self, *args):  # type: ignore[no-untyped-def]
        try:
            return super().run(*args)
        finally:
            _Counted.last_work = self.work


odds._Walk = _Counted  # type: ignore[misc]


def measure(gm: int, players: tuple[Entrant, ...], give_up: float) -> tuple[str, str, str]:
    """(CPU time, work, first player's chance); past the budget, marked "not computed"."""
    start = time.process_time()
    try:
        ends = odds.end_chances(gm, players)
    except odds.OddsTooCostly:
        return _unbudgeted(gm, players, give_up)
    took = time.process_time() - start
    chance = ends[PairEnd.WON][0]
    return f"{took:.2f} s", f"{_Counted.last_work:,}", f"{float(chance):.4f}"


def _unbudgeted(gm: int, players: tuple[Entrant, ...], give_up: float) -> tuple[str, str, str]:
    """The odds past the budget: not computed by a verdict; here with no budget."""
    start = time.process_time()
    budget = int(give_up * 1_000_000)  # well over a second's work per second allowed
    try:
        ends = odds.end_chances(gm, players, max_work=budget)
    except odds.OddsTooCostly:
        return "not computed", f"> {budget:,} (gave up)", "–"
    took = time.process_time() - start
    chance = float(ends[PairEnd.WON][0])
    return f"not computed ({took:.1f} s unbudgeted)", f"{_Counted.last_work:,}", f"{chance:.4f}"


def check(duels: int) -> None:
    """Seeded duels of two four-player tests against their exact ends (chi-square)."""
    from collections import Counter

    from referee.base.dice import SeededDice
    from referee.systems.trikus.duel import play
    from referee.testing.odds import chi_square_p

    for gm in (4, 5):
        players = entrants(((3, 0, 0),) * 4)
        start = time.process_time()
        exact = odds.end_chances(gm, players, max_work=10**9)
        took = time.process_time() - start
        dice = SeededDice(f"trikus-bench-{gm}")
        seen: list[Counter[str]] = [Counter() for _ in players]
        for _ in range(duels):
            for counter, end in zip(seen, play(gm, players, dice).ends, strict=True):
                counter[end.value] += 1
        for name, counter, i in zip(NAMES, seen, range(len(players)), strict=False):
            mine = {end.value: chances[i] for end, chances in exact.items() if chances[i]}
            p = chi_square_p(counter, mine, duels)
            print(
                f"GM {gm} vs 4 Masters, {name}: exact in {took:.1f} s, {duels:,} duels, p = {p:.3f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--give-up", type=float, default=30.0, help="CPU seconds per case")
    parser.add_argument("--check", type=int, default=0, help="seeded duels to check (0: none)")
    args = parser.parse_args()
    if args.check:
        check(args.check)
        return
    rows = []
    for gm, hands in CASES:
        players = entrants(hands)
        rows.append((str(gm), describe(hands), *measure(gm, players, args.give_up)))
    header = ("GM dice", "players' dice", "CPU time", "work (budget units)", "P(first wins)")
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
