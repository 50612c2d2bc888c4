"""The edge demo campaign: its thread uses every verb and re-runs to the same replies."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from referee.pipeline.campaign import Campaign
from referee.systems.edge.system import SYSTEM
from referee.testing.demos import (
    DEMOS,
    batch_demo,
    copy_demo,
    demo_roster,
    every_verb,
    thread_verbs,
)

DEMO = DEMOS / "edge"


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("REFEREE_SECRET", "edge-demo-test-secret")
    return copy_demo("edge", tmp_path)


# Answers to a move waiting under edge_use = "ask": the demo spends by policy, where no
# move waits (test_system.py plays them with fixed dice).
ANSWERS = {"edge", "keep", "final"}


def test_the_demo_thread_uses_every_verb() -> None:
    """Every verb of an edge campaign (its own and the core's) appears in a tag of the thread."""
    assert every_verb(SYSTEM) - ANSWERS == thread_verbs(DEMO / "thread.json", SYSTEM)


def test_the_demo_ends_the_encounter_and_approves_the_newcomer(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The end of the encounter resets advantage; the fixed application is approved."""
    out, _ = batch_demo(demo, capsys)
    with Campaign.open(demo, need_secret=False) as campaign:
        characters = campaign.store.table("characters")
        advantages = {characters.get(key)["sheet"]["advantage"] for key in ("kara venn", "dax")}
        policy = characters.get("nova quill")["sheet"]["policy"]
    assert "**The encounter is over.** Advantage back to 1:" in out
    assert ({1}, "hit") == (advantages, policy)


def test_roll_from_the_shell_replays_the_first_vector(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee roll --dice 3,2`: Kara (cool +1, advantage 4) reads 6, then 8 with the advantage."""
    main(["--campaign", str(demo), "roll", "move Kara cool", "--dice", "3,2"])
    out = capsys.readouterr().out
    assert (
        "2d6 [3, 2] +1 (cool) = 6; with the advantage 4 in place of the lower die: "
        "[3, 4] +1 (cool) = 8 → **8, success with a cost** (7-9)"
    ) in out
    assert "Without the advantage it would have been 6, miss (6-). Advantage 4 → **1**." in out


def test_systems_lists_edge_with_its_verbs(capsys: pytest.CaptureFixture[str]) -> None:
    """`referee systems` names edge, its seed and each of its verbs with an example."""
    main(["systems"])
    out = capsys.readouterr().out
    parts = ["edge 1:", "seed 003", "[[lower Kara]]", "[[policy Kara strong]]"]
    assert [True] * len(parts) == [part in out for part in parts]


def test_the_roster_and_characters_show_advantage_and_policy(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The wiki roster and `referee characters` show each character's advantage and policy."""
    page, rows = demo_roster(demo, capsys)
    assert (
        "| Kara Venn | u&#47;kara\\_plays | cool +1, hard +0, hot −1, sharp +2, weird +0 | 4 |"
        in page
    )
    kara = next(row for row in rows if row.startswith("Kara Venn"))
    assert (True, True) == (" 4 " in kara, "up (default)" in kara)
