"""The GM's edits of a ``pool`` character (RULES.md §2's GM verbs): traits, points, counters.

* :func:`edit_traits`: Attributes, Abilities, Willpower and Humanity ratings. Lowering
  the Willpower rating below the points in hand lowers the points with it.
* :func:`edit_state`: Willpower points (they "come back by a GM edit", R-32) and the
  free-form counters shown on the roster (health, blood, notes); ``None`` removes one.

Each takes ``by_gm`` and refuses a player with :class:`~referee.base.errors.Forbidden`;
each checks the whole result and reports every problem at once; each returns the new
values and the :class:`~referee.systems.changes.Change` set, addressed to ``"sheet"``
(the approved sheet) or ``"character"`` (the state) under the character's name.

>>> from referee.systems.pool.sheet import TraitLists
>>> sheet, state = Sheet("Kara", {"wits": 2}, 6), State(6)
>>> edit = edit_traits(sheet, state, {"willpower": 4}, TraitLists(), by_gm=True)
>>> edit.sheet.willpower, edit.state.willpower_points
(4, 4)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from referee.base.errors import Forbidden, RuleViolation, UserError
from referee.system.validation import problems_message
from referee.systems.changes import Change, changes_between, find_name
from referee.systems.pool.sheet import (
    HUMANITY,
    WILLPOWER,
    Counter,
    Sheet,
    State,
    TraitLists,
    sheet_problems,
    state_problems,
)


@dataclass(frozen=True)
class Edit:
    """A character after a GM's edit, and the changes that make it."""

    sheet: Sheet
    state: State
    changes: tuple[Change, ...]


def _gm_only(by_gm: bool, what: str) -> None:
    if not by_gm:
        raise Forbidden(f"Only the GM edits {what}; ask your GM.")


def _finish(old_sheet: Sheet, old_state: State, sheet: Sheet, state: State) -> Edit:
    name = old_sheet.name
    changes = changes_between("sheet", name, old_sheet, sheet) + changes_between(
        "character", name, old_state, state
    )
    return Edit(sheet, state, changes)


def edit_traits(
    sheet: Sheet, state: State, ratings: Mapping[str, object], lists: TraitLists, by_gm: bool
) -> Edit:
    """Set some ratings (names as typed); RuleViolation listing every problem."""
    _gm_only(by_gm, "traits, Willpower and Humanity")
    problems: list[str] = []
    traits = dict(sheet.traits)
    ratings_1_10 = {WILLPOWER: sheet.willpower, HUMANITY: sheet.humanity}
    for typed, value in ratings.items():
        try:
            trait = find_name(str(typed), lists.every_name, "trait")
        except UserError as error:
            problems.append(error.message)
            continue
        if trait in ratings_1_10:
            ratings_1_10[trait] = value  # type: ignore[assignment]
        else:
            traits[trait] = value  # type: ignore[assignment]
    edited = replace(
        sheet, traits=traits, willpower=ratings_1_10[WILLPOWER], humanity=ratings_1_10[HUMANITY]
    )
    problems += sheet_problems(edited, lists)
    if problems:
        raise RuleViolation(problems_message(f"The edit of {sheet.name}", problems))
    points = min(state.willpower_points, edited.willpower)
    return _finish(sheet, state, edited, replace(state, willpower_points=points))


def edit_state(
    sheet: Sheet,
    state: State,
    by_gm: bool,
    willpower_points: int | None = None,
    counters: Mapping[str, Counter | None] | None = None,
) -> Edit:
    """Set Willpower points and counters (``None`` removes a counter); every problem at once.

    >>> edit = edit_state(Sheet("Kara", willpower=6), State(2, counters={"blood": 3}), True,
    ...                   willpower_points=6, counters={"blood": None, "health": "bruised"})
    >>> edit.state.willpower_points, dict(edit.state.counters)
    (6, {'health': 'bruised'})
    """
    _gm_only(by_gm, "Willpower points and counters")
    kept = dict(state.counters)
    for counter, value in (counters or {}).items():
        key = " ".join(str(counter).split())
        if value is None:
            kept.pop(key, None)
        else:
            kept[key] = value
    edited = replace(
        state,
        willpower_points=state.willpower_points if willpower_points is None else willpower_points,
        counters=kept,
    )
    problems = state_problems(edited, sheet)
    if problems:
        raise RuleViolation(problems_message(f"The edit of {sheet.name}", problems))
    return _finish(sheet, state, sheet, edited)
