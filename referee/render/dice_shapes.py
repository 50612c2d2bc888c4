"""The stock plain-dice verdict written from its template once per expression, then filled in.

The core's ``verdict_dice.md.j2`` reads a roll's expression (its text, label and
number of sets) and whether the reply is compact, and puts each set's dice, its
total, its odds note and the roll id in fixed places: it never branches on a die, a
total or a roll id. So for one expression its text is fixed but for those slots, and
Jinja's per-render work (a context, an attribute lookup through the environment per
``{{ ... }}``) cost as much as the rest of a small roll's verdict together.

:class:`DiceShapes` renders that template itself, once per expression and form, with
a marker standing in for every slot (a shadow environment whose ``tree`` and
``odds_note`` filters return markers), and turns the text around the markers into one
generated function that writes the slots' values between the template's own words.
The template stays the single source of the text; the first verdict of each shape is
also rendered through Jinja and must come out the same, or the shape is never used.

It is used only for the core's template, found by the loader in the core's folder,
with the core's ``md``, ``tree`` and ``odds_note`` filters: a campaign's or a system's
own ``verdict_dice.md.j2`` (which may branch on anything) is always rendered by Jinja.
The generated source names only slot positions and constants handed in by name;
nothing a player wrote is in it.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2

from referee.base.markdown import escape_markdown
from referee.notation.markdown import markdown, odds_note
from referee.notation.roll import RolledExpression
from referee.render.environment import PACKAGE_TEMPLATES

TEMPLATE = "verdict_dice.md.j2"

Fill = Callable[[Any, str], str]  # (the rolled expression, the roll id) to the verdict's text
_NEW = object()  # a form of an expression not written yet
# A form written once, by Jinja: learning a shape costs a few Jinja renders and a
# compile, worth it for the rolls a table repeats, not for one a player writes once
# (a hostile player can write a new one in every tag).
_SEEN = object()


class _Slot:
    """A set or an odds value in the shadow render: its filter returns a marker for it."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class _Shadow:
    """What the template sees in the shadow render: the real expression, markers for the rest."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


class DiceShapes:
    """The stock dice template's text per expression, as functions filling in its slots.

    ``write`` returns what the renderer makes of ``Template.render(v=verdict,
    compact=compact)`` (``finish`` applied: ends stripped, a list spaced), or None
    when the result is not a rolled expression or its shape could not be learnt
    (then Jinja renders it). It is made only for the core's template (``active``).
    """

    def __init__(
        self,
        environment: jinja2.Environment,
        jinja: Callable[..., str],
        finish: Callable[[str], str],
    ) -> None:
        self._jinja = jinja  # the real template's render(v=..., compact=...), to check a shape
        self._finish = finish  # what the renderer makes of a template's text (strip, spacing)
        self._shapes: dict[int, list[Any]] = {}
        self._nonce = secrets.token_hex(8)  # markers no player can write into a label
        self._template = _shadow_template(environment, self._tree, self._odds_note)
        self._sources: list[str] = []  # a marker's number to the source of its value
        self._totals: dict[str, str] = {}
        self._trees: set[int] = set()  # the sets whose tree the template writes

    @property
    def active(self) -> bool:
        """Whether the campaign renders dice with the core's template (else Jinja does)."""
        return self._template is not None

    def write(self, verdict: Any, compact: bool) -> str | None:
        result = verdict.result
        if type(result) is not RolledExpression:
            return None
        expression = result.expression
        # By the expression's identity (it comes from the parse cache), kept beside it
        # so a reused id cannot match: its number of sets, then a fill a form.
        known = self._shapes.get(id(expression))
        if known is None or known[0] is not expression or known[1] != len(result.sets):
            if len(self._shapes) >= 1024:
                self._shapes.clear()
            known = self._shapes[id(expression)] = [expression, len(result.sets), _NEW, _NEW]
        if len(result.odds) != known[1]:  # rolled without its odds: Jinja says what is wrong
            return None
        fill = known[3] if compact else known[2]
        if fill is _NEW:
            known[3 if compact else 2] = _SEEN
            return None
        if fill is _SEEN:
            fill = known[3 if compact else 2] = self._learn(verdict, compact)
        return None if fill is None else fill(result, verdict.roll_id)

    def _marker(self, source: str) -> str:
        self._sources.append(source)
        return f"\ue000{self._nonce}:{len(self._sources) - 1}\ue001"

    def _total(self, source: str) -> str:
        marker = self._marker(source)
        self._totals[marker] = source
        return marker

    def _tree(self, rolled: Any) -> str:
        if type(rolled) is not _Slot:
            raise TypeError("the shadow render's tree filter takes a set's slot")
        self._trees.add(rolled.index)
        return self._marker(f"t{rolled.index}")

    def _odds_note(self, odds: Any, total: Any) -> str:
        if type(odds) is not _Slot or total not in self._totals:
            raise TypeError("the shadow render's odds_note takes an odds slot and a total")
        return self._marker(f"note(r.odds[{odds.index}], {self._totals[total]})")

    def _learn(self, verdict: Any, compact: bool) -> Fill | None:
        """The shape's filling function, or None if the template's text is not all slots
        and fixed words (then this shape is always rendered by Jinja)."""
        result = verdict.result
        count = len(result.sets)
        if not (count == len(result.totals) == len(result.odds)):
            return None
        self._sources = []
        self._trees = set()
        self._totals = {}  # a total's marker to its source (odds_note is given a total)
        totals = [self._total(f"r.totals[{index}]") for index in range(count)]
        shadow = _Shadow(
            result=_Shadow(
                expression=result.expression,
                sets=[_Slot(index) for index in range(count)],
                totals=totals,
                total=self._total("r.total"),
                odds=[_Slot(index) for index in range(count)],
            ),
            roll_id=self._marker("rid"),
        )
        try:
            text = self._template.render(v=shadow, compact=compact)  # type: ignore[union-attr]
            fill = self._compile(text, result)
            expected = self._finish(self._jinja(v=verdict, compact=compact))
            if fill is None or fill(result, verdict.roll_id) != expected:
                return None
        except Exception:  # any surprise: this shape stays with Jinja, which is always right
            return None
        return fill

    def _compile(self, text: str, result: Any) -> Fill | None:
        pieces = re.split(f"\ue000{self._nonce}:([0-9]+)\ue001", text)
        words, slots = pieces[0::2], pieces[1::2]
        if any("\ue000" in word or "\ue001" in word for word in words):
            return None  # a marker the filters changed: not a slot the function can fill
        names: dict[str, Any] = {"tree": markdown, "note": odds_note, "finish": self._finish}
        lines = []
        for index in sorted(self._trees):
            lines.append(f"t{index} = tree(r.sets[{index}])")
        # A one-line text between fixed first and last words (the stock template's) is
        # finished once here: its ends stripped; spacing after a list needs a line
        # break, and no slot writes one (escaped labels and annotations are one line).
        ends = (
            [words[0].lstrip(), *words[1:-1], words[-1].rstrip()] if slots else [words[0].strip()]
        )
        finished = bool(ends[0] and ends[-1]) and not any("\n" in word for word in ends)
        if finished:
            words = ends
        parts = []
        for index, word in enumerate(words):
            if word:
                names[f"c{index}"] = word
                parts.append(f"{{c{index}}}")
            if index < len(slots):
                parts.append(f"{{{self._sources[int(slots[index])]}!s}}")
        text_source = f'f"{"".join(parts)}"'
        lines.append(f"return {text_source}" if finished else f"return finish({text_source})")
        source = "def fill(r, rid):\n" + "".join(f"    {line}\n" for line in lines)
        exec(source, names)  # slot positions and our own names only
        return names["fill"]


def _shadow_template(
    environment: jinja2.Environment, tree: Callable[..., str], note: Callable[..., str]
) -> jinja2.Template | None:
    """The core's dice template compiled with marker-writing filters; None if the campaign
    renders dice with another template or other filters (the fast path stays off)."""
    filters = environment.filters
    if (
        filters.get("md") is not escape_markdown
        or filters.get("tree") is not markdown
        or filters.get("odds_note") is not odds_note
        or environment.loader is None
    ):
        return None
    try:
        filename = environment.loader.get_source(environment, TEMPLATE)[1]
    except jinja2.TemplateNotFound:
        return None
    if filename is None or os.path.normpath(filename) != os.path.normpath(
        Path(PACKAGE_TEMPLATES) / TEMPLATE
    ):
        return None
    # Its own templates (no cache shared with the campaign's), loaded as the campaign's
    # are: the compiled code comes from the bytecode cache, not a compile a renderer.
    shadow = environment.overlay(cache_size=0)
    shadow.filters = {**filters, "tree": tree, "odds_note": note}
    return shadow.get_template(TEMPLATE)
