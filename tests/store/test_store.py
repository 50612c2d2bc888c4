"""Tests for referee.store.store: round trips, copies, batched atomic flushes, crash safety."""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tinydb import Query, TinyDB

from referee.base.errors import StoreError
from referee.store.ledger import GENESIS, verify
from referee.store.store import Store
from referee.store.tinyfile import AtomicJSONStorage


class SimulatedCrash(Exception):
    """Raised by an injected fault to stand for the process dying at that point."""


def _crash(*args: object) -> None:
    raise SimulatedCrash


def _disk_full(*args: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def _temp_files(directory: Path) -> list[Path]:
    return sorted(directory.glob(".*.tmp"))


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "campaign.json"


# Keyed tables


def test_keyed_record_survives_flush_and_reopen(path):
    """A record put and flushed is there, equal, after reopening the store."""
    kara = {"name": "Kara", "hp": 12, "gear": ["rope", {"lamp": True}], "xp": 1.5, "dead": None}
    with Store(path) as store:
        store.table("characters").put("kara", kara)
    with Store(path) as store:
        assert kara == store.table("characters").get("kara")


def test_get_returns_a_copy(path):
    """Mutating what get returned, even a nested list, leaves the stored record alone."""
    with Store(path) as store:
        characters = store.table("characters")
        characters.put("kara", {"hp": 12, "gear": ["rope"]})
        record = characters.get("kara")
        record["hp"] = 0
        record["gear"].append("sword")
        assert {"hp": 12, "gear": ["rope"]} == characters.get("kara")


def test_put_stores_a_copy(path):
    """Mutating the dict after put leaves the stored record alone."""
    with Store(path) as store:
        characters = store.table("characters")
        record = {"hp": 12, "gear": ["rope"]}
        characters.put("kara", record)
        record["gear"].append("sword")
        assert {"hp": 12, "gear": ["rope"]} == characters.get("kara")


def test_iterators_return_copies(path):
    """Records from values() and items() are copies too."""
    with Store(path) as store:
        characters = store.table("characters")
        characters.put("kara", {"hp": 12})
        next(characters.values())["hp"] = 0
        next(characters.items())[1]["hp"] = 0
        assert {"hp": 12} == characters.get("kara")


def test_missing_key_gives_none(path):
    """get of a key never put returns None."""
    with Store(path) as store:
        assert None is store.table("characters").get("nobody")


def test_keys_keep_insertion_order_across_reopen(path):
    """An update keeps a key's place; a delete and re-put moves it to the end."""
    with Store(path) as store:
        table = store.table("characters")
        for key in ["a", "b", "c", "d"]:
            table.put(key, {"v": 1})
        store.flush()
        table.put("b", {"v": 2})
        table.delete("c")
        table.put("c", {"v": 3})
        table.put("e", {"v": 4})
    with Store(path) as store:
        table = store.table("characters")
        assert ["a", "b", "d", "c", "e"] == list(table.keys())
        assert [("b", {"v": 2})] == [(k, v) for k, v in table.items() if k == "b"]


def test_delete_reports_whether_a_record_was_there(path):
    """delete returns True for a present key, False for an absent one, and persists."""
    with Store(path) as store:
        table = store.table("characters")
        table.put("kara", {"hp": 12})
        store.flush()
        assert [True, False] == [table.delete("kara"), table.delete("kara")]
    with Store(path) as store:
        assert (False, 0) == ("kara" in store.table("characters"), len(store.table("characters")))


def test_deleting_while_iterating_is_safe(path):
    """Iteration runs over a snapshot of the keys, so deleting every key in the loop works."""
    with Store(path) as store:
        table = store.table("posts")
        for key in ["a", "b", "c"]:
            table.put(key, {})
        for key in table:
            table.delete(key)
        assert 0 == len(table)


@pytest.mark.parametrize(
    ("record", "error"),
    [
        ({"when": object()}, TypeError),
        ({"tags": {"a", "b"}}, TypeError),
        ({1: "int key"}, TypeError),
        ({"_key": "reserved"}, ValueError),
        ({"strength": 99999999999999999999}, TypeError),
        ({"name": "Kara \ud800"}, TypeError),
        ({"\udfff": 1}, TypeError),
    ],
)
def test_put_rejects_what_json_cannot_hold(path, record, error):
    """A value JSON cannot hold, or the reserved _key field, is refused at put time."""
    with Store(path) as store, pytest.raises(error):
        store.table("characters").put("kara", record)


def test_a_record_the_file_cannot_hold_never_costs_the_other_records(path):
    """A huge integer or a lone surrogate is refused at put and append; the flush that
    follows writes everyone else's changes."""
    with Store(path) as store:
        store.table("characters").put("kara", {"hp": 3})
        with pytest.raises(TypeError):
            store.table("characters").put("bandit", {"strength": 10**20})
        with pytest.raises(TypeError):
            store.ledger.append({"roll_id": "r1", "tag": "roll d6 \ud800"})
        store.ledger.append({"roll_id": "r2", "total": 4})
    with Store(path) as store:
        assert ({"hp": 3}, None, ["r2"]) == (
            store.table("characters").get("kara"),
            store.table("characters").get("bandit"),
            [row["roll_id"] for row in store.ledger],
        )


def test_ledger_is_not_a_keyed_table(path):
    """table("ledger") is refused so the ledger cannot be written around."""
    with Store(path) as store, pytest.raises(ValueError):
        store.table("ledger")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["put", "delete", "flush"]),
            st.sampled_from(["a", "b", "c", "ü", "d e"]),
            st.integers(-3, 3),
        ),
        max_size=30,
    )
)
def test_table_after_reopen_equals_a_dict_given_the_same_operations(operations):
    """Any mix of puts, deletes and flushes reopens as the same ordered dict."""
    model: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "campaign.json"
        with Store(path) as store:
            table = store.table("t")
            for action, key, value in operations:
                if action == "put":
                    table.put(key, {"v": value})
                    model[key] = {"v": value}
                elif action == "delete":
                    assert (key in model) == table.delete(key)
                    model.pop(key, None)
                else:
                    store.flush()
        with Store(path) as store:
            assert list(model.items()) == list(store.table("t").items())


# The ledger


def _unsealed(rows):
    return [{k: v for k, v in row.items() if k not in ("prev", "hash")} for row in rows]


def test_ledger_round_trip_in_append_order(path):
    """Rows come back after reopening in append order, with len."""
    rows = [{"roll_id": f"r{n}", "total": n} for n in range(5)]
    with Store(path) as store:
        for row in rows:
            store.ledger.append(row)
    with Store(path) as store:
        assert (rows, 5) == (_unsealed(store.ledger), len(store.ledger))


def test_appended_rows_are_chained_and_verify(path):
    """Each appended row carries the hash of the one before, across reopening."""
    with Store(path) as store:
        first = store.ledger.append({"roll_id": "r1", "post": "t1_a", "tag_index": 0})
    with Store(path) as store:
        second = store.ledger.append({"roll_id": "r2", "post": "t1_b", "tag_index": 0})
        assert (GENESIS, first["hash"]) == (first["prev"], second["prev"])
        assert verify(store.ledger, None).ok


def test_ledger_rows_are_copies(path):
    """Neither the appended dict nor a returned row can change the ledger."""
    with Store(path) as store:
        row = {"roll_id": "r1", "draws": [3, 5]}
        store.ledger.append(row)["draws"].append(7)
        row["draws"].append(6)
        next(iter(store.ledger))["draws"].append(6)
        assert [{"roll_id": "r1", "draws": [3, 5]}] == _unsealed(store.ledger)


def test_ledger_is_streamed_not_held(path):
    """Iterating the ledger reads the journal: rows appended by the store's file show up."""
    with Store(path) as store:
        for n in range(3):
            store.ledger.append({"roll_id": f"r{n}"})
        store.flush()
        assert ["r0", "r1", "r2"] == [row["roll_id"] for row in store.ledger]


@pytest.mark.parametrize("row", [{"total": 3}, {"roll_id": 7}])
def test_ledger_row_needs_a_string_roll_id(path, row):
    """A row without a string roll_id is refused."""
    with Store(path) as store, pytest.raises(ValueError):
        store.ledger.append(row)


# Flushing


def test_flush_of_a_clean_store_writes_nothing(path):
    """flush returns False, and no file appears, when nothing changed."""
    with Store(path) as store:
        assert (False, 0, False) == (store.flush(), store.writes, path.exists())


def test_second_flush_writes_nothing(path):
    """After a flush, a flush with no changes in between returns False."""
    with Store(path) as store:
        store.ledger.append({"roll_id": "r1"})
        assert (True, False, 1) == (store.flush(), store.flush(), store.writes)


def test_putting_an_equal_record_is_no_change(path):
    """Putting a record equal to the stored one leaves nothing to flush."""
    with Store(path) as store:
        store.table("characters").put("kara", {"hp": 12})
        store.flush()
        store.table("characters").put("kara", {"hp": 12})
        assert False is store.flush()


def test_one_flush_is_one_file_write(path):
    """Many changes over several tables and the ledger land in exactly one write."""
    with Store(path) as store:
        for n in range(300):
            store.ledger.append({"roll_id": f"r{n}"})
            store.table("posts").put(f"t1_{n}", {"done": True})
            store.table("characters").put(f"c{n % 7}", {"hp": n})
        store.table("posts").delete("t1_0")
        assert (True, 1) == (store.flush(), store.writes)


def test_changes_are_not_written_before_flush(path):
    """Until flush, neither file on disk sees the changes."""
    with Store(path) as store:
        store.ledger.append({"roll_id": "r1"})
        store.flush()
        store.checkpoint()
        before = [path.read_bytes(), store.journal_path.read_bytes()]
        store.ledger.append({"roll_id": "r2"})
        store.table("characters").put("kara", {"hp": 1})
        assert before == [path.read_bytes(), store.journal_path.read_bytes()]


def test_a_flush_appends_and_never_rewrites(path):
    """Each flush adds bytes at the end of the journal; what was there stays byte for byte."""
    with Store(path) as store:
        store.table("characters").put("kara", {"hp": 12})
        store.flush()
        before = store.journal_path.read_bytes()
        store.table("characters").put("kara", {"hp": 3})
        store.posts.put("t1_a", {"reply": "hit"})
        store.flush()
        after = store.journal_path.read_bytes()
    assert (True, True) == (after.startswith(before), len(after) > len(before))


def test_the_sheets_file_is_rewritten_only_at_a_checkpoint(path):
    """Flushes leave store.json alone; closing brings it up to date."""
    with Store(path) as store:
        store.table("characters").put("kara", {"hp": 12})
        store.flush()
        assert not path.exists()
    with TinyDB(path, access_mode="r") as db:
        assert [{"_key": "kara", "hp": 12}] == db.table("characters").all()


def test_only_the_intent_needs_an_fsync(path):
    """flush(sync=False) writes without fsync; flush() fsyncs once per batch."""
    with Store(path) as store:
        store.posts.put("t1_a", {"state": "sending"})
        store.flush()
        store.posts.put("t1_a", {"state": "delivered"})
        store.flush(sync=False)
        assert (2, 1) == (store.writes, store.fsyncs)


def test_exception_inside_with_does_not_flush(path):
    """Leaving the with block by an exception drops the batch and releases the store."""
    with Store(path) as store:
        store.ledger.append({"roll_id": "r1"})
    with pytest.raises(SimulatedCrash), Store(path) as store:
        store.ledger.append({"roll_id": "r2"})
        store.table("characters").put("kara", {"hp": 1})
        raise SimulatedCrash
    with Store(path) as store:
        assert (["r1"], 0) == (
            [row["roll_id"] for row in store.ledger],
            len(store.table("characters")),
        )


def test_close_flushes_and_twice_is_harmless(path):
    """close() writes pending changes; a second close does nothing."""
    store = Store(path)
    store.ledger.append({"roll_id": "r1"})
    store.close()
    store.close()
    with Store(path) as store:
        assert 1 == len(store.ledger)


def test_failed_write_keeps_changes_for_the_next_flush(path, monkeypatch):
    """A disk-full flush raises StoreError; the next flush writes the same changes."""
    with Store(path) as store:
        store.ledger.append({"roll_id": "r1"})
        monkeypatch.setattr(os, "fsync", _disk_full)
        with pytest.raises(StoreError, match="next flush"):
            store.flush()
        monkeypatch.undo()
        assert (True, []) == (store.flush(), _temp_files(path.parent))
    with Store(path) as store:
        assert ["r1"] == [row["roll_id"] for row in store.ledger]


def test_the_file_is_a_plain_tinydb_database(path):
    """TinyDB's own JSONStorage can open the file and query records by key; no ledger in it."""
    with Store(path) as store:
        store.table("characters").put("kara", {"hp": 12})
        store.ledger.append({"roll_id": "r1", "total": 17})
    with TinyDB(path, access_mode="r") as db:
        found = db.table("characters").search(Query()._key == "kara")
        assert ([{"_key": "kara", "hp": 12}], 0) == (found, len(db.table("ledger")))


def test_file_is_compact_utf8(path):
    """The sheets file is compact JSON with non-ASCII text written as UTF-8, not escapes."""
    with Store(path) as store:
        store.table("characters").put("kara", {"name": "Кара"})
    text = path.read_text("utf-8")
    assert text.startswith('{"characters":{"1":{"name":"Кара","_key":"kara"}},"_journal":')


# Opening


def test_corrupt_file_raises_store_error_naming_file_and_remedy(path):
    """A file that is not JSON gives a StoreError with its path and how to recover."""
    path.write_text('{"ledger": {"1": {"roll_id": "r1"}', encoding="utf-8")
    with pytest.raises(StoreError) as caught:
        Store(path)
    assert (True, True) == (str(path) in caught.value.message, "backup" in caught.value.message)


def test_json_that_is_not_a_database_is_corrupt(path):
    """A JSON list is not a TinyDB database and is reported as such."""
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(StoreError, match="not a TinyDB database"):
        Store(path)


def test_repeated_roll_id_in_file_is_reported(path):
    """A hand-edited ledger with a repeated roll_id gives a StoreError, not a silent merge."""
    rows = {"1": {"roll_id": "r1"}, "2": {"roll_id": "r1"}}
    path.write_text(json.dumps({"ledger": rows}), encoding="utf-8")
    with pytest.raises(StoreError, match="repeated"):
        Store(path)


def test_empty_file_opens_as_an_empty_store(path):
    """An empty file (as TinyDB's JSONStorage creates) is an empty store."""
    path.touch()
    with Store(path) as store:
        assert (0, None) == (len(store.ledger), AtomicJSONStorage(path).read())


def test_leftover_temp_files_are_removed_on_open(path):
    """Temp files from a crashed write neither break opening nor stay behind."""
    with Store(path) as store:
        store.ledger.append({"roll_id": "r1"})
    leftover = path.parent / f".{path.name}.abc123.tmp"
    leftover.write_text('{"ledger": {"1": {"roll', encoding="utf-8")
    index_leftover = path.parent / f".{path.stem}.index.def456.tmp"
    index_leftover.write_text('{"position": {"off', encoding="utf-8")
    with Store(path) as store:
        assert (1, []) == (len(store.ledger), _temp_files(path.parent))


def test_second_open_of_an_open_store_is_refused(path):
    """While one Store has the file open, opening it again raises StoreError."""
    with Store(path), pytest.raises(StoreError, match="another process"):
        Store(path)


def test_missing_directory_is_reported(tmp_path):
    """A store in a directory that does not exist gives a StoreError saying so."""
    with pytest.raises(StoreError, match="directory exists"):
        Store(tmp_path / "nowhere" / "campaign.json")


def test_rows_after_unordered_ids_keep_increasing(path):
    """A file whose documents are out of id order loads in id order and appends after."""
    rows = {"2": {"roll_id": "r2"}, "1": {"roll_id": "r1"}}
    path.write_text(json.dumps({"ledger": rows}), encoding="utf-8")
    with Store(path) as store:
        store.ledger.append({"roll_id": "r3"})
    with Store(path) as store:
        assert ["r1", "r2", "r3"] == [row["roll_id"] for row in store.ledger]


# Crash safety


def test_stock_json_storage_is_left_corrupt_by_a_crash_mid_write(tmp_path, monkeypatch):
    """TinyDB's JSONStorage dies between write and truncate leaving invalid JSON; ours doesn't."""
    outcomes = []
    for storage in [None, AtomicJSONStorage]:
        path = tmp_path / f"{storage.__name__ if storage else 'stock'}.json"
        kwargs = {"storage": storage} if storage else {}
        with TinyDB(path, **kwargs) as db:
            db.insert_multiple({"n": n, "pad": "x" * 40} for n in range(100))
        db = TinyDB(path, **kwargs)
        monkeypatch.setattr(os, "fsync", _crash)
        with pytest.raises(SimulatedCrash):
            db.remove(doc_ids=list(range(2, 101)))  # the new text is shorter than the old
        monkeypatch.undo()
        db.close()
        try:
            outcomes.append(len(json.loads(path.read_text("utf-8"))["_default"]))
        except json.JSONDecodeError:
            outcomes.append("corrupt")
    assert ["corrupt", 100] == outcomes


# The child reports with one os.write per line: print() makes one write() per piece
# when PYTHONUNBUFFERED is set, so a kill could leave "flushed" without its number.
CHILD = """
import os
import sys
from pathlib import Path
from referee.store.store import Store

batch = int(sys.argv[2])
store = Store(Path(sys.argv[1]))
n = len(store.ledger)
os.write(1, b"ready %d\\n" % n)
pad = "x" * 100
while True:
    for _ in range(batch):
        store.ledger.append({"roll_id": f"r{n}", "pad": pad})
        n += 1
    store.table("meta").put("count", {"rows": n})
    store.flush()
    os.write(1, b"flushed %d\\n" % n)
"""


def test_sigkill_at_random_moments_never_loses_a_reported_flush(path, last_flushed):
    """Killed with SIGKILL at random, the store always loads with every flushed row.

    A child appends rows and flushes in a loop, printing "flushed N" only after a
    flush returned. After each kill the file must load, hold rows r0..r(M-1) in order
    for some M >= the last N reported, hold whole batches only, and agree with the
    "meta" table written in the same flush (one flush is atomic across tables).
    """
    seed, batch, kills = 2000, 50, 30
    with Store(path) as store:
        for n in range(seed):
            store.ledger.append({"roll_id": f"r{n}", "pad": "x" * 100})
        store.table("meta").put("count", {"rows": seed})
    rng = random.Random(20260509)
    reported = seed
    for _ in range(kills):
        with subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path), str(batch)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as child:
            assert child.stdout is not None and child.stderr is not None
            ready = child.stdout.readline().split()
            if not ready:  # the child died before it could start: show why
                raise AssertionError(f"child failed to start: {child.stderr.read()}")
            assert ("ready", True) == (ready[0], int(ready[1]) >= reported)
            time.sleep(rng.uniform(0.0, 0.08))
            child.send_signal(signal.SIGKILL)
            child.wait()
            reported = max(reported, last_flushed(child.stdout.read()))
        with Store(path) as store:
            ids = [row["roll_id"] for row in store.ledger]
            count = store.table("meta").get("count")
        expected = {"prefix": True, "enough": True, "whole batches": True, "meta": len(ids)}
        actual = {
            "prefix": ids == [f"r{n}" for n in range(len(ids))],
            "enough": len(ids) >= reported,
            "whole batches": (len(ids) - seed) % batch == 0,
            "meta": count["rows"] if count else None,
        }
        assert expected == actual


def test_close_releases_the_store_even_if_the_last_flush_fails(path, monkeypatch):
    """A failed final flush raises StoreError but still lets the store be opened again."""
    store = Store(path)
    store.ledger.append({"roll_id": "r1"})
    monkeypatch.setattr(os, "fsync", _disk_full)
    with pytest.raises(StoreError):
        store.close()
    monkeypatch.undo()
    with Store(path) as reopened:
        assert 0 == len(reopened.ledger)


# Savepoints


@settings(max_examples=60, deadline=None)
@given(
    before=st.lists(
        st.tuples(st.sampled_from(["put", "delete", "flush", "append"]), st.sampled_from("abc")),
        max_size=8,
    ),
    inside=st.lists(
        st.tuples(st.sampled_from(["put", "delete", "append", "new"]), st.sampled_from("abcd")),
        max_size=8,
    ),
)
def test_a_savepoint_that_raises_leaves_the_store_as_it_was(before, inside):
    """Whatever a failed savepoint did (puts, deletes, appends, a table it opened), the store
    reads and reopens exactly as before it opened."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "campaign.json"
        counter = iter(range(1000))

        def run(store, action, key):
            if action in ("put", "new"):
                store.table("t" if action == "put" else "inner").put(key, {"n": next(counter)})
            elif action == "delete":
                store.table("t").delete(key)
            elif action == "append":
                store.ledger.append({"roll_id": f"{key}{next(counter)}"})
            else:
                store.flush()

        def state(store):
            return list(store.table("t").items()), [row["roll_id"] for row in store.ledger]

        with Store(path) as store:
            for action, key in before:
                run(store, action, key)
            expected = state(store)
            with pytest.raises(SimulatedCrash), store.savepoint():
                for action, key in inside:
                    run(store, action, key)
                raise SimulatedCrash
            assert (expected, []) == (state(store), list(store.table("inner").items()))
        with Store(path) as store:
            assert (expected, []) == (state(store), list(store.table("inner").items()))


def test_a_savepoint_that_ends_keeps_its_changes(path):
    """Changes made in a savepoint that ends normally are flushed like any others."""
    with Store(path) as store, store.savepoint():
        store.table("t").put("a", {"n": 1})
        store.ledger.append({"roll_id": "r1"})
    with Store(path) as store:
        assert ({"n": 1}, 1) == (store.table("t").get("a"), len(store.ledger))
