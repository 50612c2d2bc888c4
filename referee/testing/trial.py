"""The local trial's campaign folder: made from a demo or a GM's campaign, never in place.

``referee-fake start`` plays one campaign on the Reddit look-alike: a system's demo
(``--system NAME``: ``data/demos/NAME``, or the repository's own ``config.toml`` for the
system it names) or an existing campaign folder (``--campaign DIR``). Either way it is
*copied* into the trial's folder (``--trial DIR``): the sheets of its data folder, and a
``config.toml`` that keeps every line of the campaign's own but the data folder, the
secret and ``[reddit]``, which point at the trial. The source is only read.

The trial's folder carries a mark (:data:`MARK`). ``start`` writes only into a folder
that does not exist or is empty, and replaces one only when asked (``--fresh``) and only
if it bears the mark: a folder it did not make is never deleted.
"""

from __future__ import annotations

import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from referee.base.errors import ConfigError, StoreError
from referee.pipeline.campaign import load_config
from referee.store.backup import copy_store, store_files
from referee.testing.shipped import GENERATED

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MARK = ".referee-fake"  # the file that says `referee-fake start` made this folder
_MARK_TEXT = (
    "This folder is a local trial that `referee-fake start` made; "
    "`referee-fake start --fresh` may replace it.\n"
)
DEMOS = Path("data") / "demos"  # each system's demo campaign, under the repository's folder

# The lines of the campaign's own config.toml that the trial writes anew.
_REPLACED_KEYS = {"campaign": {"data_dir", "templates_dir", "races", "scale"}}
_REPLACED_TABLES = {"secret", "reddit"}
_HEADER = re.compile(r"^\s*\[\[?\s*([^\]\s]+)\s*\]")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")

TRIAL_SECRET_ENV = "REFEREE_TRIAL_SECRET"  # never the campaign's own REFEREE_SECRET

_TRIAL_TABLES = """
[secret]
# The trial's own secret, made on its first run in this folder (the campaign's own
# secret is never read: a trial's dice prove nothing and must not use it).
env = "{env}"
file = "secret.txt"
create_if_missing = true

[reddit]
# The Reddit look-alike that `referee-fake start` runs on 127.0.0.1.
subreddits = ["{subreddit}"]
# Short intervals: the trial answers within seconds.
poll_seconds = 5
# The bot publishes the roster to this wiki page (`referee-fake roster` shows it).
wiki_page = "roster"
# The look-alike's address for API calls and for logging in (praw.ini holds its accounts).
oauth_url = "{url}"
reddit_url = "{url}"
"""


@dataclass(frozen=True)
class Source:
    """What a trial plays: a campaign's ``config.toml`` and the thread to post first."""

    config: Path  # the campaign's config.toml (only read)
    thread: Path | None  # a saved thread to post into the look-alike; None: an empty one
    label: str  # how start names it: "the pool demo", "the campaign in DIR"


def demo_systems(repository: Path) -> dict[str, Source]:
    """Every system's demo under ``repository``, by system name."""
    found: dict[str, Source] = {}
    own = repository / "config.toml"
    if own.is_file():
        document = tomllib.loads(own.read_text(encoding="utf-8"))
        campaign = document.get("campaign", {})
        data = repository / str(campaign.get("data_dir", "data"))
        if (data / "thread.json").is_file():
            name = str(campaign.get("system", "stepped"))
            found[name] = Source(own, data / "thread.json", f"the {name} demo")
    for folder in sorted((repository / DEMOS).glob("*")):
        if (folder / "config.toml").is_file() and (folder / "thread.json").is_file():
            found.setdefault(
                folder.name,
                Source(folder / "config.toml", folder / "thread.json", f"the {folder.name} demo"),
            )
    return found


def find_source(system: str | None, campaign: Path | None, repository: Path) -> Source:
    """The campaign a trial plays; SystemExit saying what to write if there is none."""
    if campaign is not None:
        config = campaign / "config.toml"
        if not config.is_file():
            raise SystemExit(
                f"{campaign} holds no config.toml, so it is not a campaign folder. Give the "
                "folder of your campaign's config.toml, or try a demo: --system NAME."
            )
        return Source(config, None, f"the campaign in {campaign}")
    demos = demo_systems(repository)
    if not demos:
        raise SystemExit(
            f"No demo campaigns under {repository.resolve()}: run this from the repository's "
            "folder (where config.toml and data/demos are), or play your own campaign with "
            "--campaign DIR."
        )
    name = system or ("stepped" if "stepped" in demos else sorted(demos)[0])
    if name not in demos:
        raise SystemExit(
            f"No demo of the system {name!r}; the demos are {', '.join(sorted(demos))}. "
            "Write one of them after --system, or play your own campaign with --campaign DIR."
        )
    return demos[name]


def keep_apart(folder: Path, source: Source) -> None:
    """SystemExit if the trial's ``folder`` lies in the campaign's folder or its data folder.

    The trial writes its folder; the campaign it plays is never written to.
    """
    try:
        config = load_config(source.config)
    except ConfigError as error:
        raise SystemExit(f"{error.message}\nFix it, then start the trial again.") from None
    inside = (folder.resolve(), *folder.resolve().parents)
    for kept in (source.config.parent.resolve(), config.data_dir.resolve()):
        if kept in inside:
            raise SystemExit(
                f"The trial's folder {folder} is inside the campaign's folder {kept}, which "
                "the trial never writes to; pick a folder elsewhere with --trial DIR."
            )


def make_folder(folder: Path, fresh: bool) -> None:
    """Make the trial's folder and mark it; SystemExit naming the folder if it may not.

    An existing folder is used only if it is empty, and replaced only with ``fresh`` and
    only if it bears :data:`MARK`.
    """
    if folder.is_file():
        raise SystemExit(f"{folder} is a file. Pick a folder for the trial with --trial DIR.")
    if folder.is_dir() and any(folder.iterdir()):
        if not (folder / MARK).is_file():
            raise SystemExit(
                f"{folder} already holds files that `referee-fake start` did not put there, "
                "so it is left alone. Pick an empty or new folder with --trial DIR; to play "
                "a campaign of yours, give its folder with --campaign DIR (it is copied)."
            )
        if not fresh:
            raise SystemExit(
                f"{folder} holds an earlier local trial. Add --fresh to replace it (a new "
                "look-alike starts empty, so the old trial's store no longer matches it), "
                "or pick another folder with --trial DIR."
            )
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARK).write_text(_MARK_TEXT, encoding="utf-8")


def trial_config(text: str, lines: list[str], tables: str) -> str:
    """``text`` (a config.toml) with the trial's ``lines`` for [campaign] and its ``tables``.

    The keys the trial replaces go, with the comment lines just above them, and so do
    the tables it replaces; every other line stays as the campaign wrote it.

    >>> print(trial_config('[campaign]\\n# Where\\ndata_dir = "x"\\nname = "N"\\n'
    ...                    '[reddit]\\nsite = "s"\\n', ['data_dir = "data"'], '[secret]'), end="")
    [campaign]
    data_dir = "data"
    name = "N"
    [secret]
    """
    kept: list[str] = []
    comments: list[str] = []
    table = ""
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            table = header.group(1).strip('"').split(".")[0]
        key = _KEY.match(line)
        if table in _REPLACED_TABLES:
            comments.clear()
            continue
        if line.lstrip().startswith("#"):
            comments.append(line)
            continue
        if key and not header and key.group(1) in _REPLACED_KEYS.get(table, set()):
            comments.clear()
            continue
        kept.extend(comments)
        comments.clear()
        kept.append(line)
        if header and table == "campaign":
            kept.extend(lines)
    kept.extend(comments)
    if not any(_HEADER.match(line) and "campaign" in line for line in kept):
        kept = ["[campaign]", *lines, *kept]
    return "\n".join(kept).rstrip() + "\n" + tables.rstrip() + "\n"


def write_trial(folder: Path, source: Source, subreddit: str, url: str) -> None:
    """Copy ``source``'s sheets into ``folder`` with a config.toml pointing at ``url``.

    SystemExit with the problem if the campaign's config.toml does not load.
    """
    try:
        config = load_config(source.config)
    except ConfigError as error:
        raise SystemExit(f"{error.message}\nFix it, then start the trial again.") from None
    data = folder / "data"
    keep_apart(folder, source)
    generated = shutil.ignore_patterns(*GENERATED)
    secret = config.secret_file.resolve() if config.secret_file else None

    def left_behind(where: str, names: list[str]) -> set[str]:
        # What a run made, and the campaign's secret file under whatever name it has.
        return set(generated(where, names)) | {n for n in names if (Path(where) / n) == secret}

    shutil.copytree(config.data_dir, data, ignore=left_behind)
    if any(f.exists() for f in store_files(config.store_path)):  # imported characters live there
        try:
            copy_store(config.store_path, data)  # consistent even while its bot runs
        except StoreError as error:
            raise SystemExit(
                f"The campaign's store does not check out ({error}); run "
                f"`referee --campaign {source.config.parent} verify` to see why."
            ) from None
    lines = [
        "# The local trial's sheets are a copy (in data/); the tables and templates are read",
        f"# where the campaign keeps them. The rest is {source.config}'s.",
        'data_dir = "data"',
        f'templates_dir = "{config.templates_dir.as_posix()}"',
        f'races = "{config.races_file.as_posix()}"',
        f'scale = "{config.scale_file.as_posix()}"',
    ]
    tables = _TRIAL_TABLES.format(env=TRIAL_SECRET_ENV, subreddit=subreddit, url=url)
    text = trial_config(source.config.read_text(encoding="utf-8"), lines, tables)
    (folder / "config.toml").write_text(text, encoding="utf-8")
