"""Tests for referee.notation: parsing, rolling and exact odds of dice notation."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from referee.dice import FixedDice, SeededDice
from referee.errors import TagError
from referee.limits import Limits
from referee.notation import (
    USAGE,
    Constant,
    DiceTerm,
    Expression,
    Keep,
    bounds,
    chance_at_least,
    distribution,
    looks_like_expression,
    parse_expression,
    roll_expression,
)

PARSED = [
    ("2d6+3", "2d6+3", (DiceTerm(1, 2, 6), Constant(1, 3))),
    ("d20", "1d20", (DiceTerm(1, 1, 20),)),
    ("D20", "1d20", (DiceTerm(1, 1, 20),)),
    ("4d6kh3", "4d6kh3", (DiceTerm(1, 4, 6, Keep("kh", 3)),)),
    ("2d20kl1", "2d20kl1", (DiceTerm(1, 2, 20, Keep("kl", 1)),)),
    ("4d6dl1", "4d6dl1", (DiceTerm(1, 4, 6, Keep("dl", 1)),)),
    ("5d6dh2", "5d6dh2", (DiceTerm(1, 5, 6, Keep("dh", 2)),)),
    ("2d20kh", "2d20kh1", (DiceTerm(1, 2, 20, Keep("kh", 1)),)),
    ("4D6KH3", "4d6kh3", (DiceTerm(1, 4, 6, Keep("kh", 3)),)),
    ("4d6 kh 3", "4d6kh3", (DiceTerm(1, 4, 6, Keep("kh", 3)),)),
    ("d%", "1d100", (DiceTerm(1, 1, 100),)),
    ("3d6-2", "3d6-2", (DiceTerm(1, 3, 6), Constant(-1, 2))),
    ("3d6 − 2", "3d6-2", (DiceTerm(1, 3, 6), Constant(-1, 2))),
    ("1d8+1d6+2", "1d8+1d6+2", (DiceTerm(1, 1, 8), DiceTerm(1, 1, 6), Constant(1, 2))),
    ("  2d6 +\t3 ", "2d6+3", (DiceTerm(1, 2, 6), Constant(1, 3))),
    ("-1d4+5", "-1d4+5", (DiceTerm(-1, 1, 4), Constant(1, 5))),
    ("+7", "7", (Constant(1, 7),)),
    ("0", "0", (Constant(1, 0),)),
]


@pytest.mark.parametrize(("text", "normalised", "terms"), PARSED)
def test_parse_forms(text: str, normalised: str, terms: tuple[object, ...]) -> None:
    """Every supported form parses to its terms and normalised text."""
    assert Expression(terms, normalised) == parse_expression(text)  # type: ignore[arg-type]


SMALL = Limits(max_dice=10, max_sides=20, max_terms=3, max_modifier=50)

REFUSED = [
    ("2d0", None, "'2d0' has no faces; a die needs 2 to 1,000 sides."),
    ("2d1", None, "'2d1' has one face; a die needs 2 to 1,000 sides."),
    ("1d1001", None, "'1d1001' has 1,001 faces; a die needs 2 to 1,000 sides."),
    ("1d99999999999", None, "99999999999 is more than the 1,000 faces a die may have."),
    ("1500d6", None, "1,500 dice is more than the 1,000 one roll may throw."),
    ("1000d6+500d6", None, "1,500 dice is more than the 1,000 one roll may throw."),
    ("0d6", None, "'0d6' throws no dice; throw 1 or more."),
    ("4d6kh5", None, "'4d6kh5' keeps 5 of 4 dice; keep 1 to 4."),
    ("4d6kl0", None, "'4d6kl0' keeps 0 of 4 dice; keep 1 to 4."),
    ("4d6dl4", None, "'4d6dl4' drops 4 of 4 dice; drop at most 3."),
    ("2d6+1001", None, "1,001 is more than the 1,000 a number in a roll may be."),
    ("", None, "Say what to roll, like 2d6+3."),
    ("   ", None, "Say what to roll, like 2d6+3."),
    (
        "2d6+x",
        None,
        "I can't read '+x' in '2d6+x'. Write dice as NdX, like 2d6, and join the parts "
        "with + or -.",
    ),
    (
        "2d6 3",
        None,
        "I can't read '3' in '2d6 3'. Write dice as NdX, like 2d6, and join the parts with + or -.",
    ),
    (
        "2d6+",
        None,
        "I can't read '+' in '2d6+'. Write dice as NdX, like 2d6, and join the parts with + or -.",
    ),
    ("11d6", SMALL, "11 dice is more than the 10 one roll may throw."),
    ("1d21", SMALL, "'1d21' has 21 faces; a die needs 2 to 20 sides."),
    ("1+2+3+4", SMALL, "This roll has more than 3 parts; split it into smaller rolls."),
    ("d6+51", SMALL, "51 is more than the 50 a number in a roll may be."),
]


@pytest.mark.parametrize(("text", "limits", "message"), REFUSED)
def test_parse_refusals(text: str, limits: Limits | None, message: str) -> None:
    """Each malformed or oversized expression is refused with a message and the usage."""
    with pytest.raises(TagError) as caught:
        parse_expression(text, limits or Limits())
    assert (message, USAGE) == (caught.value.message, caught.value.usage)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2d6+3", True),
        ("d20", True),
        ("d%", True),
        ("-1", True),
        ("Kara agility", False),
        ("Dax agility", False),
        ("dl", False),
        ("", False),
    ],
)
def test_looks_like_expression(text: str, expected: bool) -> None:
    """Only text that starts with a digit or d+digit looks like notation."""
    assert expected == looks_like_expression(text)


ROLLED = [
    ("2d6+3", [3, 5], 11, [True, True]),
    ("4d6kh3", [6, 1, 4, 5], 15, [True, False, True, True]),
    ("4d6dl1", [6, 1, 4, 5], 15, [True, False, True, True]),
    ("2d20kl1", [15, 7], 7, [False, True]),
    ("5d6dh2", [6, 6, 1, 2, 3], 6, [False, False, True, True, True]),
    ("3d6kh1", [4, 4, 2], 4, [True, False, False]),
    ("1d8-1d6-2", [8, 6], 0, [True, True]),
]


@pytest.mark.parametrize(("text", "faces", "total", "kept"), ROLLED)
def test_roll_totals(text: str, faces: list[int], total: int, kept: list[bool]) -> None:
    """Rolling fixed faces gives the expected total and marks the dice set aside."""
    dice = FixedDice(faces)
    rolled = roll_expression(parse_expression(text), dice)
    flags = [die.kept for term in rolled.terms for die in term.dice]
    assert (total, kept, 0) == (rolled.total, flags, dice.remaining)


def test_roll_subtotals_are_signed() -> None:
    """A subtracted term's subtotal is negative and the constant has no dice."""
    rolled = roll_expression(parse_expression("1d4-1d6+2"), FixedDice([3, 5]))
    expected = [3, -5, 2]
    assert expected == [term.subtotal for term in rolled.terms]


expressions = st.builds(
    lambda parts: "".join(parts).lstrip("+"),
    st.lists(
        st.builds(
            lambda sign, count, sides, keep: f"{sign}{count}d{sides}{keep}",
            st.sampled_from(["+", "-"]),
            st.integers(1, 5),
            st.integers(2, 12),
            st.sampled_from(["", "kh1", "kl1", "kh2", "dl1"]),
        )
        | st.builds(lambda sign, n: f"{sign}{n}", st.sampled_from(["+", "-"]), st.integers(0, 20)),
        min_size=1,
        max_size=4,
    ),
)


def _valid(text: str) -> bool:
    try:
        parse_expression(text)
    except TagError:
        return False
    return True


@settings(max_examples=300)
@given(expressions.filter(_valid), st.integers(0, 2**32))
def test_roll_within_bounds(text: str, seed: int) -> None:
    """Any roll's total lies within the expression's lowest and highest totals."""
    expression = parse_expression(text)
    low, high = bounds(expression)
    total = roll_expression(expression, SeededDice(seed)).total
    assert total == min(max(total, low), high)


@settings(max_examples=200)
@given(st.text(max_size=60))
def test_parse_any_text(text: str) -> None:
    """Any text either parses or raises TagError, never another exception."""
    try:
        parse_expression(text)
    except TagError as error:
        assert error.usage == USAGE


def _brute_force(text: str) -> dict[int, Fraction]:
    """Enumerate every face combination of every term (for small expressions only)."""
    expression = parse_expression(text)
    counts: Counter[int] = Counter()
    groups = [
        list(itertools.product(range(1, term.sides + 1), repeat=term.count))
        if isinstance(term, DiceTerm)
        else [()]
        for term in expression.terms
    ]
    for faces in itertools.product(*groups):
        dice = FixedDice([face for group in faces for face in group])
        counts[roll_expression(expression, dice).total] += 1
    size = sum(counts.values())
    return {total: Fraction(n, size) for total, n in counts.items()}


@pytest.mark.parametrize(
    "text",
    [
        "2d6+3",
        "d20",
        "3d4",
        "4d6kh3",
        "4d6kl3",
        "4d6dl1",
        "5d4dh2",
        "2d20kl1",
        "3d6kh1",
        "1d8-1d6-2",
        "-2d4kh1+1d3",
        "7",
    ],
)
def test_distribution_matches_brute_force(text: str) -> None:
    """The exact distribution equals full enumeration of the faces."""
    assert _brute_force(text) == distribution(parse_expression(text))


@settings(max_examples=100)
@given(expressions.filter(_valid))
def test_distribution_sums_to_one(text: str) -> None:
    """Every computed distribution sums to exactly 1 and spans the bounds."""
    expression = parse_expression(text)
    chances = distribution(expression)
    assert chances is not None
    assert (Fraction(1), bounds(expression)) == (
        sum(chances.values()),
        (min(chances), max(chances)),
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("100d100", True),
        ("20d20kh10", True),
        ("1000d6", False),
        ("1000d1000", False),
        ("30d30kh15", False),
    ],
)
def test_distribution_gives_up_when_costly(text: str, expected: bool) -> None:
    """Large expressions return None instead of stalling; moderate ones are computed."""
    assert expected == (distribution(parse_expression(text)) is not None)


def test_distribution_result_is_a_copy() -> None:
    """Changing a returned distribution does not change the cached one."""
    expression = parse_expression("2d6")
    distribution(expression)[7] = Fraction(0)  # type: ignore[index]
    assert Fraction(1, 6) == distribution(expression)[7]  # type: ignore[index]


@pytest.mark.parametrize(
    ("text", "total", "expected"),
    [
        ("2d6", 10, Fraction(1, 6)),
        ("2d6", 2, Fraction(1)),
        ("2d6", 13, Fraction(0)),
        ("d20", 11, Fraction(1, 2)),
        ("2d20kh1", 20, Fraction(39, 400)),
        ("4d6kh3", 18, Fraction(7, 432)),
        ("1000d1000", 1000, Fraction(1)),
        ("1000d1000", 10**6 + 1, Fraction(0)),
        ("1000d1000", 500_000, None),
    ],
)
def test_chance_at_least(text: str, total: int, expected: Fraction | None) -> None:
    """The chance of rolling a total or more, answered at the bounds even when costly."""
    assert expected == chance_at_least(parse_expression(text), total)


def _chi_square_p(expected: dict[int, Fraction], rolls: int, seed: int) -> float:
    expression = parse_expression("4d6kh3")
    dice = SeededDice(seed)
    seen = Counter(roll_expression(expression, dice).total for _ in range(rolls))
    totals = sorted(expected)
    observed = [seen[total] for total in totals]
    wanted = [float(expected[total]) * rolls for total in totals]
    return float(chisquare(observed, wanted).pvalue)


@pytest.mark.slow
def test_chi_square_4d6kh3() -> None:
    """100,000 seeded 4d6kh3 rolls fit the exact distribution (p > 1e-4)."""
    exact = distribution(parse_expression("4d6kh3"))
    assert exact is not None
    assert _chi_square_p(exact, 100_000, seed=2024) > 1e-4


@pytest.mark.slow
def test_chi_square_rejects_a_wrong_distribution() -> None:
    """The same check fails against 3d6's distribution, so the test has teeth."""
    wrong = distribution(parse_expression("3d6"))
    assert wrong is not None
    assert _chi_square_p(wrong, 100_000, seed=2024) < 1e-4
