"""Tests for referee.store.migrate: a single-file store opens, converted once, and still
verifies."""

from __future__ import annotations

import json
from pathlib import Path

from referee.base.dice import HmacDice, RecordingDice
from referee.store.ledger import GENESIS, make_row, seal, verify
from referee.store.store import Store

SECRET = b"old-campaign-secret"


def _old_format_store(path: Path, rows: int = 5) -> dict:
    """A store.json as referee wrote it before the journal: ledger and posts in TinyDB."""
    ledger, posts, previous = {}, {}, GENESIS
    for n in range(rows):
        post = f"t1_p{n}"
        dice = RecordingDice(HmacDice(SECRET, post, 0))
        dice.roll(6), dice.roll(6)
        unsealed = make_row(
            post=post,
            thread="t3_t",
            author="kara",
            tag_index=0,
            tag="roll 2d6",
            system="stepped",
            kind="dice",
            draws=dice.draws,
            outcome={"total": sum(d.value for d in dice.draws)},
            recorded="2026-01-01T00:00:00+00:00",
        )
        del unsealed["salt"]  # rows had none then
        row = seal(unsealed, previous)
        previous = row["hash"]
        ledger[str(n + 1)] = row
        posts[str(n + 1)] = {
            "_key": post,
            "reply": f"reply {n}",
            "delivery": {"state": "delivered"},
        }
    document = {
        "characters": {"1": {"_key": "kara", "name": "Kara", "hp": 12}},
        "ledger": ledger,
        "posts": posts,
        "worker": {"1": {"_key": "cursor:comments:x", "newest": "t1_p4"}},
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return document


def test_an_old_store_is_converted_and_its_ledger_verifies(tmp_path):
    """Opened once, the old file is kept as a backup and every row verifies, die for die."""
    path = tmp_path / "store.json"
    old = _old_format_store(path)
    with Store(path) as store:
        rows = list(store.ledger)
        report = verify(rows, SECRET)
        assert (True, 5, 5) == (report.ok, report.rows, report.dice_checked)
        assert list(old["ledger"].values()) == rows
        assert {"reply": "reply 3", "delivery": {"state": "delivered"}} == store.posts.get("t1_p3")
        assert {"name": "Kara", "hp": 12} == store.table("characters").get("kara")
        assert {"newest": "t1_p4"} == store.table("worker").get("cursor:comments:x")
        store.audit()
    backups = list(tmp_path.glob("store.json.*.bak"))
    assert 1 == len(backups)
    assert old == json.loads(backups[0].read_text())
    converted = json.loads(path.read_text())
    assert ("ledger" in converted, "posts" in converted) == (False, False)


def test_a_converted_store_appends_after_the_old_chain_and_converts_once(tmp_path):
    """New rows chain onto the last old row, salted where the old ones have no salt, and
    the two formats verify together; opening again makes no second backup."""
    path = tmp_path / "store.json"
    old = _old_format_store(path)
    last_old = list(old["ledger"].values())[-1]["hash"]
    new = make_row(
        post="t1_new",
        thread="t3_t",
        author="kara",
        tag_index=0,
        tag="void t1_p0",
        system="stepped",
        kind="void",
        draws=(),
        outcome={},
        recorded="2026-12-01T00:00:00+00:00",
    )
    with Store(path) as store:
        row = store.ledger.append(new)
    with Store(path) as store:
        assert (last_old, 6, True) == (
            row["prev"],
            len(store.ledger),
            verify(store.ledger, SECRET).ok,
        )
        assert [False] * 5 + [True] == ["salt" in row for row in store.ledger]
    assert 1 == len(list(tmp_path.glob("store.json.*.bak")))
