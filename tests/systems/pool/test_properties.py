"""Pool invariants under Hypothesis: any request resolves within bounds or is refused politely.

`pytest --hypothesis-profile long` runs each property for the long profile's count.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.base.dice import SeededDice
from referee.base.errors import UserError
from referee.systems.changes import apply_changes
from referee.systems.pool.contests import (
    Contest,
    Status,
    Task,
    resolve_resisted,
    roll_contest,
    roll_extended,
)
from referee.systems.pool.rolls import (
    Actor,
    Outcome,
    PoolSpec,
    RollRequest,
    Table,
    resolve_actions,
    resolve_roll,
)
from referee.systems.pool.rulings import (
    EmptyPool,
    ExtendedBotch,
    OverTen,
    PoolRulings,
    ResistedTie,
    TeamBotch,
    Teamwork,
)
from referee.systems.pool.sheet import DEFAULT_ABILITIES, DEFAULT_ATTRIBUTES, Sheet, State

names = st.text(min_size=0, max_size=12)
trait_words = st.one_of(
    st.sampled_from([*DEFAULT_ATTRIBUTES, *DEFAULT_ABILITIES, "willpower", "humanity", "dex"]),
    names,
)
numbers = st.integers(min_value=-30, max_value=30)
few = st.integers(min_value=-3, max_value=3)
# Mostly well-formed pools, so the resolving path is exercised as much as the refusals.
pools = st.one_of(
    st.builds(
        PoolSpec,
        traits=st.tuples(
            st.sampled_from(DEFAULT_ATTRIBUTES), st.sampled_from(DEFAULT_ABILITIES[:5])
        ),
        modifier=few,
    ),
    st.builds(PoolSpec, traits=st.tuples(st.sampled_from(DEFAULT_ATTRIBUTES)), modifier=few),
    st.builds(PoolSpec, dice=st.integers(-2, 15), modifier=few),
    st.builds(
        PoolSpec,
        traits=st.lists(trait_words, max_size=3).map(tuple),
        dice=st.one_of(st.none(), st.integers(-5, 40)),
        modifier=numbers,
    ),
)
requests = st.builds(
    RollRequest,
    pool=pools,
    roller=st.one_of(st.sampled_from(["Kara", "Dax", ""]), names),
    difficulty=st.one_of(st.none(), st.integers(2, 10), st.integers(-2, 14)),
    difficulty_modifier=st.one_of(st.just(0), st.integers(-12, 12)),
    willpower=st.sampled_from([False, False, False, True]),
    willpower_allowed=st.sampled_from([True, True, True, False]),
    reflexive=st.booleans(),
    turn=st.one_of(st.none(), st.sampled_from(["t1", "t2"])),
)
rulings = st.builds(
    PoolRulings,
    pool_over_10=st.sampled_from(OverTen),
    difficulty_clamp=st.booleans(),
    willpower_success=st.booleans(),
    free_botch=st.booleans(),
    empty_pool=st.sampled_from(EmptyPool),
    extended_botch=st.sampled_from(ExtendedBotch),
    resisted_tie=st.sampled_from(ResistedTie),
    teamwork=st.sampled_from(Teamwork),
    team_botch=st.sampled_from(TeamBotch),
)
tables = st.builds(
    Table, rulings=rulings, standing_difficulty=st.one_of(st.none(), st.integers(2, 10))
)
actor = st.builds(
    Actor,
    st.builds(
        Sheet,
        name=st.sampled_from(["Kara", "Dax"]),
        traits=st.dictionaries(
            st.sampled_from(DEFAULT_ATTRIBUTES + DEFAULT_ABILITIES[:5]), st.integers(0, 5)
        ),
        willpower=st.integers(1, 10),
        humanity=st.integers(1, 10),
    ),
    st.builds(
        State,
        willpower_points=st.integers(0, 3),
        free_botch_used=st.booleans(),
        willpower_turn=st.one_of(st.none(), st.just("t1")),
    ),
)
actors = st.one_of(st.none(), actor, actor, actor)


@settings(max_examples=max(300, settings().max_examples), deadline=None)
@given(requests, actors, tables, st.integers(0, 2**32))
def test_any_roll_resolves_within_bounds_or_is_refused(request, actor, table, seed) -> None:
    """A roll gives a sane verdict whose changes apply, or a UserError; nothing else escapes."""
    try:
        verdict = resolve_roll(request, actor, table, SeededDice(seed))
    except UserError as error:
        assert error.message
        return
    roll = verdict.roll
    assert len(roll.dice) == roll.plan.dice
    assert 2 <= roll.plan.difficulty <= 10
    assert (roll.net > 0) == (roll.outcome is Outcome.SUCCESS)
    assert 0 < roll.chance <= 1
    assert 1 == sum(roll.distribution.values())
    if actor is not None:
        apply_changes(actor.state, "character", actor.sheet.name, verdict.changes)


@settings(max_examples=max(150, settings().max_examples), deadline=None)
@given(st.lists(requests, max_size=5), actors, tables, st.integers(0, 2**32))
def test_any_declaration_of_actions_resolves_or_is_refused(declared, actor, table, seed) -> None:
    """Several actions resolve together or are refused together, with a UserError."""
    try:
        verdict = resolve_actions(declared, actor, table, SeededDice(seed))
    except UserError:
        return
    assert len(declared) == len(verdict.rolls)


tasks = st.builds(
    Task,
    name=st.just("dig"),
    target=st.integers(1, 20),
    turn_limit=st.one_of(st.none(), st.integers(1, 4)),
    teamwork=st.booleans(),
    team=st.sampled_from([(), ("Kara",), ("Kara", "Dax")]),
    tally=st.integers(0, 10),
    turn=st.integers(0, 4),
    rolled_this_turn=st.sampled_from([(), ("Kara",), ("Dax",)]),
    contributions=st.sampled_from([{}, {"Kara": 1}, {"Dax": 2, "Kara": 0}]),
    status=st.one_of(st.just(Status.OPEN), st.sampled_from(Status)),
)


@settings(max_examples=max(200, settings().max_examples), deadline=None)
@given(requests, actors, tasks, tables, st.integers(0, 2**32))
def test_any_extended_roll_resolves_or_is_refused(request, actor, task, table, seed) -> None:
    """An extended roll keeps the tally at 0 or more, and its changes rebuild the task."""
    try:
        verdict = roll_extended(request, actor, task, table, SeededDice(seed))
    except UserError:
        return
    assert verdict.task.tally >= 0
    assert verdict.task == apply_changes(task, "task", task.name, verdict.changes)


@settings(max_examples=max(200, settings().max_examples), deadline=None)
@given(requests, actors, requests, actors, tables, st.booleans(), st.integers(0, 2**32))
def test_any_resisted_roll_or_contest_resolves_or_is_refused(
    first, first_actor, second, second_actor, table, as_contest, seed
) -> None:
    """A resisted roll names a winner (or nobody) with a surplus of 0 or more, or is refused."""
    dice = SeededDice(seed)
    try:
        if as_contest:
            contest = Contest("race", ("Kara", "Dax"), 5)
            verdict = roll_contest(first, first_actor, second, second_actor, contest, table, dice)
        else:
            verdict = resolve_resisted(first, first_actor, second, second_actor, table, dice)
    except UserError:
        return
    assert verdict.surplus >= 0
    assert verdict.winner in (None, 0, 1)
    assert 1 == sum(verdict.chances)
