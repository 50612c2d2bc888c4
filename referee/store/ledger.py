"""The roll ledger: one row per resolved tag, chained by hash, checkable by anyone.

Each tag's dice come from ``HMAC(campaign secret, post fullname, tag index)``. A GM
publishes ``sha256(secret)`` before play starts, so the dice of every post are fixed
before anyone writes it. When the secret is revealed, :func:`verify` re-derives every
row's dice and checks them die for die. Each row also carries the hash of the row
before it, so a removed or altered row breaks the chain even before the reveal.

A row written since the ledger's second format also carries a ``salt``: 16 random
bytes in hex, covered by its hash. Every other field of a GM's secret roll can be
guessed (the author, a post id after the last public one, the tag, the second it was
recorded, each face of a die), so without the salt a public ledger's stub (a withheld
row's hash alone) could be matched by trying them all; with it, there are 2^128 more
guesses per row. A stub never holds the salt; a row shown holds it, so anyone
recomputes its hash. The salt of a secret roll (``"private": true``) also goes into
its dice (:func:`dice_for`), so revealing the campaign secret at the end does not
reveal the dice of secret rolls kept withheld. Rows without a salt (the first
format) verify as they always did: nothing in them is rewritten.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from referee.base.dice import Draw, HmacDice, commitment, replay_matches

GENESIS = "0" * 64  # the "previous hash" of the first row
WITHHELD = "withheld"  # a public ledger's stub for a row players may not see yet
_STUB_KEYS = frozenset({WITHHELD, "prev", "hash"})  # all a stub holds
SALT = "salt"  # the key of a row's random salt; a row without one is of the first format
SALT_BYTES = 16


def new_salt() -> str:
    """A fresh random salt for one row: 16 bytes from the operating system, in hex."""
    return secrets.token_hex(SALT_BYTES)


def dice_for(secret: bytes, post: str, tag_index: int, salt: str = "") -> HmacDice:
    """The dice of tag ``tag_index`` of ``post``; of a secret roll, given its ``salt``.

    A public roll's dice come from ``HMAC(secret, "post:index:block")``, so anyone with
    the revealed secret checks them by hand. A secret roll's come from
    ``HMAC(secret, "post:salt:index:block")``: the salt is in the row alone, so the
    revealed secret and a guessed post id are not enough to know them.

    >>> public = dice_for(b"s", "t4_a", 0).roll(20)
    >>> public == HmacDice(b"s", "t4_a", 0).roll(20)
    True
    >>> dice_for(b"s", "t4_a", 0, "00ff").roll(20) == HmacDice(b"s", "t4_a:00ff", 0).roll(20)
    True
    """
    return HmacDice(secret, f"{post}:{salt}" if salt else post, tag_index)


def roll_id(post_fullname: str, tag_index: int) -> str:
    """The short id a verdict ends with: the post's base-36 id and the tag's number.

    >>> roll_id("t1_kx9f2a", 0)
    'kx9f2a-1'
    """
    return f"{post_fullname.partition('_')[2] or post_fullname}-{tag_index + 1}"


def _canonical(row: Mapping[str, Any]) -> bytes:
    """The row without its hash as compact UTF-8 JSON with sorted keys.

    orjson writes exactly what ``json.dumps(row, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)`` does for ledger values, much faster; a verifier may use either.
    """
    body = {key: value for key, value in row.items() if key != "hash"}
    return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)


def row_hash(row: Mapping[str, Any]) -> str:
    """The sha256 of a row's canonical JSON, its own ``hash`` field left out."""
    return hashlib.sha256(_canonical(row)).hexdigest()


def make_row(
    *,
    post: str,
    thread: str,
    author: str,
    tag_index: int,
    tag: str,
    system: str,
    kind: str,
    draws: Sequence[Draw],
    outcome: Mapping[str, Any],
    recorded: str,
    system_version: str = "",
    salt: str | None = None,
) -> dict[str, Any]:
    """A ledger row, to be sealed by the store (``prev`` and ``hash``) when it is appended.

    ``system`` and ``system_version`` say which rules read the dice, so a ledger stays
    verifiable after a system changes. ``salt``: the one the row's dice were drawn
    with (a secret roll's, :func:`dice_for`); a fresh one when None.
    """
    row: dict[str, Any] = {
        "roll_id": roll_id(post, tag_index),
        "post": post,
        "thread": thread,
        "author": author,
        "tag_index": tag_index,
        "tag": tag,
        "system": system,
        **({"system_version": system_version} if system_version else {}),
        "kind": kind,
        "draws": [[draw.sides, draw.value] for draw in draws],
        "outcome": dict(outcome),
        "recorded": recorded,
        SALT: new_salt() if salt is None else salt,
    }
    return row


def seal(row: Mapping[str, Any], previous: str) -> dict[str, Any]:
    """A copy of ``row`` chained after the row whose hash is ``previous``, with its own hash.

    >>> sealed = seal({"roll_id": "a-1"}, GENESIS)
    >>> sealed["prev"] == GENESIS and sealed["hash"] == row_hash(sealed)
    True
    """
    return seal_line(row, previous)[0]


def seal_line(row: Mapping[str, Any], previous: str) -> tuple[dict[str, Any], bytes]:
    """:func:`seal`, and the sealed row as one JSON line for the journal.

    The line is the canonical JSON the hash covers with the hash added last, so a row
    is serialised once. Raises ``TypeError`` for a value JSON cannot hold.

    >>> sealed, line = seal_line({"roll_id": "a-1"}, GENESIS)
    >>> orjson.loads(line) == sealed
    True
    """
    sealed = dict(row)  # a copy made in C; a row sealed before loses its old hash
    sealed.pop("hash", None)
    sealed["prev"] = previous
    canonical = orjson.dumps(sealed, option=orjson.OPT_SORT_KEYS)
    sealed["hash"] = digest = hashlib.sha256(canonical).hexdigest()
    return sealed, b'%b,"hash":"%b"}\n' % (canonical[:-1], digest.encode())


@dataclass(frozen=True)
class Mismatch:
    """One ledger row that failed verification, and why."""

    roll_id: str
    reason: str


@dataclass(frozen=True)
class Report:
    """What :func:`verify` found."""

    rows: int
    dice_checked: int  # rows whose dice were re-derived (0 without a secret)
    mismatches: tuple[Mismatch, ...]
    commitment_ok: bool | None  # None when no commitment was published
    private: int = 0  # rows of secret rolls (left out of public views), checked like the rest
    withheld: int = 0  # a public ledger's stubs: their place in the chain checked, no more

    @property
    def ok(self) -> bool:
        return not self.mismatches and self.commitment_ok is not False


def verify(
    rows: Iterable[Any],
    secret: bytes | None,
    published_sha256: str | None = None,
    *,
    stubs: bool = False,
    previous: str = GENESIS,
) -> Report:
    """Check the chain and, given the revealed secret, every row's dice.

    ``stubs``: the rows are a public ledger's (:mod:`referee.store.export`), where a row
    players may not see yet is a stub of its ``prev`` and ``hash``: its link in the
    chain is checked, its content cannot be. Anywhere else a stub is a mismatch. A
    row that is not a JSON object (``None`` for a line that is not JSON) is one too.
    ``previous``: the hash of the row before the first of ``rows`` (the rest of a
    ledger whose start was checked before).

    >>> from referee.base.dice import RecordingDice
    >>> dice = RecordingDice(HmacDice(b"s", "t1_a", 0)); _ = dice.roll(6)
    >>> row = make_row(post="t1_a", thread="t3_t", author="kara", tag_index=0, tag="roll 1d6",
    ...     system="stepped", kind="dice", draws=dice.draws, outcome={}, recorded="")
    >>> row = seal(row, GENESIS)
    >>> verify([row], b"s").ok, verify([row], b"wrong").ok
    (True, False)
    """
    mismatches: list[Mismatch] = []
    count = checked = private = withheld = 0
    for row in rows:
        count += 1
        if not isinstance(row, Mapping):
            mismatches.append(Mismatch(f"row {count}", "it is not a JSON object: not a row"))
            previous = ""
            continue
        if WITHHELD in row:
            withheld += 1
            rid = f"row {count} (withheld)"
            if not stubs or set(row) != _STUB_KEYS:
                why = "a withheld row holds its hash alone" if stubs else "a stub in the ledger"
                mismatches.append(Mismatch(rid, why))
        else:
            if is_secret_roll(row):
                private += 1
            rid = str(row.get("roll_id", f"row {count}"))
        if row.get("prev") != previous:
            mismatches.append(
                Mismatch(rid, "the chain is broken: a row before it was removed or changed")
            )
        previous = str(row.get("hash"))
        if WITHHELD in row:
            continue
        if row.get("hash") != row_hash(row):
            mismatches.append(Mismatch(rid, "the row was altered after it was recorded"))
        if secret is not None:
            checked += 1
            if not _dice_follow(row, secret):
                mismatches.append(Mismatch(rid, "its dice do not follow from the secret"))
    commitment_ok = None
    if secret is not None and published_sha256:
        commitment_ok = commitment(secret) == published_sha256.strip().lower()
    return Report(count, checked, tuple(mismatches), commitment_ok, private, withheld)


def is_secret_roll(row: Mapping[str, Any]) -> bool:
    """Whether ``row`` is a GM's secret roll (marked so in its sealed outcome)."""
    outcome = row.get("outcome")
    return isinstance(outcome, Mapping) and bool(outcome.get("private"))


def _dice_follow(row: Mapping[str, Any], secret: bytes) -> bool:
    """Whether the row's dice are those its post and tag (and, for a salted secret roll,
    its salt) draw from ``secret``."""
    try:
        draws = [Draw(int(sides), int(value)) for sides, value in row.get("draws", [])]
        salt = row.get(SALT, "") if is_secret_roll(row) else ""
        if not isinstance(salt, str):
            return False
        source = dice_for(secret, str(row.get("post")), int(row.get("tag_index", -1)), salt)
        return replay_matches(source, draws)
    except (TypeError, ValueError, OverflowError):  # a row changed into nonsense
        return False
