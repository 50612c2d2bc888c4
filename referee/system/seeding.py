"""Seeding a new store from the sheets a campaign ships (its data folder's ``characters.toml``).

:func:`seed_table` reads one sheets file into one store table, each sheet checked by the
system's own sheet format, every refusal reported at once; :func:`seed_characters` is
the usual call, the default :meth:`~referee.system.BaseSystem.seed_store`. A system that
ships more (stepped's vehicles) calls :func:`seed_table` once per file.

May import: :mod:`referee.store` and :mod:`referee.base` only.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from referee.base.errors import ConfigError, UserError
from referee.base.files import read_text_bounded
from referee.base.limits import DEFAULT_LIMITS
from referee.store.entries import character_key, store_entry
from referee.store.store import Store
from referee.system.roster import SheetFormat

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CHARACTERS_FILE = "characters.toml"  # the sheets a campaign's data folder ships

SHEETS_READ = "sheets_read"  # store table: "table:name" -> the sha256 of the sheet as read


def seed_table(
    store: Store,
    path: Path,
    section: str,
    table_name: str,
    read: Callable[[Mapping[str, Any]], Any],
    write: Callable[[Any], dict[str, Any]],
    check: Callable[[Any, Mapping[str, Any]], list[str]],
) -> None:
    """Read ``path``'s ``[[section]]`` sheets into a store table (a system's seeding).

    ``read`` turns a sheet into the system's value (raising UserError), ``check`` lists
    what the rules refuse, ``write`` gives the stored sheet. Every refused sheet is
    reported at once. A sheet is read once: after that the store is its truth (wounds,
    approvals), so a sheet added to the file later is read on the next run, and one
    changed in the file after it was read is refused (ConfigError saying what to do)
    rather than ignored. ``owner`` and ``approved`` are the campaign's, not the sheet's.
    """
    table = store.table(table_name)
    if not path.is_file():
        return
    records = _read_toml(path).get(section, [])
    if not isinstance(records, list):
        raise ConfigError(f"{path}: write each sheet as a [[{section}]] table.")
    read_before = store.table(SHEETS_READ)
    # A store seeded before sheets were tracked: what its file holds now counts as read.
    untracked = len(table) > 0 and not any(
        key.startswith(f"{table_name}:") for key, _ in read_before.items()
    )
    problems: list[str] = []
    changed: list[str] = []
    for record in records:
        name = str(record.get("name", "?"))
        key = f"{table_name}:{character_key(name)}"
        digest = hashlib.sha256(json.dumps(record, sort_keys=True, default=str).encode())
        seen = {"sha256": digest.hexdigest()}
        known = read_before.get(key)
        if known is not None:  # read once: renamed, removed or changed in play since
            if known != seen:
                changed.append(name)
            continue
        if untracked or character_key(name) in table:  # or made in play, by [[apply]]
            read_before.put(key, seen)
            continue
        try:
            sheet = read({k: v for k, v in record.items() if k not in ("owner", "approved")})
        except UserError as error:
            problems.append(f"{name}: {error.message}")
            continue
        issues = check(sheet, record)
        if issues:
            problems.append(f"{sheet.name}: " + " ".join(issues))
            continue
        approved = bool(record.get("approved", True))
        entry = store_entry(sheet.name, record.get("owner"), approved, write(sheet))
        table.put(character_key(sheet.name), entry)
        read_before.put(f"{table_name}:{character_key(sheet.name)}", seen)
    if problems:
        raise ConfigError(f"{path} has sheets the rules refuse:\n- " + "\n- ".join(problems))
    if changed:
        raise ConfigError(
            f"{path}: the sheet of {', '.join(changed)} changed after it was read into the "
            "store, which keeps the character's state since (wounds, approvals, a GM's "
            "amendments), so the change is not taken. Put that sheet back as it was and make "
            "the change in play (a GM's [[approve with ...]], [[wound]], [[heal]]), or give "
            "the new sheet a new name: a sheet added to the file is read on the next run."
        )
    store.flush()


def seed_characters(sheet: SheetFormat, data_dir: Path, rules: Any, store: Store) -> None:
    """The ``[[character]]`` sheets of ``data_dir``'s characters.toml, each read into the
    store once: read by ``sheet.from_record``, checked by ``sheet.validate``."""
    seed_table(
        store,
        data_dir / CHARACTERS_FILE,
        "character",
        "characters",
        sheet.from_record,
        sheet.to_record,
        lambda character, record: sheet.validate(character, rules),
    )


def _read_toml(path: Path) -> dict[str, Any]:
    """A sheets file, read within its cap (a device or a huge file is refused)."""
    try:
        text = read_text_bounded(path, DEFAULT_LIMITS.max_table_file_bytes, "The table")
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}.") from error
