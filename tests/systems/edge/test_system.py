"""edge wired into a campaign: §4 vectors through tags, the policy, resets, permissions, state."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from referee.base.errors import ConfigError, Forbidden, UserError
from referee.base.posts import Post
from referee.pipeline.campaign import Campaign, load_config
from referee.pipeline.flow import Referee
from referee.system import installed_systems, load_system
from referee.systems.edge.bands import Band
from referee.systems.edge.system import SYSTEM
from referee.testing.campaign import make_campaign
from referee.testing.conformance import check_system
from referee.testing.resolving import resolve_tag, tag_context

PLAYER, GM = "kara_plays", "gm"


def _sheets(kara: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    return [
        {"name": "Kara Venn", "kind": "pc", "owner": PLAYER, "stats": {"cool": 1}, **(kara or {})},
        {"name": "Dax", "kind": "pc", "owner": "dax_plays", "stats": {"hard": -1}},
    ]


@pytest.fixture
def campaign(tmp_path: Path):
    opened = make_campaign(tmp_path, _sheets({"advantage": 4}), system="edge")
    yield opened
    opened.close()


def _character(campaign: Campaign, name: str = "kara venn") -> dict[str, Any]:
    return campaign.store.table("characters").get(name)["sheet"]


def _tag(campaign: Campaign, text: str, dice=(), author: str = PLAYER, thread: str = "t3_a"):
    return resolve_tag(tag_context(campaign, author, thread=thread), text, dice)


def test_edge_is_a_built_in_system() -> None:
    """`referee systems` lists edge, and the registry loads it by name."""
    assert ("edge" in installed_systems(), "edge") == (True, load_system("edge").name)


def test_edge_passes_the_conformance_kit(tmp_path: Path) -> None:
    """Help and a resolving example per verb, exact odds against 100,000 rolls, rulings."""
    report = check_system(SYSTEM, tmp_path)
    assert ([], {verb.name for verb in SYSTEM.verbs}) == (report.problems, set(report.examples))


def test_first_vector_spends_the_advantage_and_resets_it(campaign: Campaign) -> None:
    """Stat +1, dice 3,2 -> 6 miss; advantage 4 under up replaces the 2: 8, and advantage -> 1."""
    move = _tag(campaign, "move Kara cool", [3, 2]).result
    assert (6, Band.MISS, 8, Band.WEAK, True) == (
        move.plain.total,
        move.plain.band,
        move.result.total,
        move.result.band,
        move.used,
    )
    assert 1 == _character(campaign)["advantage"]


def test_second_vector_keeps_an_unneeded_advantage(tmp_path: Path) -> None:
    """Stat 0, dice 6,4 -> 10+; advantage 5 is not used and stays 5."""
    campaign = make_campaign(tmp_path, _sheets({"advantage": 5}), system="edge")
    move = _tag(campaign, "move Kara hard", [6, 4]).result
    assert (10, Band.STRONG, False, 5) == (
        move.result.total,
        move.result.band,
        move.used,
        _character(campaign)["advantage"],
    )


def test_third_vector_does_not_spend_advantage_that_cannot_lift_the_band(tmp_path: Path) -> None:
    """Stat -1, dice 1,1, advantage 6, edge=up: 6+1-1 = 6 is still a miss, so it is kept."""
    campaign = make_campaign(
        tmp_path, _sheets({"advantage": 6, "stats": {"cool": -1}}), system="edge"
    )
    move = _tag(campaign, "move Kara cool edge=up", [1, 1]).result
    assert (1, 6, False, True, 6) == (
        move.result.total,
        move.boosted.total,
        move.used,
        move.gm_moves,
        _character(campaign)["advantage"],
    )


def test_gm_lowers_advantage_one_and_it_stays_one(campaign: Campaign) -> None:
    """§4.2: the GM lowers advantage 1 -> it stays 1."""
    _tag(campaign, "set Kara advantage 1", author=GM)
    adjusted = _tag(campaign, "lower Kara", author=GM).result
    assert (1, 1) == (adjusted.before, adjusted.after)


def test_end_of_encounter_resets_every_participant_of_the_thread(campaign: Campaign) -> None:
    """§4.2: 5 -> 1 at the end of the encounter, for those who took part in the thread only."""
    _tag(campaign, "set Kara advantage 5", author=GM)
    _tag(campaign, "set Dax advantage 3", author=GM, thread="t3_other")
    end = _tag(campaign, "end encounter", author=GM).result
    assert ([("Kara Venn", 5)], 1, 3) == (
        [(reset.name, reset.before) for reset in end.detail.resets],
        _character(campaign)["advantage"],
        _character(campaign, "dax")["advantage"],
    )


def test_a_second_end_of_encounter_finds_nobody(campaign: Campaign) -> None:
    """The thread's participants are forgotten once the encounter ends."""
    _tag(campaign, "move Kara cool", [6, 6])
    _tag(campaign, "end encounter", author=GM)
    assert False is _tag(campaign, "end encounter", author=GM).result.had_order


@pytest.mark.parametrize(
    ("policy", "dice", "used"),
    [
        ("up", [3, 2], True),  # 6 -> 8: the band rises
        ("hit", [3, 2], True),  # a miss turned into 7+
        ("strong", [3, 2], False),  # 8 is not 10+
        ("strong", [5, 3], True),  # 9 -> 10: reaches 10+
        ("never", [3, 2], False),
        ("always", [5, 2], True),  # 8 -> 10 ... and any rise at all
        ("always", [5, 5], False),  # no die below the advantage: nothing to gain
    ],
)
def test_the_standing_policy_decides_when_the_advantage_is_spent(
    campaign: Campaign, policy: str, dice: list[int], used: bool
) -> None:
    """A policy set by tag holds for later moves: spent exactly when that policy says."""
    _tag(campaign, f"policy Kara {policy}")
    assert used is _tag(campaign, "move Kara cool", dice).result.used


def test_a_roll_s_own_policy_overrides_the_standing_one(campaign: Campaign) -> None:
    """edge=never on the tag keeps the advantage though the standing policy is up."""
    move = _tag(campaign, "move Kara cool edge=never", [3, 2]).result
    assert (False, 4, "never") == (move.used, _character(campaign)["advantage"], move.policy.value)


def test_the_campaign_default_policy_applies_until_a_character_sets_one(tmp_path: Path) -> None:
    """default_policy = never: the advantage is kept until the player says otherwise."""
    campaign = make_campaign(
        tmp_path, _sheets({"advantage": 4}), system="edge", rulings={"default_policy": "never"}
    )
    kept = _tag(campaign, "move Kara cool", [3, 2]).result.used
    _tag(campaign, "policy Kara up")
    assert (False, True) == (kept, _tag(campaign, "move Kara cool", [3, 2]).result.used)


def test_band_odds_of_a_plain_move_are_exact(campaign: Campaign) -> None:
    """2d6+0 without advantage: miss 15/36, 7-9 15/36, 10+ 6/36; the verdict carries them."""
    _tag(campaign, "set Kara advantage 1", author=GM)
    move = _tag(campaign, "move Kara hard", [6, 6]).result
    expected = {
        Band.MISS: Fraction(15, 36),
        Band.WEAK: Fraction(15, 36),
        Band.STRONG: Fraction(6, 36),
    }
    assert (expected, expected) == (dict(move.odds_plain), dict(move.odds_with))


def test_odds_with_advantage_follow_rules_table(campaign: Campaign) -> None:
    """§4.2 table: stat +1, advantage 4, edge=up: 1/36, 5/12, 5/9 (and 5/18, 4/9, 5/18 without)."""
    move = _tag(campaign, "move Kara cool", [6, 6]).result
    assert (
        [Fraction(1, 36), Fraction(5, 12), Fraction(5, 9)],
        [Fraction(5, 18), Fraction(4, 9), Fraction(5, 18)],
    ) == ([move.odds_with[b] for b in Band], [move.odds_plain[b] for b in Band])


def test_counters_roll_like_stats(campaign: Campaign) -> None:
    """A GM sets harm 2; a move on harm adds 2."""
    _tag(campaign, "set Kara harm 2", author=GM)
    assert 9 == _tag(campaign, "move Kara harm edge=never", [4, 3]).result.result.total


@pytest.mark.parametrize("text", ["lower Kara", "set Kara advantage 6", "set Kara cool 3"])
def test_players_may_not_use_gm_verbs(campaign: Campaign, text: str) -> None:
    """Lowering and setting are the GM's: a player is refused, told only a GM may."""
    with pytest.raises(Forbidden, match="GM"):
        _tag(campaign, text)


def test_raise_is_the_gm_s_under_r13_by_default(campaign: Campaign) -> None:
    """R-13 gm: a player's raise is refused naming the ruling; the GM's goes up one, to 6."""
    with pytest.raises(Forbidden, match="edge_raise = gm"):
        _tag(campaign, "raise Kara")
    results = [_tag(campaign, "raise Kara", author=GM).result.after for _ in range(3)]
    assert [5, 6, 6] == results


def test_raise_by_the_player_under_r13_player(tmp_path: Path) -> None:
    """R-13 player: the player raises his own, not another's."""
    campaign = make_campaign(tmp_path, _sheets(), system="edge", rulings={"edge_raise": "player"})
    assert 2 == _tag(campaign, "raise Kara").result.after
    with pytest.raises(Forbidden, match="dax_plays"):
        _tag(campaign, "raise Dax")


def test_a_player_moves_only_his_own_character(campaign: Campaign) -> None:
    """Dax's player may not roll for Kara."""
    with pytest.raises(Forbidden, match="belongs to u/kara_plays"):
        _tag(campaign, "move Kara cool", [3, 3], author="dax_plays")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("set Kara cool 4", "a stat is -3 to 3"),
        ("set Kara advantage 7", "1 to 6"),
        ("move Kara luck", "not a stat or counter"),
        ("move Kara cool edge=sometimes", "not a policy"),
        ("policy Kara maybe", "not a policy"),
        ("set Kara", "Name the character, what to set"),
    ],
)
def test_bad_requests_say_how_to_fix_them(campaign: Campaign, text: str, message: str) -> None:
    """Every refusal names what is wrong; nothing is written."""
    with pytest.raises(UserError, match=message):
        _tag(campaign, text, [3, 3], author=GM)
    assert 4 == _character(campaign)["advantage"]


def test_state_survives_posts_and_a_reopen_of_the_store(tmp_path: Path) -> None:
    """Advantage, policy and counters set in one run are there after the store is reopened."""
    campaign = make_campaign(tmp_path, _sheets(), system="edge")
    _tag(campaign, "set Kara advantage 3", author=GM)
    _tag(campaign, "set Kara hold 2", author=GM)
    _tag(campaign, "policy Kara strong")
    campaign.store.flush()
    campaign.close()
    reopened = Campaign(load_config(tmp_path / "config.toml"), campaign.secret)
    try:
        sheet = _character(reopened)
        move = _tag(reopened, "move Kara hold", [6, 1]).result
    finally:
        reopened.close()
    assert (3, "strong", {"hold": 2}, 11, "strong") == (
        sheet["advantage"],
        sheet["policy"],
        sheet["counters"],
        move.result.total,
        move.policy.value,
    )


def test_an_application_is_validated_whole_and_approved(campaign: Campaign) -> None:
    """A sheet with every problem listed at once; the fixed one is approved at advantage 1."""
    bad = "[[apply]]\n\n```\nname: Orla\ncool: 5\nluck: 1\nharm: 2\n```"
    result = _tag_post(campaign, bad, "orla").result
    good = "[[apply]]\n\n```\nname: Orla\ncool: 2\nhot: -1\npolicy: hit\n```"
    _tag_post(campaign, good, "orla")
    _tag(campaign, "approve Orla", author=GM)
    assert (3, 1, "hit", {"cool": 2, "hot": -1}) == (
        len(result.problems),
        _character(campaign, "orla")["advantage"],
        _character(campaign, "orla")["policy"],
        _character(campaign, "orla")["stats"],
    )


def _tag_post(campaign: Campaign, body: str, author: str):
    context = tag_context(campaign, author, body=body)
    return resolve_tag(context, "apply")


def test_campaign_stats_and_counters_come_from_config(tmp_path: Path) -> None:
    """[rulings] stats and counters replace the defaults; names fold to lower case."""
    campaign = make_campaign(
        tmp_path,
        [{"name": "Kara Venn", "owner": PLAYER, "stats": {"blood": 2}}],
        system="edge",
        extra_config='stats = ["Blood", "Heart"]\ncounters = ["Doom"]\n',
    )
    _tag(campaign, "set Kara doom 1", author=GM)
    assert (10, 7) == (
        _tag(campaign, "move Kara blood edge=never", [4, 4]).result.result.total,
        _tag(campaign, "move Kara doom edge=never", [3, 3]).result.result.total,
    )


def test_bad_rulings_are_all_reported(tmp_path: Path) -> None:
    """A duplicated name and an unknown key, in one ConfigError; the ask mode is accepted."""
    with pytest.raises(ConfigError) as unknown:
        SYSTEM.read_rulings({"stats": ["cool", "cool"], "edge_use": "ask", "luck": 1})
    with pytest.raises(ConfigError) as twice:
        SYSTEM.read_rulings({"stats": ["cool", "cool"], "edge_use": "ask"})
    assert (True, True) == (
        "'luck' is not a ruling" in unknown.value.message,
        "listed twice" in twice.value.message,
    )
    assert "ask" == SYSTEM.read_rulings({"edge_use": "ask"}).edge_use.value


def _asking(tmp_path: Path) -> Campaign:
    """Kara (cool +1, advantage 4) in a campaign where the player chooses after the dice."""
    return make_campaign(tmp_path, _sheets({"advantage": 4}), system="edge", rulings=ASK)


ASK = {"edge_use": "ask"}


def test_ask_waits_then_edge_spends_the_advantage(tmp_path: Path) -> None:
    """Under ask, 3,2 +1 waits (6, or 8 with the advantage); [[edge Kara]]: 8, advantage 1."""
    campaign = _asking(tmp_path)
    waiting = _tag(campaign, "move Kara cool", [3, 2]).result
    answered = _tag(campaign, "edge Kara").result
    assert (True, 6, 8, Band.WEAK, True, 1) == (
        waiting.pending,
        waiting.result.total,
        answered.result.total,
        answered.result.band,
        answered.used,
        _character(campaign)["advantage"],
    )


def test_ask_then_keep_leaves_the_roll_and_the_advantage(tmp_path: Path) -> None:
    """Under ask, [[keep Kara]] lets 6 stand as a miss and the advantage stays 4."""
    campaign = _asking(tmp_path)
    _tag(campaign, "move Kara cool", [3, 2])
    kept = _tag(campaign, "keep Kara").result
    assert (6, Band.MISS, False, 4, None) == (
        kept.result.total,
        kept.result.band,
        kept.used,
        _character(campaign)["advantage"],
        _character(campaign).get("pending"),
    )


def test_ask_another_move_keeps_the_waiting_one(tmp_path: Path) -> None:
    """A second move while one waits lets the first stand as rolled; [[edge]] then finds none."""
    campaign = _asking(tmp_path)
    _tag(campaign, "move Kara cool", [3, 2])
    second = _tag(campaign, "move Kara cool", [6, 5]).result
    with pytest.raises(UserError, match="Kara Venn has no move waiting for edge or keep"):
        _tag(campaign, "edge Kara")
    assert (True, False, 4) == (
        second.kept_earlier,
        second.pending,
        _character(campaign)["advantage"],
    )


def test_ask_does_not_wait_when_the_advantage_cannot_raise_the_band(tmp_path: Path) -> None:
    """Under ask, 6,4 +1 is 11 already: nothing waits and the advantage stays 4."""
    campaign = _asking(tmp_path)
    move = _tag(campaign, "move Kara cool", [6, 4]).result
    assert (False, 11, None) == (
        move.pending,
        move.result.total,
        _character(campaign).get("pending"),
    )


def test_ask_answers_are_the_players_and_final_is_the_gms(tmp_path: Path) -> None:
    """Another player may not answer Kara's move, nor may she use final; the GM's final keeps it."""
    campaign = _asking(tmp_path)
    _tag(campaign, "move Kara cool", [3, 2])
    with pytest.raises(Forbidden):
        _tag(campaign, "edge Kara", author="dax_plays")
    with pytest.raises(Forbidden, match="Only a GM may settle a move"):
        _tag(campaign, "final Kara")
    final = _tag(campaign, "final Kara", author=GM).result
    assert (6, False, 4) == (final.result.total, final.used, _character(campaign)["advantage"])


def test_ask_edge_after_the_gm_lowered_the_advantage_is_refused(tmp_path: Path) -> None:
    """The GM lowers 4 -> 3 while the move waits: edge is refused (keep still stands)."""
    campaign = _asking(tmp_path)
    _tag(campaign, "move Kara cool", [3, 2])
    _tag(campaign, "lower Kara", author=GM)
    with pytest.raises(UserError, match="can no longer be spent on it"):
        _tag(campaign, "edge Kara")
    assert 6 == _tag(campaign, "keep Kara").result.result.total


def test_a_move_without_a_stat_is_refused(campaign: Campaign) -> None:
    """[[move Kara Venn]] names no stat: refused, listing the stats, and the advantage stays."""
    with pytest.raises(UserError, match=r"a move is 2d6 \+ a stat \(cool, hard"):
        _tag(campaign, "move Kara Venn", [3, 2])
    assert 4 == _character(campaign)["advantage"]


def test_a_refused_tag_leaves_the_advantage_untouched(campaign: Campaign) -> None:
    """A refused move spends nothing: the store is unchanged."""
    with pytest.raises(UserError):
        _tag(campaign, "move Kara cool +99999", [3, 2])
    assert 4 == _character(campaign)["advantage"]


def test_a_post_renders_both_readings_odds_and_the_gm_move(tmp_path: Path) -> None:
    """Through the pipeline: names escaped, the band in bold, odds, the GM's move on a miss."""
    sheets = [{"name": "Kara_*Venn*", "owner": PLAYER, "stats": {"cool": -3}, "advantage": 6}]
    campaign = make_campaign(tmp_path, sheets, system="edge")
    tags = " ".join(f'[[move Kara_*Venn* cool edge=never "try {n}"]]' for n in range(8))
    outcome = Referee(campaign).referee(Post("t1_x", "t3_a", PLAYER, tags, 1.0))
    text = outcome.text
    assert ("Kara\\_\\*Venn\\*" in text, "Kara_*Venn*" in text) == (True, False)
    assert (8, 8) == (text.count("Odds without the advantage: miss"), outcome.new_rolls)
    assert text.count("miss** (6-). **The GM makes a move.**") == text.count(", miss**")
    assert 0 < text.count(", miss**")  # -3 misses 26 times in 36: 8 moves all but surely miss once


def test_a_long_post_s_compact_verdicts_keep_the_band_and_its_chance(tmp_path: Path) -> None:
    """Forty moves do not fit a comment in full: each compact verdict still has band and odds."""
    sheets = [{"name": "Kara", "owner": PLAYER, "stats": {"cool": 1}}]
    campaign = make_campaign(tmp_path, sheets, system="edge")
    tags = " ".join(f'[[move Kara cool edge=never "act under fire {n}"]]' for n in range(40))
    outcome = Referee(campaign).referee(Post("t1_x", "t3_a", PLAYER, tags, 1.0))
    chances = ("(6-: 27.8%)", "(7-9: 44.4%)", "(10+: 27.8%)")
    assert (40, 40) == (
        outcome.text.count("^(roll"),
        sum(outcome.text.count(chance) for chance in chances),
    )
