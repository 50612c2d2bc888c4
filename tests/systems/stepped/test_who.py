"""Who may set what in stepped (referee.systems.stepped.who): the scene's circumstances
(unaware, env/cover, a situational +N) are the GM's; a player's called shot, subdue,
weapon and -N are his."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from referee.base.errors import Forbidden
from referee.base.posts import Post
from referee.pipeline.campaign import Campaign
from referee.pipeline.flow import Referee
from referee.testing import make_campaign, resolve_tag, sheet, tag_context

PLAYER, GM = "kara", "gm"
SHEETS = [
    sheet("Kara Venn", owner=PLAYER),
    sheet("Captain Rhoss", kind="npc", named=True, wounds_survived=3),
    sheet("Trooper 1", kind="npc"),
]
CRAFTS = [
    {
        "name": "Kestrel",
        "craft": "ship",
        "class": "light",
        "weapon": "d8",
        "acceleration": "d6",
        "armour": "d6",
        "sensors": "d6",
        "pilot": "Kara Venn",
        "owner": PLAYER,
    }
]


@pytest.fixture
def campaign(tmp_path: Path):
    opened = make_campaign(tmp_path, SHEETS, crafts=CRAFTS)
    yield opened
    opened.close()


_POSTS = itertools.count(1)
DICE = [3] * 12  # enough for any attack: every die shows 3


def _tag(campaign: Campaign, text: str, dice: Any = (), author: str = PLAYER) -> Any:
    context = tag_context(campaign, author, post=f"t1_who{next(_POSTS)}")
    return resolve_tag(context, text, list(dice))


def _stored(campaign: Campaign) -> dict[str, Any]:
    return {key: dict(record) for key, record in campaign.store.table("characters").items()}


# Each circumstance a player may not write, with the start of its refusal and the tag he
# is told to write instead.
REFUSED = [
    (
        "shoot Kara Venn -> Captain Rhoss unaware",
        "Only a GM may say the target is unaware of the attack (unaware). Attack without "
        "unaware (a GM writes it when Captain Rhoss does not see the attack coming): "
        "[[shoot Kara Venn -> Captain Rhoss]].",
    ),
    (
        "melee Kara -> Trooper 1 unaware with baton",
        "Only a GM may say the target is unaware of the attack (unaware). Attack without "
        "unaware (a GM writes it when Trooper 1 does not see the attack coming): "
        "[[melee Kara -> Trooper 1 with baton]].",
    ),
    (
        "shoot Kara Venn -> Captain Rhoss env -6",
        "Only a GM may set the environment's modifier to the target's defence (env N, "
        "cover N). Attack without env -6 (a GM writes what cover or terrain gives Captain "
        "Rhoss): [[shoot Kara Venn -> Captain Rhoss]].",
    ),
    (
        "shoot Kara -> Trooper 1 cover 2",
        "Only a GM may set the environment's modifier to the target's defence (env N, "
        "cover N). Attack without env +2 (a GM writes what cover or terrain gives Trooper "
        "1): [[shoot Kara -> Trooper 1]].",
    ),
    (
        "shoot Kara -> Captain Rhoss head +4 with blaster",
        "Only a GM may give a roll a bonus (+N). Roll without +4 (a GM may give it; a "
        "called shot to the head takes -4 by the rules; a penalty such as -1 is yours to "
        "write): [[shoot Kara -> Captain Rhoss head with blaster]].",
    ),
    (
        "melee Kara -> Trooper 1 +3",
        "Only a GM may give a roll a bonus (+N). Roll without +3 (a GM may give it; a "
        "penalty such as -1 is yours to write): [[melee Kara -> Trooper 1]].",
    ),
    (
        "roll Kara Venn agility +100",
        "Only a GM may give a roll a bonus (+N). Roll without +100 (a GM may give it; a "
        "penalty such as -1 is yours to write): [[roll Kara Venn agility]].",
    ),
    (
        "stat Kestrel sensors +2",
        "Only a GM may give a roll a bonus (+N). Roll without +2 (a GM may give it; a "
        "penalty such as -1 is yours to write): [[stat Kestrel sensors]].",
    ),
]


@pytest.mark.parametrize(("text", "refusal"), REFUSED)
def test_a_player_may_not_set_the_scenes_circumstances(
    campaign: Campaign, text: str, refusal: str
) -> None:
    """Each is refused before a die falls (no dice are given: a roll would run out),
    saying only a GM may and the tag the player writes instead; nothing is stored."""
    before = _stored(campaign)
    with pytest.raises(Forbidden) as refused:
        _tag(campaign, text)
    assert (refusal, before) == (refused.value.message, _stored(campaign))


def test_a_player_may_not_give_his_cast_a_bonus(tmp_path: Path) -> None:
    """cast Mira Push +1: refused the same way (a mage of the example's kind)."""
    mage = sheet(
        "Mira",
        owner=PLAYER,
        magic=[{"name": "Force", "points": 2, "techniques": [{"name": "Push", "tier": 4}]}],
    )
    campaign = make_campaign(tmp_path, [mage])
    try:
        with pytest.raises(Forbidden, match=r"Only a GM may give a roll a bonus \(\+N\)"):
            _tag(campaign, "cast Mira Push +1")
        gm = _tag(campaign, "cast Mira Push +1", [4, 1], author=GM)
    finally:
        campaign.close()
    assert "cast" == gm.kind


def test_the_gm_writes_unaware_for_a_players_character(campaign: Campaign) -> None:
    """The GM's [[shoot Kara Venn -> Captain Rhoss unaware]]: an automatic hit, no hit roll."""
    attack = _tag(campaign, "shoot Kara Venn -> Captain Rhoss unaware", DICE, GM)
    assert (True, None) == (attack.result.automatic_hit, attack.result.hit_roll)


@pytest.mark.parametrize(
    ("text", "dice", "kind"),
    [
        ("shoot Kara Venn -> Captain Rhoss env -6", DICE, "attack"),
        ("melee Kara -> Trooper 1 cover 1 +2 with baton", DICE, "attack"),
        ("roll Kara Venn agility +100", [4, 1], "stat"),
        ("stat Kestrel sensors +2", [4, 1, 5], "vehicle_stat"),
    ],
)
def test_the_gm_may_set_them_all(campaign: Campaign, text: str, dice: list, kind: str) -> None:
    """The same tags resolve for the GM, on behalf of the player's character."""
    assert kind == _tag(campaign, text, dice, GM).kind


def test_the_gms_bonus_is_rolled(campaign: Campaign) -> None:
    """The GM's +100 on Kara's agility: d8 4 (wild 1) + 100 = 104."""
    assert 104 == _tag(campaign, "roll Kara Venn agility +100", [4, 1], GM).result.total


@pytest.mark.parametrize(
    ("text", "dice", "kind"),
    [
        ("roll Kara Venn agility -1", [4, 1], "stat"),
        ("melee Kara -> Trooper 1 left leg subdue with baton -2", DICE, "attack"),
        ("melee Kara -> Trooper 1 head with baton", DICE, "attack"),
        ("stat Kestrel sensors -1", [4, 1, 5], "vehicle_stat"),
        ("shoot Kara -> Trooper 1 right arm +4 -4", DICE, "attack"),
    ],
)
def test_a_player_keeps_his_called_shot_subdue_weapon_and_penalty(
    campaign: Campaign, text: str, dice: list, kind: str
) -> None:
    """What the seed gives the attacker (a called shot, subduing, his weapon) and a
    penalty he takes on himself (-N, or bonuses that add up to no bonus) are his."""
    assert kind == _tag(campaign, text, dice).kind


def test_a_players_called_shot_takes_the_campaigns_penalty(tmp_path: Path) -> None:
    """head: the hit roll carries the campaign's called_shot_head (-3 here), not his number."""
    campaign = make_campaign(tmp_path, SHEETS, rulings={"called_shot_head": -3})
    try:
        attack = _tag(campaign, "shoot Kara -> Trooper 1 head", DICE)
    finally:
        campaign.close()
    modifiers = [(m.label, m.value) for m in attack.result.hit_roll.modifiers]
    assert [("head shot", -3)] == modifiers


def test_plain_dice_keep_their_plus(campaign: Campaign) -> None:
    """[[roll 2d6+3]] shares the roll verb but is dice notation: the player's +3 stands."""
    assert 12 == _tag(campaign, "roll 2d6+3", [4, 5]).result.total


def test_help_lists_the_gm_only_options(campaign: Campaign) -> None:
    """[[help shoot]] says what only a GM may write, and what the player may."""
    reply = Referee(campaign).referee(Post("t1_help", "t3_thread", PLAYER, "[[help shoot]]", 1.0))
    assert (
        "* Only a GM may write: `unaware`, `env N or cover N`, `+N`",
        "* A player may write: `head, arm or leg`, `subdue`, `with <weapon>`, `-N`",
    ) == tuple(
        line
        for line in reply.text.splitlines()
        if line.startswith(("* Only a GM may write", "* A player may write"))
    )[::-1]
