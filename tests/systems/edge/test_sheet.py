"""Edge sheets, states and stat lists: every problem at once, JSON round trips, versions."""

from __future__ import annotations

import json

import pytest

from referee.base.errors import ConfigError, RuleViolation, StoreError
from referee.systems.edge.rulings import Policy
from referee.systems.edge.sheet import (
    Sheet,
    State,
    StatLists,
    build_sheet,
    sheet_problems,
    state_problems,
)


def test_a_new_character_starts_with_advantage_one_and_policy_up() -> None:
    """§4: the advantage die starts at 1; R-39's default policy is up."""
    assert (1, Policy.UP) == (State().advantage, State().policy)


def test_build_sheet_matches_names_and_lists_every_problem() -> None:
    """Stats by a unique start; a bad value, a duplicate and an unknown stat reported together."""
    assert Sheet("Kara", {"cool": 2, "sharp": -1}) == build_sheet(
        "Kara", {"co": 2, "SHARP": -1}, StatLists()
    )
    with pytest.raises(RuleViolation) as caught:
        build_sheet("Kara", {"cool": 9, "Cool": 1, "luck": 1}, StatLists())
    assert caught.value.message.startswith("Kara's sheet has 3 problems:")


def test_campaign_lists_replace_the_defaults() -> None:
    """A campaign names its own stats and range; a sheet is checked against them."""
    lists = StatLists.from_mapping({"stats": ["Blood", "Heart"], "counters": [], "stat_max": 4})
    assert [] == sheet_problems(Sheet("Kara", {"blood": 4}), lists)
    assert ["'cool' is not a stat of this campaign."] == sheet_problems(
        Sheet("Kara", {"cool": 1}), lists
    )


def test_stat_lists_refuse_every_problem_at_once() -> None:
    """An unknown key, a name in both lists and an inverted range, in one refusal."""
    with pytest.raises(ConfigError) as caught:
        StatLists.from_mapping(
            {"moves": [], "stats": ["cool"], "counters": ["cool"], "stat_min": 3, "stat_max": 1}
        )
    assert 3 == caught.value.message.count("\n- ")


def test_state_problems_check_advantage_and_counters() -> None:
    """Advantage 0 and an out-of-range counter are both reported."""
    assert 2 == len(state_problems(State(0, counters={"harm": 200}), StatLists()))


def test_sheet_and_state_round_trip_through_json() -> None:
    """to_dict/from_dict through real JSON give back equal values; another version is refused."""
    sheet, state = Sheet("Kara", {"cool": 2}), State(4, Policy.STRONG, {"harm": 1})
    assert sheet == Sheet.from_dict(json.loads(json.dumps(sheet.to_dict())))
    assert state == State.from_dict(json.loads(json.dumps(state.to_dict())))
    with pytest.raises(StoreError, match="version"):
        State.from_dict({**state.to_dict(), "version": 0})
    with pytest.raises(StoreError, match="malformed"):
        State.from_dict({"version": 1, "advantage": 2, "policy": "often", "counters": {}})
