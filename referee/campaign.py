"""A campaign on disk: config.toml, its secret, rules tables, sheets and store.

This is the adapter between files and the pure rules. :func:`load_config` reads and
checks ``config.toml`` (every problem reported at once, each saying how to fix it);
:class:`Campaign` opens the store and turns stored sheets into rules values.
"""

from __future__ import annotations

import gc
import os
import secrets
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .dice import commitment
from .errors import ConfigError, UserError
from .names import name_key
from .store import Store
from .systems import stepped
from .systems.stepped import vehicles

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_NAME = "config.toml"
STORE_NAME = "store.json"
SHEETS_NAME = "characters.toml"
VEHICLES_NAME = "vehicles.toml"  # vehicle and ship sheets, seeded like characters.toml
SCALE_NAME = "scale.toml"  # the scale table; a campaign's own overrides cells
NPC_TEMPLATES_NAME = "npc_templates.toml"
SYSTEMS = ("stepped",)  # the dice systems this build resolves


@dataclass(frozen=True)
class RedditConfig:
    """The live worker's settings; credentials stay in praw.ini or the environment."""

    site: str = "referee"  # the praw.ini section holding the bot's credentials
    subreddits: tuple[str, ...] = ()
    threads: tuple[str, ...] = ()  # submission ids or addresses to watch besides subreddits
    poll_seconds: int = 60
    oauth_url: str = ""  # set only to run against a Reddit-compatible test server
    reddit_url: str = ""
    user_agent: str = "referee play-by-post dice referee"
    wiki_page: str = ""  # publish the roster here; empty means never
    timeout: float = 16.0  # seconds before a request to Reddit is given up
    submissions_every: int = 2  # read r/…/new every Nth cycle, r/…/comments the others
    moderators_refresh_hours: float = 6.0  # re-read each subreddit's moderators (the GMs)
    inbox_every: int = 3  # every Nth cycle reads the inbox (secret rolls) instead; 0: never
    edits_every: int = 5  # every Nth cycle re-reads recent refereed posts for edits; 0: never


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
                f"holds your campaign's {CONFIG_NAME}."
            )
        return path.resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder / CONFIG_NAME
    raise ConfigError(
        f"No {CONFIG_NAME} here or in any parent folder. Run referee from your campaign's "
        f"folder, or give --campaign DIR."
    )


_SECTIONS: dict[str, set[str]] = {
    "campaign": {"name", "system", "data_dir", "templates_dir", "races", "scale", "gms"},
    "secret": {"env", "file", "create_if_missing", "sha256"},
    "rulings": set(),  # checked by the rules module itself
    "reddit": {
        "site",
        "subreddits",
        "threads",
        "poll_seconds",
        "oauth_url",
        "reddit_url",
        "user_agent",
        "wiki_page",
        "timeout",
        "submissions_every",
        "moderators_refresh_hours",
        "inbox_every",
        "edits_every",
    },
}


def _strings(value: Any, key: str, problems: list[str]) -> tuple[str, ...]:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    problems.append(f'{key} must be a list of strings, like ["a", "b"].')
    return ()


def load_config(path: Path) -> Config:
    """Read and check config.toml; raise ConfigError listing every problem."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"Cannot read {path}: {error}.") from error
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
    if system not in SYSTEMS:
        problems.append(
            f"system = {system!r} is not available; choose one of {', '.join(SYSTEMS)}."
        )
    gms = _strings(campaign.get("gms", []), "campaign.gms", problems)
    reddit_config = RedditConfig(
        site=str(reddit.get("site", "referee")),
        subreddits=_strings(reddit.get("subreddits", []), "reddit.subreddits", problems),
        threads=_strings(reddit.get("threads", []), "reddit.threads", problems),
        poll_seconds=int(reddit.get("poll_seconds", 60)),
        oauth_url=str(reddit.get("oauth_url", "")),
        reddit_url=str(reddit.get("reddit_url", "")),
        user_agent=str(reddit.get("user_agent", RedditConfig.user_agent)),
        wiki_page=str(reddit.get("wiki_page", "")),
        timeout=float(reddit.get("timeout", 16.0)),
        submissions_every=int(reddit.get("submissions_every", 2)),
        moderators_refresh_hours=float(reddit.get("moderators_refresh_hours", 6.0)),
        inbox_every=int(reddit.get("inbox_every", 3)),
        edits_every=int(reddit.get("edits_every", 5)),
    )
    if reddit_config.moderators_refresh_hours <= 0:
        problems.append(
            "reddit.moderators_refresh_hours must be more than 0; 6 re-reads the moderators "
            "four times a day."
        )
    edits, inbox = reddit_config.edits_every, reddit_config.inbox_every
    if edits < 0 or edits == 1 or (edits and inbox and edits % inbox == 0):
        problems.append(
            "reddit.edits_every must be 0 (never look for edits of older posts) or 2 or more, "
            "and not a multiple of inbox_every (those cycles read the inbox): 5 is the default."
        )
    if reddit_config.inbox_every < 0 or reddit_config.inbox_every == 1:
        problems.append(
            "reddit.inbox_every must be 0 (never read private messages) or 2 or more: every "
            "Nth cycle reads the inbox instead of a listing, so 1 would never read a listing."
        )
    if reddit_config.submissions_every < 2:
        problems.append(
            "reddit.submissions_every must be at least 2: the other cycles read new comments."
        )
    if reddit_config.poll_seconds < 5:
        problems.append("reddit.poll_seconds must be at least 5, to respect Reddit's rate limits.")
    if "secret" in secret or "value" in secret:
        problems.append("Never put the secret itself in config.toml; use [secret] env or file.")
    rulings = document.get("rulings", {})
    try:
        stepped.Rulings.from_mapping(rulings)
    except ConfigError as error:
        problems.append(error.message)
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
            value = config.secret_file.read_bytes().strip()
            if not value:
                raise ConfigError(f"The secret file {config.secret_file} is empty.")
            return Secret(value, str(config.secret_file))
        if config.secret_create:
            config.secret_file.parent.mkdir(parents=True, exist_ok=True)
            value = secrets.token_hex(32).encode()
            descriptor = os.open(config.secret_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(value + b"\n")
            return Secret(value, str(config.secret_file), created=True)
    where = f" or the file {config.secret_file}" if config.secret_file else ""
    raise ConfigError(
        f"No campaign secret: set the environment variable {config.secret_env}{where}. "
        f'Make one with: python3 -c "import secrets; print(secrets.token_hex(32))" and '
        f"publish its sha256 (referee verify prints it) before play starts."
    )


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}.") from error


def load_scale(scale_file: Path, data_dir: Path) -> tuple[vehicles.Scale, dict[vehicles.Size, int]]:
    """The scale table config.toml names, with the cells data_dir/scale.toml overrides."""
    if not scale_file.is_file():
        raise ConfigError(
            f"No scale table at {scale_file}. Point [campaign] scale at one (referee's "
            "data/scale.toml is the seed's table)."
        )
    scale, wounds = vehicles.read_scale(_read_toml(scale_file), where=str(scale_file))
    own = data_dir / SCALE_NAME
    if own.is_file() and own.resolve() != scale_file.resolve():
        scale, wounds = vehicles.read_scale(_read_toml(own), scale, str(own), wounds)
    return scale, wounds


def load_rules(config: Config) -> vehicles.VehicleRules:
    """The campaign's rulings, race table and scale table (R-12) as a rules value."""
    races: dict[str, stepped.Race] = {"human": stepped.Race("human")}
    if config.races_file.is_file():
        try:
            table = tomllib.loads(config.races_file.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"{config.races_file} is not valid TOML: {error}.") from error
        races = stepped.load_races(table)
    scale, wounds = load_scale(config.scale_file, config.data_dir)
    return vehicles.VehicleRules(
        rulings=stepped.Rulings.from_mapping(config.rulings),
        races=races,
        scale=scale,
        wounds_survived=wounds,
    )


def load_sheets(path: Path) -> list[dict[str, Any]]:
    """The ``[[character]]`` records of a sheets file (characters.toml)."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}.") from error
    records = document.get("character", [])
    if not isinstance(records, list):
        raise ConfigError(f"{path}: write each sheet as a [[character]] table.")
    return [dict(record) for record in records]


def character_key(name: str) -> str:
    """How a character is keyed in the store: its name, case and spacing folded."""
    return name_key(name)


def store_entry(
    name: str, owner: str | None, approved: bool, sheet: dict[str, Any]
) -> dict[str, Any]:
    """A character or craft as the store keeps it: the campaign's facts beside the sheet."""
    return {
        "name": name,
        "owner": owner,  # the Reddit user who plays it; None for the GM's
        "approved": approved,  # only approved characters and crafts may act
        "sheet": sheet,
    }


def character_entry(
    character: stepped.Character, owner: str | None, approved: bool
) -> dict[str, Any]:
    """A character as the store keeps it."""
    return store_entry(character.name, owner, approved, stepped.character_to_record(character))


class Campaign:
    """An open campaign: checked config, rules, secret and store."""

    def __init__(self, config: Config, secret: Secret | None = None) -> None:
        self.config = config
        self.rules = load_rules(config)
        self.secret = secret
        if not config.data_dir.is_dir():
            raise ConfigError(
                f"The data folder {config.data_dir} does not exist; create it "
                f"or fix campaign.data_dir in {config.path}."
            )
        self.store = Store(config.store_path)
        try:
            self._seed_sheets()
            self._seed_vehicles()
        except BaseException:
            self.store.discard()  # a refused sheet must not leave the store locked
            raise
        # The rules, the sheets and the index live as long as the run: move them out of
        # the cyclic collector's sight, so its full passes scan only what a post makes.
        gc.collect()
        gc.freeze()

    @classmethod
    def open(cls, campaign_dir: Path | None = None, *, need_secret: bool = True) -> Campaign:
        config = load_config(find_config(campaign_dir))
        return cls(config, load_secret(config) if need_secret else None)

    def _seed_sheets(self) -> None:
        # A new store starts from the approved sheets shipped in the data folder. A GM's
        # NPCs need not keep to the players' budget; player characters must.
        self._seed(
            "characters",
            SHEETS_NAME,
            "character",
            stepped.character_from_record,
            stepped.character_to_record,
            lambda character, record: (
                stepped.validate_character(character, self.rules)
                if record.get("kind", "pc") == "pc"
                else []
            ),
        )

    def _seed_vehicles(self) -> None:
        characters = self.store.table("characters")

        def check(vehicle: vehicles.Vehicle, record: Mapping[str, Any]) -> list[str]:
            issues = vehicles.validate_vehicle(vehicle)
            if vehicle.pilot is not None and character_key(vehicle.pilot) not in characters:
                issues.append(f"The pilot {vehicle.pilot} is not a character of this campaign.")
            return issues

        self._seed(
            "vehicles",
            VEHICLES_NAME,
            "vehicle",
            vehicles.vehicle_from_record,
            vehicles.vehicle_to_record,
            check,
        )

    def _seed(
        self,
        table_name: str,
        file_name: str,
        section: str,
        read: Callable[[Mapping[str, Any]], Any],
        write: Callable[[Any], dict[str, Any]],
        check: Callable[[Any, Mapping[str, Any]], list[str]],
    ) -> None:
        """Fill an empty store table from data_dir/``file_name``'s ``[[section]]`` sheets.

        Every sheet the rules refuse is reported at once; after seeding, the store is
        the truth (wounds, approvals) and the file is not read again.
        """
        table = self.store.table(table_name)
        path = self.config.data_dir / file_name
        if len(table) or not path.is_file():
            return
        records = _read_toml(path).get(section, [])
        if not isinstance(records, list):
            raise ConfigError(f"{path}: write each sheet as a [[{section}]] table.")
        problems: list[str] = []
        for record in records:
            try:
                sheet = read({k: v for k, v in record.items() if k not in ("owner", "approved")})
            except UserError as error:
                problems.append(f"{record.get('name', '?')}: {error.message}")
                continue
            issues = check(sheet, record)
            if issues:
                problems.append(f"{sheet.name}: " + " ".join(issues))
                continue
            approved = bool(record.get("approved", True))
            entry = store_entry(sheet.name, record.get("owner"), approved, write(sheet))
            table.put(character_key(sheet.name), entry)
        if problems:
            raise ConfigError(f"{path} has sheets the rules refuse:\n- " + "\n- ".join(problems))
        self.store.flush()

    @property
    def npc_templates(self) -> dict[str, dict[str, Any]]:
        """The GM's NPC templates: the campaign's npc_templates.toml, else the stock one."""
        for folder in (self.config.data_dir, self.config.races_file.parent):
            path = folder / NPC_TEMPLATES_NAME
            if path.is_file():
                try:
                    document = tomllib.loads(path.read_text(encoding="utf-8"))
                except tomllib.TOMLDecodeError as error:
                    raise ConfigError(f"{path} is not valid TOML: {error}.") from error
                return {name.casefold(): dict(fields) for name, fields in document.items()}
        return {}

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
