"""Resolving ``edge`` requests in a campaign: rules engine in, stored characters out.

Each resolver finds the character through the core (``require_control``: approved,
and the poster's own unless he is a GM), asks the pure engine
(:mod:`.moves`, :mod:`.verbs`) and writes the engine's changes back through the
roster, so a refused tag writes nothing. Every character a verb touches in a thread
joins that thread's encounter (table ``edge_encounters``, keyed by thread), and the
core's ``[[end encounter]]`` puts each participant's advantage back to 1.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, UnknownName
from referee.system import Context, Resolution, require_control
from referee.systems.changes import Change, find_name

from . import verbs
from .application import EdgeCharacter
from .moves import Move, Table, resolve_move, settle
from .rulings import Policy
from .sheet import ADVANTAGE_MIN, State
from .tags import Answer, Named, SetPolicy, SetValue
from .tags import Move as MoveTag

ENCOUNTERS = "edge_encounters"
ENCOUNTER_VERSION = 1


@dataclass(frozen=True)
class Adjusted:
    """What a GM (or policy) verb changed: one value of one character, before and after."""

    name: str
    what: str  # "advantage", "policy", a stat or a counter
    before: Any
    after: Any
    by: str  # "lower", "raise", "set" or "policy"
    default: bool = False  # for a policy: the one before was the campaign's default


@dataclass(frozen=True)
class Reset:
    """One participant's advantage at the end of an encounter."""

    name: str
    before: int
    after: int = ADVANTAGE_MIN


@dataclass(frozen=True)
class EncounterEnd:
    """What ``[[end encounter]]`` reset in the thread (empty: nobody's advantage was above 1)."""

    participants: tuple[str, ...]
    resets: tuple[Reset, ...]

    def __bool__(self) -> bool:
        return bool(self.participants)


def _join_encounter(context: Context, name: str) -> None:
    """Record ``name`` as taking part in the thread's encounter."""
    table = context.table(ENCOUNTERS)
    record = table.get(context.post.thread) or {"version": ENCOUNTER_VERSION, "participants": []}
    if name not in record["participants"]:
        table.put(context.post.thread, {**record, "participants": [*record["participants"], name]})


def _store(
    context: Context,
    character: EdgeCharacter,
    changes: tuple[Change, ...],
    outright: bool = False,
    was: EdgeCharacter | None = None,
) -> None:
    """Write the engine's changes to ``character`` (as stored: ``was``, if it differs);
    ``outright``: the advantage was set, not stepped by one (see :mod:`.undo`)."""
    changed = character.changed(changes)
    if outright:
        changed = replace(changed, resets=changed.resets + 1)
    if changed != (was or character):
        context.roster.update(changed)


def _answering(character: EdgeCharacter) -> EdgeCharacter:
    """The character once any other tag of his has answered his waiting move: ``keep`` (R-39)."""
    return replace(character, pending=None)


def resolve_move_tag(request: MoveTag, context: Context, dice: DiceSource) -> Resolution:
    """A move: the engine rolls it; a spent advantage goes back to 1."""
    character: EdgeCharacter = require_control(context, request.actor, "make a move")
    table: Table = context.rules
    verdict = resolve_move(request.request, character.actor(table), table, dice)
    move: Move = replace(verdict.move, kept_earlier=character.pending is not None)
    waiting = replace(character, pending=verdict.pending)
    _store(context, waiting, verdict.changes, outright=move.used, was=character)
    _join_encounter(context, character.name)
    return Resolution("move", move, move.chance)


def resolve_answer(request: Answer, context: Context, dice: DiceSource) -> Resolution:
    """R-39 "ask": the player's ``edge`` or ``keep`` (a GM's ``final``) settles his waiting move."""
    doing = "spend the advantage on a move" if request.use else "settle a move"
    character: EdgeCharacter = require_control(context, request.actor, doing)
    if character.pending is None:
        raise RuleViolation(
            f"{character.name} has no move waiting for edge or keep: a move waits only when "
            'the campaign asks (edge_use = "ask") and the advantage would raise its band.'
        )
    pending = replace(character.pending, roller=character.name)
    verdict = settle(pending, request.use, character.actor(context.rules).state)
    _store(context, _answering(character), verdict.changes, verdict.move.used, was=character)
    _join_encounter(context, character.name)
    return Resolution("move", verdict.move, verdict.move.chance)


def resolve_policy(request: SetPolicy, context: Context, dice: DiceSource) -> Resolution:
    """The character's standing advantage policy (R-39): his player's or a GM's to set."""
    character: EdgeCharacter = require_control(context, request.actor, "set a policy")
    state = character.actor(context.rules).state
    adjustment = verbs.set_policy(character.name, state, request.policy)
    context.roster.update(replace(_answering(character), policy=request.policy))
    _join_encounter(context, character.name)
    before = Policy(adjustment.before).value
    return Resolution(
        "adjusted",
        Adjusted(
            character.name,
            "policy",
            before,
            request.policy.value,
            "policy",
            default=character.policy is None,
        ),
    )


def resolve_lower(request: Named, context: Context, dice: DiceSource) -> Resolution:
    """The GM lowers the advantage by one (a GM move), never below 1."""
    character: EdgeCharacter = require_control(context, request.actor, "lower the advantage")
    state = character.actor(context.rules).state
    return _adjusted(context, character, verbs.lower(character.name, state, context.by_gm), "lower")


def resolve_raise(request: Named, context: Context, dice: DiceSource) -> Resolution:
    """Raise the advantage by one, up to 6: the GM, or the player under R-13 ``player``."""
    rules: Table = context.rules
    if not context.by_gm:  # refused by the ruling first, so a player hears why
        verbs.raise_advantage(request.actor, State(), False, rules.rulings)
    character: EdgeCharacter = require_control(context, request.actor, "raise the advantage")
    state = character.actor(rules).state
    adjustment = verbs.raise_advantage(character.name, state, context.by_gm, rules.rulings)
    return _adjusted(context, character, adjustment, "raise")


def resolve_set(request: SetValue, context: Context, dice: DiceSource) -> Resolution:
    """The GM sets the advantage, a stat or a counter."""
    character: EdgeCharacter = require_control(context, request.actor, "set values")
    rules: Table = context.rules
    lists = rules.lists
    state = character.actor(rules).state
    key = find_name(
        request.key,
        ["advantage", *lists.stats, *lists.counters],
        "thing to set",
        "things a GM sets (advantage, the stats and the counters)",
    )
    if key == "advantage":
        adjustment = verbs.set_advantage(character.name, state, request.value, context.by_gm)
        return _adjusted(context, character, adjustment, "set", outright=True)
    if key in lists.counters:
        adjustment = verbs.set_counter(
            character.name, state, key, request.value, lists, context.by_gm
        )
        return _adjusted(context, character, adjustment, "set")
    sheet, changes = verbs.set_stats(
        character.actor(rules).sheet, {key: request.value}, lists, context.by_gm
    )
    context.roster.update(character.changed(_as_character(changes)))
    _join_encounter(context, character.name)
    return Resolution(
        "adjusted",
        Adjusted(character.name, key, character.stats.get(key, 0), sheet.stats[key], "set"),
    )


def _as_character(changes: tuple[Change, ...]) -> tuple[Change, ...]:
    """The engine addresses stat edits to the sheet; the stored character holds both."""
    return tuple(
        Change("character", c.name, c.key, c.before, c.after)
        for c in changes
        if c.subject == "sheet"
    )


def _adjusted(
    context: Context,
    character: EdgeCharacter,
    adjustment: verbs.Adjustment,
    by: str,
    outright: bool = False,
) -> Resolution:
    _store(context, character, adjustment.changes, outright)
    _join_encounter(context, character.name)
    return Resolution(
        "adjusted",
        Adjusted(character.name, adjustment.key, adjustment.before, adjustment.after, by),
    )


def end_encounter(context: Context) -> EncounterEnd:
    """Every participant of the thread's encounter back to advantage 1; the thread's record goes."""
    table = context.table(ENCOUNTERS)
    record = table.get(context.post.thread)
    if record is None:
        return EncounterEnd((), ())
    table.delete(context.post.thread)
    states: dict[str, State] = {}
    characters: dict[str, EdgeCharacter] = {}
    for name in record.get("participants", []):
        try:
            character = context.roster.find(name)
        except UnknownName:
            continue  # a character since removed from the campaign
        characters[character.name] = character
        states[character.name] = character.actor(context.rules).state
    changes = verbs.end_encounter(states)
    for name, character in characters.items():  # even one already at 1: see .undo
        _store(context, character, tuple(c for c in changes if c.name == name), outright=True)
    resets = tuple(Reset(c.name, int(c.before)) for c in changes)  # type: ignore[call-overload]
    return EncounterEnd(tuple(characters), resets)
