"""Checks every system's demo campaign shares: which verbs its thread uses, what it recorded.

>>> from pathlib import Path
>>> from referee.systems.edge.system import SYSTEM
>>> demo = Path(__file__).resolve().parents[2] / "data" / "demos" / "edge"
>>> sorted(every_verb(SYSTEM) - thread_verbs(demo / "thread.json", SYSTEM))
[]
"""

from __future__ import annotations

from pathlib import Path

from ..batch import load_thread
from ..resolve import verbs_for
from ..system import System
from ..tags import find_tags


def every_verb(system: System) -> set[str]:
    """The name of every verb of a campaign of ``system``: its own and the core's."""
    return {verb.name for verb in verbs_for(system).values()}


def thread_verbs(path: Path, system: System) -> set[str]:
    """The verbs the tags of the saved thread at ``path`` use (aliases as their verb)."""
    table = verbs_for(system)
    return {
        table[tag.text.split()[0].casefold()].name
        for post in load_thread(path).posts
        for tag in find_tags(post.body).tags
    }


def ledger_rows(folder: Path) -> int:
    """How many rows the ledger journal of the campaign in ``folder`` holds."""
    return len((folder / "store.ledger.jsonl").read_text(encoding="utf-8").splitlines())
