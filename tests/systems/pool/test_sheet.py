"""Pool sheets, states and trait lists: validation lists every problem, JSON round trips."""

from __future__ import annotations

import json

import pytest

from referee.base.errors import ConfigError, RuleViolation, StoreError
from referee.systems.pool.sheet import (
    DEFAULT_ABILITIES,
    DEFAULT_ATTRIBUTES,
    Sheet,
    State,
    TraitLists,
    build_sheet,
    sheet_problems,
    state_problems,
)


def test_build_sheet_resolves_names_and_defaults_the_ratings() -> None:
    """Traits are matched by any case or a unique start; Willpower 1 and Humanity 7 by default."""
    sheet = build_sheet("Kara", {"DEX": 3, "Brawl": 4}, TraitLists())
    assert Sheet("Kara", {"dexterity": 3, "brawl": 4}, 1, 7) == sheet


def test_build_sheet_reports_every_problem_at_once() -> None:
    """Four mistakes, one refusal naming all four."""
    with pytest.raises(RuleViolation) as caught:
        build_sheet(
            "Kara",
            {"dex": 6, "dexterity": 2, "lockpick": 1, "willpower": 11, "humanity": "high"},
            TraitLists(),
        )
    message = caught.value.message
    assert message.startswith("Kara's sheet has 5 problems:")
    for part in (
        "dexterity is 6",
        "dexterity is given twice",
        "'lockpick' is not a trait",
        "willpower is 11",
        "humanity is 'high'",
    ):
        assert part in message


def test_sheet_problems_check_the_campaign_lists() -> None:
    """A trait the campaign does not list is a problem; listed ones rated 0-5 are not."""
    lists = TraitLists(("body", "mind"), ("pilot",))
    assert ["'brawl' is not a trait of this campaign."] == sheet_problems(
        Sheet("Kara", {"body": 5, "pilot": 0, "brawl": 2}, 3), lists
    )


def test_state_problems_cap_points_and_counters() -> None:
    """Points above the rating, a huge counter and a long note are each reported."""
    state = State(7, counters={"health": 5000, "notes": "x" * 300, "blood": 4})
    problems = state_problems(state, Sheet("Kara", willpower=6))
    assert 3 == len(problems)


def test_sheet_and_state_round_trip_through_json() -> None:
    """to_dict/from_dict through real JSON give back equal values."""
    sheet = Sheet("Kara", {"dexterity": 3}, 6, 5)
    state = State(4, True, "t9", {"health": 7, "notes": "bitten"})
    assert sheet == Sheet.from_dict(json.loads(json.dumps(sheet.to_dict())))
    assert state == State.from_dict(json.loads(json.dumps(state.to_dict())))


def test_stored_data_of_another_version_or_shape_is_refused() -> None:
    """A future version or a broken record is a StoreError, never a crash."""
    with pytest.raises(StoreError, match="version 2"):
        Sheet.from_dict({**Sheet("Kara").to_dict(), "version": 2})
    with pytest.raises(StoreError, match="malformed"):
        State.from_dict({"version": 1, "willpower_points": "many"})


def test_a_fresh_state_has_every_willpower_point() -> None:
    """A new character starts with points equal to the rating and the free botch unspent."""
    assert State(6) == State.fresh(Sheet("Kara", willpower=6))


def test_trait_lists_default_and_configurable() -> None:
    """The defaults hold the nine Attributes; a config replaces either list."""
    assert (9, "lightsaber" in DEFAULT_ABILITIES) == (len(DEFAULT_ATTRIBUTES), True)
    lists = TraitLists.from_mapping({"attributes": ["Body", "Mind"], "abilities": []})
    assert (("body", "mind"), ()) == (lists.attributes, lists.abilities)


def test_trait_lists_refuse_every_problem_at_once() -> None:
    """Unknown key, a duplicate and a reserved name are reported together."""
    with pytest.raises(ConfigError) as caught:
        TraitLists.from_mapping({"skills": [], "attributes": ["body", "Body", "willpower"]})
    assert 3 == caught.value.message.count("\n- ")
