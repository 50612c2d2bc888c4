"""Edge invariants under Hypothesis: any move resolves within its bands or is refused politely.

`pytest --hypothesis-profile long` runs each property for the long profile's count.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.base.dice import SeededDice
from referee.base.errors import UserError
from referee.systems.changes import apply_changes
from referee.systems.edge.bands import BAND_ORDER, band_of
from referee.systems.edge.moves import Actor, MoveRequest, Table, resolve_move, settle
from referee.systems.edge.rulings import EdgeRaise, EdgeRulings, EdgeUse, Policy
from referee.systems.edge.sheet import DEFAULT_COUNTERS, DEFAULT_STATS, Sheet, State, StatLists
from referee.systems.edge.verbs import (
    end_encounter,
    lower,
    raise_advantage,
    set_advantage,
    set_counter,
)

words = st.one_of(
    st.sampled_from([*DEFAULT_STATS, *DEFAULT_COUNTERS, "h", "c"]), st.text(max_size=10)
)
requests = st.builds(
    MoveRequest,
    roll_on=st.one_of(st.none(), words),
    modifier=st.one_of(st.integers(-3, 3), st.integers(-2000, 2000)),
    policy=st.one_of(st.none(), st.sampled_from(Policy)),
    move=st.text(max_size=80),
)
states = st.builds(
    State,
    advantage=st.integers(1, 6),
    policy=st.sampled_from(Policy),
    counters=st.dictionaries(st.sampled_from(DEFAULT_COUNTERS), st.integers(-99, 99)),
)
actors = st.builds(
    Actor,
    st.builds(
        Sheet, st.just("Kara"), st.dictionaries(st.sampled_from(DEFAULT_STATS), st.integers(-3, 3))
    ),
    states,
)
tables = st.builds(
    Table,
    rulings=st.builds(EdgeRulings, st.sampled_from(EdgeRaise), st.sampled_from(EdgeUse)),
)


@settings(max_examples=max(300, settings().max_examples), deadline=None)
@given(requests, actors, tables, st.booleans(), st.integers(0, 2**32))
def test_any_move_resolves_or_is_refused(request, actor, table, answer, seed) -> None:
    """A move's band matches its total, advantage never lowers it, and changes apply."""
    try:
        verdict = resolve_move(request, actor, table, SeededDice(seed))
    except UserError as error:
        assert error.message
        return
    move = verdict.move
    assert band_of(move.result.total) == move.result.band
    assert BAND_ORDER[move.result.band] >= BAND_ORDER[move.plain.band] or not move.used
    assert sum(move.odds_with.values()) == 1 == sum(move.odds_plain.values())
    state = apply_changes(actor.state, "character", "Kara", verdict.changes)
    assert state.advantage == (1 if move.used else actor.state.advantage)
    if verdict.pending is not None:
        settled = settle(verdict.pending, answer, state)
        assert (answer, False) == (settled.move.used, settled.move.pending)


@settings(max_examples=max(200, settings().max_examples), deadline=None)
@given(states, st.booleans(), st.sampled_from(EdgeRaise), st.integers(-10, 10), st.text(max_size=8))
def test_any_verb_keeps_the_advantage_on_the_die(state, by_gm, raising, value, word) -> None:
    """Every verb leaves the advantage within 1-6 or refuses with a UserError."""
    rulings = EdgeRulings(edge_raise=raising)
    verbs = [
        lambda: lower("Kara", state, by_gm),
        lambda: raise_advantage("Kara", state, by_gm, rulings),
        lambda: set_advantage("Kara", state, value, by_gm),
        lambda: set_counter("Kara", state, word, value, StatLists(), by_gm),
    ]
    for verb in verbs:
        try:
            adjustment = verb()
        except UserError:
            continue
        after = apply_changes(state, "character", "Kara", adjustment.changes)
        assert 1 <= after.advantage <= 6
    assert all(change.after == 1 for change in end_encounter({"Kara": state}))
