"""Reading ``edge`` tags: the text after the verb -> a request (parse stage only).

Forms (a character's name may have spaces; the campaign's names are known)::

    move Kara cool +1 edge=never "act under fire"   (also: roll Kara +cool)
    policy Kara hit
    edge Kara           keep Kara           final Kara   (R-39 "ask")
    lower Kara          raise Kara
    set Kara advantage 4     set Kara harm 2     set Kara cool 1

Anything unreadable raises :class:`~referee.base.errors.TagError` with the verb's form.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from referee.base.errors import TagError
from referee.system import ParseContext
from referee.system.arguments import (
    leading_name,
    name_argument,
    shorten,
    signed_number,
    trailing_modifiers,
)

from .moves import MoveRequest
from .rulings import Policy

MOVE_USAGE = '[[move Kara cool +1 edge=hit "act under fire"]]'
POLICY_USAGE = "[[policy Kara hit]] (up, hit, strong, always or never)"
LOWER_USAGE = "[[lower Kara]]"
RAISE_USAGE = "[[raise Kara]]"
SET_USAGE = "[[set Kara advantage 4]], [[set Kara harm 2]] or [[set Kara cool 1]]"
EDGE_USAGE = "[[edge Kara]]"
KEEP_USAGE = "[[keep Kara]]"
FINAL_USAGE = "[[final Kara]]"

_QUOTED = re.compile(r'["“”]([^"“”]*)["“”]')
_EDGE = re.compile(r"(?:^|\s)edge\s*=\s*(\S*)", re.I)
_POLICIES = ", ".join(p.value for p in Policy)


@dataclass(frozen=True)
class Move:
    """``move``: who rolls, and how (the engine's request)."""

    actor: str
    request: MoveRequest


@dataclass(frozen=True)
class Named:
    """A verb on one character: ``lower Kara``, ``raise Kara``."""

    actor: str


@dataclass(frozen=True)
class Answer:
    """``edge Kara`` (use the advantage) or ``keep Kara``/``final Kara``: a waiting move settled."""

    actor: str
    use: bool


@dataclass(frozen=True)
class SetPolicy:
    """``policy Kara hit``."""

    actor: str
    policy: Policy


@dataclass(frozen=True)
class SetValue:
    """``set Kara harm 2``: the advantage, a stat or a counter, as typed."""

    actor: str
    key: str
    value: int


def policy_word(word: str, usage: str) -> Policy:
    """A policy a player wrote; TagError listing the policies."""
    try:
        return Policy(word.casefold())
    except ValueError:
        raise TagError(
            f"'{shorten(word)}' is not a policy; the policies are {_POLICIES}.", usage
        ) from None


def _split_actor(words: list[str], context: ParseContext, usage: str) -> tuple[str, list[str]]:
    """The character's name (the longest known one, else all words but the last) and the rest."""
    return leading_name(words, context, usage, guess=len(words) - 1)


def parse_move(rest: str, context: ParseContext) -> Move:
    """``<character> [+]<stat or counter> [+N/-N] [edge=<policy>] ["move name"]``."""
    names = _QUOTED.findall(rest)
    if len(names) > 1:
        raise TagError("Give the move's name once, in quotes.", MOVE_USAGE)
    text = _QUOTED.sub(" ", rest)
    policy = None
    edges = _EDGE.findall(text)
    if len(edges) > 1:
        raise TagError("Give edge= once.", MOVE_USAGE)
    if edges:
        policy = policy_word(edges[0], MOVE_USAGE)
        text = _EDGE.sub(" ", text)
    text, modifier = trailing_modifiers(" " + text.strip(), MOVE_USAGE, context.limits)
    words = text.split()
    if not words:
        raise TagError("Name the character who makes the move.", MOVE_USAGE)
    actor, stat_words = _split_actor(words, context, MOVE_USAGE)
    stat = " ".join(stat_words).lstrip("+").strip() or None
    move_name = " ".join(names[0].split()) if names else ""
    if len(move_name) > context.limits.max_name_chars:
        raise TagError(
            f"A move's name has at most {context.limits.max_name_chars} characters.", MOVE_USAGE
        )
    return Move(actor, MoveRequest(stat, modifier, policy, move_name))


def parse_policy(rest: str, context: ParseContext) -> SetPolicy:
    """``<character> <policy>``."""
    words = rest.split()
    if len(words) < 2:
        raise TagError("Name the character, then the policy.", POLICY_USAGE)
    actor = name_argument(" ".join(words[:-1]), "character", POLICY_USAGE, context.limits)
    return SetPolicy(actor, policy_word(words[-1], POLICY_USAGE))


def named_parser(usage: str) -> Callable[[str, ParseContext], Named]:
    """A parser of ``<character>`` alone, for ``lower`` and ``raise``."""

    def parse(rest: str, context: ParseContext) -> Named:
        return Named(name_argument(rest, "character", usage, context.limits))

    return parse


def answer_parser(use: bool, usage: str) -> Callable[[str, ParseContext], Answer]:
    """A parser of ``<character>`` alone, answering his waiting move (R-39 "ask")."""

    def parse(rest: str, context: ParseContext) -> Answer:
        return Answer(name_argument(rest, "character", usage, context.limits), use)

    return parse


def parse_set(rest: str, context: ParseContext) -> SetValue:
    """``<character> <advantage, stat or counter> <value>``."""
    words = rest.split()
    if len(words) < 3 or not re.fullmatch(r"[+-]?[0-9]+", words[-1]):
        raise TagError("Name the character, what to set, then a whole number.", SET_USAGE)
    value = signed_number(words[-1], SET_USAGE, context.limits)
    actor, key_words = _split_actor(words[:-1], context, SET_USAGE)
    if not key_words:
        raise TagError("Say what to set: advantage, a stat or a counter.", SET_USAGE)
    return SetValue(actor, " ".join(key_words), value)
