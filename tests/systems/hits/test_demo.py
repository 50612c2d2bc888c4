"""The hits demo campaign: its thread walks a chapter with every verb and re-runs the same."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from referee.batch import load_thread
from referee.campaign import Campaign
from referee.cli import main
from referee.resolve import verbs_for
from referee.roster import RosterRenderer, roster_view
from referee.systems.hits.system import SYSTEM
from referee.tags import find_tags

DEMO = Path(__file__).resolve().parents[3] / "data" / "demos" / "hits"


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "hits"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns("store.*", "secret.txt"))
    monkeypatch.setenv("REFEREE_SECRET", "hits-demo-test-secret")
    return folder


def _batch(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    main(["--campaign", str(folder), "batch", str(folder / "thread.json")])
    captured = capsys.readouterr()
    return captured.out, captured.err


def _ledger_rows(folder: Path) -> int:
    return len((folder / "store.ledger.jsonl").read_text(encoding="utf-8").splitlines())


def test_the_demo_thread_uses_every_hits_verb() -> None:
    """Every verb of the hits system (and end, apply, approve, help) appears in a tag."""
    table = verbs_for(SYSTEM)
    used = {
        table[tag.text.split()[0].casefold()].name
        for post in load_thread(DEMO / "thread.json").posts
        for tag in find_tags(post.body).tags
    }
    wanted = {verb.name for verb in SYSTEM.verbs} | {"end", "apply", "approve", "help"}
    assert set() == wanted - used


def test_the_demo_batch_is_deterministic_and_records_nothing_twice(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second run prints the same replies and adds no ledger row."""
    first, first_err = _batch(demo, capsys)
    rows = _ledger_rows(demo)
    second, second_err = _batch(demo, capsys)
    assert (first, rows) == (second, _ledger_rows(demo))
    assert "0 new roll(s)" in second_err and "0 new roll(s)" not in first_err


def test_the_demo_walks_a_chapter(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rolls, an opposed roll, a duel lost and resisted, a knockout, raised stakes, Influence
    spent, the chapter's XP and a level-up all happen, and the store keeps their results."""
    out, _ = _batch(demo, capsys)
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
    assert (False, ["all_in", "duel", "leave"]) == (
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
    _batch(demo, capsys)
    main(["--campaign", str(demo), "characters"])
    rows = capsys.readouterr().out.splitlines()
    with Campaign.open(demo, need_secret=False) as campaign:
        view = roster_view(campaign.system, campaign.config.name, campaign.store)
        page = RosterRenderer(system=campaign.system).render(view)
    assert "| Caravan leaves | 1/4 ●○○○ | the caravan departs without you |" in page
    assert "| Kara Venn | u&#47;kara\\_plays | 2 (3) | 5/3/2/3 | 14/14 |" in page
    assert "Scene 2 has ended; no scene is running. Chapter 1 has ended." in page
    kara = next(row for row in rows if row.startswith("Kara Venn"))
    assert (" 14/14 " in kara, "Swordsmanship 3" in kara) == (True, True)
