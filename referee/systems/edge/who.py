"""Who may set what in an ``edge`` tag: the options only a GM may set.

Seed 003 rolls a move as "2d6+характеристика или 2d6+счетчик" (2d6 + a stat or a
counter): the sheet gives the number, and the advantage die is the only other help a
player has. A bonus beyond them (``+N``: a move's text giving +1 forward, an ally's aid)
is the GM's to grant, as he reads the fiction. So a player may not write ``+N`` on his
character's move; a penalty he takes on himself (``-N``) stays his, as do ``edge=`` and
the move's name. A GM writes ``+N`` for any character. The core refuses it to a player
before the resolver runs (:class:`referee.system.GmOption`).

>>> from .moves import MoveRequest
>>> MOVE_OPTIONS[0].sets(tags.Move("Kara", MoveRequest("cool", 100)))
True
>>> MOVE_OPTIONS[0].sets(tags.Move("Kara", MoveRequest("cool", -1)))
False
"""

from __future__ import annotations

from typing import Any

from referee.system import Context, GmOption

from . import tags

PLAYER_OPTIONS = ("-N", "edge=<policy>", '"move name"')


def _bonus(request: Any) -> bool:
    return isinstance(request, tags.Move) and request.request.modifier > 0


def _move_without(request: tags.Move) -> str:
    """The move as a player may write it: without the GM's bonus."""
    move = request.request
    words = [f"move {request.actor}", move.roll_on or "<stat>"]
    if move.policy is not None:
        words.append(f"edge={move.policy.value}")
    if move.move:
        words.append(f'"{move.move}"')
    return f"[[{' '.join(words)}]]"


def _bonus_fix(request: Any, context: Context) -> str:
    return (
        f"Roll without +{request.request.modifier} (a GM may give it, as a move's text "
        f"or the fiction says; a penalty such as -1 is yours to write): "
        f"{_move_without(request)}."
    )


def _options(example: str) -> tuple[GmOption, ...]:
    return (GmOption("+N", _bonus, "give a move a bonus (+N)", _bonus_fix, example=example),)


MOVE_OPTIONS = _options('move Kara cool +1 "act under fire"')
ROLL_OPTIONS = _options("roll Kara +cool +1")
