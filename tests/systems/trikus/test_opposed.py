"""§3.8 test vectors for tests (not fights), dice for dice, and the outcomes' changes."""

from __future__ import annotations

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import RuleViolation
from referee.systems.trikus import opposed
from referee.systems.trikus.changes import Change, ChangeKind, apply
from referee.systems.trikus.duel import Boom, Reroll, Throw
from referee.systems.trikus.opposed import overturn, resume
from referee.systems.trikus.policy import Policy
from referee.systems.trikus.resources import Outcome
from referee.systems.trikus.rulings import Consent, Rulings, TogetherTie
from referee.systems.trikus.state import LineStatus, Party

ASK = Rulings()


def resolve_test(*args, **kwargs):
    """resolve_test without the exact odds, which test_odds checks (they cost seconds)."""
    return opposed.resolve_test(*args, **kwargs, with_odds=False)


ALWAYS = Rulings(negotiation_consent=Consent.ALWAYS)


def sequence(result) -> list[tuple[list[tuple[str, int]], tuple]]:
    """The duel as (dice landed, control per pair) per throw."""
    return [
        ([(d.who, d.value) for d in e.dice], e.control)
        for e in result.duel.events
        if isinstance(e, Throw)
    ]


def test_vector_1_master_against_two_gm_dice(party: Party) -> None:
    """§3.8 #1: G5 M7; G7 ties and takes control; M1; M9; the GM is out: Success, +1 Morale."""
    dice = FixedDice([5, 7, 7, 1, 9])
    result = resolve_test(party, 2, [("M", Policy())], dice)
    assert 0 == dice.remaining
    assert [
        ([("GM", 5), ("M", 7)], ("M",)),
        ([("GM", 7)], ("GM",)),
        ([("M", 1)], ("GM",)),
        ([("M", 9)], ("M",)),
    ] == sequence(result)
    assert Outcome.SUCCESS == result.outcome("M")
    after = apply(party, result.changes)
    assert 1 == after.character("M").morale
    assert LineStatus.STRUCK == after.character("M").lines[0].status


def test_vector_2_team_test_only_the_winner_gains_morale(party: Party) -> None:
    """§3.8 #2: GM 3 / P 1 / Z 2: G6 P9 Z3; G5 Z4 (Z fails); G2: P succeeds, only he gains."""
    dice = FixedDice([6, 9, 3, 5, 4, 2])
    result = resolve_test(party, 3, [("P", Policy()), ("Z", Policy(line=2))], dice)
    assert 0 == dice.remaining
    assert [
        ([("GM", 6), ("P", 9), ("Z", 3)], ("P", "GM")),
        ([("GM", 5), ("Z", 4)], ("P", "GM")),
        ([("GM", 2)], ("P", "GM")),
    ] == sequence(result)
    assert (Outcome.SUCCESS, Outcome.FAILURE) == (result.outcome("P"), result.outcome("Z"))
    after = apply(party, result.changes)
    assert (1, 0) == (after.character("P").morale, after.character("Z").morale)


def test_vector_5_an_equal_die_takes_control(party: Party) -> None:
    """§3.8 #5: P 2 vs GM 1: G8 P3; P8 takes control (8 = 8): Success."""
    dice = FixedDice([8, 3, 8])
    result = resolve_test(party, 1, [("Z", Policy(line=2))], dice)
    assert [([("GM", 8), ("Z", 3)], ("GM",)), ([("Z", 8)], ("Z",))] == sequence(result)
    assert Outcome.SUCCESS == result.outcome("Z")


def test_vector_6_three_fives_boom(party: Party) -> None:
    """§3.8 #6: G7 P5 Z5 M6; P7 Z9 M9; G5: three 5s flag a Boom at the third throw."""
    party = apply(party, [Change(ChangeKind.MORALE_GAINED, "P", 1)])
    dice = FixedDice([7, 5, 5, 6, 7, 9, 9, 5])
    declared = [("P", Policy(morale=1)), ("Z", Policy(line=2)), ("M", Policy())]
    result = resolve_test(party, 2, declared, dice)
    assert [
        ([("GM", 7), ("P", 5), ("Z", 5), ("M", 6)], ("GM", "GM", "GM")),
        ([("P", 7), ("Z", 9), ("M", 9)], ("P", "Z", "M")),
        ([("GM", 5)], ("P", "Z", "M")),
    ] == sequence(result)
    assert (Boom(5, 3),) == result.booms


@pytest.mark.parametrize(
    ("z_second", "together", "z_outcome"),
    [
        (7, TogetherTie.PLAYER, Outcome.FAILURE),  # her 7 is below the GM's highest, 8
        (8, TogetherTie.PLAYER, Outcome.SUCCESS),  # R-16 "player": her 8 takes control
        (8, TogetherTie.GM, Outcome.FAILURE),  # R-16 "gm": the GM's 8 landed with it
    ],
)
def test_vector_7_team_values_are_highest_dice(
    party: Party, z_second: int, together: TogetherTie, z_outcome: Outcome
) -> None:
    """§3.8 #7: G6 P9 Z3; G8 Z7 or Z8; G2: Z's fate follows the GM's highest die and R-16."""
    dice = FixedDice([6, 9, 3, 8, z_second, 2])
    rulings = Rulings(together_tie=together)
    result = resolve_test(party, 3, [("P", Policy()), ("Z", Policy(line=2))], dice, rulings)
    assert 0 == dice.remaining
    assert (Outcome.SUCCESS, z_outcome) == (result.outcome("P"), result.outcome("Z"))


@pytest.mark.parametrize(("last", "outcome"), [((5, 6), Outcome.FAILURE), ((8,), Outcome.SUCCESS)])
def test_vector_8_negotiation(party: Party, last: tuple[int, ...], outcome: Outcome) -> None:
    """§3.8 #8: G4 Z7; G10; Z proposes, the reroll is 8; Z needs 8+ or fails with a Catastrophe."""
    party = apply(party, [Change(ChangeKind.MORALE_GAINED, "Z", 1)])
    dice = FixedDice([4, 7, 10, 8, *last])
    declared = [("Z", Policy(line=2, morale=1, negotiate=9))]
    result = resolve_test(party, 2, declared, dice, ALWAYS)
    assert 0 == dice.remaining
    reroll = next(e for e in result.duel.events if isinstance(e, Reroll))
    assert ("Z", 10, True, 8, ("GM",)) == (
        reroll.proposer,
        reroll.old,
        reroll.agreed,
        reroll.new,
        reroll.control,
    )
    assert outcome == result.outcome("Z")
    kinds = [c.kind for c in result.changes]
    assert (ChangeKind.CATASTROPHE in kinds) == (outcome is Outcome.FAILURE)
    if outcome is Outcome.FAILURE:
        after = apply(party, result.changes)
        assert LineStatus.LOST == after.character("Z").lines[0].status
        assert 2 == after.character("Z").lines[0].refreshes_left


def test_vector_8_ask_waits_for_the_gm_then_resumes(party: Party) -> None:
    """Under "ask" the test stops at the proposal, then resumes from the same dice."""
    declared = [("Z", Policy(line=2, negotiate=9))]
    pending = resolve_test(party, 2, declared, FixedDice([4, 7, 10]), ASK)
    assert pending.pending is not None and () == pending.changes
    assert ("Z", 10) == (pending.pending.proposer, pending.pending.die)
    refused = resume(pending, party, declared, False, FixedDice([6]), ASK, with_odds=False)
    assert Outcome.FAILURE == refused.outcome("Z")
    assert ChangeKind.CATASTROPHE not in [c.kind for c in refused.changes]
    agreed = resume(pending, party, declared, True, FixedDice([3, 2]), ASK, with_odds=False)
    assert Outcome.SUCCESS == agreed.outcome("Z")  # the 10 became 3, below her 7


def test_vector_9_escape_needs_an_unrolled_die(party: Party) -> None:
    """§3.8 #9: G10, P8, Z3: Z with a die unrolled escapes (+1 Dark, Morale kept); P cannot."""
    party = apply(party, [Change(ChangeKind.MORALE_GAINED, "Z", 2)])
    dice = FixedDice([10, 8, 3])
    declared = [("P", Policy(escape=(1, 1))), ("Z", Policy(line=2, escape=(1, 9)))]
    result = resolve_test(party, 1, declared, dice)
    assert 0 == dice.remaining
    assert (Outcome.FAILURE, Outcome.ESCAPED) == (result.outcome("P"), result.outcome("Z"))
    after = apply(party, result.changes)
    assert (2, 1) == (after.character("Z").morale, after.character("Z").dark_active)


def test_vector_11_morale_kept_gained_then_lost(party: Party) -> None:
    """§3.8 #11: Morale 3, commit 2, Success: 2; then a Failure: 0."""
    party = apply(party, [Change(ChangeKind.MORALE_GAINED, "P", 3)])
    won = resolve_test(party, 1, [("P", Policy(morale=2))], FixedDice([1, 5, 1, 1]))
    party = apply(party, won.changes)
    assert 2 == party.character("P").morale
    lost = resolve_test(party, 1, [("P", Policy())], FixedDice([9, 2]))
    assert Outcome.FAILURE == lost.outcome("P")
    assert 0 == apply(party, lost.changes).character("P").morale


def test_vector_12_exhausted_master_empowers_and_fails(party: Party) -> None:
    """§3.8 #12: an exhausted Master empowers (2 dice) and fails: +1 Dark, Catastrophe."""
    party = apply(party, [Change(ChangeKind.STRIKE_LINE, "M", 0)])
    result = resolve_test(party, 1, [("M", Policy(empower=True))], FixedDice([9, 2, 3]))
    assert 2 == result.participants[0].dice
    assert Outcome.FAILURE == result.outcome("M")
    after = apply(party, result.changes).character("M")
    assert 1 == after.dark_active
    assert LineStatus.LOST == after.lines[0].status
    assert ChangeKind.CATASTROPHE in [c.kind for c in result.changes]


def test_vector_13_a_lost_line_returns_at_the_second_refresh(party: Party) -> None:
    """§3.8 #13: a Beginner's Catastrophe: 2 lines at the next refresh, 3 at the one after."""
    party = apply(party, [Change(ChangeKind.LOSE_LINE, "P", 0, "2")])
    refresh = [Change(ChangeKind.REFRESH)]
    once = apply(party, refresh).character("P")
    assert 2 == len(once.free_lines)
    assert 3 == len(apply(apply(party, refresh), refresh).character("P").free_lines)


def test_exhausted_player_is_refused_with_what_he_has(party: Party) -> None:
    """A declaration the state cannot pay is refused, saying what he has."""
    party = apply(party, [Change(ChangeKind.STRIKE_LINE, "M", 0)])
    with pytest.raises(RuleViolation, match="exhausted") as refusal:
        resolve_test(party, 1, [("M", Policy())], FixedDice([]))
    assert "0 Morale dice; 0 Light tokens" in refusal.value.message
    with pytest.raises(RuleViolation, match="1 Morale die, not 2"):
        resolve_test(
            apply(party, [Change(ChangeKind.MORALE_GAINED, "P", 1)]),
            1,
            [("P", Policy(morale=2))],
            FixedDice([]),
        )


def test_light_trigger_lets_an_exhausted_player_test(party: Party) -> None:
    """light=1 spends a token when he must roll with no dice, and the change set says so."""
    party = apply(party, [Change(ChangeKind.STRIKE_LINE, "M", 0)])
    party = apply(party, [Change(ChangeKind.LIGHT_GRANTED, "M", 2)])
    result = resolve_test(party, 1, [("M", Policy(light=1))], FixedDice([3, 7]))
    assert Outcome.SUCCESS == result.outcome("M")
    assert Change(ChangeKind.LIGHT_SPENT, "M", 1) in result.changes
    assert 1 == apply(party, result.changes).character("M").light


def test_a_success_cancels_a_failure(party: Party) -> None:
    """on_success=cancel:Z: both end without a result (R-17); M keeps his own (R-57)."""
    party = apply(party, [Change(ChangeKind.MORALE_GAINED, "Z", 1)])
    declared = [("P", Policy(cancel="Z")), ("Z", Policy(line=1)), ("M", Policy())]
    result = resolve_test(party, 1, declared, FixedDice([5, 9, 2, 8]))
    assert (("P", "Z"),) == result.cancelled
    outcomes = [result.outcome(n) for n in "PZM"]
    assert [Outcome.NO_RESULT, Outcome.NO_RESULT, Outcome.SUCCESS] == outcomes
    after = apply(party, result.changes)
    assert (0, 1, 1) == tuple(after.character(n).morale for n in "PZM")


def test_overturn_after_an_unclaimed_boom_flips_the_result(party: Party) -> None:
    """After a Boom no one claimed, the GM's overturn turns the Success into a Failure."""
    result = resolve_test(party, 2, [("M", Policy())], FixedDice([5, 5, 5, 9]))
    assert Outcome.SUCCESS == result.outcome("M") and result.booms
    flipped = overturn(result, party)
    assert Outcome.FAILURE == flipped.outcome("M")
    assert 0 == apply(party, flipped.changes).character("M").morale
    quiet = resolve_test(party, 1, [("M", Policy())], FixedDice([1, 9]))
    with pytest.raises(RuleViolation, match="no Boom"):
        overturn(quiet, party)


def test_refresh_when_the_last_line_is_struck(party: Party) -> None:
    """R-50: when the test that strikes the party's last line ends, every line returns."""
    party = apply(
        party,
        [
            Change(ChangeKind.STRIKE_LINE, "P", 0),
            Change(ChangeKind.STRIKE_LINE, "P", 1),
            Change(ChangeKind.STRIKE_LINE, "Z", 0),
            Change(ChangeKind.STRIKE_LINE, "Z", 1),
        ],
    )
    result = resolve_test(party, 1, [("M", Policy()), ("P", Policy())], FixedDice([1, 9, 9]))
    assert ChangeKind.REFRESH == result.changes[-1].kind
    after = apply(party, result.changes)
    assert 1 == after.refreshes
    assert not any(c.exhausted for c in after.characters)


def test_the_gm_may_propose_a_negotiation_to_a_player_who_accepts(party: Party) -> None:
    """The GM's standing proposal rerolls M's 9 (it took control) to 4; M fails, no Catastrophe."""
    declared = [("M", Policy(accept=True))]
    result = resolve_test(party, 2, declared, FixedDice([5, 9, 4, 6, 7, 2]), gm_negotiate=8)
    reroll = next(e for e in result.duel.events if isinstance(e, Reroll))
    assert ("GM", "M", 9, 4, ("GM",)) == (
        reroll.proposer,
        reroll.whose,
        reroll.old,
        reroll.new,
        reroll.control,
    )
    assert Outcome.FAILURE == result.outcome("M")
    assert ChangeKind.CATASTROPHE not in [c.kind for c in result.changes]
    refusing = resolve_test(party, 2, [("M", Policy())], FixedDice([5, 9, 7]), gm_negotiate=8)
    assert Outcome.SUCCESS == refusing.outcome("M")
