"""The trikus demo campaign: every verb in its thread, every mechanic shown, re-runs the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from referee.systems.trikus.system import SYSTEM
from referee.testing.demos import (
    DEMOS,
    batch_demo,
    copy_demo,
    demo_roster,
    every_verb,
    thread_verbs,
)

DEMO = DEMOS / "trikus"
SECRET = "trikus-demo-0"  # docs/players/trikus.md: with this secret the batch shows every mechanic


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("REFEREE_SECRET", SECRET)
    return copy_demo("trikus", tmp_path)


def test_the_demo_thread_uses_every_verb() -> None:
    """Every verb of a trikus campaign (its own and the core's) appears in a tag of the thread."""
    assert every_verb(SYSTEM) == thread_verbs(DEMO / "thread.json", SYSTEM)


def test_the_demo_shows_every_mechanic_of_the_issue(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Solo and team tests, a fight with an ally, Negotiation, escape, Catastrophe, refresh, PvP."""
    out, err = batch_demo(demo, capsys)
    shown = {
        "solo test": "**Test**: Kara (1 die: `line=1 use=Medpac`) against the GM's 2.",
        "team test": "**Test**: Kara (2 dice: `on\\_success=cancel\\:Pawel`), Zuzia",
        "fight with an ally": "Zuzia's ally R4 droid dies",
        "negotiation": "Negotiation: Michal asks to reroll the GM's 10; agreed",
        "escape": "Zuzia **escapes** (+1 Dark, Morale kept).",
        "catastrophe": "**Pawel suffers a Catastrophe** (lost with Empowerment)",
        "refresh": "**Refresh**: every line returns (every player is exhausted)",
        "boom and overturn": "**The GM overturns the last test**",
        "refusal of a GM verb": "Only a GM may grant Light tokens",
        "end of the fight": "**The fight is over.**",
        "duel between players": "**Duel**: Zuzia (3 dice: `light=1`) against Pawel Dron (3 dice).",
        "the party writes a Dark side": "Michal's Dark side *spiteful* is written (1 more",
        "negotiation between players": "**Pawel Dron proposes a Negotiation**: Zuzia's 6 "
        "(throw 1) rolled again. The duel waits for Zuzia's player",
        "the player's answer": "Negotiation: Pawel Dron asks to reroll Zuzia's 6; agreed",
        "a fight round overturned": "**The GM overturns round 1 of the fight** (a Boom",
        "sides after an advancement": "Pawel's Light sides: honest, patient; Pawel's Dark sides",
        "undo": "is void**: taken back by the GM's undo. Its dice stay in the ledger; undone: Zu",
    }
    assert {name: True for name in shown} == {name: text in out for name, text in shown.items()}
    # The refusal of a GM verb, and revive, reveal and remove of a player's character.
    assert "4 tag(s) with problems" in err


def test_roll_from_the_shell_replays_vector_1(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee roll --dice 5,7,7,1,9`: the Master's 3 dice beat the GM's 2 (§3.8, vector 1)."""
    main(["--campaign", str(demo), "roll", "test Michal vs 2", "--dice", "5,7,7,1,9"])
    out = capsys.readouterr().out
    steps = [
        "1. GM 5, Michal 7 → Michal controls",
        "2. GM 7 → GM controls",
        "3. Michal 1 → GM controls",
        "4. Michal 9 → Michal controls",
        "* Michal: **Success** (chance of Success under this declaration: 62.5%)",
        "Changes: Michal strikes the 3-die line; Michal +1 Morale.",
    ]
    assert [True] * len(steps) == [step in out for step in steps]


def test_systems_and_help_list_trikus_with_its_verbs(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee systems` names trikus and its verbs; [[help]] in the demo lists them."""
    main(["systems"])
    listing = capsys.readouterr().out
    out, _ = batch_demo(demo, capsys)
    help_reply = out.split("## Reply to")[1]
    verbs = [verb.name for verb in SYSTEM.verbs]
    assert ["trikus 1:", "seed 001"] == [p for p in ["trikus 1:", "seed 001"] if p in listing]
    assert verbs == [v for v in verbs if f"[[{SYSTEM.verbs[verbs.index(v)].example}]]" in listing]
    assert verbs == [v for v in verbs if f"| {v} " in help_reply]


def test_the_roster_and_characters_show_lines_and_tokens(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The wiki roster and `referee characters` show tiers, lines, Morale and tokens."""
    page, rows = demo_roster(demo, capsys)
    kara = "| Kara | u&#47;kara\\_plays | advanced | 2-die, 1-die | 1 | 0 | 0 (0 used) | active |"
    assert kara in page
    michal = next(row for row in rows if row.startswith("Michal"))
    assert ("master" in michal, " 3-die " in michal) == (True, True)


def test_a_gm_adjustment_says_what_changed_once(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A GM verb's reply is its changes as a sentence, not a heading that repeats them."""
    out, _ = batch_demo(demo, capsys)
    said = {
        "forced refresh": "\n**Refresh**: every line returns (forced by the GM).",
        "Dark token": "\nThe GM spends 1 of Zuzia's Dark tokens: a Dark side comes into play",
        "sacrifice": "\n**A Master's sacrifice.** **Michal falls to the Dark Side**",
    }
    assert {name: True for name in said} == {name: text in out for name, text in said.items()}
    assert [] == [line for line in out.splitlines() if line.startswith("**GM: ")]
