"""The campaign's roster as Markdown, for the subreddit's wiki.

The campaign system turns its stored records into a view
(:meth:`referee.system.System.roster_view`); the template ``roster.md.j2`` (the
system's, unless the campaign's template folder has its own) decides how it reads.
Below it, the core's ``roster_initiative.md.j2`` shows each thread's initiative tracker
(the order, whose turn it is, and conditions), for every system alike.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .render import make_environment
from .system import System
from .tracker import Tracker, from_record
from .tracker_verbs import TABLE as INITIATIVE

TEMPLATE = "roster.md.j2"
FIGHTS_TEMPLATE = "roster_initiative.md.j2"  # the core's: each thread's initiative and conditions


def roster_view(system: System, campaign: str, store: Any) -> Any:
    """The system's view of the roster, from the store's ``characters`` and its own tables."""
    names = ("characters", *system.tables)
    return system.roster_view(campaign, {name: list(store.table(name).values()) for name in names})


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
        self._template = environment.get_template(TEMPLATE)
        self._fights = environment.get_template(FIGHTS_TEMPLATE)

    def render(self, view: Any, fights: Sequence[tuple[str, Tracker]] = ()) -> str:
        """The page's Markdown, ending in one newline; then each thread's initiative, if any."""
        page = self._template.render(roster=view).strip()
        if fights:
            page += "\n\n" + self._fights.render(fights=fights).strip()
        return page + "\n"


def digest(text: str) -> str:
    """The sha256 of a page's text: published pages are compared by it.

    >>> digest("")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(text.encode()).hexdigest()
