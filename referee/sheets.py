"""The code block of an ``[[apply]]`` post: where every system's sheet is written.

A sheet is a fenced code block, so Reddit shows it as typed and the tag finder never
reads tags inside it. What the lines mean is the campaign system's business
(:attr:`referee.system.System.sheet`).
"""

from __future__ import annotations

import re

FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)[^\n]*\n(.*?)^[ \t]{0,3}\1[ \t]*$", re.M | re.S)


def sheet_block(body: str) -> str | None:
    """The first fenced code block of a post, the sheet of an application.

    >>> sheet_block("[[apply]]\\n\\n```\\nname: Orla\\n```\\n")
    'name: Orla\\n'
    """
    match = FENCE.search(body)
    return match.group(2) if match else None
