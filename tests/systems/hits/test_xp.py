"""XP at a chapter's end, Levels, level-up gains and Awakening."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.base.errors import RuleViolation
from referee.systems.hits.rulings import UNCAPPED, Rulings
from referee.systems.hits.scene import (
    CampaignClock,
    Chapter,
    Spend,
    SpendRecord,
    start_chapter,
)
from referee.systems.hits.sheet import Attribute, SavedGains, new_character
from referee.systems.hits.xp import (
    LevelGains,
    awaken,
    award_xp,
    chapter_xp,
    choose_gains,
    end_chapter,
    set_level,
)

KARA = new_character("Kara", Attribute.BODY, Attribute.MIND)
SPENDS = (
    SpendRecord("Kara", Spend.ALL_IN, 1),
    SpendRecord("Kara", Spend.ALL_IN, 1),
    SpendRecord("Kara", Spend.DUEL, 1, refunded=True),
    SpendRecord("Dax", Spend.LEAVE, 1),
)


def test_xp_vector():
    """§5.2: XP 8 + (2 + 2 ways) → Level 2, XP 2."""
    award = award_xp(replace(KARA, xp=8), chapter_xp("Kara", Chapter(1, True, SPENDS)))
    assert (4, 2, 2, 1) == (award.xp, award.character.level, award.character.xp, award.levels)


def test_standard_xp_counts_distinct_ways_up_to_five():
    """Standard: 2 + 1 per distinct way, at most 5; R-47 table counts everyone's ways."""
    chapter = Chapter(1, True, SPENDS)
    assert (2, 4, 5) == (
        chapter_xp("Mira", chapter),
        chapter_xp("Kara", chapter),
        chapter_xp("Kara", chapter, Rulings(xp_ways_scope="table")),
    )


def test_fast_xp_counts_every_use_capped_by_r27():
    """Fast: 3 + 1 per use, capped at 5 by default (R-27), uncapped with "none"."""
    chapter = Chapter(1, True, SPENDS)
    assert (5, 6, 3) == (
        chapter_xp("Kara", chapter, Rulings(xp_mode="fast")),
        chapter_xp("Kara", chapter, Rulings(xp_mode="fast", fast_xp_cap=UNCAPPED)),
        chapter_xp("Mira", chapter, Rulings(xp_mode="fast")),
    )


def test_level_is_capped_at_six_and_r28():
    """At Level 6 XP keeps accruing and does nothing (R-28 keep), or stops (stop)."""
    top = replace(KARA, level=6, xp=9)
    assert (6, 12) == (award_xp(top, 3).character.level, award_xp(top, 3).character.xp)
    assert 9 == award_xp(top, 3, Rulings(xp_at_max="stop")).character.xp


def test_end_chapter_awards_player_characters_only():
    """Ending a chapter awards XP to PCs, none to NPCs, and closes it."""
    ogre = new_character("Ogre", Attribute.BODY, Attribute.TALENT, player=False)
    clock = start_chapter(CampaignClock(), ()).clock
    clock = replace(clock, chapter=replace(clock.chapter, spends=SPENDS))
    end = end_chapter(clock, [KARA, ogre])
    assert ([4, 0], False) == ([a.xp for a in end.awards], end.clock.chapter.open)
    with pytest.raises(RuleViolation, match="No chapter"):
        end_chapter(end.clock, [KARA])


def test_choose_gains_with_tiers():
    """Level-up gains: +1 to two attributes, 2 Tiers, 2 Ranks, 1 Benefit, Health recomputed."""
    leveled = award_xp(replace(KARA, xp=9), 1).character
    after = choose_gains(leveled, LevelGains((Attribute.BODY, Attribute.TALENT))).character
    assert (5, 3, SavedGains(2, 2, 1), 14, 0) == (
        after.body,
        after.talent,
        after.saved,
        after.health,
        after.unchosen_levels,
    )


def test_choose_gains_with_highest_attribute():
    """Instead of two Tiers, +1 to the highest attribute; any other is refused."""
    leveled = award_xp(replace(KARA, xp=10), 0).character
    after = choose_gains(
        leveled, LevelGains((Attribute.BODY, Attribute.MIND), Attribute.BODY)
    ).character
    assert (6, 4, 0) == (after.body, after.mind, after.saved.tiers)
    with pytest.raises(RuleViolation, match="highest attribute"):
        choose_gains(leveled, LevelGains((Attribute.BODY, Attribute.MIND), Attribute.MIND))


def test_gains_taken_now_are_not_saved():
    """Gains taken at once are reported to write on the sheet; only the rest are saved."""
    leveled = award_xp(replace(KARA, xp=10), 0).character
    now = SavedGains(tiers=1, ranks=2, benefits=0)
    up = choose_gains(leveled, LevelGains((Attribute.BODY, Attribute.MIND), take_now=now))
    assert (now, SavedGains(1, 0, 1)) == (up.taken, up.character.saved)
    with pytest.raises(RuleViolation, match="cannot take 2 tiers of 0"):
        choose_gains(
            leveled,
            LevelGains((Attribute.BODY, Attribute.MIND), Attribute.BODY, SavedGains(tiers=2)),
        )


def test_gains_need_a_level_and_two_different_attributes():
    """No Level to spend, or the same attribute twice, is refused."""
    with pytest.raises(RuleViolation, match="no Level"):
        choose_gains(KARA, LevelGains((Attribute.BODY, Attribute.MIND)))
    leveled = award_xp(replace(KARA, xp=10), 0).character
    with pytest.raises(RuleViolation, match="two different"):
        choose_gains(leveled, LevelGains((Attribute.BODY, Attribute.BODY)))


def test_awaken_spends_saved_gains():
    """Awakening takes saved gains; more than saved is refused, naming what is saved."""
    saved = replace(KARA, saved=SavedGains(2, 2, 1))
    after, _ = awaken(saved, tiers=1, benefits=1)
    assert SavedGains(1, 2, 0) == after.saved
    with pytest.raises(RuleViolation, match="has 2 saved"):
        awaken(saved, ranks=3)


def test_gm_sets_level_directly():
    """The GM may skip XP and set a Level; Health follows the formula."""
    after, _ = set_level(KARA, 4)
    assert (4, 16) == (after.level, after.health)
