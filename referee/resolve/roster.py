"""The campaign's roster as a reader may see it: the system's view of its characters.

The campaign system turns its stored records into a view
(:meth:`referee.system.System.roster_view`), which :mod:`referee.render.roster` writes
as Markdown.

There are two rosters (:mod:`referee.system.visibility`): the public one leaves out the
characters known to the GMs only and shows privately changed state as last publicly
known; the GMs' one shows everything, with the applications awaiting a decision.
With ``[roster] npc_stats = "hidden"`` the public one shows the GM's characters by
name and state only: a system's ``roster.md.j2`` that reads ``npc_stats`` does it
itself; for any other, the core leaves NPCs out of the system's view and lists them
from ``character_rows``' public columns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee.resolve.tracker import Tracker, from_record
from referee.resolve.tracker_verbs import TABLE as INITIATIVE
from referee.system import System
from referee.system.visibility import TABLE as VISIBILITY
from referee.system.visibility import is_npc, public_columns, public_records


@dataclass(frozen=True)
class RosterPage:
    """What a roster page shows: the system's view, for the GMs or for everyone."""

    view: Any  # the system's view of every character this reader may see
    gm: bool  # the GMs' roster: hidden characters, private state, applications
    npc_stats: str  # "shown" or "hidden" (config.toml's [roster] npc_stats; always shown to GMs)
    # With npc_stats hidden, for a system template that does not read npc_stats: its view
    # without the GM's characters, and those as rows of character_rows' public columns.
    view_without_npcs: Any = None
    npc_rows: tuple[tuple[str, ...], ...] = ()
    applications: tuple[Any, ...] = ()  # the GMs' roster: applications awaiting a decision
    fights: tuple[tuple[str, Tracker], ...] = ()  # [[roster]]: each thread's initiative (fights())


def roster_page(
    system: System,
    campaign: str,
    table: Callable[[str], Any],
    *,
    gm: bool,
    npc_stats: str = "shown",
    rules: Any = None,
    applications: tuple[Any, ...] = (),
) -> RosterPage:
    """The roster page of a campaign whose store tables ``table(name)`` returns."""
    tables = {name: list(table(name).values()) for name in ("characters", *system.tables)}
    if not gm:
        seen = dict(table(VISIBILITY).items())
        tables["characters"] = public_records(tables["characters"], seen)
    view = system.roster_view(campaign, tables)
    if gm or npc_stats != "hidden":
        return RosterPage(view, gm, "shown", applications=applications)
    npcs = [record for record in tables["characters"] if is_npc(record)]
    players = [record for record in tables["characters"] if not is_npc(record)]
    rows: tuple[tuple[str, ...], ...] = ()
    if npcs:
        header, *body = system.character_rows(npcs, rules)
        columns = public_columns(header)
        rows = tuple(tuple(row[i] for i in columns) for row in (header, *body))
    bare = system.roster_view(campaign, {**tables, "characters": players})
    return RosterPage(view, False, "hidden", bare, rows)


def roster_view(system: System, campaign: str, store: Any) -> Any:
    """The system's view of every character, from the store's tables (the GMs' roster)."""
    return roster_page(system, campaign, store.table, gm=True).view


def fights(store: Any) -> list[tuple[str, Tracker]]:
    """Every thread's initiative tracker that holds combatants, newest thread first."""
    found = [
        (thread, from_record(record))
        for thread, record in store.table(INITIATIVE).items()
        if record.get("combatants")
    ]
    return sorted(found, key=lambda pair: (len(pair[0]), pair[0]), reverse=True)
