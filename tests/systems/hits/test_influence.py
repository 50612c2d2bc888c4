"""Influence: gained at a chapter's start and for becoming a Legend, spent on All in and Leave."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import RuleViolation
from referee.systems.hits.influence import all_in, become_legend, duel_cost, leave, spend
from referee.systems.hits.rolls import Outcome, PoolSpec, roll_level
from referee.systems.hits.scene import (
    CampaignClock,
    Mode,
    Spend,
    SpendRecord,
    start_chapter,
    start_scene,
)
from referee.systems.hits.sheet import Attribute, new_character

KARA = replace(new_character("Kara", Attribute.BODY, Attribute.MIND), influence=1)
OGRE = new_character("Ogre", Attribute.BODY, Attribute.TALENT, player=False)


def test_duel_cost_vectors():
    """§5.2: a duel in combat costs 2 at Tension 2 and 1 at Tension 5; 1 outside combat."""
    assert (2, 1, 3, 1) == (
        duel_cost(Mode.COMBAT, 2),
        duel_cost(Mode.COMBAT, 5),
        duel_cost(Mode.COMBAT, 1),
        duel_cost(Mode.UNSTRUCTURED, 4),
    )


def test_all_in_pays_and_redoes():
    """All in costs 1 Influence, is recorded in the chapter, and its redo stands."""
    first = roll_level(PoolSpec(4), 1, FixedDice([1, 2, 3, 1]))
    dice = FixedDice([4, 4, 6, 5, 2])
    result = all_in(CampaignClock(), KARA, first, dice)
    assert result.test is not None
    assert (0, 0, 4, Outcome.SUCCESS) == (
        dice.remaining,
        result.character.influence,
        result.test.roll.hits,
        result.test.outcome,
    )
    assert (SpendRecord("Kara", Spend.ALL_IN, 1),) == result.clock.chapter.spends


def test_all_in_without_influence_is_refused():
    """No Influence, no All in; the message says how much there is and what it costs."""
    first = roll_level(PoolSpec(1), 1, FixedDice([1]))
    with pytest.raises(RuleViolation, match="0 Influence; all in costs 1"):
        all_in(CampaignClock(), replace(KARA, influence=0), first, FixedDice([4]))


def test_a_redone_roll_cannot_be_redone():
    """All in redoes a roll once; trying again costs nothing and is refused."""
    first = roll_level(PoolSpec(1), 1, FixedDice([1]))
    once = all_in(CampaignClock(), replace(KARA, influence=2), first, FixedDice([2]))
    assert once.test is not None
    with pytest.raises(RuleViolation, match="once"):
        all_in(once.clock, once.character, once.test, FixedDice([4]))


def test_npcs_do_not_spend_influence():
    """Only player characters spend Influence."""
    with pytest.raises(RuleViolation, match="not a player character"):
        spend(CampaignClock(), OGRE, Spend.LEAVE, 1)


def test_leave_is_a_combat_action():
    """Leave costs 1 in combat and is refused outside it."""
    combat = start_scene(CampaignClock(), (), Mode.COMBAT).clock
    assert 0 == leave(combat, KARA).character.influence
    calm = start_scene(CampaignClock(), (), Mode.UNSTRUCTURED).clock
    with pytest.raises(RuleViolation, match="combat"):
        leave(calm, KARA)


def test_chapter_start_gives_influence_to_those_without():
    """A chapter start gives 1 Influence to each PC holding none, not to NPCs or holders."""
    broke = replace(KARA, name="Dax", influence=0)
    result = start_chapter(CampaignClock(), [KARA, broke, OGRE])
    assert [1, 1, 0] == [c.influence for c in result.characters]
    assert ("Dax", "influence", 0, 1) in [
        (c.name, c.key, c.before, c.after) for c in result.changes
    ]


def test_becoming_a_legend_gives_one_influence_once():
    """Becoming a Legend gives +1 Influence; it happens once."""
    legend, _ = become_legend(KARA)
    assert (True, 2) == (legend.legend, legend.influence)
    with pytest.raises(RuleViolation, match="already"):
        become_legend(legend)
