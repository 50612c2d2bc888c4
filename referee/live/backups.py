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
import gzip
import hashlib
import io
import os
import shutil
import stat
import sys
import tarfile
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import IO, Any

import orjson

from referee.base.errors import ConfigError, StoreError
from referee.base.limits import DEFAULT_BACKUP_LIMITS, BackupLimits
from referee.live.status import restored_path
from referee.pipeline.campaign import (
    CONFIG_NAME,
    STORE_NAME,
    Config,
    find_config,
    load_config,
    parse_config,
)
from referee.store.backup import StoreCheck, check_store, copy_store, store_files
from referee.store.store import writer_running
from referee.store.tinyfile import atomic_write

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MANIFEST = "referee-backup.json"
FORMAT = 1
MAX_NAME = 400  # characters of one name in the archive
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

GZIP_MAGIC = b"\x1f\x8b"
_SMALL = 1 << 24  # the manifest and config.toml are read whole: 16 MiB at most
_PLAIN_TYPES = (tarfile.REGTYPE, tarfile.AREGTYPE)
# The config.toml keys naming a path: where load_config puts it, and its usual value.
_PATH_KEYS = (
    ("campaign", "data_dir", "data_dir", "data"),
    ("campaign", "templates_dir", "templates_dir", "templates"),
    ("campaign", "races", "races_file", "data/races.toml"),
    ("campaign", "scale", "scale_file", "data/scale.toml"),
    ("secret", "file", "secret_file", "secret.txt"),
)


@dataclass(frozen=True)
class _Scan:
    """What one read of an archive found: its manifest, the bytes of its config.toml
    and every plain file's sha256, all checked."""

    manifest: Mapping[str, Any]
    config_text: str
    digests: Mapping[str, str]


@dataclass(frozen=True)
class _Placed:
    """One file of the archive and where it goes in the campaign folder."""

    name: str  # in the archive
    destination: Path
    state: str  # "new", "changed" or "unchanged"
    template: bool  # it lands in the templates folder: templates run at every verdict


def restore(args: argparse.Namespace) -> int:
    """``referee restore BACKUP [--yes]``: check it all before writing anything, show what
    it changes that matters (and apply that only with --yes), then put it in place,
    keeping what it replaces."""
    limits = BACKUP_LIMITS
    target = _target(args.campaign)
    archive = Path(args.backup)
    scan = _read_archive(archive, limits, target, None)  # writes nothing
    current = _current_config(target)
    config = _archive_config(scan.config_text, archive, target)
    problems = _path_problems(scan.config_text, config, current, target)
    placed = _place(scan, config, target)
    problems += [
        why for why in (_placement_problem(p, config, current, target) for p in placed) if why
    ]
    if problems:
        raise ConfigError(
            f"{archive} cannot be restored into {target}: a restore writes only inside "
            "the campaign folder, and never over what it must not:\n- "
            + "\n- ".join(problems)
            + "\nNothing was written."
        )
    changes = _changes(current, config, target) + _brought_in(placed, config)
    if changes and not getattr(args, "yes", False):
        print(f"{_plain(str(archive))} changes what matters in {target}:")
        print("".join(f"  - {line}\n" for line in changes), end="")
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
        if _read_archive(archive, limits, target, staging) != scan:
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
    if changes:
        print("What changed that matters:")
        print("".join(f"  - {line}\n" for line in changes), end="")
    print(
        "A backup never holds the secret: put it back (the file or the environment variable "
        "config.toml names), then `referee verify` checks every die."
    )
    return EXIT_OK


def _report(
    scan: _Scan,
    archive: Path,
    target: Path,
    placed: list[_Placed],
    check: StoreCheck | None,
    kept: dict[str, Path],
    kept_in: Path,
) -> None:
    """Where every file went: new, replaced (and where the old one is kept) or left alone."""
    rows = f"the store with {check.rows} ledger rows, chain checked" if check else "no store"
    print(
        f"Restored {_plain(str(scan.manifest.get('campaign', '?')))} from {archive} (made "
        f"{_plain(str(scan.manifest.get('made', '?')))}) into {target}: {len(placed)} files, "
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


def _plain(text: str) -> str:
    """``text`` from an archive as it may be printed: control characters shown escaped."""
    return text if text.isprintable() else repr(text)


# -- reading the archive: every header checked, every byte counted ----------------------


class _Capped:
    """A stream read no further than ``cap`` bytes; past it, ``refusal()`` is raised.

    It counts what is actually read (the gzip stream's output, say), not what any
    header claims, so a bomb stops at the cap."""

    def __init__(self, source: Any, cap: int, refusal: Callable[[], ConfigError]) -> None:
        self._source = source
        self._left = cap
        self._refusal = refusal

    def read(self, size: int = -1) -> bytes:
        wanted = self._left + 1 if size < 0 else min(size, self._left + 1)
        data: bytes = self._source.read(wanted)
        self._left -= len(data)
        if self._left < 0:
            raise self._refusal()
        return data


def _name_problem(name: str) -> str | None:
    """Why ``name`` can be no member of a backup, or None: what ``backup`` writes is
    config.toml, the manifest and plain names under data/ and templates/."""
    pure = PurePosixPath(name)
    if not 0 < len(name) <= MAX_NAME or not name.isprintable() or "\\" in name:
        return "a name a backup never has"
    if pure.is_absolute():
        return "an absolute path"
    if ".." in pure.parts:
        return "a '..' that climbs out of its folder"
    if str(pure) != name or not (
        pure.parts[0] in ("data", "templates") or name in (CONFIG_NAME, MANIFEST)
    ):
        return "a name a backup never has"
    rest = pure.parts[1:] if pure.parts[0] in ("data", "templates") else ()
    if any(part.startswith((".", "replaced-")) or ".torn-" in part for part in rest) or (
        rest and (rest[-1] == "praw.ini" or rest[-1].endswith((".lock", ".tmp", ".bak")))
    ):
        return "a file a backup leaves out (hidden, temporary, kept aside, or credentials)"
    return None


def _kind_problem(member: tarfile.TarInfo) -> str | None:
    """Why ``member`` is no plain file or folder, or None."""
    if member.issym():
        return f"a symbolic link (to {_plain(member.linkname[:80])})"
    if member.islnk():
        return f"a hard link (to {_plain(member.linkname[:80])})"
    if member.ischr() or member.isblk():
        return "a device"
    if member.isfifo():
        return "a FIFO"
    if not (member.isdir() or member.type in _PLAIN_TYPES):
        return "not a plain file"
    return None


def _read_archive(
    archive_path: Path, limits: BackupLimits, target: Path, staging: Path | None
) -> _Scan:
    """Read the whole archive, checking every member's header before its bytes and
    counting every byte against ``limits``; check the manifest against what was read.

    With ``staging`` None nothing is written; else each file goes into ``staging`` (a
    fresh folder of the campaign's, removed afterwards) as it is read."""

    def refuse(why: str) -> ConfigError:
        return ConfigError(f"{archive_path} {why}. Nothing was written.")

    try:
        descriptor = os.open(archive_path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise refuse(f"cannot be read ({exc.strerror})") from exc
    with os.fdopen(descriptor, "rb") as raw:
        status = os.fstat(raw.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise refuse("is not a file (a referee backup is a .tar.gz file)")
        if status.st_size > limits.max_archive_bytes:
            raise refuse(
                f"is {status.st_size:,} bytes, more than a backup may be "
                f"({limits.max_archive_bytes:,})"
            )
        if raw.read(2) != GZIP_MAGIC:
            raise refuse(
                "is not a referee backup: that is a .tar.gz (gzip), which `referee backup` "
                "writes; a zip or a plain tar is not one"
            )
        raw.seek(0)
        compressed = _Capped(
            raw, limits.max_archive_bytes, lambda: refuse("grew while it was read")
        )
        unpacked = _Capped(
            gzip.GzipFile(fileobj=compressed, mode="rb"),  # type: ignore[call-overload]
            limits.max_unpacked_bytes,
            lambda: refuse(
                f"unpacks to more than {limits.max_unpacked_bytes:,} bytes, more than a "
                "backup may (a compression bomb?)"
            ),
        )
        try:
            with tarfile.open(fileobj=unpacked, mode="r|") as archive:  # type: ignore[call-overload]
                manifest, config, digests = _members(archive, limits, target, staging, refuse)
        except (OSError, EOFError, zlib.error, tarfile.TarError) as exc:
            raise refuse(f"is damaged or not a tar archive ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise refuse(f"has no {MANIFEST} of this version: it is not a referee backup")
    listed = manifest.get("files")
    if not isinstance(listed, dict) or digests != listed:
        listed = listed if isinstance(listed, dict) else {}
        changed = sorted(set(digests.items()) ^ set(listed.items()), key=str)
        raise refuse(
            "does not match its own list of files (changed or missing: "
            f"{', '.join(sorted({_plain(str(name)) for name, _ in changed})[:5])})"
        )
    if config is None:
        raise refuse(f"holds no {CONFIG_NAME}")
    try:
        text = config.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise refuse(f"holds a {CONFIG_NAME} that is not UTF-8 text") from exc
    return _Scan(manifest, text, digests)


def _members(
    archive: tarfile.TarFile,
    limits: BackupLimits,
    target: Path,
    staging: Path | None,
    refuse: Callable[[str], ConfigError],
) -> tuple[Any, bytes | None, dict[str, str]]:
    """The manifest, config.toml's bytes and every file's sha256, read member by member."""
    digests: dict[str, str] = {}
    seen: set[str] = set()
    manifest: Any = None
    config: bytes | None = None
    for count, member in enumerate(archive, start=1):
        name = member.name
        if count > limits.max_files:
            raise refuse(f"holds more than {limits.max_files:,} files, more than a backup may")
        why = _name_problem(name) or _kind_problem(member)
        if why is None and hasattr(tarfile, "data_filter"):  # Python's own check, besides
            try:
                tarfile.data_filter(member, str(target))
            except tarfile.FilterError as error:
                why = str(error)
        if why is not None:
            raise refuse(f"holds {_plain(name[:80])!r}: {why}, which a backup never does")
        if name in seen:
            raise refuse(f"holds {name!r} twice: one would overwrite the other")
        seen.add(name)
        if member.isdir():
            continue
        if "/" not in name and name not in (CONFIG_NAME, MANIFEST):
            raise refuse(f"holds a file named {name!r}, where a backup has a folder")
        if member.size > limits.max_file_bytes:
            raise refuse(
                f"holds {name!r} of {member.size:,} bytes, more than one file of a backup "
                f"may be ({limits.max_file_bytes:,})"
            )
        source = archive.extractfile(member)
        assert source is not None
        small = name in (MANIFEST, CONFIG_NAME)
        out = None if staging is None or name == MANIFEST else _staged_file(staging, name)
        digest = hashlib.sha256()
        kept = bytearray()
        try:
            while chunk := source.read(1 << 20):
                digest.update(chunk)
                if small:
                    kept += chunk
                    if len(kept) > _SMALL:
                        raise refuse(f"holds a {name} of more than {_SMALL:,} bytes")
                if out is not None:
                    out.write(chunk)
        finally:
            if out is not None:
                out.close()
        if name == MANIFEST:
            try:
                manifest = orjson.loads(bytes(kept))
            except orjson.JSONDecodeError as exc:
                raise refuse(f"holds a {MANIFEST} that is not JSON") from exc
            continue
        if name == CONFIG_NAME:
            config = bytes(kept)
        digests[name] = digest.hexdigest()
    return manifest, config, digests


def _staged_file(staging: Path, name: str) -> IO[bytes]:
    """A new private file for ``name`` in ``staging`` (never one that is there)."""
    path = staging / name
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb")


# -- what the archive's config.toml decides ---------------------------------------------


def _current_config(target: Path) -> Config | None:
    """The campaign's config.toml in place, or None (no campaign there, or one that
    does not load: the archive is then compared with an empty campaign)."""
    path = target / CONFIG_NAME
    if not path.is_file():
        return None
    try:
        return load_config(path)
    except ConfigError:
        return None


def _archive_config(text: str, archive: Path, target: Path) -> Config:
    """The archive's config.toml, checked as the one it would be in ``target``."""
    try:
        return parse_config(text, target / CONFIG_NAME)
    except ConfigError as error:
        raise ConfigError(
            f"The {CONFIG_NAME} in {archive} does not load: {error.message}\nNothing was written."
        ) from error


def _path_problems(text: str, config: Config, current: Config | None, target: Path) -> list[str]:
    """Each path the archive's config.toml names that leaves the campaign folder:
    absolute, climbing out with '..', or resolving outside (through a link, say). A path
    the config.toml in place already names is no change, and is left to it."""
    document = tomllib.loads(text)
    problems = []
    for section, key, attribute, usual in _PATH_KEYS:
        value = document.get(section, {}).get(key)
        resolved: Path | None = getattr(config, attribute)
        if resolved is None or (current is not None and resolved == getattr(current, attribute)):
            continue
        written = PurePosixPath(str(value)) if value is not None else None
        if written is not None and written.is_absolute():
            why = "is an absolute path"
        elif written is not None and ".." in written.parts:
            why = "climbs out with '..'"
        elif _inside(resolved, target) is None:
            why = f"resolves to {resolved}, outside it"
        else:
            continue
        problems.append(
            f"{section}.{key} = {_plain(str(value))!r} {why}: every path config.toml names "
            f"must lie inside the campaign folder, written relative to it (such as "
            f'"{usual}")'
        )
    return problems


def _place(scan: _Scan, config: Config, target: Path) -> list[_Placed]:
    """Where each file of the archive goes, and whether it is new, changed or the same."""
    placed = []
    for name, digest in scan.digests.items():
        top, _, rest = name.partition("/")
        if name == CONFIG_NAME:
            destination = target / CONFIG_NAME
        else:
            destination = (config.data_dir if top == "data" else config.templates_dir) / rest
        state = "new"
        if destination.is_file() and not destination.is_symlink():
            state = "unchanged" if _sha256(destination) == digest else "changed"
        template = _inside(destination, config.templates_dir) is not None
        placed.append(_Placed(name, destination, state, template))
    return placed


def _placement_problem(
    item: _Placed, config: Config, current: Config | None, target: Path
) -> str | None:
    """Why ``item`` may not be written where it would go, or None."""
    destination = item.destination
    relative = _inside(destination, target)
    secrets = {c.secret_file.resolve() for c in (config, current) if c and c.secret_file}
    store = {p.resolve() for p in store_files(config.data_dir / STORE_NAME)}
    if relative is None:
        return f"{item.name} would go to {destination.resolve()}, outside the campaign folder"
    if destination.is_symlink() or (destination.exists() and not destination.is_file()):
        return f"{item.name} would replace {destination}, which is not a plain file: move it away"
    if destination.resolve() in secrets:
        return f"{item.name} would replace the campaign secret {destination}"
    if relative == Path(CONFIG_NAME) and item.name != CONFIG_NAME:
        return f"{item.name} would replace {destination}, the campaign's config.toml"
    if relative.parts[0].startswith(("replaced-", ".referee-")):
        return f"{item.name} would go into {destination.parent}, which restore keeps for itself"
    if not item.name.startswith("data/") and destination.resolve() in store:
        return f"{item.name} would replace the store's {destination}"
    return None


def _what_matters(config: Config | None, root: Path) -> dict[str, Any]:
    """What a config.toml decides that a restore must not change unseen: who is GM,
    the secret, where the bot reads and logs in, and where the data lies."""
    config = config or Config(path=root / CONFIG_NAME)  # an empty campaign

    def shown(path: Path | None) -> str:
        if path is None:
            return "none"
        inside = _inside(root / path, root)
        return path.as_posix() if inside is None else inside.as_posix() or "."

    reddit = config.reddit
    return {
        "GMs (campaign.gms)": frozenset(name.lower() for name in config.gms),
        "the secret's commitment (secret.sha256)": config.secret_sha256 or "none",
        "the secret's file (secret.file)": shown(config.secret_file),
        "the secret's variable (secret.env)": config.secret_env,
        "secret.create_if_missing": str(config.secret_create).lower(),
        "subreddits (reddit.subreddits)": frozenset(s.lower() for s in reddit.subreddits),
        "watched threads (reddit.threads)": frozenset(reddit.threads),
        "reddit.only_threads": str(reddit.only_threads).lower(),
        "reddit.title_tag": reddit.title_tag or "none",
        "the bot's credentials (reddit.site, the praw.ini section)": reddit.site,
        "where the bot logs in (reddit.oauth_url)": reddit.oauth_url or "Reddit",
        "where the bot reads (reddit.reddit_url)": reddit.reddit_url or "Reddit",
        "the roster's wiki page (reddit.wiki_page)": reddit.wiki_page or "none",
        "the GMs' wiki page (reddit.gm_wiki_page)": reddit.gm_wiki_page or "none",
        "the data folder (campaign.data_dir)": shown(config.data_dir),
        "the templates folder (campaign.templates_dir)": shown(config.templates_dir),
        "the race table (campaign.races)": shown(config.races_file),
        "the scale table (campaign.scale)": shown(config.scale_file),
    }


def _changes(current: Config | None, config: Config, target: Path) -> list[str]:
    """Each thing that matters the archive's config.toml changes, one line each."""
    before, after = _what_matters(current, target), _what_matters(config, target)
    lines = []
    for label, old in before.items():
        new = after[label]
        if old == new:
            continue
        if isinstance(old, frozenset):
            parts = [
                f"adds {', '.join(sorted(new - old))}" if new - old else "",
                f"removes {', '.join(sorted(old - new))}" if old - new else "",
            ]
            lines.append(f"{label}: {'; '.join(p for p in parts if p)}")
        else:
            lines.append(f"{label}: {old} -> {new}")
    return [_plain(line) for line in lines]


def _brought_in(placed: list[_Placed], config: Config) -> list[str]:
    """The templates and the shell's requests the archive brings in, new or changed:
    a template runs at every verdict, a request is carried out as a GM's."""
    requests = config.data_dir / (Path(STORE_NAME).stem + ".requests")
    lines = []
    for item in placed:
        if item.state == "unchanged":
            continue
        if item.template:
            lines.append(
                f"a template ({item.state}): {item.name} -> {item.destination}; a template "
                "renders every verdict: read it before you apply it"
            )
        elif _inside(item.destination, requests) is not None:
            lines.append(
                f"a request from the shell ({item.state}): {item.name}; the bot carries "
                "it out as a GM's"
            )
    return [_plain(line) for line in lines]


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


def _plan(placed: list[_Placed], staging: Path) -> list[tuple[str, Path, Path]]:
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
            if _sha256(destination) == _sha256(staged):
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
