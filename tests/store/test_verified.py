"""Tests for referee.store.verified: one pass over the store, and the note of a check.

After a check that found everything consistent, the next one takes the rows it covered
as checked only while their bytes are unchanged, and checks the rows added since.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from referee.base.dice import HmacDice, RecordingDice
from referee.store.ledger import make_row
from referee.store.store import Store
from referee.store.verified import check_store_whole, note_path

SECRET = b"campaign-secret"


def _row(n: int) -> dict:
    dice = RecordingDice(HmacDice(SECRET, f"t1_p{n}", 0))
    dice.roll(6)
    return make_row(
        post=f"t1_p{n}",
        thread="t3_t",
        author="kara",
        tag_index=0,
        tag="roll 1d6",
        system="stepped",
        kind="dice",
        draws=dice.draws,
        outcome={"total": dice.draws[0].value},
        recorded="2026-11-27T00:00:00+00:00",
    )


def _add(path: Path, start: int, count: int) -> None:
    with Store(path) as store:
        for n in range(start, start + count):
            store.ledger.append(_row(n))
            if n % 10 == 9:
                store.flush()
        store.table("characters").put(f"c{start}", {"name": f"C{start}"})


def _check(path: Path, secret: bytes | None = SECRET, **options):
    with Store(path, read_only=True) as store:
        return check_store_whole(store, secret, **options)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    path = tmp_path / "store.json"
    _add(path, 0, 50)
    return path


def _change_a_die(path: Path, roll_id: str) -> None:
    """Change one die of a row in the journal, keeping the file's length (as a forger would)."""
    journal = path.with_name("store.ledger.jsonl")
    data = journal.read_bytes()
    at = data.index(f'"roll_id":"{roll_id}"'.encode())
    start = data.rindex(b'"draws":[[6,', 0, at) + len(b'"draws":[[6,')
    face = data[start : start + 1]
    data = data[:start] + (b"2" if face != b"2" else b"3") + data[start + 1 :]
    journal.write_bytes(data)


def test_a_check_that_finds_all_well_leaves_a_note_the_next_one_uses(path: Path) -> None:
    """The first check reads every row and notes it; the next takes those rows as
    checked (their bytes hash the same) and reads only the rows added since."""
    first = _check(path)
    _add(path, 50, 20)
    second = _check(path)
    note = orjson.loads(note_path(path).read_bytes())
    assert (True, None, 50) == (first.report.ok, first.since, second.since.rows)
    assert (True, 70, 70) == (second.report.ok, second.report.rows, second.report.dice_checked)
    assert 70 == note["rows"]


def test_a_row_added_since_the_note_is_checked(path: Path) -> None:
    """A die changed in a row added after the note: its batch no longer matches its commit
    line, and the row is named."""
    _check(path)
    _add(path, 50, 20)
    _change_a_die(path, "p60-1")
    checked = _check(path)
    assert ({"p60-1"}, True) == (
        {m.roll_id for m in checked.report.mismatches},
        "does not check out" in checked.damage,
    )


def test_a_byte_changed_under_the_note_makes_a_full_check(path: Path) -> None:
    """A die changed in a row the note covers (the file's length kept): the note no longer
    fits those bytes, the whole store is checked again, and the row is named."""
    _check(path)
    _change_a_die(path, "p7-1")
    checked = _check(path)
    assert (None, {"p7-1"}) == (checked.since, {m.roll_id for m in checked.report.mismatches})


@pytest.mark.parametrize(
    ("first", "then", "uses_note"),
    [
        (None, SECRET, False),  # dice never checked: a dice check reads every row
        (b"another-secret", SECRET, False),  # checked with another secret
        (SECRET, None, True),  # a chain check needs less than the dice check made
    ],
)
def test_a_note_is_used_only_for_a_check_it_covers(path, first, then, uses_note) -> None:
    """A note of a chain-only check, or of another secret, does not stand for a dice check."""
    _check(path, first)
    assert uses_note == (_check(path, then).since is not None)


def test_full_checks_every_row_again(path: Path) -> None:
    """--full reads every row whatever the note says."""
    _check(path)
    assert None is _check(path, full=True).since


def test_a_clean_check_after_a_note_rewrites_it_only_when_rows_were_added(path: Path) -> None:
    """A check with nothing added leaves the note as it was; rows added move it on."""
    _check(path)
    before = note_path(path).read_bytes()
    _check(path)
    unchanged = note_path(path).read_bytes()
    _add(path, 50, 5)
    _check(path)
    assert (before, 55) == (unchanged, orjson.loads(note_path(path).read_bytes())["rows"])
