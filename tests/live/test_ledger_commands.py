"""The public ledger end to end: `referee export --public`, then `referee verify --ledger`.

A campaign where a GM made a hidden sniper and rolled for it in private messages, among
a player's public rolls; the export leaves the sniper out, and the file checks with the
revealed secret alone (no campaign folder), and fails, naming the row, once changed.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from referee.base.posts import Post
from referee.cli import main
from referee.pipeline.flow import Referee
from referee.testing import make_campaign, sheet

SECRET = b"test-secret"


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    """A campaign folder: Kara's public rolls around a GM's eight private ones for a
    hidden sniper (made in the first of them), and the GM's public roll for it."""
    folder = tmp_path / "campaign"
    opened = make_campaign(folder, [sheet("Kara", owner="alice")])
    referee = Referee(opened, gms=["gm"])
    referee.referee(Post("t1_k1", "t3_s", "alice", "[[roll Kara agility]]", 1.0))
    sniper = "[[npc Sniper: str 2, agi 3, end 2, per 3]] [[roll Sniper perception]]"
    referee.referee(Post("t4_m0", "t4_m0", "gm", sniper, 2.0), private=True)
    for n in range(1, 7):
        body = "[[roll Sniper perception]]"
        referee.referee(Post(f"t4_m{n}", f"t4_m{n}", "gm", body, 2.0 + n), private=True)
    referee.referee(Post("t1_k2", "t3_s", "alice", "[[roll Kara strength]] [[roll 2d6]]", 9.0))
    referee.referee(Post("t1_g1", "t3_s", "gm", "[[roll Sniper agility]]", 10.0))
    opened.close()
    (tmp_path / "revealed.txt").write_bytes(SECRET + b"\n")
    return folder


def _export(folder: Path, out: Path, capsys) -> str:
    assert 0 == main(["--campaign", str(folder), "export", "--public", str(out)])
    return capsys.readouterr().out


def _verify(out: Path, secret: Path, capsys, monkeypatch, tmp_path: Path) -> tuple[int, str]:
    """verify --ledger run where no campaign is: a player's folder holding two files."""
    player = tmp_path / "player"
    player.mkdir(exist_ok=True)
    monkeypatch.chdir(player)
    code = main(["verify", "--ledger", str(out), "--secret-file", str(secret)])
    return code, capsys.readouterr().out


def test_the_hidden_sniper_is_not_in_the_public_ledger(campaign: Path, tmp_path, capsys) -> None:
    """Every row of the sniper (eight private, one public naming him) is withheld as a
    stub of its hash; Kara's rows are there whole; the counts are stated."""
    out = tmp_path / "ledger.jsonl"
    said = _export(campaign, out, capsys)
    text = out.read_text(encoding="utf-8")
    lines = [orjson.loads(line) for line in text.splitlines()]
    header, rows = lines[0], lines[1:]
    stubs = [row for row in rows if "withheld" in row]
    assert "sniper" not in text.casefold() and "t4_" not in text
    assert (12, 3, {"private": 8, "hidden": 1}) == (len(rows), header["shown"], header["withheld"])
    assert [{"withheld", "prev", "hash"}] == [set(row) for row in stubs[:1]]
    assert "12 ledger rows, 3 a player may see, 9 withheld" in said


def test_a_player_verifies_the_export_with_the_revealed_secret_alone(
    campaign: Path, tmp_path, capsys, monkeypatch
) -> None:
    """verify --ledger needs no campaign: the chain through the stubs, every shown row's
    hash and dice, the counts; all consistent, exit 0."""
    out = tmp_path / "ledger.jsonl"
    _export(campaign, out, capsys)
    code, said = _verify(out, tmp_path / "revealed.txt", capsys, monkeypatch, tmp_path)
    assert 0 == code, said
    assert "12 ledger rows: chain checked; 3 shown, their dice re-derived; 9 withheld" in said
    assert "all consistent" in said


def _rewrite(out: Path, change) -> None:
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(change(lines)))


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (  # a die of Kara's first roll changed: its hash no longer covers it
            lambda lines: [
                lines[0],
                lines[1].replace(b'"draws":[[8,', b'"draws":[[8,1'),
                *lines[2:],
            ],
            "MISMATCH k1-1: the row was altered after it was recorded",
        ),
        (  # one of the sniper's rows taken out: the chain breaks at the next row
            lambda lines: [lines[0], lines[1], *lines[3:]],
            "the chain is broken",
        ),
        (  # a stub's hash changed to hide another row in its place
            lambda lines: [
                lines[0],
                lines[1],
                lines[2].replace(b'"hash":"', b'"hash":"0'),
                *lines[3:],
            ],
            "the chain is broken",
        ),
        (  # the header claims fewer withheld rows than the file holds
            lambda lines: [lines[0].replace(b'"private":8', b'"private":7'), *lines[1:]],
            "MISMATCH header: it says 8 withheld, the file holds 9",
        ),
    ],
)
def test_a_changed_export_fails_naming_what_changed(
    campaign: Path, tmp_path, capsys, monkeypatch, change, expected: str
) -> None:
    """A row altered, a row removed, a stub forged or a header that lies: exit 1 and a
    MISMATCH line that says which and why."""
    out = tmp_path / "ledger.jsonl"
    _export(campaign, out, capsys)
    _rewrite(out, change)
    code, said = _verify(out, tmp_path / "revealed.txt", capsys, monkeypatch, tmp_path)
    assert (1, True) == (code, expected in said), said


def test_the_wrong_secret_fails_every_shown_row(campaign: Path, tmp_path, capsys, monkeypatch):
    """A secret that is not the campaign's: the shown rows' dice do not follow from it."""
    out = tmp_path / "ledger.jsonl"
    _export(campaign, out, capsys)
    wrong = tmp_path / "wrong.txt"
    wrong.write_bytes(b"not the secret")
    code, said = _verify(out, wrong, capsys, monkeypatch, tmp_path)
    assert (1, 3) == (code, said.count("its dice do not follow from the secret"))


def test_a_file_that_is_not_an_export_is_refused_saying_so(tmp_path, capsys) -> None:
    """The store's own journal handed out by mistake is not a public ledger: exit 2."""
    journal = tmp_path / "store.ledger.jsonl"
    journal.write_text('{"roll_id":"a-1"}\n')
    assert 2 == main(["verify", "--ledger", str(journal), "--chain-only"])
    assert "not a public ledger" in capsys.readouterr().err


def test_with_private_the_gm_reveals_the_secret_rolls_too(
    campaign: Path, tmp_path, capsys, monkeypatch
) -> None:
    """At the end a GM may choose to show everything: no stub, and it still verifies."""
    out = tmp_path / "ledger.jsonl"
    assert 0 == main(
        ["--campaign", str(campaign), "export", "--public", str(out), "--with-private"]
    )
    capsys.readouterr()
    code, said = _verify(out, tmp_path / "revealed.txt", capsys, monkeypatch, tmp_path)
    assert (0, "12 shown") == (code, "12 shown" if "12 shown" in said else said)
