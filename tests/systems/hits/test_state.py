"""The campaign state as versioned JSON: round trips, and every stored problem at once."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import RuleViolation
from referee.systems.hits.duels import DuelBook, declare_duel, resolve_duel
from referee.systems.hits.scene import CampaignClock, Mode, create_timer, start_chapter, start_scene
from referee.systems.hits.sheet import Attribute, new_character
from referee.systems.hits.state import CampaignState, state_from_dict, state_to_dict


def busy_state() -> CampaignState:
    """A state with a chapter, a combat scene, a timer, a spend and a duel awaiting a choice."""
    kara = replace(new_character("Kara", Attribute.BODY, Attribute.MIND), influence=3)
    ogre = new_character("Ogre", Attribute.BODY, Attribute.TALENT, player=False)
    clock = start_chapter(CampaignClock(), ()).clock
    clock = start_scene(clock, (), Mode.COMBAT).clock
    clock = create_timer(clock, "Reinforcements", 6, "more ogres").clock
    duel = declare_duel(DuelBook(), clock, kara, ogre, 2, 9)
    lost = resolve_duel(
        duel.book, duel.clock, 1, duel.characters[0], ogre, FixedDice([1, 1] + [4] * 9)
    )
    return CampaignState(lost.clock, lost.book)


def test_round_trip_through_json_text():
    """A busy state survives being written as JSON text and read back, unchanged."""
    state = busy_state()
    assert state == state_from_dict(json.loads(json.dumps(state_to_dict(state))))


def test_stored_problems_are_listed_together():
    """A stored state with an odd timer and an unknown mode names both problems."""
    data = state_to_dict(busy_state())
    data["timers"][0]["segments"] = 5
    data["scene"]["mode"] = "battle"
    with pytest.raises(RuleViolation) as caught:
        state_from_dict(data)
    assert "2 problems" in caught.value.message
    assert "battle" in caught.value.message and "Reinforcements" in caught.value.message


def test_future_version_is_refused():
    """A state written by a newer format is refused, naming both versions."""
    data = state_to_dict(CampaignState())
    data["version"] = 2
    with pytest.raises(RuleViolation, match="version 2"):
        state_from_dict(data)
