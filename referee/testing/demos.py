"""What every system's demo test shares: a fresh copy of the demo, its batch run, its
roster, which verbs its thread uses and what it recorded.

>>> from referee.systems.pool.system import SYSTEM
>>> sorted(every_verb(SYSTEM) - thread_verbs(DEMOS / "pool" / "thread.json", SYSTEM))
[]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.cli import main
from referee.pipeline.batch import load_thread
from referee.pipeline.campaign import Campaign
from referee.read.tags import find_tags
from referee.render.roster import RosterRenderer
from referee.resolve.dispatch import verbs_for
from referee.resolve.roster import roster_view
from referee.system import System
from referee.testing.shipped import DATA, copy_shipped

DEMOS = DATA / "demos"  # a folder per system


def copy_demo(name: str, into: Path) -> Path:
    """A copy of the demo campaign ``name`` in ``into``, as before its first run.

    The store, its ledger and the secret file are left behind: a test sets the secret
    (``REFEREE_SECRET``) that its expected dice come from.
    """
    folder = into / name
    return copy_shipped(DEMOS / name, folder)


def batch_demo(folder: Path, capsys: Any) -> tuple[str, str]:
    """``referee batch`` over the demo's ``thread.json``: what it printed, (stdout, stderr).

    ``capsys`` is pytest's fixture of that name, which holds what the run printed.
    """
    main(["--campaign", str(folder), "batch", str(folder / "thread.json")])
    captured = capsys.readouterr()
    return captured.out, captured.err


def demo_roster(folder: Path, capsys: Any) -> tuple[str, list[str]]:
    """The campaign's wiki roster page and the lines ``referee characters`` prints."""
    main(["--campaign", str(folder), "characters"])
    rows = capsys.readouterr().out.splitlines()
    with Campaign.open(folder, need_secret=False) as campaign:
        view = roster_view(campaign.system, campaign.config.name, campaign.store)
        page = RosterRenderer(system=campaign.system).render(view)
    return page, rows


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
