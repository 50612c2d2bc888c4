"""Benchmark: each player's stated chance in a trikus test, exact or estimated, by shape.

Run:  .venv/bin/python bench/trikus_odds.py [--markdown] [--all] [--extremes]

A verdict states every player's chance of Success (referee.systems.trikus.chance): an
exact count when it fits the test's budget of steps (Limits.max_chance_steps), else an
estimate from seeded duels with its 95% precision. For each test shape this reports the
process's CPU time of that work as a verdict does it (nothing kept from another shape),
the method, the steps spent, the first player's chance and, for an estimate, its stated
precision.

* default: the shapes of the benchmark's table (docs/performance.md): the team tests
  the issue named, with Morale, Empowerment, Light, escape, Negotiation and cancel;
* ``--all``: every test of one to four players against 1 to 6 GM dice with pools of 1 to
  8 dice (a Beginner's line alone is 1; a Master's line, 2 Morale, Empowerment and a
  Light token 8; Morale, Empowerment and Light without a trigger play like line dice),
  and three or four players of one pool with an escape, a Negotiation either way, Light
  with an escape or a cancel on the first: a summary (how many exact, the slowest, the
  widest precision) and the slowest shapes;
* ``--extremes``: pools far past a table's (GM 10 to 1000 dice, 20 Morale each);
* ``--check N``: N seeded duels of the GM's 4 and 5 dice against four Masters, played by
  the duel's own code, against the exact chances (chi-square).

The targets (issue 35): every shape within 1 s of CPU, estimates within ±0.5 points at
95%, and the GM's 5 dice against four Masters exact.
"""

from __future__ import annotations

import argparse
import itertools
import time
from dataclasses import dataclass, replace

from referee.base.effort import metered
from referee.base.limits import DEFAULT_LIMITS
from referee.systems.trikus import chance
from referee.systems.trikus.duel import DieKind, Entrant
from referee.systems.trikus.opposed import chances
from referee.systems.trikus.rulings import Rulings

LINE, MORALE, EMPOWER = DieKind.LINE, DieKind.MORALE, DieKind.EMPOWER
NAMES = "PZMK"
TARGET_SECONDS, TARGET_POINTS = 1.0, 0.5


@dataclass(frozen=True)
class Shape:
    """A test: the GM's dice and each player's declaration, in a table's words."""

    gm: int
    players: tuple[Entrant, ...]
    cancel: tuple[int | None, ...] = ()  # on_success=cancel targets by index
    label: str = ""


def player(name: str, line: int = 3, morale: int = 0, empower: bool = False, **triggers) -> Entrant:
    hand = (LINE,) * line + (MORALE,) * morale + (EMPOWER,) * (2 * empower)
    return Entrant(name, hand, **triggers)


def masters(count: int, **first) -> tuple[Entrant, ...]:
    return tuple(player(name, **(first if i == 0 else {})) for i, name in enumerate(NAMES[:count]))


def table_shapes() -> list[Shape]:
    """The team tests of the benchmark's table."""
    m3, m4 = masters(3), masters(4)
    full = tuple(player(n, morale=2, empower=True) for n in NAMES)
    return [
        Shape(3, (player("P", 2), player("Z", 3), player("M", 1))),
        Shape(5, m3),
        Shape(5, (player("P", 1), player("Z", 2), player("M", 3))),
        Shape(4, (player("P", 2), player("Z", 2), player("M", 1), player("K", 1))),
        Shape(5, (player("P", 3), player("Z", 2), player("M", 1), player("K", 1))),
        Shape(4, m4),
        Shape(5, m4, label="four Masters"),
        Shape(6, m4),
        Shape(5, (player("P", morale=2), *m3[1:]), label="a Master with 2 Morale, two Masters"),
        Shape(5, (player("P", morale=1), player("Z", light=1), *m4[2:])),
        Shape(5, (player("P", empower=True), player("Z", 2), player("M", 1))),
        Shape(5, (player("P", morale=2, light=1), player("Z", morale=1), *m4[2:])),
        Shape(5, full, label="four Masters, 2 Morale and Empowerment each"),
        Shape(4, masters(4, escape=(1, 8)), label="one escapes at 8 with a die left"),
        Shape(5, masters(4, escape=(1, 8))),
        Shape(5, masters(4, negotiate=8), label="one proposes a Negotiation at 8"),
        Shape(5, masters(4, gm_negotiate=7), label="one accepts the GM's at 7"),
        Shape(3, m3, (1, None, None), label="one gives up a Success to cancel another's"),
        Shape(4, m3, (1, None, None)),
        Shape(5, m4, (1, None, None, None)),
        Shape(5, m4, (1, 2, 3, None), label="a chain of cancels"),
    ]


def grid_shapes(most_gm: int = 6, largest: int = 8) -> list[Shape]:
    """Every plain team test of 1-4 players (pools 1..largest) against 1..most_gm dice; and
    three or four players of one pool with a trigger or a cancel on the first player."""
    shapes = []
    for count in range(1, 5):
        for pools in itertools.combinations_with_replacement(range(largest, 0, -1), count):
            players = tuple(Entrant(NAMES[i], (LINE,) * p) for i, p in enumerate(pools))
            shapes += [Shape(gm, players) for gm in range(1, most_gm + 1)]
    for count, pool, gm in itertools.product((3, 4), range(1, largest + 1), range(1, most_gm + 1)):
        players = tuple(Entrant(NAMES[i], (LINE,) * pool) for i in range(count))
        for extra in TRIGGERS:
            shapes.append(Shape(gm, (replace(players[0], **extra), *players[1:])))
        shapes.append(Shape(gm, players, (1,) + (None,) * (count - 1)))
    return shapes


TRIGGERS = (  # a standing trigger of each kind, on one player
    {"escape": (1, 8)},
    {"negotiate": 8},
    {"gm_negotiate": 7},
    {"light": 1, "escape": (2, 9)},
)


def extreme_shapes() -> list[Shape]:
    rich = tuple(player(n, morale=20, empower=True) for n in NAMES)
    return [
        Shape(10, masters(4)),
        Shape(20, masters(4)),
        Shape(100, masters(4)),
        Shape(1000, masters(4)),
        Shape(5, rich),
        Shape(1000, rich),
        Shape(8, masters(4, escape=(1, 9))),
        Shape(8, masters(4), (1, None, None, None)),
    ]


@dataclass(frozen=True)
class Measured:
    seconds: float
    method: str  # "exact" or "estimated"
    steps: int
    first: float
    points: float  # the stated precision of an estimate, in points (0 when exact)


def measure(shape: Shape) -> Measured:
    """The chances as a verdict works them out, in a post of its own, nothing kept."""
    chance._KEPT.clear()
    start = time.process_time()
    with metered(DEFAULT_LIMITS.max_post_steps) as post:
        found = chances(shape.gm, shape.players, Rulings(), cancels=shape.cancel)
        steps = post.side("chance", DEFAULT_LIMITS.max_post_chance_steps).spent
    seconds = time.process_time() - start
    first = found[0]
    assert first is not None
    if first.margin is None:
        return Measured(seconds, "exact", steps, float(first.value), 0.0)
    points = float(chance.describe(first).split("±")[1].split(" ")[0])
    return Measured(seconds, "estimated", steps, float(first.value), points)


def describe(shape: Shape) -> str:
    parts = []
    for i, e in enumerate(shape.players):
        line = sum(1 for d in e.hand if d is LINE)
        morale = sum(1 for d in e.hand if d is MORALE)
        empower = sum(1 for d in e.hand if d is EMPOWER)
        text = str(line)
        text += f"+{morale}M" if morale else ""
        text += f"+{empower}E" if empower else ""
        text += f"+{e.light}L" if e.light else ""
        text += f" esc {e.escape[0]},{e.escape[1]}" if e.escape else ""
        text += f" neg {e.negotiate}" if e.negotiate else ""
        text += f" accept {e.gm_negotiate}" if e.gm_negotiate else ""
        target = shape.cancel[i] if i < len(shape.cancel) else None
        text += f" cancel:{NAMES[target]}" if target is not None else ""
        parts.append(text)
    return ", ".join(parts)


def row(shape: Shape, m: Measured) -> tuple[str, ...]:
    precision = f"±{m.points:.1f}" if m.method == "estimated" else "–"
    return (
        str(shape.gm),
        describe(shape),
        f"{m.seconds:.2f} s",
        m.method,
        f"{m.steps:,}",
        f"{m.first:.4f}",
        precision,
    )


HEADER = ("GM dice", "players' dice", "CPU time", "method", "steps", "P(first succeeds)", "points")


def print_table(rows: list[tuple[str, ...]], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(HEADER) + " |")
        print("|" + "---|" * len(HEADER))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for r in (HEADER, *rows):
            print("  ".join(f"{cell:>16}" for cell in r))


def summary(shapes: list[Shape], markdown: bool) -> None:
    """Every shape measured; the count by method, the slowest and widest, the slow ones."""
    measured = []
    for number, shape in enumerate(shapes, 1):
        measured.append((shape, measure(shape)))
        if number % 200 == 0:
            print(f"... {number} of {len(shapes)}", flush=True)
    exact = sum(1 for _, m in measured if m.method == "exact")
    slowest = max(m.seconds for _, m in measured)
    widest = max(m.points for _, m in measured)
    print(
        f"{len(measured)} shapes: {exact} exact, {len(measured) - exact} estimated; "
        f"slowest {slowest:.2f} s CPU, widest precision ±{widest:.1f} points; "
        f"over {TARGET_SECONDS} s: {sum(m.seconds > TARGET_SECONDS for _, m in measured)}, "
        f"over ±{TARGET_POINTS} points: {sum(m.points > TARGET_POINTS for _, m in measured)}"
    )
    measured.sort(key=lambda pair: -pair[1].seconds)
    print_table([row(s, m) for s, m in measured[:20]], markdown)


def check(duels: int) -> None:
    """Seeded duels of the GM's 4 and 5 dice against four Masters, played by the duel's
    own code, against the exact chances (chi-square; too slow for the unit tests)."""
    from collections import Counter
    from collections.abc import Hashable
    from fractions import Fraction

    from referee.base.dice import SeededDice
    from referee.base.effort import Effort
    from referee.systems.trikus.duel import play
    from referee.systems.trikus.odds_count import count_ends
    from referee.testing.odds import chi_square_p

    players = masters(4)
    for gm in (4, 5):
        start = time.process_time()
        exact = count_ends(gm, players, Rulings(), Effort(10**8))
        took = time.process_time() - start
        dice = SeededDice(f"trikus-bench-{gm}")
        seen: list[Counter[str]] = [Counter() for _ in players]
        for _ in range(duels):
            for counter, end in zip(seen, play(gm, players, dice).ends, strict=True):
                counter[end.value] += 1
        for i, (name, counter) in enumerate(zip(NAMES, seen, strict=True)):
            mine: dict[Hashable, Fraction] = {
                end.value: chances[i] for end, chances in exact.items() if chances[i]
            }
            p = chi_square_p(counter, mine, duels)
            print(
                f"GM {gm} vs 4 Masters, {name}: exact in {took:.2f} s, {duels:,} duels, p = {p:.3f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--all", action="store_true", help="every shape of the grid")
    parser.add_argument("--extremes", action="store_true", help="pools far past a table's")
    parser.add_argument("--check", type=int, default=0, help="seeded duels to check (0: none)")
    args = parser.parse_args()
    if args.check:
        check(args.check)
        return
    if args.all:
        summary(grid_shapes(), args.markdown)
        return
    shapes = extreme_shapes() if args.extremes else table_shapes()
    print_table([row(shape, measure(shape)) for shape in shapes], args.markdown)


if __name__ == "__main__":
    main()
