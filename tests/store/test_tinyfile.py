"""Tests for referee.store.tinyfile: the sheets file is its owner's alone, rewrite after rewrite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.store.store import Store


@pytest.fixture
def open_umask():
    """The usual umask 022, under which a file made without a mode is 0644."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_a_rewrite_of_the_sheets_file_is_0600_even_over_a_wider_one(tmp_path, open_umask):
    """The sheets file holds every sheet and the GMs' hidden characters: each atomic
    rewrite leaves it 0600, also where the file it replaces was 0644."""
    path = tmp_path / "store.json"
    with Store(path) as store:
        store.table("characters").put("kara", {"name": "Kara"})
        store.flush()
        store.checkpoint()
    assert 0o600 == _mode(path)
    path.chmod(0o644)
    with Store(path) as store:
        store.table("characters").put("dax", {"name": "Dax"})
        store.flush()
        store.checkpoint()
    assert 0o600 == _mode(path)
    assert 0o600 == _mode(path.with_name("store.index"))


def test_the_copy_kept_before_a_migration_is_0600_whatever_the_store_was(tmp_path, open_umask):
    """keep_copy's stamped copy holds the whole store: it is 0600 even of a 0644 file."""
    from referee.store.tinyfile import keep_copy

    path = tmp_path / "store.json"
    path.write_bytes(b"{}")
    path.chmod(0o644)
    copy = keep_copy(path)
    assert (b"{}", 0o600) == (copy.read_bytes(), _mode(copy))
