"""pool in a campaign: §2 vectors through tags, state across posts, GM verbs, permissions."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from referee.base.errors import ConfigError, Forbidden, RuleViolation, UserError
from referee.pipeline.campaign import Campaign
from referee.read.tags import RollDice
from referee.system import installed_systems, load_system
from referee.systems.pool.rolls import Outcome
from referee.systems.pool.system import SYSTEM, read_rulings
from referee.testing.campaign import make_campaign
from referee.testing.conformance import check_system
from referee.testing.resolving import resolve_tag, tag_context

PLAYER, OTHER, GM = "kara_plays", "dax_plays", "gm"
KARA = {"dexterity": 3, "stealth": 4, "brawl": 4, "dodge": 3, "strength": 2, "wits": 2}


def _sheets(kara: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    return [
        {
            "name": "Kara Venn",
            "kind": "pc",
            "owner": PLAYER,
            "traits": KARA,
            "willpower": 3,
            **(kara or {}),
        },
        {
            "name": "Dax",
            "kind": "pc",
            "owner": OTHER,
            "traits": {"strength": 3, "brawl": 2, "wits": 2, "alertness": 3},
            "willpower": 4,
        },
        {"name": "Guard", "kind": "npc", "traits": {"perception": 2, "alertness": 2}},
    ]


@pytest.fixture
def campaign(tmp_path: Path):
    opened = make_campaign(tmp_path, _sheets(), system="pool")
    yield opened
    opened.close()


def _tag(
    campaign: Campaign,
    text: str,
    dice=(),
    author: str = PLAYER,
    thread: str = "t3_a",
    post: str | None = None,
):
    context = tag_context(campaign, author, thread=thread)
    # Each tag its own post unless told (a character acts once a post).
    post = post or f"t1_{next(_POSTS)}"
    context.post = type(context.post)(post, thread, author, "", 1.0)
    return resolve_tag(context, text, dice)


_POSTS = itertools.count(1)


def _kara(campaign: Campaign) -> dict[str, Any]:
    return campaign.store.table("characters").get("kara venn")["sheet"]


def test_pool_is_a_built_in_system() -> None:
    """`referee systems` lists pool, and the registry loads it by name."""
    assert (True, "pool") == ("pool" in installed_systems(), load_system("pool").name)


def test_pool_passes_the_conformance_kit(tmp_path: Path) -> None:
    """A resolving example per verb, GM verbs refused to players, exact odds over 100,000 rolls."""
    report = check_system(SYSTEM, tmp_path)
    assert ([], {verb.name for verb in SYSTEM.verbs}) == (report.problems, set(report.examples))


# -- §2 vectors, dice for dice ----------------------------------------------------------


def test_vector_one_three_successes_complete(campaign: Campaign) -> None:
    """diff 6, dice 3,8,7,10 -> 3 successes, complete (a bare pool of 4)."""
    roll = _tag(campaign, "roll 4 diff 6", [3, 8, 7, 10], author=GM).result.roll
    assert (3, 0, 3, Outcome.SUCCESS, "complete") == (
        roll.successes,
        roll.ones,
        roll.net,
        roll.outcome,
        roll.label,
    )


def test_vector_two_no_success_no_one_is_a_failure(tmp_path: Path) -> None:
    """Dexterity 2 + Stealth 4 at diff 7, dice 2,5,6,6,4,3 -> failure, not a botch."""
    campaign = make_campaign(tmp_path, _sheets({"traits": {**KARA, "dexterity": 2}}), system="pool")
    roll = _tag(
        campaign, "roll Kara dexterity+stealth diff 7", [2, 5, 6, 6, 4, 3], author=GM
    ).result.roll
    assert (6, 0, Outcome.FAILURE) == (roll.plan.dice, roll.successes, roll.outcome)


def test_vector_three_cancelled_successes_are_a_failure(campaign: Campaign) -> None:
    """diff 8, dice 9,1,1,8,1 -> 2 successes, 3 ones: a failure, not a botch."""
    roll = _tag(campaign, "roll 5 diff 8", [9, 1, 1, 8, 1], author=GM).result.roll
    assert (2, 3, Outcome.FAILURE) == (roll.successes, roll.ones, roll.outcome)


def test_vector_four_no_success_and_a_one_is_a_botch(campaign: Campaign) -> None:
    """diff 8, dice 1,3,4,3,7 -> botch."""
    assert (
        Outcome.BOTCH
        == _tag(campaign, "roll 5 diff 8", [1, 3, 4, 3, 7], author=GM).result.roll.outcome
    )


def test_vector_five_multiple_actions_lose_dice(campaign: Campaign) -> None:
    """Dex 3 + Brawl 4 with 3 actions -> punch 4; Dex 3 + Dodge 3 -> dodges 2 then 1."""
    actions = _tag(
        campaign,
        "act Kara 3: dexterity+brawl, dexterity+dodge, dexterity+dodge",
        [6] * 7,
    ).result.actions
    assert [4, 2, 1] == [roll.plan.dice for roll in actions.rolls]


def test_vector_six_resisted_keeps_the_surplus(campaign: Campaign) -> None:
    """4 successes resisted by 3 -> 1 net success, minimal."""
    verdict = _tag(
        campaign,
        "resist Kara dexterity+stealth vs Guard perception+alertness",
        [7, 8, 9, 10, 2, 3, 4, 6, 7, 8, 2],
        author=GM,
    ).result.verdict
    assert (0, 1, "minimal") == (verdict.winner, verdict.surplus, verdict.label)


def test_the_verdict_carries_the_exact_odds_of_the_table(campaign: Campaign) -> None:
    """6 dice at diff 6: botch .0115, failure .1120, >=3 net .4944 (RULES.md §2's table)."""
    shown = _tag(campaign, "roll 6", [6, 6, 6, 2, 2, 2]).result
    bands = dict(SYSTEM.template_helpers()["pool_bands"](shown.roll, shown.labels))
    assert [0.0115, 0.112, 0.4944] == [
        round(float(bands[b]), 4) for b in ("botch", "failure", "complete")
    ]
    assert bands["complete"] == shown.roll.chance


def test_dice_notation_still_rolls_in_a_pool_campaign(campaign: Campaign) -> None:
    """`roll 2d6+3` is the core's notation; `roll 6` is a pool of six d10."""
    assert "dice" == _tag(campaign, "roll 2d6+3", [1, 2]).kind
    assert 6 == _tag(campaign, "roll 6", [5] * 6).result.roll.plan.dice


# -- Willpower --------------------------------------------------------------------------


def test_willpower_buys_a_success_and_is_kept_spent(campaign: Campaign) -> None:
    """A point spent adds one success after the 1s cancel (no botch); 3 -> 2 in the store."""
    shown = _tag(campaign, "roll Kara wits willpower diff 8", [1, 3], author=GM)
    assert (1, Outcome.SUCCESS, 2, 2) == (
        shown.result.roll.net,
        shown.result.roll.outcome,
        shown.result.points_left,
        _kara(campaign)["willpower_points"],
    )


def test_willpower_alone_is_a_pool_and_the_word_twice_spends(campaign: Campaign) -> None:
    """`roll Kara willpower` rolls the rating; a second `willpower` spends a point."""
    plain = _tag(campaign, "roll Kara willpower", [6, 6, 6]).result.roll.plan
    spent = _tag(campaign, "roll Kara willpower willpower", [6, 6, 6], post="t1_b").result
    assert (3, False, True, 2) == (
        plain.dice,
        plain.willpower,
        spent.roll.plan.willpower,
        spent.points_left,
    )


def test_willpower_is_refused_with_what_he_has(campaign: Campaign) -> None:
    """No point left: refused saying 0 of 3, and nothing is rolled."""
    _tag(campaign, "set Kara points 0", author=GM)
    with pytest.raises(RuleViolation, match=r"no Willpower point to spend \(0 of 3\)"):
        _tag(campaign, "roll Kara wits willpower")


def test_one_willpower_point_a_post(campaign: Campaign) -> None:
    """A second point in the same post (a turn) is refused; the next post may spend again."""
    _tag(campaign, "roll Kara wits willpower", [6, 6], post="t1_x")
    with pytest.raises(RuleViolation, match="this turn"):
        _tag(campaign, "roll Kara stealth+dexterity willpower", [6] * 7, post="t1_x")
    assert 1 == _tag(campaign, "roll Kara wits willpower", [6, 6], post="t1_y").result.points_left


def test_the_gm_may_forbid_willpower_in_a_thread(campaign: Campaign) -> None:
    """difficulty 7 no willpower: a point is refused there; another thread still allows it."""
    _tag(campaign, "difficulty 7 no willpower", author=GM)
    with pytest.raises(RuleViolation, match="forbidden Willpower"):
        _tag(campaign, "roll Kara wits willpower")
    assert 2 == _tag(campaign, "roll Kara wits willpower", [6, 6], thread="t3_b").result.points_left


# -- standing difficulty, sessions, the free botch -------------------------------------


def test_the_standing_difficulty_holds_in_its_thread_only(campaign: Campaign) -> None:
    """difficulty 8 by the GM: later rolls there use 8 (diff +1 makes 9); elsewhere 6."""
    _tag(campaign, "difficulty 8", author=GM)
    assert (8, 9, 6, 7) == (
        _tag(campaign, "roll Kara wits", [6, 6]).result.roll.plan.difficulty,
        _tag(campaign, "roll Kara wits diff +1", [6, 6], author=GM).result.roll.plan.difficulty,
        _tag(campaign, "roll Kara wits", [6, 6], thread="t3_b").result.roll.plan.difficulty,
        _tag(campaign, "roll Kara wits diff 7", [6, 6], author=GM).result.roll.plan.difficulty,
    )


def test_end_encounter_lifts_the_standing_difficulty(campaign: Campaign) -> None:
    """The core's [[end encounter]] drops the thread's difficulty: back to 6."""
    _tag(campaign, "difficulty 9", author=GM)
    end = _tag(campaign, "end encounter", author=GM).result
    assert (9, 6) == (
        end.detail.difficulty,
        _tag(campaign, "roll Kara wits", [6, 6]).result.roll.plan.difficulty,
    )


def test_the_free_botch_forgives_the_first_botch_of_a_session(tmp_path: Path) -> None:
    """free_botch: the first botch is a failure, the second a botch; [[session]] restores it."""
    campaign = make_campaign(tmp_path, _sheets(), system="pool", rulings={"free_botch": True})
    outcomes = [
        _tag(campaign, "roll Kara wits diff 9", [1, 2], author=GM).result.roll for _ in range(2)
    ]
    session = _tag(campaign, "session", author=GM).result
    again = _tag(campaign, "roll Kara wits diff 9", [1, 2], author=GM).result.roll
    assert (
        [(Outcome.FAILURE, True), (Outcome.BOTCH, False)],
        ("Kara Venn",),
        Outcome.FAILURE,
    ) == ([(r.outcome, r.botch_forgiven) for r in outcomes], session.restored, again.outcome)


# -- extended tasks, teamwork, contests -------------------------------------------------


def test_an_extended_task_accumulates_across_posts_to_its_target(campaign: Campaign) -> None:
    """target 5: 3 net then 2 net complete it; every verdict carries the tally."""
    _tag(campaign, "task the vault target 5 turns 3", author=GM)
    first = _tag(campaign, "roll Kara dexterity+stealth on the vault", [9, 9, 9] + [2] * 4)
    second = _tag(campaign, "roll Kara dexterity+stealth on the vault", [9, 9] + [2] * 5)
    assert ((3, "progress"), (5, "completed")) == (
        (first.result.task.tally, first.result.event.value),
        (second.result.task.tally, second.result.event.value),
    )


def test_a_botch_resets_the_tally_under_r35(campaign: Campaign) -> None:
    """extended_botch = reset (default): a botch loses the accumulated successes."""
    _tag(campaign, "task climb target 9", author=GM)
    _tag(campaign, "roll Kara strength+dodge on climb", [9, 9, 9, 2, 2])
    botched = _tag(campaign, "roll Kara strength+dodge on climb", [1, 2, 2, 2, 2]).result
    assert (0, "reset") == (botched.task.tally, botched.event.value)


def test_another_character_needs_teamwork(campaign: Campaign) -> None:
    """Dax may not add to Kara's task until the GM allows teamwork; then both share one tally."""
    _tag(campaign, "task the vault target 6", author=GM)
    _tag(campaign, "roll Kara dexterity+stealth on the vault", [9, 9] + [2] * 5)
    with pytest.raises(RuleViolation, match="teamwork"):
        _tag(campaign, "roll Dax wits+alertness on the vault", [9] * 5, author=OTHER)
    _tag(campaign, "teamwork the vault: Kara, Dax", author=GM)
    shown = _tag(campaign, "roll Dax wits+alertness on the vault", [9, 9, 9, 2, 2], author=OTHER)
    assert (5, {"Kara Venn": 2, "Dax": 3}) == (
        shown.result.task.tally,
        dict(shown.result.task.contributions),
    )


def test_an_automatic_success_adds_one_to_a_task(campaign: Campaign) -> None:
    """[[success Kara on the vault]]: no roll, the tally goes up by one."""
    _tag(campaign, "task the vault target 2", author=GM)
    assert 1 == _tag(campaign, "success Kara on the vault", author=GM).result.task.tally


def test_a_contest_accrues_the_surplus_to_the_target(campaign: Campaign) -> None:
    """Kara vs Dax, target 3: Kara wins by 2, then by 1: she wins the contest.

    The contest's first side rolls first, whichever side the tag names first.
    """
    _tag(campaign, "contest arm wrestling: Kara vs Dax target 3", author=GM)
    first = _tag(
        campaign,
        "resist Kara strength+brawl vs Dax strength+brawl",
        [9, 9, 9, 2, 2, 2, 9, 2, 2, 2, 2],
        author=GM,
    ).result.contest
    second = _tag(
        campaign,
        "resist Dax strength+brawl vs Kara strength+brawl",
        [9, 2, 2, 2, 2, 2] + [2] * 5,
        author=GM,
    ).result.contest
    assert ((2, 0), (3, 0), "done", "Kara Venn") == (
        first.tallies,
        second.tallies,
        second.status.value,
        second.winner,
    )


def test_a_side_declared_waits_for_the_opponent_s_player(campaign: Campaign) -> None:
    """Kara's player declares against Dax; Dax's player's declaration rolls both, Kara first."""
    waiting = _tag(campaign, "resist Kara dexterity+stealth vs Dax")
    done = _tag(campaign, "resist Dax wits+alertness vs Kara", [9] * 7 + [2] * 5, author=OTHER)
    assert ("pending", ("Kara Venn", "Dax"), 0) == (
        waiting.kind,
        done.result.sides,
        done.result.verdict.winner,
    )


def test_a_player_may_not_declare_the_other_side_for_someone_else(campaign: Campaign) -> None:
    """Kara's player writing Dax's pool is refused: Dax belongs to his own player."""
    with pytest.raises(Forbidden, match="dax_plays"):
        _tag(campaign, "resist Kara dexterity+stealth vs Dax wits+alertness")


# -- GM verbs and permissions -----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "difficulty 7",
        "success Kara",
        "session",
        "task the vault target 5",
        "contest Kara vs Dax target 3",
        "close the vault",
        "teamwork the vault",
        "set Kara points 3",
        "counter Kara health 7",
    ],
)
def test_players_may_not_use_gm_verbs(campaign: Campaign, text: str) -> None:
    """Every GM verb is refused to a player, saying only a GM may."""
    with pytest.raises(Forbidden, match="Only a GM may"):
        _tag(campaign, text)


def test_a_player_may_not_roll_another_player_s_character(campaign: Campaign) -> None:
    """Dax's player rolling Kara is refused naming her owner."""
    with pytest.raises(Forbidden, match="kara_plays"):
        _tag(campaign, "roll Kara wits", author=OTHER)


def test_the_gm_edits_ratings_points_and_counters(campaign: Campaign) -> None:
    """set and counter write the store: dexterity 4, points back to 3, health 7 then 6."""
    _tag(campaign, "roll Kara wits willpower", [6, 6])
    _tag(campaign, "set Kara dexterity 4, points +1", author=GM)
    _tag(campaign, "counter Kara health 7", author=GM)
    _tag(campaign, "counter Kara health -1", author=GM)
    _tag(campaign, "counter Kara notes hiding in the loft", author=GM)
    kara = _kara(campaign)
    assert (4, 3, {"health": 6, "notes": "hiding in the loft"}) == (
        kara["traits"]["dexterity"],
        kara["willpower_points"],
        kara["counters"],
    )


def test_an_edit_with_problems_changes_nothing(campaign: Campaign) -> None:
    """set Kara dexterity 7, points 9: every problem at once, and the store is untouched."""
    before = _kara(campaign)
    with pytest.raises(UserError) as caught:
        _tag(campaign, "set Kara dexterity 7, humanity 11", author=GM)
    assert (
        "dexterity is 7" in caught.value.message,
        "humanity is 11" in caught.value.message,
        before,
    ) == (True, True, _kara(campaign))


# -- sheets and rulings -----------------------------------------------------------------


def test_an_application_is_validated_and_approved(campaign: Campaign) -> None:
    """A sheet with every problem listed at once; a fixed one is approved and can roll."""
    body = "[[apply]]\n\n```\nname: Nova\ndex: 7\nlockpicks: 2\nwillpower: 5\n```"
    context = tag_context(campaign, "nova_new", body=body)
    problems = resolve_tag(context, "apply").result.problems
    fixed = "[[apply]]\n\n```\nname: Nova\ndexterity: 3\nstealth: 2\nwillpower: 5\n```"
    resolve_tag(tag_context(campaign, "nova_new", body=fixed), "apply")
    resolve_tag(tag_context(campaign, GM), "approve Nova")
    roll = _tag(campaign, "roll Nova dexterity+stealth", [6] * 5, author="nova_new").result.roll
    assert (3, 5) == (len(problems), roll.plan.dice)


def test_the_campaign_names_its_traits(tmp_path: Path) -> None:
    """[rulings] abilities replaces the default list: pilot rolls, stealth is unknown."""
    campaign = make_campaign(
        tmp_path,
        [{"name": "Kara", "owner": PLAYER, "traits": {"dexterity": 3, "pilot": 2}}],
        system="pool",
        rulings={"abilities": ["Pilot", "Gunnery"]},
    )
    assert 5 == _tag(campaign, "roll Kara dexterity+pilot", [6] * 5).result.roll.plan.dice
    with pytest.raises(UserError, match="stealth"):
        _tag(campaign, "roll Kara dexterity+stealth")


def test_a_bad_trait_list_is_refused_at_load() -> None:
    """Willpower listed as an Ability: ConfigError saying it is on every sheet."""
    with pytest.raises(ConfigError, match="willpower is rated 1-10 on every sheet"):
        read_rulings({"abilities": ["Willpower"]})


def test_help_lists_the_pool_verbs(campaign: Campaign) -> None:
    """[[help]] in a pool campaign lists its verbs, player's and GM's."""
    names = [verb.name for verb in _tag(campaign, "help").result.verbs]
    assert {"roll", "act", "resist", "difficulty", "task", "contest", "session"} <= set(names)


def test_a_bare_pool_is_a_roll_not_notation(campaign: Campaign) -> None:
    """The pool's roll claims `6 diff 7` from the core's dice notation."""
    assert not isinstance(_tag(campaign, "roll 6 diff 7", [6] * 6, author=GM).result, RollDice)
    assert Fraction(1) == sum(
        _tag(campaign, "roll 6 diff 7", [6] * 6, author=GM).result.roll.distribution.values()
    )


def test_one_attribute_for_every_ability_of_a_declaration(campaign: Campaign) -> None:
    """act Kara dexterity: brawl, dodge, wits reflexive -> dex+brawl, dex+dodge, wits alone."""
    actions = _tag(
        campaign, "act Kara dexterity: brawl, dodge, wits reflexive", [6] * 12
    ).result.actions
    assert [("dexterity", "brawl"), ("dexterity", "dodge"), ("wits",)] == [
        tuple(trait.name for trait in roll.plan.traits) for roll in actions.rolls
    ]
