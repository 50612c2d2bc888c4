"""``pool`` rolls that span posts or sides (RULES.md §2): extended tasks, teamwork, contests.

* An **extended task** (:class:`Task`) is opened by the GM with a target and an
  optional turn limit; each roll adds its net successes to the tally
  (:func:`roll_extended`). A botch follows R-35 (``extended_botch``), and on a team's
  shared tally R-38 (``team_botch``).
* **Teamwork** (R-37) is a task several characters roll on: a turn is over when a
  member rolls a second time, so the turn limit counts team turns.
* A **resisted roll** (:func:`resolve_resisted`) compares two sides' net successes;
  the winner keeps only the surplus (R-36 for ties and botches).
* A **resisted + extended contest** (:class:`Contest`, :func:`roll_contest`) adds each
  turn's surplus to the winner's tally; the first to the target wins.
* :func:`session_changes`: the GM starts a session and every free botch comes back (R-33).

**Dice order**: an extended roll draws its pool's d10s; a resisted roll (alone or in a
contest) draws the first side's pool, then the second side's.

Tasks and contests are values: every function returns the new value and the
:class:`~referee.systems.changes.Change` set between old and new.

>>> from referee.base.dice import FixedDice
>>> from referee.systems.pool.rolls import PoolSpec, RollRequest, Table
>>> dig = open_task("dig", target=15)
>>> verdict = roll_extended(RollRequest(PoolSpec(dice=5), roller="Kara"), None, dig, Table(),
...                         FixedDice([9, 7, 2, 6, 1]))
>>> verdict.task.tally, verdict.event.value
(2, 'progress')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, StoreError
from referee.base.limits import DEFAULT_LIMITS
from referee.system.validation import check_version
from referee.systems.changes import Change, changes_between
from referee.systems.pool import odds
from referee.systems.pool.rolls import (
    Actor,
    PoolRoll,
    RollRequest,
    Table,
    plan_roll,
    roll_changes,
    roll_plan,
)
from referee.systems.pool.rulings import (
    ExtendedBotch,
    PoolRulings,
    ResistedTie,
    TeamBotch,
    Teamwork,
)
from referee.systems.pool.sheet import State

TASK_VERSION = 1
CONTEST_VERSION = 1
MAX_TARGET = 1000  # successes a task or contest may ask for
MAX_TURNS = 1000


class Status(str, Enum):
    """Where a task or contest stands."""

    OPEN = "open"
    DONE = "done"  # the target was reached (by the winner, in a contest)
    FAILED = "failed"  # a botch under R-35 "end", or the turn limit passed
    CLOSED = "closed"  # the GM closed it


class TaskEvent(str, Enum):
    """What one roll did to a task."""

    PROGRESS = "progress"  # net successes added (maybe none)
    COMPLETED = "completed"  # the tally reached the target
    RESET = "reset"  # a botch lost the tally (R-35 "reset"; a member's share under R-38 "own")
    BOTCH_KEPT = "botch_kept"  # a botch under R-35 "keep": the tally stands
    BOTCH_ENDED = "botch_ended"  # a botch under R-35 "end": the task failed
    OUT_OF_TURNS = "out_of_turns"  # the last allowed turn ended short of the target


def _check_name(name: str, what: str) -> None:
    if not name.strip() or len(name) > DEFAULT_LIMITS.max_name_chars:
        raise RuleViolation(f"A {what}'s name has 1 to {DEFAULT_LIMITS.max_name_chars} characters.")


def _check_target(target: int) -> None:
    if not 1 <= target <= MAX_TARGET:
        raise RuleViolation(f"A target is 1 to {MAX_TARGET} successes, not {target}.")


@dataclass(frozen=True)
class Task:
    """An extended task: successes accumulated over turns toward a target."""

    name: str
    target: int
    turn_limit: int | None = None  # None: as many turns as it takes
    teamwork: bool = False  # several characters may add to the tally
    team: tuple[str, ...] = ()  # who may roll on a team task; () lets anyone join
    tally: int = 0
    turn: int = 0  # turns begun
    rolled_this_turn: tuple[str, ...] = ()  # who has rolled in the current turn
    contributions: Mapping[str, int] = field(default_factory=dict)  # each roller's share
    status: Status = Status.OPEN

    def to_dict(self) -> dict[str, Any]:
        """The task as JSON-ready data.

        >>> Task.from_dict(open_task("dig", 15, 5).to_dict()) == open_task("dig", 15, 5)
        True
        """
        return {
            "version": TASK_VERSION,
            "name": self.name,
            "target": self.target,
            "turn_limit": self.turn_limit,
            "teamwork": self.teamwork,
            "team": list(self.team),
            "tally": self.tally,
            "turn": self.turn,
            "rolled_this_turn": list(self.rolled_this_turn),
            "contributions": dict(self.contributions),
            "status": self.status.value,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Task:
        """A task from :meth:`to_dict`'s data; StoreError if it is not that shape."""
        data = check_version(data, TASK_VERSION, "pool task")
        try:
            limit = data["turn_limit"]
            return cls(
                name=str(data["name"]),
                target=int(data["target"]),
                turn_limit=None if limit is None else int(limit),
                teamwork=bool(data["teamwork"]),
                team=tuple(str(n) for n in data["team"]),
                tally=int(data["tally"]),
                turn=int(data["turn"]),
                rolled_this_turn=tuple(str(n) for n in data["rolled_this_turn"]),
                contributions={str(k): int(v) for k, v in data["contributions"].items()},
                status=Status(data["status"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise StoreError(f"A stored pool task is malformed: {error!r}") from error


def open_task(
    name: str,
    target: int,
    turn_limit: int | None = None,
    teamwork: bool = False,
    rulings: PoolRulings | None = None,
    team: tuple[str, ...] = (),
) -> Task:
    """A new extended task (a GM verb); RuleViolation on a bad target, limit or teamwork.

    Under R-37 ``"always"`` every task allows teamwork; under ``"never"`` none may.
    Naming a ``team`` allows teamwork for those characters only, and lets the turn
    limit end the last turn as soon as each of them has rolled in it; an open team
    (teamwork without names) learns its turns only when someone rolls again, so its
    last turn ends when a member's roll is refused for want of turns.
    """
    rulings = rulings or PoolRulings()
    _check_name(name, "task")
    _check_target(target)
    if turn_limit is not None and not 1 <= turn_limit <= MAX_TURNS:
        raise RuleViolation(f"A turn limit is 1 to {MAX_TURNS} turns, not {turn_limit}.")
    teamwork = teamwork or bool(team)
    if teamwork and rulings.teamwork is Teamwork.NEVER:
        raise RuleViolation("This campaign allows no teamwork (ruling teamwork = never).")
    for member in team:
        _check_name(member, "team member")
    if len(team) > DEFAULT_LIMITS.max_names_per_tag:
        raise RuleViolation(f"A team has at most {DEFAULT_LIMITS.max_names_per_tag} members.")
    teamwork = teamwork or rulings.teamwork is Teamwork.ALWAYS
    return Task(name, target, turn_limit, teamwork, tuple(team))


def close_task(task: Task) -> tuple[Task, tuple[Change, ...]]:
    """The GM closes a task, whatever its tally (a GM verb)."""
    closed = replace(task, status=Status.CLOSED)
    return closed, changes_between("task", task.name, task, closed)


@dataclass(frozen=True)
class ExtendedVerdict:
    """One roll on an extended task: the roll, the task after it, and every change."""

    roll: PoolRoll
    task: Task  # after the roll
    event: TaskEvent
    changes: tuple[Change, ...]


def _refuse_closed(name: str, status: Status, what: str) -> None:
    if status is not Status.OPEN:
        raise RuleViolation(f"The {what} {name} is {status.value}: the GM may open a new one.")


def _after_botch(task: Task, member: str, rulings: PoolRulings) -> tuple[Task, TaskEvent]:
    """R-35 (and R-38 on a shared tally): what a member's botch does to the task."""
    if rulings.extended_botch is ExtendedBotch.KEEP:
        return task, TaskEvent.BOTCH_KEPT
    if rulings.extended_botch is ExtendedBotch.END:
        return replace(task, status=Status.FAILED), TaskEvent.BOTCH_ENDED
    if task.teamwork and rulings.team_botch is TeamBotch.OWN:
        lost = task.contributions.get(member, 0)
        contributions = {**task.contributions, member: 0}
        return replace(
            task, tally=max(task.tally - lost, 0), contributions=contributions
        ), TaskEvent.RESET
    contributions = dict.fromkeys(task.contributions, 0)
    return replace(task, tally=0, contributions=contributions), TaskEvent.RESET


def _begin_turn(task: Task, member: str) -> tuple[Task, bool]:
    """``task`` with ``member``'s turn begun; RuleViolation if he may not act on it now."""
    if not member:
        raise RuleViolation("An extended task needs a named roller: roll for a character.")
    _refuse_closed(task.name, task.status, "task")
    if task.team and member.casefold() not in {m.casefold() for m in task.team}:
        raise RuleViolation(f"Only {', '.join(task.team)} roll on {task.name}.")
    others = sorted(set(task.contributions) - {member})
    if others and not task.teamwork:
        raise RuleViolation(
            f"The GM has not opened {task.name} for teamwork: only {others[0]} rolls on it."
        )
    new_turn = not task.rolled_this_turn or member in task.rolled_this_turn
    turn = task.turn + 1 if new_turn else task.turn
    if task.turn_limit is not None and turn > task.turn_limit:
        raise RuleViolation(
            f"{task.name} has used its {task.turn_limit} turns: the GM closes it or opens anew."
        )
    rolled = (member,) if new_turn else (*task.rolled_this_turn, member)
    return replace(task, turn=turn, rolled_this_turn=rolled), new_turn


def _advance(
    after: Task, member: str, net: int, botch: bool, rulings: PoolRulings
) -> tuple[Task, TaskEvent]:
    """The task once ``member``'s roll (``net`` successes, or a botch) is counted."""
    if botch:
        after, event = _after_botch(after, member, rulings)
        # A member who only botched is still a member: the turn waits for him too.
        shares = {member: 0, **after.contributions}
        after = replace(after, contributions=shares)
    else:
        share = after.contributions.get(member, 0) + net
        after = replace(
            after,
            tally=after.tally + net,
            contributions={**after.contributions, member: share},
        )
        event = TaskEvent.PROGRESS
        if after.tally >= after.target:
            after, event = replace(after, status=Status.DONE), TaskEvent.COMPLETED
    rolled = {m.casefold() for m in after.rolled_this_turn}
    turn_over = not after.teamwork or (
        bool(after.team) and rolled >= {m.casefold() for m in after.team}
    )
    if after.status is Status.OPEN and after.turn == after.turn_limit and turn_over:
        after, event = replace(after, status=Status.FAILED), TaskEvent.OUT_OF_TURNS
    return after, event


def roll_extended(
    request: RollRequest, actor: Actor | None, task: Task, table: Table, dice: DiceSource
) -> ExtendedVerdict:
    """One roll toward ``task``; RuleViolation (nothing rolled) if it may not be made.

    Net successes add to the tally (a failure adds 0). A turn begins with a roll, and
    for a team it ends when a member rolls again. When the last allowed turn is over
    short of the target, the task fails.
    """
    member = actor.sheet.name if actor else request.roller.strip()
    started, _ = _begin_turn(task, member)
    plan = plan_roll(request, actor, table)
    roll = roll_plan(plan, table.rulings, dice)
    after, event = _advance(started, member, roll.net, roll.botch, table.rulings)
    changes = roll_changes(roll, request, actor) + changes_between("task", task.name, task, after)
    return ExtendedVerdict(roll, after, event, changes)


def succeed_extended(
    member: str, task: Task, rulings: PoolRulings, successes: int = 1
) -> tuple[Task, TaskEvent, tuple[Change, ...]]:
    """The GM's automatic success on ``task``: ``member``'s turn, ``successes`` added, no roll.

    >>> task, event, _ = succeed_extended("Kara", open_task("dig", 1), PoolRulings())
    >>> task.tally, event.value
    (1, 'completed')
    """
    started, _ = _begin_turn(task, member.strip())
    after, event = _advance(started, member.strip(), successes, False, rulings)
    return after, event, changes_between("task", task.name, task, after)


# ---------------------------------------------------------------------------
# Resisted rolls and contests


@dataclass(frozen=True)
class Contest:
    """A resisted + extended action: each turn's surplus accrues; first to the target wins."""

    name: str
    sides: tuple[str, str]  # the two rollers, first and second
    target: int
    tallies: tuple[int, int] = (0, 0)
    turn: int = 0
    status: Status = Status.OPEN
    winner: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The contest as JSON-ready data.

        >>> c = open_contest("arm wrestling", ("Kara", "Dax"), 5)
        >>> Contest.from_dict(c.to_dict()) == c
        True
        """
        return {
            "version": CONTEST_VERSION,
            "name": self.name,
            "sides": list(self.sides),
            "target": self.target,
            "tallies": list(self.tallies),
            "turn": self.turn,
            "status": self.status.value,
            "winner": self.winner,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Contest:
        """A contest from :meth:`to_dict`'s data; StoreError if it is not that shape."""
        data = check_version(data, CONTEST_VERSION, "pool contest")
        try:
            first, second = (str(s) for s in data["sides"])
            mine, theirs = (int(t) for t in data["tallies"])
            winner = data["winner"]
            return cls(
                name=str(data["name"]),
                sides=(first, second),
                target=int(data["target"]),
                tallies=(mine, theirs),
                turn=int(data["turn"]),
                status=Status(data["status"]),
                winner=None if winner is None else str(winner),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise StoreError(f"A stored pool contest is malformed: {error!r}") from error


def open_contest(name: str, sides: tuple[str, str], target: int) -> Contest:
    """A new resisted + extended contest between two rollers (a GM verb)."""
    _check_name(name, "contest")
    _check_target(target)
    for side in sides:
        _check_name(side, "side")
    if sides[0].casefold() == sides[1].casefold():
        raise RuleViolation("A contest needs two different sides.")
    return Contest(name, sides, target)


def close_contest(contest: Contest) -> tuple[Contest, tuple[Change, ...]]:
    """The GM closes a contest, whoever leads (a GM verb)."""
    closed = replace(contest, status=Status.CLOSED)
    return closed, changes_between("contest", contest.name, contest, closed)


@dataclass(frozen=True)
class ResistedVerdict:
    """Two sides' rolls compared: who won, what surplus he keeps, the exact chances."""

    rolls: tuple[PoolRoll, PoolRoll]  # first side, second side
    winner: int | None  # 0 the first side, 1 the second, None nobody
    surplus: int  # net successes the winner keeps
    label: str  # the R-31 label of the surplus
    chances: tuple[Fraction, Fraction, Fraction]  # P(first wins), P(nobody), P(second wins)
    changes: tuple[Change, ...]
    contest: Contest | None = None  # the contest after this turn, if it was one


def _standing(roll: PoolRoll) -> int:
    """What R-36 compares: net successes, and a botch below every net."""
    return odds.BOTCH if roll.botch else roll.net


def resolve_resisted(
    first: RollRequest,
    first_actor: Actor | None,
    second: RollRequest,
    second_actor: Actor | None,
    table: Table,
    dice: DiceSource,
) -> ResistedVerdict:
    """Both sides roll (the first, then the second); the higher net wins the surplus.

    A botching side loses and the other keeps its whole net; two botches, or equal
    nets, are a tie: under R-36 ``"nobody"`` no one wins, under ``"defender"`` the
    second side holds with no surplus.

    >>> from referee.base.dice import FixedDice
    >>> from referee.systems.pool.rolls import PoolSpec
    >>> v = resolve_resisted(RollRequest(PoolSpec(dice=4), roller="Kara"), None,
    ...     RollRequest(PoolSpec(dice=3), roller="Door"), None, Table(),
    ...     FixedDice([7, 8, 9, 10, 6, 7, 8]))
    >>> v.winner, v.surplus, v.label
    (0, 1, 'minimal')
    """
    names = [
        a.sheet.name if a else r.roller for r, a in ((first, first_actor), (second, second_actor))
    ]
    if names[0] and names[0].casefold() == names[1].casefold():
        raise RuleViolation(f"{names[0]} cannot resist {names[0]}: name two different sides.")
    plans = plan_roll(first, first_actor, table), plan_roll(second, second_actor, table)
    rolls = roll_plan(plans[0], table.rulings, dice), roll_plan(plans[1], table.rulings, dice)
    mine, theirs = _standing(rolls[0]), _standing(rolls[1])
    defender_holds = table.rulings.resisted_tie is ResistedTie.DEFENDER
    winner: int | None
    if mine != theirs:
        winner = 0 if mine > theirs else 1
        surplus = max(mine, theirs) - max(min(mine, theirs), 0)
    else:
        winner, surplus = (1 if defender_holds else None), 0
    chances = odds.compare(rolls[0].distribution, rolls[1].distribution, defender_holds)
    changes = roll_changes(rolls[0], first, first_actor) + roll_changes(
        rolls[1], second, second_actor
    )
    return ResistedVerdict(
        rolls, winner, surplus, table.rulings.label_for(surplus), chances, changes
    )


def roll_contest(
    first: RollRequest,
    first_actor: Actor | None,
    second: RollRequest,
    second_actor: Actor | None,
    contest: Contest,
    table: Table,
    dice: DiceSource,
) -> ResistedVerdict:
    """One turn of a resisted + extended contest: the surplus adds to the winner's tally.

    The requests come in the contest's side order. A botching side's own tally follows
    R-35 (lost under ``"reset"``; under ``"end"`` he loses the contest).
    """
    _refuse_closed(contest.name, contest.status, "contest")
    rollers = [
        a.sheet.name if a else r.roller for r, a in ((first, first_actor), (second, second_actor))
    ]
    if [n.casefold() for n in rollers] != [s.casefold() for s in contest.sides]:
        raise RuleViolation(
            f"{contest.name} is between {contest.sides[0]} and {contest.sides[1]}, in that order."
        )
    verdict = resolve_resisted(first, first_actor, second, second_actor, table, dice)
    tallies = list(contest.tallies)
    if verdict.winner is not None:
        tallies[verdict.winner] += verdict.surplus
    after = replace(contest, turn=contest.turn + 1)
    botched = [side for side, roll in enumerate(verdict.rolls) if roll.botch]
    if table.rulings.extended_botch is ExtendedBotch.RESET:
        for side in botched:
            tallies[side] = 0
    elif table.rulings.extended_botch is ExtendedBotch.END and len(botched) == 1:
        after = replace(after, status=Status.DONE, winner=contest.sides[1 - botched[0]])
    elif table.rulings.extended_botch is ExtendedBotch.END and botched:
        after = replace(after, status=Status.FAILED)  # both botched: nobody wins
    after = replace(after, tallies=(tallies[0], tallies[1]))
    if after.status is Status.OPEN:
        leaders = [side for side in (0, 1) if tallies[side] >= contest.target]
        if leaders:  # only the turn's winner gains, so at most one side reaches the target
            after = replace(after, status=Status.DONE, winner=contest.sides[leaders[0]])
    changes = verdict.changes + changes_between("contest", contest.name, contest, after)
    return replace(verdict, changes=changes, contest=after)


def session_changes(states: Mapping[str, State]) -> tuple[Change, ...]:
    """A new session (the GM's ``session`` verb, or a new chapter): every free botch returns."""
    return tuple(
        Change("character", name, "free_botch_used", True, False)
        for name, state in states.items()
        if state.free_botch_used
    )
