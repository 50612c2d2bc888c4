"""The demo thread's replies, byte for byte, against a stored copy made before the plug-in move."""

from itertools import pairwise
from pathlib import Path

from referee.cli import main
from referee.testing.shipped import copy_repository_campaign

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "demo_replies.md"
SECRET = "golden-demo-secret"


def demo_replies(folder: Path, monkeypatch, capsys) -> str:
    """The replies `referee batch data/demo/thread.json` prints for the repository's demo."""
    copy_repository_campaign(folder)
    monkeypatch.setenv("REFEREE_SECRET", SECRET)
    monkeypatch.chdir(folder)
    main(["batch", "data/demo/thread.json"])
    return capsys.readouterr().out


def test_demo_replies_are_byte_identical_to_the_stored_copy(tmp_path, monkeypatch, capsys):
    """The demo prints exactly the stored replies for the same secret: no verdict changed."""
    assert GOLDEN.read_text(encoding="utf-8") == demo_replies(tmp_path, monkeypatch, capsys)


def test_no_roll_id_line_is_folded_into_a_list():
    """In every demo reply a roll id line after a list stands apart (a blank line between)."""
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    folded = [
        f"{number}: {line}"
        for number, (before, line) in enumerate(pairwise(lines), start=2)
        if line.startswith("^(roll") and before.startswith(("* ", "- ", "|"))
    ]
    assert [] == folded
