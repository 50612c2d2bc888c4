"""The checks ``referee restore`` makes of a backup before it writes anything.

A backup is hostile until checked (:mod:`referee.live.backups` says what one holds).
:func:`read_archive` reads it member by member, each header checked before its bytes
and every byte counted against :class:`~referee.base.limits.BackupLimits` as it
unpacks; the archive's config.toml is checked as the campaign's would be, every path
it names and every file's destination inside the campaign folder
(:func:`path_problems`, :func:`placement_problem`); and what it changes that matters
is said, one line each (:func:`changes`, :func:`brought_in`), for ``--yes`` to apply.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import stat
import sys
import tarfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

import orjson

from referee.base.errors import ConfigError
from referee.base.limits import BackupLimits
from referee.pipeline.campaign import CONFIG_NAME, STORE_NAME, Config, load_config, parse_config
from referee.store.backup import store_files

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MANIFEST = "referee-backup.json"
FORMAT = 1
MAX_NAME = 400  # characters of one name in the archive


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def inside(path: Path, folder: Path) -> Path | None:
    """``path`` relative to ``folder`` if it lies inside it, else None."""
    try:
        return path.resolve().relative_to(folder.resolve())
    except ValueError:
        return None


def plain(text: str) -> str:
    """``text`` from an archive as it may be printed: control characters shown escaped."""
    return text if text.isprintable() else repr(text)


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
class Scan:
    """What one read of an archive found: its manifest, the bytes of its config.toml
    and every plain file's sha256, all checked."""

    manifest: Mapping[str, Any]
    config_text: str
    digests: Mapping[str, str]


@dataclass(frozen=True)
class Placed:
    """One file of the archive and where it goes in the campaign folder."""

    name: str  # in the archive
    destination: Path
    state: str  # "new", "changed" or "unchanged"
    template: bool  # it lands in the templates folder: templates run at every verdict


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
        return f"a symbolic link (to {plain(member.linkname[:80])})"
    if member.islnk():
        return f"a hard link (to {plain(member.linkname[:80])})"
    if member.ischr() or member.isblk():
        return "a device"
    if member.isfifo():
        return "a FIFO"
    if not (member.isdir() or member.type in _PLAIN_TYPES):
        return "not a plain file"
    return None


def read_archive(
    archive_path: Path, limits: BackupLimits, target: Path, staging: Path | None
) -> Scan:
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
            f"{', '.join(sorted({plain(str(name)) for name, _ in changed})[:5])})"
        )
    if config is None:
        raise refuse(f"holds no {CONFIG_NAME}")
    try:
        text = config.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise refuse(f"holds a {CONFIG_NAME} that is not UTF-8 text") from exc
    return Scan(manifest, text, digests)


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
            raise refuse(f"holds {plain(name[:80])!r}: {why}, which a backup never does")
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


def current_config(target: Path) -> Config | None:
    """The campaign's config.toml in place, or None (no campaign there, or one that
    does not load: the archive is then compared with an empty campaign)."""
    path = target / CONFIG_NAME
    if not path.is_file():
        return None
    try:
        return load_config(path)
    except ConfigError:
        return None


def archive_config(text: str, archive: Path, target: Path) -> Config:
    """The archive's config.toml, checked as the one it would be in ``target``."""
    try:
        return parse_config(text, target / CONFIG_NAME)
    except ConfigError as error:
        raise ConfigError(
            f"The {CONFIG_NAME} in {archive} does not load: {error.message}\nNothing was written."
        ) from error


def path_problems(text: str, config: Config, current: Config | None, target: Path) -> list[str]:
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
        elif inside(resolved, target) is None:
            why = f"resolves to {resolved}, outside it"
        else:
            continue
        problems.append(
            f"{section}.{key} = {plain(str(value))!r} {why}: every path config.toml names "
            f"must lie inside the campaign folder, written relative to it (such as "
            f'"{usual}")'
        )
    return problems


def place(scan: Scan, config: Config, target: Path) -> list[Placed]:
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
            state = "unchanged" if sha256(destination) == digest else "changed"
        template = inside(destination, config.templates_dir) is not None
        placed.append(Placed(name, destination, state, template))
    return placed


def placement_problem(
    item: Placed, config: Config, current: Config | None, target: Path
) -> str | None:
    """Why ``item`` may not be written where it would go, or None."""
    destination = item.destination
    relative = inside(destination, target)
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
        relative = inside(root / path, root)
        return path.as_posix() if relative is None else relative.as_posix() or "."

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


def changes(current: Config | None, config: Config, target: Path) -> list[str]:
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
    return [plain(line) for line in lines]


def brought_in(placed: list[Placed], config: Config) -> list[str]:
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
        elif inside(item.destination, requests) is not None:
            lines.append(
                f"a request from the shell ({item.state}): {item.name}; the bot carries "
                "it out as a GM's"
            )
    return [plain(line) for line in lines]
