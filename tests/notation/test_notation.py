"""Tests for referee.notation: reading dice notation into a tree, and refusing what it cannot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.base.errors import TagError
from referee.base.limits import Limits
from referee.notation import (
    USAGE,
    Dice,
    Literal,
    Operation,
    Selector,
    looks_like_expression,
    parse_expression,
)
from referee.read.tags import RollDice, parse_tag
from referee.resolve.dispatch import verbs_for

# (written, normalised text, label, sets)
PARSED = [
    ("2d6+3", "2d6+3", "", 1),
    ("d20", "1d20", "", 1),
    ("D20", "1d20", "", 1),
    ("4d6kh3", "4d6kh3", "", 1),
    ("4D6 KH 3", "4d6kh3", "", 1),
    ("2d20kh", "2d20kh1", "", 1),
    ("4d6dl1", "4d6pl1", "", 1),
    ("d%", "1d100", "", 1),
    ("3d6 − 2", "3d6-2", "", 1),
    ("3d6!", "3d6e6", "", 1),
    ("3d6!>5", "3d6e>5", "", 1),
    ("3d6!>=5", "3d6e>=5", "", 1),
    ("4d6r1", "4d6rr1", "", 1),
    ("4d6ro<2", "4d6ro<2", "", 1),
    ("10d10t6", "10d10t>=6", "", 1),
    ("10d10t6f1", "10d10t>=6f<=1", "", 1),
    ("10d10t=10", "10d10t10", "", 1),
    ("8d6mi2", "8d6mi2", "", 1),
    ("8d6ma5", "8d6ma5", "", 1),
    ("1d20+5 adv", "2d20kh1+5", "", 1),
    ("1d20 dis", "2d20kl1", "", 1),
    ("d20 advantage to hit", "2d20kh1", "to hit", 1),
    ("6x 4d6kh3", "4d6kh3", "", 6),
    ("6x4d6kh3", "4d6kh3", "", 6),
    ("1d20+5 to climb the wall", "1d20+5", "to climb the wall", 1),
    ("1d20+5 # perception", "1d20+5", "perception", 1),
    ("1d20 + to hit", "1d20", "+ to hit", 1),
    ("1d20 keep the dragon grappled", "1d20", "keep the dragon grappled", 1),
    ("(1d20+5)*2", "(1d20+5)*2", "", 1),
    ("(1d6, 1d8, 1d10)kh2", "(1d6, 1d8, 1d10)kh2", "", 1),
    ("(1, 2, 3)k1k2", "(1, 2, 3)k1k2", "", 1),
    ("(1,)", "(1,)", "", 1),
    ("()", "()", "", 1),
    ("1 + 2 == 2", "1+2 == 2", "", 1),
    ("-+-++---+1", "-+-++---+1", "", 1),
    ("15 // 2 % 4 / 1.5", "15//2%4/1.5", "", 1),
    (".5", "0.5", "", 1),
    ("3d8kh2+9[fire]", "3d8kh2+9", "", 1),
    ("0d6", "0d6", "", 1),
]


@pytest.mark.parametrize(("text", "normalised", "label", "sets"), PARSED)
def test_parse_forms(text: str, normalised: str, label: str, sets: int) -> None:
    """Every form reads to its normalised d20 text, its label and its number of sets."""
    expression = parse_expression(text)
    assert (normalised, label, sets) == (expression.text, expression.label, expression.repeat)


def test_tree_of_keep_highest() -> None:
    """4d6kh3 is four six-sided dice with one keep operation selecting the 3 highest."""
    expected = Dice(4, 6, (Operation("k", (Selector("h", 3),)),))
    assert expected == parse_expression("4d6kh3").root


def test_consecutive_operations_merge_as_in_d20() -> None:
    """k1k2 is one keep with two selectors, so it keeps 1s and 2s."""
    selectors = (Selector("", 1), Selector("", 2))
    assert (Operation("k", selectors),) == parse_expression("(1, 2, 3)k1k2").root.operations


def test_annotations_stay_on_their_term() -> None:
    """A [note] belongs to the number or dice just before it."""
    assert Literal(9, ("[fire]",)) == parse_expression("3d8+9 [fire]").root.right


SMALL = Limits(
    max_dice=10,
    max_sides=20,
    max_expression_terms=3,
    max_number=50,
    max_depth=3,
    max_sets=4,
)

REFUSED = [
    ("2d0", None, "'2d0' has no faces; a die has 1 to 1,000 sides."),
    ("1d1001", None, "'1d1001' has 1,001 faces; a die has 1 to 1,000 sides."),
    ("1d99999999999", None, "99999999999 is more than the 1,000,000 faces a die may be."),
    ("1500d6", None, "1,500 dice is more than the 1,000 one roll may throw."),
    ("1000d6+500d6", None, "1,500 dice is more than the 1,000 one roll may throw."),
    ("", None, "Say what to roll, like 2d6+3."),
    (
        "2d6+x",
        None,
        "I can't read '+x' in '2d6+x'. Write dice as NdX, like 2d6, and join the parts "
        "with + - * /. Did you mean 2d6?",
    ),
    ("(1d6", None, "'(1d6' has no closing ); add one. Did you mean (1d6)?"),
    (
        "3d6!!",
        None,
        "I can't read '!!': compounding explosions (!!) are not supported; write 3d6e6 "
        "(each explosion is a die of its own). Did you mean 3d6e6?",
    ),
    (
        "4dF",
        None,
        "I can't read 'dF': Fate dice (dF) are not supported; write 4d3-8 for 4dF. Did you "
        "mean 4d3-8?",
    ),
    ("2d6^2", None, "I can't read '^2': powers are not supported; multiply instead, like 2*2*2."),
    (
        "2d6x2",
        None,
        "I can't read 'x2': write * to multiply, like 2d6*2 (and 6x 4d6kh3 only at the "
        "start, to repeat). Did you mean 2d6*2?",
    ),
    (
        "1d20adv",
        None,
        "I can't read 'adv': adv goes after the roll, like 1d20+5 adv (it rolls 2d20kh1+5). "
        "Did you mean 2d20kh1?",
    ),
    (
        "2d6 adv",
        None,
        "adv rolls a d20 twice, so the roll must start with 1d20, like 1d20+5 adv (or "
        "write 2d20kh1+5). Did you mean (2d6, 2d6)kh1?",
    ),
    ("10d10f1", None, "f counts failures against successes; add a t, like 10d10t6f1."),
    ("10d6mil1", None, "mi takes a plain number, like mi2, not mil1."),
    ("(1, 2)rr1", None, "rr works on dice, not on a set; only k and p do."),
    ("1d6 [fire", None, "The note '[fire' has no closing ]; write notes like 1d6 [fire]."),
    ("11d6", SMALL, "11 dice is more than the 10 one roll may throw."),
    ("3x 4d6", SMALL, "12 dice is more than the 10 one roll may throw."),
    ("5x 1d6", SMALL, "5x asks for 5 sets; roll 1 to 4 at once."),
    ("1d21", SMALL, "'1d21' has 21 faces; a die has 1 to 20 sides."),
    ("1+2+3+4", SMALL, "This roll has more than 3 numbers and dice; split it into smaller rolls."),
    ("d6+51", SMALL, "51 is more than the 50 a number in a roll may be."),
    (
        "((((1))))",
        SMALL,
        "This roll nests more than 3 levels of brackets and signs; write it flatter.",
    ),
]


@pytest.mark.parametrize(("text", "limits", "message"), REFUSED)
def test_parse_refusals(text: str, limits: Limits | None, message: str) -> None:
    """Each malformed, unsupported or oversized roll is refused with what to write instead."""
    with pytest.raises(TagError) as caught:
        parse_expression(text, limits or Limits())
    assert (message, USAGE) == (caught.value.message, caught.value.usage)


def test_deep_nesting_is_refused_not_a_crash() -> None:
    """Thousands of brackets or signs meet the depth limit, not Python's recursion limit."""
    for text in ("(" * 3000 + "1" + ")" * 3000, "-" * 3000 + "1"):
        with pytest.raises(TagError):
            parse_expression(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2d6+3", True),
        ("d20", True),
        ("d%", True),
        ("-1", True),
        ("(1d6)", True),
        ("(1 + 3) * 6", True),
        (".5", True),
        ("Kara agility", False),
        ("Dax agility", False),
        ("dl", False),
        ("", False),
    ],
)
def test_looks_like_expression(text: str, expected: bool) -> None:
    """Text starting with a digit, bracket, sign or d+digit is notation; a name is not."""
    assert expected == looks_like_expression(text)


def test_a_label_that_cannot_be_shown_is_refused() -> None:
    """Undecodable bytes or control characters in a label get a message, not a verdict."""
    for text in ("1d6 \udcff", "1d6 \ufffd", "1d6 bell\x07"):
        with pytest.raises(TagError):
            parse_expression(text)


def _notation_rows() -> list[str]:
    """The rows of the dice notation table (the players' page of the docs)."""
    text = (Path(__file__).parents[2] / "docs" / "players" / "dice.md").read_text(encoding="utf-8")
    section = text[text.index("## The forms") : text.index("## The verdict")]
    return [line for line in section.splitlines() if line.startswith("| ")]


def test_every_example_in_the_notation_table_rolls() -> None:
    """Each [[...]] in the docs' notation table is read as dice by the core's verbs."""
    examples = [tag for row in _notation_rows() for tag in re.findall(r"`\[\[(.+?)\]\]`", row)]
    requests = [parse_tag(example, verbs_for(None)) for example in examples]
    assert (True, len(examples)) == (len(examples) >= 20, len(requests))
    assert all(isinstance(request, RollDice) for request in requests)


def test_the_notation_table_names_every_operation() -> None:
    """Every operation the parser reads has a row of the docs' notation table."""
    table = "\n".join(_notation_rows())
    operations = ("kS", "pS", "khN", "klN", "dhN", "dlN", "rrS", "rS", "roS", "raS", "eS")
    operations += ("!S", "miN", "maN", "tS", "fS", "adv", "dis", "Nx", "# words", "d%")
    operations += ("//", "%", "==", "!=", "<=", ">=", "[note]", "(a, b, c)", "(x)", "N.N")
    assert [] == [operation for operation in operations if operation not in table]
