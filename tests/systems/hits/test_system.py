"""hits wired into a campaign: §5.2 vectors through tags, state in the store, permissions."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from referee.base.errors import Forbidden, UserError
from referee.base.posts import Post
from referee.pipeline.campaign import Campaign, load_config
from referee.pipeline.flow import Referee
from referee.system import installed_systems, load_system
from referee.systems.hits.rolls import Outcome
from referee.systems.hits.system import SYSTEM
from referee.testing.campaign import make_campaign
from referee.testing.conformance import check_system
from referee.testing.resolving import resolve_tag, tag_context

PLAYER, OTHER, GM = "kara_plays", "dax_plays", "gm"


def _sheets(**kara: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": "Kara Venn",
            "kind": "pc",
            "owner": PLAYER,
            "primary": "body",
            "secondary": "mind",
            "skills": {"Swordsmanship": 2},
            "benefits": {"Fearless": 1},
            **kara,
        },
        {"name": "Dax", "kind": "pc", "owner": OTHER, "primary": "talent", "secondary": "body"},
        {"name": "Ogre", "kind": "npc", "level": 1, "body": 4, "talent": 2, "spirit": 1, "mind": 1},
    ]


@pytest.fixture
def campaign(tmp_path: Path):
    opened = make_campaign(tmp_path, _sheets(influence=3), system="hits")
    yield opened
    opened.close()


def _tag(campaign: Campaign, text: str, dice=(), author: str = PLAYER, thread: str = "t3_a"):
    return resolve_tag(tag_context(campaign, author, thread=thread), text, dice)


def _kara(campaign: Campaign, key: str = "kara venn") -> dict[str, Any]:
    return campaign.store.table("characters").get(key)["sheet"]


def _state(campaign: Campaign) -> dict[str, Any]:
    return campaign.store.table("hits_campaign").get("campaign")


def test_hits_is_a_built_in_system() -> None:
    """`referee systems` lists hits, and the registry loads it by name."""
    assert ("hits" in installed_systems(), "hits") == (True, load_system("hits").name)


def test_hits_passes_the_conformance_kit(tmp_path: Path) -> None:
    """A resolving example per verb, GM verbs refused to players, exact odds vs 100,000 rolls."""
    report = check_system(SYSTEM, tmp_path)
    assert ([], {verb.name for verb in SYSTEM.verbs}) == (report.problems, set(report.examples))


# (tag, dice in draw order, hits, outcome): RULES.md §5.2 through the roll verb.
VECTORS = [
    ("roll Kara body", [6, 4, 2, 1, 3], 2, Outcome.PARTIAL),
    ("roll Kara body", [6, 6, 5, 1, 6, 2, 4], 5, Outcome.SUCCESS),
    ("roll Kara talent", [3, 3], 0, Outcome.FAIL),
    ("roll Kara body adv 1", [3, 3, 2, 1], 2, Outcome.PARTIAL),
    ("roll Kara body dis 1", [6, 4, 3, 5, 1], 2, Outcome.PARTIAL),
    ("roll Kara talent dis 3", [6, 5, 2], 1, Outcome.FAIL),
    ("roll Kara talent adv 1", [5, 2], 1, Outcome.FAIL),
]


@pytest.mark.parametrize(("text", "dice", "hits", "outcome"), VECTORS)
def test_section_5_2_vectors_through_the_roll_verb(
    campaign: Campaign, text: str, dice: list[int], hits: int, outcome: Outcome
) -> None:
    """Each §5.2 vector at Level 1, dice for dice, by tag (the GM's: Advantage is his)."""
    view = _tag(campaign, text, dice, author=GM).result
    assert (hits, outcome, len(dice)) == (view.hits, view.outcome, len(view.roll.dice))


def test_level_2_vector_uses_the_character_s_level(campaign: Campaign) -> None:
    """Level 2: 4,5,4 -> 3 hits, partial (a GM set the Level)."""
    _tag(campaign, "set Kara level 2", author=GM)
    view = _tag(campaign, "roll Kara mind", [4, 5, 4]).result
    assert (3, Outcome.PARTIAL, 12) == (view.hits, view.outcome, _kara(campaign)["health"])


def test_quick_and_opposed_vectors(campaign: Campaign) -> None:
    """Quick 6,6 -> success, no explosion; opposed 5,4,1 vs 6,3 +2 -> 2-1."""
    _tag(campaign, "quick Kara", author=GM)  # a quick roll is asked for
    quick = _tag(campaign, "quick Kara body + Swordsmanship", [6, 6]).result
    opposed = _tag(campaign, "opposed Kara mind vs Ogre talent", [5, 4, 1, 6, 3, 2]).result
    assert (2, Outcome.SUCCESS, ("Kara Venn",), [2, 1]) == (
        len(quick.roll.faces),
        quick.roll.outcome,
        opposed.roll.winners,
        [r.hits for r in opposed.roll.rounds[0]],
    )


def test_the_verdict_carries_the_exact_level_table(campaign: Campaign) -> None:
    """4 dice, Advantage 1 (face): 23/243, 1135/2187, 845/2187, and the headline chance."""
    resolution = _tag(campaign, "roll Kara body adv 1", [3, 3, 2, 1], author=GM)
    expected = [Fraction(23, 243), Fraction(1135, 2187), Fraction(845, 2187)]
    assert (expected, Fraction(1135, 2187)) == (
        [resolution.result.odds[o] for o in Outcome],
        resolution.chance,
    )


def test_a_skill_adds_advantage_and_standing_advantage_adds(campaign: Campaign) -> None:
    """body 4 + Swordsmanship: 4 dice; the skill's Advantage 1, the standing 1 and the GM's
    1 lift 1s to hits (the seed: a skill "para adicionar vantagem")."""
    _tag(campaign, "set Kara advantage 1", author=GM)
    view = _tag(campaign, "roll Kara body + sword adv 1", [1] * 4, author=GM).result
    assert (4, 3, 4) == (view.side.spec.dice, view.side.spec.advantage, view.hits)


def test_a_source_adds_its_rank_in_dice_under_traits_in_roll_dice(tmp_path: Path) -> None:
    """traits_in_roll = "dice": body 4 + Swordsmanship 2 = 6 dice, no Advantage."""
    campaign = make_campaign(tmp_path, _sheets(), system="hits", rulings={"traits_in_roll": "dice"})
    view = _tag(campaign, "roll Kara body + sword", [2] * 6).result
    assert (6, 0, 0) == (view.side.spec.dice, view.side.spec.advantage, view.hits)


def test_combat_rolls_count_hits_without_the_level_table(campaign: Campaign) -> None:
    """In a combat scene the verdict gives hits and the exact chance of that many or more."""
    _tag(campaign, "scene combat", author=GM)
    view = _tag(campaign, "roll Kara talent", [4, 1]).result
    assert (None, 1, Fraction(3, 4)) == (view.outcome, view.hits, view.at_least)


def test_all_in_redoes_the_last_roll_once(campaign: Campaign) -> None:
    """1 Influence; the redo stands; a second All in on it is refused; the spend is recorded."""
    _tag(campaign, "roll Kara body", [3, 3, 2, 1])
    redo = _tag(campaign, "all in Kara", [4, 5, 1, 1]).result
    with pytest.raises(UserError, match="redone once"):
        _tag(campaign, "all in Kara", [6, 6, 6, 6, 1, 1, 1, 1])
    spends = _state(campaign)["chapter"]["spends"]
    assert (Outcome.PARTIAL, 2, ["all_in"]) == (
        redo.outcome,
        _kara(campaign)["influence"],
        [s["way"] for s in spends],
    )


def test_a_player_may_not_redo_another_s_roll(campaign: Campaign) -> None:
    """All in is the roller's own: Dax's player is refused."""
    _tag(campaign, "roll Kara body", [3, 3, 2, 1])
    with pytest.raises(Forbidden, match="belongs to u/kara_plays"):
        _tag(campaign, "all in Kara", [4, 4, 4, 4], author=OTHER)


def test_opposed_ties_reroll_or_the_gm_awards_all(campaign: Campaign) -> None:
    """A 1-1 tie rerolls; tie=all (a GM's) gives it to both; a player's tie=all is refused."""
    rerolled = _tag(campaign, "opposed Kara talent vs Ogre talent", [4, 1, 5, 1, 4, 4, 1, 1])
    with pytest.raises(Forbidden, match="Only a GM may award a tie"):
        _tag(campaign, "opposed Kara talent vs Ogre talent tie=all", [4, 1, 5, 1])
    awarded = _tag(campaign, "opposed Kara talent vs Ogre talent tie=all", [4, 1, 5, 1], author=GM)
    assert (2, ("Kara Venn",), ("Kara Venn", "Ogre"), True) == (
        len(rerolled.result.roll.rounds),
        rerolled.result.roll.winners,
        awarded.result.roll.winners,
        awarded.result.roll.awarded_to_all,
    )


def test_a_player_may_not_roll_another_player_s_character(campaign: Campaign) -> None:
    """In an opposed roll a player rolls his own and the GM's characters, not another PC."""
    with pytest.raises(Forbidden, match="belongs to u/dax_plays"):
        _tag(campaign, "opposed Kara body vs Dax body", [4] * 8)


def test_group_roll_counts_the_best(campaign: Campaign) -> None:
    """The roll with most hits counts, at its roller's Level (R-42)."""
    view = _tag(campaign, "group Kara talent & Dax talent", [1, 1, 4, 5, 5, 1], author=GM).result
    assert ("Dax", 3, Outcome.PARTIAL) == (
        view.roll.names[view.roll.counting],
        view.roll.rolls[view.roll.counting].hits,
        view.roll.outcome,
    )


def test_knockout_stakes_and_the_second_knockout(campaign: Campaign) -> None:
    """3 Stress: pending; stakes: Stress 2, Health full; again: the skill is lost, +3 Influence."""
    _tag(campaign, "scene unstructured", author=GM)
    _tag(campaign, "set Kara health 3", author=GM)
    _tag(campaign, "harm Kara stress 3", author=GM)
    with pytest.raises(UserError, match="being knocked out"):
        _tag(campaign, "roll Kara body", [4, 4, 4, 4])
    _tag(campaign, "stakes Kara skill sword")
    raised = dict(_kara(campaign))
    _tag(campaign, "harm Kara stress 1", author=GM)
    after = _kara(campaign)
    assert (2, 10, "active", [["Swordsmanship", 2]]) == (
        raised["stress"],
        raised["health"],
        raised["standing"],
        raised["skills"],
    )
    assert ("knocked_out", [], 4 + 1 + 3) == (
        after["standing"],
        after["skills"],
        after["influence"],
    )


def test_taking_the_knockout_and_a_new_scene_brings_back(campaign: Campaign) -> None:
    """knockout: out of the scene; the next scene has the character back."""
    _tag(campaign, "scene combat", author=GM)
    _tag(campaign, "harm Kara wounds 3", author=GM)
    _tag(campaign, "knockout Kara")
    out = _kara(campaign)["standing"]
    _tag(campaign, "scene unstructured", author=GM)
    assert ("knocked_out", "active") == (out, _kara(campaign)["standing"])


def test_intermission_clears_stress_and_wounds(campaign: Campaign) -> None:
    """Only those named take part."""
    _tag(campaign, "set Kara stress 2", author=GM)
    _tag(campaign, "set Dax wounds 2", author=GM)
    _tag(campaign, "intermission Kara", author=GM)
    assert (0, 2) == (_kara(campaign)["stress"], _kara(campaign, "dax")["wounds"])


def test_duel_costs_by_tension_in_combat(campaign: Campaign) -> None:
    """§5.2: at Tension 2 a combat duel costs 2; at Tension 5, 1; it waits to be rolled."""
    _tag(campaign, "set Kara influence 5", author=GM)
    _tag(campaign, "scene combat", author=GM)
    _tag(campaign, "tension 2", author=GM)
    first = _tag(campaign, "duel Kara -> Ogre with body").result
    _tag(campaign, "duel 1 roll", [5, 5, 5, 5] + [1] * 8)  # settled: both back in the scene
    _tag(campaign, "tension 5", author=GM)
    _tag(campaign, "duel Kara -> Ogre with mind")
    assert (2, "pending", 5 - 2 - 1) == (
        first.duel.cost,
        first.duel.status.value,
        _kara(campaign)["influence"],
    )


def test_an_unstructured_duel_rolls_at_once_and_the_npc_is_knocked_out(campaign: Campaign) -> None:
    """Kara's 6 dice beat the Ogre's Level 1 + 7: the Ogre is knocked out; 1 Influence paid."""
    _tag(campaign, "scene unstructured", author=GM)
    dice = [6, 6, 6, 6, 6, 6, 1, 1, 1, 1, 1, 1] + [1] * 8
    view = _tag(campaign, "duel Kara -> Ogre with body, Swordsmanship", dice).result
    ogre = _kara(campaign, "ogre")
    assert ("Ogre", "knocked_out", 2, (6, 8)) == (
        view.duel.loser,
        ogre["standing"],
        _kara(campaign)["influence"],
        (view.duel.initiator_dice, view.duel.target_dice),
    )


def test_a_lost_duel_accepted_refunds_and_costs_two_stress(campaign: Campaign) -> None:
    """The initiator loses, accepts: 2 Stress (+1 Influence for it) and the cost back."""
    _tag(campaign, "scene unstructured", author=GM)
    _tag(campaign, "duel Kara -> Ogre with talent", [1, 1] + [4] * 8)
    _tag(campaign, "duel 1 accept")
    kara = _kara(campaign)
    assert (2, 3 - 1 + 1 + 1, []) == (
        kara["stress"],
        kara["influence"],
        _state(campaign)["duels"]["in_progress"],
    )


def test_withdraw_refunds_nothing_and_resist_rerolls_both(campaign: Campaign) -> None:
    """Withdraw: no consequences, no refund. Resist won: the target loses instead."""
    _tag(campaign, "scene unstructured", author=GM)
    _tag(campaign, "duel Kara -> Ogre with talent", [1, 1] + [4] * 8)
    _tag(campaign, "duel 1 withdraw")
    withdrawn = (_kara(campaign)["influence"], _kara(campaign)["stress"])
    _tag(campaign, "duel Kara -> Ogre with talent", [1, 1] + [4] * 8)
    resisted = _tag(campaign, "duel 2 resist", [6, 6, 6, 6, 1, 1] + [1] * 8).result
    assert ((2, 0), "Ogre", "knocked_out") == (
        withdrawn,
        resisted.duel.loser,
        _kara(campaign, "ogre")["standing"],
    )


def test_only_the_initiator_answers_a_lost_duel(campaign: Campaign) -> None:
    """Dax's player may not accept Kara's loss."""
    _tag(campaign, "scene unstructured", author=GM)
    _tag(campaign, "duel Kara -> Ogre with talent", [1, 1] + [4] * 8)
    with pytest.raises(Forbidden):
        _tag(campaign, "duel 1 accept", author=OTHER)


def test_an_npc_resists_with_a_timer_that_knocks_it_out(campaign: Campaign) -> None:
    """A deferred duel rolled by the GM with timer 4: the Ogre resists until the timer fills."""
    _tag(campaign, "scene unstructured", author=GM)
    _tag(campaign, "duel Kara -> Ogre with body later", [])
    _tag(campaign, "duel 1 roll timer 4", [6, 6, 6, 6, 1, 1, 1, 1] + [1] * 8, author=GM)
    standing = _kara(campaign, "ogre")["standing"]
    fired = _tag(campaign, "timer ogre +4", author=GM).result
    assert ("active", ["Ogre resists (duel #1)"], "knocked_out") == (
        standing,
        [t.name for t in fired.fired],
        _kara(campaign, "ogre")["standing"],
    )


def test_a_pc_target_names_his_pool(campaign: Campaign) -> None:
    """A duel against a PC waits for his pool, then rolls (outside combat) at once."""
    _tag(campaign, "scene unstructured", author=GM)
    declared = _tag(campaign, "duel Kara -> Dax with body").result
    rolled = _tag(campaign, "duel 1 with talent", [4, 4, 4, 4, 1, 1, 1, 1], author=OTHER).result
    assert ("declared", True, "Dax", 3) == (
        declared.step,
        declared.duel.awaiting_target,
        rolled.duel.loser,
        _kara(campaign, "dax")["stress"] + 1,  # 2 Stress
    )


def test_chapter_xp_and_a_level_up_with_named_gains(tmp_path: Path) -> None:
    """XP 8 + (2 + 2 ways) -> Level 2, XP 2; the player names a skill Rank, the rest is saved."""
    campaign = make_campaign(tmp_path, _sheets(influence=3, xp=8), system="hits")
    _tag(campaign, "chapter start", author=GM)
    _tag(campaign, "scene unstructured", author=GM)
    _tag(campaign, "roll Kara body", [1, 1, 1, 1])
    _tag(campaign, "all in Kara", [1, 1, 1, 1])
    _tag(campaign, "duel Kara -> Ogre with talent later")
    ended = _tag(campaign, "chapter end", author=GM).result
    _tag(campaign, "levelup Kara body, talent, skill Swordsmanship")
    kara = _kara(campaign)
    assert (
        (2, 2),
        (5, 3, 14),
        [["Swordsmanship", 3]],
        {"tiers": 2, "ranks": 1, "benefits": 1},
    ) == (
        (kara["level"], kara["xp"]),
        (kara["attributes"]["body"], kara["attributes"]["talent"], kara["health"]),
        kara["skills"],
        kara["saved"],
    )
    assert [("Dax", 2, 0), ("Kara Venn", 4, 1)] == [(a.name, a.xp, a.levels) for a in ended.awards]


def test_awakening_takes_saved_gains_by_name(campaign: Campaign) -> None:
    """Two saved Tiers become a new Technique's Rank 2; more than saved is refused."""
    _tag(campaign, "set Kara saved tiers 2", author=GM)
    _tag(campaign, "awaken Kara technique Fire Lance, technique Fire Lance")
    with pytest.raises(UserError, match="cannot Awaken"):
        _tag(campaign, "awaken Kara technique Fire Lance")
    assert ([["Fire Lance", 2]], 0) == (
        _kara(campaign)["techniques"],
        _kara(campaign)["saved"]["tiers"],
    )


def test_timers_are_created_advanced_and_fire(campaign: Campaign) -> None:
    """An even number of segments; filling one empties it and fires its event."""
    with pytest.raises(UserError, match="even number"):
        _tag(campaign, "timer new Alarm 5", author=GM)
    _tag(campaign, 'timer new Alarm 4 "the guards come"', author=GM)
    _tag(campaign, "timer alarm +3", author=GM)
    fired = _tag(campaign, "timer alarm +2", author=GM).result
    assert (["the guards come"], 0) == ([t.event for t in fired.fired], fired.timer.filled)


GM_VERBS = [
    "scene combat",
    "scene end",
    "chapter start",
    "intermission",
    "tension 2",
    "set Kara influence 9",
    "harm Dax stress 1",
    "timer new Alarm 4",
    "legend Kara",
]


@pytest.mark.parametrize("text", GM_VERBS)
def test_gm_verbs_are_refused_to_players_with_the_reason(campaign: Campaign, text: str) -> None:
    """Each GM verb tells a player that only a GM may, and writes nothing."""
    before = dict(_kara(campaign))
    with pytest.raises(Forbidden, match="Only a GM may"):
        _tag(campaign, text)
    assert (before, None) == (_kara(campaign), _state(campaign))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("roll Kara luck", "not a source"),
        ("roll Kara 5", "Only a GM may roll a number"),
        ("roll Kara", "Name what is rolled"),
        ("leave Kara", "combat action"),
        ("duel Kara -> Ogre with body", "in a scene"),
        ("stakes Kara life", "not being knocked out"),
        ("levelup Kara body, body", "two different"),
        ("quick Kara body dis 2", "A quick roll is the GM's call"),
    ],
)
def test_bad_requests_say_how_to_fix_them(campaign: Campaign, text: str, message: str) -> None:
    """Every refusal names what is wrong; nothing is written."""
    before = dict(_kara(campaign))
    try:
        _tag(campaign, text, [1, 1, 1, 1])
    except UserError as error:
        assert message in error.message
    else:
        assert message == "fail"  # a quick roll of no dice is a fail, not a refusal
    assert before["influence"] == _kara(campaign)["influence"]


def test_state_survives_posts_and_a_reopen_of_the_store(tmp_path: Path) -> None:
    """Scene, Tension, chapter spends, timers and duels are there after the store reopens."""
    campaign = make_campaign(tmp_path, _sheets(influence=5), system="hits")
    _tag(campaign, "chapter start", author=GM)
    _tag(campaign, "scene combat", author=GM)
    _tag(campaign, "tension 3", author=GM)
    _tag(campaign, "timer new Alarm 6", author=GM)
    _tag(campaign, "duel Kara -> Ogre with body")
    campaign.store.flush()
    campaign.close()
    reopened = Campaign(load_config(tmp_path / "config.toml"), campaign.secret)
    try:
        _tag(reopened, "timer Alarm +1", author=GM)
        rolled = _tag(reopened, "duel 1 roll", [6, 6, 6, 6, 1, 1, 1, 1] + [1] * 8).result
        state = _state(reopened)
    finally:
        reopened.close()
    assert ("combat", 3, 1, ["duel"], "Ogre", 1) == (
        state["scene"]["mode"],
        state["scene"]["tension"],
        state["timers"][0]["filled"],
        [s["way"] for s in state["chapter"]["spends"]],
        rolled.duel.loser,
        rolled.duel.cost,
    )


def test_an_application_is_validated_whole_and_approved(campaign: Campaign) -> None:
    """Bad lines are listed at once; the fixed sheet is approved at full Health."""
    bad = "[[apply]]\n\n```\nname: Orla\nbody: 4\ntalent: 4\nspirit: 2\nmind: 2\nluck: 3\n```"
    with pytest.raises(UserError, match="'luck' is not a key"):
        resolve_tag(tag_context(campaign, "orla", body=bad), "apply")
    wrong = "[[apply]]\n\n```\nname: Orla\nbody: 4\ntalent: 4\nspirit: 2\nmind: 2\n```"
    problems = resolve_tag(tag_context(campaign, "orla", body=wrong), "apply").result.problems
    good = (
        "[[apply]]\n\n```\nname: Orla\nprimary: spirit\nsecondary: talent\n"
        "skill: Lore 2\nbond: Old Bram 1\n```"
    )
    resolve_tag(tag_context(campaign, "orla", body=good), "apply")
    _tag(campaign, "approve Orla", author=GM)
    orla = _kara(campaign, "orla")
    assert (1, 6, [["Lore", 2]], [["Old Bram", 1]]) == (
        len(problems),
        orla["health"],
        orla["skills"],
        orla["bonds"],
    )


def test_a_post_renders_dice_explosions_odds_and_changes(tmp_path: Path) -> None:
    """Through the pipeline: names escaped, crits marked and exploded, outcome bold, odds, id."""
    sheets = [
        {
            "name": "Kara_*V*",
            "owner": PLAYER,
            "primary": "body",
            "secondary": "mind",
            "influence": 1,
        }
    ]
    campaign = make_campaign(tmp_path, sheets, system="hits")
    referee = Referee(campaign)
    text = referee.referee(Post("t1_x", "t3_a", PLAYER, "[[roll Kara_*V* body]]", 1.0)).text
    redo = referee.referee(Post("t1_y", "t3_a", PLAYER, "[[all in Kara_*V*]]", 2.0)).text
    assert ("Kara\\_\\*V\\*" in text, "Kara_*V*" in text, "^(roll x-1)" in text) == (
        True,
        False,
        True,
    )
    assert "Odds (exact, crits included): fail" in text
    assert ("redoing roll x-1" in redo, "Influence 1 → **0**" in redo) == (True, True)


def test_a_long_post_s_compact_verdicts_keep_hits_outcome_and_chance(tmp_path: Path) -> None:
    """Forty rolls do not fit a comment in full: each compact verdict keeps its result and odds."""
    sheets = [{"name": "Kara", "owner": PLAYER, "primary": "body", "secondary": "mind"}]
    campaign = make_campaign(tmp_path, sheets, system="hits")
    tags = " ".join("[[roll Kara 7 adv 1]]" for _ in range(40))
    outcome = Referee(campaign).referee(Post("t1_x", "t3_a", "gm", tags, 1.0))
    lines = [line for line in outcome.text.splitlines() if line.startswith("Kara:")]
    assert (40, 40) == (len(lines), sum(" hit" in line and "%)" in line for line in lines))


def test_extra_dice_advantage_adds_dice_through_the_tag(tmp_path: Path) -> None:
    """R-23 extra_dice: Advantage 1 on body 4 rolls 5 dice, faces unchanged."""
    campaign = make_campaign(
        tmp_path, _sheets(), system="hits", rulings={"advantage": "extra_dice"}
    )
    view = _tag(campaign, "roll Kara body adv 1", [3, 3, 3, 3, 4], author=GM).result
    assert (5, 1) == (len(view.roll.dice), view.hits)
