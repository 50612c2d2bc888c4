"""What to tell a player whose roll cannot be read: the part, the reason, the nearest form.

Forms other rollers read (Roll20's ``!!``, Fate dice, ``x`` for times) get a sentence
saying what to write here instead, and every unreadable roll is tried against a few
small repairs (the spelling this roller uses, a missing bracket, a stray operator or
word left out); the first repair that parses is offered as the nearest valid form,
written as it will be rolled:

>>> def parses(text):
...     return {"1d20 adv": "2d20kh1", "2d6": "2d6"}.get(text)
>>> nearest_form("1d20adv", 4, parses, Effort(1000))
'2d20kh1'
>>> nearest_form("2d6 +", 4, parses, Effort(1000))
'2d6'

Each candidate read costs steps of an :class:`~referee.base.effort.Effort` (its budget is
``Limits.max_repair_steps``), so a long or tangled roll costs a bounded search:

>>> nearest_form("2d6 +", 4, parses, Effort(3)) is None
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from referee.base.effort import Effort

USAGE = (
    "[[roll 2d6+3]] — NdX dice, kh3/kl1 keep, ro1/rr1 reroll, ! explode, t6 count "
    "successes, + - * / ( ), then a label"
)

# Forms other rollers read, with what to write here instead.
UNSUPPORTED = (
    (
        "!!",
        "compounding explosions (!!) are not supported; write 3d6e6 (each explosion "
        "is a die of its own)",
    ),
    ("!p", "penetrating explosions (!p) are not supported; write 3d6e6-1 for one explosion"),
    ("df", "Fate dice (dF) are not supported; write 4d3-8 for 4dF"),
    ("cs", "critical ranges (cs) are not supported; the verdict shows every die instead"),
    ("cf", "critical ranges (cf) are not supported; the verdict shows every die instead"),
    ("ie", "Dice Maiden's ie is written e here: 5d10e10 explodes every 10"),
    ("ir", "Dice Maiden's ir is written rr here: 4d6rr1 rerolls every 1"),
    ("**", "powers are not supported; multiply instead, like 2*2*2"),
    ("^", "powers are not supported; multiply instead, like 2*2*2"),
    ("x", "write * to multiply, like 2d6*2 (and 6x 4d6kh3 only at the start, to repeat)"),
    ("adv", "adv goes after the roll, like 1d20+5 adv (it rolls 2d20kh1+5)"),
    ("dis", "dis goes after the roll, like 1d20+5 dis (it rolls 2d20kl1+5)"),
)


def _fate(match: re.Match[str]) -> str:
    count = int(match.group(1) or 1)
    return f"{count}d3-{2 * count}"


# Other rollers' spellings rewritten to this one's, tried in order.
_SPELLINGS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (re.compile(r"d(\d+)\s*!!", re.I), r"d\1e\1"),
    (re.compile(r"d(\d+)\s*!p", re.I), r"d\1e\1"),
    (re.compile(r"(\d*)d\s*f\b", re.I), _fate),
    (re.compile(r"(d\d+)\s*ie", re.I), r"\1e"),
    (re.compile(r"(d\d+)\s*ir", re.I), r"\1rr"),
    (re.compile(r"d00\b", re.I), "d100"),
    (re.compile(r"(?<=\S)\s*[x×]\s*(?=[\d(d])", re.I), "*"),
    (re.compile(r"(?<=[\w)\]])(adv|dis)(antage)?\b", re.I), r" \1"),
    (re.compile(r"^\s*(adv|dis)(?:antage)?\s+(.+)$", re.I), r"\2 \1"),
    (re.compile(r"^(.*?)\s+(adv|dis)(?:antage)?\s*([-+*/].*)$", re.I), r"\1\3 \2"),
    (re.compile(r"\bd\s+(\d)", re.I), r"d\1"),
    (re.compile(r"÷"), "/"),
)
# Another roller's notation after a space, which d20 would silently take for a comment
# ("3d6 !!", "2d6 x2", "2d6 ^2"): refused with advice instead, as the player meant dice.
_OTHER_ROLLERS = re.compile(
    r"(!!|!p|(\*\*|\^)\s*[\d(]|[x×]\s*[\d(]|(df|cs|cf|ie|ir)(\W|\d|$))", re.I
)
_TRAILING_OPERATORS = " \t\n\r\f\v+-*/%,<>=!"  # stripped from the end of a roll
# Characters a repair may drop from the end of a roll whatever its length ("2d6 + to"):
# "8" is no near form of 34 characters of which only the first could be read.
_SHORT_TAIL = 10
_TOKEN = re.compile(r"[^\s+\-*/%,()\[\]]+|.")


def shorten(text: str, width: int = 40) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def advice_for(rest: str) -> str | None:
    """What to write instead of another roller's form that ``rest`` starts with."""
    lowered = rest.lower()
    for form, advice in UNSUPPORTED:
        if lowered.startswith(form) or (form in ("!!", "!p") and lowered.startswith(form[1:])):
            return advice
    return None


def other_rollers_form(rest: str) -> bool:
    """Whether a spaced ``rest`` after a roll is another roller's notation, not a label.

    >>> other_rollers_form("x2"), other_rollers_form("**bold**"), other_rollers_form("extra")
    (True, False, False)
    """
    return _OTHER_ROLLERS.match(rest) is not None


def _repairs(text: str, position: int, effort: Effort) -> Iterator[str]:
    """Candidate repairs of ``text``, unreadable from ``position``, closest first, while
    ``effort`` allows: a pass of a spelling over the text costs a step per 16 characters."""
    for pattern, replacement in _SPELLINGS:
        if not effort.spend(len(text) // 16 + 1):
            return
        repaired = pattern.sub(replacement, text)
        if repaired != text:
            yield repaired
    missing = text.count("(") - text.count(")")
    if missing > 0:
        yield text.rstrip() + ")" * missing
    elif missing < 0:
        yield text[:position] + text[position:].replace(")", "", -missing)
    trimmed = text.rstrip(_TRAILING_OPERATORS)
    if trimmed != text:
        yield trimmed
    token = _TOKEN.match(text, position)
    if token is not None:
        yield text[:position] + text[token.end() :]
        dropped = text[position:].strip()
        if len(dropped) <= max(_SHORT_TAIL, len(text) // 3):
            yield text[:position]  # a short tail dropped; never most of what was written


def nearest_form(
    text: str, position: int, parses: Callable[[str], str | None], effort: Effort
) -> str | None:
    """The first repair of ``text`` (unreadable from ``position``) that ``parses`` reads.

    ``parses`` returns a candidate as it will be rolled, or None when it is unreadable too;
    it must not search for repairs itself. Reading a candidate costs a step per character
    of ``effort``; when the budget is spent the search gives up (None), and the reply
    shows the right form without a guess.
    """
    if text[position:].lstrip().startswith(("^", "**")):
        return None  # no power is near a product: the advice says what to write
    for candidate in _repairs(text, position, effort):
        if candidate.strip():
            if not effort.spend(len(candidate)):
                return None
            written = parses(candidate)
            if written is not None:
                return written
    return None
