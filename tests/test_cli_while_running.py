"""The shell while the live bot runs: read-only commands answer, writers refuse saying why.

The running bot is stood in for by a writer in this process holding the store's lock
(the lock is per open file, so it conflicts as another process's would), with a batch
committed and a change not yet flushed: readers see the first, never the second.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.base.errors import StoreError
from referee.cli import main
from referee.pipeline.campaign import Campaign, find_config, load_config, load_secret
from referee.store.store import Store
from referee.testing.shipped import copy_shipped

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def running(tmp_path, monkeypatch, capsys):
    """The demo campaign after a batch of its thread, open in a writer as the bot holds it."""
    copy_shipped(REPO / "data" / "demo", tmp_path / "demo")  # not what the README's demo left
    (tmp_path / "config.toml").write_text(
        '[campaign]\nname = "Demo copy"\ndata_dir = "demo"\n'
        f'templates_dir = "{(REPO / "templates").as_posix()}"\n'
        f'races = "{(REPO / "data" / "races.toml").as_posix()}"\n'
        f'scale = "{(REPO / "data" / "scale.toml").as_posix()}"\n'
        '[secret]\nenv = "REFEREE_TEST_SECRET"\n'
    )
    monkeypatch.setenv("REFEREE_TEST_SECRET", "cli-test-secret")
    monkeypatch.chdir(tmp_path)
    main(["batch", "demo/thread.json", "--out", "replies.md"])
    capsys.readouterr()
    config = load_config(find_config(None))
    campaign = Campaign(config, load_secret(config))
    # Uncommitted: in the writer's memory only, as mid-step.
    campaign.store.table("characters").put("ghost", {"name": "Ghost", "owner": "nobody"})
    yield campaign
    campaign.store.discard()


@pytest.mark.parametrize(
    "command",
    [
        ["characters"],
        ["history"],
        ["applications"],
        ["failures"],
        ["verify"],
        ["roll", "2d6", "--seed", "1"],
    ],
)
def test_a_read_only_command_answers_while_the_bot_runs_and_says_how_recent(
    running, capsys, command
) -> None:
    """Each read-only command answers from the last committed state and says its time."""
    code = main(command)
    out, err = capsys.readouterr()
    assert code in (0, 1), err  # failures exits 1 when it lists some; none here
    assert "the live bot is running; this is the campaign as of its last write" in err
    assert "Ghost" not in out
    assert "is open in another process" not in err


def test_verify_while_the_bot_runs_checks_the_committed_ledger(running, capsys) -> None:
    """verify reads every committed row and finds them consistent."""
    assert 0 == main(["verify"])
    out = capsys.readouterr().out
    assert f"{len(running.store.ledger)} ledger rows" in out and "all consistent" in out


def test_batch_refuses_while_the_bot_runs_saying_why(running, capsys) -> None:
    """batch writes the store itself: it refuses, says to stop the bot, names what works."""
    assert 0 != main(["batch", "demo/thread.json"])
    err = capsys.readouterr().err
    assert "Stop the bot first" in err and "`referee characters`" in err
    assert "`approve`" in err  # and which commands reach the running bot


def test_approve_while_the_bot_runs_leaves_a_request_for_it(running, capsys, monkeypatch) -> None:
    """approve does not write beside the bot: it leaves its request in the data folder
    and says so (the bot, here not stepping, has not taken it)."""
    monkeypatch.setattr("referee.live.shell.WAIT_SECONDS", 0.0)
    assert 0 == main(["approve", "Nobody"])
    err = capsys.readouterr().err
    assert "has not taken the request yet" in err
    assert 1 == len(list((running.store.path.parent / "store.requests").glob("*.json")))


def test_a_reader_ignores_and_keeps_the_batch_being_appended(tmp_path: Path) -> None:
    """A batch half-written by the writer is not read, and the reader cuts nothing."""
    path = tmp_path / "store.json"
    with Store(path) as store:
        store.table("characters").put("kara", {"hp": 12})
    journal = path.with_name("store.ledger.jsonl")
    with journal.open("ab") as handle:
        handle.write(b'{"table":"characters","op":"put","key":"torn","val')  # mid-write
    size = journal.stat().st_size
    reader = Store(path, read_only=True)
    try:
        assert ({"hp": 12}, None) == (
            reader.table("characters").get("kara"),
            reader.table("characters").get("torn"),
        )
        reader.table("characters").put("x", {})
        with pytest.raises(StoreError, match="read only"):
            reader.flush()
    finally:
        reader.close()
    assert size == journal.stat().st_size
