"""The initiative tracker's tags read into requests: their forms, their limits, their words.

The forms follow Avrae's ``!init`` (see :mod:`referee.resolve.tracker_verbs`, which
resolves them): ``[[init add Goblin 14]]``, ``[[init remove Goblin]]``, ``[[next]]``,
``[[init list]]``, ``[[init effect Kara stunned 2]]``, ``[[init re Kara stunned]]`` and
``[[init end]]``. A parser raises :class:`~referee.base.errors.TagError` with the right
form on anything it cannot read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from referee import notation
from referee.base.errors import TagError, UserError
from referee.base.limits import read_int
from referee.base.names import name_key
from referee.system import ParseContext
from referee.system.arguments import collapse, name_argument, shorten

if TYPE_CHECKING:
    pass

ADD_USAGE = "[[init add Goblin 14]] or [[init add Goblin 1d20+2]]"
REMOVE_USAGE = "[[init remove Goblin]]"
NEXT_USAGE = "[[next]]"
LIST_USAGE = "[[init list]]"
EFFECT_USAGE = "[[init effect Kara stunned 2]] (2 rounds; leave out the number: until removed)"
CLEAR_USAGE = "[[init re Kara stunned]] or [[init re Kara]] (every condition)"
INIT_USAGE = (
    "[[init add Goblin 14]], [[init remove Goblin]], [[next]], [[init list]], "
    "[[init effect Kara stunned 2]], [[init re Kara stunned]], [[init end]]"
)
MAX_ROUNDS = 1000  # the longest duration a condition may have
MAX_CONDITIONS = 20  # conditions on one combatant at once
MAX_CONDITION_CHARS = 40


# ---------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class AddCombatant:
    """``[[init add Goblin 14]]``: a name placed at a score, given or rolled."""

    name: str
    score: int | None  # None: rolled from ``dice``, or missing
    dice: notation.Expression | None = None


@dataclass(frozen=True)
class RemoveCombatant:
    """``[[init remove Goblin]]``."""

    name: str


@dataclass(frozen=True)
class NextTurn:
    """``[[next]]``: the pointer moves on."""


@dataclass(frozen=True)
class ShowOrder:
    """``[[init list]]``."""


@dataclass(frozen=True)
class SetCondition:
    """``[[init effect Kara stunned 2]]``: the combatant and condition are split on resolving."""

    words: tuple[str, ...]  # the combatant's name, then the condition's
    rounds: int | None


@dataclass(frozen=True)
class ClearCondition:
    """``[[init re Kara stunned]]``; without a condition, every one the author may remove."""

    words: tuple[str, ...]


@dataclass(frozen=True)
class EndTracker:
    """``[[init end]]``: the core's end of the encounter."""


TrackerRequest = (
    AddCombatant
    | RemoveCombatant
    | NextTurn
    | ShowOrder
    | SetCondition
    | ClearCondition
    | EndTracker
)

_PLACE = re.compile(r"^(?P<name>.+?)\s+(?:-p|at)\s+(?P<score>\S+)$", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DURATION = re.compile(
    r"\s+(?:(?:-dur|for)\s+)?(?P<n>[0-9]+)(?:\s*(?:rounds?|rds?|r))?$", re.IGNORECASE
)


def _score(token: str, usage: str, context: ParseContext) -> tuple[int | None, Any]:
    if _INTEGER.fullmatch(token):
        limit = context.limits.max_modifier
        try:
            return read_int(token, "An initiative score", -limit, limit), None
        except UserError as error:
            raise TagError(error.message, usage) from None
    return None, notation.parse_expression(token, context.limits)


def parse_add(rest: str, context: ParseContext) -> AddCombatant:
    """``add <name> <score>``, ``add <name> -p <score>`` or ``add <name> <dice>``.

    >>> parse_add("Goblin 14", ParseContext())
    AddCombatant(name='Goblin', score=14, dice=None)
    >>> parse_add("Trooper 1", ParseContext(frozenset({"trooper 1"})))
    AddCombatant(name='Trooper 1', score=None, dice=None)
    """
    text = collapse(rest)
    placed = _PLACE.match(text)
    if placed is not None:
        name, token = placed.group("name"), placed.group("score")
    elif name_key(text) in context.known_names or " " not in text:
        name, token = text, ""
    else:
        name, _, token = text.rpartition(" ")
        if not (_INTEGER.fullmatch(token) or notation.looks_like_expression(token)):
            name, token = text, ""
    name = name_argument(name, "combatant", ADD_USAGE, context.limits)
    if not token:
        return AddCombatant(name, None)
    score, dice = _score(token, ADD_USAGE, context)
    return AddCombatant(name, score, dice)


def _words(rest: str, what: str, usage: str, context: ParseContext) -> tuple[str, ...]:
    words = tuple(collapse(rest).split())
    if not words:
        raise TagError(f"Name the {what}.", usage)
    if len(" ".join(words)) > context.limits.max_name_chars + MAX_CONDITION_CHARS + 1:
        raise TagError(
            f"'{shorten(' '.join(words))}' is too long for a name and a condition.", usage
        )
    return words


def parse_effect(rest: str, context: ParseContext) -> SetCondition:
    """``effect <name> <condition> [N | -dur N | for N rounds]``.

    >>> parse_effect("Kara stunned -dur 2", ParseContext())
    SetCondition(words=('Kara', 'stunned'), rounds=2)
    """
    text, rounds = collapse(rest), None
    duration = _DURATION.search(text)
    if duration is not None and len(text[: duration.start()].split()) >= 2:
        try:
            rounds = read_int(duration.group("n"), "A condition's rounds", 1, MAX_ROUNDS)
        except UserError as error:
            raise TagError(error.message, EFFECT_USAGE) from None
        text = text[: duration.start()]
    words = _words(text, "combatant and the condition", EFFECT_USAGE, context)
    if len(words) < 2:
        raise TagError("Name the combatant, then the condition.", EFFECT_USAGE)
    return SetCondition(words, rounds)


def _alone(request: Any, usage: str) -> Any:
    def parse(rest: str, context: ParseContext) -> Any:
        if rest.strip():
            raise TagError(f"Write {usage} alone, with nothing after it.", usage)
        return request

    return parse


SUBCOMMANDS: dict[str, Any] = {
    "add": parse_add,
    "remove": lambda rest, c: RemoveCombatant(
        name_argument(rest, "combatant", REMOVE_USAGE, c.limits)
    ),
    "next": _alone(NextTurn(), NEXT_USAGE),
    "list": _alone(ShowOrder(), LIST_USAGE),
    "effect": parse_effect,
    "re": lambda rest, c: ClearCondition(_words(rest, "combatant", CLEAR_USAGE, c)),
    "end": _alone(EndTracker(), "[[init end]]"),
}
ALIASES = {"rm": "remove", "n": "next", "show": "list", "condition": "effect", "cond": "effect"}


def parse_subcommand(rest: str, context: ParseContext) -> TrackerRequest | None:
    """The tracker request ``init <subcommand> ...`` asks for; None if ``rest`` is no subcommand.

    >>> parse_subcommand("rm Goblin", ParseContext())
    RemoveCombatant(name='Goblin')
    >>> parse_subcommand("Kara, Dax", ParseContext()) is None
    True
    """
    word, _, after = collapse(rest).partition(" ")
    word = ALIASES.get(word.casefold(), word.casefold())
    parser = SUBCOMMANDS.get(word)
    return parser(after, context) if parser is not None else None


def parse_init_by_hand(rest: str, context: ParseContext) -> TrackerRequest:
    """``init ...`` where the system rolls no initiative: a subcommand, or how to set the order."""
    request = parse_subcommand(rest, context)
    if request is None:
        raise TagError(
            "This campaign's dice system rolls no initiative: the GM sets the order by hand "
            "with [[init add NAME SCORE]], a score or dice to roll.",
            INIT_USAGE,
        )
    return request


parse_next = _alone(NextTurn(), NEXT_USAGE)
