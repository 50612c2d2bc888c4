"""Who may see what: characters and state changes known to the GMs only, and NPC stats.

Visibility is part of the data, kept in the store's ``visibility`` table by character
key (a table of its own, small, so the roster learns which names are hidden without
reading every sheet):

* ``{"hidden": true}``: a character known to the GMs only (an NPC a GM created by
  private message). It is left out of the public roster, of every answer to a
  player and of the names suggested to a player ("did you mean"), until a GM
  ``[[reveal]]``\\ s it;
* ``{"public_sheet": {...}}``: a public character whose state a GM changed in private
  (``[[wound Trooper 2 +1]]`` by message). The public roster shows this sheet, the
  state as last publicly known, until a public tag changes the character again or a
  GM reveals it.

``[roster] npc_stats = "hidden"`` in ``config.toml`` also keeps the stats of the GM's
characters from players (names and state stay visible): :func:`public_columns`
chooses what of a system's ``character_rows`` a player sees then.

Only a GM, in a private message (or at the shell), sees everything:
:attr:`referee.resolve.dispatch.Context.sees_hidden`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from referee.store.entries import character_key
from referee.store.tables import Table

TABLE = "visibility"  # character key -> {"hidden": true} or {"public_sheet": sheet}

# Columns of a system's `referee characters` rows a player sees of an NPC whose stats
# are hidden: who it is and how it stands, never its numbers.
_PUBLIC_COLUMNS = frozenset(
    {"name", "kind", "owner", "approved", "state", "status", "wounds", "health", "harm", "hp"}
    | {"stress", "condition", "conditions"}
)


def hidden_keys(table: Table) -> frozenset[str]:
    """The keys of the characters known to the GMs only."""
    return frozenset(key for key, value in table.items() if value.get("hidden"))


def is_npc(record: Mapping[str, Any]) -> bool:
    """Whether a stored character is the GM's (it has no player)."""
    return not record.get("owner")


def after_private_tag(
    table: Table, writes: Iterable[tuple[str, str, Any, Any]], *, private: bool
) -> list[str]:
    """Mark what a tag wrote: created in private -> hidden; changed in private -> state hidden.

    A public tag that changes a character makes its current state public again (the
    verdict has just shown it). Returns the keys it hid.
    """
    hidden = []
    for name, key, before, after in writes:
        if name != "characters" or after is None:
            continue
        seen = table.get(key) or {}
        if seen.get("hidden"):
            continue
        if not private:
            if "public_sheet" in seen:
                table.delete(key)
        elif before is None:
            table.put(key, {"hidden": True})
            hidden.append(key)
        elif "public_sheet" not in seen:
            table.put(key, {"public_sheet": before.get("sheet")})
    return hidden


def public_records(
    records: Iterable[Mapping[str, Any]], visibility: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The characters as players may see them: hidden ones left out, private state undone."""

    shown = []
    for record in records:
        seen = visibility.get(character_key(str(record.get("name", "")))) or {}
        if seen.get("hidden"):
            continue
        if "public_sheet" in seen and seen["public_sheet"] is not None:
            record = {**record, "sheet": seen["public_sheet"]}
        shown.append(dict(record))
    return shown


def public_columns(header: tuple[str, ...]) -> list[int]:
    """The positions of the columns a player may see of an NPC whose stats are hidden.

    >>> public_columns(("name", "kind", "owner", "approved", "state", "wounds", "str agi"))
    [0, 1, 2, 3, 4, 5]
    """
    return [i for i, column in enumerate(header) if column.casefold() in _PUBLIC_COLUMNS]
