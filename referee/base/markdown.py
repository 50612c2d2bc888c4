"""Markdown as the referee writes it back: user text made inert, chances and modifiers.

Everything a user supplied passes through :func:`escape_markdown` (the templates' ``md``
filter), so no name or word can break the formatting, ping a user or inject a link.
Every stage that writes Markdown (the notation's dice trees, the renderer, a GM's
correction) uses these, so a word is escaped one way everywhere.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Any

from referee.base.names import is_format

# What Reddit's Markdown acts on mid-line: emphasis, links, code, tables, superscript,
# spoilers and autolinks ("www." and "scheme:"). List and heading marks act only at the
# start of a line, so they are escaped there alone.
_ESCAPED = frozenset("\\`*_{}[]()#|~^:!.")
_LINE_START = frozenset("-+=")
# "/" stops u/ and r/ links; brackets as entities mean echoed text never forms a [[tag]],
# even for a reader that undoes backslash escapes.
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "/": "&#47;", "[": "&#91;", "]": "&#93;"}
# Controls, line breaks and the format characters a quick range catches; any other format
# character (Cf: bidi marks, word joiners, byte-order marks, tags) is found by its category.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]+")
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
    text = _CONTROL.sub(" ", text)
    if not text.isascii():
        text = "".join(" " if is_format(char) else char for char in text)
    flat = " ".join(text.split())
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
