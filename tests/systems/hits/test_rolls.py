"""Rolls of hits: every §5.2 vector dice for dice, and the roll kinds of §5."""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import RuleViolation
from referee.systems.hits.rolls import (
    Outcome,
    PoolSpec,
    QuickSpec,
    level_outcome,
    pool_shape,
    quick_dice,
    redo_level,
    redo_pool,
    roll_group,
    roll_level,
    roll_opposed,
    roll_pool,
    roll_quick,
    round_up,
)
from referee.systems.hits.rulings import Rulings

# (spec, Level, dice in draw order, hits, dice added by crits, outcome): §5.2 verbatim.
VECTORS = [
    (PoolSpec(4), 1, [6, 4, 2, 1, 3], 2, [3], Outcome.PARTIAL),
    (PoolSpec(4), 1, [6, 6, 5, 1, 6, 2, 4], 5, [6, 2, 4], Outcome.SUCCESS),
    (PoolSpec(2), 1, [3, 3], 0, [], Outcome.FAIL),
    (PoolSpec(3), 2, [4, 5, 4], 3, [], Outcome.PARTIAL),
    (PoolSpec(4, advantage=1), 1, [3, 3, 2, 1], 2, [], Outcome.PARTIAL),
    (PoolSpec(4, disadvantage=1), 1, [6, 4, 3, 5, 1], 2, [1], Outcome.PARTIAL),
    (PoolSpec(2, disadvantage=3), 1, [6, 5, 2], 1, [2], Outcome.FAIL),
    (PoolSpec(2, advantage=1), 1, [5, 2], 1, [], Outcome.FAIL),
]


@pytest.mark.parametrize(("spec", "level", "faces", "hits", "added", "outcome"), VECTORS)
def test_section_5_2_vectors(spec, level, faces, hits, added, outcome):
    """Each §5.2 roll gives its hits and outcome, drawing exactly its dice, crit dice last."""
    dice = FixedDice(faces)
    test = roll_level(spec, level, dice)
    assert 0 == dice.remaining
    assert faces == [d.face for d in test.roll.dice]
    assert added == [d.face for d in test.roll.dice if d.from_crit]
    assert hits == test.roll.hits
    assert outcome == test.outcome


def test_crit_under_disadvantage_stays_a_hit():
    """Disadvantage 3: a natural 6 still hits and crits (R-41 natural), its face counts 3."""
    roll = roll_pool(PoolSpec(1, disadvantage=3), FixedDice([6, 2]))
    first = roll.dice[0]
    assert (6, 3, True, True) == (first.face, first.value, first.hit, first.crit)


def test_advantage_does_not_make_a_crit():
    """Advantage 1: a 5 shows 6 but does not crit, since only a natural 6 crits (R-41)."""
    roll = roll_pool(PoolSpec(1, advantage=1), FixedDice([5]))
    assert (6, True, False) == (roll.dice[0].value, roll.dice[0].hit, roll.dice[0].crit)


def test_modified_crit_face_ruling():
    """R-41 modified: a 5 with Advantage 1 crits and explodes; a 6 with Disadvantage 1 misses it."""
    rulings = Rulings(crit_face="modified")
    assert 2 == roll_pool(PoolSpec(1, advantage=1), FixedDice([5, 3]), rulings).hits
    roll = roll_pool(PoolSpec(1, disadvantage=3), FixedDice([6]), rulings)
    assert (False, False) == (roll.dice[0].hit, roll.dice[0].crit)


def test_modified_crit_refuses_endless_explosions():
    """Under R-41 modified, a net Advantage of 5 would crit every die for ever: refused."""
    with pytest.raises(RuleViolation, match="for ever"):
        roll_pool(PoolSpec(2, advantage=5), FixedDice([]), Rulings(crit_face="modified"))


def test_extra_dice_advantage():
    """R-23 extra_dice: Advantage adds dice, Disadvantage removes them, faces unchanged."""
    rulings = Rulings(advantage="extra_dice")
    assert (5, 0) == pool_shape(PoolSpec(4, advantage=1), rulings)
    assert (0, 0) == pool_shape(PoolSpec(1, disadvantage=3), rulings)
    roll = roll_pool(PoolSpec(2, advantage=1), FixedDice([3, 4, 1]), rulings)
    assert ([3, 4, 1], 1) == ([d.value for d in roll.dice], roll.hits)


def test_level_table_thresholds():
    """Outside combat: < Level+1 fails, ≥ Level+1 partial, ≥ 2 × (Level+1) succeeds."""
    assert [Outcome.FAIL, Outcome.PARTIAL, Outcome.PARTIAL, Outcome.SUCCESS] == [
        level_outcome(hits, 2) for hits in (2, 3, 5, 6)
    ]


def test_quick_roll_vector():
    """§5.2: quick roll 6,6 is a success with no explosion."""
    dice = FixedDice([6, 6])
    quick = roll_quick(QuickSpec((4,), advantage=1), dice)
    assert (0, (6, 6), 2, Outcome.SUCCESS) == (
        dice.remaining,
        quick.faces,
        quick.hits,
        quick.outcome,
    )


def test_quick_roll_dice_per_source():
    """A quick roll throws one die per source, two for a source of 5+, ± Advantage (R-45)."""
    assert [1, 2, 3, 0, 1] == [
        quick_dice(QuickSpec((4,))),
        quick_dice(QuickSpec((6,))),
        quick_dice(QuickSpec((2, 5))),
        quick_dice(QuickSpec((3,), disadvantage=2)),
        quick_dice(QuickSpec((0, 3))),
    ]


def test_quick_roll_outcomes():
    """No hit fails, one hit is partial, two or more succeed; a 6 is only a hit."""
    assert [Outcome.FAIL, Outcome.PARTIAL, Outcome.SUCCESS] == [
        roll_quick(QuickSpec((6,)), FixedDice(faces)).outcome for faces in ([1, 3], [6, 2], [4, 5])
    ]


def test_opposed_vector():
    """§5.2: 5,4,1 against 6,3 +2 is 2 hits to 1; the first roller wins."""
    dice = FixedDice([5, 4, 1, 6, 3, 2])
    opposed = roll_opposed([("Kara", PoolSpec(3)), ("Bandit", PoolSpec(2))], dice)
    ((kara, bandit),) = opposed.rounds
    assert (0, 2, 1, ("Kara",)) == (dice.remaining, kara.hits, bandit.hits, opposed.winners)


def test_opposed_ties_reroll_only_the_tied():
    """R-43: a tie for most hits rerolls only the tied; the third roller sits it out."""
    dice = FixedDice([4, 5, 1, 4, 2])
    sides = [("A", PoolSpec(1)), ("B", PoolSpec(1)), ("C", PoolSpec(1))]
    opposed = roll_opposed(sides, dice)
    assert 0 == dice.remaining
    assert 2 == len(opposed.rounds)
    assert opposed.rounds[1][2] is None
    assert ("A",) == opposed.winners


def test_opposed_tie_awarded_to_all():
    """The GM may give a tied, not mutually exclusive Reward to all tied: no reroll."""
    dice = FixedDice([4, 5])
    opposed = roll_opposed([("A", PoolSpec(1)), ("B", PoolSpec(1))], dice, award_ties_to_all=True)
    assert (("A", "B"), True, 1) == (opposed.winners, opposed.awarded_to_all, len(opposed.rounds))


def test_opposed_with_no_possible_hit_is_refused():
    """Two empty pools would tie for ever: refused, naming the GM's way out."""
    with pytest.raises(RuleViolation, match="award"):
        roll_opposed([("A", PoolSpec(0)), ("B", PoolSpec(0))], FixedDice([]))


def test_group_roll_best_counts_with_its_rollers_level():
    """Group: the most hits counts, judged at that roller's Level (R-42 roller)."""
    dice = FixedDice([4, 4, 1, 5, 5, 5])
    group = roll_group([("Kara", PoolSpec(3), 1), ("Dax", PoolSpec(3), 2)], dice)
    assert (1, 2, Outcome.PARTIAL) == (group.counting, group.level, group.outcome)


def test_group_roll_highest_level_ruling():
    """R-42 highest: the thresholds use the group's highest Level whoever rolled best."""
    dice = FixedDice([4, 4, 1, 1])
    group = roll_group(
        [("Kara", PoolSpec(3), 1), ("Dax", PoolSpec(1), 3)], dice, Rulings(group_level="highest")
    )
    assert (0, 3, Outcome.FAIL) == (group.counting, group.level, group.outcome)


def test_group_tie_takes_the_lower_level_by_default():
    """Rollers of different Levels tied for most: the lower Level counts (group_ties lowest)."""
    dice = FixedDice([4, 4, 4, 4])
    group = roll_group([("Dax", PoolSpec(2), 3), ("Kara", PoolSpec(2), 1)], dice)
    assert (1, Outcome.PARTIAL) == (group.counting, group.outcome)


def test_all_in_redo_stands_and_is_once():
    """All in: the redo's result stands; a redone roll cannot be redone again."""
    first = roll_level(PoolSpec(2), 1, FixedDice([1, 2]))
    redo = redo_level(first, FixedDice([4, 6, 5]))
    assert (3, Outcome.PARTIAL, True) == (redo.roll.hits, redo.outcome, redo.roll.redo)
    with pytest.raises(RuleViolation, match="once"):
        redo_pool(redo.roll, FixedDice([1, 1]))


def test_all_in_natural_ignores_disadvantage():
    """R-44 natural: the redo drops Disadvantage, so every face above 3 hits."""
    first = roll_pool(PoolSpec(1, disadvantage=2), FixedDice([4]))
    assert 0 == first.hits
    assert 1 == redo_pool(first, FixedDice([4]), Rulings(all_in="natural")).hits
    assert 0 == redo_pool(first, FixedDice([4]), Rulings(all_in="ordinary")).hits


def test_rounding_is_up_toward_zero_for_negatives():
    """§5.2: ceil(−2.5) = −2, and 2.5 rounds to 3."""
    assert (-2, 3) == (round_up(Fraction(-5, 2)), round_up(Fraction(5, 2)))


@pytest.mark.parametrize("spec", [PoolSpec(1001), PoolSpec(-1), PoolSpec(2, advantage=-1)])
def test_out_of_bounds_pools_are_refused(spec):
    """A pool past Limits or with negative parts is refused with a reason."""
    with pytest.raises(RuleViolation):
        roll_pool(spec, FixedDice([]))
