"""Markdown's block structure, as far as finding tags needs it: the text a reader sees.

:func:`readable_blocks` reads a post one line at a time, as CommonMark (which Reddit
follows) does, and yields its paragraphs without code blocks and quotes. A quote runs
on over its lazy continuation lines (``> quote`` then a plain line) until a blank line
or a line that starts a block of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["readable_blocks"]

# Markdown block structure, read one line at a time.
_LIST_MARKER = re.compile(r"(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]+|$)")
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})(.*)")
_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
_THEMATIC_BREAK = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
# A list item that may interrupt a paragraph: a bullet or "1." with something after it.
_INTERRUPTING_ITEM = re.compile(r"(?:[-*+]|1[.)])[ \t]+\S")


def readable_blocks(body: str) -> Iterator[str]:
    """Yield the paragraphs of ``body`` a reader sees as text, without code and quotes.

    Fenced code (``` or ~~~, to its closing fence or the end), indented code (4
    spaces or a tab after a blank line; 8 inside a list) and ``>`` quote lines are
    left out, with the lazy lines that continue a quote's paragraph (CommonMark: a
    line right after ``> text`` is still quoted unless it starts a block of its own).
    ``>!spoilers!<`` are text.
    """
    paragraph: list[str] = []
    fence: tuple[str, int] | None = None  # the open fence's character and length
    in_list = False
    after_blank = True
    quote_paragraph = False  # a quote's paragraph is open: a plain next line continues it
    for raw in body.splitlines():
        line = raw.expandtabs(4)
        text = line.lstrip(" ")
        indent = len(line) - len(text)
        if fence is not None:
            char, length = fence
            run = len(text) - len(text.lstrip(char))
            if run >= length and not text[run:].strip():
                fence = None
            continue
        if not text:
            if paragraph:
                yield "\n".join(paragraph)
                paragraph = []
            after_blank = True
            quote_paragraph = False
            continue
        if quote_paragraph:
            if not _interrupts_paragraph(text, indent):
                continue  # a lazy continuation line: still the quote
            quote_paragraph = False
        if not paragraph and indent >= (8 if in_list else 4):
            after_blank = False
            continue  # indented code block
        marker = _LIST_MARKER.match(text)
        if marker is None and after_blank and indent < 2:
            in_list = False
        starts_block = marker is not None
        while marker is not None:
            in_list = True
            text = text[marker.end() :]
            marker = _LIST_MARKER.match(text)
        after_blank = False
        opening = _FENCE_OPEN.match(text)
        if opening is not None and opening.group(1)[0] == "`" and "`" in opening.group(2):
            opening = None  # a backtick fence's info string holds no backtick
        quote = text.startswith(">") and not text.startswith(">!")
        heading = _HEADING.match(text) is not None
        if (quote or heading or starts_block or opening is not None) and paragraph:
            yield "\n".join(paragraph)
            paragraph = []
        if quote:
            quote_paragraph = _opens_quote_paragraph(text)
            continue
        if opening is not None:
            fence = (opening.group(1)[0], len(opening.group(1)))
            continue
        if heading:
            yield text
            continue
        paragraph.append(text)
    if paragraph:
        yield "\n".join(paragraph)


def _interrupts_paragraph(text: str, indent: int) -> bool:
    """Whether a line starts a block of its own after a paragraph line (CommonMark).

    ``text`` is the line without its ``indent`` leading spaces. Indented code cannot
    interrupt a paragraph, so an indent of 4 or more is always continuation text.
    """
    if indent >= 4:
        return False
    quote = text.startswith(">") and not text.startswith(">!")
    return (
        quote
        or _HEADING.match(text) is not None
        or _FENCE_OPEN.match(text) is not None
        or _THEMATIC_BREAK.match(text) is not None
        or _INTERRUPTING_ITEM.match(text) is not None
    )


def _opens_quote_paragraph(line: str) -> bool:
    """Whether a ``>`` line leaves a paragraph open inside its quote.

    ``> text`` does; ``>`` alone, ``> # heading``, ``> ---`` or ``> ```…`` do not, so
    the line after them is not a lazy continuation.
    """
    content = line
    while content.startswith(">") and not content.startswith(">!"):
        content = content[1:]
        if content.startswith(" "):
            content = content[1:]
        stripped = content.lstrip(" ")
        if len(content) - len(stripped) >= 4:
            return False  # indented code inside the quote
        content = stripped
    while (marker := _LIST_MARKER.match(content)) is not None and content[marker.end() :].strip():
        content = content[marker.end() :]
    if not content.strip() or _LIST_MARKER.match(content) is not None:
        return False
    return (
        _HEADING.match(content) is None
        and _FENCE_OPEN.match(content) is None
        and _THEMATIC_BREAK.match(content) is None
    )
