"""Every system's demo campaign (data/demos): a re-run of its thread changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.pipeline.campaign import load_config
from referee.testing.demos import DEMOS, batch_demo, copy_demo, ledger_rows

NAMES = sorted(folder.name for folder in DEMOS.iterdir() if (folder / "thread.json").is_file())


@pytest.mark.parametrize("name", NAMES)
def test_a_demo_batch_is_deterministic_and_records_nothing_twice(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second run of a demo's batch prints the same replies and adds no ledger row."""
    monkeypatch.setenv("REFEREE_SECRET", f"{name}-demo-test-secret")
    demo = copy_demo(name, tmp_path)
    first, first_err = batch_demo(demo, capsys)
    rows = ledger_rows(demo)
    second, second_err = batch_demo(demo, capsys)
    assert (first, rows) == (second, ledger_rows(demo))
    # "; 0 new": a first run of 60 rolls says "60 new roll(s)", which ends the same way.
    assert "; 0 new roll(s)" in second_err and "; 0 new roll(s)" not in first_err


def test_every_demo_is_a_campaign_of_a_built_in_system() -> None:
    """Each demo folder is named for a system and its config.toml plays that system."""
    assert NAMES, "no demo campaigns found under data/demos"
    assert NAMES == [load_config(DEMOS / name / "config.toml").system for name in NAMES]
