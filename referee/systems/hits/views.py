"""What a ``hits`` verdict shows: one frozen value per template, and the changes it lists.

The resolvers (:mod:`.handlers`, :mod:`.play`, :mod:`.gm`) build these from the rules
engine's results; the templates in ``templates/`` format them. A :class:`Shown` change
is one counter of one character (or of the campaign) before and after, in words a
player reads, and it is what the ledger keeps beside the dice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any

from referee.systems.changes import Change

from .duels import Duel
from .odds import OpposedOdds
from .rolls import GroupRoll, OpposedRoll, Outcome, PoolRoll, PoolSpec, QuickRoll, QuickSpec
from .scene import Timer
from .sheet import SavedGains, Stake

# What a verdict lists of a character's changes, in this order, with the words it uses.
SHOWN_KEYS = {
    "level": "Level",
    "xp": "XP",
    "health": "Health",
    "stress": "Stress",
    "wounds": "Wounds",
    "influence": "Influence",
    "standing": "standing",
    "stakes": "stakes raised",
    "lost_wagers": "lost for ever",
    "legend": "Legend",
    "unchosen_levels": "Levels to choose gains for",
    "saved": "saved gains",
    "body": "Body",
    "talent": "Talent",
    "spirit": "Spirit",
    "mind": "Mind",
    "advantage": "standing Advantage",
    "disadvantage": "standing Disadvantage",
    "skills": "skills",
    "abilities": "abilities",
    "benefits": "benefits",
    "techniques": "techniques",
    "bonds": "bonds",
}


def words(value: object) -> str:
    """A stored value as a player reads it.

    >>> words(SavedGains(2, 0, 1)), words((("Swords", 2),)), words(True)
    ('2 tiers, 1 benefit', 'Swords 2', 'yes')
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Enum):
        return str(value.value).replace("_", " ")
    if isinstance(value, SavedGains):
        counts = [(getattr(value, k), k) for k in ("tiers", "ranks", "benefits")]
        parts = [f"{n} {k if n != 1 else k[:-1]}" for n, k in counts if n]
        return ", ".join(parts) or "none"
    if isinstance(value, Stake):
        return value.wager.value + (f" ({value.what})" if value.what else "")
    if isinstance(value, tuple):
        if all(isinstance(item, tuple) and len(item) == 2 for item in value):
            return ", ".join(f"{name} {rank}" for name, rank in value) or "none"
        return ", ".join(words(item) for item in value) or "none"
    return str(value)


@dataclass(frozen=True)
class Shown:
    """One value of one character before and after a verdict, in words."""

    name: str
    what: str  # "Stress", "Influence"...
    before: str
    after: str

    def ledger(self) -> dict[str, Any]:
        """What the ledger row keeps of it."""
        return {"name": self.name, "what": self.what, "before": self.before, "after": self.after}


def shown(changes: Iterable[Change]) -> tuple[Shown, ...]:
    """The character changes a verdict lists (folded: one line per character and value)."""
    first: dict[tuple[str, str], object] = {}
    last: dict[tuple[str, str], object] = {}
    for change in changes:
        if change.subject != "character" or change.key not in SHOWN_KEYS:
            continue
        key = (change.name, change.key)
        first.setdefault(key, change.before)
        last[key] = change.after
    names = list(dict.fromkeys(name for name, _ in first))
    order = list(SHOWN_KEYS)
    return tuple(
        Shown(name, SHOWN_KEYS[key], words(first[(name, key)]), words(last[(name, key)]))
        for name, key in sorted(first, key=lambda k: (names.index(k[0]), order.index(k[1])))
        if first[(name, key)] != last[(name, key)]
    )


def by_character(changes: Iterable[Shown]) -> list[tuple[str, list[Shown]]]:
    """Changes grouped by character, in the order the characters first appear."""
    groups: dict[str, list[Shown]] = {}
    for change in changes:
        groups.setdefault(change.name, []).append(change)
    return list(groups.items())


@dataclass(frozen=True)
class Source:
    """A source of dice a roll named, as the sheet gives it."""

    name: str
    dice: int
    advantage: int = 0  # a trait in a standard roll: the Advantage it adds instead of dice


@dataclass(frozen=True)
class Side:
    """One roller of a roll: who, what he named, and the pool it made."""

    name: str
    sources: tuple[Source, ...]
    spec: PoolSpec
    level: int = 1


@dataclass(frozen=True)
class PoolView:
    """``roll`` and ``all in``: one pool, judged by the Level table outside combat."""

    side: Side
    roll: PoolRoll
    combat: bool  # combat rolls count hits only: the Level table is unstructured play's
    outcome: Outcome | None
    odds: Mapping[Outcome, Fraction] | None  # the Level table's exact chances
    at_least: Fraction | None  # in combat: the exact chance of this many hits or more
    redo_of: str = ""  # All in: the roll id redone
    changes: tuple[Shown, ...] = ()

    @property
    def hits(self) -> int:
        return self.roll.hits


@dataclass(frozen=True)
class QuickAsked:
    """The GM asks a character for a quick roll in this scene."""

    name: str
    scene: int


@dataclass(frozen=True)
class QuickView:
    """A quick roll: no crits; 0 hits fail, 1 partial, 2+ success."""

    side: Side
    spec: QuickSpec
    roll: QuickRoll
    odds: Mapping[Outcome, Fraction]
    redo_of: str = ""  # All in: the roll id redone
    changes: tuple[Shown, ...] = ()


@dataclass(frozen=True)
class OpposedView:
    """An opposed roll, ties rerolled (R-43) unless the GM awards them to all."""

    sides: tuple[Side, ...]
    roll: OpposedRoll
    odds: OpposedOdds | None  # None past the exact sums' bounds
    tie_all: bool = False  # the GM's tie=all: a first-round tie is awarded, never rerolled
    redo_of: str = ""  # All in: the roll id redone
    redone: str = ""  # All in: whose first-round roll was redone (the others' stand)
    # All in: each end's exact chance, the others' hits standing ("": awarded to all)
    redo_chances: Mapping[str, Fraction] | None = None
    changes: tuple[Shown, ...] = ()


@dataclass(frozen=True)
class GroupView:
    """A group roll: the most hits counts, at the Level R-42 says."""

    sides: tuple[Side, ...]
    roll: GroupRoll
    odds: Mapping[Outcome, Fraction]
    redo_of: str = ""  # All in: the roll id redone (the odds are then over the redo alone)
    redone: str = ""  # All in: whose roll was redone (the others' stand)
    changes: tuple[Shown, ...] = ()


@dataclass(frozen=True)
class DuelView:
    """A duel step: declared, defended, rolled, or the losing initiator's choice."""

    step: str  # "declared", "defended", "rolled", "withdraw", "accept", "resist"
    duel: Duel  # as it stands after the step
    roll: OpposedRoll | None = None
    odds: OpposedOdds | None = None
    changes: tuple[Shown, ...] = ()
    fired: tuple[Timer, ...] = ()  # a resist timer made (shown as made, not fired)
    timers: tuple[Timer, ...] = ()  # timers the step created

    @property
    def done(self) -> bool:
        return self.duel.status.value == "done"


@dataclass(frozen=True)
class StepView:
    """Any other verb: what happened, to whom, and every change it made."""

    action: str  # the referee's own words: "starts a combat scene"
    subject: str = ""  # a character or timer name, escaped by the template
    detail: str = ""  # the poster's own words (a Leave's action, a timer's event)
    changes: tuple[Shown, ...] = ()
    fired: tuple[Timer, ...] = ()  # timers that filled and fired
    timer: Timer | None = None  # a timer as it now stands
    scene: str = ""  # the scene after the step, in words ("combat, Tension 2")


@dataclass(frozen=True)
class Award:
    """A character's XP at a chapter's end."""

    name: str
    xp: int
    levels: int
    level: int
    total: int  # XP after


@dataclass(frozen=True)
class ChapterView:
    """``chapter start`` and ``chapter end`` (the XP it awarded)."""

    number: int
    started: bool
    awards: tuple[Award, ...] = ()
    changes: tuple[Shown, ...] = ()
