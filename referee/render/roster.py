"""The campaign's roster as Markdown, for the subreddit's wiki and ``[[roster]]``.

The page's content is a :class:`~referee.resolve.roster.RosterPage` (the system's view,
cut to what the reader may see); the template ``roster.md.j2`` (the system's, unless the
campaign's template folder has its own) decides how it reads, inside the core's
``roster_page.md.j2``. Below the roster, the core's ``roster_initiative.md.j2`` shows
each thread's initiative tracker (the order, whose turn it is, and conditions), for
every system alike.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.render.environment import make_environment
from referee.resolve.roster import RosterPage
from referee.resolve.tracker import Tracker
from referee.system import System

TEMPLATE = "roster.md.j2"
FIGHTS_TEMPLATE = "roster_initiative.md.j2"  # the core's: each thread's initiative and conditions


PAGE_TEMPLATE = "roster_page.md.j2"  # the core's page around the system's roster.md.j2


class RosterRenderer:
    """Renders the roster page from the campaign's templates (or the stock one)."""

    def __init__(self, templates_dir: Path | None = None, system: System | None = None) -> None:
        environment = make_environment(templates_dir, system)
        self._template = environment.get_template(PAGE_TEMPLATE)
        self._fights = environment.get_template(FIGHTS_TEMPLATE)

    def render(self, page: RosterPage | Any, fights: Sequence[tuple[str, Tracker]] = ()) -> str:
        """The page's Markdown, ending in one newline (a bare system view: as everyone sees it).

        ``fights`` (see :func:`referee.resolve.roster.fights`) go below it: each thread's
        initiative and conditions.
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
