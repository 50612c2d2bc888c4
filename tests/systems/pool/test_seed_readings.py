"""pool as seed 000 reads: reflexive acts, resisted botches, one action a turn, chapters,
and what only the GM (the Narrator) decides: the difficulty, a pool's dice."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from referee.base.errors import Forbidden, RuleViolation, TagError
from referee.cli import main
from referee.pipeline.campaign import Campaign
from referee.testing.campaign import make_campaign
from referee.testing.resolving import resolve_tag, tag_context

OWNER, STRANGER, GM = "kara_plays", "passer_by", "gm"
MARCELO = {"dexterity": 3, "brawl": 4, "dodge": 3, "stamina": 2, "wits": 2}


@pytest.fixture
def campaign(tmp_path: Path):
    sheets = [
        {"name": "Marcelo", "owner": OWNER, "traits": MARCELO, "willpower": 3},
        {"name": "Guard", "kind": "npc", "traits": {"perception": 2, "alertness": 2}},
    ]
    opened = make_campaign(tmp_path, sheets, system="pool")
    yield opened
    opened.close()


_POSTS = itertools.count(1)


def _tag(campaign: Campaign, text: str, dice=(), author: str = OWNER, post: str | None = None):
    context = tag_context(campaign, author, thread="t3_a")
    context.post = type(context.post)(post or f"t1_{next(_POSTS)}", "t3_a", author, "", 1.0)
    return resolve_tag(context, text, dice)


# -- reflexive acts, resisted botches, chapters ----------------------------------------


def test_a_reflexive_act_is_not_counted_in_the_declared_actions(campaign: Campaign) -> None:
    """The seed: a reflexive act does not count; 2 actions and a soak: 7-2, 6-3, and 2 dice."""
    text = "act Marcelo 2: dexterity+brawl, dexterity+dodge, stamina reflexive"
    shown = _tag(campaign, text, [6] * 10).result
    plans = [roll.plan.dice for roll in shown.actions.rolls]
    assert ([5, 3, 2], 2, 1) == (plans, shown.declared, shown.reflexive)


def test_declaring_a_reflexive_act_as_an_action_is_refused(campaign: Campaign) -> None:
    """3 declared, 2 listed and a reflexive one: refused, saying a reflexive one is not counted."""
    with pytest.raises(TagError, match=r"declared 3 actions but listed 2 \(and 1 reflexive"):
        _tag(campaign, "act Marcelo 3: dexterity+brawl, dexterity+dodge, stamina reflexive")


def test_a_side_that_botches_loses_to_a_failure(tmp_path: Path, campaign: Campaign, capsys) -> None:
    """Marcelo 0 net (no 1s) against the Guard's botch: Marcelo wins with nothing to keep."""
    campaign.close()
    tag = "resist Marcelo dexterity vs Guard perception"
    main(["--campaign", str(tmp_path), "roll", tag, "--dice", "2,3,4,1,2", "--format", "markdown"])
    out = capsys.readouterr().out
    expected = "**Marcelo wins**, with no net success to keep (Guard botched)"
    assert (True, False) == (expected in out, "resisting side" in out)


def test_a_chapter_gives_every_free_botch_back(campaign: Campaign) -> None:
    """R-33: [[chapter]] starts a session as [[session]] does."""
    assert "session" == _tag(campaign, "chapter", author=GM).kind


# -- one action a turn -----------------------------------------------------------------


def test_a_second_roll_in_one_post_is_refused_unless_declared_together(
    campaign: Campaign,
) -> None:
    """Two rolls of Marcelo in one post: the second is refused, pointing to act; a soak is not."""
    _tag(campaign, "roll Marcelo dexterity+brawl", [6] * 7, post="t1_turn")
    with pytest.raises(RuleViolation, match=r"already acted in this post.*\[\[act Marcelo 2"):
        _tag(campaign, "roll Marcelo dexterity+dodge", [6] * 6, post="t1_turn")
    soak = _tag(campaign, "roll Marcelo stamina reflexive", [6] * 2, post="t1_turn").result
    later = _tag(campaign, "roll Marcelo dexterity+dodge", [6] * 6, post="t1_next").result
    assert (2, 6) == (soak.roll.plan.dice, later.roll.plan.dice)


def test_one_willpower_point_a_round_while_initiative_runs(campaign: Campaign) -> None:
    """With an initiative order, a turn is the round: a second post in round 1 spends nothing."""
    for tag in ("init add Marcelo 5", "init add Guard 3", "next"):
        _tag(campaign, tag, author=GM)
    _tag(campaign, "roll Marcelo wits willpower", [6, 6], post="t1_first")
    with pytest.raises(RuleViolation, match="already spent a Willpower point this turn"):
        _tag(campaign, "roll Marcelo wits willpower", [6, 6], post="t1_second")
    for _ in range(2):
        _tag(campaign, "next", author=GM)
    spent = _tag(campaign, "roll Marcelo wits willpower", [6, 6], post="t1_round2").result
    assert 1 == spent.points_left


# -- what only the GM decides (a player, the owner and a stranger) ---------------------

GM_ONLY = [
    ("roll Marcelo 10", "Only a GM may roll a number of dice for a character"),
    ("act Marcelo 2: 9, 9", "Only a GM may roll a number of dice for a character"),
    ("resist Marcelo 9 vs Guard", "Only a GM may roll a number of dice for a character"),
    ("roll Marcelo dexterity+brawl +3", r"Only a GM may add dice to a pool. Roll without \+3"),
]


@pytest.mark.parametrize(("text", "why"), GM_ONLY)
def test_the_owner_may_not_set_a_gm_option(campaign: Campaign, text: str, why: str) -> None:
    """Marcelo's player is refused a bare pool or extra dice for him, with the reason."""
    with pytest.raises(Forbidden, match=why):
        _tag(campaign, text, [6] * 20)


@pytest.mark.parametrize(("text", "why"), GM_ONLY)
def test_a_stranger_may_not_set_a_gm_option(campaign: Campaign, text: str, why: str) -> None:
    """Someone without Marcelo is refused the same tags (he does not control Marcelo)."""
    with pytest.raises(Forbidden):
        _tag(campaign, text, [6] * 20, author=STRANGER)


@pytest.mark.parametrize(("text", "why"), GM_ONLY)
def test_the_gm_may_set_a_gm_option(campaign: Campaign, text: str, why: str) -> None:
    """The GM rolls the same tags for Marcelo."""
    assert _tag(campaign, text, [6] * 20, author=GM).kind in ("roll", "actions", "pending")


def test_a_player_may_take_dice_off_his_own_pool(campaign: Campaign) -> None:
    """-1 die (a wound, say) is the player's to write: 7 - 1 = 6 dice."""
    assert 6 == _tag(campaign, "roll Marcelo dexterity+brawl -1", [6] * 6).result.roll.plan.dice


@pytest.mark.parametrize("diff", ["diff 3", "diff -7", "diff +1"])
def test_under_the_gms_difficulty_only_a_gm_changes_it(campaign: Campaign, diff: str) -> None:
    """After [[difficulty 9]]: the owner's and a stranger's diff are refused, the GM's is not."""
    _tag(campaign, "difficulty 9", author=GM)
    with pytest.raises(
        Forbidden, match=r"the GM set\. Roll without diff: his difficulty 9 applies"
    ):
        _tag(campaign, f"roll Marcelo wits {diff}", [6, 6])
    with pytest.raises(Forbidden):
        _tag(campaign, f"roll 6 {diff}", [6] * 6, author=STRANGER)
    gm = _tag(campaign, f"roll Marcelo wits {diff}", [6, 6], author=GM).result
    assert 2 <= gm.roll.plan.difficulty <= 10


def test_without_a_gm_difficulty_a_player_rolls_at_the_default(campaign: Campaign) -> None:
    """A thread of his own, no GM difficulty: the player's roll is at 6."""
    assert 6 == _tag(campaign, "roll Marcelo wits", [6, 6]).result.roll.plan.difficulty


@pytest.mark.parametrize("text", ["roll Marcelo wits diff 2", "roll Marcelo wits diff -4"])
def test_without_a_gm_difficulty_a_players_diff_is_refused(campaign: Campaign, text: str) -> None:
    """His own diff 2 where the GM set none is refused before a die falls, saying the
    default stands and how a GM sets one; nothing is rolled or stored."""
    before = campaign.store.table("characters").get("marcelo")
    with pytest.raises(Forbidden) as refused:
        _tag(campaign, text, [])  # no dice: a roll would fail for want of them
    assert (
        "Only a GM may set a roll's difficulty. Roll without diff: the default 6 applies "
        "until a GM sets one, for the thread with [[difficulty 8]] or for Marcelo's roll "
        "with [[difficulty 8 for Marcelo]].",
        before,
    ) == (refused.value.message, campaign.store.table("characters").get("marcelo"))


def test_without_a_gm_difficulty_a_strangers_bare_pool_keeps_the_default(
    campaign: Campaign,
) -> None:
    """A bare pool's diff 2, for nobody, is refused to a player too."""
    with pytest.raises(Forbidden, match="Only a GM may set a roll's difficulty"):
        _tag(campaign, "roll 6 diff 2", [], author=STRANGER)


def test_without_a_gm_difficulty_the_gm_writes_any(campaign: Campaign) -> None:
    """The GM's diff 2 for Marcelo is read."""
    gm = _tag(campaign, "roll Marcelo wits diff 2", [6, 6], author=GM).result
    assert 2 == gm.roll.plan.difficulty


def _campaign_letting_players_set_the_difficulty(tmp_path: Path) -> Campaign:
    sheets = [{"name": "Marcelo", "owner": OWNER, "traits": MARCELO, "willpower": 3}]
    rulings = {"player_difficulty": True}
    return make_campaign(tmp_path, sheets, system="pool", rulings=rulings)


def test_the_player_difficulty_ruling_lets_a_player_write_the_one_called_for(
    tmp_path: Path,
) -> None:
    """player_difficulty = true, no standing difficulty: the player's diff 2 (the GM's call,
    in prose) is read; the GM's standing 9 still binds him."""
    campaign = _campaign_letting_players_set_the_difficulty(tmp_path)
    try:
        called = _tag(campaign, "roll Marcelo wits diff 2", [6, 6]).result.roll
        _tag(campaign, "difficulty 9", author=GM)
        with pytest.raises(Forbidden, match="his difficulty 9 applies"):
            _tag(campaign, "roll Marcelo dexterity+brawl diff 2", [])
    finally:
        campaign.close()
    assert 2 == called.plan.difficulty


def test_a_difficulty_with_leading_zeros_is_read(tmp_path: Path) -> None:
    """diff 00000007 is difficulty 7 (where the campaign lets a player write it)."""
    campaign = _campaign_letting_players_set_the_difficulty(tmp_path)
    try:
        roll = _tag(campaign, "roll Marcelo wits diff 00000007", [6, 6]).result.roll
    finally:
        campaign.close()
    assert 7 == roll.plan.difficulty


# -- "The GM may forbid it for a roll" -------------------------------------------


def test_the_gm_forbids_willpower_for_one_roll(campaign: Campaign) -> None:
    """[[difficulty 8 no willpower for Marcelo]]: his next roll is at 8 without Willpower;
    the roll after it is at the thread's 6 and may spend a point again."""
    _tag(campaign, "difficulty 8 no willpower for Marcelo", author=GM)
    with pytest.raises(RuleViolation, match="forbidden Willpower here"):
        _tag(campaign, "roll Marcelo dexterity+brawl willpower", [8] * 7)
    called = _tag(campaign, "roll Marcelo dexterity+brawl", [8, 8, 7, 7, 2, 2, 2]).result.roll
    after = _tag(campaign, "roll Marcelo dexterity+brawl willpower", [7, 7, 2, 2, 2, 2, 2])
    assert (8, 2, 6, 3) == (
        called.plan.difficulty,
        called.net,
        after.result.roll.plan.difficulty,
        after.result.roll.net,
    )


def test_the_gms_word_on_a_roll_is_his_not_the_players(tmp_path: Path) -> None:
    """After the GM's difficulty for Marcelo Vaz's roll, his player's diff is refused (he
    writes Marcelo), saying what the GM set; a bare pool in the thread is not bound by it."""
    sheets = [{"name": "Marcelo Vaz", "owner": OWNER, "traits": MARCELO, "willpower": 3}]
    campaign = make_campaign(tmp_path, sheets, system="pool")
    _tag(campaign, "difficulty 9 for Marcelo", author=GM)
    with pytest.raises(Forbidden, match="he set difficulty 9 for Marcelo Vaz's roll"):
        _tag(campaign, "roll Marcelo dexterity+brawl diff 4", [6] * 7)
    other = _tag(campaign, "roll 3", [4, 4, 4], author=STRANGER).result.roll
    called = _tag(campaign, "roll Marcelo dexterity+brawl", [6] * 7).result.roll
    campaign.close()
    assert (6, 9) == (other.plan.difficulty, called.plan.difficulty)


def test_a_declared_side_keeps_the_gms_word_until_it_rolls(campaign: Campaign) -> None:
    """Marcelo's side of a resisted roll, declared under a Willpower ban for his roll, keeps
    the ban while it waits for the Guard's side; the GM's word is used up by it."""
    _tag(campaign, "difficulty no willpower for Marcelo", author=GM)
    _tag(campaign, "resist Marcelo dexterity+brawl vs Guard")
    record = campaign.store.table("pool_threads").get("t3_a")
    kept = record["pending"][0]["request"]["willpower_allowed"]
    resisted = _tag(campaign, "resist Guard perception vs Marcelo", [8] * 7 + [2, 2], author=GM)
    assert (False, {}, "resisted") == (kept, record["calls"], resisted.kind)


def test_end_encounter_drops_the_gms_word_on_a_roll(campaign: Campaign) -> None:
    """An unused word on Marcelo's next roll goes with the encounter."""
    _tag(campaign, "difficulty 8 for Marcelo", author=GM)
    ended = _tag(campaign, "end encounter", author=GM).result
    assert (1, 6) == (
        ended.detail.calls,
        _tag(campaign, "roll Marcelo dexterity+brawl", [6] * 7).result.roll.plan.difficulty,
    )
