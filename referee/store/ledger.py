"""The roll ledger: one row per resolved tag, chained by hash, checkable by anyone.

Each tag's dice come from ``HMAC(campaign secret, post fullname, tag index)``. A GM
publishes ``sha256(secret)`` before play starts, so the dice of every post are fixed
before anyone writes it. When the secret is revealed, :func:`verify` re-derives every
row's dice and checks them die for die. Each row also carries the hash of the row
before it, so a removed or altered row breaks the chain even before the reveal.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from referee.base.dice import Draw, HmacDice, commitment, replay_matches

GENESIS = "0" * 64  # the "previous hash" of the first row
WITHHELD = "withheld"  # a public ledger's stub for a row players may not see yet
_STUB_KEYS = frozenset({WITHHELD, "prev", "hash"})  # all a stub holds


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
) -> dict[str, Any]:
    """A ledger row, to be sealed by the store (``prev`` and ``hash``) when it is appended.

    ``system`` and ``system_version`` say which rules read the dice, so a ledger stays
    verifiable after a system changes.
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
) -> Report:
    """Check the chain and, given the revealed secret, every row's dice.

    ``stubs``: the rows are a public ledger's (:mod:`referee.store.export`), where a row
    players may not see yet is a stub of its ``prev`` and ``hash``: its link in the
    chain is checked, its content cannot be. Anywhere else a stub is a mismatch. A
    row that is not a JSON object (``None`` for a line that is not JSON) is one too.

    >>> from referee.base.dice import RecordingDice
    >>> dice = RecordingDice(HmacDice(b"s", "t1_a", 0)); _ = dice.roll(6)
    >>> row = make_row(post="t1_a", thread="t3_t", author="kara", tag_index=0, tag="roll 1d6",
    ...     system="stepped", kind="dice", draws=dice.draws, outcome={}, recorded="")
    >>> row = seal(row, GENESIS)
    >>> verify([row], b"s").ok, verify([row], b"wrong").ok
    (True, False)
    """
    mismatches: list[Mismatch] = []
    previous = GENESIS
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
            outcome = row.get("outcome")
            if isinstance(outcome, Mapping) and outcome.get("private"):
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


def _dice_follow(row: Mapping[str, Any], secret: bytes) -> bool:
    """Whether the row's dice are those its post and tag draw from ``secret``."""
    try:
        draws = [Draw(int(sides), int(value)) for sides, value in row.get("draws", [])]
        source = HmacDice(secret, str(row.get("post")), int(row.get("tag_index", -1)))
        return replay_matches(source, draws)
    except (TypeError, ValueError, OverflowError):  # a row changed into nonsense
        return False
