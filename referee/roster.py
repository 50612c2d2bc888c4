"""The campaign's roster as Markdown, for the subreddit's wiki.

:func:`roster_view` turns the store's ``characters`` and ``vehicles`` records into
plain rows (only approved ones); the template ``roster.md.j2`` decides how they read,
with every name a user chose passed through the ``md`` filter.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .render import make_environment
from .systems import stepped

TEMPLATE = "roster.md.j2"


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
    state: str  # stepped.State's value: "fit", "wounded", ...
    weapons: tuple[str, ...]


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


def _character(record: Mapping[str, Any]) -> CharacterRow:
    character = stepped.character_from_record(record["sheet"])
    return CharacterRow(
        name=character.name,
        owner=record.get("owner") or None,
        kind=stepped.Kind(character.kind).value,
        race=character.race,
        background=stepped.Background(character.background).value,
        dice=tuple(
            (stat.value, stepped.die_for_points(character.stats[stat]))
            for stat in stepped.Stat
            if stat in character.stats
        ),
        wounds=character.wounds,
        wounds_survived=character.wounds_survived,
        state=stepped.state_of(character).value,
        weapons=tuple(weapon.name for weapon in character.weapons),
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


class RosterRenderer:
    """Renders the roster page from the campaign's templates (or the stock one)."""

    def __init__(self, templates_dir: Path | None = None) -> None:
        self._template = make_environment(templates_dir).get_template(TEMPLATE)

    def render(self, view: RosterView) -> str:
        """The page's Markdown, ending in one newline."""
        return self._template.render(roster=view).strip() + "\n"


def digest(text: str) -> str:
    """The sha256 of a page's text: published pages are compared by it.

    >>> digest("")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(text.encode()).hexdigest()
