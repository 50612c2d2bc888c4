"""Days of play on the simulated clock: the live bot in its own process, crashed at will.

The soak test and ``bench/soak.py`` run the real worker in a child process
(:mod:`referee.testing.soak_bot`) against a FakeReddit in this one, through real PRAW,
and play a campaign at it for hours of the FakeReddit's clock::

    SoakBot(server, folder, log)   the bot's process: ``start``, ``run_until`` (steps it
                                   as ``serve`` would: jump to its wake, step, each
                                   request taking ``REQUEST_SECONDS``), ``stop`` (a
                                   restart's clean end), ``kill`` (SIGKILL), ``kill_within``
                                   (SIGKILL from inside one of its next requests, before
                                   or after Reddit acted on it), ``rss``
    Table(server, chance)          players, a GM and strangers: tagged and untagged
                                   comments, new scenes, wounds and heals, secret rolls
                                   and refused ones by private message, edits of answered
                                   posts, deletions; what was posted, and when
    soak(folder, plan, ...)        the whole run, hour by hour: play in the sessions,
                                   quiet between them, the restarts and kills of the
                                   plan; a SoakReport
    audit(server, table)           duplicate and missed replies, missed edit notes

Restarted after a crash, the bot must answer every post exactly once: a post answered
twice is a duplicate; a tagged post, a secret roll or a stranger's message left
unanswered is missed, as is an edit of an answered post whose reply never got the note.
A post deleted before the bot answers it may stay unanswered (Reddit refuses a reply
to it), never answered twice.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from referee.store.ledger import verify
from referee.testing.campaign import make_campaign, sheet
from referee.testing.reddit_server import FakeReddit, Request
from referee.testing.worker import SUB, Step, bot_messages, bot_replies, reddit_section, worker_env

HOUR = 3600.0
GM = "gm"  # the subreddit's moderator: a GM, whose private tags are secret rolls
STRANGER = "stranger"  # not a GM: a private message with tags is refused, politely
PLAYERS = ("kara_p", "dax_p", "mira_p", "ode_p")
# Arrivals a minute of each kind of post while a session is on.
RATES = {
    "comment": 3.0,  # a player's tagged comment in the scene
    "chatter": 0.6,  # an untagged comment: nothing to answer
    "gm": 0.4,  # the GM's roll in the scene
    "wound": 0.2,  # the GM wounds or heals Kara: the roster page changes
    "secret": 0.3,  # the GM's secret roll by private message
    "stranger": 0.05,  # a stranger's tags by private message: refused
    "edit": 0.3,  # a player edits an answered post of the last ten minutes: new dice
    "delete": 0.15,  # a player deletes a post of the last ten minutes
    "scene": 0.02,  # a new scene: a submission with a tag
}
RECENT = 600.0  # players edit and delete their posts of the last ten minutes only
# Between sessions: a tagged comment now and then (about one in two hours).
QUIET_RATE = 0.008
REQUEST_SECONDS = 0.3  # each request takes this long on the fake clock
RESTART_SECONDS = 5.0  # a service manager starts the bot again this long after it died
SETTLE = 1800.0  # seconds of the bot alone at the end: the last posts answered


@dataclass
class Posted:
    """A post of the soak and what became of it."""

    kind: str
    at: float
    in_session: bool
    deleted_at: float | None = None
    edited_at: float | None = None  # set only for edits of an answered post


class SoakBot:
    """The bot's process on ``folder``'s campaign, stepped on ``server``'s clock."""

    def __init__(self, server: FakeReddit, folder: Path, log: IO[str]) -> None:
        self.server = server
        self.folder = folder
        self.log = log
        self.process: subprocess.Popen[str] | None = None
        self.wake = 0.0
        self.starts = 0
        self.crashes = 0  # processes that died without being stopped
        self.last_rss = 0  # the resident memory of the process, at its last step
        # The armed kill: the request's number (or any), its path (or any), after its action
        self._kill_at: tuple[int | None, str | None, bool] | None = None
        self._exchange = 0  # the number of the request being served
        server.on_request = self._on_request

    def start(self) -> None:
        """Start a process on the campaign, at the clock's time."""
        self.process = subprocess.Popen(
            [sys.executable, "-m", "referee.testing.soak_bot", str(self.folder)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=worker_env(self.server),
            cwd=self.folder,
            text=True,
        )
        self.starts += 1
        before = self.server.count()
        answer = self._ask({"now": self.server.clock.now()})
        self.server.clock.advance((self.server.count() - before) * REQUEST_SECONDS)
        if answer is None:
            self._died()
        else:
            self.wake = float(answer["wake"])

    def stop(self) -> None:
        """End the process cleanly (the store flushed and closed), as a restart does."""
        if self.process is None:
            return
        if self._ask({"stop": True}) is None:
            self.crashes += 1
        self._discard()

    def kill(self) -> None:
        """SIGKILL the process now, between two steps."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self._discard()
            self.crashes += 1

    def kill_within(
        self, requests: int | None = None, *, path: str | None = None, after_action: bool
    ) -> None:
        """SIGKILL the process when Reddit receives its ``requests``-th request from now
        (or its next one to ``path``): before acting on it, or after (a reply posted
        whose answer the bot never reads)."""
        number = None if requests is None else self.server.count() + requests
        self._kill_at = (number, path, after_action)

    def rss(self) -> int:
        """The process's resident memory, in bytes (0: none running)."""
        if self.process is None:
            return 0
        status = Path(f"/proc/{self.process.pid}/status").read_text(encoding="utf-8")
        kilobytes = next(line.split()[1] for line in status.splitlines() if line[:6] == "VmRSS:")
        return int(kilobytes) * 1024

    def run_until(self, at: float) -> list[Step]:
        """Step the bot as ``serve`` does until the clock reads ``at``; a process that
        dies is started again ``RESTART_SECONDS`` later (a service manager's restart)."""
        clock = self.server.clock
        steps: list[Step] = []
        idle = 0  # steps in a row at one moment that did nothing: a stuck schedule
        while True:
            if self.process is None:
                if clock.now() + RESTART_SECONDS > at:
                    clock.advance(max(0.0, at - clock.now()))
                    return steps
                clock.advance(RESTART_SECONDS)
                self.start()
                continue
            if self.wake > at:
                clock.advance(max(0.0, at - clock.now()))
                return steps
            clock.advance(max(0.0, self.wake - clock.now()))
            started, before = clock.now(), self.server.count()
            answer = self._ask({"now": started})
            sent = self.server.count() - before
            clock.advance(sent * REQUEST_SECONDS)
            if answer is None:
                self._died()
                continue
            self.wake = float(answer["wake"])
            if sent:
                self.last_rss = self.rss()
                steps.append(Step(started, clock.now(), sent, [], 0))
                idle = 0
            elif self.wake <= started:
                idle += 1
                if idle > 3:
                    raise AssertionError(f"the bot is stuck at {started}: wakes, does nothing")

    def _ask(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Send one line, read the answer; None when the process died meanwhile."""
        assert self.process is not None and self.process.stdin and self.process.stdout
        try:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            return None
        line = self.process.stdout.readline()
        return json.loads(line) if line else None

    def _died(self) -> None:
        self._discard()
        self.crashes += 1
        self._kill_at = None

    def _discard(self) -> None:
        """Wait for the process to end and close its pipes."""
        assert self.process is not None
        self.process.wait(timeout=60)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                with contextlib.suppress(BrokenPipeError):
                    pipe.close()
        self.process = None

    def _on_request(self, request: Request, performed: bool) -> None:
        """FakeReddit's hook: the armed kill, at its request and moment."""
        if not performed:
            self._exchange = self.server.count()
        armed, process = self._kill_at, self.process
        if armed is None or process is None:
            return
        number, path, after_action = armed
        if (
            performed == after_action
            and number in (None, self._exchange)
            and path in (None, request.path)
        ):
            self._kill_at = None
            os.kill(process.pid, signal.SIGKILL)


class Table:
    """The players, the GM and a stranger, posting at random on the server's clock."""

    def __init__(self, server: FakeReddit, chance: random.Random) -> None:
        self.server = server
        self.chance = chance
        self.posted: dict[str, Posted] = {}
        self.scene = server.submit(SUB, GM, "Scene 1", "The scene opens.")
        self.wounded = False

    def play(self, bot: SoakBot, until: float, *, session: bool) -> list[Step]:
        """Post at random until the clock reads ``until``, the bot working meanwhile."""
        rates = RATES if session else {"comment": QUIET_RATE}
        total = sum(rates.values())
        steps: list[Step] = []
        at = self.server.clock.now() + self.chance.expovariate(total / 60)
        while at < until:
            steps += bot.run_until(at)
            kind = self.chance.choices(list(rates), weights=list(rates.values()))[0]
            self._post(kind, session)
            at = self.server.clock.now() + self.chance.expovariate(total / 60)
        return steps + bot.run_until(until)

    def _post(self, kind: str, session: bool) -> None:
        server, chance, now = self.server, self.chance, self.server.clock.now()
        player = chance.choice(PLAYERS)
        dice = f"[[roll 1d{chance.randint(4, 20)}+{chance.randint(0, 3)}]]"
        post: str | None = None
        if kind == "comment":
            post = server.comment(self.scene, player, f"I try. {dice}")
        elif kind == "chatter":
            server.comment(self.scene, player, "Out of character: back in five.")
        elif kind == "gm":
            post = server.comment(self.scene, GM, f"The guard swings. {dice}")
        elif kind == "wound":
            change = "heal Kara 1" if self.wounded else "wound Kara +1"
            self.wounded = not self.wounded
            post = server.comment(self.scene, GM, f"[[{change}]]")
        elif kind == "secret":
            post = server.send_message(GM, server.bot, "secret", f"Ambush? {dice}")
        elif kind == "stranger":
            post = server.send_message(STRANGER, server.bot, "hi", f"Me too {dice}")
        elif kind == "scene":
            self.scene = post = server.submit(SUB, GM, "A new scene", f"Dusk falls. {dice}")
        elif kind == "edit":
            self._edit(now)
        elif kind == "delete":
            self._delete(now)
        if post is not None:
            self.posted[post] = Posted(kind, now, session)

    def _recent(self, now: float) -> list[str]:
        return [
            post
            for post, p in self.posted.items()
            if p.kind == "comment" and p.at >= now - RECENT and p.deleted_at is None
        ]

    def _edit(self, now: float) -> None:
        answered = [
            post
            for post in self._recent(now)
            if self.posted[post].edited_at is None and _bot_reply(self.server, post)
        ]
        if answered:
            post = answered[self.chance.randrange(len(answered))]
            dice = f"[[roll 1d100+{self.chance.randint(0, 9)}]]"
            self.server.edit(post, f"I try again. {dice} (edited)")  # new dice: the note
            self.posted[post].edited_at = now

    def _delete(self, now: float) -> None:
        recent = self._recent(now)
        if recent:
            post = recent[self.chance.randrange(len(recent))]
            self.server.delete(post)
            self.posted[post].deleted_at = now


def _bot_reply(server: FakeReddit, post: str) -> dict[str, Any] | None:
    replies = [c for c in server.replies_to(post) if c["author"] == server.bot]
    return replies[0] if replies else None


@dataclass
class Audit:
    """What the bot did with every post of the soak."""

    duplicates: dict[str, int] = field(default_factory=dict)  # post: replies (more than 1)
    missed: list[str] = field(default_factory=list)  # posts never answered
    notes_missed: list[str] = field(default_factory=list)  # edits whose note never came
    delays: dict[str, float] = field(default_factory=dict)  # tagged comment: seconds


def audit(server: FakeReddit, table: Table) -> Audit:
    """Duplicate and missed replies (private ones too), missed edit notes, and each
    tagged comment's seconds from post to verdict."""
    result = Audit()
    replies = bot_replies(server)
    messages = bot_messages(server, GM, STRANGER)
    for post, posted in table.posted.items():
        answers = (messages if post.startswith("t4_") else replies)[post]
        if answers > 1:
            result.duplicates[post] = answers
        elif answers == 0 and posted.deleted_at is None:
            result.missed.append(post)
        reply = None if post.startswith("t4_") else _bot_reply(server, post)
        if posted.edited_at is not None and (
            reply is None or not reply["edited"] or float(reply["edited"]) < posted.edited_at
        ):
            result.notes_missed.append(post)
        if reply is not None and posted.kind == "comment":
            result.delays[post] = float(reply["created_utc"]) - posted.at
    return result


@dataclass(frozen=True)
class Plan:
    """A soak: ``hours`` of simulated time, the sessions of play (start and end, in
    hours), and the moments (hours) of restarts and kills."""

    hours: float
    sessions: tuple[tuple[float, float], ...]
    restarts: tuple[float, ...] = ()  # the bot is stopped cleanly and started again
    kills: tuple[float, ...] = ()  # SIGKILL within its next few requests
    idle_kills: tuple[float, ...] = ()  # SIGKILL between two steps
    # SIGKILL once its next reply is posted, before it reads Reddit's answer
    reply_kills: tuple[float, ...] = ()
    seed: int = 72


@dataclass
class Hour:
    """One simulated hour of a soak."""

    number: int
    delays: list[float]  # seconds from post to verdict, the tagged comments of sessions
    requests: int
    rss: int  # the bot's resident memory at the hour's end, in bytes
    starts: int  # processes started so far
    events: list[str]

    @property
    def p95(self) -> float:
        """The hour's 95th percentile of the delays (0 when none)."""
        ordered = sorted(self.delays)
        return ordered[round(0.95 * (len(ordered) - 1))] if ordered else 0.0

    @property
    def p50(self) -> float:
        """The hour's median delay (0 when none)."""
        return statistics.median(self.delays) if self.delays else 0.0


@dataclass
class SoakReport:
    """A soak's audit, its hours and its processes."""

    audit: Audit
    hours: list[Hour]
    posts: int
    starts: int
    crashes: int
    ledger_ok: bool
    refused: int  # requests Reddit refused for going past its limit


def soak(
    folder: Path,
    plan: Plan,
    *,
    reddit: str = "",
    log: Path | None = None,
    progress: Callable[[Hour], None] | None = None,
) -> SoakReport:
    """Play ``plan`` at the bot in ``folder`` (a new campaign; ``reddit``: more lines of
    its ``[reddit]`` table); a report of what it did. ``progress`` sees each hour."""
    with FakeReddit() as server:
        server.add_subreddit(SUB, moderators=[GM], wiki_contributors=[server.bot])
        extra = reddit_section(server, f'wiki_page = "roster"\n{reddit}')
        make_campaign(folder, [sheet("Kara", owner="kara_p")], extra_config=extra).close()
        with (log or folder / "bot.log").open("a", encoding="utf-8") as log_file:
            bot = SoakBot(server, folder, log_file)
            table = Table(server, random.Random(plan.seed))
            start = server.clock.now()
            bot.start()
            hours = _play(bot, table, plan, progress)
            bot.run_until(server.clock.now() + SETTLE)  # the last posts answered
            bot.stop()
        result = audit(server, table)
        for post, delay in result.delays.items():
            posted = table.posted[post]
            if posted.in_session:
                number = min(len(hours), int((posted.at - start) // HOUR) + 1)
                hours[number - 1].delays.append(delay)
        refused = server.refused
    campaign = make_campaign(folder)
    try:
        ledger_ok = verify(list(campaign.store.ledger), None).ok
    finally:
        campaign.close()
    posts, starts, crashes = len(table.posted), bot.starts, bot.crashes
    return SoakReport(result, hours, posts, starts, crashes, ledger_ok, refused)


def _play(
    bot: SoakBot, table: Table, plan: Plan, progress: Callable[[Hour], None] | None
) -> list[Hour]:
    """Play ``plan`` hour by hour: in or out of session, its events on time."""
    clock = table.server.clock
    start = clock.now()
    events = sorted(
        [(start + h * HOUR, "restart") for h in plan.restarts]
        + [(start + h * HOUR, "kill") for h in plan.kills]
        + [(start + h * HOUR, "idle kill") for h in plan.idle_kills]
        + [(start + h * HOUR, "reply kill") for h in plan.reply_kills]
    )
    bounds = {start + h * HOUR for pair in plan.sessions for h in pair}
    hours: list[Hour] = []
    for number in range(1, math.ceil(plan.hours) + 1):
        end = start + min(number, plan.hours) * HOUR
        marks = sorted(
            {end} | {t for t in bounds | {at for at, _ in events} if clock.now() < t < end}
        )
        steps: list[Step] = []
        for mark in marks:
            elapsed = clock.now() - start
            session = any(a * HOUR <= elapsed < b * HOUR for a, b in plan.sessions)
            steps += table.play(bot, mark, session=session)
            for _, name in (event for event in events if event[0] == mark):
                _event(bot, table.chance, name)
        named = [name for at, name in events if end - HOUR <= at < end]
        requests = sum(step.requests for step in steps)
        hours.append(Hour(number, [], requests, bot.last_rss, bot.starts, named))
        if progress is not None:
            progress(hours[-1])
    return hours


def _event(bot: SoakBot, chance: random.Random, name: str) -> None:
    if name == "restart":
        bot.stop()
        bot.start()
    elif name == "idle kill":
        bot.kill()
    elif name == "reply kill":
        bot.kill_within(path="/api/comment", after_action=True)
    else:  # within its next requests, before or after Reddit acts on one
        bot.kill_within(chance.randint(1, 12), after_action=chance.random() < 0.5)
