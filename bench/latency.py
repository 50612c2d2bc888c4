"""Post-to-verdict latency and Reddit requests a minute of the live worker, on a fake clock.

The real worker (its own schedule: ``Worker.step`` at ``Worker.next_wake``, as
``serve`` runs it on APScheduler) reads the local Reddit look-alike through real PRAW.
Time is FakeReddit's clock: the driver jumps to each wake, and every request the server
receives takes ``--request-seconds`` of it (Reddit answers in about that). Players post
at random (Poisson) times. Default settings (``poll_seconds = 60``,
``active_poll_seconds = 5``, ``budget_share = 0.6``) unless ``--reddit`` adds lines.

Scenarios:

    active  a game in progress for ``--minutes``: tagged comments, tagged submissions,
            GMs' secret rolls by private message, and edits of answered posts of the
            last ten minutes that change their tags (the reply gets the edited note)
            (a post counts as "active game" when the worker had answered a tagged post
            in the five minutes before it; the posts before that are listed apart, as
            their wait is the idle interval's, and so are the posts that queue behind
            them while the worker catches up)
    quiet   ``--quiet`` times: an hour of silence, then one tagged comment
    burst   100 tagged comments within one minute

It prints Markdown tables for the README: p50 / p95 / max seconds from a post's
creation to its verdict (for an edit: from the edit to the note), and requests a minute
idle, busy and in the busiest minute, as a share of Reddit's 100.

    .venv/bin/python bench/latency.py [--minutes 30] [--quiet 10] [--subreddits 1]
        [--seed 22] [--request-seconds 0.3] [--poll 60] [--reddit "active_poll_seconds = 3"]
        [--watched 0]
    .venv/bin/python bench/latency.py --grid --minutes 30   # the worst setting too

``--grid`` runs the active game at each setting of a grid over the allowed range of
the ``[reddit]`` keys (``GRID_*`` below) and names the setting with the worst p95.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from referee.pipeline.campaign import MAX_ACTIVE_POLL, comment_sources_allowed
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import Live, Step, fake_reddit

GM = "gm"  # moderates every subreddit: a GM, so its private messages are secret rolls
HOUR = 3600.0
# Arrivals a minute while the game is active.
RATES = {"comment": 3.0, "submission": 0.3, "secret": 0.5, "edit": 0.5}
# Players edit a post of theirs from this many seconds back at most (the edit sweep
# reaches the newest 100 refereed posts; older edits are not looked for).
EDIT_WITHIN = 600.0
# A post counts as "while active" when a tagged post was answered this recently.
ACTIVE_WINDOW = 300.0
ELSEWHERE = "elsewhere"  # a subreddit the bot does not watch, but some threads of it


@dataclass
class Run:
    """What one scenario measured."""

    delays: dict[str, list[float]] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    minutes: float = 0.0  # the span the requests are counted over
    requests: int = 0
    doubled: int = 0  # posts answered more than once
    unanswered: int = 0
    out_of_order: int = 0  # replies posted before the reply to an older post

    @property
    def per_minute(self) -> float:
        """Requests a minute over the scenario."""
        return self.requests / self.minutes if self.minutes else 0.0

    @property
    def busiest_minute(self) -> int:
        """The most requests in any 60 s window."""
        starts = [s.started for s in self.steps]
        return max(
            (sum(s.requests for s in self.steps if t <= s.started < t + 60) for t in starts),
            default=0,
        )


class Table:
    """The local Reddit, a campaign and the worker, driven on the fake clock."""

    def __init__(
        self,
        server: FakeReddit,
        folder: Path,
        subs: list[str],
        extra: str,
        pace: float,
        poll: int = 60,
        watched: int = 0,
    ):
        self.server = server
        self.subs = subs
        self.threads = [server.submit(sub, GM, "Scene", "The scene opens.") for sub in subs]
        # Threads of a subreddit the bot does not watch, each watched on its own.
        server.add_subreddit(ELSEWHERE, moderators=[GM])
        self.watched = [server.submit(ELSEWHERE, GM, f"Side {n}", "Go.") for n in range(watched)]
        if self.watched:
            names = ", ".join(f'"{t[3:]}"' for t in self.watched)
            extra += f"threads = [{names}]\n"
        self.live = Live(server, folder, extra, subreddits=subs, poll=poll)
        self.request_seconds = pace

    @property
    def now(self) -> float:
        """The fake clock."""
        return self.server.clock.now()

    def run_until(self, at: float) -> list[Step]:
        """Let the worker work until the clock reads ``at``."""
        return self.live.run_until(at, self.request_seconds)

    def close(self) -> None:
        """Close the campaign."""
        self.live.close()


def _verdict_at(server: FakeReddit, post: str) -> list[float]:
    """When the bot answered ``post`` (a comment, or a private message): every answer."""
    if post.startswith("t4_"):
        return [
            float(m["created_utc"])
            for m in server.messages_to(GM)
            if m["author"] == server.bot and m["parent_id"] == post
        ]
    return [float(c["created_utc"]) for c in server.replies_to(post) if c["author"] == server.bot]


def active(table: Table, minutes: float, chance: random.Random) -> Run:
    """A game in progress: every kind of post arriving at random for ``minutes``."""
    server = table.server
    table.run_until(table.now + 600)  # start-up and a quiet spell: the worker is idle
    start = table.now
    end = start + minutes * 60
    total = sum(RATES.values())
    arrivals: list[tuple[str, str, float]] = []  # (kind, fullname, when)
    answered: dict[str, float] = {}  # tagged comments that may be edited later: when posted
    run = Run()
    at = start + chance.expovariate(total / 60)
    while at < end:
        run.steps += table.run_until(at)
        kind = chance.choices(list(RATES), weights=list(RATES.values()))[0]
        sub = chance.choice(table.subs)
        thread = table.threads[table.subs.index(sub)]
        roll = f"[[roll 1d{chance.randint(4, 20)}+{chance.randint(0, 3)}]]"
        if kind == "comment":
            thread = chance.choice([thread, *table.watched])
            post = server.comment(thread, f"player{chance.randint(1, 6)}", f"I try {roll}")
            answered[post] = server.clock.now()
        elif kind == "submission":
            post = server.submit(sub, f"player{chance.randint(1, 6)}", "A new scene", roll)
            table.threads[table.subs.index(sub)] = post
        elif kind == "secret":
            post = server.send_message(GM, server.bot, "secret", f"Ambush check {roll}")
        else:
            recent = [p for p, t in answered.items() if t >= server.clock.now() - EDIT_WITHIN]
            ready = [p for p in recent if _verdict_at(server, p)]
            if not ready:
                at += chance.expovariate(total / 60)
                continue
            post = ready[chance.randrange(len(ready))]
            del answered[post]  # one edit a post: the note is added once
            # New dice, so the tags surely changed: the reply must get the note.
            server.edit(post, f"I try again [[roll 1d100+{chance.randint(0, 9)}]] (edited)")
        arrivals.append((kind, post, server.clock.now()))
        at += chance.expovariate(total / 60)
    run.steps += table.run_until(end + 300)  # let the last posts be answered
    run.requests = sum(s.requests for s in run.steps if s.started < end)
    run.minutes = minutes
    verdicts: list[float] = []  # when tagged posts were answered, so far
    openers: list[tuple[float, float]] = []  # session openers: when posted, when answered
    for kind, post, when in arrivals:
        if kind == "edit":
            (reply,) = [c for c in server.replies_to(post) if c["author"] == server.bot]
            edited = reply["edited"]
            answers = [float(edited)] if edited else []
        else:
            answers = _verdict_at(server, post)
        run.doubled += len(answers) > 1
        run.unanswered += not answers
        if not answers:
            print(f"unanswered: {kind} {post} at {when - start:.0f} s")
            continue
        # Active: the worker had answered a tagged post in the last five minutes. The
        # posts before that wait as after a quiet spell (at most poll_seconds), and so
        # do those that queue behind them while the worker catches up.
        is_active = any(when - ACTIVE_WINDOW <= t <= when for t in verdicts)
        if not is_active:
            openers.append((when, answers[0]))
            label = "session opener"
        elif any(posted < when < answered for posted, answered in openers):
            label = "catching up"
        else:
            label = kind
        run.delays.setdefault(label, []).append(answers[0] - when)
        verdicts.append(answers[0])
    return run


def quiet(table: Table, samples: int, chance: random.Random) -> tuple[Run, Run]:
    """``samples`` times an hour of silence and one tagged comment; the latency of each,
    and the requests a minute while idle."""
    server = table.server
    table.run_until(table.now + 600)
    post_run, idle = Run(), Run()
    for _ in range(samples):
        quiet_from = table.now + 600  # ten minutes on, the worker is surely idle again
        table.run_until(quiet_from)
        steps = table.run_until(quiet_from + HOUR - 600 + chance.uniform(0, 60))
        idle.steps += steps
        idle.requests += sum(s.requests for s in steps)
        idle.minutes += (table.now - quiet_from) / 60
        post = server.comment(table.threads[0], "player1", "After a long pause [[roll 1d20]]")
        created = server.clock.now()
        table.run_until(created + 120)
        answers = _verdict_at(server, post)
        post_run.unanswered += not answers
        post_run.doubled += len(answers) > 1
        if answers:
            post_run.delays.setdefault("first post", []).append(answers[0] - created)
    return post_run, idle


def burst(table: Table, chance: random.Random) -> Run:
    """100 tagged comments at random moments of one minute, in an active game."""
    server = table.server
    table.run_until(table.now + 600)
    run = Run()
    start = table.now
    times = sorted(start + chance.uniform(0, 60) for _ in range(100))
    posts: list[tuple[str, float]] = []
    for at in times:
        run.steps += table.run_until(at)
        post = server.comment(table.threads[0], f"player{len(posts) % 7}", "[[roll 2d6]]")
        posts.append((post, server.clock.now()))
    run.steps += table.run_until(start + 900)
    run.requests = sum(s.requests for s in run.steps)
    run.minutes = (table.now - start) / 60
    bot = [c for c in server.comments_by(server.bot) if c["parent_id"] in dict(posts)]
    order = [c["parent_id"] for c in sorted(bot, key=lambda c: int(c["name"][3:], 36))]
    replies = Counter(order)
    run.doubled = sum(1 for n in replies.values() if n > 1)
    run.unanswered = sum(1 for post, _ in posts if post not in replies)
    run.out_of_order = sum(1 for a, b in zip(order, [p for p, _ in posts], strict=False) if a != b)
    for post, when in posts:
        answers = _verdict_at(server, post)
        if answers:
            run.delays.setdefault("comment (burst)", []).append(answers[0] - when)
    return run


def _scenario(name: Callable[..., object], args: argparse.Namespace, *extra_args: object) -> object:
    subs = [f"table{n}" for n in range(args.subreddits)]
    with fake_reddit(subs, moderators=(GM,)) as server, tempfile.TemporaryDirectory() as tmp:
        table = Table(
            server, Path(tmp), subs, args.reddit, args.request_seconds, args.poll, args.watched
        )
        try:
            return name(table, *extra_args, random.Random(args.seed))
        finally:
            table.close()


def _row(label: str, values: list[float]) -> str:
    if not values:
        return f"| {label} | 0 | - | - | - |"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"| {label} | {len(values)} | {statistics.median(ordered):.1f} | {p95:.1f} "
        f"| {ordered[-1]:.1f} |"
    )


# The grid of [reddit] settings --grid walks: the ends and the middle of each key's
# allowed range (poll_seconds from 5, with no upper limit: 300 stands for a slow idle
# pace; active_poll_seconds from 2 to 12, at most poll_seconds; budget_share from 0.2
# to 1), with the default reads of the subreddits alone, or with every read each
# interval and as many watched threads as the share allows (one source of new
# comments per 0.2 of budget_share, the subreddits' listing counting as one).
GRID_POLL = (5, 60, 300)
GRID_ACTIVE = (2, 5, MAX_ACTIVE_POLL)
GRID_SHARE = (0.2, 0.6, 1.0)
EVERY_READ = "submissions_every = 1\ninbox_every = 1\nedits_every = 1\n"


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] if values else 0.0


def _cell(values: list[float]) -> str:
    return f"{_p95(values):.1f}" if values else "-"


def grid(args: argparse.Namespace) -> None:
    """The active game at each setting of the grid: p95 of each kind of post, and the worst."""
    print(f"{args.minutes:.0f}-minute active game at each setting, seed {args.seed}\n")
    print(
        "| poll | active | share | every read, most threads | comments | p95 | max "
        "| submissions p95 | secret rolls p95 | edits p95 | catching up max | unanswered |"
    )
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    worst: tuple[float, str] = (0.0, "")
    for poll in GRID_POLL:
        for active_seconds in sorted({min(a, poll) for a in GRID_ACTIVE}):
            for share in GRID_SHARE:
                for busy in (False, True):
                    args.poll = poll
                    args.reddit = (
                        f"active_poll_seconds = {active_seconds:g}\nbudget_share = {share}\n"
                    )
                    args.watched = 0
                    if busy:
                        args.reddit += EVERY_READ
                        args.watched = comment_sources_allowed(share) - 1
                    game = _scenario(active, args, args.minutes)
                    assert isinstance(game, Run)
                    comments = game.delays.get("comment", [])
                    label = (
                        f"| {poll} | {active_seconds:g} | {share} | "
                        f"{f'yes, {args.watched}' if busy else 'no'} |"
                    )
                    catching = game.delays.get("catching up", [])
                    print(
                        f"{label} {len(comments)} | {_p95(comments):.1f} "
                        f"| {max(comments, default=0.0):.1f} "
                        f"| {_cell(game.delays.get('submission', []))} "
                        f"| {_cell(game.delays.get('secret', []))} "
                        f"| {_cell(game.delays.get('edit', []))} "
                        f"| {max(catching, default=0.0):.1f} "
                        f"| {game.unanswered + game.doubled} |",
                        flush=True,
                    )
                    worst = max(worst, (_p95(comments), label))
    print(f"\nworst p95 of comments in an active game: {worst[0]:.1f} s at {worst[1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30, help="length of the active game")
    parser.add_argument("--quiet", type=int, default=10, help="quiet hours, each then one post")
    parser.add_argument("--subreddits", type=int, default=1)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--request-seconds", type=float, default=0.3)
    parser.add_argument("--reddit", default="", help="lines for config.toml's [reddit]")
    parser.add_argument("--poll", type=int, default=60, help="[reddit] poll_seconds")
    parser.add_argument(
        "--watched", type=int, default=0, help="threads of another subreddit to watch"
    )
    parser.add_argument(
        "--grid", action="store_true", help="the active game over a grid of [reddit] settings"
    )
    args = parser.parse_args()
    if args.grid:
        grid(args)
        return

    game = _scenario(active, args, args.minutes)
    silence = _scenario(quiet, args, args.quiet)
    rush = _scenario(burst, args)
    assert isinstance(game, Run) and isinstance(rush, Run) and isinstance(silence, tuple)
    first, idle = silence

    print(
        f"{args.subreddits} subreddit(s), {args.request_seconds} s a request, seed {args.seed}"
        f"{', ' + args.reddit if args.reddit else ''}\n"
    )
    print("| seconds from post to verdict | posts | p50 | p95 | max |")
    print("|---|---:|---:|---:|---:|")
    labels = {
        "comment": "comment, active game",
        "submission": "submission, active game",
        "secret": "secret roll by private message, active game",
        "edit": "edit noted in the reply, active game",
        "session opener": "posts before the game's first verdict",
        "catching up": "posts while the bot answers those",
    }
    for kind, label in labels.items():
        print(_row(label, game.delays.get(kind, [])))
    print(_row("first post after an hour of silence", first.delays.get("first post", [])))
    print(_row("burst: 100 comments in one minute", rush.delays.get("comment (burst)", [])))
    print()
    print("| requests to Reddit | a minute | share of Reddit's 100 |")
    print("|---|---:|---:|")
    for label, value in (
        ("idle", idle.per_minute),
        (f"active game ({args.minutes:.0f} min)", game.per_minute),
        ("active game, busiest minute", float(game.busiest_minute)),
        ("burst, busiest minute", float(rush.busiest_minute)),
    ):
        print(f"| {label} | {value:.1f} | {value:.0f}% |")
    print()
    for label, run in (("active", game), ("quiet", first), ("burst", rush)):
        print(
            f"{label}: answered twice {run.doubled}, unanswered {run.unanswered}, "
            f"out of order {run.out_of_order}"
        )


if __name__ == "__main__":
    main()
