"""Tests for referee.store.journal through the store: committed batches, torn tails, replay."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from referee.base.errors import StoreError
from referee.store.journal import Journal
from referee.store.ledger import verify
from referee.store.store import Store


class SimulatedCrash(Exception):
    """Stands for the process dying at that point."""


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "campaign.json"


def _ids(store: Store) -> list[str]:
    return [row["roll_id"] for row in store.ledger]


def _three_batches(path: Path) -> Path:
    with Store(path) as store:
        for n in range(3):
            store.ledger.append({"roll_id": f"r{n}", "post": f"t1_{n}"})
            store.posts.put(f"t1_{n}", {"reply": f"reply {n}"})
            store.flush()
        return store.journal_path


def test_a_torn_last_line_is_dropped_with_a_warning_and_kept_aside(path, caplog):
    """Half a line at the end is cut off, logged, saved in a .torn file; the rest stays."""
    journal = _three_batches(path)
    whole = journal.read_bytes()
    with journal.open("ab") as handle:
        handle.write(b'{"roll_id":"r3","post":"t1_3","prev":"ab')
    with caplog.at_level(logging.WARNING), Store(path) as store:
        assert ["r0", "r1", "r2"] == _ids(store)
        assert {"reply": "reply 2"} == store.posts.get("t1_2")
    torn = list(journal.parent.glob(journal.name + ".torn-*"))
    assert (whole, 1) == (journal.read_bytes(), len(torn))
    assert b'"r3"' in torn[0].read_bytes()
    assert "event=journal_tail_dropped" in caplog.text


def test_two_cuts_in_the_same_second_keep_both_torn_tails(path):
    """A second crash within the second never overwrites the tail the first one kept."""
    journal = _three_batches(path)
    for tail in (b'{"roll_id":"r3","pr', b'{"roll_id":"r4","pr'):
        with journal.open("ab") as handle:
            handle.write(tail)
        Store(path).close()
    kept = sorted(p.read_bytes() for p in journal.parent.glob(journal.name + ".torn-*"))
    assert [b'{"roll_id":"r3","pr', b'{"roll_id":"r4","pr'] == kept


def test_whole_lines_without_their_commit_are_dropped_as_one_batch(path, caplog):
    """A batch cut before its commit line lands not at all, not in part."""
    journal = _three_batches(path)
    whole = journal.read_bytes()
    with journal.open("ab") as handle:
        handle.write(b'{"roll_id":"r3"}\n{"op":"put","table":"posts","key":"t1_3","value":{}}\n')
    with caplog.at_level(logging.WARNING), Store(path) as store:
        assert (["r0", "r1", "r2"], False) == (_ids(store), "t1_3" in store.posts)
    assert whole == journal.read_bytes()


def test_damage_before_a_good_commit_is_refused_not_cut(path):
    """A changed line followed by committed batches is reported, and nothing is cut."""
    journal = _three_batches(path)
    Path(str(path.with_name(path.stem + ".index"))).unlink()  # make opening read it all
    damaged = journal.read_bytes().replace(b"reply 0", b"reply X", 1)
    journal.write_bytes(damaged)
    with pytest.raises(StoreError, match="damaged inside"):
        Store(path)
    assert damaged == journal.read_bytes()


def test_a_crash_inside_the_write_call_loses_no_earlier_record(path, monkeypatch):
    """The write dies halfway through a batch: reopened, every earlier batch is whole."""
    _three_batches(path)
    real_write = os.write

    def half_then_die(fd: int, data: bytes) -> int:
        real_write(fd, bytes(data[: len(data) // 2]))
        raise SimulatedCrash

    store = Store(path)
    store.ledger.append({"roll_id": "r3", "post": "t1_3"})
    store.posts.put("t1_3", {"reply": "reply 3"})
    monkeypatch.setattr(os, "write", half_then_die)
    with pytest.raises(SimulatedCrash):
        store.flush()
    monkeypatch.undo()
    store.discard()
    with Store(path) as reopened:
        assert (["r0", "r1", "r2"], False) == (_ids(reopened), "t1_3" in reopened.posts)
        assert verify(reopened.ledger, None).ok


def test_changes_since_the_last_checkpoint_are_replayed(path):
    """A process that flushed and died without closing loses nothing it flushed."""
    with Store(path) as store:
        store.table("characters").put("kara", {"hp": 12})
    store = Store(path)
    store.table("characters").put("kara", {"hp": 3})
    store.table("characters").delete("kara")
    store.table("characters").put("orla", {"hp": 9})
    store.posts.put("t1_a", {"reply": "a"})
    store.ledger.append({"roll_id": "a-1"})
    store.flush()
    store.discard()  # no checkpoint: as if killed
    with Store(path) as reopened:
        characters = reopened.table("characters")
        assert ([("orla", {"hp": 9})], {"reply": "a"}, 1) == (
            list(characters.items()),
            reopened.posts.get("t1_a"),
            len(reopened.ledger),
        )


def test_a_lost_index_is_rebuilt_from_the_journal(path, caplog):
    """Without its index file the store reads the journal once and finds every post."""
    _three_batches(path)
    index = path.with_name(path.stem + ".index")
    index.write_bytes(b"not json")
    with caplog.at_level(logging.WARNING), Store(path) as store:
        assert (3, {"reply": "reply 1"}) == (len(store.ledger), store.posts.get("t1_1"))
    assert "event=index_rebuilt" in caplog.text


def test_posts_keep_their_first_place_and_read_back_after_reopening(path):
    """An updated post keeps its place; newest() lists the latest first; records round-trip."""
    with Store(path) as store:
        for name in ("t1_a", "t1_b", "t1_c"):
            store.posts.put(name, {"n": name})
        store.flush()
        store.posts.put("t1_a", {"n": "again"})
    with Store(path) as store:
        assert (["t1_a", "t1_b", "t1_c"], ["t1_c", "t1_b", "t1_a"], {"n": "again"}) == (
            list(store.posts.keys()),
            list(store.posts.newest()),
            store.posts.get("t1_a"),
        )


# One os.write per report line: print() writes piece by piece under PYTHONUNBUFFERED.
CHILD = """
import os
import sys
from pathlib import Path
from referee.store.store import Store

store = Store(Path(sys.argv[1]))
n = len(store.ledger)
os.write(1, b"ready %d\\n" % n)
pad = "x" * 4000
while True:
    for _ in range(250):  # a megabyte a batch: a kill lands inside the write call
        store.ledger.append({"roll_id": f"r{n}", "post": f"t1_{n}", "pad": pad})
        store.posts.put(f"t1_{n}", {"n": n})
        n += 1
    store.flush(sync=False)
    os.write(1, b"flushed %d\\n" % n)
"""


def test_sigkill_during_big_appends_never_loses_an_earlier_record(path, last_flushed):
    """Killed while appending megabyte batches, the journal reopens with every reported row."""
    reported = 0
    for kill in range(6):
        with subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as child:
            assert child.stdout is not None and child.stderr is not None
            ready = child.stdout.readline().split()
            if not ready:
                raise AssertionError(f"child failed to start: {child.stderr.read()}")
            for _ in range(kill % 3 + 1):  # let it report a batch or three, then kill it
                child.stdout.readline()
            child.send_signal(signal.SIGKILL)
            child.wait()
            reported = max(reported, last_flushed(child.stdout.read()))
        with Store(path) as store:
            ids = _ids(store)
            expected = (True, True, True, True)
            actual = (
                ids == [f"r{n}" for n in range(len(ids))],
                len(ids) >= reported,
                store.posts.get(f"t1_{len(ids) - 1}") == {"n": len(ids) - 1},
                verify(store.ledger, None).ok,
            )
            assert expected == actual


def test_a_failed_savepoint_takes_back_its_posts_and_rows(path):
    """Posts put or deleted and rows appended inside a savepoint that raises are gone."""
    with Store(path) as store:
        store.posts.put("t1_a", {"n": 1})
        store.posts.put("t1_b", {"n": 2})
        store.flush()
        store.posts.put("t1_b", {"n": 3})
        with pytest.raises(SimulatedCrash), store.savepoint():
            store.posts.put("t1_b", {"n": 4})
            store.posts.put("t1_c", {"n": 5})
            store.posts.delete("t1_a")
            store.ledger.append({"roll_id": "c-1"})
            raise SimulatedCrash
    with Store(path) as store:
        assert ({"n": 1}, {"n": 3}, None, 0) == (
            store.posts.get("t1_a"),
            store.posts.get("t1_b"),
            store.posts.get("t1_c"),
            len(store.ledger),
        )


@pytest.mark.parametrize("chunk", [8, 64, 1 << 20])
def test_runs_hold_every_whole_line_once_and_no_torn_tail(tmp_path, monkeypatch, chunk) -> None:
    """Runs of whole lines cover the file up to its last newline, each line once, even
    when a line is longer than a read (the read grows); a tail with no newline is left."""
    monkeypatch.setattr("referee.store.journal._READ_CHUNK", chunk)
    path = tmp_path / "j.jsonl"
    lines = [b'{"n":%d,"pad":"%s"}\n' % (n, b"x" * (n * 7 % 50)) for n in range(40)]
    path.write_bytes(b"".join(lines) + b'{"torn":')
    journal = Journal(path, read_only=True)
    try:
        runs = list(journal.runs())
    finally:
        journal.close()
    assert b"".join(lines) == b"".join(data[:whole] for data, whole in runs)


@pytest.fixture
def open_umask():
    """The usual umask 022, under which a file made without a mode is 0644."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_journal_and_a_kept_torn_tail_are_their_owners_alone(path, open_umask):
    """The journal holds the GMs' secret rolls in clear: 0600, never 0644, and so is the
    .torn file that keeps a cut tail's rows."""
    journal = _three_batches(path)
    with journal.open("ab") as handle:
        handle.write(b'{"roll_id":"r3","post":"t1_3","prev":"ab')
    Store(path).close()
    (torn,) = journal.parent.glob(journal.name + ".torn-*")
    assert (0o600, 0o600) == (_mode(journal), _mode(torn))


def test_a_journal_left_readable_by_others_is_tightened_by_its_writer(path, caplog):
    """A journal an older version made 0644 is made 0600 when the store opens, logged."""
    journal = _three_batches(path)
    journal.chmod(0o644)
    with Store(path, read_only=True):
        assert 0o644 == _mode(journal)  # a reader changes nothing
    with caplog.at_level(logging.WARNING), Store(path) as store:
        assert ["r0", "r1", "r2"] == _ids(store)
    assert 0o600 == _mode(journal)
    assert "event=file_mode_tightened" in caplog.text
