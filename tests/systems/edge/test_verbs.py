"""Edge verbs: lowering, raising (R-13), setting, the end of an encounter, policy, counters."""

from __future__ import annotations

import pytest

from referee.base.errors import Forbidden, RuleViolation, UnknownName
from referee.systems.changes import Change, apply_changes
from referee.systems.edge.rulings import EdgeRaise, EdgeRulings, Policy
from referee.systems.edge.sheet import Sheet, State, StatLists
from referee.systems.edge.verbs import (
    end_encounter,
    lower,
    parse_policy,
    raise_advantage,
    set_advantage,
    set_counter,
    set_policy,
    set_stats,
)


def test_vector_lowering_an_advantage_of_one_keeps_it_at_one() -> None:
    """§4.2: the GM lowers advantage 1: it stays 1, and nothing changes."""
    adjustment = lower("Kara", State(1), by_gm=True)
    assert (1, ()) == (adjustment.after, adjustment.changes)


def test_vector_end_of_encounter_resets_every_participant() -> None:
    """§4.2: at the end of an encounter 5 goes to 1 (and those at 1 stay)."""
    states = {"Kara": State(5), "Dax": State(1), "Mira": State(3)}
    changes = end_encounter(states)
    assert (
        Change("character", "Kara", "advantage", 5, 1),
        Change("character", "Mira", "advantage", 3, 1),
    ) == changes
    assert State(1) == apply_changes(states["Kara"], "character", "Kara", changes)


def test_the_gm_lowers_by_one() -> None:
    """A GM move lowers 4 to 3."""
    assert (Change("character", "Kara", "advantage", 4, 3),) == lower(
        "Kara", State(4), True
    ).changes


def test_players_may_not_lower_set_or_edit_counters() -> None:
    """Each GM verb refuses a player and says it is the GM's."""
    with pytest.raises(Forbidden, match="one of the GM's moves"):
        lower("Kara", State(4), by_gm=False)
    with pytest.raises(Forbidden, match="Only the GM sets"):
        set_advantage("Kara", State(4), 6, by_gm=False)
    with pytest.raises(Forbidden, match="Only the GM edits counters"):
        set_counter("Kara", State(), "harm", 2, StatLists(), by_gm=False)


def test_raising_follows_r13() -> None:
    """Under "gm" a player may not raise it; under "player" he may; never above 6."""
    with pytest.raises(Forbidden, match="edge_raise = gm"):
        raise_advantage("Kara", State(2), False, EdgeRulings())
    by_player = EdgeRulings(edge_raise=EdgeRaise.PLAYER)
    assert 3 == raise_advantage("Kara", State(2), False, by_player).after
    assert (6, ()) == (
        raise_advantage("Kara", State(6), True, EdgeRulings()).after,
        raise_advantage("Kara", State(6), True, EdgeRulings()).changes,
    )


def test_setting_the_advantage_checks_its_faces() -> None:
    """The GM sets 5; 7 is refused."""
    assert 5 == set_advantage("Kara", State(2), 5, True).after
    with pytest.raises(RuleViolation, match="1 to 6, not 7"):
        set_advantage("Kara", State(2), 7, True)


def test_policy_is_named_and_set() -> None:
    """A player's `edge=hit` sets his standing policy; an unknown word lists the policies."""
    adjustment = set_policy("Kara", State(), parse_policy("HIT"))
    assert (Change("character", "Kara", "policy", Policy.UP, Policy.HIT),) == adjustment.changes
    with pytest.raises(UnknownName, match="up, hit, strong, always, never"):
        parse_policy("sometimes")


def test_counters_are_set_by_name_within_range() -> None:
    """The GM sets harm to 3 (from an unset 0); an unknown counter or 500 is refused."""
    adjustment = set_counter("Kara", State(), "har", 3, StatLists(), True)
    assert (0, 3) == (adjustment.before, adjustment.after)
    assert State(counters={"harm": 3}) == apply_changes(
        State(), "character", "Kara", adjustment.changes
    )
    with pytest.raises(UnknownName):
        set_counter("Kara", State(), "luck", 3, StatLists(), True)
    with pytest.raises(RuleViolation, match="-99 to 99"):
        set_counter("Kara", State(), "harm", 500, StatLists(), True)


def test_the_gm_edits_stats_and_players_may_not() -> None:
    """Cool 1 -> 2 by a unique start; 9 is refused; a player is told it is the GM's."""
    sheet, changes = set_stats(Sheet("Kara", {"cool": 1}), {"co": 2}, StatLists(), True)
    assert ({"cool": 2}, 1) == (dict(sheet.stats), len(changes))
    with pytest.raises(RuleViolation, match="cool is 9"):
        set_stats(sheet, {"cool": 9}, StatLists(), True)
    with pytest.raises(Forbidden, match="Only the GM edits stats"):
        set_stats(sheet, {"cool": 3}, StatLists(), False)
