"""The Jinja2 environment every template is rendered in: folders, filters, globals, sandbox.

Templates are looked up in the campaign's ``templates_dir``, then the campaign system's
folder, then the core's ``templates/`` beside this module. The filters are the ways a
template writes a value: ``md`` (user text made inert), ``die``, ``pct``, ``signed``,
``sentence``, ``tree`` and ``odds_note`` (a rolled dice tree and its chance), the
initiative tracker's pieces and the pace's (deadlines, days, mentions).

A campaign's templates are the GM's to edit and may come in with a backup, so every
template (the campaign's, the system's and the core's alike) renders in Jinja2's
immutable sandbox: it reads the values it is given and calls the filters and helpers,
but reaches no underscore attribute, no unsafe callable and changes no list or dict.
Its work is bounded too: every loop item and every call spends one step of
``Limits.max_template_steps`` per render. A template that oversteps, or a campaign's
template that fails, raises :class:`TemplateRefused`, naming the file and the fix.
"""

from __future__ import annotations

import re
import sys
import types
from collections import abc, deque
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from referee.base.errors import ConfigError
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.base.markdown import escape_markdown, format_die, percent, sentence_start, signed
from referee.notation.markdown import markdown, odds_note
from referee.render.pace_markdown import HELPERS as PACE
from referee.render.tracker_markdown import HELPERS as TRACKER

if TYPE_CHECKING:
    from referee.system import System

PACKAGE_TEMPLATES = Path(__file__).resolve().parent / "templates"  # the core's own
# Compiled templates are kept between runs in a user-only temp folder, under a name of
# their own: code compiled by a plain (unsandboxed) Jinja environment, as referee's
# before the sandbox or another program's, has no sandbox checks in it, so it must
# never be loaded here. The name changes whenever the compiled code would.
CACHE_PATTERN = "__referee_sandboxed_v1_%s.cache"


class TemplateRefused(ConfigError):
    """A template broke the sandbox, spent its step budget, or (a campaign's) failed."""


class TemplateOverspent(SecurityError):
    """A render spent more steps than ``Limits.max_template_steps`` allows."""


class _CountingCode(CodeGenerator):
    """Jinja's code generator, with every ``{% for %}`` loop's items counted as steps:
    the loop runs over ``environment.counted(items)`` instead of the items."""

    def visit_For(self, node: nodes.For, frame: Frame) -> None:
        line = node.iter.lineno
        items = nodes.Call(
            nodes.EnvironmentAttribute("counted", lineno=line), [node.iter], [], None, None
        )
        items.set_lineno(line)
        counted = nodes.For(
            node.target, items, node.body, node.else_, node.test, node.recursive, lineno=node.lineno
        )
        counted.set_environment(self.environment)
        super().visit_For(counted, frame)


class _Budget:
    """The steps one render (its includes, imports and macros with it) may still spend."""

    __slots__ = ("left",)

    def __init__(self, steps: int) -> None:
        self.left = steps


_BUDGET: ContextVar[_Budget | None] = ContextVar("template_budget", default=None)


class _MeteredTemplate(jinja2.Template):
    """A template whose render opens a step budget, unless it runs inside one (an include)."""

    @classmethod
    def from_code(cls, environment: Any, code: Any, globals: Any, uptodate: Any = None) -> Any:
        template = super().from_code(environment, code, globals, uptodate)
        template.root_render_func = _metered(template.root_render_func, environment.max_steps)
        return template


def _metered(render: Any, steps: int) -> Any:
    def metered(context: Any) -> Iterator[str]:
        if _BUDGET.get() is not None:  # an include, an import or an extends: the same budget
            yield from render(context)
            return
        token = _BUDGET.set(_Budget(steps))
        try:
            yield from render(context)
        finally:
            _BUDGET.reset(token)

    return metered


def _spend() -> None:
    budget = _BUDGET.get()
    if budget is not None:
        budget.left -= 1
        if budget.left < 0:
            raise TemplateOverspent("the template did more work than a render may")


class SandboxedTemplates(ImmutableSandboxedEnvironment):
    """The sandbox every template renders in, with a step budget and errors that explain.

    Immutable, not merely sandboxed: no shipped template changes a list or dict, so a
    template may not either (``append``, ``update`` and the like are refused).
    """

    code_generator_class = _CountingCode
    template_class = _MeteredTemplate

    def __init__(self, campaign_folder: Path | None, max_steps: int, **options: Any) -> None:
        super().__init__(**options)
        self.campaign_folder = campaign_folder
        self.max_steps = max_steps

    def counted(self, items: Iterable[Any]) -> Iterator[Any]:
        """A loop's items, a step each."""
        for item in items:
            _spend()
            yield item

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``obj.attribute`` from a template: at once for a plain object's public
        attribute (see _plain), else as the sandbox decides."""
        kind: type = type(obj)
        if _plain(kind, attribute) and obj.__class__ is kind:
            try:
                return getattr(obj, attribute)
            except AttributeError:
                pass  # maybe an item (a dict's key), or undefined: the sandbox's path
        return super().getattr(obj, attribute)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """A call from a template (a macro, a helper, a method): a step, then the sandbox's."""
        _spend()
        return super().call(__context, __obj, *args, **kwargs)

    def handle_exception(self, source: str | None = None) -> NoReturn:
        """Jinja's, except that a refused or failing template is explained (TemplateRefused)."""
        error = sys.exc_info()[1]
        refusal = self._refusal(error) if isinstance(error, Exception) else None
        if refusal is None:
            super().handle_exception(source)
        raise refusal from error

    def _refusal(self, error: Exception) -> TemplateRefused | None:
        """What to tell the GM of ``error``: None for a failure of referee's own templates
        that the sandbox did not cause (a bug, reported as any other)."""
        if isinstance(error, jinja2.TemplateSyntaxError):
            where = [(error.filename or error.name or "", error.lineno)]
        else:
            where = _template_frames(error)
        own = [place for place in where if self._is_campaigns(place[0])]
        if not own and not isinstance(error, SecurityError):
            return None
        filename, line = (own or where or [("", 0)])[-1]
        return TemplateRefused(self._explain(error, filename, line, bool(own)))

    def _is_campaigns(self, filename: str) -> bool:
        folder = self.campaign_folder
        return folder is not None and bool(filename) and _real(filename).is_relative_to(folder)

    def _explain(self, error: Exception, filename: str, line: int, own: bool) -> str:
        name = Path(filename).name or "a template"
        if own:
            relative = _real(filename).relative_to(self.campaign_folder or "").as_posix()
            shown = f"{Path(self.campaign_folder or '').name}/{relative}"
            place = f"{shown}, line {line},"
            fix = f"or delete {shown} to use the shipped one" if self._shipped(relative) else ""
        else:  # referee's own template: the sandbox stopped a bug of ours
            place = f"the shipped template {name}, line {line},"
            fix = "and report it: it is a bug in referee"
        if isinstance(error, TemplateOverspent):
            return (
                f"{place} did more work than a template may ({self.max_steps} loop items and "
                f"calls in one render); make its loops shorter {fix}".rstrip()
                + "."
            )
        if isinstance(error, SecurityError):
            found = _UNSAFE_ATTRIBUTE.search(str(error))
            what = f"'{found[1]}' (on a {found[2]})" if found else str(error).rstrip(".")
            return (
                f"{place} tried to reach {what}, which templates may not do: a template "
                f"reads the values it is given and uses the filters, nothing else. Remove it "
                f"from the template {fix}".rstrip()
                + "."
            )
        reason = (error.message if isinstance(error, jinja2.TemplateError) else None) or str(error)
        kind = "cannot be read" if isinstance(error, jinja2.TemplateSyntaxError) else "failed"
        return f"{place} {kind} ({type(error).__name__}: {reason}). Fix it {fix}".rstrip() + "."

    def _shipped(self, name: str) -> bool:
        """Whether a template of that name ships with referee (the system's or the core's)."""
        loader = self.loader
        folders = loader.searchpath[1:] if isinstance(loader, jinja2.FileSystemLoader) else []
        return any((Path(folder) / name).is_file() for folder in folders)


# What the immutable sandbox looks at before it hands out an attribute: functions,
# methods, classes, code, frames and generators have internal attributes; a list, set
# or dict has methods that change it; str.format is wrapped to check its fields.
_GUARDED_KINDS = (
    types.FunctionType,
    types.MethodType,
    type,
    types.CodeType,
    types.TracebackType,
    types.FrameType,
    types.GeneratorType,
    types.CoroutineType,
    types.AsyncGeneratorType,
    set,
    dict,
    list,
    deque,
    abc.MutableSet,
    abc.MutableMapping,
    abc.MutableSequence,
)
_GUARDED_NAMES = frozenset({"format", "format_map", "mro"})


@lru_cache(maxsize=4096)
def _plain(kind: type, attribute: str) -> bool:
    """Whether the sandbox would hand out ``attribute`` of any ``kind`` object as it is.

    Jinja's checks depend on the object's type and the attribute's name alone, and for
    an object of none of the guarded kinds they come down to "no leading underscore".
    Answered once per type and name, since a verdict reads ten attributes and the
    sandbox's own checks (twenty type tests each) were most of its render.
    """
    return (
        not attribute.startswith("_")
        and attribute not in _GUARDED_NAMES
        and not issubclass(kind, _GUARDED_KINDS)
    )


_UNSAFE_ATTRIBUTE = re.compile(r"access to attribute '([^']*)' of '([^']*)' object is unsafe")


def _real(filename: str) -> Path:
    return Path(filename).resolve()


def _template_frames(error: BaseException) -> list[tuple[str, int]]:
    """The templates (file and line, outermost first) that ``error`` passed through."""
    frames = []
    trace = error.__traceback__
    while trace is not None:
        template = trace.tb_frame.f_globals.get("__jinja_template__")
        if template is not None and template.filename:
            frames.append((template.filename, template.get_corresponding_lineno(trace.tb_lineno)))
        trace = trace.tb_next
    return frames


def make_environment(
    templates_dir: Path | None = None,
    system: System | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> jinja2.Environment:
    """The sandboxed Jinja2 environment: the campaign's templates, the system's, the core's."""
    own = system.templates if system is not None else None
    folders = [
        str(path) for path in (templates_dir, own, PACKAGE_TEMPLATES) if path and path.is_dir()
    ]
    campaign_folder = templates_dir.resolve() if templates_dir and templates_dir.is_dir() else None
    environment = SandboxedTemplates(
        campaign_folder,
        limits.max_template_steps,
        loader=jinja2.FileSystemLoader(folders),
        undefined=jinja2.StrictUndefined,  # a typo in a template fails loudly, not silently
        autoescape=False,  # Markdown, not HTML: escaping is the md filter's job
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        auto_reload=False,  # templates are read once per run, not checked on every use
        # Compiled templates kept between runs (a changed template is compiled again):
        # each `referee batch` compiled them all anew. See CACHE_PATTERN.
        bytecode_cache=jinja2.FileSystemBytecodeCache(pattern=CACHE_PATTERN),
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
