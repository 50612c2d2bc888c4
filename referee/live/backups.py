"""``referee backup OUT`` and ``referee restore BACKUP``: a campaign in one file, and back.

A backup is a gzipped tar archive::

    referee-backup.json   what it holds: each file's sha256, and the store's rows and head
    config.toml
    data/...              the data folder: sheets, tables, requests waiting, and the store
                          as one consistent state (referee.store.backup), even while the
                          bot writes it
    templates/...         the campaign's own templates, when its templates_dir is in its folder

It never holds the secret (its file is left out wherever it lies), ``praw.ini``, the
writer's lock or its heartbeat: keep the secret and the credentials apart.

``restore`` treats the archive as hostile and checks it before it writes anything. A
first read writes nothing: every member's header before its bytes (plain files and
folders under plain names only: no link, device, FIFO, absolute or ``..`` name, hidden
or temporary file, nor a name twice), every byte counted against
:class:`~referee.base.limits.BackupLimits` as it unpacks (so a bomb stops at the cap
whatever its headers claim), every file against its sha256, and the archive's
config.toml checked as the campaign's would be, with every path it names inside the
campaign folder. Each file's destination must lie inside the folder too, and never on
the secret, the config or the store from elsewhere. What matters that the archive
changes (GMs, the secret's sha256 and file, subreddits and threads, where the bot logs
in, wiki pages, data paths, templates and shell requests brought in) is listed and
applied only with ``--yes``.

Then a second read puts the files into a staging folder of the campaign's (it must
find the same), where the store is checked whole (the sheets file and the index
against the journal, every batch against its commit line, the ledger's chain, and the
row count and head the backup recorded). Only then does it move the files in; a file
it would replace is first moved, as it was, into ``replaced-<time>/`` in the campaign
folder, and a file already the same is left alone; the output says where each went.
It refuses while a bot runs on the campaign. If it is cut short, running it again
finishes the job. Last it marks the moment (:func:`referee.live.status.restored_path`):
the threads may have moved on since the backup, so the bot looks for its own reply
below any post written before then before answering it.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from referee.base.errors import ConfigError, StoreError
from referee.base.limits import DEFAULT_BACKUP_LIMITS
from referee.live.backup_checks import (
    FORMAT,
    MANIFEST,
    Placed,
    Scan,
    archive_config,
    brought_in,
    changes,
    current_config,
    inside,
    path_problems,
    place,
    placement_problem,
    plain,
    read_archive,
    sha256,
)
from referee.live.status import restored_path
from referee.pipeline.campaign import (
    CONFIG_NAME,
    STORE_NAME,
    Config,
    find_config,
    load_config,
)
from referee.store.backup import StoreCheck, check_store, copy_store, store_files
from referee.store.store import writer_running
from referee.store.tinyfile import atomic_write

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover - Python 3.10
    pass

EXIT_OK = 0
EXIT_CONFIRM = 1  # restore found changes that matter and was not given --yes
BACKUP_LIMITS = DEFAULT_BACKUP_LIMITS  # the caps restore reads (a test may lower them)


def _left_out(path: Path, relative: Path, config: Config) -> bool:
    """Whether a file of the data folder (``relative`` to it) stays out of a backup:
    transient, or the secret."""
    name = path.name
    return (
        name.startswith(".")  # temp files mid-write
        or name.endswith((".lock", ".tmp", ".bak"))
        or name == config.store_path.stem + ".status.json"  # the heartbeat
        or name == config.store_path.stem + ".verified.json"  # verify's note: a cache
        or ".torn-" in name
        or (config.secret_file is not None and path.resolve() == config.secret_file.resolve())
        or name == "praw.ini"
        or any(part.startswith(("replaced-", ".referee-")) for part in relative.parts)
    )


def _files(folder: Path) -> Iterator[Path]:
    if folder.is_dir():
        yield from sorted(path for path in folder.rglob("*") if path.is_file())


# -- backup -----------------------------------------------------------------------------


def backup(args: argparse.Namespace) -> int:
    """``referee backup OUT``: the campaign as one archive, the store consistent."""
    config = load_config(find_config(args.campaign))
    out = _out_path(Path(args.out), config)
    store_names = {path.name for path in store_files(config.store_path)}
    with tempfile.TemporaryDirectory(prefix=".referee-backup-", dir=out.parent) as tmp:
        staged = Path(tmp)
        check: StoreCheck | None = None
        members: list[tuple[str, Path]] = [(CONFIG_NAME, config.path)]
        if any((config.data_dir / name).exists() for name in store_names):
            check = copy_store(config.store_path, staged)
            members += [(f"data/{p.name}", p) for p in sorted(staged.iterdir())]
        for path in _files(config.data_dir):
            relative = path.relative_to(config.data_dir)
            if relative.as_posix() not in store_names and not _left_out(path, relative, config):
                members.append((f"data/{relative.as_posix()}", path))
        templates = inside(config.templates_dir, config.root)
        if templates is not None:
            for path in _files(config.templates_dir):
                members.append(
                    (f"templates/{path.relative_to(config.templates_dir).as_posix()}", path)
                )
        _write_archive(out, members, config, check)
    rows = f"the store with {check.rows} ledger rows (checked)" if check else "no store yet"
    print(f"Wrote {out}: {len(members)} files, {rows}. The secret is not in it: keep it apart.")
    return EXIT_OK


def _out_path(out: Path, config: Config) -> Path:
    """The archive to write: OUT, or a stamped name in OUT when it is a folder."""
    if out.is_dir():
        slug = "-".join("".join(c if c.isalnum() else " " for c in config.name.lower()).split())
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        out = out / f"{slug[:60] or 'campaign'}-{stamp}.tar.gz"
    if out.exists():
        raise ConfigError(f"{out} exists; give the backup another name (nothing was written).")
    if not out.parent.is_dir():
        raise ConfigError(f"The folder {out.parent} does not exist; make it first.")
    return out


def _write_archive(
    out: Path, members: list[tuple[str, Path]], config: Config, check: StoreCheck | None
) -> None:
    manifest = {
        "format": FORMAT,
        "campaign": config.name,
        "made": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "files": {name: sha256(path) for name, path in members},
        "store": None
        if check is None
        else {
            "rows": check.rows,
            "last_hash": check.last_hash,
            "journal_bytes": check.journal_bytes,
        },
    }
    temp = out.with_name(f".{out.name}.tmp")
    try:
        os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # private
        with tarfile.open(temp, "w:gz") as archive:
            data = orjson.dumps(manifest, option=orjson.OPT_INDENT_2)
            info = tarfile.TarInfo(MANIFEST)
            info.size, info.mtime, info.mode = len(data), int(time.time()), 0o600
            archive.addfile(info, io.BytesIO(data))
            for name, path in members:
                info = archive.gettarinfo(str(path), arcname=name)
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.mode = 0o600
                with open(path, "rb") as handle:
                    archive.addfile(info, handle)
        with open(temp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temp, out)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


# -- restore ----------------------------------------------------------------------------


def restore(args: argparse.Namespace) -> int:
    """``referee restore BACKUP [--yes]``: check it all before writing anything, show what
    it changes that matters (and apply that only with --yes), then put it in place,
    keeping what it replaces."""
    limits = BACKUP_LIMITS
    target = _target(args.campaign)
    archive = Path(args.backup)
    scan = read_archive(archive, limits, target, None)  # writes nothing
    current = current_config(target)
    config = archive_config(scan.config_text, archive, target)
    problems = path_problems(scan.config_text, config, current, target)
    placed = place(scan, config, target)
    problems += [
        why for why in (placement_problem(p, config, current, target) for p in placed) if why
    ]
    if problems:
        raise ConfigError(
            f"{archive} cannot be restored into {target}: a restore writes only inside "
            "the campaign folder, and never over what it must not:\n- "
            + "\n- ".join(problems)
            + "\nNothing was written."
        )
    matters = changes(current, config, target) + brought_in(placed, config)
    if matters and not getattr(args, "yes", False):
        print(f"{plain(str(archive))} changes what matters in {target}:")
        print("".join(f"  - {line}\n" for line in matters), end="")
        print("Nothing was written: read the list, then run again with --yes to apply.")
        return EXIT_CONFIRM
    for data_dir in {config.data_dir, *([current.data_dir] if current else [])}:
        if writer_running(data_dir / STORE_NAME):
            raise ConfigError(
                f"A bot is running on the campaign in {target}; stop it first (a restore "
                "replaces the store it is writing). Nothing was written."
            )
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    staging = target / f".referee-restore-{stamp}"
    kept_in = target / f"replaced-{stamp}"
    new_folder = not target.exists()
    try:
        target.mkdir(parents=True, exist_ok=True)
        staging.mkdir(mode=0o700)
        if read_archive(archive, limits, target, staging) != scan:
            raise ConfigError(f"{archive} changed while it was read. Nothing was written.")
        check = _check_staged_store(staging / "data", scan.manifest)
        everything = {p.destination for p in placed}
        kept = _put(_plan(placed, staging), kept_in, config.data_dir, everything)
        made = scan.manifest.get("made", "?")
        mark = {"restored_at": time.time(), "backup": str(archive), "made": made}
        atomic_write(restored_path(config.data_dir / STORE_NAME), orjson.dumps(mark))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if new_folder and target.is_dir() and not any(target.iterdir()):
            target.rmdir()  # refused after all: the folder it made goes too
    _report(scan, archive, target, placed, check, kept, kept_in)
    if matters:
        print("What changed that matters:")
        print("".join(f"  - {line}\n" for line in matters), end="")
    print(
        "A backup never holds the secret: put it back (the file or the environment variable "
        "config.toml names), then `referee verify` checks every die."
    )
    return EXIT_OK


def _report(
    scan: Scan,
    archive: Path,
    target: Path,
    placed: list[Placed],
    check: StoreCheck | None,
    kept: dict[str, Path],
    kept_in: Path,
) -> None:
    """Where every file went: new, replaced (and where the old one is kept) or left alone."""
    rows = f"the store with {check.rows} ledger rows, chain checked" if check else "no store"
    print(
        f"Restored {plain(str(scan.manifest.get('campaign', '?')))} from {archive} (made "
        f"{plain(str(scan.manifest.get('made', '?')))}) into {target}: {len(placed)} files, "
        f"{rows}."
    )
    for item in placed:
        if item.state == "unchanged":
            how = "already the same, left alone"
        elif item.name in kept:
            how = f"replaced; the old one is kept as {kept[item.name]}"
        else:
            how = "new"
        print(f"  {item.name} -> {item.destination} ({how})")
    aside = [path for name, path in kept.items() if name not in {p.name for p in placed}]
    for path in aside:
        print(f"  (not in the backup, moved aside) {path}")
    if kept:
        print(f"The {len(kept)} file(s) it replaced are kept in {kept_in}.")


def _target(campaign: Path | None) -> Path:
    """The campaign folder to restore into: --campaign, the one found here, or here if empty."""
    if campaign is not None:
        return campaign.resolve()
    try:
        return find_config(None).parent
    except ConfigError:
        here = Path.cwd()
        if any(here.iterdir()):
            raise ConfigError(
                f"No campaign here, and {here} is not empty: give the folder to restore into "
                "with `referee --campaign DIR restore BACKUP` (a new or empty one, or a campaign)."
            ) from None
        return here.resolve()


# -- checking the staged store and putting the files in place ---------------------------


def _check_staged_store(data: Path, manifest: Mapping[str, Any]) -> StoreCheck | None:
    """The backup's store, checked whole and against what the backup recorded."""
    recorded = manifest.get("store")
    if recorded is None:
        return None
    if not isinstance(recorded, dict):
        raise ConfigError(f"The backup's {MANIFEST} is damaged (its store). Nothing was written.")
    try:
        check = check_store(data / STORE_NAME)
    except StoreError as error:
        raise ConfigError(
            f"The store in the backup does not check out: {error.message} Nothing was written."
        ) from error
    if (check.rows, check.last_hash) != (recorded.get("rows"), recorded.get("last_hash")):
        raise ConfigError(
            f"The store in the backup holds {check.rows} ledger rows ending in "
            f"{check.last_hash[:12]}…, not the {recorded.get('rows')} the backup recorded. "
            "Nothing was written."
        )
    return check


def _plan(placed: list[Placed], staging: Path) -> list[tuple[str, Path, Path]]:
    """(archive name, staged file, destination) for every file that is not already
    the same, the store's last (journal before the sheets file and the index, which
    describe it)."""
    plan = [(p.name, staging / p.name, p.destination) for p in placed if p.state != "unchanged"]
    order = [f"data/{path.name}" for path in reversed(store_files(Path(STORE_NAME)))]
    return sorted(plan, key=lambda item: order.index(item[0]) + 1 if item[0] in order else 0)


def _put(
    plan: list[tuple[str, Path, Path]], kept: Path, data: Path, in_backup: set[Path]
) -> dict[str, Path]:
    """Move the staged files into place; what they replace goes into ``kept`` first,
    as do the store's own files the backup does not have (``in_backup``: where every
    file of the backup goes). Returns the archive name of each file put aside, and
    where it is kept."""
    moved: dict[str, Path] = {}
    store_like = [
        *store_files(data / STORE_NAME),
        *_files(data / (Path(STORE_NAME).stem + ".requests")),
    ]
    for stale in store_like:  # the store's own files the backup does not have: aside
        if stale.exists() and stale not in in_backup:
            name = f"data/{stale.relative_to(data).as_posix()}"
            moved[name] = _keep(stale, kept / name)
    for name, staged, destination in plan:
        if destination.exists():
            if sha256(destination) == sha256(staged):
                continue
            moved[name] = _keep(destination, kept / name)
        destination.parent.mkdir(parents=True, exist_ok=True)
        temp = destination.with_name(f".{destination.name}.restore")
        temp.unlink(missing_ok=True)  # left by a restore cut short
        with (
            open(staged, "rb") as source,
            os.fdopen(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out,
        ):
            shutil.copyfileobj(source, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, destination)
    return moved


def _keep(path: Path, copy: Path) -> Path:
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(path), str(copy))
    return copy
