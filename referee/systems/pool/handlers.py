"""Resolving ``pool`` rolls in a campaign: rules engine in, stored characters and threads out.

Each resolver finds the characters through the core (``require_control``: approved,
and the poster's own unless he is a GM), reads the thread's state (standing
difficulty, tasks, contests, half-declared resisted rolls; :mod:`.threads`), asks the
pure engine (:mod:`.rolls`, :mod:`.contests`) and writes the engine's changes back
through ``context.roster`` and ``context.table``, so a refused tag writes nothing.

A turn is the thread's initiative round while an order runs there, else a post:
Willpower's "one a turn" (R-32) is one point a turn per character, and a character
acts once a turn unless he declares several actions together (``act``, R-34); a
reflexive roll does not count. The GM's verbs are in :mod:`.gm`.

What a player may not set (a difficulty under the GM's standing one, a number of dice
for a character, extra dice) the verbs declare (:mod:`.who`), and the core refuses it
before any resolver here runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, UnknownName
from referee.resolve.tracker_verbs import TABLE as INITIATIVE
from referee.system import Context, Resolution, require_control
from referee.systems.changes import Change, find_name
from referee.systems.roster import find_character

from .character import PoolCharacter
from .contests import (
    Contest,
    ResistedVerdict,
    Task,
    TaskEvent,
    resolve_resisted,
    roll_contest,
    roll_extended,
)
from .rolls import ActionsVerdict, Actor, Plan, PoolRoll, RollRequest, Table, plan_roll
from .rolls import resolve_actions as engine_actions
from .rolls import resolve_roll as engine_roll
from .sheet import Kind, TraitLists
from .tags import Act, Resist, Roll
from .threads import THREADS, Pending, ThreadState


@dataclass(frozen=True)
class RollShown:
    """One roll, and the task it counted toward if any."""

    roll: PoolRoll
    labels: tuple[str, ...]  # the campaign's R-31 labels, for the odds of every band
    task: Task | None = None  # the task after the roll
    event: TaskEvent | None = None
    points_left: int | None = None  # the roller's Willpower points after a point was spent


@dataclass(frozen=True)
class ActionsShown:
    """Several actions of one character in one turn."""

    roller: str
    labels: tuple[str, ...]
    actions: ActionsVerdict
    declared: int  # actions declared (the multiple-actions penalty counts them)
    points_left: int | None = None
    reflexive: int = 0  # reflexive rolls beside them (not actions: they lose no dice)


@dataclass(frozen=True)
class ResistShown:
    """A resisted roll: both sides, who won, and the contest it was a turn of, if any."""

    sides: tuple[str, str]
    labels: tuple[str, ...]
    verdict: ResistedVerdict
    contest: Contest | None = None


@dataclass(frozen=True)
class PendingShown:
    """One side declared; the roll waits for the opponent's side."""

    roller: str
    opponent: str
    plan: Plan
    replaced: bool  # an earlier declaration of the same pair was replaced


# ------------------------------------------------------------------- shared helpers


def thread_state(context: Context) -> ThreadState:
    """The state of the post's thread (empty if it has none yet)."""
    return ThreadState.from_dict(context.table(THREADS).get(context.post.thread))


def save_thread(context: Context, state: ThreadState) -> None:
    context.table(THREADS).put(context.post.thread, state.to_dict())


def engine_table(context: Context, state: ThreadState) -> Table:
    """The campaign's rules with the thread's standing difficulty and the run's limits."""
    table: Table = context.rules
    return replace(table, standing_difficulty=state.difficulty, limits=context.limits)


def store(context: Context, character: PoolCharacter | None, changes: tuple[Change, ...]) -> None:
    """Write the engine's changes to ``character`` (those addressed to others are skipped)."""
    if character is None:
        return
    mine = tuple(c for c in changes if c.name == character.name and c.subject != "task")
    if mine:
        context.roster.update(character.changed(mine))


def current_turn(context: Context) -> str:
    """The turn a roll belongs to: the thread's initiative round while one runs, else the post."""
    record = context.table(INITIATIVE).get(context.post.thread)
    round_ = record.get("round", 0) if record else 0
    if isinstance(round_, int) and round_ > 0:
        return f"{context.post.thread} round {round_}"
    return context.post.fullname


def _turn_words(turn: str, context: Context) -> str:
    return "in this post" if turn == context.post.fullname else "this round"


def acting(
    context: Context, character: PoolCharacter | None, requests: list[RollRequest]
) -> tuple[Change, ...]:
    """The change marking ``character``'s action this turn; refused if he already acted.

    Several actions in one turn are declared together (``act``), so each loses its dice
    (R-34); a reflexive roll is not an action.
    """
    if character is None or all(r.reflexive for r in requests):
        return ()
    turn, name = current_turn(context), character.name
    if character.state.acted_turn == turn:
        raise RuleViolation(
            f"{name} has already acted {_turn_words(turn, context)}. Several actions in one "
            f"turn are declared together, so each loses dice: [[act {name} 2: "
            "dexterity+brawl, dexterity+dodge]]. A soak or a resistance is marked reflexive."
        )
    return (Change("character", name, "acted_turn", character.state.acted_turn, turn),)


def _prepared(
    context: Context, request: RollRequest, state: ThreadState, roller: str = ""
) -> RollRequest:
    """The request as this post and thread make it: its roller and turn, and the GM's
    word on it, the thread's (a Willpower ban) or on this roller's roll (R-32: "The GM
    may forbid it for a roll"; a difficulty, which the GM's own ``diff N`` overrides)."""
    call = state.calls.get(roller.casefold()) if roller else None
    difficulty = request.difficulty
    if call is not None and call.difficulty is not None and difficulty is None:
        difficulty = call.difficulty
    return replace(
        request,
        roller=roller or request.roller,
        difficulty=difficulty,
        turn=request.turn or current_turn(context),
        willpower_allowed=state.willpower_allowed and (call is None or call.willpower_allowed),
    )


def _called(state: ThreadState, *names: str) -> ThreadState:
    """``state`` without the GM's word on these characters' rolls: each is used once."""
    keys = {name.casefold() for name in names}
    if not keys & set(state.calls):
        return state
    return replace(state, calls={k: c for k, c in state.calls.items() if k not in keys})


def _actor(context: Context, name: str, doing: str) -> PoolCharacter | None:
    return require_control(context, name, doing) if name else None


def _points_left(before: PoolCharacter | None, changes: tuple[Change, ...]) -> int | None:
    for change in changes:
        if before is not None and change.key == "willpower_points" and change.name == before.name:
            return int(change.after)  # type: ignore[call-overload]
    return None


def find_task(state: ThreadState, name: str) -> Task:
    """The thread's task ``name`` means; UnknownName listing the thread's tasks."""
    if not state.tasks:
        raise UnknownName(
            f"This thread has no extended task; a GM opens one with [[task {name} target 10]]."
        )
    names = [task.name for task in state.tasks.values()]
    return state.tasks[
        find_name(name, names, "task of this thread", "tasks of this thread").casefold()
    ]


# -------------------------------------------------------------------------- the verbs


def resolve_roll(request: Roll, context: Context, dice: DiceSource) -> Resolution:
    """One roll: a character's traits, a bare pool, or a roll on an extended task."""
    state = thread_state(context)
    character = _actor(context, request.side.roller, "roll")
    actor: Actor | None = character.actor if character else None
    name = character.name if character is not None else ""
    roll_request = _prepared(context, request.side.request, state, name)
    table = engine_table(context, state)
    if request.task is None:
        verdict = engine_roll(roll_request, actor, table, dice)
        acted = acting(context, character, [roll_request])  # after the engine's own refusals
        store(context, character, verdict.changes + acted)
        if name and _called(state, name) is not state:
            save_thread(context, _called(state, name))
        shown = RollShown(
            verdict.roll, table.rulings.labels, points_left=_points_left(character, verdict.changes)
        )
        return Resolution("roll", shown, verdict.roll.chance)
    task = find_task(state, request.task)
    extended = roll_extended(roll_request, actor, task, table, dice)
    acted = acting(context, character, [roll_request])
    store(context, character, extended.changes + acted)
    tasks = {**state.tasks, task.name.casefold(): extended.task}
    save_thread(context, replace(_called(state, name), tasks=tasks))
    shown = RollShown(
        extended.roll,
        table.rulings.labels,
        extended.task,
        extended.event,
        _points_left(character, extended.changes),
    )
    return Resolution("roll", shown, extended.roll.chance)


def resolve_act(request: Act, context: Context, dice: DiceSource) -> Resolution:
    """Several actions declared together (R-34): each pool loses the multiple-action dice."""
    state = thread_state(context)
    character: PoolCharacter = require_control(context, request.roller, "act")
    table = engine_table(context, state)
    requests = [
        _prepared(context, r, state, character.name) for r in _with_attribute(request, table.traits)
    ]
    verdict = engine_actions(requests, character.actor, table, dice)
    acted = acting(context, character, requests)
    store(context, character, verdict.changes + acted)
    if _called(state, character.name) is not state:
        save_thread(context, _called(state, character.name))
    shown = ActionsShown(
        character.name,
        table.rulings.labels,
        verdict,
        sum(not r.reflexive for r in requests),
        _points_left(character, verdict.changes),
        sum(r.reflexive for r in requests),
    )
    return Resolution("actions", shown)


def _with_attribute(request: Act, lists: TraitLists) -> list[RollRequest]:
    """Each action, with the Attribute given before the colon joined to a lone Ability."""
    if not request.attribute:
        return list(request.requests)
    joined = []
    for action in request.requests:
        traits = action.pool.traits
        if len(traits) == 1:
            try:
                kind = lists.kind_of(find_name(traits[0], lists.every_name, "trait"))
            except UnknownName:
                kind = Kind.ATTRIBUTE  # left alone: the engine reports the name with the rest
            if kind is Kind.ABILITY:
                action = replace(
                    action, pool=replace(action.pool, traits=(request.attribute, traits[0]))
                )
        joined.append(action)
    return joined


def _opponent(
    context: Context, name: str, request: RollRequest
) -> tuple[PoolCharacter | None, str]:
    """The opposing side a poster declares in full: a character he controls, or (a GM's)
    nameless pool for someone without a sheet (``vs the door 5``)."""
    try:
        return require_control(context, name, "roll"), ""
    except UnknownName:
        if request.pool.dice is None:
            raise
        return None, name  # the GM's: a player's is refused by who.RESIST_OPTIONS


def resolve_resist(request: Resist, context: Context, dice: DiceSource) -> Resolution:
    """A resisted roll: both sides now, or one side now and the other when declared."""
    state = thread_state(context)
    first = require_control(context, request.first.roller, "roll")
    first_request = _prepared(context, request.first.request, state, first.name)
    table = engine_table(context, state)
    if request.second is None:
        opponent = find_character(context, request.opponent, "be resisted")
        waiting = next(
            (
                p
                for p in state.pending
                if p.roller.casefold() == opponent.name.casefold()
                and p.opponent.casefold() == first.name.casefold()
            ),
            None,
        )
        if waiting is None:
            state = _called(state, first.name)
            return _declare(context, state, table, first, first_request, opponent.name)
        state = replace(state, pending=tuple(p for p in state.pending if p is not waiting))
        declared = context.roster.find(waiting.roller)
        sides: list[tuple[PoolCharacter | None, RollRequest, str]] = [
            (declared, waiting.request, declared.name),
            (first, first_request, first.name),
        ]
    else:
        second, nameless = _opponent(context, request.opponent, request.second)
        second_name = second.name if second else nameless
        second_request = _prepared(context, request.second, state, second_name)
        sides = [(first, first_request, first.name), (second, second_request, second_name)]
    state = _called(state, *(name for _, _, name in sides))
    return _resisted(context, state, table, sides, dice)


def _declare(
    context: Context,
    state: ThreadState,
    table: Table,
    character: PoolCharacter,
    request: RollRequest,
    opponent: str,
) -> Resolution:
    """Keep one side's declaration until the opponent's owner declares his."""
    if opponent.casefold() == character.name.casefold():
        raise RuleViolation(f"{character.name} cannot resist {character.name}.")
    plan = plan_roll(request, character.actor, table)  # refused now, not when the other rolls
    kept = tuple(
        p
        for p in state.pending
        if (p.roller.casefold(), p.opponent.casefold())
        != (character.name.casefold(), opponent.casefold())
    )
    pending = Pending(character.name, opponent, request, context.post.fullname)
    save_thread(context, replace(state, pending=(*kept, pending)))
    shown = PendingShown(character.name, opponent, plan, len(kept) < len(state.pending))
    return Resolution("pending", shown)


def _resisted(
    context: Context,
    state: ThreadState,
    table: Table,
    sides: list[tuple[PoolCharacter | None, RollRequest, str]],
    dice: DiceSource,
) -> Resolution:
    """Roll both sides (in order), as a turn of the pair's open contest if they have one."""
    names = {sides[0][2].casefold(), sides[1][2].casefold()}
    contest = next(
        (c for c in state.open_contests if {s.casefold() for s in c.sides} == names), None
    )
    if contest is not None and sides[0][2].casefold() != contest.sides[0].casefold():
        sides = [sides[1], sides[0]]  # a contest's first side rolls first
    (one, one_request, _), (two, two_request, _) = sides
    rolls = (one_request, one.actor if one else None, two_request, two.actor if two else None)
    if contest is None:
        verdict = resolve_resisted(*rolls, table, dice)
    else:
        verdict = roll_contest(*rolls, contest, table, dice)
        assert verdict.contest is not None
        contests = {**state.contests, contest.name.casefold(): verdict.contest}
        state = replace(state, contests=contests)
    save_thread(context, state)
    for character, _, _ in sides:
        if character is not None:
            store(context, context.roster.find(character.name), verdict.changes)
    shown = ResistShown((sides[0][2], sides[1][2]), table.rulings.labels, verdict, verdict.contest)
    winner = verdict.winner
    chance = verdict.chances[0 if winner == 0 else 2 if winner == 1 else 1]
    return Resolution("resisted", shown, chance)


@dataclass(frozen=True)
class EncounterEnd:
    """What ``[[end encounter]]`` dropped in the thread: the standing difficulty, the GM's
    words on characters' next rolls, the resisted rolls still waiting for a side (tasks
    and contests stay until closed)."""

    difficulty: int | None
    willpower_was_forbidden: bool
    dropped: tuple[tuple[str, str], ...]  # (declaring character, opponent) of each
    calls: int = 0  # the GM's words on a character's next roll, not used yet

    def __bool__(self) -> bool:
        return (
            self.difficulty is not None
            or self.willpower_was_forbidden
            or bool(self.dropped)
            or bool(self.calls)
        )


def end_encounter(context: Context) -> EncounterEnd:
    """The thread's standing difficulty and waiting declarations go; tasks stay open."""
    state = thread_state(context)
    end = EncounterEnd(
        state.difficulty,
        not state.willpower_allowed,
        tuple((p.roller, p.opponent) for p in state.pending),
        len(state.calls),
    )
    if end:
        cleared = replace(state, difficulty=None, willpower_allowed=True, pending=(), calls={})
        save_thread(context, cleared)
    return end
