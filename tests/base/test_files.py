"""Tests for referee.base.files: private files made 0600, bounded reads of regular files."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest

from referee.base.errors import ConfigError
from referee.base.files import (
    copy_private,
    open_private,
    read_bounded,
    write_new,
    write_private,
)


@pytest.fixture(autouse=True)
def open_umask():
    """The usual umask 022, under which a file made without a mode is 0644."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_a_private_file_is_0600_from_the_start_and_never_written_through_a_link(tmp_path):
    target = tmp_path / "victim"
    target.write_text("mine")
    (tmp_path / "praw.ini").symlink_to(target)
    with pytest.raises(FileExistsError):
        write_private(tmp_path / "praw.ini", b"planted")
    with pytest.raises(FileExistsError):
        write_new(tmp_path / "praw.ini", b"planted")
    write_private(tmp_path / "secret.txt", b"s")
    assert ("mine", 0o600) == (target.read_text(), _mode(tmp_path / "secret.txt"))


def test_opening_a_private_file_we_own_tightens_a_wider_mode_and_says_so(tmp_path, caplog):
    path = tmp_path / "journal"
    path.write_bytes(b"rows")
    path.chmod(0o664)
    with caplog.at_level(logging.WARNING):
        os.close(open_private(path, os.O_RDWR | os.O_APPEND))
    assert 0o600 == _mode(path)
    assert "event=file_mode_tightened" in caplog.text and "from=664 to=600" in caplog.text


def test_a_private_copy_is_0600_whatever_the_source(tmp_path):
    source = tmp_path / "store.json"
    source.write_bytes(b"{}")
    source.chmod(0o644)
    copy_private(source, tmp_path / "copy.bak")
    assert (b"{}", 0o600) == ((tmp_path / "copy.bak").read_bytes(), _mode(tmp_path / "copy.bak"))


def test_a_bounded_read_takes_up_to_the_cap_and_refuses_one_byte_more(tmp_path):
    path = tmp_path / "sheet.txt"
    path.write_bytes(b"x" * 10)
    assert b"x" * 10 == read_bounded(path, 10, "The sheet")
    with pytest.raises(ConfigError, match="larger than 9 bytes"):
        read_bounded(path, 9, "The sheet")


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    """Opening a FIFO to read would wait for a writer forever: it is refused at once."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = threading.Event()
    errors: list[str] = []

    def read() -> None:
        try:
            read_bounded(fifo, 100, "The sheet")
        except ConfigError as error:
            errors.append(error.message)
        done.set()

    threading.Thread(target=read, daemon=True).start()
    assert done.wait(10)
    assert [
        f"The sheet {fifo} is a FIFO (named pipe), not a regular file; give the path of a file."
    ] == errors


def test_a_folder_is_refused_as_a_folder(tmp_path):
    with pytest.raises(ConfigError, match="is a folder, not a regular file"):
        read_bounded(tmp_path, 100, "The thread file")
