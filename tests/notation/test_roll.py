"""Tests for referee.notation.roll and notation_markdown: rolling a tree and showing it."""

from __future__ import annotations

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import RuleViolation
from referee.base.limits import Limits
from referee.notation import parse_expression, roll_expression
from referee.notation.markdown import markdown

# (written, dice drawn in order, each set's total, each set as the verdict shows it)
WORKED = [
    ("2d6+3", [3, 5], (11,), ["2d6 (3, 5) + 3"]),
    ("-2d6", [4, 5], (-9,), ["-2d6 (4, 5)"]),
    ("10 - 2d6", [4, 5], (1,), ["10 - 2d6 (4, 5)"]),
    ("4d6kh3", [6, 1, 4, 5], (15,), ["4d6kh3 (6, ~~1~~, 4, 5)"]),
    ("3d6!", [6, 2, 3, 6, 1], (18,), ["3d6e6 (6!, 2, 3, 6!, 1)"]),
    ("3d6!>5", [5, 6, 1, 2], (14,), ["3d6e&gt;5 (5, 6!, 1, 2)"]),
    ("4d6r1", [1, 1, 3, 4, 1, 5, 2], (14,), ["4d6rr1 (~~1~~→~~1~~→2, ~~1~~→5, 3, 4)"]),
    ("4d6ro<2", [1, 2, 3, 1, 6, 1], (12,), ["4d6ro&lt;2 (~~1~~→6, 2, 3, ~~1~~→1)"]),
    (
        "10d10t6f1",
        [6, 7, 1, 2, 3, 10, 9, 5, 6, 4],
        (4,),
        ["10d10t&gt;=6f&lt;=1 (6✓, 7✓, 1✗, 2, 3, 10✓, 9✓, 5, 6✓, 4) 4 successes"],
    ),
    ("5d10t>=8", [8, 7, 10, 2, 9], (3,), ["5d10t&gt;=8 (8✓, 7, 10✓, 2, 9✓) 3 successes"]),
    ("4d6mi2", [1, 2, 3, 6], (13,), ["4d6mi2 (1→2, 2, 3, 6)"]),
    ("4d6ma5", [1, 2, 3, 6], (11,), ["4d6ma5 (1, 2, 3, 6→5)"]),
    ("1d20+5 adv", [4, 17], (22,), ["2d20kh1 (~~4~~, 17) + 5"]),
    ("1d20+5 dis", [4, 17], (9,), ["2d20kl1 (4, ~~17~~) + 5"]),
    (
        "2x 4d6kh3",
        [6, 1, 4, 5, 2, 2, 3, 3],
        (15, 8),
        ["4d6kh3 (6, ~~1~~, 4, 5)", "4d6kh3 (2, ~~2~~, 3, 3)"],
    ),
    ("(1d6, 1d8, 1d10)kh2", [3, 8, 2], (11,), ["(1d6 (3), 1d8 (8), ~~1d10 (2)~~)kh2"]),
    ("1d6ra6", [6, 4], (10,), ["1d6ra6 (6!, 4)"]),
    ("(1d20+5)*2", [13], (36,), ["(1d20 (13) + 5)\\*2"]),
    ("2d6 [fire] + 1d4 [cold]", [3, 4, 2], (9,), ["2d6 (3, 4) *fire* + 1d4 (2) *cold*"]),
    ("-(1d8+3) [healing]", [7], (-10,), ["-(1d8 (7) + 3) *healing*"]),
    ("(1, 2, 3)k1k2", [], (3,), ["(1, 2, ~~3~~)k1k2"]),
    ("(4d6)kh3", [6, 1, 4, 5], (15,), ["(4d6 (6, ~~1~~, 4, 5))kh3"]),
    ("1d20 >= 15", [15], (1,), ["1d20 (15) &gt;= 15"]),
    ("15 / 2", [], (7,), ["15/2"]),
    ("-15 / 2", [], (-7,), ["-15/2"]),
    ("15 // 2 + 13 % 5", [], (10,), ["15//2 + 13%5"]),
    ("1d6 [<u/x> *b*]", [2], (2,), ["1d6 (2) *&lt;u&#47;x&gt; \\*b\\**"]),
]


@pytest.mark.parametrize(("text", "dice", "totals", "shown"), WORKED)
def test_worked_examples(
    text: str, dice: list[int], totals: tuple[int, ...], shown: list[str]
) -> None:
    """With fixed dice each form rolls d20's total and shows every die as a player reads it."""
    rolled = roll_expression(parse_expression(text), FixedDice(dice))
    assert (totals, shown) == (rolled.totals, [markdown(s) for s in rolled.sets])


def test_a_long_roll_of_many_groups_stays_short() -> None:
    """100 groups of dice list 200 dice in all and count the rest, far under 10,000
    characters; a die rerolled 30 times shows three of its faces and a count."""
    text = "+".join(["1d6rr<6"] + ["10d6"] * 99)
    rolled = roll_expression(parse_expression(text), FixedDice([1] * 30 + [6] * 1000))
    shown = markdown(rolled.sets[0])
    assert (True, True, True) == (
        len(shown) < 5000,
        "~~1~~→~~1~~→… 27 more→~~1~~→6" in shown,
        shown.endswith("10d6 (10 dice)"),
    )


def test_a_long_roll_lists_forty_dice_and_counts_the_rest() -> None:
    """1000d6 shows 40 dice and "… 960 more", so one verdict stays short."""
    shown = markdown(roll_expression(parse_expression("1000d6"), FixedDice([3] * 1000)).sets[0])
    assert (True, True) == (shown.endswith("… 960 more)"), len(shown) < 300)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1d6/0", "'1d6/0' divides by zero; change the roll so nothing is divided by 0."),
        (
            "5 % (1d2-1d2)",
            "'5%(1d2-1d2)' divides by zero; change the roll so nothing is divided by 0.",
        ),
        (
            "1d20rr<21",
            "This roll needs more than 2,000 dice, rerolls and explosions included; reroll or "
            "explode on fewer faces.",
        ),
        (
            "1000000*1000000*1000000",
            "'1000000*1000000*1000000' comes to more than 1,000,000,000,000,000; use "
            "smaller numbers.",
        ),
    ],
)
def test_roll_refusals(text: str, message: str) -> None:
    """A roll that cannot finish is refused with a message, as d20 refuses it."""
    with pytest.raises(RuleViolation) as caught:
        roll_expression(parse_expression(text), FixedDice([1] * 3000))
    assert message == caught.value.message


def test_rerolls_count_against_the_roll_limit() -> None:
    """Explosions are dice too: max_rolls stops an explosion chain."""
    with pytest.raises(RuleViolation):
        roll_expression(parse_expression("1d6!"), FixedDice([6] * 20), Limits(max_rolls=10))


def test_a_sum_over_the_dice_limit_is_refused() -> None:
    """The campaign's max_rolls holds for plain sums too, counted over all terms."""
    limits = Limits(max_rolls=5)
    with pytest.raises(RuleViolation, match="more than 5 dice"):
        roll_expression(parse_expression("3d6+3d6", limits), FixedDice([1] * 6), limits)


def test_a_product_past_the_total_limit_is_refused() -> None:
    """A product is held to max_total, naming the roll."""
    limits = Limits(max_total=100)
    expression = parse_expression("(1d20+5)*10", limits)
    with pytest.raises(RuleViolation, match="comes to more than 100"):
        roll_expression(expression, FixedDice([20]), limits)


def test_a_deep_tree_a_campaign_allows_rolls_and_reads() -> None:
    """A campaign allowing 400 terms: a 300-term sum rolls, totals and is written in part."""
    limits = Limits(max_expression_terms=400, max_tag_chars=5000)
    rolled = roll_expression(
        parse_expression("+".join(["1d6"] * 300), limits), FixedDice([2] * 300), limits
    )
    assert rolled.total == 600
    assert markdown(rolled.sets[0]).count("1d6 (2)") == 200  # TREE_DICE_SHOWN; the rest counted


def test_an_item_a_set_dropped_is_written_struck() -> None:
    """Writing an item of a set on its own: a dropped item is struck."""
    rolled = roll_expression(parse_expression("(2d6+1, 1d4)kh1"), FixedDice([5, 6, 2]))
    assert "~~1d4 (2)~~" == markdown(rolled.sets[0].items[1])
