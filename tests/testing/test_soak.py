"""The live bot for hours on the simulated clock, crashed and restarted: every reply once.

The real worker in its own process (``referee.testing.soak_bot``), real PRAW against the
local Reddit, players, a GM and a stranger posting at random: tagged and untagged
comments, new scenes, wounds and heals (the roster page), secret rolls and refused ones
by private message, edits of answered posts, deletions. The process is stopped and
started again, and killed with SIGKILL between steps, at random points of its requests
(before or after Reddit acts on one) and right after Reddit took a reply whose answer
it never read. ``bench/soak.py`` runs the same for 72 hours.
"""

from __future__ import annotations

from pathlib import Path

from referee.testing.soak import Plan, soak

# Two sessions of seven and a half minutes, a quarter of an hour apart; six crashes
# and a restart.
PLAN = Plan(
    hours=0.75,
    sessions=((0.0, 0.125), (0.375, 0.5)),
    restarts=(0.3,),
    kills=(0.04, 0.42),
    idle_kills=(0.25,),
    reply_kills=(0.08, 0.45, 0.47),
    seed=20261127,
)


def test_play_with_six_crashes_answers_every_post_exactly_once(
    tmp_path: Path,
) -> None:
    """No post answered twice, none missed (private messages and edit notes included),
    every planned crash happened, the ledger's chain holds, and Reddit refused nothing."""
    report = soak(tmp_path / "campaign", PLAN)
    audit = report.audit
    crashes = len(PLAN.kills) + len(PLAN.idle_kills) + len(PLAN.reply_kills)
    assert ({}, [], []) == (audit.duplicates, audit.missed, audit.notes_missed)
    assert (crashes, crashes + len(PLAN.restarts) + 1) == (report.crashes, report.starts)
    assert (True, 0) == (report.ledger_ok, report.refused)
    assert report.posts >= 30  # the sessions had their players
    log = (tmp_path / "campaign" / "bot.log").read_text(encoding="utf-8")
    assert log.count("event=reply_found") >= len(PLAN.reply_kills)  # found, not posted again
