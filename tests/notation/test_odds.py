"""Tests for referee.notation.odds: exact odds against brute force and 100,000 rolls."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.base.dice import FixedDice, SeededDice
from referee.base.errors import UserError
from referee.base.limits import Limits
from referee.notation import distributions, parse_expression, roll_expression
from referee.notation.distributions import Dist, start_budget
from referee.notation.exploding_keep import exploding_keep
from referee.notation.explosion import chained
from referee.notation.markdown import markdown
from referee.notation.odds import TOO_MANY, chance_at_least, distribution, odds
from referee.notation.replay import replayed
from referee.notation.tree import Dice, Node
from referee.testing.notation import notation_text
from referee.testing.odds import chi_square_p


@pytest.fixture(autouse=True)
def _fresh_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test counts its own distributions from nothing, against a budget ten times a
    roll's in play: these tests check the counts themselves on forms a post could not
    afford (their refusals are tested on forms far past even this budget)."""
    monkeypatch.setattr(distributions, "MAX_STEPS", 2_000_000)
    start_budget()


# Expressions whose dice count is fixed, so every sequence of faces can be listed.
BRUTE = [
    "2d6+3",
    "4d6kh3",
    "4d6pl1",
    "3d6kl2-1d4",
    "(1d20+5)*2",
    "(1d6, 1d8, 1d10)kh2",
    "(1d4, 2+2, 3d6kl1)kh1",
    "3d6k>3",
    "4d6mi2ma5",
    "6d6t5f1",
    "1d20 >= 1d12+5",
    "60 / 1d6",
    "1d10 // 3 - 1d4 % 3",
    "(3d4)kh2",
    "-(1d8+3)",
    "4d6k1ph1",
    "5d4k>2pl2",
    "3d4ro1kl2",
    "5d6kh2",
    "5d6kl2",
    "6d4ph2",
]


def _sides(text: str) -> list[int]:
    """The sides of every die an expression draws, in order, read off one roll."""
    seen: list[int] = []

    class Spy:
        def roll(self, sides: int) -> int:
            seen.append(sides)
            return 1

    roll_expression(parse_expression(text), Spy())
    return seen


@pytest.mark.parametrize("text", BRUTE)
def test_distribution_matches_every_sequence_of_faces(text: str) -> None:
    """The exact distribution equals counting the total of every possible sequence of dice."""
    sides = _sides(text)
    counts: Counter[int] = Counter()
    for faces in itertools.product(*(range(1, s + 1) for s in sides)):
        counts[roll_expression(parse_expression(text), FixedDice(list(faces))).total] += 1
    size = sum(counts.values())
    assert {v: Fraction(c, size) for v, c in counts.items()} == distribution(parse_expression(text))


# Rerolls and explosions draw a varying number of dice: checked against 100,000 rolls.
SAMPLED = [
    "8d6ro<3",
    "4d6r1",
    "3d6!",
    "2d10e>8t8",
    "1d6ra6",
    "3d6rr<3kh2",
    "2d6e6ro1",
    "4d6e6kh3",
    "3d6e6ro1",
    "10d6k1ph1",
    "4d6e6pl1",
    "3d6mi2e>5kl2",
    "3d6ra<3kh2",
    # Counted by order statistics and by hot and cold faces (notation_keep,
    # notation_exploding_keep) and by powers of (sum, ra picked) chains.
    "2d6e>4ra6",
    "5d10e10pl1",
    "20d6e6kh10",
    "100d6kh50",
    "30d30kh15",
    "6d6e1kl3",
    "8d6e6ro1ph2",
]


@pytest.mark.parametrize("text", SAMPLED)
def test_odds_match_100k_rolls(text: str) -> None:
    """Rolling 100,000 times lands on totals as often as the exact odds say (chi-square)."""
    expression = parse_expression(text)
    exact = distribution(expression)
    assert exact is not None
    dice = SeededDice(f"odds {text}")
    rolls = 100_000
    observed = Counter(roll_expression(expression, dice).total for _ in range(rolls))
    tail = {v: p for v, p in exact.items() if p * rolls < 1e-3}
    observed_tail = sum(observed.pop(v, 0) for v in tail)
    assert observed_tail < 5  # totals the odds call near impossible stay rare
    kept = {v: p for v, p in exact.items() if v not in tail}
    scale = sum(kept.values())  # exploding odds leave out what they cut off, < 1e-8
    kept = {v: p / scale for v, p in kept.items()}
    assert chi_square_p(observed, kept, rolls - observed_tail) > 1e-4


@pytest.mark.parametrize(
    ("text", "total", "expected"),
    [
        ("2d6", 10, Fraction(1, 6)),
        ("4d6kh3", 18, Fraction(7, 432)),
        ("1d20+5 adv", 25, Fraction(39, 400)),
        ("4d6r1", 24, Fraction(1, 625)),
        ("1d6ro1", 6, Fraction(7, 36)),
        ("1d20rr1", 20, Fraction(1, 19)),
        ("1000d1000", 1000, Fraction(1)),
        ("(1d6, 1d6, 1d6)kh2", 12, Fraction(16, 216)),
        ("()k0", 0, Fraction(1)),
        ("1d6e0", 6, Fraction(1, 6)),
        ("1d1e0", 1, Fraction(1)),
    ],
)
def test_chance_at_least(text: str, total: int, expected: Fraction) -> None:
    """Worked chances: advantage, rerolls once and forever, a bound that needs no sum, a set
    of identical items kept by rank, an empty set, and explosions on a face no die has."""
    assert expected == chance_at_least(parse_expression(text), total)


def test_comparison_odds_are_the_chance_of_true() -> None:
    """1d20+5 >= 15 is true on 10-20: 55%."""
    assert (Fraction(11, 20), True) == (
        odds(parse_expression("1d20+5 >= 15"), 0).chance,
        odds(parse_expression("1d20+5 >= 15"), 0).comparison,
    )


def test_exploding_odds_state_their_precision() -> None:
    """3d6! is followed until less than one chance in a billion per die is left out."""
    result = odds(parse_expression("3d6!"), 19)
    assert (True, True) == (0 < result.precision < Fraction(1, 10**8), result.chance is not None)


# Dice that explode or reroll without end, each with the count that follows it deeper.
TRUNCATED = ["3d6!", "20d6e6kh10", "5d10e10pl1", "2d6e>4ra6", "4d6e6kh3", "3d6e6ro1", "6d6e1kl3"]
DEEPER = Fraction(1, 10**15)


def _deeper(root: Node) -> Dist:
    """The same count, followed until less than 10^-15 is left out."""
    assert isinstance(root, Dice)
    deeper = exploding_keep(root, DEEPER) or chained(root, DEEPER)
    assert deeper is not None
    return deeper


@pytest.mark.parametrize("text", TRUNCATED)
def test_stated_precision_bounds_what_was_cut_off(text: str) -> None:
    """Each "this high or higher" chance is at most the stated precision (under one in a
    billion) below the same chance followed a million times deeper, and never above it."""
    expression = parse_expression(text)
    precision = odds(expression, 1).precision
    shown = distribution(expression)
    assert shown is not None
    deeper = _deeper(expression.root)
    totals = sorted(set(shown) | set(deeper.ways))
    shallow_at_least = deep_at_least = Fraction(0)
    gaps = []
    for total in reversed(totals):
        shallow_at_least += shown.get(total, Fraction(0))
        deep_at_least += Fraction(deeper.ways.get(total, 0), deeper.denominator)
        gaps.append(deep_at_least - shallow_at_least)
    assert (True, True, True) == (
        0 < precision <= Fraction(1, 10**9),
        min(gaps) >= 0,
        max(gaps) <= precision,
    )


@pytest.mark.parametrize(
    "text",
    ["1000d1000", "100d100kh50", "(1d1000, 1d1000, 1d1000)kh1*1d1000", "1d1000*1d1000"],
)
def test_odds_give_up_past_the_budget(text: str) -> None:
    """Past the fixed budget the verdict says the odds were not computed, quickly."""
    assert TOO_MANY == odds(parse_expression(text), 2).reason


class _Counted:
    """A seeded source that counts its draws."""

    def __init__(self, seed: str) -> None:
        self.dice = SeededDice(seed)
        self.drawn = 0

    def roll(self, sides: int) -> int:
        self.drawn += 1
        return self.dice.roll(sides)


TIGHT = Limits(max_dice=20, max_sides=20, max_rolls=50, max_total=10**6, max_expression_terms=8)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=notation_text(), tight=st.booleans())
def test_any_text_rolls_within_limits_or_gets_a_message(text: str, tight: bool) -> None:
    """Whatever the text, it parses and rolls within the limits (dice drawn, totals, a
    verdict under 10,000 characters, odds or "not computed") or yields a plain message."""
    limits = TIGHT if tight else Limits()
    dice = _Counted(ascii(text))
    try:
        expression = parse_expression(text, limits)
        rolled = roll_expression(expression, dice, limits, rate=odds)
    except UserError as error:
        assert (True, True) == (bool(error.message), "Traceback" not in error.message)
        return
    most = limits.max_total
    assert (True, True, True) == (
        dice.drawn <= limits.max_rolls * expression.repeat,
        all(-most <= total <= most for total in rolled.totals),
        all(len(markdown(s)) < 10_000 for s in rolled.sets),
    )
    assert all(isinstance(o.chance, Fraction) or o.reason == TOO_MANY for o in rolled.odds)


# Finite forms the closed forms of notation_explosion cover, checked against replaying
# every sequence of faces the roll can draw (exact by construction).
CLOSED = ["3d6ra6", "3d6rah1", "3d6ra<3kh2", "3d4ro1ra1pl1", "1d6ral1", "4d4k>1ph1", "3d4mi2kl2"]


@pytest.mark.parametrize("text", CLOSED)
def test_closed_forms_match_replaying_every_roll(text: str) -> None:
    """Per-die chains (ra, value keeps then a rank keep) give exactly the replayed odds."""
    root = parse_expression(text).root
    closed = chained(root)
    assert closed is not None
    assert _chances(replayed(root)) == _chances(closed)


def _chances(dist: Dist) -> dict[object, Fraction]:
    return {value: Fraction(ways, dist.denominator) for value, ways in dist.ways.items() if ways}
