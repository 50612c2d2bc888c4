"""Stepped's sheet parser: every number bounded where it is read, every name visible."""

import pytest
from hypothesis import given

from referee.base.errors import UserError
from referee.systems.stepped.application import parse_sheet
from referee.testing.hostile import sheet_texts


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("strength: 99999999999999999999", "Strength must be a whole number from -99 to 99"),
        ("armour: 99999999999999999999", "Armour must be a whole number from -99 to 99"),
        ("armor: ²", "Armour must be a whole number from -99 to 99"),
        ("str: ³", "Strength must be a whole number from -99 to 99"),
        ("agility: d99999999999999999999", "Agility is a die from d4, d6, d8, d10, d12, d20"),
        ("tough: ①", "Wounds survived must be a whole number from -99 to 99"),
        ("tough: 100", "Wounds survived must be a whole number from -99 to 99"),
        ("magic: Force 99999999999999999999", "Magic points must be a whole number"),
        ("weapon: gun, ranged, 99999999999999999999d6", "The number of damage dice must be"),
        ("weapon: gun, ranged, 2d99999999999", "A damage die's sides must be"),
        ("weapon: knife, melee, +99999999999999999999", "A weapon's modifier must be"),
        ("name: \u200b\u200d", "the name shows nothing but invisible characters"),
        ("name: \u202e", "the name shows nothing but invisible characters"),
        ("weapon: \u200b, melee, +1", "the weapon's name shows nothing"),
    ],
)
def test_hostile_values_are_refused_with_the_line_and_the_allowed_range(line, expected):
    """Huge numbers, look-alike digits and invisible names are problems, named by line."""
    with pytest.raises(UserError) as caught:
        parse_sheet(f"race: human\n{line}", owner_kind="npc")
    assert "Line 2: " + expected in caught.value.message


def test_ordinary_sheet_numbers_still_read():
    """Points, dice, armour, wounds survived and modifiers within range read as before."""
    record = parse_sheet(
        "strength: 2\nagility: d8\narmour: 1\ntough: 3\nweapon: knife, melee, -1\n"
        "weapon: gun, ranged, 2d6+1\nmagic: Force 2\ntechnique: Mind Trick d6",
        owner_kind="npc",
    )
    expected = ({"strength": 2, "agility": 3}, 1, 3, -1, "2d6+1", 2)
    assert expected == (
        record["stats"],
        record["armour"],
        record["wounds_survived"],
        record["weapons"][0]["modifier"],
        record["weapons"][1]["damage"],
        record["magic"][0]["points"],
    )


@given(sheet_texts())
def test_parse_sheet_returns_a_record_or_a_user_error(text):
    """Whatever the sheet says, parse_sheet returns a record or raises UserError only,
    and every number it returns is within the sheet bound."""
    try:
        record = parse_sheet(text)
    except UserError:
        return
    numbers = [*record["stats"].values(), record.get("armour", 0)]
    numbers += [weapon.get("modifier", 0) for weapon in record["weapons"]]
    numbers += [magic["points"] for magic in record["magic"]]
    assert all(type(n) is int and -99 <= n <= 99 for n in numbers)


def test_a_players_sheet_may_not_set_its_wound_track_or_kind():
    """A PC's sheet with tough 0 and kind npc is told both, with the rest of its problems."""
    with pytest.raises(UserError) as caught:
        parse_sheet("name: Orla Vex\ntough: 0\nkind: npc\nagility: d7")
    message = caught.value.message
    assert (True, True, True) == (
        "Line 2: a player character always survives 3 wounds" in message,
        "Line 3: a player's sheet is always a player character's" in message,
        "Line 4: " in message,
    )
