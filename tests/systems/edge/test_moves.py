"""Edge moves: §4.2's vectors dice for dice, the policies, R-39 "ask" and its settling."""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import RuleViolation, UnknownName
from referee.systems.changes import Change, apply_changes
from referee.systems.edge.bands import Band
from referee.systems.edge.moves import (
    Actor,
    MoveRequest,
    Pending,
    Table,
    resolve_move,
    settle,
)
from referee.systems.edge.rulings import EdgeRulings, EdgeUse, Policy
from referee.systems.edge.sheet import Sheet, State


def kara(cool: int = 1, advantage: int = 1, policy: Policy = Policy.UP, **counters) -> Actor:
    """Kara with Cool ``cool``, her advantage die and policy, and any counters."""
    return Actor(Sheet("Kara", {"cool": cool}), State(advantage, policy, counters))


def move(actor: Actor, faces: list[int], table: Table | None = None, **request):
    """Resolve a move against exactly two fixed dice."""
    dice = FixedDice(faces)
    verdict = resolve_move(
        MoveRequest(**{"roll_on": "cool", **request}), actor, table or Table(), dice
    )
    assert 0 == dice.remaining
    return verdict


def test_vector_six_is_a_miss_and_the_gm_moves() -> None:
    """Stat +1, dice 3 and 2: 6, a miss, and the GM makes a move."""
    verdict = move(kara(cool=1), [3, 2])
    m = verdict.move
    assert (6, Band.MISS, True, False, ()) == (
        m.result.total,
        m.result.band,
        m.gm_moves,
        m.used,
        verdict.changes,
    )


def test_vector_advantage_four_lifts_the_miss_to_seven_to_nine() -> None:
    """With advantage 4 and edge=up the lower die (2) becomes 4: 3+4+1 = 8, advantage to 1."""
    verdict = move(kara(cool=1, advantage=4), [3, 2])
    m = verdict.move
    assert ((3, 2), 6, Band.MISS) == (m.plain.dice, m.plain.total, m.plain.band)
    assert ((3, 4), 8, Band.WEAK) == (m.result.dice, m.result.total, m.result.band)
    assert (True, False) == (m.used, m.gm_moves)
    assert (Change("character", "Kara", "advantage", 4, 1),) == verdict.changes


def test_vector_a_strong_hit_keeps_the_advantage() -> None:
    """Stat 0, dice 6 and 4: 10+; advantage 5 is not used and stays 5."""
    verdict = move(kara(cool=0, advantage=5), [6, 4])
    assert (10, Band.STRONG, False, ()) == (
        verdict.move.result.total,
        verdict.move.result.band,
        verdict.move.used,
        verdict.changes,
    )


def test_vector_advantage_that_cannot_lift_the_band_is_not_used() -> None:
    """Stat -1, dice 1 and 1, advantage 6: 6+1-1 = 6 is still a miss, so it is kept."""
    verdict = move(kara(cool=-1, advantage=6), [1, 1])
    m = verdict.move
    assert (6, Band.MISS, False, ()) == (m.boosted.total, m.result.band, m.used, verdict.changes)


@pytest.mark.parametrize(
    ("policy", "faces", "advantage", "used"),
    [
        (Policy.UP, [4, 4], 6, True),  # 9 -> 11
        (Policy.HIT, [4, 4], 6, False),  # already a hit
        (Policy.HIT, [3, 2], 4, True),  # 6 -> 8
        (Policy.STRONG, [3, 2], 4, False),  # 8 is not 10+
        (Policy.STRONG, [4, 4], 6, True),  # 9 -> 11
        (Policy.ALWAYS, [5, 2], 3, True),  # 8 -> 9, same band
        (Policy.ALWAYS, [5, 4], 3, False),  # 3 would lower it
        (Policy.NEVER, [1, 1], 6, False),
    ],
)
def test_each_policy_spends_the_advantage_when_it_says(policy, faces, advantage, used) -> None:
    """R-39: up, hit, strong, always and never, at Cool +1."""
    assert used == move(kara(advantage=advantage, policy=policy), faces).move.used


def test_a_roll_overrides_the_standing_policy() -> None:
    """Standing policy never, but this roll says up: the advantage lifts 6 to 8."""
    verdict = move(kara(advantage=4, policy=Policy.NEVER), [3, 2], policy=Policy.UP)
    assert (True, Policy.UP) == (verdict.move.used, verdict.move.policy)


def test_ask_leaves_a_band_lifting_roll_pending_until_the_player_answers() -> None:
    """R-39 "ask": 6 could be 8, so the verdict waits; `edge` spends it, `keep` keeps it."""
    table = Table(EdgeRulings(edge_use=EdgeUse.ASK))
    verdict = move(kara(advantage=4), [3, 2], table)
    assert (True, False, ()) == (verdict.move.pending, verdict.move.gm_moves, verdict.changes)
    assert verdict.pending is not None
    taken = settle(verdict.pending, True, State(4))
    kept = settle(verdict.pending, False, State(4))
    assert (8, (Change("character", "Kara", "advantage", 4, 1),)) == (
        taken.move.result.total,
        taken.changes,
    )
    assert (6, True, ()) == (kept.move.result.total, kept.move.gm_moves, kept.changes)


def test_ask_resolves_at_once_when_advantage_cannot_lift_the_band() -> None:
    """Under "ask" a roll the advantage cannot improve is final, and so is one with a policy."""
    table = Table(EdgeRulings(edge_use=EdgeUse.ASK))
    assert not move(kara(advantage=4), [6, 4], table).move.pending
    assert not move(kara(advantage=4), [3, 2], table, policy=Policy.NEVER).move.pending


def test_settling_refuses_when_the_advantage_changed_since_the_roll() -> None:
    """The GM lowered the advantage between the roll and the answer: refused."""
    pending = Pending("Kara", "", "cool", 1, 0, (3, 2), 4)
    with pytest.raises(RuleViolation, match="advantage is 3 now, not the 4"):
        settle(pending, True, State(3))


def test_a_counter_and_modifiers_add_to_the_roll() -> None:
    """2d6 + harm 2 - 1: dice 3 and 3 make 7."""
    verdict = move(kara(harm=2), [3, 3], roll_on="harm", modifier=-1)
    assert ("harm", 2, -1, 7) == (
        verdict.move.roll_on,
        verdict.move.rating,
        verdict.move.modifier,
        verdict.move.result.total,
    )


def test_a_move_without_a_stat_and_an_unknown_stat_are_refused() -> None:
    """A move is 2d6 + a stat or counter (the seed): none, or an unknown one, rolls nothing."""
    with pytest.raises(RuleViolation, match="Name the stat or counter Kara rolls"):
        move(kara(), [], roll_on=None)
    with pytest.raises(UnknownName, match="the stats and counters are cool, hard"):
        move(kara(), [], roll_on="luck")


def test_applying_the_changes_spends_the_advantage() -> None:
    """The change set of a used advantage, applied, leaves advantage 1."""
    actor = kara(advantage=4)
    verdict = move(actor, [3, 2])
    assert 1 == apply_changes(actor.state, "character", "Kara", verdict.changes).advantage


def test_the_verdict_carries_exact_odds_both_ways() -> None:
    """Cool +1, advantage 4: 5/18 miss without it, 1/36 with it; the chance is of the band shown."""
    m = move(kara(advantage=4), [3, 2]).move
    assert (Fraction(5, 18), Fraction(1, 36), Fraction(5, 12)) == (
        m.odds_plain[Band.MISS],
        m.odds_with[Band.MISS],
        m.chance,
    )
