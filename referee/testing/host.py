"""A ``referee host`` on a FakeReddit: many campaign folders, one host file, a fake clock.

The host's tests and ``bench/host_scale.py`` drive the same parts::

    host_campaign(server, folder, sub)   a campaign folder watching r/sub (its secret in a file)
    write_host(path, server, folders)    a host file serving ``folders`` on one account
    Rig(server, folder, subs)            campaigns + host file + Host on real PRAW (or
                                         Rig(server, folder, (), folders=...) on yours);
                                         ``run_until`` steps the host as ``serve_host``
                                         would, on the fake clock; ``restart`` as a crash

Example:

>>> import tempfile
>>> from pathlib import Path
>>> from referee.testing.worker import fake_reddit, bot_replies
>>> with fake_reddit(subreddits=("a", "b")) as server, tempfile.TemporaryDirectory() as tmp:
...     posts = [server.submit(sub, "alice", "Scene", "[[roll 1d6]]") for sub in ("a", "b")]
...     rig = Rig(server, Path(tmp), ("a", "b"))
...     _ = rig.run_until(server.clock.now() + 120)
...     rig.close()
...     sorted(bot_replies(server).values())
[1, 1]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import requests

from referee.live.host import Host
from referee.live.host_config import Account
from referee.live.reddit import RedditForum, open_forum
from referee.testing.campaign import make_campaign
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import POLL, SECRET, reddit_section


def host_campaign(
    server: FakeReddit,
    folder: Path,
    sub: str,
    *,
    poll: int = POLL,
    extra: str = "",
    **campaign: Any,
) -> Path:
    """Make a campaign folder watching r/``sub`` on ``server``; its secret in a file.

    ``extra`` ends its ``[reddit]`` table; ``campaign`` goes to ``make_campaign``
    (sheets, owners, gms, name)."""
    secret = '[secret]\nenv = "REFEREE_HOST_TEST_UNSET"\nfile = "secret.txt"\n'
    reddit = reddit_section(server, extra, subreddits=(sub,), poll=poll)
    made = make_campaign(folder, extra_config=secret + reddit, secret=SECRET.encode(), **campaign)
    made.close()
    (folder / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    return folder


def write_host(
    path: Path, server: FakeReddit, folders: Iterable[Path], *, budget_share: float = 0.6
) -> Path:
    """Write a host file serving ``folders`` on one account pointed at ``server``."""
    lines = [
        "[accounts.bot]",
        f"budget_share = {budget_share}",
        f'oauth_url = "{server.url}"',
        f'reddit_url = "{server.url}"',
        "",
    ]
    for folder in folders:
        lines += ["[[campaigns]]", f'folder = "{folder.as_posix()}"', ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


class Rig:
    """A FakeReddit, one campaign folder per subreddit and a Host on them."""

    def __init__(
        self,
        server: FakeReddit,
        root: Path,
        subs: Sequence[str],
        *,
        poll: int = POLL,
        budget_share: float = 0.6,
        extra: str = "",
        folders: Sequence[Path] = (),
        **host: Any,
    ) -> None:
        self.server = server
        self.root = root
        self.folders = list(folders) or [
            host_campaign(server, root / f"campaign-{sub}", sub, poll=poll, extra=extra)
            for sub in subs
        ]
        self.host_file = write_host(
            root / "host.toml", server, self.folders, budget_share=budget_share
        )
        self.host_options = host
        self.sessions: list[requests.Session] = []
        self.forums: list[RedditForum] = []
        self.host = self.start()

    def forum(self, account: Account) -> RedditForum:
        """The account's forum on the fake server (credentials of the server's bot)."""
        http = requests.Session()
        self.sessions.append(http)
        settings = {k: v for k, v in self.server.praw_settings().items() if "_url" not in k}
        forum = open_forum(account.reddit, session=http, **settings)
        self.forums.append(forum)
        return forum

    def start(self) -> Host:
        """A new Host on the host file (a new process, as far as the stores know)."""
        self.host = Host(
            self.host_file, clock=self.server.clock.now, forums=self.forum, **self.host_options
        )
        return self.host

    def restart(self) -> Host:
        """Drop the host as SIGKILL would: every campaign's unflushed changes are lost."""
        for worker in self.host.workers:
            worker.store.discard()
        self.host.accounts.clear()
        return self.start()

    def close(self) -> None:
        """Close the host (flushing every store) and the HTTP sessions."""
        self.host.close()
        for http in self.sessions:
            http.close()

    def run_until(self, at: float, request_seconds: float = 0.0) -> int:
        """Step the host's accounts as ``serve_host`` does until the fake clock reads
        ``at``; each request sent takes ``request_seconds``. The steps that did something."""
        clock = self.server.clock
        done = idle = 0
        while True:
            accounts = list(self.host.accounts.values())
            if not accounts:
                clock.advance(max(0.0, at - clock.now()))
                return done
            wakes = [(account.next_wake(), n) for n, account in enumerate(accounts)]
            wake, first = min(wakes)
            if wake > at:
                clock.advance(max(0.0, at - clock.now()))
                return done
            clock.advance(max(0.0, wake - clock.now()))
            before, started = self.server.count(), clock.now()
            report = accounts[first].step()
            accounts[first].take_requests()
            sent = self.server.count() - before
            clock.advance(sent * request_seconds)
            worked = report is not None and bool(
                report.refereed or report.delivered or report.new_posts
            )
            if sent or worked:
                done += 1
                idle = 0
            elif clock.now() == started:
                idle += 1
                if idle > 3:
                    raise AssertionError(f"the host is stuck at {started}: wakes, does nothing")
