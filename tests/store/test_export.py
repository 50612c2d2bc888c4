"""Tests for referee.store.export: a withheld row's stub reveals nothing of the row.

A GM's secret roll is withheld from the public ledger as a stub of its hash. Every
field of such a row can be guessed, so the tests try exactly what an attacker would
(the author, the post id after the last public one, the tag, its index, the second it
was recorded, each face of the d20) against the stub's hash: a row of the first format
(no salt) is found, a salted one is not. And once the campaign secret is revealed, a
secret roll's dice still do not follow from a guessed post id.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from referee.base.dice import Draw, HmacDice
from referee.base.errors import ConfigError
from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.store.export import HEADER_KEY, read_public, write_public
from referee.store.ledger import (
    GENESIS,
    SALT,
    WITHHELD,
    dice_for,
    is_secret_roll,
    make_row,
    row_hash,
    seal_line,
    verify,
)
from referee.testing import make_campaign, sheet

SECRET = b"campaign-secret"
BASE = datetime.fromisoformat("2026-11-22T20:00:00+00:00")


def _row(post: str, author: str, tag: str, sides: int, at: int, *, private: bool, salted: bool):
    """A row as the pipeline records it, ``at`` seconds after BASE; the first format's
    (no salt, dice from the post alone) unless ``salted``."""
    # Fixed, one per row, so the dice below are the same every run.
    salt = hashlib.sha256(post.encode()).hexdigest()[:32] if salted else ""
    dice = dice_for(SECRET, post, 0, salt if private else "")
    face = dice.roll(sides)
    row = make_row(
        post=post,
        thread=post if private else "t3_scene",
        author=author,
        tag_index=0,
        tag=tag,
        system="stepped",
        kind="dice",
        draws=dice.draws,
        outcome={"total": face, **({"private": True} if private else {})},
        recorded=(BASE + timedelta(seconds=at)).isoformat(),
        salt=salt or None,
    )
    if not salted:
        row.pop(SALT, None)
    return row


def _journal(*, salted: bool) -> list[bytes]:
    """Journal lines: two public rolls, the GM's secret d20 between them (its message the
    next id after the last public one), one more public roll."""
    rows = [
        _row("t1_k1", "alice", "roll 1d20", 20, 0, private=False, salted=salted),
        _row("t1_k2", "alice", "roll 2d6", 6, 30, private=False, salted=salted),
        _row("t4_k3", "gm", "roll 1d20", 20, 61, private=True, salted=salted),
        _row("t1_k4", "alice", "roll 1d20", 20, 90, private=False, salted=salted),
    ]
    lines, previous = [], GENESIS
    for row in rows:
        sealed, line = seal_line(row, previous)
        lines.append(line)
        previous = sealed["hash"]
    return lines


def _withhold_secret_rolls(row: Mapping[str, Any]) -> str | None:
    return "private" if is_secret_roll(row) else None


def _export(tmp_path: Path, lines: list[bytes], unsalted: int = 0) -> Path:
    """The public file of ``lines``; ``unsalted``: how many withheld rows have no salt."""
    path = tmp_path / "ledger.jsonl"
    done = write_public(path, lines, _withhold_secret_rolls, {"campaign": "Test"})
    assert (1, unsalted) == (sum(done.withheld.values()), done.unsalted)
    return path


def _guesses(stub: Mapping[str, Any], before: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Every row the secret roll might be, from the public file alone: a narrow but honest
    guess space (the attacker's own script would range wider)."""
    last_id = int(str(before["post"]).partition("_")[2], 36)
    when = datetime.fromisoformat(str(before["recorded"]))
    for author, ahead, tag, index, second, face in itertools.product(
        ("gm", "alice"),  # a GM, or the player who rolled before
        range(1, 3),  # the next post ids
        ("roll 1d20", "roll d20"),
        range(2),
        range(28, 34),  # about half a minute after the row before, give or take
        range(1, 21),  # every face of the d20
    ):
        post = "t4_" + _base36(last_id + ahead)
        guess = make_row(
            post=post,
            thread=post,
            author=author,
            tag_index=index,
            tag=tag,
            system=str(before["system"]),
            kind="dice",
            draws=[Draw(20, face)],
            outcome={"total": face, "private": True},
            recorded=(when + timedelta(seconds=second)).isoformat(),
        )
        guess.pop(SALT, None)  # the stub does not hold it: the attacker can only leave it out
        yield {**guess, "prev": stub["prev"]}


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while number:
        number, digit = divmod(number, 36)
        text = digits[digit] + text
    return text or "0"


def _brute_force(path: Path) -> list[dict[str, Any]]:
    """Each stub's row, where trying the guessable fields finds it."""
    found = []
    with read_public(path) as public:
        rows = list(public.rows())
    for place, stub in enumerate(rows):
        if WITHHELD not in stub:
            continue
        for guess in _guesses(stub, rows[place - 1]):
            if row_hash(guess) == stub["hash"]:
                found.append(guess)
                break
    return found


def test_a_guessable_secret_roll_is_found_from_an_unsalted_stub(tmp_path):
    """The attack works on the first format: the search finds the secret d20's row (so
    the same search finding nothing below means something)."""
    found = _brute_force(_export(tmp_path, _journal(salted=False), unsalted=1))
    assert [("t4_k3", "gm", "roll 1d20")] == [(f["post"], f["author"], f["tag"]) for f in found]


def test_a_salted_secret_roll_is_not_found_from_its_stub(tmp_path):
    """The same search over the same fields finds nothing once rows are salted, and the
    stub holds no salt (nor anything else but its place in the chain)."""
    path = _export(tmp_path, _journal(salted=True))
    assert [] == _brute_force(path)
    with read_public(path) as public:
        stubs = [row for row in public.rows() if WITHHELD in row]
    assert [{WITHHELD, "prev", "hash"}] == [set(stub) for stub in stubs]
    secret_salt = hashlib.sha256(b"t4_k3").hexdigest()[:32]
    assert secret_salt.encode() not in path.read_bytes()


def test_the_public_file_still_verifies_before_and_after_the_reveal(tmp_path):
    """The chain checks through the stub without a secret; the public rows' dice check
    with the revealed secret, as they did before salts (from the post alone)."""
    lines = _journal(salted=True)
    with read_public(_export(tmp_path, lines)) as public:
        rows = list(public.rows())
    before, after = verify(rows, None, stubs=True), verify(rows, SECRET, stubs=True)
    assert (True, 1, True, 3) == (before.ok, before.withheld, after.ok, after.dice_checked)
    shown = rows[0]
    assert shown[SALT] and shown["draws"] == [[20, HmacDice(SECRET, "t1_k1", 0).roll(20)]]


def test_after_the_reveal_a_guessed_post_id_does_not_give_a_secret_rolls_dice():
    """With the campaign secret and the right post id, an unsalted secret roll's dice are
    known; a salted one's are not, and they check only with the row's own salt."""
    secret_row = orjson.loads(_journal(salted=True)[2])
    guessed = HmacDice(SECRET, "t4_k3", 0)
    assert [[20, guessed.roll(20)]] != secret_row["draws"]  # a fixed salt: not by chance
    assert verify([secret_row], SECRET, previous=secret_row["prev"]).ok
    old = orjson.loads(_journal(salted=False)[2])
    assert [[20, HmacDice(SECRET, "t4_k3", 0).roll(20)]] == old["draws"]


def test_a_revealed_row_checks_with_its_salt_and_fails_without_it(tmp_path):
    """The GM reveals the secret rolls (every row shown): each holds its salt and checks;
    a salt changed or taken out breaks the row's hash."""
    lines = _journal(salted=True)
    path = tmp_path / "all.jsonl"
    write_public(path, lines, lambda row: None, {"campaign": "Test"})
    with read_public(path) as public:
        rows = list(public.rows())
    assert verify(rows, SECRET, stubs=True).ok
    changed = [*rows[:2], {**rows[2], SALT: "cd" * 16}, rows[3]]
    bare = [*rows[:2], {k: v for k, v in rows[2].items() if k != SALT}, rows[3]]
    for broken in (changed, bare):
        reasons = {m.reason for m in verify(broken, SECRET, stubs=True).mismatches}
        assert "the row was altered after it was recorded" in reasons


def test_rows_of_the_first_format_and_their_files_still_verify(tmp_path):
    """An old ledger (no salts, an unsalted secret roll) verifies with its secret, and a
    public file of format 1 still opens."""
    lines = _journal(salted=False)
    path = _export(tmp_path, lines, unsalted=1)  # the GM is told these stubs can be matched
    text = path.read_bytes().replace(f'"{HEADER_KEY}":2'.encode(), f'"{HEADER_KEY}":1'.encode())
    path.write_bytes(text)
    with read_public(path) as public:
        assert 1 == public.header[HEADER_KEY]
        assert verify(public.rows(), SECRET, stubs=True).ok
    assert verify([orjson.loads(line) for line in lines], SECRET).ok


def test_a_file_of_a_newer_format_is_refused_saying_so(tmp_path):
    """A file written by a later referee is refused with what to do, not misread."""
    path = _export(tmp_path, _journal(salted=True))
    text = path.read_bytes().replace(f'"{HEADER_KEY}":2'.encode(), f'"{HEADER_KEY}":9'.encode())
    path.write_bytes(text)
    with pytest.raises(ConfigError, match="format 9; this referee reads formats up to 2"):
        read_public(path)


def test_the_pipeline_salts_a_secret_rolls_dice_and_not_a_public_ones(tmp_path):
    """Through the referee itself: a player's roll keeps the dice players check by hand;
    a GM's secret roll draws with its row's salt, and both verify with the secret."""
    opened = make_campaign(tmp_path / "c", [sheet("Kara", owner="alice")], secret=SECRET)
    referee = Referee(opened, gms=["gm"])
    referee.referee(Post("t1_k1", "t3_s", "alice", "[[roll 4d20]]", 1.0))
    referee.referee(Post("t4_m1", "t4_m1", "gm", "[[roll 4d20]]", 2.0), private=True)
    public_row, secret_row = list(opened.store.ledger)
    opened.close()
    by_post = HmacDice(SECRET, "t1_k1", 0)
    assert public_row["draws"] == [[20, by_post.roll(20)] for _ in range(4)]
    unsalted = HmacDice(SECRET, "t4_m1", 0)
    assert secret_row["draws"] != [[20, unsalted.roll(20)] for _ in range(4)]
    salted = dice_for(SECRET, "t4_m1", 0, secret_row[SALT])
    assert secret_row["draws"] == [[20, salted.roll(20)] for _ in range(4)]
    assert public_row[SALT] != secret_row[SALT]
    assert verify([public_row, secret_row], SECRET).ok
