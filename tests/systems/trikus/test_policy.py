"""Tests for referee.systems.trikus.policy: declaration words and what a refusal says."""

from __future__ import annotations

import pytest

from referee.base.errors import TagError
from referee.base.limits import DEFAULT_LIMITS
from referee.systems.trikus.policy import parse_policy


@pytest.mark.parametrize("typed", ["morale=99999999999", f"morale={DEFAULT_LIMITS.max_dice + 1}"])
def test_too_many_dice_is_told_the_most_not_that_it_is_no_number(typed: str) -> None:
    """A long number is a number: the player is told the most he may declare."""
    with pytest.raises(TagError) as refusal:
        parse_policy(typed)
    assert f"morale is at most {DEFAULT_LIMITS.max_dice}" in refusal.value.message


@pytest.mark.parametrize("typed", ["morale=²", "light=-1", "morale=1.5", "morale="])
def test_what_is_no_whole_number_is_refused_as_such(typed: str) -> None:
    """Superscripts, signs and decimals are refused with a message, never a crash."""
    with pytest.raises(TagError, match="needs a whole number"):
        parse_policy(typed)


def test_a_whole_number_within_the_limit_is_kept() -> None:
    assert (2, 1) == (parse_policy("morale=2 light=1").morale, parse_policy("light=1").light)


@pytest.mark.parametrize(
    ("text", "why"),
    [("line=1 line=2", "Give line once"), ("attack defend:Kara", "Give attack or defend once")],
)
def test_an_option_given_twice_is_refused(text: str, why: str) -> None:
    """A repeated option is refused, never the last one silently winning."""
    with pytest.raises(TagError, match=why):
        parse_policy(text)
