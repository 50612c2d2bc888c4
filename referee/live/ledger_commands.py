"""The ledger's commands: ``referee verify`` (the store, or a public file) and ``export``.

``verify`` checks the campaign's own ledger (every batch of the journal, the rows'
chain and, with the secret, every die). ``export --public FILE`` writes the rows a
player may see (:mod:`referee.store.export`), the others withheld as stubs that keep the
chain; ``verify --ledger FILE`` checks such a file with the revealed secret, needing no
campaign at all. Both read the store beside a running bot. :mod:`referee.cli`
dispatches to these; they print for whoever runs them and return the exit code.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from referee.base.dice import commitment
from referee.base.errors import ConfigError
from referee.base.files import read_bounded
from referee.base.limits import DEFAULT_LIMITS
from referee.live.operate import reading
from referee.pipeline.campaign import find_config, load_config, load_secret
from referee.pipeline.new import commitment_mismatch
from referee.store.export import read_public, write_public
from referee.store.ledger import Report, verify
from referee.store.records import row_names
from referee.store.verified import check_store_whole
from referee.system.visibility import TABLE as VISIBILITY
from referee.system.visibility import hidden_keys

EXIT_OK, EXIT_MISMATCH = 0, 1
# Why a row is withheld from the public ledger, as the summary says it.
WITHHELD_WORDS = {
    "private": "made by a GM in private",
    "hidden": "of characters the GMs alone know",
}


def _secret_from(path: Path) -> bytes:
    """The revealed secret in ``path``: its bytes without the final newline."""
    try:
        cap = DEFAULT_LIMITS.max_secret_file_bytes
        return read_bounded(path, cap, "The secret file").strip()
    except OSError as exc:
        raise ConfigError(f"Cannot read the secret file {path}: {exc.strerror or exc}.") from exc


def _mismatches(report: Report) -> int:
    """The dice mismatches, and the commitment if the secret's sha256 is not the published."""
    return len(report.mismatches) + (report.commitment_ok is False)


def verify_command(args: argparse.Namespace) -> int:
    """``referee verify [--secret-file F] [--chain-only]``, or ``--ledger FILE``."""
    if args.ledger:
        return _verify_public(args)
    config = load_config(find_config(args.campaign))
    secret: bytes | None = None
    if args.secret_file:
        secret = _secret_from(args.secret_file)
    elif not args.chain_only:
        try:
            secret = load_secret(config).value
        except ConfigError as error:
            raise ConfigError(error.message + " Or run `referee verify --chain-only`.") from error
    with reading(args, config) as campaign:  # every batch against its commit line, every row
        checked = check_store_whole(
            campaign.store, secret, config.secret_sha256 or None, full=args.full
        )
    report, damage, since = checked.report, checked.damage, checked.since
    if damage:
        print(f"MISMATCH journal: {damage}")
    if secret is not None:
        print(f"secret sha256: {commitment(secret)}")
    if report.commitment_ok is False and secret is not None:
        print(commitment_mismatch(secret, config.secret_sha256, args.secret_file or config))
    for mismatch in report.mismatches:
        print(f"MISMATCH {mismatch.roll_id}: {mismatch.reason}")
    what = (
        f"{report.dice_checked} rows' dice re-derived" if secret else "dice not checked (no secret)"
    )
    private = f" ({report.private} of them private)" if report.private else ""
    print(
        f"{report.rows} ledger rows{private}: chain checked, {what}; "
        f"{'all consistent' if report.ok else f'{_mismatches(report)} mismatch(es)'}."
    )
    if since is not None:
        added = report.rows - since.rows
        print(
            f"The first {since.rows} rows are those found consistent at {since.checked_at} "
            f"(the journal's first {since.offset} bytes are unchanged: same sha256); "
            + (f"the {added} added since were checked now" if added else "none was added since")
            + ". `referee verify --full` checks every row again."
        )
    return EXIT_OK if report.ok and not damage else EXIT_MISMATCH


def _verify_public(args: argparse.Namespace) -> int:
    """``verify --ledger FILE``: a public ledger, checked with the revealed secret alone."""
    if args.secret_file is None and not args.chain_only:
        raise ConfigError(
            "Give the revealed secret with --secret-file FILE (the GM publishes it when the "
            "campaign ends), or --chain-only to check the chain alone before that."
        )
    secret = None if args.secret_file is None else _secret_from(args.secret_file)
    with read_public(args.ledger) as public:
        header = public.header
        published = str(header.get("secret_sha256") or "") or None
        report = verify(public.rows(), secret, published, stubs=True)
    claims = _claims(header, report)
    if secret is not None:
        named = f"the file says {published}" if published else "the file names none"
        print(
            f"secret sha256: {commitment(secret)} ({named}; compare with the sha256 the GM "
            "published before play)"
        )
        if report.commitment_ok is False and published:
            print(commitment_mismatch(secret, published, args.secret_file))
    for claim in claims:
        print(f"MISMATCH header: {claim}")
    for mismatch in report.mismatches:
        print(f"MISMATCH {mismatch.roll_id}: {mismatch.reason}")
    shown = report.rows - report.withheld
    dice = "their dice re-derived" if secret is not None else "dice not checked (no secret)"
    said = header.get("withheld")
    reasons: Mapping[str, Any] = said if isinstance(said, Mapping) else {}
    why = ", ".join(
        f"{count} {WITHHELD_WORDS.get(str(reason), str(reason))}"
        for reason, count in reasons.items()
    )
    bad = _mismatches(report) + len(claims)
    print(
        f"{report.rows} ledger rows: chain checked; {shown} shown, {dice}; "
        f"{report.withheld} withheld{f' ({why})' if why else ''}, in the chain by their "
        f"hashes; {'all consistent' if not bad else f'{bad} mismatch(es)'}."
    )
    return EXIT_OK if not bad else EXIT_MISMATCH


def _claims(header: Mapping[str, Any], report: Report) -> list[str]:
    """What the header says that the rows do not bear out (it is outside the chain)."""
    wrong = []
    reasons = header.get("withheld")
    counted = {
        "rows": report.rows,
        "shown": report.rows - report.withheld,
        "withheld": report.withheld,
    }
    said = {
        "rows": header.get("rows"),
        "shown": header.get("shown"),
        "withheld": sum(reasons.values()) if isinstance(reasons, Mapping) else reasons,
    }
    for key, count in counted.items():
        if said[key] != count:
            wrong.append(f"it says {said[key]} {key}, the file holds {count}")
    return wrong


def export(args: argparse.Namespace) -> int:
    """``referee export --public FILE [--with-private]``."""
    with reading(args) as campaign:
        store = campaign.store
        hidden = hidden_keys(store.table(VISIBILITY))
        with_private = args.with_private

        def withhold(row: Mapping[str, Any]) -> str | None:
            if with_private:
                return None
            outcome = row.get("outcome")
            if isinstance(outcome, Mapping) and outcome.get("private"):
                return "private"
            if hidden and hidden.intersection(row_names(row)):
                return "hidden"
            return None

        header = {
            "campaign": campaign.config.name[:200],
            "secret_sha256": campaign.config.secret_sha256,
            "last_hash": store.ledger.last_hash,
            "exported": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        done = write_public(args.public, store.ledger.lines(), withhold, header)
    withheld = sum(done.withheld.values())
    why = ", ".join(f"{count} {WITHHELD_WORDS[reason]}" for reason, count in done.withheld.items())
    print(
        f"Wrote {args.public}: {done.rows} ledger rows, {done.shown} a player may see"
        + (f", {withheld} withheld ({why}), each kept in the chain by its hash" if withheld else "")
        + "."
    )
    if done.unsalted:
        print(
            f"Note: {done.unsalted} withheld row(s) were recorded before rows had salts: "
            "what they hold can be found from their hashes by guessing (the author, the post, "
            "the tag, the time, the dice), and their dice from the post once the secret is "
            "revealed. Rows recorded since are salted (see docs/verification.md)."
        )
    print(
        f"Players check it with `referee verify --ledger {args.public.name} --secret-file "
        "revealed.txt` once you reveal the secret (`--chain-only` before)."
    )
    return EXIT_OK
