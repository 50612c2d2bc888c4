"""The pool demo campaign: every verb and mechanic in its thread, the same replies on re-run."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from referee.pipeline.campaign import Campaign
from referee.systems.pool.system import SYSTEM
from referee.testing.demos import (
    DEMOS,
    batch_demo,
    copy_demo,
    demo_roster,
    every_verb,
    thread_verbs,
)

DEMO = DEMOS / "pool"
SECRET = "pool-demo-40"  # docs/players/pool.md's secret: its dice show a botch and a forgiven one


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("REFEREE_SECRET", SECRET)
    return copy_demo("pool", tmp_path)


def test_the_demo_thread_uses_every_verb() -> None:
    """Every verb of a pool campaign (its own and the core's) appears in a tag of the thread."""
    assert every_verb(SYSTEM) == thread_verbs(DEMO / "thread.json", SYSTEM)


@pytest.mark.parametrize(
    "shown",
    [
        "→ **botch**",  # a botch
        "*A botch, forgiven: the free botch of this session (R-33).*",  # the free botch
        "Willpower spent",  # Willpower
        "takes 2 actions this turn and rolls 1 reflexive",  # multiple actions
        "reflexive:",  # a reflexive action among them
        "**The vault door is done: 11 of 10**",  # an extended task to its target
        "Shares: Kara Venn 6, Dax 5.",  # teamwork on one tally
        "**Dax: automatic success**",  # an automatic success
        "declares dexterity 3 + stealth 4",  # one side declared, the other later
        "**Warden Holt wins the contest.**",  # a resisted + extended contest
        "Standing difficulty in this thread: 6 → **7**",  # the GM's standing difficulty
        "Only a GM may set the standing difficulty",  # a GM verb refused to a player
        "The GM has forbidden Willpower here",  # Willpower forbidden by the GM
        "**Session 1 begins.**",  # a session
        "**Nova Quill is approved**",  # the core's application flow
    ],
)
def test_the_demo_shows_each_mechanic(
    demo: Path, capsys: pytest.CaptureFixture[str], shown: str
) -> None:
    """With the docs' secret the thread shows every mechanic of §2 at least once."""
    out, _ = batch_demo(demo, capsys)
    assert shown in out


def test_the_demo_leaves_state_in_the_store(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Points spent and given back, counters, the new character and the closed contest stay."""
    batch_demo(demo, capsys)
    with Campaign.open(demo, need_secret=False) as campaign:
        characters = campaign.store.table("characters")
        kara, mira, dax = (characters.get(k)["sheet"] for k in ("kara venn", "mira", "dax"))
        approved = characters.get("nova quill")["approved"]
        thread = campaign.store.table("pool_threads").get("t3_1kx7p00")
    assert (4, 7, {"health": -2}, 4, True, "closed", None) == (
        kara["willpower_points"],
        mira["willpower_points"],
        dax["counters"],
        dax["traits"]["technology"],
        approved,
        thread["contests"]["the staredown"]["status"],
        thread["difficulty"],
    )


def test_roll_from_the_shell_replays_a_vector(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee roll --dice 2,5,6,6,4,3`: §2's second vector, a failure and not a botch."""
    main(["--campaign", str(demo), "roll", "roll 6 diff 7", "--dice", "2,5,6,6,4,3"])
    out = capsys.readouterr().out
    assert (
        "rolls 6 dice at difficulty 7: [2, 5, 6, 6, 4, 3] → **failure** (0 successes, 0 ones)"
        in out
    )


def test_roll_from_the_shell_replays_the_botch(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee roll --dice 1,3,4,3,7` at difficulty 8: a botch, with its exact chance bolded."""
    main(["--campaign", str(demo), "roll", "roll 5 diff 8", "--dice", "1,3,4,3,7"])
    out = capsys.readouterr().out
    assert "[*1*, 3, 4, 3, 7] → **botch**" in out and "**botch 9.0%**" in out


def test_systems_lists_pool_with_its_verbs(capsys: pytest.CaptureFixture[str]) -> None:
    """`referee systems` names pool, its seed and its verbs with examples."""
    main(["systems"])
    out = capsys.readouterr().out
    parts = [
        "pool 1:",
        "seed 000",
        "[[act Dax 2: dexterity+brawl, dexterity+dodge]]",
        "[[session]]",
    ]
    assert [True] * len(parts) == [part in out for part in parts]


def test_the_roster_and_characters_show_willpower_and_counters(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The wiki roster and `referee characters` show points, free botch and counters."""
    batch_demo(demo, capsys)
    page, rows = demo_roster(demo, capsys)
    assert "| Dax | u&#47;dax\\_plays | strength 4, dexterity 2, stamina 3, intelligence 3" in page
    assert "| 4/4 | 6 | ready | health \\-2 |" in page
    dax = next(row for row in rows if row.startswith("Dax"))
    assert (True, True) == (" 4/4 " in dax, "health -2" in dax)
