"""Pool rolls: §2's seed vectors dice for dice, pools, difficulties, Willpower, the free botch."""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import RuleViolation, TagError, UnknownName
from referee.systems.changes import Change, apply_changes
from referee.systems.pool.rolls import (
    Actor,
    Face,
    Outcome,
    PoolSpec,
    RollRequest,
    Table,
    resolve_actions,
    resolve_roll,
)
from referee.systems.pool.rulings import EmptyAction, EmptyPool, OverTen, PoolRulings
from referee.systems.pool.sheet import Sheet, State


def kara(points: int = 5, free_botch_used: bool = False, turn: str | None = None) -> Actor:
    """Kara: Dexterity 3, Brawl 4, Dodge 3, Stealth 4, Willpower 6."""
    sheet = Sheet("Kara", {"dexterity": 3, "brawl": 4, "dodge": 3, "stealth": 4}, 6, 7)
    return Actor(sheet, State(points, free_botch_used, turn))


def roll(faces, pool=None, actor=None, table=None, **request):
    """Resolve one request against fixed dice and check every face was drawn."""
    dice = FixedDice(faces)
    verdict = resolve_roll(
        RollRequest(pool or PoolSpec(dice=len(faces)), **request), actor, table or Table(), dice
    )
    assert 0 == dice.remaining
    return verdict


def test_seed_three_successes_are_complete() -> None:
    """Difficulty 6, dice 3, 8, 7, 10: three successes, a complete success."""
    verdict = roll([3, 8, 7, 10], difficulty=6)
    r = verdict.roll
    assert (3, 0, 1, 3, Outcome.SUCCESS, "complete") == (
        r.successes,
        r.ones,
        r.tens,
        r.net,
        r.outcome,
        r.label,
    )
    assert [Face.BLANK, Face.SUCCESS, Face.SUCCESS, Face.SUCCESS] == [d.face for d in r.dice]


def test_seed_dexterity_stealth_without_a_success_is_a_failure() -> None:
    """Dexterity 2 + Stealth 4 at 7, dice 2,5,6,6,4,3: no success, no 1: failure, not botch."""
    alahu = Actor(Sheet("Alahu", {"dexterity": 2, "stealth": 4}, 5), State(5))
    verdict = roll([2, 5, 6, 6, 4, 3], PoolSpec(("dexterity", "stealth")), alahu, difficulty=7)
    r = verdict.roll
    assert (6, 0, 0, Outcome.FAILURE) == (r.plan.dice, r.successes, r.ones, r.outcome)


def test_seed_ones_cancelling_successes_are_a_plain_failure() -> None:
    """Difficulty 8, dice 9,1,1,8,1: two successes, three 1s: a failure, not a botch."""
    r = roll([9, 1, 1, 8, 1], difficulty=8).roll
    assert (2, 3, 0, Outcome.FAILURE) == (r.successes, r.ones, r.net, r.outcome)
    assert [True, True, True, True, False] == [d.cancelled for d in r.dice]


def test_seed_a_one_and_no_success_is_a_botch() -> None:
    """Difficulty 8, dice 1,3,4,3,7: no success and a 1: a botch."""
    r = roll([1, 3, 4, 3, 7], difficulty=8).roll
    assert (Outcome.BOTCH, True) == (r.outcome, r.botch)


def test_seed_multiple_actions_punch_and_two_dodges() -> None:
    """Dexterity 3 + Brawl 4 and two dodges (Dexterity 3 + Dodge 3): pools 4, 2 and 1."""
    punch = RollRequest(PoolSpec(("dex", "brawl")))
    dodge = RollRequest(PoolSpec(("dex", "dodge")))
    dice = FixedDice([6, 7, 8, 9, 6, 2, 10])
    verdict = resolve_actions([punch, dodge, dodge], kara(), Table(), dice)
    assert [4, 2, 1] == [r.plan.dice for r in verdict.rolls]
    assert [3, 4, 5] == [r.plan.penalty for r in verdict.rolls]
    assert [4, 1, 1] == [r.net for r in verdict.rolls]
    assert 0 == dice.remaining


def test_a_reflexive_action_is_not_counted_among_multiple_actions() -> None:
    """A punch, a reflexive soak and a dodge: two actions (penalties 2 and 3), the soak whole."""
    punch = RollRequest(PoolSpec(("dex", "brawl")))
    dodge = RollRequest(PoolSpec(("dex", "dodge")))
    soak = RollRequest(PoolSpec(dice=3), reflexive=True)
    verdict = resolve_actions([punch, soak, dodge], kara(), Table(), FixedDice([6] * 11))
    assert [5, 3, 3] == [r.plan.dice for r in verdict.rolls]


def test_an_action_left_without_dice_refuses_the_whole_declaration() -> None:
    """Four actions leave the last dodge with no die: nothing is rolled and the reply says why."""
    dodge = RollRequest(PoolSpec(("dex", "dodge")))
    dice = FixedDice([])
    with pytest.raises(RuleViolation, match="action 3: The pool comes to 0 dice") as caught:
        resolve_actions(
            [RollRequest(PoolSpec(("dex", "brawl")))] + [dodge] * 3, kara(), Table(), dice
        )
    assert "action 4" in caught.value.message


def test_an_action_left_without_dice_is_skipped_under_the_seeds_letter() -> None:
    """R-34 "skip": punch and first dodge roll with the penalties of 4 actions; 3 and 4 do not."""
    dodge = RollRequest(PoolSpec(("dex", "dodge")))
    table = Table(PoolRulings(empty_action=EmptyAction.SKIP))
    dice = FixedDice([6, 6, 6, 6])
    verdict = resolve_actions(
        [RollRequest(PoolSpec(("dex", "brawl")))] + [dodge] * 3, kara(), table, dice
    )
    assert ([3, 1], (1, 2), [3, 4]) == (
        [r.plan.dice for r in verdict.rolls],
        verdict.taken,
        [number for number, _ in verdict.skipped],
    )
    assert 0 == dice.remaining


def test_one_willpower_point_per_declaration() -> None:
    """Willpower on two actions of one turn is refused: one point a turn."""
    punch = RollRequest(PoolSpec(("dex", "brawl")), willpower=True)
    with pytest.raises(RuleViolation, match="one Willpower point a turn"):
        resolve_actions([punch, punch], kara(), Table(), FixedDice([]))


def test_willpower_adds_a_success_after_the_ones_cancel_and_spends_a_point() -> None:
    """A botching roll with Willpower is a minimal success, and Kara's points go 5 -> 4."""
    verdict = roll([1, 3, 4], PoolSpec(("dex",)), kara(), willpower=True, turn="t3")
    r = verdict.roll
    assert (Outcome.SUCCESS, 1, "minimal") == (r.outcome, r.net, r.label)
    assert (
        Change("character", "Kara", "willpower_points", 5, 4),
        Change("character", "Kara", "willpower_turn", None, "t3"),
    ) == verdict.changes


def test_willpower_cannot_be_cancelled_by_ones() -> None:
    """Two successes and three 1s with Willpower: net 1 (the rolled ones cancel, not the point)."""
    r = roll([9, 1, 1], PoolSpec(("dex",)), kara(), difficulty=8, willpower=True).roll
    assert 1 == r.net


def test_willpower_without_points_is_refused_with_what_he_has() -> None:
    """With no point left the roll is refused, saying 0 of 6."""
    with pytest.raises(RuleViolation, match=r"no Willpower point to spend \(0 of 6\)"):
        roll([], PoolSpec(("dex",)), kara(points=0), willpower=True)


def test_willpower_twice_in_one_turn_is_refused() -> None:
    """A second point in the same turn is refused; in another turn it is allowed."""
    with pytest.raises(RuleViolation, match="already spent a Willpower point this turn"):
        roll([], PoolSpec(("dex",)), kara(turn="t3"), willpower=True, turn="t3")
    assert (
        1
        == roll([2, 2, 2], PoolSpec(("dex",)), kara(turn="t3"), willpower=True, turn="t4").roll.net
    )


def test_willpower_forbidden_by_the_gm_or_the_ruling() -> None:
    """The GM may forbid Willpower on a roll; R-32 false takes it away from the campaign."""
    with pytest.raises(RuleViolation, match="GM has forbidden"):
        roll([], PoolSpec(("dex",)), kara(), willpower=True, willpower_allowed=False)
    table = Table(PoolRulings(willpower_success=False))
    with pytest.raises(RuleViolation, match="willpower_success = false"):
        roll([], PoolSpec(("dex",)), kara(), table, willpower=True)


def test_free_botch_turns_the_first_botch_into_a_failure() -> None:
    """R-33: a session's first botch is a failure and spends the free botch; the next botches."""
    table = Table(PoolRulings(free_botch=True))
    forgiven = roll([1, 3], PoolSpec(dice=2, modifier=0), kara(), table, difficulty=8)
    assert (Outcome.FAILURE, True) == (forgiven.roll.outcome, forgiven.roll.botch_forgiven)
    assert (Change("character", "Kara", "free_botch_used", False, True),) == forgiven.changes
    again = roll([1, 3], PoolSpec(dice=2), kara(free_botch_used=True), table, difficulty=8)
    assert Outcome.BOTCH == again.roll.outcome


def test_free_botch_spent_by_one_action_is_gone_for_the_next() -> None:
    """Two botching actions in one declaration: only the first is forgiven."""
    table = Table(PoolRulings(free_botch=True))
    actions = [RollRequest(PoolSpec(dice=4)), RollRequest(PoolSpec(dice=4))]
    verdict = resolve_actions(actions, kara(), table, FixedDice([1, 2, 1, 2]))
    assert [Outcome.FAILURE, Outcome.BOTCH] == [r.outcome for r in verdict.rolls]
    assert State(5, True) == apply_changes(kara().state, "character", "Kara", verdict.changes)


def test_free_botch_off_by_default() -> None:
    """Without the option a first botch is a botch."""
    assert Outcome.BOTCH == roll([1], PoolSpec(dice=1), kara()).roll.outcome


def test_standing_difficulty_applies_when_the_tag_names_none() -> None:
    """The thread's standing difficulty 8 is used; the tag's own difficulty overrides it."""
    table = Table(standing_difficulty=8)
    assert 8 == roll([7], table=table).roll.plan.difficulty
    assert 5 == roll([7], table=table, difficulty=5).roll.plan.difficulty
    assert 6 == roll([7]).roll.plan.difficulty


def test_modified_difficulty_is_clamped_or_refused() -> None:
    """R-30: 9 + 3 is clamped to 10 (showing 12 asked); without the clamp it is refused."""
    plan = roll([10], difficulty=9, difficulty_modifier=3).roll.plan
    assert (10, 12) == (plan.difficulty, plan.difficulty_asked)
    with pytest.raises(RuleViolation, match="difficulty_clamp = false"):
        roll(
            [],
            table=Table(PoolRulings(difficulty_clamp=False)),
            difficulty=9,
            difficulty_modifier=3,
        )
    with pytest.raises(RuleViolation, match="A difficulty is 2 to 10, not 11"):
        roll([], difficulty=11)


def test_a_ten_always_succeeds() -> None:
    """At difficulty 10 only a 10 succeeds, and it counts once."""
    assert (1, 1) == (
        roll([10, 9], difficulty=10).roll.successes,
        roll([10], difficulty=10).roll.net,
    )


def test_pool_over_ten_is_flagged_or_refused() -> None:
    """R-29: eleven dice are rolled and flagged extraordinary; under "refuse" refused."""
    assert roll([6] * 11).roll.plan.extraordinary
    assert not roll([6] * 10).roll.plan.extraordinary
    with pytest.raises(RuleViolation, match="beyond the human maximum"):
        roll([6] * 11, table=Table(PoolRulings(pool_over_10=OverTen.REFUSE)))


def test_dice_modifiers_change_the_pool() -> None:
    """Dexterity 3 + Stealth 4 - 2 rolls five dice."""
    r = roll([6] * 5, PoolSpec(("dex", "stealth"), modifier=-2), kara()).roll
    assert (7, -2, 5) == (r.plan.base, r.plan.modifier, r.plan.dice)


def test_an_empty_single_pool_is_refused_or_fails() -> None:
    """R-34: a single action with 0 dice is refused; under "fail" it fails without dice."""
    with pytest.raises(RuleViolation, match="at least one die"):
        roll([], PoolSpec(dice=0))
    r = roll(
        [], PoolSpec(dice=1, modifier=-3), table=Table(PoolRulings(empty_pool=EmptyPool.FAIL))
    ).roll
    assert (0, Outcome.FAILURE, ()) == (r.plan.dice, r.outcome, r.dice)


def test_trait_combinations_follow_the_seed() -> None:
    """An Attribute alone and Willpower alone roll; two Abilities, an Ability alone do not."""
    assert 3 == roll([6] * 3, PoolSpec(("dexterity",)), kara()).roll.plan.dice
    assert 6 == roll([6] * 6, PoolSpec(("willpower",)), kara()).roll.plan.dice
    refusals = {
        ("brawl", "dodge"): "both Abilities",
        ("dexterity", "strength"): "both Attributes",
        ("stealth",): "An Ability is rolled with an Attribute",
        ("willpower", "dexterity"): "rolled alone",
        ("dex", "brawl", "dodge"): "at most two traits",
    }
    for traits, message in refusals.items():
        with pytest.raises(RuleViolation, match=message):
            roll([], PoolSpec(traits), kara())


def test_unknown_or_ambiguous_traits_are_named() -> None:
    """A typo lists the traits; an ambiguous start asks for more letters."""
    with pytest.raises(UnknownName, match="'dexterty' is not a trait"):
        roll([], PoolSpec(("dexterty",)), kara())
    with pytest.raises(UnknownName, match="could be"):
        roll([], PoolSpec(("s",)), kara())


def test_traits_need_a_character_and_a_pool_needs_one_form() -> None:
    """Traits without a character, or traits and a number together, are refused."""
    with pytest.raises(RuleViolation, match="Name a character"):
        roll([], PoolSpec(("dex",)))
    with pytest.raises(TagError, match="not both or neither"):
        roll([], PoolSpec(("dex",), dice=3), kara())


def test_the_verdict_carries_the_exact_chance_of_its_band() -> None:
    """The seed's complete success at 4 dice, difficulty 6: P(3 or more net) exactly."""
    r = roll([3, 8, 7, 10], difficulty=6).roll
    assert Fraction(1) == sum(r.distribution.values())
    assert sum(p for n, p in r.distribution.items() if n >= 3) == r.chance
