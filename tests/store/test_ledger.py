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


def _stubbed(rows, index):
    row = rows[index]
    return [
        *rows[:index],
        {"withheld": "private", "prev": row["prev"], "hash": row["hash"]},
        *rows[index + 1 :],
    ]


def test_a_stub_keeps_the_chain_of_a_public_ledger_and_nowhere_else():
    """A withheld row's stub keeps its link in a public ledger's chain; in the store's own
    ledger (stubs=False) the same stub is a mismatch: a row cannot be hidden there."""
    rows = _stubbed(_rows(), 2)
    public = verify(rows, b"campaign-secret", stubs=True)
    own = verify(rows, b"campaign-secret")
    assert (True, 1, 4) == (public.ok, public.withheld, public.dice_checked)
    assert ["a stub in the ledger"] == [m.reason for m in own.mismatches]


def test_a_stub_holding_more_than_its_hash_is_a_mismatch():
    """A stub that carries a row's content is not a stub: it could hide a changed row."""
    rows = _stubbed(_rows(), 2)
    rows[2] = {**rows[2], "draws": [[6, 6]]}
    report = verify(rows, None, stubs=True)
    assert ["a withheld row holds its hash alone"] == [m.reason for m in report.mismatches]


def test_nonsense_in_place_of_a_row_is_reported_not_raised():
    """A line that is not a row, or a row whose dice are not numbers, is a mismatch."""
    rows = _rows()
    rows[1] = {**rows[1], "draws": [["six", None]]}
    report = verify([*rows, None], b"campaign-secret")
    assert {"its dice do not follow from the secret", "it is not a JSON object: not a row"} <= {
        m.reason for m in report.mismatches
    }


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
