"""Who may set what in a ``pool`` tag: the options only a GM may set.

The seed gives the Narrator the last word on difficulty ("O Narrador tem a palavra final
sobre a dificuldade") and builds every pool from the sheet's traits ("um dado para cada
nível"), so a player may not set, for his character:

* a number of dice instead of traits (``roll Kara 10``), nor a side without a sheet
  (``resist Kara wits vs the door 5``, the GM's);
* extra dice (``roll Kara wits +3``); taking dice away is his to do;
* a difficulty, once the GM set one: the thread's standing one (``diff 3`` under his 9),
  or his word on the character's next roll (``[[difficulty 8 for Kara]]``);
* a difficulty where the GM set none: the player's roll is at the default 6 until the
  GM sets one by a tag. Only the campaign's ruling ``player_difficulty = true`` lets
  a player write the difficulty the GM named in prose for his roll.

The core refuses these before the resolver runs (:class:`referee.system.GmOption`).

>>> from .rolls import PoolSpec, RollRequest
>>> roll = tags.Roll(tags.Side("Kara", RollRequest(PoolSpec((), 10), "Kara")))
>>> [option.name for option in ROLL_OPTIONS if option.sets(roll)]
['a number of dice']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from referee.base.errors import UserError
from referee.system import Context, GmOption

from . import tags
from .rolls import DEFAULT_DIFFICULTY, RollRequest
from .threads import THREADS

PLAYER_OPTIONS = (
    "diff N (where no GM difficulty stands, if the campaign's player_difficulty ruling allows)",
    "-N dice",
    "willpower",
    "reflexive",
)


def _sides(request: Any) -> Iterable[tuple[str, RollRequest]]:
    """Each side a tag declares in full: (the name it rolls for, "" for nobody; its request)."""
    if isinstance(request, tags.Roll):
        yield request.side.roller, request.side.request
    elif isinstance(request, tags.Act):
        for one in request.requests:
            yield request.roller, one
    elif isinstance(request, tags.Resist):
        yield request.first.roller, request.first.request
        if request.second is not None:
            yield request.opponent, request.second


def _counted(request: Any) -> bool:
    return any(named and side.pool.dice is not None for named, side in _sides(request))


def _added(request: Any) -> bool:
    return any(named and side.pool.modifier > 0 for named, side in _sides(request))


def _difficulty(request: Any) -> bool:
    return any(
        side.difficulty is not None or side.difficulty_modifier for _, side in _sides(request)
    )


def _gm_difficulty(request: Any, context: Context) -> str:
    """The difficulty the GM set that the request's rolls take, in words ("" if none):
    his word on a roller's roll, or the thread's standing one."""
    record = context.table(THREADS).get(context.post.thread) or {}
    calls = record.get("calls") or {}
    for named, _ in _sides(request):
        name = _character(context, named)
        call = calls.get(name.casefold()) if name else None
        if call and call.get("difficulty") is not None:
            return f"he set difficulty {call['difficulty']} for {name}'s roll"
    standing = record.get("difficulty")
    return f"his difficulty {standing} applies" if standing is not None else ""


def _character(context: Context, typed: str) -> str:
    """The character a typed name means (``Kara`` for Kara Venn), else the name as typed."""
    try:
        return str(context.roster.find(typed).name) if typed else ""
    except UserError:
        return typed


def gm_difficulty(request: Any, context: Context) -> bool:
    """Whether the GM set the difficulty the request's rolls take (thread or roll)."""
    return bool(_gm_difficulty(request, context))


def _no_difficulty_of_players(request: Any, context: Context) -> bool:
    """Whether no GM difficulty stands for the request and the campaign keeps ``diff``
    from players there (``player_difficulty = false``, the default)."""
    rulings = getattr(context.rules, "rulings", None)
    allowed = bool(getattr(rulings, "player_difficulty", False))
    return not allowed and not gm_difficulty(request, context)


def _default_difficulty(request: Any, context: Context) -> str:
    name = _character(context, _roller(request, ""))
    for_one = f" or for {name}'s roll with [[difficulty 8 for {name}]]" if name else ""
    return (
        f"Roll without diff: the default {DEFAULT_DIFFICULTY} applies until a GM sets one, "
        f"for the thread with [[difficulty 8]]{for_one}."
    )


def _roller(request: Any, nobody: str = "Kara") -> str:
    for named, _ in _sides(request):
        if named:
            return named
    return nobody


def _traits(request: Any) -> str:
    name = _roller(request)
    return f"{name}'s pool is the sheet's traits, like [[roll {name} dexterity+stealth]]"


def _extra(request: Any) -> int:
    return max((side.pool.modifier for named, side in _sides(request) if named), default=0)


def _options(counted: str, added: str, diff: str) -> tuple[GmOption, ...]:
    return (
        GmOption(
            "a number of dice",
            _counted,
            "roll a number of dice for a character, or for someone without a sheet",
            lambda r, c: f"{_traits(r)}; a pool for nobody, [[roll 6]], is anyone's.",
            example=counted,
        ),
        GmOption(
            "+N dice",
            _added,
            "add dice to a pool",
            lambda r, c: f"Roll without +{_extra(r)} (the GM may give it): {_traits(r)}.",
            example=added,
        ),
        GmOption(
            "diff N",
            _difficulty,
            "change the difficulty the GM set",
            lambda r, c: f"Roll without diff: {_gm_difficulty(r, c)}.",
            example=diff,
            setup=("difficulty 9",),
            applies=gm_difficulty,
        ),
        GmOption(
            "diff N (where none is set)",
            _difficulty,
            "set a roll's difficulty",
            _default_difficulty,
            example=diff,
            applies=_no_difficulty_of_players,
        ),
    )


ROLL_OPTIONS = _options(
    "roll Kara 9", "roll Kara dexterity+stealth +2", "roll Kara dexterity+stealth diff 3"
)
ACT_OPTIONS = _options(
    "act Dax 2: 9, 9",
    "act Dax 2: dexterity+brawl+2, dexterity+dodge",
    "act Dax 2: dexterity+brawl diff 3, dexterity+dodge",
)
RESIST_OPTIONS = _options(
    "resist Kara dexterity+stealth vs the door 5",
    "resist Kara dexterity+stealth+3 vs Guard perception+alertness",
    "resist Kara dexterity+stealth diff 3 vs Guard perception+alertness",
)
