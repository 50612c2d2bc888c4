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

``restore`` checks everything before it writes anything: the archive's names (no path
leaves the campaign), every file against its sha256, and the store whole (the sheets
file and the index against the journal, every batch against its commit line, the
ledger's chain, and the row count and head the backup recorded). Only then does it
move the files in; a file it would replace is first moved, as it was, into
``replaced-<time>/`` in the campaign folder, and a file already the same is left alone.
It refuses while a bot runs on the campaign. If it is cut short, running it again
finishes the job. Last it marks the moment (:func:`referee.live.status.restored_path`):
the threads may have moved on since the backup, so the bot looks for its own reply
below any post written before then before answering it.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import shutil
import tarfile
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

import orjson

from referee.base.errors import ConfigError, StoreError
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

MANIFEST = "referee-backup.json"
FORMAT = 1
MAX_MEMBERS = 100_000  # files an archive may hold: a campaign has a few dozen
MAX_NAME = 400  # characters of one name in the archive
EXIT_OK = 0


def _left_out(path: Path, relative: Path, config: Config) -> bool:
    """Whether a file of the data folder (``relative`` to it) stays out of a backup:
    transient, or the secret."""
    name = path.name
    return (
        name.startswith(".")  # temp files mid-write
        or name.endswith((".lock", ".tmp", ".bak"))
        or name == config.store_path.stem + ".status.json"  # the heartbeat
        or ".torn-" in name
        or (config.secret_file is not None and path.resolve() == config.secret_file.resolve())
        or name == "praw.ini"
        or any(part.startswith(("replaced-", ".referee-")) for part in relative.parts)
    )


def _files(folder: Path) -> Iterator[Path]:
    if folder.is_dir():
        yield from sorted(path for path in folder.rglob("*") if path.is_file())


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _inside(path: Path, folder: Path) -> Path | None:
    """``path`` relative to ``folder`` if it lies inside it, else None."""
    try:
        return path.resolve().relative_to(folder.resolve())
    except ValueError:
        return None


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
        templates = _inside(config.templates_dir, config.root)
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
        "files": {name: _sha256(path) for name, path in members},
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
    """``referee restore BACKUP``: check it all, then put it in place, keeping what it replaces."""
    target = _target(args.campaign)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    staging = target / f".referee-restore-{stamp}"
    try:
        staging.mkdir(parents=True)
        manifest = _extract(Path(args.backup), staging)
        staged = load_config(staging / CONFIG_NAME)
        data = _destination(staged.data_dir, staging, target)
        templates = _destination(staged.templates_dir, staging, target)
        if writer_running(data / STORE_NAME):
            raise ConfigError(
                f"A bot is running on the campaign in {target}; stop it first (a restore "
                "replaces the store it is writing). Nothing was written."
            )
        check = _check_staged_store(staging / "data", manifest)
        plan = _plan(manifest, staging, target, data, templates)
        kept = _put(plan, target / f"replaced-{stamp}", data)
        mark = {"restored_at": time.time(), "backup": str(args.backup), "made": manifest["made"]}
        atomic_write(restored_path(data / STORE_NAME), orjson.dumps(mark))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    rows = f"the store with {check.rows} ledger rows, chain checked" if check else "no store"
    print(
        f"Restored {manifest.get('campaign', '?')} from {args.backup} (made "
        f"{manifest.get('made', '?')}) into {target}: {len(plan)} files, {rows}."
    )
    if kept:
        print(f"The {kept} file(s) it replaced are kept in {target / f'replaced-{stamp}'}.")
    print(
        "A backup never holds the secret: put it back (the file or the environment variable "
        "config.toml names), then `referee verify` checks every die."
    )
    return EXIT_OK


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
        return here


def _destination(path: Path, staging: Path, target: Path) -> Path:
    """Where a folder the staged config.toml names lies once restored."""
    inside = _inside(path, staging)
    return path if inside is None else target / inside


def _safe_name(name: str) -> bool:
    pure = PurePosixPath(name)
    return (
        0 < len(name) <= MAX_NAME
        and not pure.is_absolute()
        and ".." not in pure.parts
        and "\\" not in name
        and (pure.parts[0] in ("data", "templates") or name in (CONFIG_NAME, MANIFEST))
    )


def _extract(archive_path: Path, staging: Path) -> dict[str, Any]:
    """Unpack the archive into ``staging``, checking its names and every file's sha256."""

    def refuse(why: str) -> ConfigError:
        return ConfigError(f"{archive_path} {why}. Nothing was written.")

    try:
        archive = tarfile.open(archive_path, "r:gz")  # noqa: SIM115 - closed below
    except (OSError, tarfile.TarError) as exc:
        raise refuse(f"is not a referee backup (a .tar.gz): {exc}") from exc
    digests: dict[str, str] = {}
    manifest: dict[str, Any] | None = None
    with archive:
        for count, member in enumerate(archive, start=1):
            if count > MAX_MEMBERS or not _safe_name(member.name):
                raise refuse(f"holds {member.name[:80]!r}, which a backup never does")
            if member.isdir():
                continue
            if not member.isfile():
                raise refuse(f"holds {member.name!r}, which is not a plain file")
            source = archive.extractfile(member)
            assert source is not None
            if member.name == MANIFEST:
                manifest = orjson.loads(source.read(1 << 24))
                continue
            path = staging / member.name
            path.parent.mkdir(parents=True, exist_ok=True)
            digest = hashlib.sha256()
            with open(path, "wb") as out:
                while chunk := source.read(1 << 20):
                    digest.update(chunk)
                    out.write(chunk)
            digests[member.name] = digest.hexdigest()
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise refuse(f"has no {MANIFEST} of this version: it is not a referee backup")
    if digests != manifest.get("files"):
        changed = sorted(set(digests.items()) ^ set((manifest.get("files") or {}).items()))
        raise refuse(
            "does not match its own list of files (changed or missing: "
            f"{', '.join(sorted({name for name, _ in changed})[:5])})"
        )
    if CONFIG_NAME not in digests:
        raise refuse(f"holds no {CONFIG_NAME}")
    return manifest


def _check_staged_store(data: Path, manifest: dict[str, Any]) -> StoreCheck | None:
    """The backup's store, checked whole and against what the backup recorded."""
    recorded = manifest.get("store")
    if recorded is None:
        return None
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


def _plan(
    manifest: dict[str, Any], staging: Path, target: Path, data: Path, templates: Path
) -> list[tuple[str, Path, Path]]:
    """(archive name, staged file, destination) for every file, the store's last
    (journal before the sheets file and the index, which describe it)."""
    roots = {"data": data, "templates": templates}
    plan = []
    for name in manifest["files"]:
        top, _, rest = name.partition("/")
        destination = target / CONFIG_NAME if name == CONFIG_NAME else roots[top] / rest
        plan.append((name, staging / name, destination))
    order = [f"data/{path.name}" for path in reversed(store_files(Path(STORE_NAME)))]
    return sorted(plan, key=lambda item: order.index(item[0]) + 1 if item[0] in order else 0)


def _put(plan: list[tuple[str, Path, Path]], kept: Path, data: Path) -> int:
    """Move the staged files into place; what they replace goes into ``kept`` first."""
    moved = 0
    in_backup = {destination for _, _, destination in plan}
    store_like = [
        *store_files(data / STORE_NAME),
        *_files(data / (Path(STORE_NAME).stem + ".requests")),
    ]
    for stale in store_like:  # the store's own files the backup does not have: aside
        if stale.exists() and stale not in in_backup:
            _keep(stale, kept / "data" / stale.relative_to(data))
            moved += 1
    for name, staged, destination in plan:
        if destination.exists():
            if _sha256(destination) == _sha256(staged):
                continue
            _keep(destination, kept / name)
            moved += 1
        destination.parent.mkdir(parents=True, exist_ok=True)
        temp = destination.with_name(f".{destination.name}.restore")
        shutil.copyfile(staged, temp)
        with open(temp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temp, destination)
    return moved


def _keep(path: Path, copy: Path) -> None:
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(path), str(copy))
