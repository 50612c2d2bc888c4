"""``referee new DIR --system NAME``: a campaign folder, ready to try and to play.

It writes, into a folder it makes or finds empty (never through a symbolic link):

* ``config.toml``: every key of the core and every ruling of the system, each with a
  comment, at its default (the rulings read from the system's own rulings dataclass,
  its comments from that class's source);
* ``data/characters.toml``: the sheets file, empty but for how to fill it, and the
  tables the system ships for a new campaign (stepped's races, scale and NPC templates);
* ``sample-sheet.txt``: a character in the system's ``[[apply]]`` format, which
  ``referee import sample-sheet.txt --owner USER`` adds;
* ``secret.txt``: a fresh campaign secret, and in ``config.toml`` its sha256 (the
  commitment to publish before play);
* ``praw.ini``: the bot's Reddit credentials, as placeholders (0600, as the secret);
* ``.gitignore``: keeping the secret, the store and ``praw.ini`` out of version control.

Nothing here knows a dice system: the sample sheet is the system's (its sheet format's
``sample``), and a system without one gets its sheet format's ``form`` to follow.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import secrets
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import Enum
from pathlib import Path
from typing import Any

from referee.base.dice import commitment
from referee.base.errors import ConfigError
from referee.base.files import write_new, write_private
from referee.pipeline.campaign import CONFIG_NAME
from referee.system import System, rulings_defaults
from referee.system.registry import installed_systems, load_system

SECRET_NAME = "secret.txt"
SAMPLE_NAME = "sample-sheet.txt"

_CORE = """\
# referee: the campaign "{name}". Every key is optional and shown at its default;
# paths are relative to this file's folder. `referee systems` lists the dice systems.

[campaign]
# Shown in the footer of every verdict.
name = {name_toml}
# The dice system: {system} ({description}).
system = "{system}"
# Where the campaign's sheets (characters.toml, vehicles.toml), saved threads and store live.
data_dir = "data"
# Templates that override the system's and the core's: copy one there and edit it.
templates_dir = "templates"
# The race table, for a system that reads one (stepped: roll modifiers and stat caps).
races = "data/races.toml"
# The vehicle scale table, for a system that reads one (stepped, R-12).
scale = "data/scale.toml"
# Reddit usernames of GMs besides the watched subreddits' moderators.
gms = []

[secret]
# The campaign secret seeds every die: HMAC(secret, post, tag index). It never goes in
# this file. It is read from this environment variable first...
env = "REFEREE_SECRET"
# ...else from this file, which `referee new` made (keep it out of version control).
file = "{secret_name}"
# Make a random secret in that file on the first run if it is missing (false: refuse to
# start without one, so a lost secret is never silently replaced).
create_if_missing = false
# The published sha256 of the secret: publish it where players can see it before play;
# `referee verify` checks the revealed secret against it.
sha256 = "{sha256}"

[roster]
# Whether players see the stats of the GM's characters on the roster and in [[sheet]]:
# "shown" or "hidden" (names and state are shown either way).
npc_stats = "shown"

[initiative]
# Who besides a GM may write [[next]]: "turn" (the player whose character has the turn),
# "anyone", or "gm" (GMs only).
next_by = "turn"

[pace]
# Hours a player has for a turn in a thread's initiative, from the moment it begins (0: no
# deadline, unless a GM sets one in a thread with [[deadline 48h]]; 48 is two days).
turn_hours = 0
# The share of a turn's time after which its players are reminded, once (0: never).
remind_at = 0.5
# When a turn's time is up: "skip" (the turn passes on, with a line saying so), "gm" (each
# GM gets a private message to act for the character) or "hold" (nothing moves).
on_expiry = "gm"

[reddit]
# The praw.ini section with the bot's credentials (or use praw_* environment variables).
site = "referee"
# Subreddits to watch, without r/ (for example ["my_referee_test"]).
subreddits = []
# Single threads to watch besides the subreddits (ids such as "1gq7xk2"). Each 0.2 of
# budget_share reads one source of new comments: the subreddits (together) or a thread.
threads = []
# true: referee only the threads above, of the subreddits above (no request of their
# own), so that several campaigns share one subreddit; false: the whole subreddits.
only_threads = false
# With only_threads = true: threads whose title starts with this tag (any case), such as
# "[Ashes]", are this campaign's too; "" for none.
title_tag = ""
# The idle interval: a post is answered within it even after a quiet spell (at least 5).
poll_seconds = 60
# Seconds between reads of new comments while a tagged post is recent (2 to 12, and at
# most poll_seconds): 95% of the replies in an active thread come within 15 s.
active_poll_seconds = 5
# The share of Reddit's 100 requests a minute the bot may use (0.2 to 1).
budget_share = 0.6
# New submissions are read every Nth poll interval (and at least every poll_seconds).
submissions_every = 2
# The unread private messages (secret rolls) every Nth poll interval; 0: never.
inbox_every = 3
# The 100 newest refereed posts are re-read for edits every Nth poll interval; 0: never.
edits_every = 5
# How often the moderators (the GMs) are read again, in hours (at least 1).
moderators_refresh_hours = 6
# Publish the roster to this wiki page of the first subreddit; empty: never.
wiki_page = ""
# Publish the GMs' full roster to this moderators-only wiki page; empty: never.
gm_wiki_page = ""
# Seconds before a request to Reddit is given up.
timeout = 16
# The User-Agent sent with every request; Reddit asks for a descriptive one.
user_agent = "referee play-by-post dice referee"
# Only to run against a Reddit-compatible server instead of Reddit (the local trial):
# its address for API calls and for logging in.
# oauth_url = "http://127.0.0.1:8765"
# reddit_url = "http://127.0.0.1:8765"
"""

_CHARACTERS = """\
# The campaign's sheets, read into the store on the first run of any command.
# A sheet added or changed here later is read again: see "Characters" in the
# docs' Set-up page (docs/gm/setup.md). Players apply with [[apply]] in a post; a GM
# adds a character with `referee import SHEET --owner USER` (sample-sheet.txt shows the
# format).
"""

_PRAW_INI = """\
; The bot's Reddit credentials (a "script" app: https://www.reddit.com/prefs/apps).
; Keep this file out of version control. The section is config.toml's [reddit] site.
[referee]
client_id=YOUR_CLIENT_ID
client_secret=YOUR_CLIENT_SECRET
username=your_bot_account
password=its_password
"""

_GITIGNORE = """\
# Never committed: the campaign secret, the bot's credentials and the store.
{secret_name}
praw.ini
data/store.*
"""


@dataclass(frozen=True)
class NewCampaign:
    """What ``referee new`` made: the folder, its config and the commitment to publish."""

    folder: Path
    config: Path
    sha256: str  # of the secret's value (the file's bytes without the newline)
    sample: Path
    system: str
    name: str


def new_campaign(folder: Path, system_name: str, name: str | None = None) -> NewCampaign:
    """Write a new campaign of ``system_name`` into ``folder``; ConfigError if it may not.

    ``folder`` may be missing or an empty folder. One holding a campaign, or anything at
    all, or a symbolic link, is refused: nothing is ever overwritten, and every file is
    created new (``O_EXCL | O_NOFOLLOW``), never written through a link planted there.
    """
    installed = installed_systems()
    if system_name not in installed:
        raise ConfigError(
            f"No dice system {system_name!r} is installed; the installed systems are "
            f"{', '.join(installed)}. Give one of them: referee new {folder} --system NAME."
        )
    _refuse_unless_new(folder)
    title = name or f"My {system_name} campaign"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "data").mkdir()
        return _write_campaign(folder, system_name, title)
    except OSError as exc:  # something appeared in the folder while it was being written
        raise ConfigError(
            f"Cannot write {exc.filename or folder}: {exc.strerror or exc}; referee new writes "
            "only new files, never through a link. Pick a new folder name, or empty "
            f"{folder} and run referee new again."
        ) from exc


def _refuse_unless_new(folder: Path) -> None:
    """ConfigError unless ``folder`` is missing or an empty folder (and not a link)."""
    for held in (folder / CONFIG_NAME, folder / "data" / "store.json", folder / SECRET_NAME):
        if held.exists():
            raise ConfigError(
                f"{folder} already holds a campaign ({held.name} is there); referee new never "
                "overwrites one. Pick a new folder, or use this one with --campaign "
                f"{folder}."
            )
    if folder.is_symlink():
        raise ConfigError(
            f"{folder} is a symbolic link; referee new writes only into a real folder it "
            "makes or finds empty. Pick a new folder name, or give the folder the link "
            "points to."
        )
    if not folder.exists():
        return
    if not folder.is_dir():
        raise ConfigError(f"{folder} is a file, not a folder. Pick a new folder name.")
    found = sorted(entry.name for entry in os.scandir(folder))
    if found:
        shown = ", ".join(found[:5]) + (", ..." if len(found) > 5 else "")
        raise ConfigError(
            f"{folder} is not empty ({shown}); referee new writes only into a folder it "
            f"makes or finds empty. Pick a new folder name, or empty {folder} first."
        )


def _write_campaign(folder: Path, system_name: str, title: str) -> NewCampaign:
    """Write the campaign's files into the empty ``folder``, each a new file (never a link)."""
    system = load_system(system_name)
    secret = secrets.token_hex(32).encode()
    write_private(folder / SECRET_NAME, secret + b"\n")
    digest = commitment(secret)
    config = _CORE.format(
        name=title,
        name_toml=_toml(title),
        system=system_name,
        description=system.description.rstrip("."),
        secret_name=SECRET_NAME,
        sha256=digest,
    )
    write_new(folder / CONFIG_NAME, (config + "\n" + rulings_table(system)).encode())
    write_new(folder / "data" / "characters.toml", _CHARACTERS.encode())
    for table in starter_tables(system):
        write_new(folder / "data" / table.name, table.read_bytes())
    sample = folder / SAMPLE_NAME
    write_new(sample, sample_sheet(system).encode())
    write_private(folder / "praw.ini", _PRAW_INI.encode())  # the bot's credentials, once filled
    write_new(folder / ".gitignore", _GITIGNORE.format(secret_name=SECRET_NAME).encode())
    return NewCampaign(folder, folder / CONFIG_NAME, digest, sample, system_name, title)


def new_campaign_report(made: NewCampaign) -> str:
    """What ``referee new`` prints: the files made, the line to publish, what to try next."""
    folder = made.folder
    return "\n".join(
        [
            f"Made the {made.system} campaign {made.name!r} in {folder}:",
            f"  config.toml       every key commented, at its default (system = {made.system!r})",
            "  data/             the sheets file characters.toml, empty; the store goes here",
            f"  {SAMPLE_NAME}  a {made.system} character in the [[apply]] format",
            f"  {SECRET_NAME}        the campaign secret: keep it private until the campaign ends",
            "  praw.ini          the bot's Reddit credentials: fill in the placeholders",
            "  .gitignore        keeps the secret, praw.ini and the store out of version control",
            "",
            "Publish this line where your players can see it before play starts (config.toml's",
            "[secret] sha256 holds it too; `referee verify` checks the secret against it):",
            f"  The dice of {made.name} are committed by sha256 {made.sha256}",
            "",
            "Next:",
            f"  referee --campaign {folder} import {folder / SAMPLE_NAME} --owner REDDIT_USER",
            f'  referee --campaign {folder} roll "[[roll 2d6]]"',
            f"  referee-fake start --campaign {folder}     (try it on a local Reddit)",
        ]
    )


def commitment_mismatch(secret: bytes, published: str, where: Any) -> str:
    """``verify``'s line when the secret's sha256 is not the published one, saying why.

    referee commits to the secret's value: the file's bytes without the newline an
    editor or ``echo`` ends it with. A commitment made with ``sha256sum secret.txt`` hashes
    that newline too; the line says so, and which sha256 to publish instead.

    >>> line = commitment_mismatch(b"abc", commitment(b"abc\\n"), "secret.txt")
    >>> "with a newline after it" in line, f"Publish {commitment(b'abc')}" in line
    (True, True)
    """
    mine = commitment(secret)
    line = f"MISMATCH: the secret's sha256 is {mine}, not the published {published}."
    source = getattr(where, "secret_file", where)
    if published.lower() in {commitment(secret + b"\n"), commitment(secret + b"\r\n")}:
        return (
            f"{line} That one is the sha256 of the secret with a newline after it (`sha256sum "
            f"{source}` hashes the file's last newline too); the dice are the secret's own. "
            f"Publish {mine} (`printf %s SECRET | sha256sum` gives it) and put it in "
            "config.toml's [secret] sha256."
        )
    return (
        f"{line} The secret is not the one committed to: check that {source} holds the "
        "secret published before play, or that [secret] sha256 is copied whole."
    )


def starter_tables(system: System) -> list[Path]:
    """The tables ``system`` ships for a new campaign: its ``campaign/`` beside ``templates/``.

    >>> from referee.system.registry import load_system
    >>> [path.name for path in starter_tables(load_system("stepped"))]
    ['npc_templates.toml', 'races.toml', 'scale.toml']
    """
    if system.templates is None:
        return []
    return sorted((system.templates.parent / "campaign").glob("*.toml"))


def sample_sheet(system: System) -> str:
    """A character in ``system``'s ``[[apply]]`` format, as a file ``referee import`` reads."""
    sample = str(getattr(system.sheet, "sample", "")).strip()
    if not sample:
        return "# " + "\n# ".join(textwrap.wrap(system.sheet.form, 86)) + "\n"
    return (
        f"A {system.name} character, in the format a player posts under [[apply]]. Add it\n"
        f"with `referee import {SAMPLE_NAME} --owner REDDIT_USER` (no --owner: a GM's NPC).\n\n"
        f"```\n{sample}\n```\n"
    )


def rulings_table(system: System) -> str:
    """``[rulings]``: every ruling of ``system`` at its default, each with its comment."""
    notes = ruling_notes(system.rulings_type)
    lines = [
        "[rulings]",
        f"# The options of the {system.name} rules, {system.seed}; each is at its default.",
    ]
    for key, value in rulings_defaults(system.rulings_type).items():
        comment = notes.get(key) or [f"# {key.replace('_', ' ')}"]
        if isinstance(value, Enum):
            choices = ", ".join(f'"{choice.value}"' for choice in type(value))
            comment = [*comment, f"# One of {choices}."]
        lines.extend(comment)
        lines.append(f"{key} = {_toml(value)}")
    return "\n".join(lines) + "\n"


def ruling_notes(rulings_type: type) -> dict[str, list[str]]:
    """Each ruling's comment lines, as its dataclass's source writes them (``# ...``).

    The comment lines just above a field and the comment after it on its line, from the
    class or the class it extends; an Enum field gets its Enum's docstring too.
    """
    notes: dict[str, list[str]] = {}
    for cls in rulings_type.__mro__:
        for name, lines in _source_notes(cls).items():
            notes.setdefault(name, lines)
    defaults = rulings_defaults(rulings_type)
    for item in fields(rulings_type):
        default = defaults.get(item.name)
        if isinstance(default, Enum) and type(default).__doc__:
            doc = " ".join(str(type(default).__doc__).split())
            # A bare reference ("# R-15") is dropped where the Enum's docstring repeats it.
            kept = [n for n in notes.get(item.name, []) if not doc.startswith(n[2:].strip())]
            notes[item.name] = [*kept, f"# {doc}"] if doc not in " ".join(kept) else kept
    return notes


def _source_notes(cls: type) -> dict[str, list[str]]:
    """The comments beside each annotated field in ``cls``'s own source (none if unreadable)."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
        tree = ast.parse(source).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return {}
    lines = source.splitlines()
    notes: dict[str, list[str]] = {}
    for statement in tree.body if isinstance(tree, ast.ClassDef) else []:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        number = statement.lineno - 1
        start = number
        while start > 0 and lines[start - 1].lstrip().startswith("#"):
            start -= 1
        after = re.search(r"#\s*(.+)$", lines[number])
        notes[statement.target.id] = [
            *(line.strip() for line in lines[start:number]),
            *([f"# {after.group(1)}"] if after else []),
        ]
    return notes


def _toml(value: Any) -> str:
    """A TOML value: strings quoted, booleans lower case, sequences as arrays."""
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{key} = {_toml(item)}" for key, item in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        items = [_toml(item) for item in value]
        if sum(len(item) + 2 for item in items) <= 80:
            return "[" + ", ".join(items) + "]"
        wrapped = textwrap.wrap(", ".join(items), 84, break_long_words=False)
        return "[\n" + "".join(f"    {line}\n" for line in wrapped) + "]"
    raise TypeError(f"no TOML for {value!r}")
