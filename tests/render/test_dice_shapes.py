"""Tests for referee.render.dice_shapes: the stock dice verdict filled in reads as Jinja writes it.

The renderer writes a plain-dice verdict from the core template's text per expression
with its slots filled in; for any expression, label, number of sets, dice and form it
must be the template's own text, and a campaign's own template must still be used.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.base.dice import FixedDice, HmacDice
from referee.base.errors import RuleViolation, TagError
from referee.notation import odds as rate
from referee.notation import parse_expression, roll_expression
from referee.read.tags import Tag
from referee.render.renderer import Renderer, _finished
from referee.resolve.verdicts import Verdict
from referee.testing.notation import d20_expressions

EXPRESSIONS = [
    "2d6+3",
    "(1d20+5)*2",
    "10d10",
    "4d6kh3",
    "8d6ro<3",
    "(1d6, 1d8, 1d10)kh2",
    "1d20+5 >= 15",
    "1d20+5 adv to hit",
    "6x 4d6kh3",
    "3x 2d6+1 # fire *bolt* [x](http://y.z)",
    "1000d1000",
    "0d6",
    "1d6 [fire] + 2d4 [<b>cold]",
    "3d6!",
]


def _verdict(text: str, post: str, roll_id: str = "abc-1") -> Verdict:
    rolled = roll_expression(parse_expression(text), HmacDice(b"k", post, 0), rate=rate)
    return Verdict(Tag(0, f"roll {text}"), roll_id, "dice", rolled)


def _by_jinja(renderer: Renderer, verdict: Verdict, compact: bool) -> str:
    """The reply text with the template rendered by Jinja itself, as before the shapes."""
    template = renderer._environment.get_template("verdict_dice.md.j2")
    return _finished(template.render(v=verdict, compact=compact))


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_a_dice_verdict_reads_as_the_template_writes_it_for_any_dice(text, compact):
    """Every roll of an expression, not just the first, reads as Jinja renders the template."""
    renderer = Renderer()
    for post in ("t1_a", "t1_b", "t1_c", "t1_d", "t1_e", "t1_f"):
        verdict = _verdict(text, post, roll_id=f"{post[3:]}-7")
        shapes = renderer._dice_shapes
        written = renderer._verdict(verdict, compact)
        assert _by_jinja(renderer, verdict, compact) == written
    assert renderer._dice_shapes is not None and renderer._dice_shapes.active
    assert renderer._dice_shapes.write(verdict, compact) is not None  # filled, not by Jinja
    assert shapes is renderer._dice_shapes


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(text=d20_expressions(), label=st.text(max_size=12), compact=st.booleans())
def test_any_expression_and_label_read_as_the_template_writes_them(text, label, compact):
    """Whatever the notation and the label (markers, brackets, braces), the same text as Jinja."""
    renderer = Renderer()
    for post in ("t1_a", "t1_b", "t1_c"):
        try:
            verdict = _verdict(f"{text} # {label}", post)
        except (TagError, RuleViolation):  # not a roll at all, or too many dice
            return
        assert _by_jinja(renderer, verdict, compact) == renderer._verdict(verdict, compact)


def test_a_label_cannot_pose_as_a_slot():
    """A label written like the shapes' markers is text the reply echoes, never a slot."""
    renderer = Renderer()
    renderer._verdict(_verdict("1d6", "t1_a"), False)
    nonce = renderer._dice_shapes._nonce  # type: ignore[union-attr]
    label = f"\ue000{nonce}:0\ue001 and {{w0}} {{rid}}"
    for post in ("t1_a", "t1_b"):
        verdict = _verdict(f"1d6 # {label}", post)
        assert _by_jinja(renderer, verdict, False) == renderer._verdict(verdict, False)


def test_a_campaigns_own_dice_template_turns_the_shapes_off(tmp_path):
    """A GM's verdict_dice.md.j2 may branch on the dice, so it is rendered by Jinja each time."""
    (tmp_path / "verdict_dice.md.j2").write_text(
        "{% if v.result.total > 3 %}high{% else %}low{% endif %} {{ v.result.total }}"
    )
    renderer = Renderer(tmp_path)
    expression = parse_expression("1d6")

    def verdict(face: int) -> str:
        rolled = roll_expression(expression, FixedDice([face]), rate=rate)
        return renderer._verdict(Verdict(Tag(0, "roll 1d6"), "a-1", "dice", rolled), False)

    assert ["high 5", "low 2", "high 6"] == [verdict(5), verdict(2), verdict(6)]
    assert renderer._dice_shapes is None  # no shapes: Jinja renders every dice verdict


def test_a_system_filter_in_place_of_the_cores_turns_the_shapes_off():
    """A system helper that replaces the tree filter is honoured: Jinja renders with it."""
    renderer = Renderer()
    renderer._environment.filters["tree"] = lambda rolled: "TREE"
    verdict = _verdict("2d6+3", "t1_a")
    assert "TREE" in renderer._verdict(verdict, False)
    assert renderer._dice_shapes is None  # no shapes: Jinja renders every dice verdict


def test_a_roll_without_its_odds_is_left_to_jinja_after_one_with_them():
    """A shape learnt from a roll with odds never fills a roll of the same expression without."""
    renderer = Renderer()
    renderer._verdict(_verdict("2d6+3", "t1_a"), False)
    bare = roll_expression(parse_expression("2d6+3"), HmacDice(b"k", "t1_b", 0))
    verdict = Verdict(Tag(0, "roll 2d6+3"), "b-1", "dice", bare)
    assert renderer._dice_shapes is not None
    assert renderer._dice_shapes.write(verdict, False) is None


def test_a_shape_is_learnt_at_its_second_roll_not_its_first():
    """A roll written once (as a hostile player writes every tag) costs one Jinja render and
    nothing learnt; the same shape rolled again is learnt and filled from then on."""
    renderer = Renderer()
    renderer._verdict(_verdict("1d4", "t1_z"), False)  # the shapes are made at the first roll
    shapes = renderer._dice_shapes
    assert shapes is not None
    written = [shapes.write(_verdict("2d6+3 # once", post), False) for post in ("t1_a", "t1_b")]
    assert [None, _by_jinja(renderer, _verdict("2d6+3 # once", "t1_b"), False)] == written
