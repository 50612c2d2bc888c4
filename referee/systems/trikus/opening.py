"""Opening a trikus test, duel or fight and declaring into it: who may, what each side
commits, and when everyone has declared; :mod:`.handlers` then plays it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation
from referee.system import Change as VerdictChange
from referee.system import Context, Resolution, require_control
from referee.systems.roster import find_character

from .combat import start_fight
from .handlers import (
    MAX_ROUNDS_AT_ONCE,
    OPEN_FIRST,
    Declared,
    Fought,
    Opened,
    Played,
    _play_open,
    _play_test,
    _rulings,
)
from .opposed import check_gm_negotiate
from .party import load_party, put_thread_state, save_party, thread_state
from .policy import commit
from .pvp import duel_problems, pvp_rulings
from .state import Character, Status
from .tags import Declare, Go, Open

# ---------------------------------------------------------------- opening and declaring


def resolve_open(request: Open, context: Context, dice: DiceSource) -> Resolution:
    """The GM opens a test or a fight in this thread, naming who takes part."""
    record = thread_state(context)
    _check_free(record)
    party = load_party(context)
    names: list[str] = []
    for typed in request.names:
        name = find_character(context, typed).name
        character = party.character(name)
        if character.status.value != "active":
            raise RuleViolation(f"{name} is {character.status.value} and cannot take part.")
        if name in names:
            raise RuleViolation(f"{name} is named twice.")
        names.append(name)
    master = False
    difficulty = None
    if request.kind == "fight":
        if party.fight is not None:
            raise RuleViolation("A fight is already going on in this thread.")
        if request.difficulty is not None:
            difficulty = request.difficulty or _rulings(context).combat_difficulty
        master = bool(request.opponent) and request.opponent.casefold() in {
            n.casefold() for n in party.master_npcs
        }
        fight = start_fight(request.gm_dice, request.allies, difficulty, master, context.limits)
        save_party(context, party, replace(party, fight=fight))
    elif request.kind == "test":
        start_fight(request.gm_dice, limits=context.limits)  # the same check of the GM's pool
    if request.gm_negotiate is not None and request.kind == "duel":
        raise RuleViolation("In a duel between players the GM proposes no Negotiation.")
    check_gm_negotiate(request.gm_negotiate, _rulings(context))
    record["open"] = {
        "kind": request.kind,
        "gm_dice": request.gm_dice,
        "participants": names,
        "declarations": {},
        "stakes": request.stakes,
        "round": 1,
        "gm_negotiate": request.gm_negotiate,
    }
    put_thread_state(context, record)
    return Resolution(
        "opened",
        Opened(
            request.kind,
            request.gm_dice,
            tuple(names),
            request.stakes,
            request.allies,
            difficulty,
            request.opponent,
            master,
            request.gm_negotiate,
        ),
    )


def _check_free(record: dict[str, Any]) -> None:
    waiting = record.get("waiting")
    if waiting:
        who = f"{waiting['answerer']}'s player" if waiting.get("answerer") else "the GM"
        raise RuleViolation(
            f"A Negotiation in this thread waits for {who}: [[answer yes]] or [[answer no]]."
        )
    if record.get("open"):
        kind = record["open"]["kind"]
        raise RuleViolation(
            f"A {kind} is already open in this thread; its players declare, or the GM says [[go]]."
        )


def resolve_declare(request: Declare, context: Context, dice: DiceSource) -> Resolution:
    """A player's declaration into the thread's open test or fight round."""
    character: Character = require_control(context, request.actor, "declare")
    record = thread_state(context)
    if record.get("waiting"):
        _check_free(record)
    open_ = record.get("open")
    if not open_:
        raise RuleViolation(OPEN_FIRST)
    name = character.name
    if name not in open_["participants"]:
        raise RuleViolation(
            f"{name} is not in this {open_['kind']}; it waits for "
            f"{', '.join(open_['participants'])}."
        )
    party = load_party(context)
    fight = open_["kind"] == "fight"
    if open_["kind"] == "duel":
        second = open_["participants"].index(name) == 1
        problems = duel_problems(request.policy, name, second)
        if problems:
            raise RuleViolation("; ".join(problems) + ".")
    others = tuple(n for n in open_["participants"] if n != name)
    rulings = pvp_rulings(_rulings(context)) if open_["kind"] == "duel" else _rulings(context)
    commit(
        request.policy,
        party.character(name),
        rulings,
        others,
        fight=fight,
        strikes=not fight or open_["round"] == 1,
    )
    open_ = {**open_, "declarations": {**open_["declarations"], name: request.words}}
    # A participant dead or fallen since it opened declares nothing and holds nothing up.
    missing = tuple(
        n
        for n in open_["participants"]
        if n not in open_["declarations"] and party.character(n).status is Status.ACTIVE
    )
    if missing:
        put_thread_state(context, {**record, "open": open_})
        return Resolution("declared", Declared(name, request.words, open_["kind"], missing))
    return _play_open(context, {**record, "open": open_}, dice)


def resolve_go(request: Go, context: Context, dice: DiceSource) -> Resolution:
    """The GM resolves the open test or round now; missing declarations take the defaults.

    ``go all`` plays a fight round after round to its end (or to a Negotiation the GM
    must answer): each player's standing choices (attack/defend, escape, negotiate,
    lose, accept) carry over; one-round resources (Morale, Empowerment, Light, items)
    are spent in the round they were declared for only.
    """
    record = thread_state(context)
    if record.get("waiting"):
        _check_free(record)
    if not record.get("open"):
        raise RuleViolation(OPEN_FIRST)
    if not request.whole:
        return _play_open(context, record, dice)
    if record["open"]["kind"] != "fight":
        raise RuleViolation("[[go all]] plays a fight to its end; a test resolves with [[go]].")
    carried = {n: _standing_words(w) for n, w in record["open"]["declarations"].items()}
    rounds: list[Played] = []
    changes: list[VerdictChange] = []  # each round's, as its Resolution holds them
    for _ in range(MAX_ROUNDS_AT_ONCE):
        resolution = _play_open(context, record, dice)
        rounds.append(resolution.result)
        changes.extend(resolution.changes)
        record = thread_state(context)
        following = record.get("open")
        if record.get("waiting") or not following or following["kind"] != "fight":
            break
        declarations = {n: carried.get(n, "") for n in following["participants"]}
        record = {**record, "open": {**following, "declarations": declarations}}
    more = bool(record.get("open")) and not record.get("waiting")
    return Resolution("fight", Fought(tuple(rounds), more), None, tuple(changes))


_STANDING = ("attack", "defend", "escape", "negotiate", "lose", "accept")


def _standing_words(words: str) -> str:
    """The words of a declaration that stand for the whole fight (not its one-round dice)."""
    return " ".join(w for w in words.split() if re.split("[=:]", w)[0].casefold() in _STANDING)


def resolve_test_tag(request: Declare, context: Context, dice: DiceSource) -> Resolution:
    """One player against the thread's difficulty (or the GM's ``vs N``), in one post."""
    character: Character = require_control(context, request.actor, "test")
    record = thread_state(context)
    if record.get("waiting"):
        _check_free(record)
    open_ = record.get("open")
    if open_ and character.name in open_["participants"]:
        raise RuleViolation(
            f"{character.name} is in the {open_['kind']} the GM opened here: "
            f"declare with [[declare {character.name} ...]]."
        )
    gm_dice = request.gm_dice if request.gm_dice is not None else record.get("difficulty")
    if gm_dice is None:
        raise RuleViolation(
            "No difficulty is set in this thread. The GM sets one with [[difficulty 2]], "
            "or opens a test with [[open test 2 Kara]]."
        )
    return _play_test(context, record, dice, int(gm_dice), [(character.name, request.words)], "")
