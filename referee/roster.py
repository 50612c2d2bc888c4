"""The campaign's roster as Markdown, for the subreddit's wiki and ``[[roster]]``.

The campaign system turns its stored records into a view
(:meth:`referee.system.System.roster_view`); the template ``roster.md.j2`` (the
system's, unless the campaign's template folder has its own) decides how it reads.

There are two rosters (:mod:`referee.visibility`): the public one leaves out the
characters known to the GMs only and shows privately changed state as last publicly
known; the GMs' one shows everything, with the applications awaiting a decision.
With ``[roster] npc_stats = "hidden"`` the public one shows the GM's characters by
name and state only: a system's ``roster.md.j2`` that reads ``npc_stats`` does it
itself; for any other, the core leaves NPCs out of the system's view and lists them
from ``character_rows``' public columns.

Below the roster, the core's ``roster_initiative.md.j2`` shows each thread's initiative
tracker (the order, whose turn it is, and conditions), for every system alike.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .render import make_environment
from .system import System
from .tracker import Tracker, from_record
from .tracker_verbs import TABLE as INITIATIVE
from .visibility import TABLE as VISIBILITY
from .visibility import is_npc, public_columns, public_records

TEMPLATE = "roster.md.j2"
FIGHTS_TEMPLATE = "roster_initiative.md.j2"  # the core's: each thread's initiative and conditions


PAGE_TEMPLATE = "roster_page.md.j2"  # the core's page around the system's roster.md.j2


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


class RosterRenderer:
    """Renders the roster page from the campaign's templates (or the stock one)."""

    def __init__(self, templates_dir: Path | None = None, system: System | None = None) -> None:
        environment = make_environment(templates_dir, system)
        self._template = environment.get_template(PAGE_TEMPLATE)
        self._fights = environment.get_template(FIGHTS_TEMPLATE)

    def render(self, page: RosterPage | Any, fights: Sequence[tuple[str, Tracker]] = ()) -> str:
        """The page's Markdown, ending in one newline (a bare system view: as everyone sees it).

        ``fights`` (see :func:`fights`) go below it: each thread's initiative and conditions.
        """
        if not isinstance(page, RosterPage):
            page = RosterPage(page, False, "shown")
        text = self._template.render(page=page).strip()
        if fights:
            text += "\n\n" + self._fights.render(fights=fights).strip()
        return text + "\n"


def digest(text: str) -> str:
    """The sha256 of a page's text: published pages are compared by it.

    >>> digest("")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(text.encode()).hexdigest()
