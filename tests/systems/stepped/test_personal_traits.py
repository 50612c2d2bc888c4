"""Issue 21: personal traits ("личные особенности") on a sheet, approved and rolled like race."""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import UserError
from referee.base.markdown import escape_markdown
from referee.base.posts import Post
from referee.cli import main
from referee.pipeline.flow import Referee
from referee.systems.stepped import (
    Character,
    Kind,
    PersonalTrait,
    Rules,
    Stat,
    character_from_record,
    character_to_record,
    roll_trait,
    validate_character,
)
from referee.systems.stepped.application import parse_sheet
from referee.testing import sheet

from .test_seed_fidelity import post

KEEN = {"name": "Keen eyes", "modifiers": {"perception": 1}}
PLAIN_SHEET = sheet(
    "Kara Venn", owner="kara", stats={"strength": 3, "agility": 3, "endurance": 3, "perception": 2}
)
KEEN_SHEET = {**PLAIN_SHEET, "name": "Kara Keen", "traits": [KEEN]}
KEEN_RECORD = {key: value for key, value in KEEN_SHEET.items() if key != "owner"}


def test_a_trait_line_reads_its_name_and_every_stat_it_changes():
    """`trait: Keen eyes, per +1, agility -2` is one trait with two modifiers."""
    record = parse_sheet("trait: Keen eyes, per +1, agility -2\ntrait: Stubborn, end 2")
    assert [
        {"name": "Keen eyes", "modifiers": {"perception": 1, "agility": -2}},
        {"name": "Stubborn", "modifiers": {"endurance": 2}},
    ] == record["traits"]


def test_every_bad_trait_line_is_named_at_once():
    """A bad stat, an out-of-range number and a missing number are each told, by line."""
    with pytest.raises(UserError) as caught:
        parse_sheet("trait: Keen eyes, luck +1\ntrait: Giant, strength +3\ntrait: Quick, agility")
    message = caught.value.message
    assert (True, True, True) == (
        "Line 1: 'luck' is not a stat" in message,
        "Line 2: The trait's strength modifier must be a whole number from -2 to 2" in message,
        "Line 3: 'agility' is not a stat and a number" in message,
    )


def test_a_trait_without_modifiers_is_told_the_form():
    """`trait: Lucky` (no stat) is refused with the right form."""
    with pytest.raises(UserError) as caught:
        parse_sheet("trait: Lucky")
    assert "Line 1: write a trait as `trait: Keen eyes, perception +1`" in caught.value.message


def test_validation_caps_each_trait_and_names_every_problem():
    """A stored trait beyond ±2, one with no stat and two of one name are all problems."""
    kara = character_from_record(
        {
            **KEEN_RECORD,
            "traits": [
                {"name": "Giant", "modifiers": {"strength": 3}},
                {"name": "Empty", "modifiers": {}},
                {"name": "giant", "modifiers": {"agility": -1}},
            ],
        }
    )
    problems = validate_character(kara, Rules())
    assert [
        "The trait Giant gives strength +3; a personal trait gives at most ±2 to a stat.",
        "The trait Empty changes no stat; give it one, like `perception +1`.",
        "Two personal traits are called 'giant'; give each its own name.",
    ] == problems


def test_a_trait_survives_the_record_round_trip():
    """Writing a character with a trait and reading it back gives the same character."""
    kara = character_from_record(KEEN_RECORD)
    expected = (PersonalTrait("Keen eyes", {Stat.PERCEPTION: 1}),)
    assert (expected, kara) == (kara.traits, character_from_record(character_to_record(kara)))


def test_a_bad_stored_trait_is_a_record_problem():
    """A stored trait naming no stat it knows is refused with where it is."""
    with pytest.raises(UserError) as caught:
        character_from_record({**KEEN_RECORD, "traits": [{"name": "X", "modifiers": {"luck": 1}}]})
    assert "'luck' is not a stat" in caught.value.message


def test_an_application_shows_its_traits_escaped_on_the_card(open_campaign):
    """An [[apply]] post's card lists each trait with its modifiers for the GM to approve."""
    body = (
        "[[apply]]\n\n```\nname: Orla Vex\nbackground: experienced\nstrength: 2\nagility: 2\n"
        "endurance: 1\nperception: 2\nmagic: Force 2\ntechnique: Telekinesis d4\n"
        "trait: *Keen* eyes, perception +1, agility -1\n```\n"
    )
    outcome = Referee(open_campaign()).referee(Post("t1_app", "t3_t", "orla", body, 1.0))
    row = f"| Trait: {escape_markdown('*Keen* eyes')} | perception +1, agility \u22121 |"
    assert (True, True) == (row in outcome.text, "Awaiting GM approval" in outcome.text)


def test_a_trait_adds_to_the_roll_and_to_its_odds(open_campaign):
    """Keen eyes +1 on a d6 perception: a 4 totals 5, at the odds a bare 4 has (3/4)."""
    campaign = open_campaign([PLAIN_SHEET, KEEN_SHEET])
    keen = post(campaign, "kara", "roll Kara Keen perception", [4, 2])
    plain = post(campaign, "kara", "roll Kara Venn perception", [4, 2])
    labels = [(m.label, m.value) for m in keen.result.modifiers]
    assert ([("Keen eyes", 1)], 5, 4, Fraction(3, 4), Fraction(3, 4)) == (
        labels,
        keen.result.total,
        plain.result.total,
        keen.chance,
        plain.chance,
    )


def test_a_trait_applies_only_to_its_own_stat():
    """A perception trait leaves an agility roll alone."""
    kara = Character(
        "Kara",
        Kind.PC,
        dict.fromkeys(Stat, 2),
        wounds_survived=3,
        traits=(PersonalTrait("Keen eyes", {Stat.PERCEPTION: 1}),),
    )
    roll = roll_trait(kara, [Stat.AGILITY], Rules(), FixedDice([4, 2]))
    assert ((), 4) == (roll.modifiers, roll.total)


def test_referee_roll_prints_the_trait_in_the_total_and_the_odds(open_campaign, tmp_path, capsys):
    """`referee roll --dice 4,2` shows +1 (Keen eyes), a total of 5 and 75% odds."""
    open_campaign([KEEN_SHEET]).close()
    assert 0 == main(
        ["--campaign", str(tmp_path), "roll", "[[roll Kara Keen perception]]", "--dice", "4,2"]
    )
    out = capsys.readouterr().out
    assert (True, True) == (
        "Kara Keen perception d6:4 wild d6:~~2~~ +1 (Keen eyes) = **5**" in out,
        "(this high or higher: 75.0%)" in out,
    )
