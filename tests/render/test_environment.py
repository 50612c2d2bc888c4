"""Tests for referee.render.environment: every template renders in a sandbox, within a budget.

A campaign's templates are the GM's to edit and may come in with a backup: whatever
one holds, it runs no code, reaches nothing but the values it is given, and spends a
bounded number of steps; when it oversteps or fails, the GM is told which file and
how to fix it, and the post is kept for a retry, never lost.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import jinja2
import pytest

from referee.base.dice import FixedDice
from referee.base.limits import Limits
from referee.base.posts import Post
from referee.cli import main
from referee.notation import odds as rate
from referee.notation import parse_expression, roll_expression
from referee.pipeline.failures import FAILURE_REPLY, FailureLog
from referee.pipeline.flow import Referee
from referee.read.tags import Tag
from referee.render.environment import TemplateRefused, make_environment
from referee.render.renderer import Renderer
from referee.resolve.verdicts import Reply, Verdict
from referee.testing import make_campaign

DICE = "verdict_dice.md.j2"
ATTACK = "{{% set _ = cycler.__init__.__globals__.os.system('touch {marker}') %}}"

ESCAPES = [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ self._TemplateReference__context }}",
    "{{ lipsum.__globals__.os.getcwd() }}",
    "{{ cycler.__init__.__globals__.os.environ }}",
    "{{ joiner.__init__.__globals__ }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ v.__class__.__init__.__globals__ }}",  # a walk from a value the template is given
    "{{ v.result.__class__.__module__ }}",
    "{{ (v.result.sets|map('string')).gi_frame }}",  # a generator's frame
    "{{ '{0.__class__.__init__.__globals__}'.format(v) }}",  # through a format string
    "{% set seen = [] %}{{ seen.append(v) }}",  # changing a list: the sandbox is immutable
    "{{ v.result.sets.__len__() }}",
]


def _dice(text: str = "2d6+3", faces: tuple[int, ...] = (4, 5)) -> Verdict:
    rolled = roll_expression(parse_expression(text), FixedDice(list(faces)), rate=rate)
    return Verdict(Tag(0, f"roll {text}"), "abc-1", "dice", rolled)


def _render(templates: Path, verdict: Verdict | None = None, **options) -> str:
    reply = Reply("t1_a", "kara", (verdict or _dice(),), ())
    return Renderer(templates, **options).render(reply)


def _campaign_templates(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_a_campaign_template_that_reaches_for_os_runs_nothing_and_says_why(tmp_path):
    """The attack of issue 42: a verdict template walking from a global to os.system."""
    marker = tmp_path / "PWNED"
    templates = _campaign_templates(tmp_path, DICE, ATTACK.format(marker=marker))
    with pytest.raises(TemplateRefused) as refused:
        _render(templates)
    assert not marker.exists()
    assert str(refused.value) == (
        "templates/verdict_dice.md.j2, line 1, tried to reach '__init__' (on a type), which "
        "templates may not do: a template reads the values it is given and uses the "
        "filters, nothing else. Remove it from the template or delete "
        "templates/verdict_dice.md.j2 to use the shipped one."
    )


@pytest.mark.parametrize("escape", ESCAPES)
def test_the_classic_sandbox_escapes_are_refused(tmp_path, escape):
    """Every walk to Python's internals (or a change to a value) is refused, naming the file."""
    templates = _campaign_templates(tmp_path, DICE, f"Roll: {escape}")
    with pytest.raises(TemplateRefused, match=r"^templates/verdict_dice\.md\.j2, line 1, tried"):
        _render(templates)


def test_a_shipped_verdict_reads_as_before():
    """The core's dice template, sandboxed, writes the verdict word for word as it did."""
    full = Renderer().render(Reply("t1_a", "kara", (_dice(),), ()))
    assert full.startswith("**Roll 2d6+3**: 2d6 (4, 5) + 3 = **12** (")
    assert full.splitlines()[0].endswith(" ^(roll abc-1)")
    repeated = _dice("2x 1d6", (2, 6))
    assert "1. 1d6 (2) = **2**" in Renderer().render(Reply("t1_a", "kara", (repeated,), ()))


def test_every_shipped_dice_form_reads_as_a_plain_jinja_render_of_it():
    """The sandbox changes no word of a shipped template: the same text as plain Jinja's."""
    sandboxed = make_environment()
    plain = jinja2.Environment(
        loader=sandboxed.loader, undefined=jinja2.StrictUndefined, trim_blocks=True,
        lstrip_blocks=True,
    )  # fmt: skip
    plain.filters.update(sandboxed.filters)
    plain.globals.update(sandboxed.globals)
    for text, faces in (
        ("2d6+3", (1, 6)),
        ("3x 1d20+5 # to *hit*", (20, 1, 7)),
        ("4d6kh3", (1,) * 4),
    ):
        for compact in (False, True):
            values = {"v": _dice(text, faces), "compact": compact}
            expected = plain.get_template(DICE).render(**values)
            assert expected == sandboxed.get_template(DICE).render(**values)


def test_a_campaigns_own_benign_template_still_overrides_the_shipped_one(tmp_path):
    """A GM's verdict_dice.md.j2 that branches on the dice, uses a filter and a loop is used."""
    templates = _campaign_templates(
        tmp_path,
        DICE,
        "{% if v.result.total > 3 %}high{% else %}low{% endif %} {{ v.result.total }}"
        "{% for s in v.result.sets %} [{{ s|tree }}]{% endfor %} {{ v.tag.text|md }}",
    )
    assert _render(templates, _dice("1d6", (5,))).startswith("high 5 [1d6 (5)] roll 1d6")
    assert _render(templates, _dice("1d6", (2,))).startswith("low 2 [1d6 (2)]")


def test_nested_loops_past_the_step_budget_are_refused(tmp_path):
    """Loops that would spin on (each capped by range's own limit) stop at the budget."""
    templates = _campaign_templates(
        tmp_path,
        DICE,
        "{% for a in range(1000) %}{% for b in range(1000) %}{% for c in 'xyz' %}"
        "{% endfor %}{% endfor %}{% endfor %}",
    )
    with pytest.raises(TemplateRefused) as refused:
        _render(templates, limits=Limits(max_template_steps=5000))
    assert str(refused.value).startswith(
        "templates/verdict_dice.md.j2, line 1, did more work than a template may (5000 loop "
        "items and calls in one render); make its loops shorter"
    )


def test_recursive_macros_past_the_step_budget_are_refused(tmp_path):
    """A macro that calls itself twice per call (2**40 calls) stops at the budget too."""
    templates = _campaign_templates(
        tmp_path,
        DICE,
        "{% macro twice(n) %}{% if n %}{{ twice(n - 1) }}{{ twice(n - 1) }}{% endif %}"
        "{% endmacro %}{{ twice(40) }}",
    )
    with pytest.raises(TemplateRefused, match="did more work than a template may"):
        _render(templates)


def test_a_verdict_spends_a_small_part_of_the_budget(tmp_path):
    """The shipped templates work within a budget far below the default."""
    verdict = _dice("6x 4d6kh3", (3,) * 24)
    assert "6 sets" in _render(tmp_path, verdict, limits=Limits(max_template_steps=200))


def test_bytecode_a_plain_jinja_compiled_is_never_loaded(tmp_path, monkeypatch):
    """Code compiled outside the sandbox (older referee, another program) has no checks in it:
    a template compiled by a plain environment into the same cache folder is compiled anew."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the caches' user-only folder
    templates = _campaign_templates(
        tmp_path, DICE, "{% for a in range(50) %}{% for b in range(50) %}{% endfor %}{% endfor %}"
    )
    plain = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(templates)]),
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=jinja2.FileSystemBytecodeCache(),
    )
    plain.get_template(DICE)  # its compiled code is now in the cache folder
    assert any(tmp_path.glob("_jinja2-cache-*/*.cache"))
    with pytest.raises(TemplateRefused, match="did more work"):  # the loops are counted
        _render(templates, limits=Limits(max_template_steps=1000))


def test_a_broken_campaign_template_names_its_file_and_line(tmp_path):
    """A typo in a GM's template says where it is, not a traceback from Jinja's insides."""
    templates = _campaign_templates(tmp_path, DICE, "ok\n{% if v.result.total %}\n")
    with pytest.raises(TemplateRefused) as refused:
        _render(templates)
    assert str(refused.value).startswith("templates/verdict_dice.md.j2, line 2, cannot be read")
    (templates / DICE).write_text("ok\n\n{{ v.reslt.total }}\n", encoding="utf-8")
    with pytest.raises(TemplateRefused, match=r"^templates/verdict_dice\.md\.j2, line 3, failed"):
        _render(templates)


def test_a_refused_template_fails_the_post_for_a_retry_and_tells_the_gm(tmp_path):
    """As any template failure: the post is answered with the failure reply, rolls nothing,
    and the failures list (`referee failures`) says which file did what."""
    marker = tmp_path / "PWNED"
    with make_campaign(tmp_path, system="stepped") as campaign:
        _campaign_templates(tmp_path, DICE, ATTACK.format(marker=marker))
        outcome = Referee(campaign).referee(Post("t1_p", "t3_t", "kara", "[[roll 2d6]]", 0.0))
        failures = list(FailureLog(campaign.store))
        campaign.store.discard()
    assert not marker.exists()
    assert (True, FAILURE_REPLY.format(post="t1_p")) == (outcome.failed, outcome.text)
    assert [("t1_p", True)] == [
        (f.post, "verdict_dice.md.j2, line 1, tried" in f.error) for f in failures
    ]


def test_roll_from_the_shell_with_a_refused_template_says_why(tmp_path, monkeypatch, capsys):
    """`referee roll` prints the refusal as one line, no traceback, and exits 2."""
    marker = tmp_path / "PWNED"
    with make_campaign(tmp_path) as campaign:
        campaign.store.discard()
    _campaign_templates(tmp_path, DICE, ATTACK.format(marker=marker))
    monkeypatch.chdir(tmp_path)
    assert 2 == main(["roll", "roll 2d6"])
    err = capsys.readouterr().err
    assert err.startswith(
        "referee: templates/verdict_dice.md.j2, line 1, tried to reach '__init__'"
    )
    assert not marker.exists() and "Traceback" not in err
