"""The host file: which Reddit accounts a ``referee host`` process logs in as, and which
campaign folders each serves.

Each campaign folder stays as ``referee run`` knows it (its own config.toml, store,
secret, GMs and rulings); the host file only groups them under accounts::

    # HOST.toml
    [accounts.dicebot]            # one PRAW client, one request budget
    site = "dicebot"              # the praw.ini section of its credentials (default: the name)
    budget_share = 0.6            # the share of Reddit's 100 requests a minute it may use

    [[campaigns]]
    folder = "ashes"              # relative to this file
    account = "dicebot"           # may be left out while there is one account

A campaign's own ``[reddit] budget_share`` and ``site`` are not used by the host: the
account's are (one budget for all of them). :func:`load_host` checks the file and
reports every problem at once, each saying how to fix it; a campaign whose folder is
broken is not the host file's problem (the host reports it and serves the others).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.base.errors import ConfigError
from referee.base.files import read_text_bounded
from referee.base.limits import DEFAULT_LIMITS
from referee.pipeline.campaign import RedditConfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_ACCOUNT_KEYS = {
    "site",
    "budget_share",
    "user_agent",
    "timeout",
    "oauth_url",
    "reddit_url",
}
_CAMPAIGN_KEYS = {"folder", "account"}


@dataclass(frozen=True)
class Account:
    """A Reddit account of the host: one client and one budget for its campaigns."""

    name: str
    reddit: RedditConfig  # site, budget_share, user agent, timeout, endpoints


@dataclass(frozen=True)
class HostedCampaign:
    """A campaign folder served by an account."""

    folder: Path
    account: str


@dataclass(frozen=True)
class HostFile:
    """A checked host file; folders are absolute."""

    path: Path
    accounts: dict[str, Account]
    campaigns: tuple[HostedCampaign, ...]


def load_host(path: Path) -> HostFile:
    """Read and check the host file; raise :class:`ConfigError` listing every problem."""
    try:
        text = read_text_bounded(path, DEFAULT_LIMITS.max_config_file_bytes, "The host file")
        document = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"Cannot read the host file {path}: {error}.") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}. Fix that line.") from error
    problems: list[str] = []
    for key in document:
        if key not in ("accounts", "campaigns"):
            problems.append(
                f"Unknown key {key!r}; a host file has [accounts.NAME] and [[campaigns]]."
            )
    accounts = {
        name: _account(name, table, problems)
        for name, table in _table(document.get("accounts", {}), "accounts", problems).items()
    }
    if not accounts:
        problems.append(
            "No account: add an [accounts.NAME] table (NAME: the bot's praw.ini section)."
        )
    campaigns: list[HostedCampaign] = []
    seen: set[Path] = set()
    entries = document.get("campaigns", [])
    if not isinstance(entries, list):
        problems.append("campaigns must be an array of tables: [[campaigns]] with folder = ...")
        entries = []
    for number, entry in enumerate(entries, 1):
        where = f"campaign {number}"
        if not isinstance(entry, dict) or not isinstance(entry.get("folder"), str):
            problems.append(f'{where}: give its folder, e.g. folder = "ashes".')
            continue
        for key in entry:
            if key not in _CAMPAIGN_KEYS:
                problems.append(f"{where}: unknown key {key!r}; known keys: folder, account.")
        folder = (path.parent / entry["folder"]).resolve()
        account = str(entry.get("account") or (next(iter(accounts)) if len(accounts) == 1 else ""))
        if account not in accounts:
            problems.append(
                f"{where} ({entry['folder']}): account {account!r} is not one of "
                f"{', '.join(sorted(accounts)) or 'the accounts'}; name one with account = ..."
            )
            continue
        if folder in seen:
            problems.append(f"{where}: {entry['folder']} is listed twice; list a folder once.")
            continue
        seen.add(folder)
        campaigns.append(HostedCampaign(folder, account))
    if problems:
        raise ConfigError(f"{path}: " + " ".join(problems))
    return HostFile(path.resolve(), accounts, tuple(campaigns))


def _table(value: Any, name: str, problems: list[str]) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    problems.append(f"{name} must be a table.")
    return {}


def _account(name: str, table: Any, problems: list[str]) -> Account:
    if not isinstance(table, dict):
        problems.append(f"[accounts.{name}] must be a table.")
        table = {}
    for key in table:
        if key not in _ACCOUNT_KEYS:
            problems.append(
                f"[accounts.{name}]: unknown key {key!r}; known keys: "
                f"{', '.join(sorted(_ACCOUNT_KEYS))}."
            )
    share = table.get("budget_share", RedditConfig.budget_share)
    if not isinstance(share, (int, float)) or not 0.15 < float(share) <= 1.0:
        problems.append(
            f"[accounts.{name}] budget_share = {share!r}: give a share of Reddit's 100 "
            "requests a minute between 0.15 and 1.0 (0.6 leaves room for other tools)."
        )
        share = RedditConfig.budget_share
    timeout = table.get("timeout", RedditConfig.timeout)
    if not isinstance(timeout, (int, float)) or timeout <= 0:
        problems.append(f"[accounts.{name}] timeout must be a number of seconds above 0.")
        timeout = RedditConfig.timeout
    reddit = RedditConfig(
        site=str(table.get("site", name)),
        budget_share=float(share),
        user_agent=str(table.get("user_agent", RedditConfig.user_agent)),
        timeout=float(timeout),
        oauth_url=str(table.get("oauth_url", "")),
        reddit_url=str(table.get("reddit_url", "")),
    )
    return Account(name, reddit)
