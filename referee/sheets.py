"""The code block of an ``[[apply]]`` post: where every system's sheet is written.

A sheet is a fenced code block, so Reddit shows it as typed and the tag finder never
reads tags inside it. What the lines mean is the campaign system's business
(:attr:`referee.system.System.sheet`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import UserError

FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)[^\n]*\n(.*?)^[ \t]{0,3}\1[ \t]*$", re.M | re.S)


def sheet_block(body: str) -> str | None:
    """The first fenced code block of a post, the sheet of an application.

    >>> sheet_block("[[apply]]\\n\\n```\\nname: Orla\\n```\\n")
    'name: Orla\\n'
    """
    match = FENCE.search(body)
    return match.group(2) if match else None


_KEY_VALUE = re.compile(r"^\s*([^:=]+?)\s*[:=]\s*(.*?)\s*$")


@dataclass(frozen=True)
class SheetLine:
    """One ``key: value`` line of a sheet."""

    number: int  # 1-based, as the player counts the sheet's lines
    key: str  # spaces collapsed, case folded
    value: str  # as written, ends stripped


def key_value_lines(text: str, form: str, max_lines: int, problems: list[str]) -> list[SheetLine]:
    """The ``key: value`` lines of a sheet, without comments (``#``) and blank lines.

    A line that is not ``key: value`` adds a problem naming it; more than ``max_lines``
    lines is a UserError ending with ``form`` (what a sheet looks like).

    >>> problems = []
    >>> text = "Name: Kara  # hers\\n\\nTier = master\\noops"
    >>> [(line.number, line.key, line.value) for line in key_value_lines(text, "", 5, problems)]
    [(1, 'name', 'Kara'), (3, 'tier', 'master')]
    >>> problems
    ['Line 4 is not `key: value`.']
    """
    lines = text.splitlines()
    if len(lines) > max_lines:
        raise UserError(f"A sheet has at most {max_lines} lines. {form}")
    found = []
    for number, line in enumerate(lines, start=1):
        line = line.split("#", 1)[0]
        if not line.strip():
            continue
        match = _KEY_VALUE.match(line)
        if match is None:
            problems.append(f"Line {number} is not `key: value`.")
            continue
        key = " ".join(match.group(1).split()).casefold()
        found.append(SheetLine(number, key, match.group(2)))
    return found
