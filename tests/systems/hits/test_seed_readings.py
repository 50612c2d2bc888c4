"""hits as seed 004 reads: one attribute's dice, skills as Advantage, groups of two or
more, a new Benefit; and what only the GM decides: Advantage, rolls among his NPCs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.base.errors import Forbidden, RuleViolation, UserError
from referee.cli import main
from referee.pipeline.campaign import Campaign
from referee.testing.campaign import make_campaign
from referee.testing.resolving import resolve_tag, tag_context

OWNER, STRANGER, GM = "kara_plays", "passer_by", "gm"


def _sheets(**kara: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": "Kara Venn",
            "owner": OWNER,
            "primary": "body",
            "secondary": "mind",
            "skills": {"Swordsmanship": 2},
            "benefits": {"Fearless": 1},
            **kara,
        },
        {"name": "Ogre", "kind": "npc", "level": 1, "body": 4, "talent": 2, "spirit": 1, "mind": 1},
        {
            "name": "Troll",
            "kind": "npc",
            "level": 1,
            "body": 3,
            "talent": 1,
            "spirit": 1,
            "mind": 1,
        },
    ]


@pytest.fixture
def campaign(tmp_path: Path):
    opened = make_campaign(tmp_path, _sheets(), system="hits")
    yield opened
    opened.close()


def _tag(campaign: Campaign, text: str, dice=(), author: str = OWNER, body: str = ""):
    return resolve_tag(tag_context(campaign, author, thread="t3_a", body=body), text, dice)


# -- the roll as the seed writes it ----------------------------------------------------


def test_a_roll_throws_one_attribute_and_a_skill_adds_advantage(campaign: Campaign) -> None:
    """body 4 + Swordsmanship: 4 dice at Advantage 1 (a skill "para adicionar vantagem")."""
    view = _tag(campaign, "roll Kara body + Swordsmanship", [3, 3, 2, 1]).result
    assert (4, 1, 2) == (view.side.spec.dice, view.side.spec.advantage, view.hits)


def test_two_attributes_in_one_roll_are_refused(campaign: Campaign) -> None:
    """body + mind: refused, the roll throws the most relevant attribute only."""
    with pytest.raises(RuleViolation, match="one attribute, the most relevant, not 2"):
        _tag(campaign, "roll Kara body + mind", [6] * 7)


def test_a_roll_without_an_attribute_is_refused(campaign: Campaign) -> None:
    """Fearless alone: refused, naming the attributes to roll it with."""
    with pytest.raises(RuleViolation, match=r"Name the attribute the roll throws \(body"):
        _tag(campaign, "roll Kara Fearless", [6])


def test_a_ranks_advantage_under_traits_in_roll_rank(tmp_path: Path) -> None:
    """traits_in_roll = "rank": Swordsmanship 2 adds Advantage 2 to body's 4 dice."""
    campaign = make_campaign(tmp_path, _sheets(), system="hits", rulings={"traits_in_roll": "rank"})
    view = _tag(campaign, "roll Kara body + Swordsmanship", [2, 2, 2, 2]).result
    assert (4, 2, 4) == (view.side.spec.dice, view.side.spec.advantage, view.hits)


def test_a_group_of_one_is_refused(campaign: Campaign) -> None:
    """The seed: a group roll is "dois ou mais"; one member is told to roll."""
    with pytest.raises(RuleViolation, match="two or more"):
        _tag(campaign, "group Kara mind", [6, 6, 6])


def test_a_level_up_benefit_is_a_new_one(tmp_path: Path) -> None:
    """The seed: "Um novo Benefício": Fearless again is refused; a new Benefit is taken."""
    campaign = make_campaign(tmp_path, _sheets(unchosen_levels=1), system="hits")
    with pytest.raises(RuleViolation, match="already has the Benefit Fearless"):
        _tag(campaign, "levelup Kara body, mind, benefit Fearless")
    _tag(campaign, "levelup Kara body, mind, benefit Stubborn")
    sheet = campaign.store.table("characters").get("kara venn")["sheet"]
    assert [["Fearless", 1], ["Stubborn", 1]] == sheet["benefits"]


def test_approving_above_the_start_level_still_checks_the_attributes(campaign: Campaign) -> None:
    """6/6/6/6 approved with level 3 is refused: two Levels add at most 6 to 4/3/2/2."""
    sheet = "[[apply]]\n\n```\nname: Orla\nbody: 6\ntalent: 6\nspirit: 6\nmind: 6\n```"
    resolve_tag(tag_context(campaign, "orla", body=sheet), "apply")
    with pytest.raises(UserError, match="2 Levels add at most 6"):
        _tag(campaign, "approve Orla with level 3", author=GM)


# -- what only the GM decides (the owner, a stranger, the GM) ---------------------------

ADVANTAGE = [
    "roll Kara body adv 3",
    "quick Kara body adv 50",
    "opposed Kara body adv 1 vs Ogre body",
]


@pytest.mark.parametrize("text", ADVANTAGE)
def test_the_owner_may_not_give_himself_advantage(campaign: Campaign, text: str) -> None:
    """RULES §5.1 makes Advantage a GM's: Kara's player is refused, told to ask the GM."""
    with pytest.raises(Forbidden, match="Only a GM may give Advantage"):
        _tag(campaign, text, [6] * 60)


@pytest.mark.parametrize("text", ADVANTAGE)
def test_a_stranger_may_not_give_advantage(campaign: Campaign, text: str) -> None:
    """Someone without Kara is refused the same tags."""
    with pytest.raises(Forbidden):
        _tag(campaign, text, [6] * 60, author=STRANGER)


def test_the_gm_gives_advantage(campaign: Campaign) -> None:
    """The GM's adv 3 on Kara's roll stands."""
    assert (
        3 == _tag(campaign, "roll Kara body adv 3", [1] * 4, author=GM).result.side.spec.advantage
    )


def test_a_player_may_write_his_own_disadvantage(campaign: Campaign) -> None:
    """dis 1 on his own roll is the player's to write."""
    assert 1 == _tag(campaign, "roll Kara body dis 1", [4] * 4).result.side.spec.disadvantage


BETWEEN_NPCS = ["opposed Ogre body vs Troll body", "group Ogre body & Troll body"]


@pytest.mark.parametrize("text", BETWEEN_NPCS)
@pytest.mark.parametrize("author", [OWNER, STRANGER])
def test_rolls_among_the_gms_characters_are_his(campaign: Campaign, text: str, author: str) -> None:
    """A player or a stranger may not run opposed or group rolls between the GM's NPCs."""
    with pytest.raises(Forbidden, match="between the GM's characters alone"):
        _tag(campaign, text, [4] * 20, author=author)


@pytest.mark.parametrize("text", BETWEEN_NPCS)
def test_the_gm_rolls_among_his_characters(campaign: Campaign, text: str) -> None:
    """The GM's opposed and group rolls between NPCs resolve."""
    assert _tag(campaign, text, [4, 1, 1, 1, 1, 1, 1] * 3, author=GM).kind in ("opposed", "group")


def test_the_owner_opposes_his_character_to_an_npc(campaign: Campaign) -> None:
    """Kara's player rolls Kara against the Ogre: his own character takes part."""
    assert (
        "opposed" == _tag(campaign, "opposed Kara body vs Ogre body", [4, 4, 4, 4, 1, 1, 1, 1]).kind
    )


def test_tie_all_odds_are_the_first_rounds(tmp_path: Path, campaign: Campaign, capsys) -> None:
    """With tie=all nothing is rerolled: the verdict gives outright wins and the tie, not
    the rerolled chances."""
    resolution = _tag(
        campaign, "opposed Kara body vs Ogre body tie=all", [4, 4, 1, 1, 4, 1, 1, 1], author=GM
    )
    odds = resolution.result.odds
    campaign.close()
    tag = "opposed Kara body vs Ogre body tie=all"
    main(["--campaign", str(tmp_path), "roll", tag, "--dice", "4,4,1,1,4,1,1,1"])
    out = capsys.readouterr().out
    assert (odds.first_round[0], True, False) == (
        resolution.chance,
        "a tie for most, awarded to all tied" in out,
        "ties rerolled" in out,
    )


def test_all_in_redoes_a_roll_of_the_scene_at_hand(tmp_path: Path) -> None:
    """A roll, then a new scene: All in on it is refused and spends no Influence."""
    campaign = make_campaign(tmp_path, _sheets(influence=2), system="hits")
    _tag(campaign, "scene unstructured", author=GM)
    _tag(campaign, "roll Kara body", [1, 1, 1, 1])
    _tag(campaign, "scene combat", author=GM)
    with pytest.raises(RuleViolation, match="in an earlier scene"):
        _tag(campaign, "all in Kara", [6, 6, 6, 6])
    assert 2 == campaign.store.table("characters").get("kara venn")["sheet"]["influence"]


def test_a_quick_roll_is_the_gms_call(campaign: Campaign) -> None:
    """Kara's player's quick roll is refused until the GM asks ([[quick Kara]]); then it
    rolls once, and the next needs another ask."""
    _tag(campaign, "scene unstructured", author=GM)
    with pytest.raises(Forbidden, match="A quick roll is the GM's call"):
        _tag(campaign, "quick Kara body", [6])
    with pytest.raises(Forbidden, match="Only a GM may ask for a quick roll"):
        _tag(campaign, "quick Kara")
    asked = _tag(campaign, "quick Kara", author=GM).kind
    rolled = _tag(campaign, "quick Kara body + Swordsmanship", [6, 1]).result.roll.hits
    with pytest.raises(Forbidden, match="A quick roll is the GM's call"):
        _tag(campaign, "quick Kara body", [6])
    assert ("quick_asked", 1) == (asked, rolled)


# -- duellists leave the scene ("ambos os participantes saem de Cena") -------------------


def test_duellists_leave_the_scene_until_the_duel_is_settled(tmp_path: Path) -> None:
    """A combat duel waits to be rolled: neither Kara nor the Ogre rolls in the scene (not
    even for the GM), the Troll does; once the duel is rolled both are back."""
    campaign = make_campaign(tmp_path, _sheets(influence=5), system="hits")
    _tag(campaign, "scene combat", author=GM)
    declared = _tag(campaign, "duel Kara -> Ogre with body").result
    refused = []
    for text, author in (
        ("roll Kara body", OWNER),
        ("roll Ogre body", GM),
        ("opposed Troll body vs Ogre body", GM),
        ("duel Kara -> Troll with body", OWNER),
        ('leave Kara "runs"', OWNER),
    ):
        with pytest.raises(RuleViolation, match="duelling") as error:
            _tag(campaign, text, [4] * 12, author=author)
        refused.append(error.value.message)
    troll = _tag(campaign, "roll Troll body", [4, 4, 1], author=GM).result.hits
    _tag(campaign, "duel 1 roll", [5, 5, 5, 5] + [1] * 8)
    back = _tag(campaign, "roll Kara body", [4, 1, 1, 1]).result.hits
    assert ("pending", 2, 1) == (declared.duel.status.value, troll, back)
    assert (
        "Kara Venn is duelling Ogre (duel 1), in a scene of their own, and is back in this "
        "one when the duel is settled: [[duel 1 roll]]."
    ) == refused[0]


def test_a_losing_initiator_is_out_of_the_scene_until_he_chooses(tmp_path: Path) -> None:
    """Kara loses the duel she started: until she withdraws, accepts or resists, she is
    still in the duel's scene."""
    campaign = make_campaign(tmp_path, _sheets(influence=5), system="hits")
    _tag(campaign, "scene unstructured", author=GM)
    _tag(campaign, "duel Kara -> Ogre with body", [1, 1, 1, 1] + [4] * 8)
    with pytest.raises(RuleViolation, match=r"\[\[duel 1 withdraw\]\], \[\[duel 1 accept\]\]"):
        _tag(campaign, "roll Kara body", [4, 4, 4, 4])
    _tag(campaign, "duel 1 withdraw")
    assert 4 == _tag(campaign, "roll Kara body", [4, 4, 4, 4]).result.hits
