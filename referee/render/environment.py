"""The Jinja2 environment every template is rendered in: folders, filters and globals.

Templates are looked up in the campaign's ``templates_dir``, then the campaign system's
folder, then the core's ``templates/`` beside this module. The filters are the ways a
template writes a value: ``md`` (user text made inert), ``die``, ``pct``, ``signed``,
``sentence``, ``tree`` and ``odds_note`` (a rolled dice tree and its chance), the
initiative tracker's pieces and the pace's (deadlines, days, mentions).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2

from referee.base.markdown import escape_markdown, format_die, percent, sentence_start, signed
from referee.notation.markdown import markdown, odds_note
from referee.render.pace_markdown import HELPERS as PACE
from referee.render.tracker_markdown import HELPERS as TRACKER

if TYPE_CHECKING:
    from referee.system import System

PACKAGE_TEMPLATES = Path(__file__).resolve().parent / "templates"  # the core's own


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
    environment.filters["tree"] = markdown
    environment.filters["odds_note"] = odds_note
    environment.filters.update(TRACKER)  # the tracker's order, turn and names
    environment.filters.update(PACE)  # deadlines, days and mentions
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


def close_lists(text: str) -> str:
    """``text`` with a blank line after a list or table that a plain line follows.

    Templates trimmed by Jinja's ``trim_blocks`` lose the blank line that ends a list,
    and Reddit then reads the roll id line as part of the last bullet.

    >>> close_lists("* Form: x\\n* Example: y\\n^(roll a1-1)").split("\\n")
    ['* Form: x', '* Example: y', '', '^(roll a1-1)']
    """
    if "\n" not in text:
        return text
    return _ITEM_THEN_PLAIN.sub("\\g<0>\n", text)


_ITEM = r"(?:[*+-]|[0-9]{1,9}[.)])[ \t]|\|"  # a list item or a table row, at a line's start
# An item's line and its line break, when a line follows that starts with neither
# a space nor an item: one pass in C instead of a test per line in Python.
_ITEM_THEN_PLAIN = re.compile(rf"^(?:{_ITEM}).*\n(?=\S)(?!{_ITEM})", re.MULTILINE)
