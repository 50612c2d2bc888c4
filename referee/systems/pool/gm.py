"""The GM's ``pool`` verbs (RULES.md §2): difficulty, automatic success, sessions, tasks and
contests, teamwork, and edits of traits, Willpower points and counters.

Every verb here is ``gm_only`` in the system's verb table, so the core refuses a
player before any of them runs; the engine's edits check ``by_gm`` again. Like the
players' verbs, each writes only through ``context.roster`` and ``context.table``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, UnknownName
from referee.system import Context, Resolution
from referee.systems.changes import find_name
from referee.systems.roster import find_character

from . import edits
from .character import PoolCharacter
from .contests import (
    Contest,
    Status,
    Task,
    TaskEvent,
    close_contest,
    close_task,
    open_contest,
    open_task,
    session_changes,
    succeed_extended,
)
from .handlers import engine_table, find_task, save_thread, store, thread_state
from .rolls import DEFAULT_DIFFICULTY, Table
from .tags import (
    AllowTeamwork,
    AutoSuccess,
    Close,
    Edit,
    OpenContest,
    OpenTask,
    SetCounter,
    SetDifficulty,
    StartSession,
)
from .threads import CAMPAIGN, SESSION_KEY, Call, SessionState

_POINTS = ("points", "point", "willpower points", "willpower point", "wp")


@dataclass(frozen=True)
class DifficultySet:
    """The thread's standing difficulty, before and after."""

    before: int | None
    after: int | None
    willpower_allowed: bool
    default: int = DEFAULT_DIFFICULTY
    roller: str = ""  # the GM's word on this character's next roll only


@dataclass(frozen=True)
class AutoShown:
    """An automatic success: no roll; on a task, one success added."""

    name: str
    task: Task | None = None
    event: TaskEvent | None = None


@dataclass(frozen=True)
class SessionShown:
    """A new session: its number and whose free botch came back."""

    number: int
    restored: tuple[str, ...]
    free_botch: bool  # the campaign plays R-33's free botch


@dataclass(frozen=True)
class TaskShown:
    """A task or contest the GM opened, closed or opened to teamwork."""

    action: str  # "opened", "closed" or "teamwork"
    task: Task | None = None
    contest: Contest | None = None


@dataclass(frozen=True)
class EditShown:
    """What a GM's edit changed on one character: (what, before, after) each."""

    name: str
    edits: tuple[tuple[str, Any, Any], ...]


def resolve_difficulty(request: SetDifficulty, context: Context, dice: DiceSource) -> Resolution:
    """The thread's standing difficulty (and whether Willpower may be spent in it), or the
    GM's word on one character's next roll in the thread (R-32: for a roll)."""
    state = thread_state(context)
    if request.roller:
        character: PoolCharacter = find_character(context, request.roller)
        call = Call(request.difficulty, request.willpower_allowed)
        save_thread(context, replace(state, calls={**state.calls, character.name.casefold(): call}))
        shown = DifficultySet(
            state.difficulty, request.difficulty, request.willpower_allowed, roller=character.name
        )
        return Resolution("difficulty", shown)
    save_thread(
        context,
        replace(state, difficulty=request.difficulty, willpower_allowed=request.willpower_allowed),
    )
    shown = DifficultySet(state.difficulty, request.difficulty, request.willpower_allowed)
    return Resolution("difficulty", shown)


def resolve_success(request: AutoSuccess, context: Context, dice: DiceSource) -> Resolution:
    """An automatic success (no roll); named on a task, it adds one success to the tally."""
    character: PoolCharacter = find_character(context, request.roller)
    if request.task is None:
        return Resolution("success", AutoShown(character.name))
    state = thread_state(context)
    task = find_task(state, request.task)
    rules: Table = context.rules
    after, event, _ = succeed_extended(character.name, task, rules.rulings)
    save_thread(context, replace(state, tasks={**state.tasks, task.name.casefold(): after}))
    return Resolution("success", AutoShown(character.name, after, event))


def resolve_session(request: StartSession, context: Context, dice: DiceSource) -> Resolution:
    """A new session: every character's free botch comes back (R-33)."""
    table = context.table(CAMPAIGN)
    session = SessionState.from_dict(table.get(SESSION_KEY))
    session = replace(session, number=session.number + 1)
    table.put(SESSION_KEY, session.to_dict())
    characters: dict[str, PoolCharacter] = {}
    for record in context.table("characters").values():
        if record.get("sheet", {}).get("free_botch_used"):
            character = context.roster.find(record["name"])
            characters[character.name] = character
    changes = session_changes({name: c.state for name, c in characters.items()})
    for change in changes:
        store(context, characters[change.name], (change,))
    rules: Table = context.rules
    shown = SessionShown(session.number, tuple(c.name for c in changes), rules.rulings.free_botch)
    return Resolution("session", shown)


def _character_name(context: Context, name: str) -> str:
    return str(find_character(context, name).name)


def resolve_task(request: OpenTask, context: Context, dice: DiceSource) -> Resolution:
    """Open an extended task in the thread (a closed or finished one of that name is replaced)."""
    state = thread_state(context)
    current = state.tasks.get(request.name.casefold())
    if current is not None and current.status is Status.OPEN:
        raise RuleViolation(
            f"{current.name} is already open ({current.tally} of {current.target}); close it "
            f"first with [[close {current.name}]]."
        )
    rules: Table = context.rules
    team = tuple(_character_name(context, member) for member in request.team)
    task = open_task(
        request.name, request.target, request.turns, request.teamwork, rules.rulings, team
    )
    save_thread(context, replace(state, tasks={**state.tasks, task.name.casefold(): task}))
    return Resolution("task", TaskShown("opened", task=task))


def resolve_contest(request: OpenContest, context: Context, dice: DiceSource) -> Resolution:
    """Open a resisted + extended contest between two characters in the thread."""
    state = thread_state(context)
    sides = (_character_name(context, request.sides[0]), _character_name(context, request.sides[1]))
    current = state.contests.get(request.name.casefold())
    if current is not None and current.status is Status.OPEN:
        raise RuleViolation(f"{current.name} is already open; close it first.")
    pair = {s.casefold() for s in sides}
    for other in state.open_contests:
        if {s.casefold() for s in other.sides} == pair:
            raise RuleViolation(
                f"{sides[0]} and {sides[1]} are already in the contest {other.name}; close it "
                "first."
            )
    contest = open_contest(request.name, sides, request.target)
    contests = {**state.contests, contest.name.casefold(): contest}
    save_thread(context, replace(state, contests=contests))
    return Resolution("task", TaskShown("opened", contest=contest))


def resolve_close(request: Close, context: Context, dice: DiceSource) -> Resolution:
    """Close the thread's task or contest of that name, whatever its tally."""
    state = thread_state(context)
    names = [t.name for t in state.tasks.values()] + [c.name for c in state.contests.values()]
    if not names:
        raise UnknownName("This thread has no extended task or contest to close.")
    name = find_name(
        request.name, names, "task or contest of this thread", "tasks and contests of this thread"
    )
    task = state.tasks.get(name.casefold())
    if task is not None and task.name == name:
        closed, _ = close_task(task)
        save_thread(context, replace(state, tasks={**state.tasks, name.casefold(): closed}))
        return Resolution("task", TaskShown("closed", task=closed))
    contest = state.contests[name.casefold()]
    ended, _ = close_contest(contest)
    save_thread(context, replace(state, contests={**state.contests, name.casefold(): ended}))
    return Resolution("task", TaskShown("closed", contest=ended))


def resolve_teamwork(request: AllowTeamwork, context: Context, dice: DiceSource) -> Resolution:
    """Let several characters roll on one task (R-37), all or the ones named."""
    state = thread_state(context)
    task = find_task(state, request.task)
    if task.status is not Status.OPEN:
        raise RuleViolation(f"{task.name} is {task.status.value}: open it anew first.")
    rules: Table = context.rules
    team = tuple(_character_name(context, member) for member in request.team)
    checked = open_task(task.name, task.target, task.turn_limit, True, rules.rulings, team)
    allowed = replace(task, teamwork=True, team=checked.team)
    save_thread(context, replace(state, tasks={**state.tasks, task.name.casefold(): allowed}))
    return Resolution("task", TaskShown("teamwork", task=allowed))


def resolve_set(request: Edit, context: Context, dice: DiceSource) -> Resolution:
    """Edit ratings (Attributes, Abilities, Willpower, Humanity) and Willpower points."""
    character: PoolCharacter = find_character(context, request.roller)
    rules: Table = engine_table(context, thread_state(context))
    lists = rules.traits
    sheet, state = character.sheet, character.state
    ratings: dict[str, int] = {}
    points: int | None = None
    named: set[str] = set()
    for key, value, relative in request.values:
        thing = "points" if key in _POINTS else find_name(key, lists.every_name, "trait")
        if thing in named:
            raise RuleViolation(f"Name {thing} once, with its new value.")
        named.add(thing)
        if key in _POINTS:
            points = state.willpower_points + value if relative else value
            continue
        ratings[thing] = sheet.rating(thing) + value if relative else value
    shown: list[tuple[str, Any, Any]] = []
    if ratings:
        edit = edits.edit_traits(sheet, state, ratings, lists, context.by_gm)
        shown += [(t, sheet.rating(t), edit.sheet.rating(t)) for t in ratings]
        if edit.state.willpower_points != state.willpower_points and points is None:
            shown.append(("points", state.willpower_points, edit.state.willpower_points))
        character = _kept(context, character, edit)
        sheet, state = character.sheet, character.state
    if points is not None:
        edit = edits.edit_state(sheet, state, context.by_gm, willpower_points=points)
        shown.append(("points", state.willpower_points, points))
        character = _kept(context, character, edit)
    return Resolution("edit", EditShown(character.name, tuple(shown)))


def _kept(context: Context, character: PoolCharacter, edit: edits.Edit) -> PoolCharacter:
    changed = character.changed(edit.changes)
    context.roster.update(changed)
    return changed


def resolve_counter(request: SetCounter, context: Context, dice: DiceSource) -> Resolution:
    """Set, change (+N/-N) or clear one of a character's free-form counters."""
    character: PoolCharacter = find_character(context, request.roller)
    state = character.state
    key = next((k for k in state.counters if k.casefold() == request.counter), request.counter)
    before = state.counters.get(key)
    value = request.value
    if request.relative:
        if before is not None and not isinstance(before, int):
            raise RuleViolation(f"{key} is a note ({before}), not a number to add to.")
        value = (before or 0) + int(value)  # type: ignore[arg-type]
    edit = edits.edit_state(character.sheet, state, context.by_gm, counters={key: value})
    changed = _kept(context, character, edit)
    return Resolution("edit", EditShown(changed.name, ((key, before, value),)))
