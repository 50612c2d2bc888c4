"""hits sheets: creation, validation of every problem at once, GM edits, versioned JSON."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.base.errors import RuleViolation
from referee.systems.hits.rulings import Rulings
from referee.systems.hits.sheet import (
    Attribute,
    Character,
    SavedGains,
    Stake,
    Standing,
    Wager,
    character_from_dict,
    character_problems,
    character_to_dict,
    create_character,
    creation_problems,
    edit_counter,
    new_character,
)


def test_new_character_attributes_and_health():
    """Primary 4, secondary 3, the rest 2; Health 2 × (Body + Level)."""
    mira = new_character("Mira", Attribute.SPIRIT, Attribute.BODY, level=3)
    assert (3, 2, 4, 2, 3, 12) == (
        mira.body,
        mira.talent,
        mira.spirit,
        mira.mind,
        mira.level,
        mira.health,
    )


def test_starting_level_follows_the_campaign_scale():
    """The start_level ruling sets a new character's Level (the campaign scale)."""
    assert (
        4
        == new_character("A", Attribute.BODY, Attribute.MIND, rulings=Rulings(start_level=4)).level
    )


def test_primary_and_secondary_must_differ():
    """The same attribute cannot be primary and secondary."""
    with pytest.raises(RuleViolation, match="both primary and secondary"):
        new_character("A", Attribute.BODY, Attribute.BODY)


def test_application_lists_every_problem():
    """An application with a bad array and an over-long name gets both problems at once."""
    attributes = {Attribute.BODY: 4, Attribute.TALENT: 4, Attribute.SPIRIT: 2, Attribute.MIND: 2}
    with pytest.raises(RuleViolation) as caught:
        create_character("K" * 65, attributes)
    assert "2 problems" in caught.value.message


def test_application_with_names_as_text():
    """Attributes named as text (as a parsed tag gives them) are accepted."""
    assert 4 == new_character("Kara", "talent", "body").talent


def test_creation_array_is_checked():
    """Attributes other than one 4, one 3 and two 2s are refused at creation."""
    good = {Attribute.BODY: 2, Attribute.TALENT: 3, Attribute.SPIRIT: 4, Attribute.MIND: 2}
    assert [] == creation_problems(good)
    assert 1 == len(creation_problems({**good, Attribute.MIND: 3}))
    assert ["mind is missing"] == creation_problems(
        {k: v for k, v in good.items() if k != Attribute.MIND}
    )


def test_every_problem_is_listed_at_once():
    """A sheet with three faults names all three."""
    bad = Character("Kara", body=-1, talent=2, spirit=2, mind=2, level=7, stress=-2)
    problems = character_problems(bad)
    assert 3 == len(problems)
    with pytest.raises(RuleViolation, match="3 problems"):
        edit_counter(bad, "xp", 0)


def test_npcs_hold_no_influence():
    """An NPC with Influence is an impossible sheet."""
    ogre = new_character("Ogre", Attribute.BODY, Attribute.MIND, player=False)
    assert ["only player characters hold Influence"] == character_problems(
        replace(ogre, influence=1)
    )


def test_edit_counter_refuses_unknown_and_bad_values():
    """The GM's edits name the counters when one is unknown and refuse impossible values."""
    kara = new_character("Kara", Attribute.BODY, Attribute.MIND)
    assert 5 == edit_counter(kara, "influence", 5).influence
    with pytest.raises(RuleViolation, match="the counters are"):
        edit_counter(kara, "luck", 1)
    with pytest.raises(RuleViolation, match="Level"):
        edit_counter(kara, "level", 9)


def test_json_round_trip_with_every_field():
    """A sheet with stakes, lost wagers and saved gains survives JSON unchanged."""
    kara = replace(
        new_character("Kara", Attribute.BODY, Attribute.MIND),
        xp=7,
        stress=2,
        influence=3,
        standing=Standing.KNOCKOUT_PENDING,
        stakes=(Stake(Wager.LIFE),),
        lost_wagers=(Stake(Wager.SKILL, "Swordsmanship"),),
        legend=True,
        saved=SavedGains(2, 2, 1),
        unchosen_levels=1,
    )
    assert kara == character_from_dict(character_to_dict(kara))


def test_stored_sheet_problems_are_listed_together():
    """A corrupt stored sheet names its wrong version, its wrong types and its missing keys."""
    data = character_to_dict(new_character("Kara", Attribute.BODY, Attribute.MIND))
    data["version"] = 99
    data["level"] = "two"
    del data["xp"]
    with pytest.raises(RuleViolation) as caught:
        character_from_dict(data)
    message = caught.value.message
    assert "3 problems" in message and "version 99" in message and "'xp'" in message


def test_stored_sheet_must_be_an_object():
    """A stored sheet that is not a JSON object is refused, not crashed on."""
    with pytest.raises(RuleViolation, match="JSON object"):
        character_from_dict([1, 2])


def test_a_nameless_ability_is_refused_as_an_ability():
    """A blank trait name reads "an ability's name", not "a ability's"."""
    kara = replace(new_character("Kara", Attribute.BODY, Attribute.MIND), abilities=(("", 1),))
    assert ["an ability's name has 1 to 64 characters"] == character_problems(kara)
