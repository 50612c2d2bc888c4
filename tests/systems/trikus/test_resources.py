"""Trikus resources: falls, advancement, items, and the GM's verbs over the state."""

from __future__ import annotations

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import RuleViolation
from referee.systems.trikus import resources
from referee.systems.trikus.changes import Change, ChangeKind, apply
from referee.systems.trikus.opposed import resolve_test
from referee.systems.trikus.policy import Policy
from referee.systems.trikus.resources import Outcome
from referee.systems.trikus.rulings import Rulings
from referee.systems.trikus.state import Item, LineStatus, Party, Status, Tier, Trait


def test_third_dark_token_turns_the_character_and_the_lower_tiers_advance(party: Party) -> None:
    """Zuzia's third active Dark token: she falls, Paweł advances, Michał stays a Master."""
    party = apply(party, [Change(ChangeKind.DARK_GAINED, "Z", 2)])
    result = resolve_test(
        party, 1, [("Z", Policy(line=1, escape=(1, 1)))], FixedDice([9, 1]), with_odds=False
    )
    # Z escapes only with an unrolled die; on a 1-die line she must roll, so she fails.
    assert Outcome.FAILURE == result.outcome("Z")
    escaped = resolve_test(
        party, 1, [("Z", Policy(line=2, escape=(1, 1)))], FixedDice([9, 1]), with_odds=False
    )
    after = apply(party, escaped.changes)
    assert Status.FALLEN == after.character("Z").status
    assert Tier.ADVANCED == after.character("P").tier
    assert Tier.MASTER == after.character("M").tier
    assert after.character("P").sides_due


def test_spent_dark_tokens_do_not_count_toward_the_fall(party: Party) -> None:
    """Only active (unspent) Dark tokens turn a character."""
    party = apply(party, [Change(ChangeKind.DARK_GAINED, "Z", 2)])
    party = apply(party, resources.spend_dark(party, "Z", 2))
    escaped = resolve_test(
        party, 1, [("Z", Policy(line=2, escape=(1, 1)))], FixedDice([9, 1]), with_odds=False
    )
    assert Status.ACTIVE == apply(party, escaped.changes).character("Z").status


def test_items_act_on_use_and_on_failure(party: Party, character) -> None:
    """A Sith artifact adds Dark, meditation gives all Morale, unreliable is lost on Failure."""
    gear = (
        Item("Holocron", (Trait.SITH, Trait.MEDITATION), (True, False)),
        Item("Blaster", (Trait.UNRELIABLE,)),
    )
    party = party.with_character(character("M", "master", equipment=gear))
    declared = [("M", Policy(use=("Holocron", "Blaster")))]
    result = resolve_test(party, 1, declared, FixedDice([9, 1, 2, 3]), with_odds=False)
    assert Outcome.FAILURE == result.outcome("M")
    after = apply(party, result.changes)
    assert 1 == after.character("M").dark_active
    assert (1, 1) == (after.character("P").morale, after.character("Z").morale)
    assert ("Holocron",) == tuple(i.name for i in after.character("M").equipment)
    assert (True, True) == after.character("M").equipment[0].known


def test_gm_verbs_refuse_what_the_state_cannot_take(party: Party) -> None:
    """The GM cannot spend Dark tokens a player lacks or edit a line he does not have."""
    with pytest.raises(RuleViolation, match="0 active Dark tokens"):
        resources.spend_dark(party, "P", 1)
    with pytest.raises(RuleViolation, match="lines 1 to 1"):
        resources.set_line(party, "M", 2, LineStatus.FREE)
    with pytest.raises(RuleViolation, match="already a Master"):
        resources.advance(party, "M")
    party = apply(party, resources.grant_light(party, "P", 2))
    assert (2, 2) == (party.character("P").light, party.character("P").light_received)
    party = apply(party, resources.set_line(party, "M", 0, LineStatus.LOST, 1))
    assert LineStatus.LOST == party.character("M").lines[0].status
    assert (
        LineStatus.FREE
        == apply(party, resources.force_refresh(party)).character("M").lines[0].status
    )


def test_master_with_a_lost_line_cannot_test(party: Party) -> None:
    """R-52 "none": a Master whose line is lost cannot test at all; "resources" lets Morale."""
    party = apply(
        party, [Change(ChangeKind.LOSE_LINE, "M", 0, "2"), Change(ChangeKind.MORALE_GAINED, "M", 1)]
    )
    with pytest.raises(RuleViolation, match="cannot test until it returns"):
        resolve_test(party, 1, [("M", Policy(morale=1))], FixedDice([]), with_odds=False)
    lenient = Rulings.from_mapping({"catastrophe_master": "resources"})
    result = resolve_test(
        party, 1, [("M", Policy(morale=1))], FixedDice([1, 9]), lenient, with_odds=False
    )
    assert Outcome.SUCCESS == result.outcome("M")


def test_opt_out_rolls_nothing_and_strikes_nothing(party: Party) -> None:
    """ "Mam złe przeczucia": no die, no line, the GM decides."""
    result = resolve_test(party, 2, [("M", Policy(opt_out=True))], FixedDice([]), with_odds=False)
    assert Outcome.OPTED_OUT == result.outcome("M") and () == result.changes


def test_sacrifice_without_the_master_fighting_is_a_fall(party: Party) -> None:
    """The Master who did not fight the master NPC falls instead of dying."""
    changes = resources.apply_sacrifice(party, ("P",))
    after = apply(party, changes)
    assert Status.FALLEN == after.character("M").status
    assert (Tier.ADVANCED, Tier.MASTER) == (after.character("P").tier, after.character("Z").tier)


def test_with_two_masters_one_dies_and_each_lower_tier_advances_once(
    party: Party, character
) -> None:
    """The seed: the Master "oddaje życie": one life (the Master who fought), one tier each."""
    party = Party((*party.characters, character("N", "master")))
    after = apply(party, resources.apply_sacrifice(party, ("P", "N")))
    assert (Status.DEAD, Status.ACTIVE, Tier.ADVANCED, Tier.MASTER) == (
        after.character("N").status,
        after.character("M").status,
        after.character("P").tier,
        after.character("Z").tier,
    )


def test_with_two_masters_neither_fighting_one_falls(party: Party, character) -> None:
    """Neither Master fought: the first falls, the other stays; the Beginner advances once."""
    party = Party((*party.characters, character("N", "master")))
    after = apply(party, resources.apply_sacrifice(party, ("P",)))
    assert (Status.FALLEN, Status.ACTIVE, Tier.ADVANCED) == (
        after.character("M").status,
        after.character("N").status,
        after.character("P").tier,
    )


def test_an_advancement_keeps_a_line_lost_to_a_catastrophe_lost(party: Party) -> None:
    """Pawel loses a line (2 refreshes), then advances as Zuzia falls: a line of his new
    tier stays lost ("Musi odczekać do kolejnego Wyczerpania")."""
    after = apply(
        party,
        [
            Change(ChangeKind.LOSE_LINE, "P", 0, "2"),
            Change(ChangeKind.ADVANCE, "P", 0, Tier.ADVANCED.value),
        ],
    )
    lines = [(line.dice, line.status, line.refreshes_left) for line in after.character("P").lines]
    assert [(2, LineStatus.FREE, 0), (1, LineStatus.LOST, 2)] == lines
