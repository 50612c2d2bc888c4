"""Influence in ``hits``: gained by player characters, spent on All in, Leave and Duels.

Only player characters hold Influence; it has no cap and is kept between scenes and
chapters. Gains: +1 when a chapter starts and the character has none
(:func:`.scene.start_chapter`), for taking Stress or a Wound (:func:`.stress.take_harm`),
and for becoming a Legend (:func:`become_legend`). Spends are recorded in the chapter
(:class:`.scene.SpendRecord`) because each distinct way earns XP at the chapter's end.

>>> from referee.base.dice import FixedDice
>>> from .rolls import PoolSpec, roll_level
>>> from .sheet import Attribute, new_character
>>> kara = replace(new_character("Kara", Attribute.BODY, Attribute.MIND), influence=1)
>>> first = roll_level(PoolSpec(4), 1, FixedDice([3, 3, 2, 1]))
>>> redone = all_in(CampaignClock(), kara, first, FixedDice([4, 5, 1, 1]))
>>> redone.test.outcome.value, redone.character.influence, redone.clock.chapter.spends[0].way.value
('partial', 0, 'all_in')
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation
from referee.systems.changes import Change, changes_between

from .rolls import LevelRoll, redo_level
from .rulings import DEFAULT_RULINGS, Rulings
from .scene import CAMPAIGN, CampaignClock, Mode, Spend, SpendRecord, record_spend
from .sheet import MAX_COUNTER, Character, Standing

COSTS = {Spend.ALL_IN: 1, Spend.LEAVE: 1}  # a duel's cost depends on the mode: duel_cost


@dataclass(frozen=True)
class SpendResult:
    """A spend of Influence: the character and clock after it, and what changed."""

    character: Character
    clock: CampaignClock
    changes: tuple[Change, ...]
    test: LevelRoll | None = None  # All in: the redone roll, which now stands


def duel_cost(mode: Mode, tension: int) -> int:
    """A duel's Influence: 1 outside combat; 4 − Tension in combat, at least 1.

    >>> duel_cost(Mode.COMBAT, 1), duel_cost(Mode.COMBAT, 2), duel_cost(Mode.COMBAT, 5)
    (3, 2, 1)
    """
    return max(1, 4 - tension) if Mode(mode) == Mode.COMBAT else 1


def gain(character: Character, amount: int) -> Character:
    """A player character with ``amount`` more Influence; an NPC unchanged."""
    if not character.player:
        return character
    return replace(character, influence=min(MAX_COUNTER, character.influence + amount))


def spend(clock: CampaignClock, character: Character, way: Spend, cost: int) -> SpendResult:
    """Pay ``cost`` Influence for ``way`` and record it in the chapter, or RuleViolation."""
    if not character.player:
        raise RuleViolation(
            f"{character.name} is not a player character; only PCs spend Influence."
        )
    if character.standing in (Standing.DEAD, Standing.KNOCKED_OUT):
        raise RuleViolation(f"{character.name} is {character.standing.value.replace('_', ' ')}.")
    if character.influence < cost:
        raise RuleViolation(
            f"{character.name} has {character.influence} Influence;"
            f" {Spend(way).value.replace('_', ' ')} costs {cost}."
        )
    after = replace(character, influence=character.influence - cost)
    new_clock = record_spend(clock, SpendRecord(character.name, Spend(way), cost))
    changes = changes_between("character", character.name, character, after) + changes_between(
        "chapter", CAMPAIGN, clock.chapter, new_clock.chapter
    )
    return SpendResult(after, new_clock, changes)


def refund(clock: CampaignClock, character: Character, record: SpendRecord) -> SpendResult:
    """Give back a spend's Influence; its record stays, marked refunded (R-47 counts it)."""
    spends = list(clock.chapter.spends)
    changes: tuple[Change, ...] = ()
    # The latest matching record: a duel refunds the spend that started it. A spend of a
    # chapter already ended is refunded all the same; only its record is gone.
    for index in range(len(spends) - 1, -1, -1):
        if spends[index] == record:
            spends[index] = replace(record, refunded=True)
            changes = (Change("chapter", CAMPAIGN, "spends", clock.chapter.spends, tuple(spends)),)
            break
    after = gain(character, record.cost)
    new_clock = replace(clock, chapter=replace(clock.chapter, spends=tuple(spends)))
    return SpendResult(
        after, new_clock, changes_between("character", character.name, character, after) + changes
    )


def all_in(
    clock: CampaignClock,
    character: Character,
    previous: LevelRoll,
    dice: DiceSource,
    rulings: Rulings = DEFAULT_RULINGS,
) -> SpendResult:
    """All in: pay 1 and redo the roll (R-44); the new result stands, hits still 4+.

    The caller checks the roll is the character's own (R-44 "ordinary": a player redoes
    only his own roll); a roll already redone is refused.
    """
    if previous.roll.redo:
        raise RuleViolation("That roll was already redone with All in; a roll is redone once.")
    paid = spend(clock, character, Spend.ALL_IN, COSTS[Spend.ALL_IN])
    test = redo_level(previous, dice, rulings)
    return replace(paid, test=test)


def leave(clock: CampaignClock, character: Character) -> SpendResult:
    """Leave: pay 1 for a free non-attack action at the end of one's combat turn."""
    if clock.scene.mode != Mode.COMBAT or not clock.scene.open:
        raise RuleViolation("Leave is a combat action, taken at the end of one's combat turn.")
    return spend(clock, character, Spend.LEAVE, COSTS[Spend.LEAVE])


def become_legend(character: Character) -> tuple[Character, tuple[Change, ...]]:
    """The character becomes a Legend (through a Bond Action): +1 Influence, once."""
    if character.legend:
        raise RuleViolation(f"{character.name} is already a Legend.")
    after = gain(replace(character, legend=True), 1)
    return after, changes_between("character", character.name, character, after)
