"""A thread's initiative tracker: the order, whose turn it is, the round, and conditions.

Pure values and functions over them; :mod:`referee.resolve.tracker_verbs` reads and writes a
thread's tracker through the tag's change set. The rules, for every dice system:

* **The order** is the combatants by score, highest first. Everyone with the same score
  acts in the same turn (equal totals act together, as stepped rolls initiative; an
  order set by hand follows the same rule). The score comes from the system's initiative
  roll, or from the GM (``[[init add Goblin 14]]``).
* **The turn pointer** is the score whose turn it is. ``advance`` moves it to the next
  lower score; past the last, a new round starts at the top. Round 0 means the fight has
  not begun: the first ``advance`` starts round 1. Someone added mid-fight above the
  pointer acts from the next round, below it later this round, at it now.
* **Conditions** last a number of rounds counted from the turn on which they were set:
  set during round 2 at score 12 for 2 rounds, a condition ends when the pointer first
  reaches score 12 or lower in round 4 (set before the fight, from the top of round 1).
  A condition without a duration lasts until it is removed.

>>> tracker = add(add(Tracker(), "Goblin", 14), "Kara", 17)
>>> [group.names for group in tracker.groups]
[('Kara',), ('Goblin',)]
>>> step = advance(tracker)
>>> step.tracker.round, step.tracker.current.names
(1, ('Kara',))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from referee.base.names import name_key

RECORD_VERSION = 1


class NextBy(str, Enum):
    """``[initiative] next_by``: who besides a GM may write ``[[next]]``
    (:mod:`referee.resolve.tracker_verbs`)."""

    TURN = "turn"  # the player one of whose characters has the turn (the default)
    ANYONE = "anyone"  # anyone
    GM = "gm"  # GMs only


NEXT_BY = tuple(choice.value for choice in NextBy)


@dataclass(frozen=True)
class Condition:
    """A condition on a combatant: stunned, prone, blessed..."""

    name: str
    rounds: int | None = None  # the duration as set; None: until removed
    until_round: int = 0  # it ends when the pointer reaches (until_round, until_score)
    until_score: int | None = None  # None: the top of until_round
    by: str = ""  # the username who set it (see tracker_verbs: who may remove it)

    def ends_at(self, round_: int, score: int) -> bool:
        """Whether the turn at (``round_``, ``score``) is at or past this condition's end."""
        if self.rounds is None:
            return False
        if round_ != self.until_round:
            return round_ > self.until_round
        return self.until_score is None or score <= self.until_score


@dataclass(frozen=True)
class Combatant:
    """One name in the order with its score and conditions."""

    name: str
    score: int
    conditions: tuple[Condition, ...] = ()

    def condition(self, name: str) -> Condition | None:
        """The condition ``name`` means (any case, spaces collapsed), if it has it."""
        key = name_key(name)
        return next((c for c in self.conditions if name_key(c.name) == key), None)


@dataclass(frozen=True)
class Turn:
    """The combatants who share one score, so act in one turn."""

    score: int
    combatants: tuple[Combatant, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(combatant.name for combatant in self.combatants)


@dataclass(frozen=True)
class Tracker:
    """One thread's initiative: combatants highest score first, the round and the pointer."""

    combatants: tuple[Combatant, ...] = ()  # equal scores in the order they joined
    round: int = 0  # 0: the fight has not begun; the first advance starts round 1
    turn: int | None = None  # the score whose turn it is; None before round 1

    @property
    def started(self) -> bool:
        return self.round > 0 and self.turn is not None

    @property
    def groups(self) -> tuple[Turn, ...]:
        """The turns of a round, in order."""
        turns: list[Turn] = []
        for combatant in self.combatants:
            if turns and turns[-1].score == combatant.score:
                turns[-1] = Turn(combatant.score, (*turns[-1].combatants, combatant))
            else:
                turns.append(Turn(combatant.score, (combatant,)))
        return tuple(turns)

    @property
    def current(self) -> Turn | None:
        """Whose turn it is (None before the fight begins or when that turn has left)."""
        return next((turn for turn in self.groups if turn.score == self.turn), None)

    @property
    def upcoming(self) -> Turn | None:
        """Whose turn comes after the current one (the top of the order at a round's end)."""
        groups = self.groups
        if not groups:
            return None
        if not self.started:
            return groups[0]
        later = [turn for turn in groups if turn.score < (self.turn or 0)]
        return later[0] if later else groups[0]

    def find(self, name: str) -> Combatant | None:
        """The combatant ``name`` means: the same name in any case, else the only one it starts."""
        key = name_key(name)
        exact = [c for c in self.combatants if name_key(c.name) == key]
        if exact:
            return exact[0]
        starting = [c for c in self.combatants if key and name_key(c.name).startswith(key + " ")]
        return starting[0] if len(starting) == 1 else None


@dataclass(frozen=True)
class Expiry:
    """A condition that ended as the turn moved."""

    name: str  # the combatant's
    condition: Condition


@dataclass(frozen=True)
class Advance:
    """What moving the pointer did."""

    tracker: Tracker
    new_round: bool  # the pointer went past the last turn (or the fight began)
    expired: tuple[Expiry, ...]


def add(tracker: Tracker, name: str, score: int) -> Tracker:
    """The tracker with ``name`` placed at ``score`` (after anyone already at that score)."""
    combatants = list(tracker.combatants)
    at = next((i for i, c in enumerate(combatants) if c.score < score), len(combatants))
    combatants.insert(at, Combatant(name, score))
    return replace(tracker, combatants=tuple(combatants))


def remove(tracker: Tracker, name: str) -> Tracker:
    """The tracker without the combatant named exactly ``name``."""
    return replace(tracker, combatants=tuple(c for c in tracker.combatants if c.name != name))


def rename(tracker: Tracker, old: str, new: str) -> Tracker:
    """The tracker with the combatant named ``old`` (in any case) called ``new``, in place."""
    key = name_key(old)
    return replace(
        tracker,
        combatants=tuple(
            replace(c, name=new) if name_key(c.name) == key else c for c in tracker.combatants
        ),
    )


def advance(tracker: Tracker) -> Advance:
    """Move the pointer to the next turn; a new round after the last. Conditions that end, end.

    Raises ValueError on an empty order (the caller says so to the user first).
    """
    groups = tracker.groups
    if not groups:
        raise ValueError("no combatants to advance through")
    later = [t for t in groups if tracker.started and t.score < (tracker.turn or 0)]
    new_round = not later
    round_ = tracker.round + 1 if new_round else tracker.round
    score = groups[0].score if new_round else later[0].score
    expired: list[Expiry] = []
    combatants = []
    for combatant in tracker.combatants:
        ending = [c for c in combatant.conditions if c.ends_at(round_, score)]
        if ending:  # most combatants have no condition ending: kept as they are
            expired.extend(Expiry(combatant.name, c) for c in ending)
            kept = tuple(c for c in combatant.conditions if c not in ending)
            combatant = replace(combatant, conditions=kept)
        combatants.append(combatant)
    moved = Tracker(tuple(combatants), round_, score)
    return Advance(moved, new_round, tuple(expired))


def set_condition(
    tracker: Tracker, name: str, condition: str, rounds: int | None, by: str
) -> tuple[Tracker, Condition]:
    """The tracker with ``condition`` on ``name`` (replacing one of the same name), and it."""
    if tracker.started:
        until_round, until_score = tracker.round + (rounds or 0), tracker.turn
    else:  # counted from the top of round 1
        until_round, until_score = 1 + (rounds or 0), None
    made = Condition(condition, rounds, until_round, until_score, by)
    key = name_key(condition)
    combatants = tuple(
        replace(
            c,
            conditions=(*(k for k in c.conditions if name_key(k.name) != key), made),
        )
        if c.name == name
        else c
        for c in tracker.combatants
    )
    return replace(tracker, combatants=combatants), made


def clear_conditions(tracker: Tracker, name: str, conditions: tuple[Condition, ...]) -> Tracker:
    """The tracker without ``conditions`` on the combatant ``name``."""
    return replace(
        tracker,
        combatants=tuple(
            replace(c, conditions=tuple(k for k in c.conditions if k not in conditions))
            if c.name == name
            else c
            for c in tracker.combatants
        ),
    )


# -------------------------------------------------------------------------- records


def to_record(tracker: Tracker, thread: str) -> dict[str, Any]:
    """The JSON record the store keeps for a thread's tracker."""
    return {
        "version": RECORD_VERSION,
        "thread": thread,
        "round": tracker.round,
        "turn": tracker.turn,
        "combatants": [
            {
                "name": c.name,
                "score": c.score,
                "conditions": [
                    {
                        "name": k.name,
                        "rounds": k.rounds,
                        "until_round": k.until_round,
                        "until_score": k.until_score,
                        "by": k.by,
                    }
                    for k in c.conditions
                ],
            }
            for c in tracker.combatants
        ],
    }


def from_record(record: Mapping[str, Any]) -> Tracker:
    """A stored record back to its tracker."""
    return Tracker(
        tuple(
            Combatant(
                str(c["name"]),
                int(c["score"]),
                tuple(
                    Condition(
                        str(k["name"]),
                        k.get("rounds"),
                        int(k.get("until_round", 0)),
                        k.get("until_score"),
                        str(k.get("by", "")),
                    )
                    for k in c.get("conditions", ())
                ),
            )
            for c in record.get("combatants", ())
        ),
        int(record.get("round", 0)),
        record.get("turn"),
    )
