"""Who may set what in a ``hits`` tag: the options only a GM may set.

RULES.md §5.1 lists the GM's verbs: "set Tension / Advantage / Disadvantage, edit counters
and timers, award an opposed tie to all". The seed has players roll "um número de d6
igual ao atributo", so a number of dice is the GM's too (for his NPCs, or a roll the
sheet does not cover); a quick roll "pode ser pedido": the GM asks for it; an NPC's duel
dice are "Nível + 7 ... com ajustes feitos à discrição do mestre", and its resist timer is
"à escolha do mestre". A player may still write his own Disadvantage. The core refuses
these before the resolver runs (:class:`referee.system.GmOption`).

>>> roll = tags.Pool("Kara", ("body",), advantage=3)
>>> [option.name for option in ROLL_OPTIONS if option.sets(roll)]
['adv N']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from referee.system import Context, GmOption

from . import tags

PLAYER_OPTIONS = ("dis N",)


def _pools(request: Any) -> Iterable[tags.Pool]:
    if isinstance(request, tags.Pool):
        yield request
    elif isinstance(request, tags.Opposed):
        yield from request.sides
    elif isinstance(request, tags.Group):
        yield from request.members


def _counted(sources: Iterable[str]) -> bool:
    return any(name.isascii() and name.isdigit() for name in sources)


def _actor(request: Any) -> str:
    return next((pool.actor for pool in _pools(request)), "Kara")


def _advantage(request: Any) -> bool:
    return any(pool.advantage for pool in _pools(request))


def _dice(request: Any) -> bool:
    if isinstance(request, (tags.DuelDeclare, tags.DuelStep)):
        return _counted(request.sources)
    return any(_counted(pool.sources) for pool in _pools(request))


def _no_advantage(request: Any, context: Context) -> str:
    name = _actor(request)
    return (
        f"Roll without adv, or ask the GM: he gives it on the roll or as a standing "
        f"Advantage ([[set {name} advantage 1]])."
    )


def _sources_instead(request: Any, context: Context) -> str:
    return "A player names attributes, skills, abilities or benefits of the sheet."


def _common(advantage: str, dice: str) -> tuple[GmOption, ...]:
    return (
        GmOption("adv N", _advantage, "give Advantage", _no_advantage, example=advantage),
        GmOption("a number of dice", _dice, "roll a number of dice", _sources_instead, dice),
    )


ROLL_OPTIONS = _common("roll Kara body adv 3", "roll Kara 9")
QUICK_OPTIONS = (
    *_common("quick Kara body adv 2", "quick Kara 9"),
    GmOption(
        "quick <character> (asking for one)",
        lambda r: isinstance(r, tags.Pool) and not r.sources,
        "ask for a quick roll",
        lambda r, c: f"When he asks, roll it with [[quick {r.actor} body + Swordsmanship]].",
        example="quick Kara",
    ),
)
OPPOSED_OPTIONS = (
    *_common("opposed Kara body adv 2 vs Ogre body", "opposed Kara 9 vs Ogre body"),
    GmOption(
        "tie=all",
        lambda r: isinstance(r, tags.Opposed) and r.tie_all,
        "award a tie to all (tie=all), when the Reward is not mutually exclusive",
        "Roll without it: those tied for most hits roll again.",
        example="opposed Kara body vs Ogre body tie=all",
    ),
)
GROUP_OPTIONS = _common("group Kara mind adv 1 & Nova mind", "group Kara 9 & Nova mind")
DUEL_OPTIONS = (
    GmOption(
        "a number of dice",
        _dice,
        "roll a number of dice",
        "A duellist names the attributes, skills, abilities and benefits he duels with.",
        example="duel Kara -> Ogre with 12",
        setup=("scene unstructured",),
    ),
    GmOption(
        "adjust N",
        lambda r: isinstance(r, tags.DuelDeclare) and bool(r.adjust),
        "adjust an NPC's duel dice (its Level + 7)",
        "Duel without adjust: the NPC rolls its Level + 7.",
        example="duel Kara -> Ogre with body adjust -2",
        setup=("scene unstructured",),
    ),
    GmOption(
        "timer N",
        lambda r: isinstance(r, tags.DuelStep) and r.timer is not None,
        "choose an NPC's resist timer (timer 4, 6 or 8)",
        "Write the step without it; if the NPC loses, the GM says how it resists.",
        example="duel 1 roll timer 6",
        setup=("scene unstructured", "duel Kara -> Ogre with body later"),
    ),
)
