"""Verdicts to Reddit Markdown through Jinja2 templates.

Templates are looked up in the campaign's ``templates_dir``, then the campaign
system's folder, then the core's ``referee/templates/`` (replies, problems, plain dice,
applications, decisions, help), so a GM overrides any one by copying it into the campaign's folder.

Templates decide how a verdict reads; they never decide an outcome. Everything a
user supplied passes through :func:`escape_markdown` (the ``md`` filter), so no
name or word can break the formatting, ping a user or inject a link.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from .limits import DEFAULT_LIMITS, Limits
from .verdicts import Reply, Verdict

if TYPE_CHECKING:
    from .notation_verdict import DiceShapes
    from .system import System

PACKAGE_TEMPLATES = Path(__file__).resolve().parent / "templates"  # the core's own

# What Reddit's Markdown acts on mid-line: emphasis, links, code, tables, superscript,
# spoilers and autolinks ("www." and "scheme:"). List and heading marks act only at the
# start of a line, so they are escaped there alone.
_ESCAPED = frozenset("\\`*_{}[]()#|~^:!.")
_LINE_START = frozenset("-+=")
# "/" stops u/ and r/ links; brackets as entities mean echoed text never forms a [[tag]],
# even for a reader that undoes backslash escapes.
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "/": "&#47;", "[": "&#91;", "]": "&#93;"}
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u200b-\u200f\u2028-\u202e\u2066-\u2069]+")
# Every character to write otherwise, as one str.translate table (entities win over "\").
_WRITTEN = {ord(char): "\\" + char for char in _ESCAPED} | {
    ord(char): entity for char, entity in _ENTITIES.items()
}


def escape_markdown(text: object, max_chars: int = 200) -> str:
    """User text made inert in Reddit Markdown: one line, escaped, capped (see :func:`_escape`).

    >>> escape_markdown("u/admin [click](http://x.y) **bold**")
    'u&#47;admin &#91;click&#93;\\\\(http\\\\:&#47;&#47;x\\\\.y\\\\) \\\\*\\\\*bold\\\\*\\\\*'
    """
    # Names and labels repeat in every verdict, so the escaped forms are memoised.
    return _escape(text if type(text) is str else str(text), max_chars)


@lru_cache(maxsize=8192)
def _escape(text: str, max_chars: int) -> str:
    flat = " ".join(_CONTROL.sub(" ", text).split())
    if len(flat) > max_chars:
        flat = flat[: max_chars - 1] + "…"
    written = flat.translate(_WRITTEN)
    return "\\" + written if flat and flat[0] in _LINE_START else written


def percent(chance: Fraction | float | None) -> str:
    """An exact chance as a percentage a reader takes in at a glance.

    >>> percent(Fraction(5, 12)), percent(Fraction(1)), percent(Fraction(1, 5000))
    ('41.7%', '100%', '<0.1%')
    """
    if chance is None:
        return "?"
    value = float(chance) * 100
    if value in (0.0, 100.0):
        return f"{value:.0f}%"
    if value < 0.1:
        return "<0.1%"
    if value > 99.9:
        return ">99.9%"
    return f"{value:.1f}%"


def signed(value: int) -> str:
    """A modifier with its sign: +2, −1 (a real minus sign, which Markdown leaves alone)."""
    return f"+{value}" if value >= 0 else f"−{-value}"


def sentence_start(text: str) -> str:
    """``text`` with its first letter a capital, the rest as written, to open a sentence.

    >>> sentence_start("the vault door")
    'The vault door'
    """
    return text[:1].upper() + text[1:]


def format_die(die: Any) -> str:
    """One die as ``d8:5``; a die that does not count is struck through: ``d8:~~2~~``."""
    return f"d{die.sides}:{die.value}" if die.kept else f"d{die.sides}:~~{die.value}~~"


def make_environment(
    templates_dir: Path | None = None, system: System | None = None
) -> jinja2.Environment:
    """The Jinja2 environment: the campaign's templates, then the system's, then the core's."""
    own = system.templates if system is not None else None
    folders = [
        str(path) for path in (templates_dir, own, PACKAGE_TEMPLATES) if path and path.is_dir()
    ]
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folders),
        undefined=jinja2.StrictUndefined,  # a typo in a template fails loudly, not silently
        autoescape=False,  # Markdown, not HTML: escaping is the md filter's job
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        auto_reload=False,  # templates are read once per run, not checked on every use
        # Compiled templates kept between runs (a user-only temp folder; a changed
        # template is compiled again): each `referee batch` compiled them all anew.
        bytecode_cache=jinja2.FileSystemBytecodeCache(),
    )
    environment.filters["md"] = escape_markdown
    environment.filters["die"] = format_die
    environment.filters["pct"] = percent
    environment.filters["signed"] = signed
    environment.filters["sentence"] = sentence_start
    from .notation_markdown import markdown, odds_note  # they escape with this module's md

    environment.filters["tree"] = markdown
    environment.filters["odds_note"] = odds_note
    from .tracker_markdown import HELPERS as TRACKER  # the tracker's order, turn and names

    environment.filters.update(TRACKER)
    environment.globals["honors_npc_stats"] = _reads(environment, "roster.md.j2", "npc_stats")
    for name, helper in (system.template_helpers() if system is not None else {}).items():
        # A callable is a filter (``{{ roll|roll }}``); a value is a global (``ladder``).
        target = environment.filters if callable(helper) else environment.globals
        target[name] = helper
    return environment


def _reads(environment: jinja2.Environment, template: str, variable: str) -> bool:
    """Whether ``template`` (as the loader finds it) mentions ``variable``."""
    try:
        source = environment.loader.get_source(environment, template)[0]  # type: ignore[union-attr]
    except jinja2.TemplateNotFound:
        return False
    return variable in source


class Renderer:
    """Renders replies, keeping each under Reddit's comment limit."""

    def __init__(
        self,
        templates_dir: Path | None = None,
        campaign: str = "",
        commitment: str = "",
        limits: Limits = DEFAULT_LIMITS,
        system: System | None = None,
    ) -> None:
        self._environment = make_environment(templates_dir, system)
        self._reply = _Fast(self._environment.get_template("reply.md.j2"))
        self._verdicts: dict[str, _Fast] = {}
        # The stock dice template's text per expression (None: not stock, or not yet used).
        self._dice_shapes: DiceShapes | None = None
        self._turn: _Fast | None = None
        self._campaign = campaign
        self._commitment = commitment
        self._limits = limits

    def render(self, reply: Reply) -> str:
        """One reply: full form, else compact, else as many verdicts as fit plus a note."""
        for compact in (False, True):
            text = self._render(reply, reply.verdicts, compact=compact, omitted=())
            if len(text) <= self._limits.reply_chars:
                return text
        shown: Sequence = reply.verdicts
        while shown:
            shown = shown[: max(1, len(shown) * 3 // 4)] if len(shown) > 1 else ()
            omitted = tuple(v.roll_id for v in reply.verdicts[len(shown) :])
            text = self._render(reply, shown, compact=True, omitted=omitted)
            if len(text) <= self._limits.reply_chars:
                return text
        return self._render(
            reply, (), compact=True, omitted=tuple(v.roll_id for v in reply.verdicts)
        )

    def _verdict(self, verdict: Verdict, compact: bool) -> str:
        template = self._verdicts.get(verdict.kind)
        if template is None:
            template = _Fast(self._environment.get_template(f"verdict_{verdict.kind}.md.j2"))
            self._verdicts[verdict.kind] = template
            if verdict.kind == "dice":
                from .notation_verdict import DiceShapes  # it writes dice with this module's md

                learnt = DiceShapes(self._environment, template.render, _finished)
                self._dice_shapes = learnt if learnt.active else None
        # Plain dice through the stock template: its text per expression, filled in.
        shapes = self._dice_shapes
        text = shapes.write(verdict, compact) if shapes and verdict.kind == "dice" else None
        if text is None:
            text = _footer_apart(template.render(v=verdict, compact=compact).strip())
        if verdict.tracker is not None:  # an initiative roll: whose turn it is now
            if self._turn is None:
                self._turn = _Fast(self._environment.get_template("turn_note.md.j2"))
            text += "\n\n" + self._turn.render(t=verdict.tracker, compact=compact).strip()
        return text

    def _render(
        self, reply: Reply, verdicts: Sequence[Verdict], *, compact: bool, omitted: Sequence[str]
    ) -> str:
        text = self._reply.render(
            reply=reply,
            verdicts=[self._verdict(verdict, compact) for verdict in verdicts],
            compact=compact,
            omitted=omitted,
            campaign=self._campaign,
            commitment=self._commitment,
        )
        return text.strip() + "\n"


def _finished(text: str) -> str:
    """A verdict template's text as a reply holds it: ends stripped, a list spaced."""
    return _footer_apart(text.strip())


def _footer_apart(text: str) -> str:
    """``text`` with a blank line after a list or table that a plain line follows.

    Templates trimmed by Jinja's ``trim_blocks`` lose the blank line that ends a list,
    and Reddit then reads the roll id line as part of the last bullet.

    >>> _footer_apart("* Form: x\\n* Example: y\\n^(roll a1-1)").split("\\n")
    ['* Form: x', '* Example: y', '', '^(roll a1-1)']
    """
    if "\n" not in text:
        return text
    return _ITEM_THEN_PLAIN.sub("\\g<0>\n", text)


_ITEM = r"(?:[*+-]|[0-9]{1,9}[.)])[ \t]|\|"  # a list item or a table row, at a line's start
# An item's line and its line break, when a line follows that starts with neither
# a space nor an item: one pass in C instead of a test per line in Python.
_ITEM_THEN_PLAIN = re.compile(rf"^(?:{_ITEM}).*\n(?=\S)(?!{_ITEM})", re.MULTILINE)


class _Fast:
    """A template rendered without Jinja's per-call setup: its globals shared, a context reused.

    ``Template.render`` copies every global into a fresh dict and builds a new
    ``Context`` (with its evaluation context and block table) before each render; a
    reply renders a template per verdict, and that setup cost as much as a small
    verdict's own text. Here the globals are the context's parent, shared by every
    render (a context never writes its parent), the variables passed are its own
    variables (looked up first, as Jinja looks up a template's ``{% set %}`` names),
    and a finished render's context is kept and reset for the next: its exported
    names, blocks (an ``{% extends %}`` adds to them) and evaluation state start as a
    new one's would. A render that starts while another is under way (a thread, a
    filter that renders) gets a context of its own.
    """

    def __init__(self, template: jinja2.Template) -> None:
        self._template = template
        self._root = template.root_render_func
        self._blocks = template.blocks
        self._globals = dict(template.globals)
        self._concat = template.environment.concat
        self._idle: list[Any] = []  # contexts of finished renders, ready for reuse
        self._eval_state = dict(template.new_context().eval_ctx.__dict__)
        # An {% import %} asks which of the context's globals the imported template
        # lacks, walking the environment's globals key by key through a ChainMap, on
        # every render. Only the template's own globals (beyond the environment's,
        # which every template here shares) can be lacking, so the context lists those.
        self._own_keys = set(template.globals) - set(template.environment.globals)

    def render(self, **variables: Any) -> str:
        """What ``Template.render(**variables)`` returns."""
        idle = self._idle
        if idle:
            context = idle.pop()
            context.exported_vars.clear()
            blocks = self._blocks
            # No blocks of its own: it starts with none (an extends adds its parent's anew).
            context.blocks = {name: [block] for name, block in blocks.items()} if blocks else {}
            context.eval_ctx.__dict__.update(self._eval_state)
        else:
            context = self._template.new_context(self._globals, shared=True)
            context.globals_keys = self._own_keys
        context.vars = variables
        text = self._concat(self._root(context))
        idle.append(context)
        return text
