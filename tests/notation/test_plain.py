"""Tests for referee.notation.plain and the compiled writer of notation_markdown.

A plain roll (sums and products of plain dice and numbers) is compiled; it must draw
the same dice, build the same rolled tree, reach the same total and read the same as
the general roller and writer, for any tree, any dice and any limits.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.base.dice import FixedDice, HmacDice
from referee.base.errors import RuleViolation
from referee.base.limits import Limits
from referee.notation import parse_expression, roll_expression
from referee.notation.markdown import WRITERS, _Writer, fixed_text, markdown
from referee.notation.plain import compiled
from referee.notation.roll import roll_expression as roll_generally
from referee.testing.notation import d20_expressions

# Sums and products of plain dice, numbers, sets and signs: all compiled.
_leaf = st.one_of(
    st.tuples(st.integers(0, 45), st.sampled_from([1, 2, 6, 20, 100])).map(
        lambda t: f"{t[0]}d{t[1]}"
    ),
    st.sampled_from(["0", "3", "12", "0.5"]),
).flatmap(lambda text: st.sampled_from([text, f"{text} [fire]", f"{text}[<b>*]"]))
plain_expressions = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(" ".join),
        inner.map(lambda text: f"({text})"),
        inner.map(lambda text: f"-{text}"),
        st.lists(inner, min_size=1, max_size=3).map(lambda items: f"({', '.join(items)},)"),
    ),
    max_leaves=8,
)


def _generally_written(rolled: Any) -> str:
    """What the general writer makes of a rolled set."""
    return WRITERS[type(rolled)](_Writer(fixed_text(rolled.node)), rolled)


def _same_roll(text: str, post: str, limits: Limits) -> None:
    expression = parse_expression(text, limits)
    fast, slow = HmacDice(b"k", post, 0), HmacDice(b"k", post, 0)
    try:
        expected = roll_generally(expression, slow, limits)
    except RuleViolation as error:
        with pytest.raises(RuleViolation) as caught:
            roll_expression(expression, fast, limits)
        assert error.args == caught.value.args
        return
    actual = roll_expression(expression, fast, limits)
    assert (expected.totals, expected.total) == (actual.totals, actual.total)
    assert slow.draws == fast.draws
    assert [_generally_written(s) for s in expected.sets] == [markdown(s) for s in actual.sets]
    assert [markdown(s) for s in expected.sets] == [markdown(s) for s in actual.sets]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=plain_expressions, post=st.text(max_size=5))
def test_a_plain_roll_is_compiled_and_rolls_as_the_general_roller(text: str, post: str) -> None:
    """Plain sums and products compile, and give the general roller's dice, total and text."""
    assert compiled(parse_expression(text)) is not None
    _same_roll(text, post, Limits())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=d20_expressions(), post=st.text(max_size=5))
def test_any_expression_rolls_as_the_general_roller(text: str, post: str) -> None:
    """Compiled or not, any d20 expression draws, totals and reads as the general roller."""
    _same_roll(text, post, Limits())


@pytest.mark.parametrize("text", ["4d6kh3", "8d6ro<3", "(1d6, 1d8)kh1", "1d6/2", "1d20 >= 10"])
def test_what_is_not_plain_is_not_compiled(text: str) -> None:
    """Kept, rerolled, divided or compared rolls go to the general roller."""
    assert compiled(parse_expression(text)) is None


def test_a_plain_roll_over_the_dice_limit_is_refused_as_before() -> None:
    """The campaign's max_rolls holds for a compiled roll: the general roller's message."""
    limits = Limits(max_rolls=5)
    with pytest.raises(RuleViolation, match="more than 5 dice"):
        roll_expression(parse_expression("3d6+3d6", limits), FixedDice([1] * 6), limits)


def test_a_product_past_the_total_limit_is_refused_as_before() -> None:
    """A compiled product is held to max_total with the general roller's message."""
    limits = Limits(max_total=100)
    expression = parse_expression("(1d20+5)*10", limits)
    with pytest.raises(RuleViolation, match="comes to more than 100"):
        roll_expression(expression, FixedDice([20]), limits)


def test_a_tree_too_deep_for_python_to_compile_rolls_generally() -> None:
    """A campaign allowing 400 terms: a 300-term sum still rolls, dice and total as before."""
    limits = Limits(max_expression_terms=400, max_tag_chars=5000)
    _same_roll("+".join(["1d6"] * 300), "t1_deep", limits)


def test_a_plain_part_a_set_dropped_is_written_struck() -> None:
    """Writing an item of a set on its own: a dropped plain item is struck, as generally."""
    rolled = roll_expression(parse_expression("(2d6+1, 1d4)kh1"), FixedDice([5, 6, 2]))
    dropped = rolled.sets[0].items[1]
    assert "~~1d4 (2)~~" == markdown(dropped)
