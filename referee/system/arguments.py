"""Reading a verb's arguments: names, numbers and modifiers, each refused in the verb's form.

A system's parser reads the text after its verb with these: :func:`leading_name` (the
longest known character name the words start with), :func:`name_argument` (a name as it
shows, within the limits), :func:`trailing_modifiers` (``+2 -1``), :func:`signed_number`.
Each raises :class:`~referee.base.errors.TagError` with the verb's usage on what it
cannot read.

May import: :mod:`referee.store` and :mod:`referee.base` only.
"""

from __future__ import annotations

import re

from referee.base.errors import TagError
from referee.base.limits import Limits, is_visible
from referee.base.names import name_key, normalise_name
from referee.system.interface import ParseContext

_TRAILING_MODIFIER = re.compile(r"\s*([+\-])\s*([0-9]+)\s*$")
_MAX_DIGITS = 7


def shorten(text: str, width: int = 40) -> str:
    """``text`` cut to ``width`` characters with an ellipsis, for echoing it in a message."""
    return text if len(text) <= width else text[: width - 1] + "…"


def collapse(text: str) -> str:
    """``text`` with every run of spaces made one space, ends stripped."""
    return " ".join(text.split())


def signed_number(text: str, usage: str, limits: Limits) -> int:
    """A signed modifier such as ``+2`` or ``-10``, within ``limits.max_modifier``."""
    digits = text.lstrip("+-")
    value = int(digits) if len(digits) <= _MAX_DIGITS else limits.max_modifier + 1
    if value > limits.max_modifier:
        raise TagError(
            f"'{shorten(text)}' is more than the ±{limits.max_modifier:,} a modifier may be.",
            usage,
        )
    return -value if text.startswith("-") else value


def name_argument(text: str, what: str, usage: str, limits: Limits) -> str:
    """A name from a tag as it shows (:func:`~referee.base.names.normalise_name`); TagError
    if it shows nothing or is longer than the limit."""
    name = normalise_name(text)
    if not text.strip():
        raise TagError(f"Name the {what}.", usage)
    if not is_visible(name):
        raise TagError(
            f"The {what}'s name shows nothing but invisible characters; write a name "
            "with letters or digits.",
            usage,
        )
    if len(name) > limits.max_name_chars:
        raise TagError(
            f"The {what}'s name '{shorten(name)}' is {len(name):,} characters long; "
            f"names may be at most {limits.max_name_chars:,}.",
            usage,
        )
    return name


def trailing_modifiers(text: str, usage: str, limits: Limits) -> tuple[str, int]:
    """Split off trailing ``+N``/``-N`` modifiers (summed) from ``text``."""
    total = 0
    while (match := _TRAILING_MODIFIER.search(text)) is not None and match.start() > 0:
        total += signed_number(match.group(1) + match.group(2), usage, limits)
        text = text[: match.start()]
    if abs(total) > limits.max_modifier:
        raise TagError(
            f"The modifiers add up to {total:+,}, beyond the ±{limits.max_modifier:,} "
            "a modifier may be.",
            usage,
        )
    return text, total


def known_prefix(words: list[str], context: ParseContext) -> int:
    """How many leading ``words`` form the longest known character name (0 if none)."""
    if not context.known_names:
        return 0
    best, length = 0, -1
    for count, word in enumerate(words, start=1):
        length += len(word) + 1
        if length > context.limits.max_name_chars:
            break
        if name_key(" ".join(words[:count])) in context.known_names:
            best = count
    return best


def leading_name(
    words: list[str], context: ParseContext, usage: str, guess: int = 1, what: str = "character"
) -> tuple[str, list[str]]:
    """A tag's leading name and the words after it.

    The name is the longest known character name the words start with; when none is
    known, the first ``guess`` words (at least one), so the roster can say who is meant.

    >>> leading_name(["kara", "venn", "body"], ParseContext(frozenset({"kara venn"})), "")
    ('kara venn', ['body'])
    """
    count = known_prefix(words, context) or min(max(guess, 1), len(words))
    name = name_argument(" ".join(words[:count]), what, usage, context.limits)
    return name, words[count:]
