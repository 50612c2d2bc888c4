"""Extended tasks, teamwork, resisted rolls and contests, sessions: R-35 to R-38 and R-33."""

from __future__ import annotations

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import RuleViolation
from referee.systems.changes import Change, apply_changes
from referee.systems.pool.contests import (
    Contest,
    Status,
    Task,
    TaskEvent,
    close_contest,
    close_task,
    open_contest,
    open_task,
    resolve_resisted,
    roll_contest,
    roll_extended,
    session_changes,
)
from referee.systems.pool.rolls import Actor, PoolSpec, RollRequest, Table
from referee.systems.pool.rulings import (
    ExtendedBotch,
    PoolRulings,
    ResistedTie,
    TeamBotch,
    Teamwork,
)
from referee.systems.pool.sheet import Sheet, State


def bare(dice: int, who: str, **request) -> RollRequest:
    """A bare pool of ``dice`` for ``who``."""
    return RollRequest(PoolSpec(dice=dice), roller=who, **request)


def extend(task: Task, who: str, faces: list[int], rulings=None, **request):
    """One roll of len(faces) dice on ``task``, checking every face is drawn."""
    dice = FixedDice(faces)
    verdict = roll_extended(
        bare(len(faces), who, **request), None, task, Table(rulings or PoolRulings()), dice
    )
    assert 0 == dice.remaining
    return verdict


def test_extended_task_adds_net_successes_to_its_target() -> None:
    """Digging for 5: 2, then a failure (0), then 3: done on the third turn."""
    task = open_task("dig", 5)
    first = extend(task, "Kara", [9, 7, 2])
    second = extend(first.task, "Kara", [9, 1, 2])
    third = extend(second.task, "Kara", [6, 6, 10])
    assert [2, 2, 5] == [v.task.tally for v in (first, second, third)]
    assert [1, 2, 3] == [v.task.turn for v in (first, second, third)]
    assert (TaskEvent.COMPLETED, Status.DONE) == (third.event, third.task.status)


def test_the_change_set_rebuilds_the_task() -> None:
    """Applying a verdict's changes to the old task gives the new one."""
    task = open_task("dig", 5)
    verdict = extend(task, "Kara", [9, 7, 2])
    assert verdict.task == apply_changes(task, "task", "dig", verdict.changes)
    assert Change("task", "dig", "tally", 0, 2) in verdict.changes


@pytest.mark.parametrize(
    ("ruling", "tally", "status", "event"),
    [
        (ExtendedBotch.RESET, 0, Status.OPEN, TaskEvent.RESET),
        (ExtendedBotch.END, 4, Status.FAILED, TaskEvent.BOTCH_ENDED),
        (ExtendedBotch.KEEP, 4, Status.OPEN, TaskEvent.BOTCH_KEPT),
    ],
)
def test_a_botch_on_an_extended_task_follows_r35(ruling, tally, status, event) -> None:
    """R-35: a botch loses the tally (reset), fails the task (end) or changes nothing (keep)."""
    task = Task("dig", 10, tally=4, turn=2, rolled_this_turn=("Kara",), contributions={"Kara": 4})
    verdict = extend(task, "Kara", [1, 2], PoolRulings(extended_botch=ruling))
    assert (tally, status, event) == (verdict.task.tally, verdict.task.status, verdict.event)


def test_turn_limit_fails_the_task_short_of_its_target() -> None:
    """Two turns to gather 5: 2 then 1, so the task fails; a third roll is refused."""
    task = open_task("hack", 5, turn_limit=2)
    last = extend(extend(task, "Kara", [9, 9, 2]).task, "Kara", [9, 2, 2])
    assert (3, Status.FAILED, TaskEvent.OUT_OF_TURNS) == (
        last.task.tally,
        last.task.status,
        last.event,
    )
    with pytest.raises(RuleViolation, match="is failed"):
        extend(last.task, "Kara", [9])


def test_another_character_needs_teamwork() -> None:
    """R-37: without the GM's teamwork a second character's roll is refused."""
    task = extend(open_task("research", 8), "Kara", [9]).task
    with pytest.raises(RuleViolation, match="has not opened research for teamwork: only Kara"):
        extend(task, "Dax", [9])


def test_teamwork_adds_to_one_tally_and_counts_team_turns() -> None:
    """Kara and Dax on one tally: their rolls share a turn until one of them rolls again."""
    task = open_task("research", 8, turn_limit=3, teamwork=True)
    kara = extend(task, "Kara", [9, 9])
    dax = extend(kara.task, "Dax", [9])
    kara_again = extend(dax.task, "Kara", [9])
    assert [2, 3, 4] == [v.task.tally for v in (kara, dax, kara_again)]
    assert [1, 1, 2] == [v.task.turn for v in (kara, dax, kara_again)]
    assert {"Kara": 3, "Dax": 1} == kara_again.task.contributions


def test_team_turn_limit_waits_for_every_member() -> None:
    """On a named team's last turn the task fails only once every member has rolled."""
    task = open_task("research", 8, turn_limit=1, team=("Kara", "Dax"))
    kara = extend(task, "Kara", [9])
    dax = extend(kara.task, "Dax", [9])
    assert (Status.OPEN, Status.FAILED) == (kara.task.status, dax.task.status)


@pytest.mark.parametrize(
    ("ruling", "tally", "shares"),
    [
        (TeamBotch.ALL, 0, {"Kara": 0, "Dax": 0}),
        (TeamBotch.OWN, 3, {"Kara": 3, "Dax": 0}),
    ],
)
def test_a_member_botch_costs_the_team_per_r38(ruling, tally, shares) -> None:
    """R-38: Dax's botch loses the whole tally ("all") or only his 2 ("own")."""
    task = Task(
        "research",
        9,
        teamwork=True,
        tally=5,
        turn=1,
        rolled_this_turn=("Kara",),
        contributions={"Kara": 3, "Dax": 2},
    )
    verdict = extend(task, "Dax", [1], PoolRulings(team_botch=ruling))
    assert (tally, shares) == (verdict.task.tally, verdict.task.contributions)


def test_a_named_team_refuses_others_and_an_open_team_refuses_past_its_turns() -> None:
    """Only the named members roll; an open team's roll past the limit is refused."""
    named = open_task("research", 8, team=("Kara", "Dax"))
    with pytest.raises(RuleViolation, match="Only Kara, Dax roll on research"):
        extend(named, "Mira", [9])
    open_team = open_task("research", 8, turn_limit=1, teamwork=True)
    first_turn = extend(extend(open_team, "Kara", [9]).task, "Dax", [9]).task
    assert Status.OPEN == first_turn.status
    with pytest.raises(RuleViolation, match="has used its 1 turns"):
        extend(first_turn, "Kara", [9])


def test_teamwork_rulings_decide_who_may_open_it() -> None:
    """R-37 "never" refuses a team task; "always" opens every task to teams."""
    with pytest.raises(RuleViolation, match="teamwork = never"):
        open_task("lift", 5, teamwork=True, rulings=PoolRulings(teamwork=Teamwork.NEVER))
    assert open_task("lift", 5, rulings=PoolRulings(teamwork=Teamwork.ALWAYS)).teamwork


def test_closed_task_refuses_rolls() -> None:
    """The GM closes a task; a roll on it is refused."""
    closed, changes = close_task(open_task("dig", 5))
    assert (Change("task", "dig", "status", Status.OPEN, Status.CLOSED),) == changes
    with pytest.raises(RuleViolation, match="is closed"):
        extend(closed, "Kara", [9])


def test_bad_tasks_are_refused() -> None:
    """A target of 0, a turn limit of 0 or a blank name is refused."""
    for args in (("dig", 0), ("dig", 5, 0), (" ", 5)):
        with pytest.raises(RuleViolation):
            open_task(*args)


def resist(first_faces, second_faces, rulings=None):
    """Kara (first) against a door (second), each with her own dice."""
    dice = FixedDice([*first_faces, *second_faces])
    verdict = resolve_resisted(
        bare(len(first_faces), "Kara"),
        None,
        bare(len(second_faces), "Door"),
        None,
        Table(rulings or PoolRulings()),
        dice,
    )
    assert 0 == dice.remaining
    return verdict


def test_seed_four_successes_resisted_by_three_is_minimal() -> None:
    """§2: 4 successes resisted by 3 leave 1 net success, a minimal one."""
    verdict = resist([7, 8, 9, 10], [6, 7, 8])
    assert (0, 1, "minimal") == (verdict.winner, verdict.surplus, verdict.label)
    assert 1 == sum(verdict.chances)


def test_resisted_tie_is_nobody_or_the_defender() -> None:
    """R-36: equal nets: nobody wins; under "defender" the second side holds with no surplus."""
    assert (None, 0) == (resist([7], [8]).winner, resist([7], [8]).surplus)
    held = resist([7], [8], PoolRulings(resisted_tie=ResistedTie.DEFENDER))
    assert (1, 0) == (held.winner, held.surplus)


def test_a_botching_side_loses_and_the_other_keeps_its_net() -> None:
    """R-36: the door botches; Kara keeps her 2 net successes; two botches tie."""
    verdict = resist([7, 7, 2], [1, 2])
    assert (0, 2) == (verdict.winner, verdict.surplus)
    assert None is resist([1], [1]).winner


def test_the_second_side_can_win() -> None:
    """The door's 3 against Kara's 1: the door wins with 2."""
    verdict = resist([7], [7, 8, 9])
    assert (1, 2, "moderate") == (verdict.winner, verdict.surplus, verdict.label)


def test_resisted_refuses_one_character_against_himself() -> None:
    """Kara cannot resist Kara."""
    with pytest.raises(RuleViolation, match="cannot resist"):
        resolve_resisted(bare(2, "Kara"), None, bare(2, "kara"), None, Table(), FixedDice([]))


def test_resisted_willpower_is_spent_by_its_side() -> None:
    """Kara spends Willpower on her side; the change names her."""
    kara = Actor(Sheet("Kara", {"strength": 3}, 4), State(4))
    dice = FixedDice([2, 2, 2, 7])
    verdict = resolve_resisted(
        RollRequest(PoolSpec(("strength",)), willpower=True),
        kara,
        bare(1, "Door"),
        None,
        Table(),
        dice,
    )
    assert (None, (Change("character", "Kara", "willpower_points", 4, 3),)) == (
        verdict.winner,
        verdict.changes,
    )


def contest_turn(contest: Contest, first_faces, second_faces, rulings=None):
    """One turn of ``contest`` between its two sides with bare pools."""
    dice = FixedDice([*first_faces, *second_faces])
    a, b = contest.sides
    return roll_contest(
        bare(len(first_faces), a),
        None,
        bare(len(second_faces), b),
        None,
        contest,
        Table(rulings or PoolRulings()),
        dice,
    )


def test_contest_surplus_accrues_and_first_to_the_target_wins() -> None:
    """Arm wrestling to 3: Kara +2, Dax +1, Kara +1: Kara wins."""
    contest = open_contest("arm wrestling", ("Kara", "Dax"), 3)
    first = contest_turn(contest, [7, 8, 9], [7, 2, 2])
    second = contest_turn(first.contest, [2], [7])
    third = contest_turn(second.contest, [7], [2])
    assert [(2, 0), (2, 1), (3, 1)] == [v.contest.tallies for v in (first, second, third)]
    assert (Status.DONE, "Kara") == (third.contest.status, third.contest.winner)
    with pytest.raises(RuleViolation, match="is done"):
        contest_turn(third.contest, [7], [7])


@pytest.mark.parametrize(
    ("ruling", "tallies", "status", "winner"),
    [
        (ExtendedBotch.RESET, (0, 3), Status.OPEN, None),
        (ExtendedBotch.END, (2, 3), Status.DONE, "Dax"),
        (ExtendedBotch.KEEP, (2, 3), Status.OPEN, None),
    ],
)
def test_a_botch_in_a_contest_follows_r35(ruling, tallies, status, winner) -> None:
    """Kara botches: Dax adds his 1; Kara's own tally is lost, she loses, or it stands."""
    contest = Contest("race", ("Kara", "Dax"), 5, tallies=(2, 2))
    verdict = contest_turn(contest, [1], [7], PoolRulings(extended_botch=ruling))
    assert (tallies, status, winner) == (
        verdict.contest.tallies,
        verdict.contest.status,
        verdict.contest.winner,
    )


def test_contest_sides_must_match() -> None:
    """A roll between other sides, or the sides swapped, is refused."""
    contest = open_contest("race", ("Kara", "Dax"), 5)
    with pytest.raises(RuleViolation, match="in that order"):
        roll_contest(bare(1, "Dax"), None, bare(1, "Kara"), None, contest, Table(), FixedDice([]))
    closed, _ = close_contest(contest)
    assert Status.CLOSED == closed.status


def test_session_returns_every_spent_free_botch() -> None:
    """R-33: a new session gives the free botch back to whoever spent it."""
    states = {"Kara": State(3, True), "Dax": State(2, False)}
    assert (Change("character", "Kara", "free_botch_used", True, False),) == session_changes(states)


def test_tasks_and_contests_round_trip_through_json() -> None:
    """to_dict and from_dict give back equal tasks and contests, and refuse other versions."""
    import json

    from referee.base.errors import StoreError

    task = Task("dig", 9, 3, True, ("Kara", "Dax"), 4, 2, ("Kara",), {"Kara": 4}, Status.OPEN)
    contest = Contest("race", ("Kara", "Dax"), 5, (1, 2), 3)
    assert task == Task.from_dict(json.loads(json.dumps(task.to_dict())))
    assert contest == Contest.from_dict(json.loads(json.dumps(contest.to_dict())))
    with pytest.raises(StoreError, match="version"):
        Task.from_dict({**task.to_dict(), "version": 99})
