"""Tests for referee.notation.advice: what a player is told when a roll cannot be read."""

from __future__ import annotations

import pytest

from referee.base.errors import TagError
from referee.notation import dice_hint, parse_expression
from referee.read.tags import parse_tag
from referee.resolve.dispatch import verbs_for
from referee.system import load_system

# (written, the part named, the nearest valid form offered)
NEAREST = [
    ("1d20adv", "'adv'", "2d20kh1"),
    ("adv 1d20+5", "'adv 1d20+5'", "2d20kh1+5"),
    ("1d20 adv +5", "'+5'", "2d20kh1+5"),
    ("2d6 adv", "adv rolls a d20 twice", "(2d6, 2d6)kh1"),
    ("2d6+", "'+'", "2d6"),
    ("2d6 + * 3", "'+ * 3'", "2d6*3"),
    ("(1d6", "'(1d6' has no closing )", "(1d6)"),
    ("(1d6, 1d8))", "')'", "(1d6, 1d8)"),
    ("3d6!!", "'!!'", "3d6e6"),
    ("3d6 !!", "'!!'", "3d6e6"),
    ("4dF", "'dF'", "4d3-8"),
    ("2d6x2", "'x2'", "2d6*2"),
    ("2d6 x 2", "'x 2'", "2d6*2"),
    ("5d10ie10", "'ie10'", "5d10e10"),
    ("4d6ir1", "'ir1'", "4d6rr1"),
    ("1d20+5 to hit+", None, None),
]


@pytest.mark.parametrize(("text", "part", "nearest"), NEAREST)
def test_an_unreadable_roll_names_the_part_and_the_nearest_form(
    text: str, part: str | None, nearest: str | None
) -> None:
    """The refusal names what could not be read and ends with the nearest form that parses."""
    try:
        parse_expression(text)
    except TagError as error:
        message = error.message
    else:
        message = None
    if part is None:
        assert message is None
        return
    assert message is not None
    assert (True, True) == (part in message, message.endswith(f" Did you mean {nearest}?"))


def test_a_power_gets_advice_but_no_nearest_form() -> None:
    """2d6^2 has no near product: the advice says to multiply, with no guess."""
    with pytest.raises(TagError) as caught:
        parse_expression("2d6^2")
    assert "Did you mean" not in caught.value.message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("d 20", "1d20"),
        ("one d20", "1d20"),
        ("Kara 1d20 adv", "2d20kh1"),
        ("Kara agility", None),
        ("Trooper 1 perception", None),
    ],
)
def test_dice_hint(text: str, expected: str | None) -> None:
    """Text that holds dice but is not notation as written gets its nearest dice form."""
    assert expected == dice_hint(text)


def test_a_character_roll_that_fails_points_at_dice_when_it_holds_dice() -> None:
    """[[roll d 20]] in a campaign whose roll verb takes characters says the stat is
    unknown and how to write the dice."""
    with pytest.raises(TagError) as caught:
        parse_tag("roll d 20", verbs_for(load_system("stepped")))
    assert caught.value.message.endswith("For dice, write [[roll 1d20]].")


@pytest.mark.parametrize("text", ["roll adv 1d20", "adv 1d20", "roll (1d6", "roll 1d20adv"])
def test_a_tag_that_starts_like_dice_is_answered_as_dice(text: str) -> None:
    """Bodies that start like notation get a notation answer, never a character lookup."""
    with pytest.raises(TagError) as caught:
        parse_tag(text, verbs_for(load_system("stepped")))
    assert "Did you mean" in caught.value.message


def test_no_repair_offers_a_roll_that_drops_most_of_what_was_written() -> None:
    """A long tangle whose first character alone reads is refused without a guess: "8" is
    no near form of it, while a short tail is still dropped (2d6 + -> 2d6)."""
    with pytest.raises(TagError) as tangled:
        parse_expression("8−−h(H)6K(k9x(616h3lx(H4,h+/0,l%.5")
    with pytest.raises(TagError) as short:
        parse_expression("2d6 +")
    guessed = "Did you mean" in tangled.value.message
    assert (False, True) == (guessed, short.value.message.endswith("Did you mean 2d6?"))
