"""Requests to verdict contents: find the characters, call the rules, note what changed.

Each request type has one handler in :data:`HANDLERS`. A handler reads characters
from the :class:`Roster`, calls the pure functions of the campaign's dice system with
the tag's dice, writes changed characters back to the roster and returns a
:class:`Resolution`. Anything a player got wrong surfaces as a ``UserError``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from . import notation
from .campaign import character_key
from .dice import DiceSource
from .errors import RuleViolation, UnknownName
from .forum import Post
from .limits import DEFAULT_LIMITS, Limits
from .store import KeyedTable
from .systems import stepped, stepped_odds
from .tags import Attack, Cast, RollDice, RollInitiative, RollStat
from .verdicts import Change


@dataclass(frozen=True)
class Resolution:
    """What a handler produced: the template kind, the rules' result and its effects."""

    kind: str
    result: Any
    chance: Fraction | None = None
    changes: tuple[Change, ...] = ()


class Roster:
    """The campaign's characters for one run: parsed once, written back on change."""

    def __init__(self, table: KeyedTable) -> None:
        self._table = table
        self._records: dict[str, dict[str, Any]] = dict(table.items())
        self._parsed: dict[str, stepped.Character] = {}
        self._names = frozenset(self._records)

    @property
    def known_names(self) -> frozenset[str]:
        """Every character's name, casefolded (for splitting names out of tags)."""
        return self._names

    def record(self, name: str) -> dict[str, Any]:
        """The stored record (owner, approval and sheet) of the character ``name`` refers to."""
        return self._records[self._key(name)]

    def find(self, name: str) -> stepped.Character:
        """The character a player means by ``name``: exact, else the only one it starts."""
        key = self._key(name)
        if key not in self._parsed:
            self._parsed[key] = stepped.character_from_record(self._records[key]["sheet"])
        return self._parsed[key]

    def _key(self, name: str) -> str:
        key = character_key(name)
        if key in self._records:
            return key
        starting = [k for k in self._records if k.startswith(key + " ")]
        if len(starting) == 1:
            return starting[0]
        if starting:
            shown = ", ".join(self._records[k]["name"] for k in starting[:5])
            raise UnknownName(f"'{name}' could mean {shown}; write the full name.")
        close = difflib.get_close_matches(key, list(self._records), n=3, cutoff=0.6)
        hint = (
            f" Did you mean {' or '.join(self._records[k]['name'] for k in close)}?"
            if close
            else ""
        )
        raise UnknownName(
            f"No character is named '{name}'.{hint} A GM adds characters to the campaign; "
            f"`referee characters` lists them."
        )

    def update(self, character: stepped.Character) -> None:
        """Keep a changed character, its owner and approval untouched."""
        key = character_key(character.name)
        record = {**self._records[key], "sheet": stepped.character_to_record(character)}
        self._records[key] = record
        self._parsed[key] = character
        self._table.put(key, record)


@dataclass
class Context:
    """What a handler may read and change while resolving one post."""

    roster: Roster
    encounters: KeyedTable
    rules: stepped.Rules
    post: Post
    limits: Limits = DEFAULT_LIMITS
    extra: dict[str, Any] = field(default_factory=dict)


Handler = Callable[[Any, Context, DiceSource], Resolution]



def trait_chance(roll: stepped.TraitRoll, rules: stepped.Rules) -> Fraction:
    """The exact chance of a roll this high or higher, with the same dice and modifiers."""
    return stepped_odds.chance_at_least(
        tuple(d.sides for d in roll.dice),
        roll.wild is not None,
        sum(m.value for m in roll.modifiers),
        rules.rulings,
        roll.total,
    )


def change_of(before: stepped.Character, after: stepped.Character, rules: stepped.Rules) -> Change:
    """How a character's wounds and state moved."""
    return Change(
        name=after.name,
        wounds_before=before.wounds,
        wounds_after=after.wounds,
        state_before=stepped.state_of(before).value,
        state_after=stepped.state_of(after).value,
        penalty_after=-stepped.wound_penalty(after, rules),
    )


def _ready(character: stepped.Character, doing: str) -> None:
    state = stepped.state_of(character)
    if state in (stepped.State.DEAD, stepped.State.INCAPACITATED):
        raise RuleViolation(f"{character.name} is {state.value} and cannot {doing}.")


def resolve_dice(request: RollDice, context: Context, dice: DiceSource) -> Resolution:
    rolled = notation.roll_expression(request.expression, dice)
    return Resolution("dice", rolled, notation.chance_at_least(request.expression, rolled.total))


def resolve_stat(request: RollStat, context: Context, dice: DiceSource) -> Resolution:
    character = context.roster.find(request.actor)
    _ready(character, "roll")
    stats = [stepped.parse_stat(word) for word in request.stats]
    extra = [stepped.Modifier("situational", request.modifier)] if request.modifier else []
    roll = stepped.roll_trait(character, stats, context.rules, dice, extra)
    return Resolution("stat", roll, trait_chance(roll, context.rules))


def resolve_initiative(request: RollInitiative, context: Context, dice: DiceSource) -> Resolution:
    characters = [context.roster.find(name) for name in request.names]
    seen: set[str] = set()
    for character in characters:
        if character.name in seen:
            raise RuleViolation(f"{character.name} is listed twice; name each combatant once.")
        seen.add(character.name)
    result = stepped.initiative(characters, context.rules, dice)
    context.encounters.put(
        context.post.thread,
        {
            "thread": context.post.thread,
            "order": [list(group) for group in result.groups],
            "set_by": context.post.fullname,
        },
    )
    return Resolution("initiative", result)


def _weapon(character: stepped.Character, name: str | None) -> stepped.Weapon | None:
    if name is None:
        return None
    wanted = " ".join(name.split()).casefold()
    if wanted in ("unarmed", "fists", "bare hands", "hands"):
        return stepped.UNARMED
    for weapon in character.weapons:
        if weapon.name.casefold() == wanted:
            return weapon
    starting = [w for w in character.weapons if w.name.casefold().startswith(wanted)]
    if len(starting) == 1:
        return starting[0]
    owned = ", ".join(w.name for w in character.weapons) or "none"
    raise UnknownName(f"{character.name} has no weapon called '{name}'. Their weapons: {owned}.")


def resolve_attack(request: Attack, context: Context, dice: DiceSource) -> Resolution:
    attacker = context.roster.find(request.attacker)
    target = context.roster.find(request.target)
    kind = stepped.AttackKind.RANGED if request.verb == "shoot" else stepped.AttackKind.MELEE
    result = stepped.attack(
        kind,
        attacker,
        target,
        context.rules,
        dice,
        weapon=_weapon(attacker, request.weapon),
        location=stepped.Location(request.location.split()[-1]),  # "left arm" is an arm
        aware=not request.unaware,
        subdue=request.subdue,
        modifier=request.modifier,
        environment=request.environment,
    )
    changes: tuple[Change, ...] = ()
    if result.target_after != result.target_before:
        context.roster.update(result.target_after)
        changes = (change_of(result.target_before, result.target_after, context.rules),)
    return Resolution("attack", result, result.hit_chance, changes)


def resolve_cast(request: Cast, context: Context, dice: DiceSource) -> Resolution:
    caster = context.roster.find(request.actor)
    _ready(caster, "cast")
    result = stepped.cast(caster, request.technique, context.rules, dice, modifier=request.modifier)
    return Resolution("cast", result, result.chance)


HANDLERS: dict[type, Handler] = {
    RollDice: resolve_dice,
    RollStat: resolve_stat,
    RollInitiative: resolve_initiative,
    Attack: resolve_attack,
    Cast: resolve_cast,
}


def handler_for(request: object, handlers: Iterable[tuple[type, Handler]] = ()) -> Handler:
    """The handler for a request's type (campaign-specific handlers first)."""
    for request_type, handler in handlers:
        if isinstance(request, request_type):
            return handler
    return HANDLERS[type(request)]
