"""Every system's demo replies, read as Reddit shows them: no stray blank lines or spaces.

A template that ends a line in a block tag loses or doubles blank lines; Reddit shows
two blank lines as a gap in the middle of a verdict. Each system's demo thread is
refereed as ``referee batch`` does it, and every reply is read.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.testing.demos import batch_demo, copy_demo

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "demo_replies.md"  # the stepped demo


def _replies(system: str, tmp_path: Path, monkeypatch, capsys) -> str:
    if system == "stepped":
        return GOLDEN.read_text(encoding="utf-8")
    monkeypatch.setenv("REFEREE_SECRET", f"{system}-clean-secret")
    out, _ = batch_demo(copy_demo(system, tmp_path), capsys)
    return out


SYSTEMS = pytest.mark.parametrize("system", ["stepped", "edge", "pool", "hits", "trikus"])


@SYSTEMS
def test_no_demo_reply_has_two_blank_lines_in_a_row(system, tmp_path, monkeypatch, capsys):
    """Each part of a verdict is parted from the next by one blank line, never two."""
    text = _replies(system, tmp_path, monkeypatch, capsys)
    gaps = [text[max(0, m.start() - 80) : m.end()] for m in re.finditer(r"\n\n\n", text)]
    assert [] == gaps


@SYSTEMS
def test_no_demo_line_ends_in_one_stray_space(system, tmp_path, monkeypatch, capsys):
    """A line ends in its last word, or in two spaces (Reddit's line break), not in one."""
    text = _replies(system, tmp_path, monkeypatch, capsys)
    stray = [line for line in text.splitlines() if re.search(r"\S $", line)]
    assert [] == stray


def test_a_sheet_lists_equipment_in_words(tmp_path, monkeypatch, capsys):
    """[[sheet Kara]] in trikus names each item with the traits she has found, in words."""
    text = _replies("trikus", tmp_path, monkeypatch, capsys)
    line = next(line for line in text.splitlines() if line.startswith("* items:"))
    expected = r"* items: Medpac \(one-use, renewable\), Vibroblade \(offensive, defensive\)"
    assert expected == line


def test_hits_verdicts_read_as_sentences(tmp_path, monkeypatch, capsys):
    """A duel's last total leads straight to its winner; an Intermission says whom it clears."""
    text = _replies("hits", tmp_path, monkeypatch, capsys)
    assert (False, True) == (
        "**. → **" in text,
        "An Intermission clears everyone's Stress and Wounds." in text,
    )
