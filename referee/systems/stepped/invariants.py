"""``stepped``'s state within the rules (RULES.md §1.3, §1.5): its invariants, and a voided
tag's undo that keeps them.

Wounds are never below 0 and never past ``wounds_survived + 1`` (dead: "Wounds never pass"
it, :func:`.combat.apply_wounds`), for a character and for a craft; each stat holds 1 to 6
points. The core undoes a voided tag's wounds by the difference it made, which a heal or
a death since can take out of that range (a wound of 3 voided after a full heal: -3), so
:func:`undo_within_rules` keeps them within it.

>>> from referee.store.records import Undone
>>> undone = Undone({"sheet": {"wounds": -3, "wounds_survived": 3}}, ())
>>> undo_within_rules("characters", {}, undone, []).record["sheet"]["wounds"]
0
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.base.errors import StoreError, UserError
from referee.store.records import Undone
from referee.systems.invariants import each_character, within

from .application import SteppedSheet
from .traits import Character
from .vehicles.crafts import vehicle_from_record
from .vehicles.rolls import wounds_survived
from .vehicles.scale import VehicleRules

_STAT_POINTS = (1, 6)  # d4 .. d20 on the ladder


def _character(c: Character, record: Mapping[str, Any]) -> list[str]:
    problems = within(c.wounds, 0, max(c.wounds_survived, 0) + 1, "wounds")
    for stat, points in c.stats.items():
        problems += within(points, *_STAT_POINTS, f"{stat.value}")
    return problems


def invariants(tables: Mapping[str, Mapping[str, Any]], rules: Any) -> list[str]:
    """Every way the stored stepped state has left §1, in words."""
    problems = each_character(tables, SteppedSheet(), _character)
    for key, record in tables.get("vehicles", {}).items():
        try:
            craft = vehicle_from_record(record["sheet"])
        except (UserError, StoreError, KeyError, TypeError, ValueError) as error:
            problems.append(f"craft {key}: the stored sheet cannot be read ({error})")
            continue
        most = wounds_survived(craft, rules) + 1 if isinstance(rules, VehicleRules) else 10**6
        problems += [f"{craft.name}: {p}" for p in within(craft.wounds, 0, most, "wounds")]
    return problems


def undo_within_rules(
    table: str, before: dict[str, Any] | None, undone: Undone, changes: list[list[Any]]
) -> Undone:
    """A voided tag's undo with a character's or craft's wounds kept from 0 to dead."""
    record = undone.record
    sheet = record.get("sheet") if isinstance(record, dict) else None
    if table not in ("characters", "vehicles") or not isinstance(sheet, dict):
        return undone
    wounds = sheet.get("wounds")
    if type(wounds) is not int:
        return undone
    survived = sheet.get("wounds_survived")
    highest = survived + 1 if type(survived) is int and survived >= 0 else wounds
    sheet["wounds"] = min(max(wounds, 0), max(highest, 0))
    return undone
