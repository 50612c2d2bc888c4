"""All in on any roll ("Refazer uma rolagem"): a quick, an opposed and a group roll redone.

R-44 ``ordinary``: a player redoes his own roll, once, with its modifiers; in an opposed or
group roll the others' rolls stand and the roll is settled again. Fixed dice throughout;
each chance is checked against an independent sum over the redone pool's hits.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from referee.base.errors import RuleViolation
from referee.base.posts import Post
from referee.pipeline.campaign import Campaign
from referee.pipeline.flow import Referee
from referee.systems.hits.odds import hits_distribution, opposed_odds, quick_odds
from referee.systems.hits.rolls import Outcome, PoolSpec, QuickSpec
from referee.testing.campaign import make_campaign
from referee.testing.resolving import resolve_tag, tag_context

PLAYER, OTHER, GM = "kara_plays", "dax_plays", "gm"
SHEETS = [
    {
        "name": "Kara",
        "kind": "pc",
        "owner": PLAYER,
        "primary": "body",
        "secondary": "mind",
        "influence": 3,
        "skills": {"Swordsmanship": 2},
    },
    {
        "name": "Dax",
        "kind": "pc",
        "owner": OTHER,
        "primary": "body",
        "secondary": "talent",
        "influence": 3,
    },
    {"name": "Ogre", "kind": "npc", "level": 1, "body": 4, "talent": 2, "spirit": 1, "mind": 1},
]
_POSTS = itertools.count(1)


@pytest.fixture
def campaign(tmp_path: Path):
    opened = make_campaign(tmp_path, SHEETS, system="hits")
    _tag(opened, "scene unstructured", author=GM)
    yield opened
    opened.close()


def _tag(campaign: Campaign, text: str, dice=(), author: str = PLAYER) -> Any:
    number = next(_POSTS)
    context = tag_context(campaign, author, post=f"t1_{number}")
    context.roll_id = f"{number}-1"
    return resolve_tag(context, text, dice)


def _influence(campaign: Campaign, key: str = "kara") -> int:
    return campaign.store.table("characters").get(key)["sheet"]["influence"]


def test_all_in_redoes_a_quick_roll(campaign: Campaign) -> None:
    """A quick roll of body + Swordsmanship (2 dice) fails 1,2; All in rolls 5,6: success."""
    _tag(campaign, "quick Kara", author=GM)
    first = _tag(campaign, "quick Kara body + Swordsmanship", [1, 2])
    redo = _tag(campaign, "all in Kara", [5, 6])
    expected = quick_odds(QuickSpec((4, 2)))
    assert (Outcome.FAIL, Outcome.SUCCESS, f"{first.result.side.name}", 2) == (
        first.result.roll.outcome,
        redo.result.roll.outcome,
        "Kara",
        _influence(campaign),
    )
    assert (expected[Outcome.SUCCESS], "quick", first.result.roll.spec) == (
        redo.chance,
        redo.kind,
        redo.result.spec,
    )


def test_all_in_redoes_his_side_of_an_opposed_roll(campaign: Campaign) -> None:
    """Kara 0 hits vs Ogre 2: Ogre wins. Kara's All in (4,5,6 +2): 3 hits to Ogre's 2 standing."""
    first = _tag(campaign, "opposed Kara body vs Ogre body", [1, 1, 2, 3, 4, 5, 1, 1])
    redo = _tag(campaign, "all in Kara", [4, 5, 6, 1, 2])
    rounds = redo.result.roll.rounds
    dist = hits_distribution(PoolSpec(4), 3)
    assert (("Ogre",), ("Kara",), [3, 2], [True, False]) == (
        first.result.roll.winners,
        redo.result.roll.winners,
        [roll.hits for roll in rounds[0]],
        [roll.redo for roll in rounds[0]],
    )
    # Kara wins outright above 2 hits, or after a 2-2 tie is rerolled.
    rerolled = opposed_odds([PoolSpec(4), PoolSpec(4)])
    assert rerolled is not None
    expected = 1 - sum(dist) + dist[2] * rerolled.wins[0]
    assert (expected, 2) == (redo.chance, _influence(campaign))


def test_a_tie_after_the_redo_is_rerolled(campaign: Campaign) -> None:
    """Kara's redo ties Ogre's standing 2 hits: the two tied reroll, Kara's 1 hit to none."""
    _tag(campaign, "opposed Kara body vs Ogre body", [1, 1, 2, 3, 4, 5, 1, 1])
    redo = _tag(campaign, "all in Kara", [4, 5, 1, 1, 4, 1, 1, 1, 1, 2, 3, 1])
    assert (2, ("Kara",)) == (len(redo.result.roll.rounds), redo.result.roll.winners)


def test_each_roller_redoes_once_and_sees_the_other_s_redo(campaign: Campaign) -> None:
    """The GM rolls Kara vs Dax; Kara's redo stands when Dax redoes his; none twice."""
    _tag(campaign, "opposed Kara body vs Dax body", [1, 1, 1, 1, 4, 1, 1, 1], author=GM)
    kara = _tag(campaign, "all in Kara", [4, 4, 1, 1])
    dax = _tag(campaign, "all in Dax", [4, 4, 4, 1], author=OTHER)
    with pytest.raises(RuleViolation, match="redone once"):
        _tag(campaign, "all in Kara", [4, 4, 4, 4])
    assert (("Kara",), ("Dax",), [2, 3]) == (
        kara.result.roll.winners,
        dax.result.roll.winners,
        [roll.hits for roll in dax.result.roll.rounds[0]],
    )


def test_all_in_redoes_his_roll_in_a_group_roll(campaign: Campaign) -> None:
    """Kara 0 and Dax 1 (Dax counts: fail at Level 1). Kara's redo, 4 5 +1: 2 hits, partial."""
    first = _tag(campaign, "group Kara body & Dax body", [1, 1, 1, 1, 4, 1, 1, 1], author=GM)
    redo = _tag(campaign, "all in Kara", [4, 6, 1, 1, 1])
    # Dax's 1 hit stands; Kara's redo counts when it beats it (ties: the lower Level, equal).
    dist = hits_distribution(PoolSpec(4), 5)
    expected_partial = dist[2] + dist[3]
    assert (Outcome.FAIL, Outcome.PARTIAL, "Kara") == (
        first.result.roll.outcome,
        redo.result.roll.outcome,
        redo.result.roll.names[redo.result.roll.counting],
    )
    assert (expected_partial, dist[0] + dist[1]) == (
        redo.result.odds[Outcome.PARTIAL],
        redo.result.odds[Outcome.FAIL],
    )


def test_all_in_on_a_shared_roll_of_an_earlier_scene_is_refused(campaign: Campaign) -> None:
    """An opposed roll, then a new scene: All in on it is refused and spends nothing."""
    _tag(campaign, "opposed Kara body vs Ogre body", [1, 1, 2, 3, 4, 5, 1, 1])
    _tag(campaign, "scene unstructured", author=GM)
    with pytest.raises(RuleViolation, match="earlier scene"):
        _tag(campaign, "all in Kara", [4, 5, 6, 1, 2])
    assert 3 == _influence(campaign)


def test_all_in_after_the_scene_ended_is_refused(campaign: Campaign) -> None:
    """A roll in a combat scene, then [[scene end]]: the roll's scene is over, All in too."""
    _tag(campaign, "scene combat", author=GM)
    _tag(campaign, "roll Kara body", [1, 1, 2, 3])
    _tag(campaign, "scene end", author=GM)
    with pytest.raises(RuleViolation, match="earlier scene"):
        _tag(campaign, "all in Kara", [4, 5, 6, 1, 2])
    assert 3 == _influence(campaign)


def test_the_redo_verdicts_say_whose_roll_was_redone(tmp_path: Path) -> None:
    """Each reply names the roll redone, the odds of the redo and the Influence spent."""
    campaign = make_campaign(tmp_path, SHEETS, system="hits")
    referee = Referee(campaign)
    texts = [
        referee.referee(Post(f"t1_{n}", "t3_a", author, body, float(n))).text
        for n, (author, body) in enumerate(
            [
                (GM, "[[scene unstructured]] [[quick Kara]]"),
                (PLAYER, "[[opposed Kara body vs Ogre body]]"),
                (PLAYER, "[[all in Kara]]"),
                (GM, "[[group Kara body & Dax body]]"),
                (OTHER, "[[all in Dax]]"),
                (PLAYER, "[[quick Kara body]]"),
                (PLAYER, "[[all in Kara]]"),
            ],
            start=1,
        )
    ]
    campaign.close()
    assert "**Kara** goes **All in** on opposed roll 2-1: that roll of Kara is redone" in texts[2]
    assert "Odds of the redo, the others' hits standing: Kara wins" in texts[2]
    assert "Influence 3 → **2**" in texts[2]
    assert "**Dax** goes **All in** on group roll 4-1: that roll of Dax is redone" in texts[4]
    assert "Odds of the redo, the others' rolls standing (exact): fail" in texts[4]
    assert "**Kara** goes **All in**, redoing quick roll 6-1" in texts[6]
    assert "Influence 2 → **1**" in texts[6]
