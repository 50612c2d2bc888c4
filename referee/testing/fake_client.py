"""Act on the local Reddit as a player or a GM: post, edit, delete, message, read replies.

The sub-commands of ``python -m referee.testing.serve`` (and ``referee-fake``) other
than ``start`` use this module: each logs in to the running look-alike with real PRAW
as one of its seeded accounts and does what that user would do on Reddit. Where the
server is and who may log in is read from the state file ``start`` writes into the
campaign folder (:data:`STATE_NAME`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STATE_NAME = "local-reddit.json"  # written by `start` beside config.toml


@dataclass(frozen=True)
class LocalReddit:
    """What a client needs to reach the running look-alike, as ``start`` saved it."""

    url: str
    client_id: str
    client_secret: str
    subreddit: str
    thread: str  # the demo thread's submission fullname, where a new comment goes
    bot: str
    accounts: dict[str, str]  # username -> password
    roles: dict[str, str]  # username -> what the account is for, in words

    @classmethod
    def read(cls, campaign: Path) -> LocalReddit:
        """The state ``start`` wrote into ``campaign``; SystemExit saying how if there is none."""
        path = campaign / STATE_NAME
        try:
            return cls(**json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise SystemExit(
                f"No local Reddit is described in {path}. Start one first, in another "
                f"terminal: referee-fake start --trial {campaign} (from the repository's "
                "folder, as .venv/bin/referee-fake if the virtual environment is not active)"
            ) from None

    def write(self, campaign: Path) -> Path:
        """Save the state into ``campaign`` (the file the other sub-commands read)."""
        path = campaign / STATE_NAME
        path.write_text(json.dumps(self.__dict__, indent=2) + "\n", encoding="utf-8")
        return path

    def login(self, username: str) -> Any:
        """A ``praw.Reddit`` logged in as ``username`` (any case); SystemExit if unknown."""
        import praw

        name = next((n for n in self.accounts if n.casefold() == username.casefold()), None)
        if name is None:
            known = ", ".join(sorted(self.accounts))
            raise SystemExit(f"No account u/{username} on the local Reddit; accounts: {known}.")
        return praw.Reddit(
            client_id=self.client_id,
            client_secret=self.client_secret,
            username=name,
            password=self.accounts[name],
            user_agent=f"referee local trial (as u/{name})",
            oauth_url=self.url,
            reddit_url=self.url,
            check_for_updates=False,
            check_for_async=False,
        )


def _thing(reddit: Any, fullname: str) -> Any:
    """The comment, submission or message a fullname (``t1_…``, ``t3_…``) names."""
    found = next(iter(reddit.info(fullnames=[fullname])), None)
    if found is None:
        raise SystemExit(f"Nothing on the local Reddit is called {fullname}.")
    return found


def post(local: LocalReddit, author: str, body: str, parent: str | None = None) -> str:
    """Comment as ``author`` on the demo thread (or in reply to ``parent``); its fullname."""
    reddit = local.login(author)
    target = _thing(reddit, parent or local.thread)
    return str(target.reply(body).fullname)


def submit(local: LocalReddit, author: str, title: str, body: str = "") -> str:
    """Start a new thread (a self post) in the subreddit as ``author``; its fullname."""
    reddit = local.login(author)
    return str(reddit.subreddit(local.subreddit).submit(title, selftext=body).fullname)


def edit(local: LocalReddit, author: str, fullname: str, body: str) -> None:
    """Edit ``author``'s comment ``fullname`` to read ``body``."""
    _thing(local.login(author), fullname).edit(body)


def delete(local: LocalReddit, author: str, fullname: str) -> None:
    """Delete ``author``'s comment ``fullname``."""
    _thing(local.login(author), fullname).delete()


def message(local: LocalReddit, author: str, body: str, subject: str, to: str = "") -> None:
    """Send a private message as ``author`` (to the bot unless ``to`` names someone)."""
    reddit = local.login(author)
    reddit.redditor(to or local.bot).message(subject=subject, message=body)


def bot_replies(local: LocalReddit, limit: int = 10) -> Iterator[tuple[str, str, str]]:
    """The bot's newest comments, oldest first: (its fullname, what it answers, its text)."""
    reddit = local.login(local.bot)
    comments = list(reddit.redditor(local.bot).comments.new(limit=limit))
    for comment in reversed(comments):
        yield comment.fullname, comment.parent_id, comment.body


def inbox(local: LocalReddit, user: str, limit: int = 10) -> Iterator[tuple[str, str, str]]:
    """``user``'s newest private messages, oldest first: (its fullname, from whom, its text)."""
    reddit = local.login(user)
    items = list(reddit.inbox.messages(limit=limit))
    for item in reversed(items):
        yield item.fullname, str(item.author), item.body
