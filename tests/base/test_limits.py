"""Tests for referee.base.limits: numbers are ASCII digits within a stated range; names show."""

import pytest

from referee.base.errors import UserError
from referee.base.limits import is_visible, read_int


@pytest.mark.parametrize(
    ("text", "expected"), [("3", 3), ("+3", 3), ("-2", -2), ("007", 7), (" 5 ", 5)]
)
def test_read_int_reads_ascii_numbers_in_range(text, expected):
    """Signs, leading zeros and spaces around are fine."""
    assert expected == read_int(text, "Strength", -9, 9)


@pytest.mark.parametrize(
    "text", ["³", "①", "٣", "1²", "99999999999999999999", "10", "-10", "", "1e3", "0x5", "1_0"]
)
def test_read_int_refuses_what_is_not_a_number_in_range_and_says_the_range(text):
    """Look-alike digits, huge numbers and values past the range are refused with the range."""
    with pytest.raises(UserError) as caught:
        read_int(text, "Strength", -9, 9)
    assert "Strength must be a whole number from -9 to 9" in caught.value.message


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Kara", True),
        ("Ｋ", True),
        ("", False),
        ("   ", False),
        ("\u200b\u200c\u200d", False),
        ("\u202e\u2066\u2069", False),
        ("\ufeff\u00ad", False),
        ("\u0301", False),
    ],
)
def test_a_name_must_show_something(name, expected):
    """Zero-width, bidi controls, spaces and lone combining marks are not a name."""
    assert expected == is_visible(name)
