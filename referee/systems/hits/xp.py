"""XP, Levels and level-up gains of ``hits``.

At a chapter's end (:func:`end_chapter`) each player character earns XP: in the standard
mode 2 + 1 per distinct way Influence was spent in the chapter, at most 5; in the fast mode
3 + 1 per use (R-48: tallied at the chapter's end), capped by R-27. R-47 decides whose spends
count (the character's own, refunded ones included, or the whole table's). At 10 XP or more
the character loses 10 and gains a Level, to at most 6 (R-28: at 6, XP keeps accruing and
does nothing, or stops).

A Level gained waits for the player's choice of gains (:func:`choose_gains`): +1 to two
different attributes; two Technique Tiers **or** +1 to the highest attribute; two Character
Ranks; one Benefit; then Health = 2 × (Body + Level) (R-40). Tiers, Ranks and the Benefit
are taken at once (:attr:`LevelGains.take_now`, written on the sheet) or saved as counts
(:class:`.sheet.SavedGains`) for when the character Awakens (:func:`awaken`). The
gains taken are counted here; the tag that takes them names them, and the wiring writes
each on the sheet by name (:func:`.sheet.with_rank`). A Bond's Rank changing only in an
Intermission is left to the GM (``set Kara bond Bram 2``).

Readings noted: fast mode's "+1 each time Influence is used" counts every spend of the
chapter, refunded ones included (as R-47 counts them for ways); "+1 to the highest
attribute" is judged after the level's two +1s, a tie letting the player pick.

>>> from .sheet import Attribute, new_character
>>> kara = replace(new_character("Kara", Attribute.BODY, Attribute.MIND), xp=8)
>>> award = award_xp(kara, 4)
>>> award.character.level, award.character.xp, award.character.unchosen_levels
(2, 2, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from referee.base.errors import RuleViolation
from referee.systems.changes import Change, changes_between

from .rulings import DEFAULT_RULINGS, UNCAPPED, Rulings, XpAtMax, XpMode, XpWaysScope
from .scene import CAMPAIGN, CampaignClock, Chapter
from .sheet import MAX_COUNTER, MAX_LEVEL, Attribute, Character, SavedGains, check_character

XP_PER_LEVEL = 10
STANDARD_BASE, STANDARD_CAP = 2, 5
FAST_BASE = 3


@dataclass(frozen=True)
class XpAward:
    """A character after XP: how much, how many Levels it made, and what changed."""

    character: Character
    xp: int
    levels: int
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class ChapterEnd:
    """A chapter's end: the closed clock, every character after XP, and each award."""

    clock: CampaignClock
    characters: tuple[Character, ...]
    awards: tuple[XpAward, ...]
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class LevelGains:
    """The gains a player picks for one Level."""

    raised: tuple[Attribute, Attribute]  # two different attributes, +1 each
    highest: Attribute | None = None  # +1 to the highest attribute instead of two Tiers
    # Of this Level's Tiers, Ranks and Benefit, those taken at once (written on the sheet
    # now); the rest are saved for Awakening.
    take_now: SavedGains = field(default_factory=SavedGains)


@dataclass(frozen=True)
class LevelUp:
    """One Level's gains applied: the character, what changed, and what to write now."""

    character: Character
    changes: tuple[Change, ...]
    taken: SavedGains  # Tiers, Ranks and Benefits the player writes on the sheet now


def chapter_xp(name: str, chapter: Chapter, rulings: Rulings = DEFAULT_RULINGS) -> int:
    """XP a character earns at the end of ``chapter`` (standard or fast, R-27/R-47/R-48).

    >>> from .scene import Spend, SpendRecord
    >>> chapter = Chapter(1, True, (SpendRecord("Kara", Spend.ALL_IN, 1),
    ...                             SpendRecord("Kara", Spend.ALL_IN, 1),
    ...                             SpendRecord("Kara", Spend.DUEL, 3, refunded=True)))
    >>> chapter_xp("Kara", chapter), chapter_xp("Kara", chapter, Rulings(xp_mode="fast"))
    (4, 5)
    >>> chapter_xp("Kara", chapter, Rulings(xp_mode="fast", fast_xp_cap=UNCAPPED))
    6
    """
    spends = chapter.spends
    if rulings.xp_ways_scope == XpWaysScope.OWN:
        spends = tuple(s for s in spends if s.character.casefold() == name.casefold())
    if rulings.xp_mode == XpMode.FAST:
        xp = FAST_BASE + len(spends)
        return xp if rulings.fast_xp_cap == UNCAPPED else min(xp, rulings.fast_xp_cap)
    return min(STANDARD_CAP, STANDARD_BASE + len({s.way for s in spends}))


def award_xp(character: Character, xp: int, rulings: Rulings = DEFAULT_RULINGS) -> XpAward:
    """Add XP; every 10 becomes a Level (to 6), whose gains wait for :func:`choose_gains`."""
    if not 0 <= xp <= MAX_COUNTER:
        raise RuleViolation(f"XP awarded is from 0 to {MAX_COUNTER}, not {xp}.")
    if character.level >= MAX_LEVEL and rulings.xp_at_max == XpAtMax.STOP:
        return XpAward(character, 0, 0, ())
    total = min(MAX_COUNTER, character.xp + xp)
    level = character.level
    while total >= XP_PER_LEVEL and level < MAX_LEVEL:
        total -= XP_PER_LEVEL
        level += 1
    gained = level - character.level
    after = replace(
        character, xp=total, level=level, unchosen_levels=character.unchosen_levels + gained
    )
    return XpAward(
        after, xp, gained, changes_between("character", character.name, character, after)
    )


def end_chapter(
    clock: CampaignClock, characters: Sequence[Character], rulings: Rulings = DEFAULT_RULINGS
) -> ChapterEnd:
    """Close the chapter and award each player character its XP."""
    if not clock.chapter.open:
        raise RuleViolation("No chapter is running; start one first.")
    awards = tuple(
        award_xp(c, chapter_xp(c.name, clock.chapter, rulings), rulings)
        if c.player
        else XpAward(c, 0, 0, ())
        for c in characters
    )
    after = replace(clock, chapter=replace(clock.chapter, open=False))
    changes = changes_between("chapter", CAMPAIGN, clock.chapter, after.chapter)
    for award in awards:
        changes += award.changes
    return ChapterEnd(after, tuple(a.character for a in awards), awards, changes)


def choose_gains(
    character: Character, gains: LevelGains, rulings: Rulings = DEFAULT_RULINGS
) -> LevelUp:
    """Apply the gains of one Level the player has not chosen yet.

    ``highest`` must name an attribute that is highest after the two +1s (a tie lets the
    player pick among the tied). Health becomes 2 × (Body + Level) (R-40 ``formula``).
    """
    if character.unchosen_levels < 1:
        raise RuleViolation(f"{character.name} has no Level whose gains are still to choose.")
    first, second = (Attribute(a) for a in gains.raised)
    if first == second:
        raise RuleViolation("A level-up raises two different attributes; name two.")
    values = character.attributes
    values[first] += 1
    values[second] += 1
    granted = SavedGains(tiers=2 if gains.highest is None else 0, ranks=2, benefits=1)
    over = [
        f"{getattr(gains.take_now, kind)} {kind} of {getattr(granted, kind)}"
        for kind in ("tiers", "ranks", "benefits")
        if not 0 <= getattr(gains.take_now, kind) <= getattr(granted, kind)
    ]
    if over:
        raise RuleViolation(
            "This Level grants 2 Tiers (or +1 to the highest attribute), 2 Ranks and 1 Benefit;"
            " cannot take " + ", ".join(over) + "."
        )
    if gains.highest is not None:
        top = max(values.values())
        if values[Attribute(gains.highest)] != top:
            best = ", ".join(a.value for a, v in values.items() if v == top)
            raise RuleViolation(
                f"+1 goes to the highest attribute ({best}), not {Attribute(gains.highest).value}."
            )
        values[Attribute(gains.highest)] += 1
    saved = SavedGains(
        *(
            getattr(character.saved, kind) + getattr(granted, kind) - getattr(gains.take_now, kind)
            for kind in ("tiers", "ranks", "benefits")
        )
    )
    attributes: dict[str, Any] = {a.value: v for a, v in values.items()}
    after = replace(
        character,
        **attributes,
        saved=saved,
        unchosen_levels=character.unchosen_levels - 1,
    )
    after = check_character(replace(after, health=after.max_health))
    return LevelUp(
        after, changes_between("character", character.name, character, after), gains.take_now
    )


def awaken(
    character: Character, tiers: int = 0, ranks: int = 0, benefits: int = 0
) -> tuple[Character, tuple[Change, ...]]:
    """Take saved gains (Awakening) while acting in a scene; the sheet records what they became."""
    wanted = SavedGains(tiers, ranks, benefits)
    problems = [
        f"{kind}: wants {getattr(wanted, kind)}, has {getattr(character.saved, kind)} saved"
        for kind in ("tiers", "ranks", "benefits")
        if not 0 <= getattr(wanted, kind) <= getattr(character.saved, kind)
    ]
    if problems:
        raise RuleViolation(f"{character.name} cannot Awaken that: " + "; ".join(problems) + ".")
    saved = SavedGains(
        character.saved.tiers - tiers,
        character.saved.ranks - ranks,
        character.saved.benefits - benefits,
    )
    after = replace(character, saved=saved)
    return after, changes_between("character", character.name, character, after)


def set_level(character: Character, level: int) -> tuple[Character, tuple[Change, ...]]:
    """The GM skips XP and sets the Level directly; Health follows the formula (R-40)."""
    if not 1 <= level <= MAX_LEVEL:
        raise RuleViolation(f"A Level is from 1 to {MAX_LEVEL}, not {level}.")
    after = replace(character, level=level)
    after = replace(after, health=after.max_health)
    return after, changes_between("character", character.name, character, after)
