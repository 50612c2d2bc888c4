"""The code block of an ``[[apply]]`` post: where every system's sheet is written.

A sheet is a fenced code block, so Reddit shows it as typed and the tag finder never
reads tags inside it. What the lines mean is the campaign system's business
(:attr:`referee.system.System.sheet`); :func:`read_key_values` reads the
``key: value`` lines every built-in system but stepped uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from referee.base.errors import UserError
from referee.base.limits import Limits, is_visible
from referee.base.names import normalise_name

FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)[^\n]*\n(.*?)^[ \t]{0,3}\1[ \t]*$", re.M | re.S)


def sheet_block(body: str) -> str | None:
    """The first fenced code block of a post, the sheet of an application.

    >>> sheet_block("[[apply]]\\n\\n```\\nname: Orla\\n```\\n")
    'name: Orla\\n'
    """
    match = FENCE.search(body)
    return match.group(2) if match else None


_KEY_VALUE = re.compile(r"^\s*([^:=]+?)\s*[:=]\s*(.*?)\s*$")

LineReader = Callable[[str, str], None]  # (key, value) -> reads it; UserError for a problem


def read_key_values(
    text: str,
    form: str,
    max_lines: int,
    limits: Limits,
    read_line: LineReader,
    required: tuple[str, ...] = (),
    repeatable: frozenset[str] = frozenset(),
) -> str:
    """The name of a sheet of ``key: value`` lines, once ``read_line`` has read every other line.

    Keys are folded (any case, spaces collapsed), values have their ends stripped; ``#``
    starts a comment and blank lines are skipped. The reader checks every key's length
    and the ``name:`` line itself; ``read_line(key, value)`` reads any other line and
    raises UserError for a problem, which is reported as ``Line N: ...``. A sheet must
    have a ``name:`` line, and a line read without a problem for each key of
    ``required``. Every problem (lines and sheet) is raised at once as one UserError
    ending with ``form``, what a sheet looks like; so is a sheet of more than
    ``max_lines`` lines. A key is given once (a second line of it is a problem, not the
    last one winning), but for the keys of ``repeatable`` (a list, one item a line).

    >>> seen = {}
    >>> read_key_values("Name: Kara  Venn # hers\\n\\nCool = 2", "", 5, Limits(),
    ...                 lambda key, value: seen.update({key: value}))
    'Kara Venn'
    >>> seen
    {'cool': '2'}
    >>> read_key_values("name: Kara\\nCool: 1\\ncool: 2", "(the form)", 5, Limits(), min)
    Traceback (most recent call last):
    ...
    referee.base.errors.UserError: Line 3: `cool` is given on line 2 already. (the form)
    >>> read_key_values("name: Kara\\noops", "(the form)", 5, Limits(), print, ("tier",))
    Traceback (most recent call last):
    ...
    referee.base.errors.UserError: Line 2 is not `key: value`. The sheet has no `tier:` line. \
(the form)
    """
    lines = text.splitlines()
    if len(lines) > max_lines:
        raise UserError(f"A sheet has at most {max_lines} lines. {form}")
    name: str | None = None
    read: set[str] = set()
    given: dict[str, int] = {}  # a key given once -> its line
    problems: list[str] = []
    for number, line in enumerate(lines, start=1):
        line = line.split("#", 1)[0]
        if not line.strip():
            continue
        match = _KEY_VALUE.match(line)
        if match is None:
            problems.append(f"Line {number} is not `key: value`.")
            continue
        key, value = " ".join(match.group(1).split()).casefold(), match.group(2)
        if key in given:
            problems.append(f"Line {number}: `{key}` is given on line {given[key]} already.")
            continue
        if key not in repeatable:
            given[key] = number
        try:
            if len(key) > limits.max_name_chars:
                raise UserError(f"a key has at most {limits.max_name_chars} letters.")
            if key == "name":
                name = _name(value, limits)
            else:
                read_line(key, value)
        except UserError as error:
            problems.append(f"Line {number}: {error.message}")
        else:
            read.add(key)
    if name is None:
        problems.append("The sheet has no `name:` line.")
    problems += [f"The sheet has no `{key}:` line." for key in required if key not in read]
    if problems or name is None:
        raise UserError(" ".join([*problems, form]))
    return name


def _name(value: str, limits: Limits) -> str:
    name = normalise_name(value)
    if not is_visible(name) or len(name) > limits.max_name_chars:
        raise UserError(f"a name shows letters and has at most {limits.max_name_chars} characters.")
    return name
