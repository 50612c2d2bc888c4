"""An option written twice is refused in every system, never the last one winning.

Each tag is the GM's (who may set every option), in the system's example campaign, so
nothing but the repetition refuses it; each sheet is a player's application. Modifiers
(``+1 +2``, stepped's ``env 1 cover 2``) add up, as their form says, and a level-up may
put both its Tiers on one technique by naming it twice: neither is a repeated option.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.base.errors import UserError
from referee.base.limits import DEFAULT_LIMITS
from referee.system import load_system
from referee.testing.conformance import _example_campaign, _post

TAGS = [
    ("stepped", "shoot Kara -> Trooper 1 unaware unaware", "Give unaware once"),
    ("stepped", "melee Kara -> Trooper 2 subdue subdue with baton", "Give subdue once"),
    ("stepped", "npc Bandit: str 2, strength 3, agi 3, end 2, per 2", "strength is given on"),
    ("stepped", "npc Bandit: str 2, agi 3, end 2, per 2, tough 2, tough 3", "is given on line"),
    ("edge", "move Kara cool edge=up edge=never", "Give edge= once"),
    ("pool", "roll Kara dexterity+stealth diff 7 diff 8", "Give diff once"),
    ("pool", "act Dax 2: dexterity+brawl willpower willpower, dexterity+dodge", "Give willpower"),
    ("pool", "task the vault target 10 target 12", "Give target once"),
    ("pool", "task the vault target 10 turns 5 turns 6", "Give turns once"),
    ("pool", "contest a: Kara vs Guard target 5 target 6", "Give target once"),
    ("pool", "task the vault target 10 team Kara, Kara", "Name Kara once"),
    ("pool", "set Kara points 4, points 5", "Name points once"),
    ("pool", "set Kara dex 2, dexterity 3", "Name dexterity once"),
    ("trikus", "test Kara morale=1 morale=2", "Give morale once"),
    ("trikus", "declare Ola empower empower", "Give empower once"),
    ("trikus", "open fight 7 Ola allies=A allies=B", "Give allies once"),
    ("trikus", "open fight 7 Ola difficulty=2 difficulty=3", "Give difficulty once"),
    ("hits", "roll Kara body adv 1 advantage 2", "Give adv once"),
    ("hits", "roll Kara body dis 1 dis 2", "Give dis once"),
    ("hits", "opposed Kara body vs Ogre body tie=all tie=all", "Give tie=all once"),
    ("hits", "duel Kara -> Ogre with body adjust 1 adjust 2", "Give adjust once"),
    ("hits", "duel Kara -> Ogre with body later later", "Give later once"),
    ("hits", "duel 1 roll timer 4 timer 6", "Give timer once"),
    ("hits", "levelup Kara body, mind, highest body, highest mind", "highest attribute once"),
    ("hits", "intermission Kara, Kara", "Name Kara once"),
]


@pytest.mark.parametrize(("system", "text", "why"), TAGS)
def test_an_option_given_twice_is_refused(tmp_path: Path, system: str, text: str, why: str):
    """The GM's tag with one option twice is refused, saying to give it once."""
    loaded = load_system(system)
    campaign = _example_campaign(loaded, tmp_path)
    try:
        refused = _post(campaign, loaded.example_campaign().gm, text, 1)
    finally:
        campaign.close()
    assert isinstance(refused, UserError), refused
    assert why in refused.message


SHEETS = [
    ("stepped", "name: Orla\nstrength: d6\nstr: d8\nagility: d6\nendurance: d6\nperception: d6"),
    ("edge", "name: Orla\ncool: 1\ncool: 2\nhard: 1\nhot: 0\nsharp: 0\nweird: -1"),
    ("pool", "name: Orla\nwits: 2\nwits: 3\nwillpower: 5\nhumanity: 7"),
    ("trikus", "name: Orla\ntier: beginner\ntier: master\nlight: a, b, c\ndark: d"),
    ("hits", "name: Orla\nprimary: body\nprimary: mind\nsecondary: spirit"),
]


@pytest.mark.parametrize(("system", "text"), SHEETS)
def test_a_sheet_field_given_twice_is_refused(system: str, text: str) -> None:
    """An application giving a field on two lines is refused, naming both lines."""
    with pytest.raises(UserError, match=r"Line 3: .* on line 2 already"):
        load_system(system).sheet.parse(text, DEFAULT_LIMITS)


@pytest.mark.parametrize(
    ("system", "text"),
    [
        ("stepped", "name: Orla\nweapon: knife, melee, +1\nweapon: pistol, ranged, 2d6"),
        (
            "trikus",
            "name: Orla\ntier: beginner\nlight: a, b, c\ndark: d\n"
            "item: Rope (helpful)\nitem: Knife (offensive)",
        ),
        ("hits", "name: Orla\nprimary: body\nsecondary: mind\nskill: Lore 1\nskill: Riding 1"),
    ],
)
def test_a_list_may_take_a_line_an_item(system: str, text: str) -> None:
    """Weapons, items and skills are lists: one line each, as many as the sheet has."""
    assert "Orla" == load_system(system).sheet.parse(text, DEFAULT_LIMITS)["name"]
