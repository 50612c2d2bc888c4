"""Scenes, Tension, chapters and timers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.base.errors import RuleViolation, UnknownName
from referee.systems.hits.scene import (
    CampaignClock,
    Mode,
    advance_timer,
    create_timer,
    edit_timer,
    end_scene,
    remove_timer,
    set_tension,
    start_chapter,
    start_scene,
)
from referee.systems.hits.sheet import Attribute, Stake, Standing, Wager, new_character

KARA = new_character("Kara", Attribute.BODY, Attribute.MIND)


def test_scene_starts_at_tension_one_and_returns_to_it():
    """Tension builds in a scene and is back to 1 when it ends, and in the next scene."""
    clock = set_tension(start_scene(CampaignClock(), (), Mode.COMBAT).clock, 3).clock
    assert 3 == clock.scene.tension
    ended = end_scene(clock, ())
    assert (1, False) == (ended.clock.scene.tension, ended.clock.scene.open)
    assert (1, 2) == (
        start_scene(clock, (), Mode.UNSTRUCTURED).clock.scene.tension,
        start_scene(clock, (), Mode.UNSTRUCTURED).clock.scene.number,
    )


def test_scene_end_brings_back_the_knocked_out_and_settles_stakes():
    """A knocked-out character is back for the next scene; this scene's stakes are settled."""
    out = replace(KARA, standing=Standing.KNOCKED_OUT, stakes=(Stake(Wager.LIFE),))
    clock = start_scene(CampaignClock(), (), Mode.COMBAT).clock
    (back,) = end_scene(clock, [out]).characters
    assert (Standing.ACTIVE, ()) == (back.standing, back.stakes)


def test_tension_needs_a_scene_and_is_at_least_one():
    """Tension outside a scene, or below 1, is refused."""
    with pytest.raises(RuleViolation, match="No scene"):
        set_tension(CampaignClock(), 2)
    with pytest.raises(RuleViolation, match="from 1"):
        set_tension(start_scene(CampaignClock(), (), Mode.COMBAT).clock, 0)


def test_a_running_chapter_must_end_before_the_next():
    """Starting a chapter while one runs is refused (ending it is what awards XP)."""
    clock = start_chapter(CampaignClock(), ()).clock
    with pytest.raises(RuleViolation, match="end it first"):
        start_chapter(clock, ())


def test_timers_have_even_segments():
    """A timer of an odd number of segments is refused."""
    with pytest.raises(RuleViolation, match="even"):
        create_timer(CampaignClock(), "Chase", 5)


def test_filling_a_timer_fires_and_empties_it():
    """Filling the last segment fires the event and empties the timer."""
    clock = create_timer(CampaignClock(), "Chase", 4, "they escape").clock
    step = advance_timer(clock, "Chase", 3)
    assert ((), 3) == (step.fired, step.clock.timers[0].filled)
    final = advance_timer(step.clock, "chase")
    assert ("they escape", 0) == (final.fired[0].event, final.clock.timers[0].filled)


def test_timer_edits_and_removal():
    """The GM edits a timer within its segments and removes it; unknown names are listed."""
    clock = create_timer(CampaignClock(), "Chase", 4).clock
    assert 2 == edit_timer(clock, "Chase", filled=2).clock.timers[0].filled
    with pytest.raises(RuleViolation, match="filled is 0 to 3"):
        edit_timer(clock, "Chase", filled=4)
    assert () == remove_timer(clock, "Chase").clock.timers
    with pytest.raises(UnknownName, match="the timers are: Chase"):
        advance_timer(clock, "Alarm")


def test_timer_names_are_unique():
    """Two timers may not share a name, whatever its case."""
    clock = create_timer(CampaignClock(), "Chase", 4).clock
    with pytest.raises(RuleViolation, match="already exists"):
        create_timer(clock, "chase", 6)
