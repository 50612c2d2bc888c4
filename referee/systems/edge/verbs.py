"""``edge`` verbs on a character (RULES.md §4, §4.1; R-13): advantage, policy, stats, counters.

* The GM **lowers** it by one when the character is put at a disadvantage (a GM
  move), never below 1.
* R-13 ``edge_raise``: under ``"gm"`` (default) only the GM **raises** it, one step at a
  time, up to 6; under ``"player"`` the player may raise his own, and the GM lowers it
  back if he disagrees.
* The GM may **set** it to any value 1-6, and the **end of an encounter** puts every
  participant's back to 1.
* A player sets his character's standing **policy** (R-39); the GM edits **stats** and
  **counters**.

Each verb takes ``by_gm`` (whether the poster is a GM) and refuses a player with
:class:`~referee.base.errors.Forbidden` saying why. Each returns an :class:`Adjustment`:
the value before and after and the change set (empty when nothing moves).

>>> lower("Kara", State(advantage=1), by_gm=True).after
1
>>> end_encounter({"Kara": State(advantage=5), "Dax": State(advantage=1)})
(Change(subject='character', name='Kara', key='advantage', before=5, after=1),)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from referee.base.errors import Forbidden, RuleViolation, UserError
from referee.systems.changes import Change, changes_between, find_name
from referee.systems.edge.rulings import EdgeRaise, EdgeRulings, Policy
from referee.systems.edge.sheet import (
    ADVANTAGE_MAX,
    ADVANTAGE_MIN,
    COUNTER_MAX,
    COUNTER_MIN,
    Sheet,
    State,
    StatLists,
    build_sheet,
)


@dataclass(frozen=True)
class Adjustment:
    """A value of one character's state before and after a verb, and the change to store."""

    name: str  # the character
    key: str  # what moved: "advantage", "policy" or a counter's name
    before: object
    after: object
    changes: tuple[Change, ...]


def _adjust(name: str, key: str, before: object, after: object) -> Adjustment:
    changes = () if before == after else (Change("character", name, key, before, after),)
    return Adjustment(name, key, before, after, changes)


def _gm_only(by_gm: bool, what: str) -> None:
    if not by_gm:
        raise Forbidden(f"Only the GM {what}.")


def lower(name: str, state: State, by_gm: bool) -> Adjustment:
    """The GM lowers ``name``'s advantage by one (a GM move), never below 1."""
    _gm_only(by_gm, "lowers the advantage die: it is one of the GM's moves")
    return _adjust(name, "advantage", state.advantage, max(state.advantage - 1, ADVANTAGE_MIN))


def raise_advantage(name: str, state: State, by_gm: bool, rulings: EdgeRulings) -> Adjustment:
    """Raise ``name``'s advantage by one, up to 6: the GM, or under R-13 "player" the player.

    >>> raise_advantage("Kara", State(advantage=2), False, EdgeRulings())
    Traceback (most recent call last):
    ...
    referee.base.errors.Forbidden: Only the GM raises the advantage die in this campaign \
(ruling edge_raise = gm).
    """
    if rulings.edge_raise is EdgeRaise.GM:
        _gm_only(by_gm, "raises the advantage die in this campaign (ruling edge_raise = gm)")
    return _adjust(name, "advantage", state.advantage, min(state.advantage + 1, ADVANTAGE_MAX))


def set_advantage(name: str, state: State, value: int, by_gm: bool) -> Adjustment:
    """The GM sets ``name``'s advantage to ``value`` (1-6)."""
    _gm_only(by_gm, "sets the advantage die")
    if isinstance(value, bool) or not ADVANTAGE_MIN <= value <= ADVANTAGE_MAX:
        raise RuleViolation(f"The advantage die shows 1 to 6, not {value}.")
    return _adjust(name, "advantage", state.advantage, value)


def end_encounter(states: Mapping[str, State]) -> tuple[Change, ...]:
    """The end of an encounter: every participant's advantage goes back to 1."""
    return tuple(
        Change("character", name, "advantage", state.advantage, ADVANTAGE_MIN)
        for name, state in states.items()
        if state.advantage != ADVANTAGE_MIN
    )


def parse_policy(word: str) -> Policy:
    """The policy a player names (``up``, ``hit``, ``strong``, ``always``, ``never``).

    >>> parse_policy("Strong")
    <Policy.STRONG: 'strong'>
    """
    return Policy(find_name(word, [p.value for p in Policy], "advantage policy"))


def set_policy(name: str, state: State, policy: Policy) -> Adjustment:
    """A player (or the GM) sets the character's standing advantage policy (R-39)."""
    return _adjust(name, "policy", state.policy, policy)


def set_counter(
    name: str, state: State, counter: str, value: int, lists: StatLists, by_gm: bool
) -> Adjustment:
    """The GM sets one of ``name``'s counters (a counter left out counts as 0)."""
    _gm_only(by_gm, "edits counters")
    key = find_name(counter, lists.counters, "counter")
    if isinstance(value, bool) or not COUNTER_MIN <= value <= COUNTER_MAX:
        raise RuleViolation(f"A counter is {COUNTER_MIN} to {COUNTER_MAX}, not {value}.")
    counters = dict(state.counters)
    before = dict(counters)
    counters[key] = value
    adjustment = _adjust(name, "counters", before, counters)
    return Adjustment(name, key, before.get(key, 0), value, adjustment.changes)


def set_stats(
    sheet: Sheet, values: Mapping[str, object], lists: StatLists, by_gm: bool
) -> tuple[Sheet, tuple[Change, ...]]:
    """The GM sets some stats (names as typed); RuleViolation listing every problem.

    The changes are addressed to ``"sheet"`` (the approved sheet), not the state.

    >>> sheet, changes = set_stats(Sheet("Kara", {"cool": 1}), {"cool": 2}, StatLists(), True)
    >>> changes
    (Change(subject='sheet', name='Kara', key='stats', before={'cool': 1}, after={'cool': 2}),)
    """
    _gm_only(by_gm, "edits stats")
    edited = build_sheet(sheet.name, {**sheet.stats, **_resolved(values, lists)}, lists)
    return edited, changes_between("sheet", sheet.name, sheet, edited)


def _resolved(values: Mapping[str, object], lists: StatLists) -> dict[str, object]:
    """Typed stat names resolved, so an edit replaces the stat it names (bad ones kept as typed)."""
    resolved: dict[str, object] = {}
    for typed, value in values.items():
        try:
            resolved[find_name(str(typed), lists.stats, "stat")] = value
        except UserError:
            resolved[str(typed)] = value  # build_sheet reports it with the others
    return resolved
