"""Pool GM edits: traits, Willpower points and counters, refused to players, checked whole."""

from __future__ import annotations

import pytest

from referee.base.errors import Forbidden, RuleViolation
from referee.systems.changes import Change, apply_changes
from referee.systems.pool.edits import edit_state, edit_traits
from referee.systems.pool.sheet import Sheet, State, TraitLists

KARA = Sheet("Kara", {"dexterity": 3, "stealth": 4}, willpower=6, humanity=7)


def test_the_gm_edits_traits_and_the_changes_rebuild_the_sheet() -> None:
    """Stealth 4 -> 5 and Humanity 7 -> 6: the sheet changes name both."""
    edit = edit_traits(KARA, State(6), {"stealth": 5, "hum": 6}, TraitLists(), by_gm=True)
    assert {"dexterity": 3, "stealth": 5} == edit.sheet.traits
    assert edit.sheet == apply_changes(KARA, "sheet", "Kara", edit.changes)
    assert Change("sheet", "Kara", "humanity", 7, 6) in edit.changes


def test_lowering_willpower_lowers_the_points_in_hand() -> None:
    """Willpower 6 -> 3 with 5 points in hand leaves 3 points."""
    edit = edit_traits(KARA, State(5), {"willpower": 3}, TraitLists(), by_gm=True)
    assert Change("character", "Kara", "willpower_points", 5, 3) in edit.changes


def test_trait_edits_report_every_problem() -> None:
    """A rating of 6 and an unknown trait, in one refusal."""
    with pytest.raises(RuleViolation, match="has 2 problems"):
        edit_traits(KARA, State(6), {"stealth": 6, "lockpicking": 2}, TraitLists(), by_gm=True)


def test_the_gm_gives_willpower_points_back_and_keeps_counters() -> None:
    """Points 1 -> 6, health set, notes removed."""
    state = State(1, counters={"notes": "hunted"})
    edit = edit_state(KARA, state, True, willpower_points=6, counters={"health": 7, "notes": None})
    assert State(6, counters={"health": 7}) == edit.state
    assert edit.state == apply_changes(state, "character", "Kara", edit.changes)


def test_points_above_the_rating_are_refused() -> None:
    """Seven points on Willpower 6 is refused with the range."""
    with pytest.raises(RuleViolation, match="0 to 6"):
        edit_state(KARA, State(1), True, willpower_points=7)


def test_players_may_not_edit() -> None:
    """Both edits are the GM's: a player is told so."""
    with pytest.raises(Forbidden, match="Only the GM edits traits"):
        edit_traits(KARA, State(6), {"stealth": 5}, TraitLists(), by_gm=False)
    with pytest.raises(Forbidden, match="Only the GM edits Willpower points"):
        edit_state(KARA, State(6), False, willpower_points=6)
