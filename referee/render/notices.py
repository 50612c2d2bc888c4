"""The bot's notices as Markdown: reminders, expiry lines, GMs' messages, catch-ups.

A notice (see :mod:`referee.resolve.pace_state`) names its template, ``notice_<name>``
(``reminder``, ``expiry``, ``expiry_gm``, ``vacant``, ``catchup``, ``gm_reason``), and carries its
data as JSON; the live worker renders it once, when it is about to send it, and keeps
the text. Every notice ends with its mark (``^(referee notice 3f9a1c2b)``), which is how
the worker finds a notice it may have sent before a crash. Templates are looked up as
every other (a campaign's own first).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from referee.render.environment import close_lists, make_environment
from referee.system import System


def notice_mark(key: str) -> str:
    """The mark a notice ends with: a short hash of its key.

    >>> notice_mark("remind:t3_abc:3")
    'referee notice 207a9a42'
    """
    return "referee notice " + hashlib.sha256(key.encode()).hexdigest()[:8]


class NoticeRenderer:
    """Renders notices from the campaign's templates (or the stock ones)."""

    def __init__(
        self, templates_dir: Path | None = None, system: System | None = None, campaign: str = ""
    ) -> None:
        self._environment = make_environment(templates_dir, system)
        self._campaign = campaign

    def render(self, template: str, data: Mapping[str, Any], key: str, channel: str) -> str:
        """The notice's Markdown, ending in its mark and one newline."""
        page = self._environment.get_template(f"notice_{template}.md.j2")
        text = close_lists(page.render(d=data, channel=channel, campaign=self._campaign).strip())
        return f"{text}\n\n^({notice_mark(key)})\n"
