"""The hits demo campaign: its thread walks a chapter with every verb and re-runs the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from referee.pipeline.campaign import Campaign
from referee.systems.hits.system import SYSTEM
from referee.testing.demos import (
    DEMOS,
    batch_demo,
    copy_demo,
    demo_roster,
    thread_verbs,
)

DEMO = DEMOS / "hits"


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("REFEREE_SECRET", "hits-demo-test-secret")
    return copy_demo("hits", tmp_path)


def test_the_demo_thread_uses_every_hits_verb() -> None:
    """Every verb of the hits system (and end, apply, approve, help) appears in a tag."""
    wanted = {verb.name for verb in SYSTEM.verbs} | {"end", "apply", "approve", "help"}
    assert set() == wanted - thread_verbs(DEMO / "thread.json", SYSTEM)


def test_the_demo_walks_a_chapter(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rolls, an opposed roll, a duel lost and resisted, a knockout, raised stakes, Influence
    spent, the chapter's XP and a level-up all happen, and the store keeps their results."""
    out, _ = batch_demo(demo, capsys)
    parts = [
        "explodes:",
        "**Opposed roll**",
        "resisted: both reroll",
        "raises the stakes",
        "is knocked out and leaves the scene",
        "spends 1 Influence to Leave",
        "goes **All in**",
        "**Chapter 1 ends.** XP: Kara Venn +5 → **Level 2**",
        "chooses the gains of a Level",
        "Only a GM may set the Tension",
    ]
    assert [part for part in parts if part not in out] == []
    with Campaign.open(demo, need_secret=False) as campaign:
        kara = campaign.store.table("characters").get("kara venn")["sheet"]
        state = campaign.store.table("hits_campaign").get("campaign")
    assert (2, 3, [["Swordsmanship", 3]], {"tiers": 1, "ranks": 1, "benefits": 0}) == (
        kara["level"],
        kara["xp"],
        kara["skills"],
        kara["saved"],
    )
    assert (False, ["all_in", "duel", "leave", "duel", "duel"]) == (
        state["chapter"]["open"],
        [s["way"] for s in state["chapter"]["spends"]],
    )


def test_roll_from_the_shell_replays_the_first_vector(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee roll --dice 6,4,2,1,3`: §5.2's first vector, the crit and its explosion shown."""
    main(["--campaign", str(demo), "roll", "roll Kara body", "--dice", "6,4,2,1,3"])
    out = capsys.readouterr().out
    assert "**6!** **4** 2 1 → explodes: 3 → **2 hits: partial**" in out


def test_systems_lists_hits_with_its_verbs(capsys: pytest.CaptureFixture[str]) -> None:
    """`referee systems` names hits, its seed and its verbs with examples."""
    main(["systems"])
    out = capsys.readouterr().out
    parts = ["hits 1:", "seed 004", "[[all in Kara]]", "[[chapter start]]"]
    assert [True] * len(parts) == [part in out for part in parts]


def test_the_roster_shows_the_scene_timers_and_counters(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The wiki roster shows the scene, every timer and each character's counters;
    `referee characters` lists them too."""
    batch_demo(demo, capsys)
    page, rows = demo_roster(demo, capsys)
    assert "| Caravan leaves | 1/4 ●○○○ | the caravan departs without you |" in page
    assert "| Kara Venn | u&#47;kara\\_plays | 2 (3) | 5/3/2/3 | 14/14 |" in page
    assert "Scene 3 has ended; no scene is running. Chapter 1 has ended." in page
    kara = next(row for row in rows if row.startswith("Kara Venn"))
    assert (" 14/14 " in kara, "Swordsmanship 3" in kara) == (True, True)
