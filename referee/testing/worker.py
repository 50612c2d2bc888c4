"""The live worker on a FakeReddit: a campaign on disk, real PRAW, a fake clock.

The worker's tests, its fault tests and ``bench/worker_requests.py`` all drive the same
parts, so they share them here::

    fake_reddit(...)              a running FakeReddit whose client sleeps are recorded
    reddit_section(server, ...)   the [reddit] table of config.toml, pointed at the server
    Live(server, folder, ...)     campaign + RedditForum + Worker; ``restart`` as a crash;
                                  ``run_until`` steps the worker as ``serve`` would, on
                                  the fake clock (each request taking ``request_seconds``)
    seed_tagged(server, ...)      threads of tagged posts to referee
    bot_replies(server)           how many replies the bot left under each post
    worker_env(server)            the environment of a ``referee run`` process

Example:

>>> import tempfile
>>> from pathlib import Path
>>> with fake_reddit() as server, tempfile.TemporaryDirectory() as folder:
...     tagged = seed_tagged(server, threads=1, per_thread=2)
...     live = Live(server, Path(folder))
...     cycles = live.run_until_settled()
...     live.close()
...     sorted(bot_replies(server).values())
[1, 1, 1]
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from referee.live.reddit import open_forum
from referee.live.worker import Worker
from referee.pipeline.campaign import Campaign
from referee.pipeline.flow import Referee
from referee.testing.campaign import make_campaign
from referee.testing.reddit_server import REDDIT_QUOTA, FakeReddit, client_sleeps

SUB = "dicegames"  # the subreddit the helpers watch unless told otherwise
POLL = 60  # seconds between cycles, on the fake clock
SECRET = "test-secret"


@contextmanager
def fake_reddit(
    subreddits: Iterable[str] = (SUB,),
    moderators: Iterable[str] = ("gm",),
    wiki_contributors: Iterable[str] = (),
    quota: int = REDDIT_QUOTA,
) -> Iterator[FakeReddit]:
    """A running FakeReddit with ``subreddits``, each moderated by ``moderators``, and
    Reddit's request ``quota``; PRAW's and prawcore's sleeps are recorded, not slept."""
    with FakeReddit(quota=quota) as server, client_sleeps():
        for sub in subreddits:
            server.add_subreddit(
                sub, moderators=list(moderators), wiki_contributors=list(wiki_contributors)
            )
        yield server


def reddit_section(
    server: FakeReddit,
    extra: str = "",
    *,
    subreddits: Iterable[str] = (SUB,),
    poll: int = POLL,
) -> str:
    """The ``[reddit]`` table of a config.toml that points the worker at ``server``."""
    names = ", ".join(f'"{sub}"' for sub in subreddits)
    return (
        f"[reddit]\nsubreddits = [{names}]\npoll_seconds = {poll}\n"
        f'oauth_url = "{server.url}"\nreddit_url = "{server.url}"\n{extra}'
    )


def bot_replies(server: FakeReddit) -> Counter[str]:
    """How many comments the bot left under each post (by parent fullname)."""
    return Counter(c["parent_id"] for c in server.comments_by(server.bot))


def bot_messages(server: FakeReddit, *users: str) -> Counter[str]:
    """How many private replies the bot sent ``users``, by the message each answers."""
    return Counter(
        m["parent_id"]
        for user in users
        for m in server.messages_to(user)
        if m["author"] == server.bot and m["parent_id"]
    )


def seed_tagged(server: FakeReddit, threads: int, per_thread: int, sub: str = SUB) -> list[str]:
    """Threads whose submission and every comment hold one tag; their fullnames."""
    tagged = []
    for t in range(threads):
        submission = server.submit(sub, "alice", f"Scene {t}", f"Opening [[roll 1d{t + 4}]]")
        tagged.append(submission)
        for n in range(per_thread):
            tagged.append(server.comment(submission, f"player{n % 5}", f"[[roll {n % 3 + 1}d6]]"))
    return tagged


def worker_env(server: FakeReddit, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a ``referee run`` process: the bot's praw_* credentials and secret."""
    settings = server.praw_settings()
    base = os.environ if environ is None else environ
    env = {k: v for k, v in base.items() if not k.lower().startswith("praw_")}
    for key in ("client_id", "client_secret", "username", "password"):
        env[f"praw_{key}"] = settings[key]
    env["REFEREE_SECRET"] = SECRET
    return env


class Live:
    """A FakeReddit, a campaign on disk and a worker on both; ``restart`` is a new process.

    ``reddit`` adds lines to the ``[reddit]`` table; ``sheets`` are stored as approved in
    a campaign of ``system`` under ``rulings``;
    ``gms`` are passed to the Referee; other keywords go to :class:`Worker`, but
    ``page_size``, which goes to :class:`RedditForum`.
    """

    def __init__(
        self,
        server: FakeReddit,
        folder: Path,
        reddit: str = "",
        *,
        subreddits: Iterable[str] = (SUB,),
        sheets: Iterable[Mapping[str, Any]] = (),
        system: str = "stepped",
        rulings: Mapping[str, Any] | None = None,
        **worker: Any,
    ) -> None:
        self.server = server
        self.folder = folder
        self.reddit_config = reddit
        self.subreddits = tuple(subreddits)
        self.sheets = tuple(sheets)
        self.system, self.rulings = system, rulings
        self.worker_options = worker
        self.sessions: list[requests.Session] = []
        self.campaign: Campaign | None = None
        self.worker = self.start()

    def start(self) -> Worker:
        """Open the campaign (rewriting config.toml) and make a new worker on it."""
        extra = reddit_section(self.server, self.reddit_config, subreddits=self.subreddits)
        sheets = () if self.campaign is not None else self.sheets  # only into a new store
        self.campaign = make_campaign(
            self.folder, sheets, extra_config=extra, system=self.system, rulings=self.rulings
        )
        http = requests.Session()
        self.sessions.append(http)
        settings = {k: v for k, v in self.server.praw_settings().items() if "_url" not in k}
        options = dict(self.worker_options)
        page_size = options.pop("page_size", 100)
        gms = options.pop("gms", ())
        forum = open_forum(self.campaign.config.reddit, page_size, session=http, **settings)
        self.worker = Worker(
            Referee(self.campaign, clock=self.server.clock.now, gms=gms),
            forum,
            self.campaign.config.reddit,
            clock=self.server.clock.now,
            **options,
        )
        return self.worker

    def restart(self) -> Worker:
        """Drop the worker as a crash would: unflushed changes are lost."""
        assert self.campaign is not None
        self.campaign.store.discard()
        return self.start()

    def close(self) -> None:
        """Close the campaign (flushing it) and the HTTP sessions."""
        if self.campaign is not None:
            self.campaign.close()
        for http in self.sessions:
            http.close()

    def run_until_settled(self, cycles: int = 30) -> int:
        """Run cycles a poll interval apart on the fake clock until quiet cycles in a row
        have read every kind of source (listings, threads, the inbox) and no reply is
        open; the cycles it took."""
        wanted = set(self.worker.cycle().sources)  # the first cycle reads every source
        quiet: set[str] = set()
        for n in range(2, cycles + 1):
            self.server.clock.advance(POLL)
            report = self.worker.cycle()
            busy = report.refereed or report.messages or report.failure or report.skipped
            quiet = set() if busy or self.worker.open_posts else quiet | set(report.sources)
            if quiet >= wanted:
                return n
        raise AssertionError(f"still open after {cycles} cycles: {self.worker.open_posts}")

    def run_until(self, at: float, request_seconds: float = 0.0) -> list[Step]:
        """Step the worker as :func:`~referee.live.service.serve` does until the fake clock reads
        ``at``: jump to :meth:`~referee.live.worker.Worker.next_wake`, step, and let each
        request sent take ``request_seconds``. The steps that did something."""
        clock = self.server.clock
        steps: list[Step] = []
        idle_steps = 0  # steps in a row at one moment that did nothing: a stuck schedule
        while True:
            wake = self.worker.next_wake()
            if wake > at:
                clock.advance(max(0.0, at - clock.now()))
                return steps
            clock.advance(max(0.0, wake - clock.now()))
            started, before = clock.now(), self.server.count()
            report = self.worker.step()
            sent = self.server.count() - before
            clock.advance(sent * request_seconds)
            if sent or report.sources or report.refereed:
                steps.append(Step(started, clock.now(), sent, report.sources, report.delivered))
                idle_steps = 0
            elif clock.now() == started:
                idle_steps += 1
                if idle_steps > 3:
                    raise AssertionError(f"the worker is stuck at {started}: wakes, does nothing")

    def bot_replies(self) -> Counter[str]:
        """How many replies the bot left under each post."""
        return bot_replies(self.server)


@dataclass(frozen=True)
class Step:
    """One step of the worker on the fake clock."""

    started: float
    ended: float  # started plus the simulated time of its requests
    requests: int  # requests the server received (logins and retries included)
    sources: list[str]  # what it read
    delivered: int  # replies it posted
