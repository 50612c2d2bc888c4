"""Tests for referee.notation.limits and the roll's own caps: every size held to Limits."""

from __future__ import annotations

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import UserError
from referee.base.limits import Limits
from referee.notation import parse_expression, roll_expression

SMALL = Limits(
    max_dice=10,
    max_sides=20,
    max_expression_terms=4,
    max_number=50,
    max_depth=3,
    max_set_size=3,
    max_sets=4,
    max_rolls=12,
    max_total=1000,
    max_tag_chars=30,
)

# (limit, a roll past it, the message)
PAST = [
    ("dice per roll", "6d6+5d6", "11 dice is more than the 10 one roll may throw."),
    ("dice over repeated sets", "3x 4d6", "12 dice is more than the 10 one roll may throw."),
    ("sides", "1d21", "'1d21' has 21 faces; a die has 1 to 20 sides."),
    (
        "nesting",
        "((((1))))",
        "This roll nests more than 3 levels of brackets and signs; write it flatter.",
    ),
    (
        "signs nest too",
        "----1",
        "This roll nests more than 3 levels of brackets and signs; write it flatter.",
    ),
    ("set size", "(1, 2, 3, 4)kh1", "A set holds at most 3 items; split the roll."),
    (
        "terms",
        "1+2+3+4+5",
        "This roll has more than 4 numbers and dice; split it into smaller rolls.",
    ),
    ("numbers", "1d6+51", "51 is more than the 50 a number in a roll may be."),
    ("decimals", "1d6+50.5", "50.5 is more than the 50 a number may be."),
    ("selectors", "4d6k51", "51 is more than the 50 a selector may be."),
    ("repeated sets", "5x 1d6", "5x asks for 5 sets; roll 1 to 4 at once."),
    ("characters", "1d6 " + "a" * 30, "This roll is 34 characters long; at most 30."),
]


@pytest.mark.parametrize(("limit", "text", "message"), PAST, ids=[row[0] for row in PAST])
def test_each_parse_limit_has_its_message(limit: str, text: str, message: str) -> None:
    """Past each size the parser reads, the roll is refused saying which size and how much."""
    with pytest.raises(UserError) as caught:
        parse_expression(text, SMALL)
    assert message == caught.value.message


def test_explosions_and_rerolls_are_held_to_max_rolls() -> None:
    """An explosion chain or reroll run past max_rolls draws is refused, not followed."""
    messages = []
    for text, face in (("1d6!", 6), ("2d6rr<6", 1)):
        with pytest.raises(UserError) as caught:
            roll_expression(parse_expression(text, SMALL), FixedDice([face] * 20), SMALL)
        messages.append(caught.value.message)
    expected = (
        "This roll needs more than 12 dice, rerolls and explosions included; reroll or "
        "explode on fewer faces."
    )
    assert [expected, expected] == messages


def test_a_total_past_max_total_is_refused() -> None:
    """Multiplying past max_total is refused with the part that grew too large."""
    with pytest.raises(UserError) as caught:
        roll_expression(parse_expression("50*50", SMALL), FixedDice([]), SMALL)
    assert "'50*50' comes to more than 1,000; use smaller numbers." == caught.value.message
