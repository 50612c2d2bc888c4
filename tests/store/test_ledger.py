"""Tests for referee.store.ledger: rows chain by hash and re-derive from the revealed secret."""

import hashlib
import json

from hypothesis import given
from hypothesis import strategies as st

from referee.base.dice import HmacDice, RecordingDice, commitment
from referee.store.ledger import GENESIS, make_row, roll_id, row_hash, seal, verify


def _rows(secret=b"campaign-secret", count=5):
    rows, previous = [], GENESIS
    for index in range(count):
        dice = RecordingDice(HmacDice(secret, f"t1_p{index}", 0))
        dice.roll(8), dice.roll(6)
        unsealed = make_row(
            post=f"t1_p{index}",
            thread="t3_t",
            author="kara",
            tag_index=0,
            tag="roll Kara agility",
            system="stepped",
            kind="stat",
            draws=dice.draws,
            outcome={"total": 5},
            recorded="2026-11-22T00:00:00+00:00",
        )
        row = seal(unsealed, previous)
        rows.append(row)
        previous = row["hash"]
    return rows


def test_roll_ids_are_short_and_name_the_post():
    """A roll id is the post's base-36 id and the tag's number from 1."""
    assert "abc-3" == roll_id("t1_abc", 2)


def test_an_honest_ledger_verifies_with_its_secret_and_commitment():
    """Every row re-derives from the secret, and the secret matches the published sha256."""
    report = verify(_rows(), b"campaign-secret", commitment(b"campaign-secret"))
    assert (True, 5, 5, True) == (report.ok, report.rows, report.dice_checked, report.commitment_ok)


def test_a_wrong_secret_fails_every_row():
    """A secret other than the one that rolled the dice is caught on every row."""
    report = verify(_rows(), b"another-secret")
    assert 5 == len(report.mismatches)


def test_a_changed_die_is_caught():
    """Editing a recorded die breaks both the row's hash and its derivation."""
    rows = _rows()
    rows[2]["draws"][0][1] = 1 if rows[2]["draws"][0][1] != 1 else 2
    reasons = {m.reason for m in verify(rows, b"campaign-secret").mismatches}
    assert {
        "the row was altered after it was recorded",
        "its dice do not follow from the secret",
    } == reasons


def test_a_removed_row_breaks_the_chain_without_the_secret():
    """Players can see a deleted row before the secret is revealed."""
    rows = _rows()
    del rows[1]
    report = verify(rows, None)
    assert (["p2-1"], 0) == ([m.roll_id for m in report.mismatches], report.dice_checked)


def test_a_commitment_for_another_secret_fails():
    """A revealed secret that does not match the published sha256 fails verification."""
    report = verify(_rows(), b"campaign-secret", commitment(b"other"))
    assert (False, False) == (report.commitment_ok, report.ok)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), _json_values, max_size=8))
def test_row_hash_is_the_standard_librarys_canonical_json(row):
    """A verifier using only json.dumps(sort_keys, compact, UTF-8) gets the same hash."""
    body = {key: value for key, value in row.items() if key != "hash"}
    standard = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert hashlib.sha256(standard.encode()).hexdigest() == row_hash(row)
