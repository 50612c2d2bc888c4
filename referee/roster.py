"""The campaign's roster as Markdown, for the subreddit's wiki.

The campaign system turns its stored records into a view
(:meth:`referee.system.System.roster_view`); the template ``roster.md.j2`` (the
system's, unless the campaign's template folder has its own) decides how it reads.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from .render import make_environment
from .system import System

TEMPLATE = "roster.md.j2"


def roster_view(system: System, campaign: str, store: Any) -> Any:
    """The system's view of the roster, from the store's ``characters`` and its own tables."""
    names = ("characters", *system.tables)
    return system.roster_view(campaign, {name: list(store.table(name).values()) for name in names})


class RosterRenderer:
    """Renders the roster page from the campaign's templates (or the stock one)."""

    def __init__(self, templates_dir: Path | None = None, system: System | None = None) -> None:
        self._template = make_environment(templates_dir, system).get_template(TEMPLATE)

    def render(self, view: Any) -> str:
        """The page's Markdown, ending in one newline."""
        return self._template.render(roster=view).strip() + "\n"


def digest(text: str) -> str:
    """The sha256 of a page's text: published pages are compared by it.

    >>> digest("")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(text.encode()).hexdigest()
