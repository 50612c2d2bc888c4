"""Trikus state: new characters checked at once, and the versioned JSON a store keeps."""

from __future__ import annotations

import json

import pytest

from referee.base.errors import RuleViolation, StoreError
from referee.systems.trikus.changes import Change, ChangeKind, apply
from referee.systems.trikus.combat import start_fight
from referee.systems.trikus.state import (
    Character,
    Fight,
    Item,
    Party,
    Pool,
    Tier,
    Trait,
    new_character,
)


def test_new_character_lines_and_sides_follow_the_tier() -> None:
    """A Master has one 3-die line and writes 1 Light and 3 Dark sides."""
    master = new_character(
        {
            "name": "Ola",
            "player": "u",
            "tier": "master",
            "light_sides": ["wise"],
            "dark_sides": ["a", "b", "c"],
            "allies": ["R2"],
            "equipment": [
                {"name": "Saber", "traits": ["offensive", "sith"], "known": [True, False]}
            ],
        }
    )
    assert (3,) == tuple(line.dice for line in master.lines)
    assert Item("Saber", (Trait.OFFENSIVE, Trait.SITH), (True, False)) == master.equipment[0]


def test_every_problem_of_an_application_is_reported() -> None:
    """Wrong side counts, a bad trait and an unknown key are all listed in one refusal."""
    with pytest.raises(RuleViolation) as refusal:
        new_character(
            {
                "name": "Ola",
                "player": "u",
                "tier": "beginner",
                "light_sides": ["a"],
                "dark_sides": [],
                "equipment": [{"name": "Box", "traits": ["cursed"]}],
                "race": "human",
            }
        )
    message = refusal.value.message
    assert "4 problems" in message
    assert "'race' is not part of a trikus sheet" in message
    assert "a beginner writes 3 Light side(s), not 1" in message
    assert "a beginner writes 1 Dark side(s), not 0" in message
    assert "item Box has a trait that does not exist" in message


def test_party_survives_json(party: Party) -> None:
    """to_dict is plain JSON, and from_dict gives the same party back, fight included."""
    party = apply(
        party, [Change(ChangeKind.LOSE_LINE, "P", 1, "2"), Change(ChangeKind.DARK_GAINED, "Z", 1)]
    )
    fight = start_fight(4, gm_allies=("guard",), difficulty=5, master_npc=True)
    party = Party(
        party.characters,
        2,
        fight.__class__(**{**fight.__dict__, "pools": (Pool("Z", 1, ("droid",)),)}),
        frozenset({"Vader"}),
    )
    assert party == Party.from_dict(json.loads(json.dumps(party.to_dict())))


def test_character_and_fight_records_survive_json(party: Party) -> None:
    """Each character and a fight are their own versioned records, as a store keeps them."""
    kara = party.character("Z")
    assert kara == Character.from_dict(json.loads(json.dumps(kara.to_dict())))
    fight = start_fight(3, difficulty=4)
    assert fight == Fight.from_dict(json.loads(json.dumps(fight.to_dict())))
    with pytest.raises(StoreError, match="damaged"):
        Character.from_dict({"version": 1, "name": "x"})


def test_an_unknown_version_is_refused(party: Party) -> None:
    """A store written by a newer referee is refused rather than misread."""
    data = {**party.to_dict(), "version": 99}
    with pytest.raises(StoreError, match="version 99"):
        Party.from_dict(data)


def test_tiers_advance_and_stop_at_master() -> None:
    """A Beginner advances to Advanced, an Advanced to Master, a Master stays."""
    assert [Tier.ADVANCED, Tier.MASTER, Tier.MASTER] == [t.advanced() for t in Tier]
