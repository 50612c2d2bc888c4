"""Tests for referee.testing.shipped: a test's copy of a campaign is the one a fresh clone has."""

import fnmatch
from pathlib import Path

import pytest

from referee.cli import main
from referee.testing.demos import DEMOS
from referee.testing.shipped import GENERATED, copy_repository_campaign, copy_shipped


def _files(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }


def _made_by_a_run(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    """The files a run added or changed that copy_shipped would still copy."""
    touched = [name for name, data in after.items() if before.get(name) != data]
    return [
        name
        for name in touched
        if not any(fnmatch.fnmatch(Path(name).name, pattern) for pattern in GENERATED)
    ]


def test_the_readme_demo_and_shell_examples_write_only_what_a_copy_leaves_behind(
    tmp_path, monkeypatch, capsys
):
    """Every file the README's first commands write is one copy_shipped leaves behind."""
    folder = copy_repository_campaign(tmp_path / "clone")
    before = _files(folder)
    monkeypatch.chdir(folder)
    monkeypatch.delenv("REFEREE_SECRET", raising=False)
    main(["batch", "data/demo/thread.json"])
    main(["roll", "[[roll Kara agility+perception -1]]"])
    capsys.readouterr()
    after = _files(folder)
    assert ([], True) == (_made_by_a_run(before, after), "data/demo/secret.txt" in after)
    assert _files(copy_shipped(folder / "data", tmp_path / "again")) == _files(
        copy_repository_campaign(tmp_path / "fresh") / "data"
    )


@pytest.mark.parametrize("name", sorted(path.name for path in DEMOS.iterdir()))
def test_a_system_demo_run_writes_only_what_a_copy_leaves_behind(
    name, tmp_path, monkeypatch, capsys
):
    """A system demo's batch, run in its own folder, adds only files copy_shipped skips."""
    folder = copy_shipped(DEMOS / name, tmp_path / name)
    before = _files(folder)
    monkeypatch.delenv("REFEREE_SECRET", raising=False)
    main(["--campaign", str(folder), "batch", str(folder / "thread.json")])
    capsys.readouterr()
    after = _files(folder)
    assert ([], True) == (_made_by_a_run(before, after), len(after) > len(before))
    assert before == _files(copy_shipped(folder, tmp_path / "copy"))
