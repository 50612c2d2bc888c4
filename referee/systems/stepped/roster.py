"""Stepped's roster: the rows the wiki page and ``referee characters`` show.

:func:`roster_view` turns the store's ``characters`` and ``vehicles`` records into
plain rows (only approved ones); stepped's template ``roster.md.j2`` decides how they
read, with every name a user chose passed through the ``md`` filter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .sheet import character_from_record
from .traits import Background, Kind, PersonalTrait, Stat, die_for_points, state_of


@dataclass(frozen=True)
class CharacterRow:
    """One approved character as the roster shows it."""

    name: str
    owner: str | None  # the player's username; None for a GM's character
    kind: str  # "pc" or "npc"
    race: str
    background: str
    dice: tuple[tuple[str, int], ...]  # (stat, die sides), in the ladder's order of stats
    wounds: int
    wounds_survived: int
    state: str  # State's value: "fit", "wounded", ...
    weapons: tuple[str, ...]
    traits: tuple[str, ...] = ()  # personal traits as "Keen eyes (per +1)", shown after the race


@dataclass(frozen=True)
class VehicleRow:
    """One approved vehicle or ship, from its stored sheet (read, not re-checked)."""

    name: str
    owner: str | None
    craft: str
    size: str
    pilot: str | None
    dice: tuple[tuple[str, str], ...]  # (parameter, "d8") as the sheet holds them
    wounds: int


@dataclass(frozen=True)
class RosterView:
    """What the roster template receives."""

    campaign: str
    players: tuple[CharacterRow, ...]
    npcs: tuple[CharacterRow, ...]
    vehicles: tuple[VehicleRow, ...]


# Vehicle sheet keys that are not dice parameters.
_VEHICLE_FACTS = frozenset(
    {"name", "craft", "class", "named", "pilot", "wounds", "wounds_survived"}
)


def _trait_words(trait: PersonalTrait) -> str:
    """A personal trait in a roster cell: "Keen eyes (per +1)"."""
    changes = ", ".join(f"{stat.value[:3]} {n:+d}" for stat, n in trait.modifiers.items())
    return f"{trait.name} ({changes})"


def _character(record: Mapping[str, Any]) -> CharacterRow:
    character = character_from_record(record["sheet"])
    return CharacterRow(
        name=character.name,
        owner=record.get("owner") or None,
        kind=Kind(character.kind).value,
        race=character.race,
        background=Background(character.background).value,
        dice=tuple(
            (stat.value, die_for_points(character.stats[stat]))
            for stat in Stat
            if stat in character.stats
        ),
        wounds=character.wounds,
        wounds_survived=character.wounds_survived,
        state=state_of(character).value,
        weapons=tuple(weapon.name for weapon in character.weapons),
        traits=tuple(_trait_words(trait) for trait in character.traits),
    )


def _vehicle(record: Mapping[str, Any]) -> VehicleRow:
    sheet = dict(record.get("sheet") or {})
    return VehicleRow(
        name=str(record.get("name") or sheet.get("name") or "?"),
        owner=record.get("owner") or None,
        craft=str(sheet.get("craft", "")),
        size=str(sheet.get("class", "")),
        pilot=sheet.get("pilot"),
        dice=tuple((k, str(v)) for k, v in sheet.items() if k not in _VEHICLE_FACTS and v),
        wounds=int(sheet.get("wounds", 0)),
    )


def roster_view(
    campaign: str,
    characters: Iterable[Mapping[str, Any]],
    vehicles: Iterable[Mapping[str, Any]] = (),
) -> RosterView:
    """The approved characters (players' first, then the GM's) and vehicles, by name."""
    rows = sorted(
        (_character(r) for r in characters if r.get("approved")), key=lambda r: r.name.casefold()
    )
    return RosterView(
        campaign,
        tuple(r for r in rows if r.owner),
        tuple(r for r in rows if not r.owner),
        tuple(
            sorted(
                (_vehicle(r) for r in vehicles if r.get("approved", True)),
                key=lambda r: r.name.casefold(),
            )
        ),
    )
