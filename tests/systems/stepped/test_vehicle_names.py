"""A misspelt or unknown vehicle, read back as a player reads the reply to his post.

Each test referees a post the way ``referee batch`` and the live bot do.
"""

from __future__ import annotations

import pytest

from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.testing import sheet

SHEETS = [
    sheet("Kara Venn", owner="kara"),
    sheet("Trooper 1", kind="npc"),
]


def _craft(name: str, **fields: object) -> dict[str, object]:
    craft: dict[str, object] = {
        "name": name,
        "craft": "vehicle",
        "class": "heavy",
        "weapon": "d12",
        "speed": "d4",
        "armour": "d12",
        "sensors": "d6",
    }
    craft.update(fields)
    return craft


CRAFTS = [
    _craft("Dune Crawler"),
    _craft("Raider Speeder 1", **{"class": "light", "speed": "d6", "armour": "d4"}),
    _craft("Raider Speeder 2", **{"class": "light", "speed": "d6", "armour": "d4"}),
    _craft("Shadow Barge"),
]


@pytest.fixture
def referee(open_campaign) -> Referee:
    """A campaign with characters, vehicles, and the GM's Shadow Barge known to GMs only."""
    campaign = open_campaign(SHEETS, crafts=CRAFTS)
    campaign.store.table("visibility").put("shadow barge", {"hidden": True})
    return Referee(campaign)


def _problem(referee: Referee, body: str, author: str = "gm") -> str:
    """The reply's problem line (its Markdown escapes undone), as a player reads it."""
    text = referee.referee(Post("t1_a", "t3_thread", author, body, 1.0)).text
    line = next(line for line in text.splitlines() if "not resolved" in line)
    return line.split("): ", 1)[1].replace("\\", "")


@pytest.mark.parametrize(
    "body",
    [
        "[[stat Dune Crawlr armour]]",
        "[[shoot Kara -> Dune Crawlr]]",
        "[[shoot Dune Crawlr -> Kara]]",
        "[[init Dune Crawlr, Kara]]",
        "[[stat Kestrel sensors vs Dune Crawlr]]",
    ],
)
def test_a_misspelt_vehicle_is_called_a_vehicle_and_the_right_one_suggested(referee, body) -> None:
    """Wherever a tag names a craft, a typo in it says no vehicle is named so, and the nearest."""
    if "Kestrel" in body:  # a craft that is there, to roll against the misspelt one
        body = body.replace("Kestrel", "Dune Crawler")
    expected = "No vehicle or ship is named 'Dune Crawlr'. Did you mean Dune Crawler?"
    assert expected == _problem(referee, body)


def test_an_unknown_vehicle_in_a_stat_roll_points_to_the_roster(referee) -> None:
    """[[stat Zzz armour]]: nothing is close, so the reply says where the crafts are listed."""
    expected = (
        "No vehicle or ship is named 'Zzz'. Check the spelling; the roster page lists the "
        "campaign's vehicles and ships."
    )
    assert expected == _problem(referee, "[[stat Zzz armour]]")


def test_a_vehicle_stat_roll_never_suggests_a_character(referee) -> None:
    """[[stat Kara Ven armour]] is near Kara Venn, but a stat roll is a craft's: no suggestion."""
    assert "Kara" not in _problem(referee, "[[stat Kara Ven armour]]").replace("'Kara Ven'", "")


def test_a_first_word_two_vehicles_share_asks_for_the_full_name(referee) -> None:
    """[[stat Raider armour]] could be either speeder: both are named, no 'No character'."""
    expected = "Raider is ambiguous: Raider Speeder 1, Raider Speeder 2 — write the full name."
    assert expected == _problem(referee, "[[stat Raider armour]]")


def test_a_misspelt_character_in_a_shot_is_still_called_a_character(referee) -> None:
    """[[shoot Kara -> Troopr 1]]: the nearest name is a character, so the reply says character."""
    expected = "No character is named 'Troopr 1'. Did you mean Trooper 1?"
    assert expected == _problem(referee, "[[shoot Kara -> Troopr 1]]")


@pytest.mark.parametrize("body", ["[[stat Shadow Barje armour]]", "[[shoot Kara -> Shadow Barje]]"])
def test_a_hidden_npc_vehicle_is_not_leaked_by_the_suggestion(referee, body) -> None:
    """A player's typo near the GM's hidden Shadow Barge is not answered with its name."""
    problem = _problem(referee, body, author="kara")
    assert ("named 'Shadow Barje'", False) == (
        "named 'Shadow Barje'" if "named 'Shadow Barje'" in problem else problem,
        "Shadow Barge" in problem,
    )


def test_a_gm_in_private_is_offered_the_hidden_vehicle(referee) -> None:
    """The same typo in a GM's private message is answered with the hidden craft's name."""
    text = referee.referee(
        Post("t4_m", "", "gm", "[[stat Shadow Barje armour]]", 1.0), private=True
    ).text
    assert "Did you mean Shadow Barge?" in text.replace("\\", "")
