"""Verdicts to Reddit Markdown through Jinja2 templates.

Templates are looked up in the campaign's ``templates_dir``, then the campaign
system's folder, then the core's ``referee/render/templates/`` (replies, problems, plain dice,
applications, decisions, help), so a GM overrides any one by copying it into the campaign's folder.

Templates decide how a verdict reads; they never decide an outcome. Everything a
user supplied passes through :func:`escape_markdown` (the ``md`` filter), so no
name or word can break the formatting, ping a user or inject a link.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.render.environment import close_lists, make_environment
from referee.resolve.verdicts import Reply, Verdict

if TYPE_CHECKING:
    from referee.system import System


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
        self._environment = make_environment(templates_dir, system, limits)
        self._reply = _Fast(self._environment.get_template("reply.md.j2"))
        self._verdicts: dict[str, _Fast] = {}
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
        text = _finished(template.render(v=verdict, compact=compact))
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
    return close_lists(text.strip())


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
        try:
            text = self._concat(self._root(context))
        except Exception:  # as Template.render does: a refused template is explained
            self._template.environment.handle_exception()
        idle.append(context)
        return text
