"""Every tag form a system's players' page lists is played in that system's demo thread.

A form is a verb with the literal words of its grammar that the page's example uses
(the words of the verb's own form string, its ``<placeholders>`` left out):
``[[duel 1 withdraw]]`` needs a demo tag ``duel ... withdraw``, and ``[[roll Kara body +
Swordsmanship adv 1 dis 1]]`` one with ``adv`` and ``dis``; names, numbers and traits may
differ. The stepped demo (``data/demo``) plays the core's tag table instead, and is held
to its replies byte for byte (``tests/test_demo_golden.py``).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from referee.pipeline.batch import load_thread
from referee.read.tags import find_tags
from referee.resolve.dispatch import verbs_for
from referee.system import Verb
from referee.testing.demos import DEMOS

PAGES = Path(__file__).resolve().parents[2] / "docs" / "players"  # a page per system
SYSTEMS = ("edge", "pool", "trikus", "hits")


def _page(system: str) -> str:
    return (PAGES / f"{system}.md").read_text(encoding="utf-8")


def _words(text: str) -> frozenset[str]:
    """The words of a tag after its verb, casefolded; quoted text (a move's name) left out."""
    text = re.sub(r'"[^"]*"', " ", text)
    return frozenset(w.casefold() for w in re.findall(r"[A-Za-z][A-Za-z_]*=?", text))


def _literals(verb: Verb) -> frozenset[str]:
    """The words a verb's form spells out (``roll``, ``adv``, ``line=``), not its placeholders."""
    forms = (part.strip().partition(" ")[2] for part in verb.form.split(";"))
    return _words(re.sub(r"<[^>]*>", " ", " ".join(forms)))


def _form(text: str, table: dict[str, Verb]) -> tuple[str, frozenset[str]] | None:
    """(verb, literal words) of a tag's text, or None if it starts with no verb."""
    verb = table.get(text.split()[0].casefold()) if text.split() else None
    if verb is None:
        return None
    return verb.name, _words(text.split(None, 1)[1] if " " in text.strip() else "") & _literals(
        verb
    )


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_documented_form_is_played_in_the_demo_thread(system: str) -> None:
    """Each tag example on the system's players' page has a demo tag of the same form."""
    table = verbs_for(importlib.import_module(f"referee.systems.{system}.system").SYSTEM)
    played = [
        _form(tag.text, table)
        for post in load_thread(DEMOS / system / "thread.json").posts
        for tag in find_tags(post.body).tags
    ]
    missing = []
    for example in re.findall(r"\[\[([^\]]+)\]\]", _page(system)):
        form = _form(example, table)
        if form is None:  # a file's section such as [[vehicle]], not a tag
            continue
        verb, literals = form
        if not any(p is not None and p[0] == verb and literals <= p[1] for p in played):
            missing.append(example)
    assert [] == missing
