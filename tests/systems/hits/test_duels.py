"""Duels: cost, pools, the loser's consequences, and Withdraw / Accept / Resist."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import RuleViolation, UnknownName
from referee.systems.hits.duels import (
    DuelBook,
    DuelStatus,
    LossChoice,
    choose_after_loss,
    declare_duel,
    duel_pool,
    fire_knockouts,
    npc_duel_dice,
    resolve_duel,
)
from referee.systems.hits.rulings import Rulings
from referee.systems.hits.scene import (
    CampaignClock,
    Mode,
    Spend,
    advance_timer,
    set_tension,
    start_scene,
)
from referee.systems.hits.sheet import Attribute, Standing, new_character

KARA = replace(new_character("Kara", Attribute.BODY, Attribute.MIND), influence=3)
OGRE = new_character("Ogre", Attribute.BODY, Attribute.TALENT, player=False, level=2)
DAX = new_character("Dax", Attribute.TALENT, Attribute.MIND)


def scene(mode=Mode.UNSTRUCTURED, tension=1):
    clock = start_scene(CampaignClock(), (), mode).clock
    return set_tension(clock, tension).clock if tension != 1 else clock


def declared(target=OGRE, mode=Mode.UNSTRUCTURED, tension=1, kara_dice=1, target_dice=1):
    return declare_duel(DuelBook(), scene(mode, tension), KARA, target, kara_dice, target_dice)


def test_npc_pool_is_level_plus_seven():
    """An NPC duels with Level + 7 dice, adjusted by the GM."""
    assert (9, 7) == (npc_duel_dice(OGRE), npc_duel_dice(OGRE, adjustment=-2))


def test_pc_pool_sums_named_sources_but_the_struck_one():
    """A PC's pool is the sum of what he names; the GM may strike one, by name."""
    assert 6 == duel_pool({"Body": 4, "Fencing": 2, "Brave": 1}, struck="Brave")
    with pytest.raises(UnknownName):
        duel_pool({"Body": 4}, struck="Mind")


def test_declaring_pays_by_mode_and_tension():
    """A duel costs 1 outside combat and 4 − Tension in combat, recorded as a duel spend."""
    assert 2 == declared().characters[0].influence
    combat = declared(mode=Mode.COMBAT, tension=2)
    assert (1, 2) == (combat.characters[0].influence, combat.duel.cost)
    assert Spend.DUEL == combat.clock.chapter.spends[0].way


def test_initiator_wins_unstructured_npc_knocked_out():
    """The initiator winning outside combat knocks out an NPC target (no timer chosen)."""
    start = declared()
    result = resolve_duel(start.book, start.clock, 1, start.characters[0], OGRE, FixedDice([4, 1]))
    assert (Standing.KNOCKED_OUT, (), "Ogre") == (
        result.characters[1].standing,
        result.book.duels,
        result.duel.loser,
    )


def test_npc_resists_with_a_timer():
    """An NPC losing may resist with a 4/6/8-segment story timer; filled, it knocks it out."""
    start = declared()
    result = resolve_duel(
        start.book, start.clock, 1, start.characters[0], OGRE, FixedDice([4, 1]), npc_timer=6
    )
    (timer,) = result.clock.timers
    assert (6, "Ogre", Standing.ACTIVE) == (
        timer.segments,
        timer.knocks_out,
        result.characters[1].standing,
    )
    filled = advance_timer(result.clock, timer.name, 6)
    (ogre,), _ = fire_knockouts(filled.fired, [result.characters[1]])
    assert Standing.KNOCKED_OUT == ogre.standing
    with pytest.raises(RuleViolation, match="4, 6 or 8"):
        resolve_duel(
            start.book, start.clock, 1, start.characters[0], OGRE, FixedDice([4, 1]), npc_timer=5
        )


def test_pc_loser_outside_combat_takes_two_stress():
    """A PC target losing outside combat takes 2 Stress (and its Influence for the event)."""
    start = declared(target=DAX)
    result = resolve_duel(start.book, start.clock, 1, start.characters[0], DAX, FixedDice([5, 2]))
    assert (2, 1) == (result.characters[1].stress, result.characters[1].influence)


def test_combat_loser_takes_two_wounds():
    """In combat the loser takes 2 Wounds."""
    start = declared(mode=Mode.COMBAT)
    result = resolve_duel(
        start.book, start.clock, 1, start.characters[0], OGRE, FixedDice([6, 1, 2])
    )
    assert 2 == result.characters[1].wounds


def lost(target=OGRE):
    start = declared(target=target)
    return resolve_duel(start.book, start.clock, 1, start.characters[0], target, FixedDice([1, 4]))


def test_losing_initiator_waits_for_a_choice():
    """The initiator losing leaves the duel waiting, with no consequence yet."""
    result = lost()
    assert (DuelStatus.INITIATOR_LOST, 0) == (result.duel.status, result.characters[0].stress)


def test_withdraw_has_no_consequence_and_no_refund():
    """Withdraw: nobody suffers, the Influence stays spent, the duel is over."""
    w = lost()
    result = choose_after_loss(
        w.book, w.clock, 1, LossChoice.WITHDRAW, w.characters[0], OGRE, FixedDice([])
    )
    assert (0, 2, ()) == (
        result.characters[0].stress,
        result.characters[0].influence,
        result.book.duels,
    )


def test_accept_takes_consequences_and_refunds():
    """Accept: the initiator takes 2 Stress (+1 Influence) and gets the duel's 1 back."""
    w = lost()
    result = choose_after_loss(
        w.book, w.clock, 1, LossChoice.ACCEPT, w.characters[0], OGRE, FixedDice([])
    )
    kara = result.characters[0]
    assert (2, 2 + 1 + 1) == (kara.stress, kara.influence)
    assert result.clock.chapter.spends[0].refunded


def test_resist_rerolls_both_and_a_win_makes_the_target_lose():
    """Resist rerolls both sides once (R-49); winning it knocks the NPC out."""
    w = lost()
    dice = FixedDice([5, 2])
    result = choose_after_loss(w.book, w.clock, 1, LossChoice.RESIST, w.characters[0], OGRE, dice)
    assert (0, "Ogre", True) == (dice.remaining, result.duel.loser, result.duel.resisted)
    assert Standing.KNOCKED_OUT == result.characters[1].standing


@pytest.mark.parametrize(("refund", "influence"), [(True, 4), (False, 3)])
def test_resist_lost_again_is_accept_refunded_by_r26(refund, influence):
    """Losing the Resist is Accept; R-26 decides whether the Influence comes back."""
    w = lost()
    result = choose_after_loss(
        w.book,
        w.clock,
        1,
        LossChoice.RESIST,
        w.characters[0],
        OGRE,
        FixedDice([1, 6, 1]),
        Rulings(resist_refund=refund),
    )
    assert (2, influence) == (result.characters[0].stress, result.characters[0].influence)


def test_a_settled_or_unknown_duel_is_refused():
    """Choosing twice, or naming no such duel, is refused with the reason."""
    w = lost()
    done = choose_after_loss(
        w.book, w.clock, 1, LossChoice.WITHDRAW, w.characters[0], OGRE, FixedDice([])
    )
    with pytest.raises(UnknownName, match="no duel #1"):
        choose_after_loss(
            done.book, done.clock, 1, LossChoice.ACCEPT, w.characters[0], OGRE, FixedDice([])
        )
    start = declared()
    with pytest.raises(RuleViolation, match="no loss to answer"):
        choose_after_loss(
            start.book, start.clock, 1, LossChoice.ACCEPT, start.characters[0], OGRE, FixedDice([])
        )


def test_a_duel_needs_a_scene_influence_and_another_target():
    """No scene, no Influence, or a duel with oneself: each refused with its reason."""
    with pytest.raises(RuleViolation, match="scene"):
        declare_duel(DuelBook(), CampaignClock(), KARA, OGRE, 1, 1)
    with pytest.raises(RuleViolation, match="Influence"):
        declare_duel(DuelBook(), scene(), replace(KARA, influence=0), OGRE, 1, 1)
    with pytest.raises(RuleViolation, match="himself"):
        declare_duel(DuelBook(), scene(), KARA, KARA, 1, 1)
