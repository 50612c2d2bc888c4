"""How the store keeps a character or craft: its key, and its record beside the sheet."""

from __future__ import annotations

from typing import Any

from referee.base.names import name_key


def character_key(name: str) -> str:
    """How a character is keyed in the store: its name, case and spacing folded."""
    return name_key(name)


def store_entry(
    name: str, owner: str | None, approved: bool, sheet: dict[str, Any]
) -> dict[str, Any]:
    """A character or craft as the store keeps it: the campaign's facts beside the sheet.

    A GM's character also keeps the sheet it entered play with, which ``[[revive]]``
    puts back (:mod:`referee.resolve.corrections`).
    """
    entry = {
        "name": name,
        "owner": owner,  # the Reddit user who plays it; None for the GM's
        "approved": approved,  # only approved characters and crafts may act
        "sheet": sheet,
    }
    if owner is None:
        entry["initial_sheet"] = sheet
    return entry
