"""Tests for referee.render.renderer: user text is inert, chances read well, replies fit Reddit."""

import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.base.markdown import escape_markdown, percent
from referee.system import installed_systems


@pytest.mark.parametrize(
    ("text", "must_not_contain"),
    [
        ("u/spez", "u/"),
        ("/u/spez", "/u/"),
        ("r/all", "r/"),
        ("[x](http://evil.example)", "]("),
        ("http://evil.example", "://"),
        ("www.evil.example", "www."),
        ("**bold**", "**"),
        ("a\n\n# heading", "\n"),
        ("<script>", "<"),
        ("&lt;", "&lt;"),
        ("super^script", "r^s"),
        (">!spoiler!<", ">!"),
        ("|table|", "e|"),
    ],
)
def test_escaped_text_cannot_link_ping_or_format(text, must_not_contain):
    """No mention, link, emphasis, code, heading, HTML or table survives escaping."""
    assert must_not_contain not in escape_markdown(text)


def test_backticks_are_escaped_so_no_code_span_opens():
    """Every backtick in echoed text is preceded by a backslash."""
    assert re.search(r"(?<!\\)`", escape_markdown("`code` and ``more``")) is None


def test_leading_list_marks_are_escaped():
    """A name that starts with a list mark does not start a list."""
    assert "\\- Kara" == escape_markdown("- Kara")


def test_long_text_is_capped():
    """Echoed text is cut at the cap with an ellipsis."""
    assert 10 == len(escape_markdown("x" * 50, max_chars=10))


@given(st.text())
def test_escaping_never_leaves_a_mention_or_link(text):
    """Whatever the input, the output holds no raw slash, bracket-paren or newline."""
    escaped = escape_markdown(text, max_chars=10_000)
    assert ("/" not in escaped, "\n" not in escaped, "](" not in escaped) == (True, True, True)


@pytest.mark.parametrize(
    ("chance", "expected"),
    [
        (Fraction(5, 12), "41.7%"),
        (Fraction(0), "0%"),
        (Fraction(1), "100%"),
        (Fraction(1, 10_000), "<0.1%"),
        (Fraction(9999, 10_000), ">99.9%"),
        (None, "?"),
    ],
)
def test_percentages(chance, expected):
    """Chances print with one decimal, and never round to a false 0% or 100%."""
    assert expected == percent(chance)


def test_templates_are_looked_up_in_the_campaign_then_the_system_then_the_core(tmp_path):
    """A GM's copy wins over the system's, and the system's over the core's."""
    from referee.render.environment import make_environment
    from referee.system import load_system

    (tmp_path / "verdict_stat.md.j2").write_text("the GM's stat")
    (tmp_path / "reply.md.j2").write_text("the GM's reply")
    environment = make_environment(tmp_path, load_system("stepped"))
    stepped_only = make_environment(None, load_system("stepped"))
    core_only = make_environment(None)

    def source(env, name):
        return env.loader.get_source(env, name)[1]

    assert ("the GM's stat", "the GM's reply") == (
        environment.get_template("verdict_stat.md.j2").render(),
        environment.get_template("reply.md.j2").render(),
    )
    assert (True, True) == (
        "systems/stepped/templates" in source(stepped_only, "verdict_application.md.j2"),
        source(core_only, "verdict_application.md.j2").endswith(
            "referee/render/templates/verdict_application.md.j2"
        ),
    )


def test_a_gms_template_renders_the_same_every_time_its_context_is_reused(tmp_path):
    """A verdict template with set, extends and blocks gives each verdict its own text."""
    from referee.base.dice import FixedDice
    from referee.notation import parse_expression, roll_expression
    from referee.read.tags import Tag
    from referee.render.renderer import Renderer
    from referee.resolve.verdicts import Verdict

    (tmp_path / "base.md.j2").write_text("[{% block body %}base{% endblock %}]")
    (tmp_path / "verdict_dice.md.j2").write_text(
        "{% extends 'base.md.j2' %}{% block body %}{% set t = v.result.total %}"
        "{{ v.roll_id }}={{ t }}{{ super() }}{% endblock %}"
    )
    renderer = Renderer(tmp_path)

    def verdict(face, rid):
        rolled = roll_expression(parse_expression("1d6"), FixedDice([face]))
        return renderer._verdict(Verdict(Tag(0, "roll 1d6"), rid, "dice", rolled), compact=False)

    assert ["[a-1=3base]", "[b-1=5base]", "[a-1=3base]"] == [
        verdict(3, "a-1"),
        verdict(5, "b-1"),
        verdict(3, "a-1"),
    ]


@pytest.mark.parametrize("system_name", sorted(installed_systems()))
def test_the_help_table_keeps_three_cells_per_verb_whatever_the_form(system_name):
    """A verb form such as `scene combat|unstructured|end` does not split its table row."""
    from referee.read.tags import Tag
    from referee.render.renderer import Renderer
    from referee.resolve.dispatch import HelpResult, verbs_for
    from referee.resolve.verdicts import Verdict
    from referee.system import load_system

    system = load_system(system_name)
    verbs = tuple(dict.fromkeys(verbs_for(system).values()))
    help_verdict = Verdict(Tag(0, "help"), "x-1", "help", HelpResult(system.name, "", verbs))
    text = Renderer(system=system)._verdict(help_verdict, compact=False)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "verb |" not in line]
    assert [3] * len(verbs) == [len(re.split(r"(?<!\\)\|", row)) - 2 for row in rows]


@pytest.mark.parametrize(
    ("decision", "note", "expected"),
    [
        ("revise", "make it 3", "make it 3. Edit the application"),
        ("revise", "Too strong!", "Too strong\\! Edit the application"),
        ("reject", "no dragons here", "no dragons here. ^(roll"),
    ],
)
def test_a_gms_note_ends_as_a_sentence_before_the_next_one(decision, note, expected):
    """A revise or reject note without a full stop gets one; one with its own keeps it."""
    from referee.read.tags import Tag
    from referee.render.renderer import Renderer
    from referee.resolve.dispatch import DecisionResult
    from referee.resolve.verdicts import Verdict

    result = DecisionResult(decision, "Nova", "nova", note, (), None)
    text = Renderer()._verdict(Verdict(Tag(0, decision), "x-1", "decision", result), False)
    assert expected in text


def test_a_campaigns_own_dice_template_writes_its_roll_verdicts(tmp_path):
    """A verdict_dice.md.j2 in the campaign's templates folder is what a [[roll]] reply shows."""
    from referee.base.posts import Post
    from referee.pipeline.flow import Referee
    from referee.testing import make_campaign

    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "verdict_dice.md.j2").write_text(
        "{% set total = v.result.total %}Our table: {{ v.result.expression.text }} made "
        "{{ total }} in {{ range(v.result.sets|length)|list|length }} set ({{ v.roll_id }})"
    )
    with make_campaign(tmp_path) as campaign:
        outcome = Referee(campaign).referee(Post("t1_abc", "t3_t", "kara", "[[roll 2d6+3]]", 1.0))
        total = list(campaign.store.ledger)[-1]["outcome"]["total"]
        campaign.store.discard()

    assert f"Our table: 2d6+3 made {total} in 1 set (abc-1)" == outcome.text.split("\n")[0]


def test_a_reused_template_context_forgets_what_the_last_verdict_set(tmp_path):
    """A GM's template that sets a name only on some verdicts never shows the last one's."""
    from referee.base.dice import FixedDice
    from referee.notation import parse_expression, roll_expression
    from referee.read.tags import Tag
    from referee.render.renderer import Renderer
    from referee.resolve.verdicts import Verdict

    (tmp_path / "verdict_dice.md.j2").write_text(
        "{% if v.result.total > 3 %}{% set mark = 'high' %}{% endif %}"
        "{{ v.result.total }} {{ mark is defined }}"
    )
    renderer = Renderer(tmp_path)

    def verdict(face):
        rolled = roll_expression(parse_expression("1d6"), FixedDice([face]))
        return renderer._verdict(Verdict(Tag(0, "roll 1d6"), "a-1", "dice", rolled), False)

    assert ["5 True", "2 False", "6 True"] == [verdict(5), verdict(2), verdict(6)]
