"""A campaign on disk: config.toml, its secret, its dice system, rules and store.

This is the adapter between files and the pure rules. :func:`load_config` reads and
checks ``config.toml`` (every problem reported at once, each saying how to fix it);
:class:`Campaign` finds the campaign's dice system in the registry
(:mod:`referee.systems`), builds its rules value and opens the store, which the
system fills from the sheets shipped in the data folder on first use.
"""

from __future__ import annotations

import gc
import os
import secrets
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.base.dice import commitment
from referee.base.errors import ConfigError
from referee.base.files import read_bounded, read_text_bounded, write_private
from referee.base.limits import DEFAULT_LIMITS
from referee.resolve.pace import PaceConfig, read_pace
from referee.resolve.tracker import NEXT_BY
from referee.store.store import Store
from referee.system import CampaignFiles, System
from referee.system.registry import installed_systems, load_system

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_NAME = "config.toml"
# The slowest reads of new comments while a game is active, in seconds: a reply within 15 s.
MAX_ACTIVE_POLL = 12.0
# The share of Reddit's budget one source of new comments (the subreddits' listing, or a
# watched thread) takes when read every active_poll_seconds.
SHARE_PER_SOURCE = 0.2
STORE_NAME = "store.json"


@dataclass(frozen=True)
class RedditConfig:
    """The live worker's settings; credentials stay in praw.ini or the environment."""

    site: str = "referee"  # the praw.ini section holding the bot's credentials
    subreddits: tuple[str, ...] = ()
    threads: tuple[str, ...] = ()  # submission ids or addresses to watch besides subreddits
    # Referee only ``threads`` of the subreddits (found in their listing, no request of
    # their own): the campaign shares its subreddits with others, thread by thread.
    only_threads: bool = False
    # With only_threads: the threads whose title starts with this tag (any case) are the
    # campaign's too, such as "[Ashes]"; "" for none.
    title_tag: str = ""
    poll_seconds: int = 60  # the idle interval: a post is answered within it, even after quiet
    active_poll_seconds: float = 5.0  # the interval while a tagged post is recent
    budget_share: float = 0.6  # the share of Reddit's 100 requests a minute the bot may use
    oauth_url: str = ""  # set only to run against a Reddit-compatible test server
    reddit_url: str = ""
    user_agent: str = "referee play-by-post dice referee"
    wiki_page: str = ""  # publish the roster here; empty means never
    timeout: float = 16.0  # seconds before a request to Reddit is given up
    submissions_every: int = 2  # read r/…/new every Nth poll interval (at least every poll_seconds)
    moderators_refresh_hours: float = 6.0  # re-read each subreddit's moderators (the GMs)
    inbox_every: int = 3  # read the inbox (secret rolls) every Nth poll interval; 0: never
    edits_every: int = 5  # re-read recent refereed posts for edits every Nth; 0: never
    gm_wiki_page: str = ""  # the GMs' full roster (moderators only); empty means never


@dataclass(frozen=True)
class Config:
    """A checked config.toml; paths are absolute."""

    path: Path
    name: str = "Unnamed campaign"
    system: str = "stepped"
    data_dir: Path = Path("data")
    templates_dir: Path = Path("templates")
    races_file: Path = Path("data/races.toml")
    scale_file: Path = Path("data/scale.toml")
    secret_env: str = "REFEREE_SECRET"
    secret_file: Path | None = None
    secret_create: bool = False
    secret_sha256: str = ""
    rulings: Mapping[str, Any] = field(default_factory=dict)
    gms: tuple[str, ...] = ()
    reddit: RedditConfig = RedditConfig()
    npc_stats: str = "shown"  # [roster] npc_stats: whether players see the stats of NPCs
    next_by: str = "turn"  # [initiative] next_by: who besides a GM may write [[next]]
    pace: PaceConfig = field(default_factory=PaceConfig)  # [pace]: deadlines, reminders

    @property
    def root(self) -> Path:
        return self.path.parent

    @property
    def store_path(self) -> Path:
        return self.data_dir / STORE_NAME


def find_config(campaign_dir: Path | None = None) -> Path:
    """The config.toml of ``campaign_dir``, or of the working folder or its parents."""
    if campaign_dir is not None:
        path = campaign_dir / CONFIG_NAME
        if not path.is_file():
            raise ConfigError(
                f"No {CONFIG_NAME} in {campaign_dir}. Point --campaign at the folder that "
                f"holds your campaign's {CONFIG_NAME}, or make a campaign there with "
                f"`referee new {campaign_dir} --system NAME` (`referee systems` lists them)."
            )
        return path.resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder / CONFIG_NAME
    raise ConfigError(
        f"No {CONFIG_NAME} here or in any parent folder. Run referee from your campaign's "
        f"folder, or give --campaign DIR; to start a campaign, `referee new DIR --system "
        f"NAME` makes one (`referee systems` lists the systems)."
    )


_SECTIONS: dict[str, set[str]] = {
    "campaign": {"name", "system", "data_dir", "templates_dir", "races", "scale", "gms"},
    "secret": {"env", "file", "create_if_missing", "sha256"},
    "rulings": set(),  # checked by the rules module itself
    "roster": {"npc_stats"},
    "initiative": {"next_by"},
    "pace": {"turn_hours", "remind_at", "on_expiry"},
    "reddit": {
        "site",
        "subreddits",
        "threads",
        "only_threads",
        "title_tag",
        "poll_seconds",
        "active_poll_seconds",
        "budget_share",
        "oauth_url",
        "reddit_url",
        "user_agent",
        "wiki_page",
        "timeout",
        "submissions_every",
        "moderators_refresh_hours",
        "inbox_every",
        "edits_every",
        "gm_wiki_page",
    },
}

NPC_STATS = ("shown", "hidden")


def _strings(value: Any, key: str, problems: list[str]) -> tuple[str, ...]:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    problems.append(f'{key} must be a list of strings, like ["a", "b"].')
    return ()


def comment_sources_allowed(budget_share: float) -> int:
    """How many sources of new comments the bot can read fast enough at ``budget_share``.

    A source is the subreddits' listing (one request for all of them) or one watched
    thread: each costs a request at every read of new comments. Each 0.2 of the share
    pays for one, read every active_poll_seconds while a game is active, with room for
    the other reads and the replies (:mod:`referee.live.worker` fits them).

    >>> [comment_sources_allowed(share) for share in (0.2, 0.3, 0.6, 1.0)]
    [1, 1, 3, 5]
    """
    return int(budget_share / SHARE_PER_SOURCE + 1e-9)


def _comment_sources_problems(reddit: RedditConfig) -> list[str]:
    if reddit.only_threads:
        return []  # its threads are found in the subreddits' listing
    sources = (1 if reddit.subreddits else 0) + len(reddit.threads)
    allowed = comment_sources_allowed(reddit.budget_share)
    if sources <= allowed:
        return []
    threads = allowed - (1 if reddit.subreddits else 0)
    return [
        f"reddit.threads: with budget_share = {reddit.budget_share:g} the bot can read new "
        f"comments fast enough (a reply within 15 s) from {allowed} source"
        f"{'s' if allowed > 1 else ''}, the subreddits' listing counting as one, and "
        f"{len(reddit.threads)} watched thread{'s' if len(reddit.threads) != 1 else ''} "
        f"{'and the subreddits make' if reddit.subreddits else 'make'} {sources}. Each "
        f"watched thread costs a request at every read; watch at most {threads} "
        f"thread{'s' if threads != 1 else ''} here, or raise budget_share (each 0.2 pays "
        f"for one more)."
    ]


def load_config(path: Path) -> Config:
    """Read and check config.toml; raise ConfigError listing every problem."""
    try:
        text = read_text_bounded(path, DEFAULT_LIMITS.max_config_file_bytes, "The config")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"Cannot read {path}: {error}.") from error
    return parse_config(text, path)


def parse_config(text: str, path: Path) -> Config:
    """Check the text of a config.toml as if it lay at ``path`` (its paths are relative
    to that folder), without reading the file: ``restore`` checks an archive's before
    writing anything. Raise ConfigError listing every problem."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}. Fix that line.") from error
    problems: list[str] = []
    for section, value in document.items():
        if section not in _SECTIONS:
            problems.append(
                f"Unknown section [{section}]; the sections are "
                f"{', '.join('[' + name + ']' for name in _SECTIONS)}."
            )
        elif not isinstance(value, dict):
            problems.append(f"[{section}] must be a table.")
        elif _SECTIONS[section]:
            for key in value:
                if key not in _SECTIONS[section]:
                    problems.append(
                        f"Unknown key {key!r} in [{section}]; known keys: "
                        f"{', '.join(sorted(_SECTIONS[section]))}."
                    )
    campaign = document.get("campaign", {})
    secret = document.get("secret", {})
    reddit = document.get("reddit", {})
    root = path.parent.resolve()

    def folder(value: Any, default: str) -> Path:
        return (root / str(value if value is not None else default)).resolve()

    system = str(campaign.get("system", "stepped"))
    installed = installed_systems()
    if system not in installed:
        problems.append(
            f"system = {system!r} is not installed; the installed systems are "
            f"{', '.join(installed)}. `referee systems` lists them with their verbs."
        )
    gms = _strings(campaign.get("gms", []), "campaign.gms", problems)
    reddit_config = RedditConfig(
        site=str(reddit.get("site", "referee")),
        subreddits=_strings(reddit.get("subreddits", []), "reddit.subreddits", problems),
        threads=_strings(reddit.get("threads", []), "reddit.threads", problems),
        only_threads=reddit.get("only_threads", False) is True,
        title_tag=str(reddit.get("title_tag", "")).strip(),
        poll_seconds=int(reddit.get("poll_seconds", 60)),
        active_poll_seconds=float(reddit.get("active_poll_seconds", 5.0)),
        budget_share=float(reddit.get("budget_share", 0.6)),
        oauth_url=str(reddit.get("oauth_url", "")),
        reddit_url=str(reddit.get("reddit_url", "")),
        user_agent=str(reddit.get("user_agent", RedditConfig.user_agent)),
        wiki_page=str(reddit.get("wiki_page", "")),
        timeout=float(reddit.get("timeout", 16.0)),
        submissions_every=int(reddit.get("submissions_every", 2)),
        moderators_refresh_hours=float(reddit.get("moderators_refresh_hours", 6.0)),
        inbox_every=int(reddit.get("inbox_every", 3)),
        edits_every=int(reddit.get("edits_every", 5)),
        gm_wiki_page=str(reddit.get("gm_wiki_page", "")),
    )
    if reddit_config.gm_wiki_page and reddit_config.gm_wiki_page == reddit_config.wiki_page:
        problems.append(
            "reddit.gm_wiki_page must differ from reddit.wiki_page: the GMs' page holds what "
            'players must not see. Try gm_wiki_page = "roster/gm".'
        )
    roster = document.get("roster", {})
    npc_stats = roster.get("npc_stats", "shown") if isinstance(roster, dict) else "shown"
    if npc_stats not in NPC_STATS:
        problems.append(
            f'roster.npc_stats must be "shown" or "hidden", not {npc_stats!r}: whether '
            "players see the stats of the GM's characters (their names and state are shown "
            "either way)."
        )
    if not isinstance(reddit.get("only_threads", False), bool):
        problems.append("reddit.only_threads must be true or false.")
    claims = reddit_config.threads or reddit_config.title_tag
    if reddit_config.only_threads and not (reddit_config.subreddits and claims):
        problems.append(
            "reddit.only_threads = true referees only the threads listed in reddit.threads, "
            "or titled with reddit.title_tag, of the subreddits in reddit.subreddits: give "
            'the subreddits and the threads (by id, such as "1gq7xk2") or a title tag (such '
            'as "[Ashes]"), or remove only_threads to referee the whole subreddits.'
        )
    if reddit_config.title_tag and not reddit_config.only_threads:
        problems.append(
            f"reddit.title_tag = {reddit_config.title_tag!r} claims the threads so titled "
            "in a subreddit shared with other campaigns: set only_threads = true beside it, "
            'or remove it (title_tag = "") to referee the whole subreddits.'
        )
    if len(reddit_config.title_tag) > 40:
        problems.append('reddit.title_tag must be 40 characters at most, such as "[Ashes]".')
    if reddit_config.moderators_refresh_hours < 1:
        problems.append(
            "reddit.moderators_refresh_hours must be 1 or more (hours); 6 re-reads the "
            "moderators four times a day."
        )
    for key, least in (("edits_every", 0), ("inbox_every", 0), ("submissions_every", 1)):
        if getattr(reddit_config, key) < least:
            problems.append(
                f"reddit.{key} must be {least} or more: it counts poll intervals between two "
                f"reads{' (0: never)' if least == 0 else ''}. Reads no longer take a listing's "
                f"turn, so any number works; the default is {getattr(RedditConfig, key)}."
            )
    if reddit_config.poll_seconds < 5:
        problems.append("reddit.poll_seconds must be at least 5, to respect Reddit's rate limits.")
    if (
        not 2
        <= reddit_config.active_poll_seconds
        <= min(MAX_ACTIVE_POLL, max(reddit_config.poll_seconds, 2))
    ):
        problems.append(
            f"reddit.active_poll_seconds must be from 2 to {MAX_ACTIVE_POLL:g}, and at most "
            "poll_seconds: the seconds between reads of new comments while the game is "
            f"active ({MAX_ACTIVE_POLL:g} at most keeps the replies within 15 s; 5 answers "
            "within about 5 s)."
        )
    if not 0.2 <= reddit_config.budget_share <= 1:
        problems.append(
            "reddit.budget_share must be from 0.2 to 1: the share of Reddit's 100 requests a "
            "minute the bot may use (0.6 leaves 40 for other tools of the account)."
        )
    else:
        problems += _comment_sources_problems(reddit_config)
    initiative = document.get("initiative", {})
    next_by = str(initiative.get("next_by", "turn")) if isinstance(initiative, dict) else "turn"
    if next_by not in NEXT_BY:
        problems.append(
            f"initiative.next_by = {next_by!r}: write one of {', '.join(map(repr, NEXT_BY))} "
            '("turn": a GM, or the player whose character has the turn).'
        )
    pace_table = document.get("pace", {})
    pace, pace_problems = read_pace(pace_table if isinstance(pace_table, dict) else {})
    problems.extend(pace_problems)
    if "secret" in secret or "value" in secret:
        problems.append("Never put the secret itself in config.toml; use [secret] env or file.")
    rulings = document.get("rulings", {})
    if system in installed and isinstance(rulings, dict):
        try:
            load_system(system).read_rulings(rulings)
        except ConfigError as error:
            problems.append(error.message)
    elif rulings:
        problems.append(
            f"[rulings] ({', '.join(map(str, rulings))}) are the system's; they are checked "
            "once system names an installed system."
        )
    if problems:
        raise ConfigError(f"{path} has {len(problems)} problem(s):\n- " + "\n- ".join(problems))
    secret_file = secret.get("file")
    return Config(
        path=path.resolve(),
        name=str(campaign.get("name", "Unnamed campaign")),
        system=system,
        data_dir=folder(campaign.get("data_dir"), "data"),
        templates_dir=folder(campaign.get("templates_dir"), "templates"),
        races_file=folder(campaign.get("races"), "data/races.toml"),
        scale_file=folder(campaign.get("scale"), "data/scale.toml"),
        secret_env=str(secret.get("env", "REFEREE_SECRET")),
        secret_file=folder(secret_file, "") if secret_file else None,
        secret_create=bool(secret.get("create_if_missing", False)),
        secret_sha256=str(secret.get("sha256", "")),
        rulings=dict(rulings),
        gms=gms,
        reddit=reddit_config,
        npc_stats=str(npc_stats),
        next_by=next_by,
        pace=pace,
    )


@dataclass(frozen=True)
class Secret:
    """The campaign secret and a word on where it came from (never the value itself)."""

    value: bytes
    origin: str
    created: bool = False  # made just now, on a first run


def load_secret(config: Config, environ: Mapping[str, str] | None = None) -> Secret:
    """The secret from the environment variable, else from the file config.toml names."""
    environ = os.environ if environ is None else environ
    if environ.get(config.secret_env):
        return Secret(environ[config.secret_env].encode(), f"${config.secret_env}")
    if config.secret_file is not None:
        if config.secret_file.is_file():
            cap = DEFAULT_LIMITS.max_secret_file_bytes
            value = read_bounded(config.secret_file, cap, "The secret file").strip()
            if not value:
                raise ConfigError(f"The secret file {config.secret_file} is empty.")
            return Secret(value, str(config.secret_file))
        if config.secret_create:
            config.secret_file.parent.mkdir(parents=True, exist_ok=True)
            value = secrets.token_hex(32).encode()
            write_private(config.secret_file, value + b"\n")
            return Secret(value, str(config.secret_file), created=True)
    where = f" or the file {config.secret_file}" if config.secret_file else ""
    raise ConfigError(
        f"No campaign secret: set the environment variable {config.secret_env}{where}. "
        f'Make one with: python3 -c "import secrets; print(secrets.token_hex(32))" and '
        f"publish its sha256 (referee verify prints it) before play starts."
    )


def _read_table(path: Path) -> str:
    """The text of a table in the data folder (characters.toml and the like), bounded."""
    return read_text_bounded(path, DEFAULT_LIMITS.max_table_file_bytes, "The table")


def campaign_files(config: Config) -> CampaignFiles:
    """What the campaign's system may read: the data folder and the tables config names."""
    return CampaignFiles(config.data_dir, {"races": config.races_file, "scale": config.scale_file})


def load_sheets(path: Path) -> list[dict[str, Any]]:
    """The ``[[character]]`` records of a sheets file (characters.toml)."""
    try:
        document = tomllib.loads(_read_table(path))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}.") from error
    records = document.get("character", [])
    if not isinstance(records, list):
        raise ConfigError(f"{path}: write each sheet as a [[character]] table.")
    return [dict(record) for record in records]


class Campaign:
    """An open campaign: checked config, its system and rules, secret and store."""

    def __init__(
        self, config: Config, secret: Secret | None = None, *, read_only: bool = False
    ) -> None:
        """Open the campaign; ``read_only``: its store's last committed state, no lock
        taken and nothing written (the live bot may be writing it)."""
        self.config = config
        self.system: System = load_system(config.system)
        self.files = campaign_files(config)
        self.rules = self.system.load_rules(self.system.read_rulings(config.rulings), self.files)
        self.secret = secret
        if not config.data_dir.is_dir():
            raise ConfigError(
                f"The data folder {config.data_dir} does not exist; create it "
                f"or fix campaign.data_dir in {config.path}."
            )
        self.store = Store(config.store_path, read_only=read_only)
        try:
            if not read_only:  # the writer seeded it when it first opened the store
                self.system.seed_store(self.files, self.rules, self.store)
        except BaseException:
            self.store.discard()  # a refused sheet must not leave the store locked
            raise
        # The rules, the sheets and the index live as long as the run: move them out of
        # the cyclic collector's sight, so its full passes scan only what a post makes.
        # (No collection first: loading made no garbage worth the pass over every sheet.)
        gc.freeze()

    @classmethod
    def open(
        cls, campaign_dir: Path | None = None, *, need_secret: bool = True, read_only: bool = False
    ) -> Campaign:
        config = load_config(find_config(campaign_dir))
        return cls(config, load_secret(config) if need_secret else None, read_only=read_only)

    @property
    def published_commitment(self) -> str:
        return commitment(self.secret.value) if self.secret else ""

    def close(self) -> None:
        """Flush and release the store."""
        self.store.close()

    def __enter__(self) -> Campaign:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        # The store's own rule: flush on a clean exit, drop half-done work on an error.
        self.store.__exit__(*exc_info)
