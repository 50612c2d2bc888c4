"""Stress, Wounds, knockouts, raising the stakes and the Intermission."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.base.errors import RuleViolation
from referee.systems.changes import Change, apply_changes
from referee.systems.hits.rulings import Rulings
from referee.systems.hits.scene import Mode
from referee.systems.hits.sheet import Attribute, Stake, Standing, Wager, new_character
from referee.systems.hits.stress import (
    accept_knockout,
    intermission,
    raise_stakes,
    take_harm,
)

KARA = new_character("Kara", Attribute.BODY, Attribute.MIND)  # Health 10
OGRE = new_character("Ogre", Attribute.BODY, Attribute.TALENT, player=False)


def knocked(character=KARA, mode=Mode.UNSTRUCTURED):
    """A character brought to the knockout by the mode's counter."""
    if mode == Mode.COMBAT:
        return take_harm(character, mode, wounds=3).character
    return take_harm(character, mode, stress=3).character


def test_stress_gives_influence_per_event():
    """R-25 event: 2 Stress at once is +1 Influence; R-25 point: +2."""
    assert 1 == take_harm(KARA, Mode.UNSTRUCTURED, stress=2).character.influence
    point = Rulings(influence_per="point")
    assert 2 == take_harm(KARA, Mode.UNSTRUCTURED, stress=2, rulings=point).character.influence


def test_stress_and_a_wound_at_once_are_two_events():
    """Stress and a Wound taken together are two events: +2 Influence."""
    assert 2 == take_harm(KARA, Mode.COMBAT, stress=1, wounds=1).character.influence


def test_npcs_gain_no_influence_and_go_down_at_once():
    """An NPC at 3 Wounds in combat is knocked out, with no Influence and no choice."""
    ogre = take_harm(OGRE, Mode.COMBAT, wounds=3).character
    assert (0, Standing.KNOCKED_OUT) == (ogre.influence, ogre.standing)


def test_knockout_threshold_depends_on_the_mode():
    """3 Stress knocks out in unstructured play, not in combat, where 3 Wounds do."""
    assert Standing.KNOCKOUT_PENDING == knocked().standing
    assert Standing.ACTIVE == take_harm(KARA, Mode.COMBAT, stress=3).character.standing
    assert Standing.KNOCKOUT_PENDING == knocked(mode=Mode.COMBAT).standing


def test_accepting_the_knockout_leaves_the_scene():
    """Accepting the knockout takes the character out of the scene."""
    assert Standing.KNOCKED_OUT == accept_knockout(knocked()).character.standing


def test_raise_stakes_unstructured():
    """Raising the stakes: Stress exactly 2, Health full, Wounds untouched outside combat."""
    hurt = replace(knocked(), health=3, wounds=1)
    raised = raise_stakes(hurt, Stake(Wager.SKILL, "Swordsmanship"), Mode.UNSTRUCTURED)
    c = raised.character
    assert (2, 10, 1, Standing.ACTIVE) == (c.stress, c.health, c.wounds, c.standing)
    assert (Stake(Wager.SKILL, "Swordsmanship"),) == c.stakes
    assert Change("character", "Kara", "stress", 3, 2) in raised.changes


def test_raise_stakes_in_combat_sets_wounds_by_r24():
    """In combat, R-24: Wounds become 2 by default, or 0; Stress becomes 2 even if lower."""
    down = knocked(mode=Mode.COMBAT)
    default = raise_stakes(down, Stake(Wager.LIFE), Mode.COMBAT).character
    zero = raise_stakes(down, Stake(Wager.LIFE), Mode.COMBAT, Rulings(stakes_wounds=0)).character
    assert (2, 2, 0) == (default.stress, default.wounds, zero.wounds)


def test_raise_stakes_needs_a_knockout_and_a_named_wager():
    """Raising the stakes is refused without a pending knockout or without naming the skill."""
    with pytest.raises(RuleViolation, match="not being knocked out"):
        raise_stakes(KARA, Stake(Wager.LIFE), Mode.UNSTRUCTURED)
    with pytest.raises(RuleViolation, match="Name the skill"):
        raise_stakes(knocked(), Stake(Wager.SKILL), Mode.UNSTRUCTURED)


def test_second_knockout_loses_the_stake_and_gives_three_influence():
    """A second knockout in the scene loses the wager for ever, +3 Influence, out (R-46)."""
    raised = raise_stakes(knocked(), Stake(Wager.BENEFIT, "Lucky"), Mode.UNSTRUCTURED).character
    second = take_harm(raised, Mode.UNSTRUCTURED, stress=1)
    c = second.character
    assert Stake(Wager.BENEFIT, "Lucky") == second.lost
    assert ((), (Stake(Wager.BENEFIT, "Lucky"),)) == (c.stakes, c.lost_wagers)
    assert (raised.influence + 1 + 3, Standing.KNOCKED_OUT) == (c.influence, c.standing)


def test_second_knockout_rewager_ruling():
    """R-46 rewager: after the lost stake the player may raise the stakes again."""
    rulings = Rulings(second_knockout="rewager")
    raised = raise_stakes(knocked(), Stake(Wager.SKILL, "Lore"), Mode.UNSTRUCTURED).character
    again = take_harm(raised, Mode.UNSTRUCTURED, stress=1, rulings=rulings).character
    assert Standing.KNOCKOUT_PENDING == again.standing
    with pytest.raises(RuleViolation, match="already lost"):
        raise_stakes(again, Stake(Wager.SKILL, "Lore"), Mode.UNSTRUCTURED)
    assert (
        Standing.ACTIVE
        == raise_stakes(again, Stake(Wager.LIFE), Mode.UNSTRUCTURED).character.standing
    )


def test_a_lost_life_is_death():
    """A wagered life lost to the second knockout is death; the dead take no more harm."""
    raised = raise_stakes(knocked(), Stake(Wager.LIFE), Mode.UNSTRUCTURED).character
    dead = take_harm(raised, Mode.UNSTRUCTURED, stress=1).character
    assert Standing.DEAD == dead.standing
    with pytest.raises(RuleViolation, match="dead"):
        take_harm(dead, Mode.UNSTRUCTURED, stress=1)


def test_intermission_clears_stress_and_wounds_of_those_taking_part():
    """An Intermission clears Stress and Wounds of each character taking part, only them."""
    kara = replace(KARA, stress=2, wounds=1)
    ogre = replace(OGRE, stress=1)
    (after_kara, after_ogre), changes = intermission([kara, ogre], ["kara"])
    assert (0, 0, 1) == (after_kara.stress, after_kara.wounds, after_ogre.stress)
    assert {("Kara", "stress"), ("Kara", "wounds")} == {(c.name, c.key) for c in changes}


def test_change_set_applies_to_the_stored_character():
    """The core's apply_changes turns the old sheet into the new one with the change set."""
    raised = raise_stakes(knocked(mode=Mode.COMBAT), Stake(Wager.LIFE), Mode.COMBAT)
    before = knocked(mode=Mode.COMBAT)
    assert raised.character == apply_changes(before, "character", "Kara", raised.changes)
