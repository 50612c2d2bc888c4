"""Stepped magic: casting a technique of a magic parameter."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, UnknownName

from . import odds
from .combat import _standing
from .rolls import (
    Modifier,
    TraitRoll,
    _execute,
    _Plan,
    _refuse_if_down,
    _wound_modifiers,
    stepped_down,
)
from .rulings import Rules
from .traits import (
    MAX_POINTS,
    MIN_POINTS,
    Character,
    MagicParameter,
    Technique,
    _join,
    die_for_points,
    is_named,
)


@dataclass(frozen=True)
class CastResult:
    """The verdict of one cast."""

    caster: str
    parameter: str  # the magic parameter whose die was rolled
    technique: Technique
    roll: TraitRoll
    needed: int  # the tier's top face
    success: bool
    chance: Fraction  # exact, before the dice

    def ledger_facts(self) -> dict[str, Any]:
        """What the ledger row keeps beside the dice: whether the cast succeeded."""
        return {"success": self.success}


def cast(
    c: Character, technique_name: str, rules: Rules, dice: DiceSource, *, modifier: int = 0
) -> CastResult:
    """Cast a technique: roll its parameter's die (wild d6 if named); the tier's top face or more.

    The seed's example: with a d6, a d4-tier technique succeeds on 4 or more.

    >>> from referee.systems.stepped import Kind, Stat
    >>> from referee.base.dice import FixedDice
    >>> mage = Character("Ada", Kind.NPC, dict.fromkeys(Stat, 2), magic=(MagicParameter(
    ...     "Force", 2, (Technique("Push", 4), Technique("Lift", 6))),))
    >>> cast(mage, "push", Rules(), FixedDice([5])).success
    True
    >>> cast(mage, "Lift", Rules(), FixedDice([5])).success
    False
    """
    wanted = technique_name.strip().casefold()
    for parameter in c.magic:
        for technique in parameter.techniques:
            if technique.name.strip().casefold() == wanted:
                return _cast(c, parameter, technique, rules, dice, modifier)
    known = [t.name for p in c.magic for t in p.techniques]
    if not known:
        raise UnknownName(f"{c.name} knows no techniques, so cannot cast '{technique_name}'.")
    raise UnknownName(
        f"{c.name} has no technique '{technique_name}'; {c.name}'s techniques are {_join(known)}."
    )


def _cast(
    c: Character,
    parameter: MagicParameter,
    technique: Technique,
    rules: Rules,
    dice: DiceSource,
    modifier: int,
) -> CastResult:
    _refuse_if_down(c, "cast")
    if not MIN_POINTS <= parameter.points <= MAX_POINTS:
        raise RuleViolation(
            f"{c.name}'s {parameter.name} has {parameter.points} points; it needs 1 to 6 to roll."
        )
    named = is_named(c)
    situational = (Modifier("situational", modifier),) if modifier else ()
    plan = _Plan(
        c.name,
        f"{parameter.name} ({technique.name})",
        (die_for_points(stepped_down(c, parameter.points, rules)),),
        named,
        named,
        _wound_modifiers(c, rules) + situational,
    )
    chance = odds.cast_chance(plan.spec(), technique.tier, rules.rulings)
    roll = _execute(plan, rules.rulings, dice)
    success = _standing(roll, rules.rulings) >= (0, technique.tier)
    return CastResult(c.name, parameter.name, technique, roll, technique.tier, success, chance)
