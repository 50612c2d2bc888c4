"""Who may set what in a ``stepped`` tag: the options only a GM may set.

Seed 002 lets the attacker choose what his character does: the hit location ("он
указывает это в посте атаки", he names it in the attack's post, and the called shot's
penalty comes from the campaign's rulings, R-7), subduing ("если это изначально являлось
целью атакующего", if that was the attacker's aim), the weapon from his sheet. What the
scene is, the GM says: whether the target knows of the attack ("если он осведомлен об
атаке; иначе автоматическое попадание", an unaware target is hit without a roll) and
the environment's modifiers to the defence ("модификаторы от брони и среды"; armour is
the sheet's). So a player may not write, for his character:

* ``unaware`` on an attack (an automatic hit at range);
* ``env N`` or ``cover N`` on an attack, in either direction (the scene's cover);
* a situational bonus, ``+N``, on ``roll``, ``shoot``, ``melee``, ``cast`` or ``stat``:
  a bonus that cancels a called shot's penalty included.

A penalty he takes on himself (``-N``) stays his to write: it can only make his own roll
harder. A GM writes all of these, for any character. The core refuses them to a player
before the resolver runs (:class:`referee.system.GmOption`); a plain dice roll
(``[[roll 2d6+3]]``) is not a stat roll and keeps its ``+3``.

>>> ATTACK_OPTIONS[0].sets(Attack("shoot", "Kara", "Captain Rhoss", unaware=True))
True
>>> [option.name for option in ROLL_OPTIONS if option.sets(RollStat("Kara", ("agility",), -1))]
[]
"""

from __future__ import annotations

from typing import Any

from referee.system import Context, GmOption

from .verbs import Attack, Cast, RollStat, VehicleStat

PLAYER_ATTACK_OPTIONS = ("head, arm or leg", "subdue", "with <weapon>", "-N")
PLAYER_ROLL_OPTIONS = ("-N",)


def _attack_without(request: Attack) -> str:
    """The attack as a player may write it: the GM's options left out."""
    words = [f"{request.verb} {request.attacker} -> {request.target}"]
    if request.location != "torso":
        words.append(request.location)
    if request.subdue:
        words.append("subdue")
    if request.weapon:
        words.append(f"with {request.weapon}")
    if request.modifier < 0:
        words.append(f"{request.modifier:+d}")
    return f"[[{' '.join(words)}]]"


def _tag_without(request: Any) -> str:
    """The tag as a player may write it: the GM's options left out."""
    if isinstance(request, Attack):
        return _attack_without(request)
    if isinstance(request, RollStat):
        return f"[[roll {request.actor} {'+'.join(request.stats)}]]"
    if isinstance(request, Cast):
        return f"[[cast {request.actor} {request.technique}]]"
    if isinstance(request, VehicleStat):
        against = f" vs {request.against}" if request.against else ""
        return f"[[stat {request.vehicle} {request.parameter}{against}]]"
    return "the tag without it"


def _unaware(request: Any) -> bool:
    return isinstance(request, Attack) and request.unaware


def _environment(request: Any) -> bool:
    return isinstance(request, Attack) and request.environment != 0


def _bonus(request: Any) -> bool:
    return isinstance(request, (Attack, RollStat, Cast, VehicleStat)) and request.modifier > 0


def _unaware_fix(request: Any, context: Context) -> str:
    return (
        f"Attack without unaware (a GM writes it when {request.target} does not see the "
        f"attack coming): {_tag_without(request)}."
    )


def _environment_fix(request: Any, context: Context) -> str:
    return (
        f"Attack without env {request.environment:+d} (a GM writes what cover or terrain "
        f"gives {request.target}): {_tag_without(request)}."
    )


def _called_shot(request: Any, context: Context) -> str:
    """The words on a called shot's penalty, which the rules set ("" for the torso)."""
    if not isinstance(request, Attack) or request.location == "torso":
        return ""
    rulings = getattr(context.rules, "rulings", None) if context is not None else None
    part = request.location.split()[-1]
    penalty = getattr(rulings, "called_shot_head" if part == "head" else "called_shot_limb", 0)
    return f"; a called shot to the {part} takes {penalty:+d} by the rules" if penalty else ""


def _bonus_fix(request: Any, context: Context) -> str:
    return (
        f"Roll without +{request.modifier} (a GM may give it{_called_shot(request, context)}; "
        f"a penalty such as -1 is yours to write): {_tag_without(request)}."
    )


def _bonus_option(example: str) -> GmOption:
    return GmOption(
        "+N",
        _bonus,
        "give a roll a bonus (+N)",
        _bonus_fix,
        example=example,
    )


def _attack_options(verb: str, target: str, weapon: str) -> tuple[GmOption, ...]:
    return (
        GmOption(
            "unaware",
            _unaware,
            "say the target is unaware of the attack (unaware)",
            _unaware_fix,
            example=f"{verb} Kara -> {target} unaware{weapon}",
        ),
        GmOption(
            "env N or cover N",
            _environment,
            "set the environment's modifier to the target's defence (env N, cover N)",
            _environment_fix,
            example=f"{verb} Kara -> {target} env 2{weapon}",
        ),
        _bonus_option(f"{verb} Kara -> {target} head +4{weapon}"),
    )


SHOOT_OPTIONS = _attack_options("shoot", "Trooper 1", "")
MELEE_OPTIONS = _attack_options("melee", "Trooper 2", " with baton")
ATTACK_OPTIONS = SHOOT_OPTIONS
ROLL_OPTIONS = (_bonus_option("roll Kara agility +2"),)
CAST_OPTIONS = (_bonus_option("cast Kara Telekinesis +1"),)
STAT_OPTIONS = (_bonus_option("stat Kestrel armour +1"),)
