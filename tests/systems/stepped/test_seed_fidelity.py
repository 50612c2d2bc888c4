"""Issue 21: stepped as seed 002 wrote it, each rule tried as a post with fixed dice."""

from __future__ import annotations

from fractions import Fraction

from referee.base.dice import FixedDice
from referee.base.posts import Post
from referee.pipeline.session import Session
from referee.pipeline.tag import verdict_for
from referee.read.tags import Tag
from referee.resolve.verdicts import Verdict
from referee.system import ParseContext
from referee.testing import sheet

FORCE = {
    "name": "Force",
    "points": 2,
    "techniques": [
        {"name": "Telekinesis", "tier": "d4"},
        {"name": "Mind Trick", "tier": "d6"},
    ],
}
SHEETS = [
    sheet("Mira Sol", owner="mira", magic=[FORCE]),
    sheet("Kara Venn", owner="kara"),
    sheet("Trooper 1", kind="npc"),
]


def post(campaign, author: str, tag: str, dice: list[int]) -> Verdict:
    """The verdict of one tag in a post by ``author``, rolled on ``dice``."""
    context = Session(campaign, ["gm"]).context(Post("t1_post", "t3_thread", author, "", 1.0))
    return verdict_for(
        Tag(0, tag), "rid", context, ParseContext(context.known_names), FixedDice(dice)
    )


def test_a_d6_mages_d6_technique_succeeds_only_on_6(open_campaign) -> None:
    """Seed: a d6-tier technique on a d6 needs 6; a 5 matched by the wild 5 is no success."""
    campaign = open_campaign(SHEETS)
    matched = post(campaign, "mira", "cast Mira Sol Mind Trick", [5, 5])
    six = post(campaign, "mira", "cast Mira Sol Mind Trick", [2, 6])
    critical = post(campaign, "mira", "cast Mira Sol Mind Trick", [1, 6])
    assert (
        (True, False),
        (False, True),
        (True, False),
        Fraction(10, 36),
    ) == (
        (matched.result.roll.exceptional, matched.result.success),
        (six.result.roll.exceptional, six.result.success),
        (critical.result.roll.critical, critical.result.success),
        matched.chance,
    )


def test_a_d6_mages_d4_technique_succeeds_on_4(open_campaign) -> None:
    """Seed: a d4-tier technique on a d6 succeeds on 4 (or 5 or 6), the wild die helping."""
    campaign = open_campaign(SHEETS)
    four = post(campaign, "mira", "cast Mira Sol Telekinesis", [2, 4])
    three = post(campaign, "mira", "cast Mira Sol Telekinesis", [3, 1])
    # 4+ on the better of d6 and the wild d6, less a 1 on the roll die (critical).
    chance = Fraction(36 - 9, 36) - Fraction(3, 36)
    assert (True, False, chance) == (four.result.success, three.result.success, four.chance)


def test_a_wild_one_beside_a_rolled_one_is_no_exceptional_success(open_campaign) -> None:
    """R-2: Kara's d8 1 and 4 with a wild 1 is an ordinary miss, not an exceptional hit."""
    campaign = open_campaign(SHEETS)
    # hit: agility d8 1, perception d8 4, wild 1; defence: the trooper's agility d8 6.
    verdict = post(campaign, "kara", "shoot Kara Venn -> Trooper 1", [1, 4, 1, 6])
    roll = verdict.result.hit_roll
    assert (5, False, False) == (roll.total, roll.exceptional, verdict.result.hit)


def test_an_exceptional_hit_below_the_defence_misses(open_campaign) -> None:
    """R-58: a matched wild die is narrated, but a hit of 7 does not beat a defence of 8."""
    campaign = open_campaign(SHEETS)
    verdict = post(campaign, "kara", "shoot Kara Venn -> Trooper 1", [3, 4, 3, 8])
    roll = verdict.result.hit_roll
    assert (7, True, False) == (roll.total, roll.exceptional, verdict.result.hit)


def test_melee_on_an_unaware_target_is_rolled(open_campaign) -> None:
    """R-59: an unaware target of a melee attack (the GM's word) defends as usual; a 4 against
    6 misses."""
    campaign = open_campaign(SHEETS)
    # hit: agility d8 2, endurance d6 2, wild 1; defence: the trooper's agility d8 6.
    verdict = post(campaign, "gm", "melee Kara Venn -> Trooper 1 unaware", [2, 2, 1, 6])
    result = verdict.result
    assert (False, 4, 6, False) == (
        result.automatic_hit,
        result.hit_roll.total,
        result.defence_roll.total,
        result.hit,
    )


def test_melee_on_the_unaware_hits_automatically_by_option(open_campaign) -> None:
    """R-59's option true: the same melee skips the hit and defence rolls."""
    campaign = open_campaign(SHEETS, rulings={"melee_unaware_auto_hit": True})
    # damage: strength d6 5 + baton 1, wild 1; soak: endurance d6 2.
    verdict = post(campaign, "gm", "melee Kara Venn -> Trooper 1 unaware", [5, 1, 2])
    assert (True, None, True) == (
        verdict.result.automatic_hit,
        verdict.result.hit_roll,
        verdict.result.hit,
    )


def test_step_mode_lowers_a_wounded_pcs_dice_one_step_per_wound(open_campaign) -> None:
    """R-6 "step": Kara with 1 wound rolls agility d6 and perception d6, no flat -1."""
    campaign = open_campaign(
        [sheet("Kara Venn", owner="kara", wounds=1)], rulings={"wound_penalty_mode": "step"}
    )
    verdict = post(campaign, "kara", "roll Kara Venn agility+perception", [6, 5, 2])
    roll = verdict.result
    assert ((6, 6), 11, ()) == (
        tuple(d.sides for d in roll.dice),
        roll.total,
        roll.modifiers,
    )


def test_flat_mode_stays_the_default(open_campaign) -> None:
    """R-6 default: the same wounded Kara rolls d8s with -1 for her wound."""
    campaign = open_campaign([sheet("Kara Venn", owner="kara", wounds=1)])
    verdict = post(campaign, "kara", "roll Kara Venn agility+perception", [6, 5, 2])
    roll = verdict.result
    assert ((8, 8), 10) == (tuple(d.sides for d in roll.dice), roll.total)
