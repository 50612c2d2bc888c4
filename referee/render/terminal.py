"""Replies read on a terminal: Reddit's Markdown made plain text for ``--format text``.

A reply is written for Reddit, so everything a player typed is escaped
(``-&gt;``, ``\\:``, ``&#91;``) and outcomes are marked up (``**HIT**``,
``^(roll id)``). On a terminal those marks are noise. :func:`plain_text` undoes the
escapes, drops the emphasis and superscript marks and the backticks of code spans,
and keeps what carries meaning: struck dice (``~~4~~``), lists and tables.

>>> plain_text("**Tag 1 not resolved** (“shoot Kara -&gt; Troper 1”): No character\\\\. "
...            "Write it as: `[[shoot Kara -> Trooper 1]]` ^(roll shell-1)")
'Tag 1 not resolved (“shoot Kara -> Troper 1”): No character. Write it as: [[shoot Kara -> \
Trooper 1]] (roll shell-1)'
"""

from __future__ import annotations

import html
import re
from typing import Any

__all__ = ["FORMATS", "plain_text", "shown"]

FORMATS = ("text", "markdown")  # --format: text on a terminal, markdown for Reddit or a file

_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![*\w])\*(?![\s*])(.+?)(?<![\s*])\*(?![*\w])")
_SUPERSCRIPT = re.compile(r"\^\(")


def _prose(text: str) -> str:
    """Marks and escapes out of Markdown outside code spans."""
    text = _SUPERSCRIPT.sub("(", text)
    text = _BOLD.sub(r"\1", text)
    text = _ITALIC.sub(r"\1", text)
    text = _ESCAPE.sub(r"\1", text)
    return html.unescape(text)


def plain_text(markdown: str) -> str:
    """A reply's Markdown as a terminal shows it best (see the module docstring)."""
    out = []
    position = 0
    for span in _CODE.finditer(markdown):
        out.append(_prose(markdown[position : span.start()]))
        out.append(span.group(2))  # code is shown as written: no escapes inside it
        position = span.end()
    out.append(_prose(markdown[position:]))
    return "".join(out)


def shown(text: str, chosen: str | None, stream: Any) -> str:
    """A reply's Markdown in the ``--format`` chosen, or the one that suits ``stream``:
    plain text on a terminal, Markdown into a file or a pipe."""
    chosen = chosen or ("text" if stream.isatty() else "markdown")
    return plain_text(text) if chosen == "text" else text
