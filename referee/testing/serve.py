"""Serve a Reddit look-alike on 127.0.0.1 holding the demo thread, to watch the live bot work.

Run from the repository's folder::

    python -m referee.testing.serve [--once] [--port 8765] [--campaign /tmp/referee-local]

With ``--once`` it also runs the bot for one cycle, shows its replies and stops.

It starts :class:`~referee.testing.reddit_server.FakeReddit` (the server the worker's tests
use) with the demo thread posted in r/DuneSeaPbP and its GM as the subreddit's moderator,
writes a ready campaign folder (a ``config.toml`` pointing the bot at this server, the
demo's sheets, and a ``praw.ini`` holding the look-alike's credentials), prints the
command that runs the bot there, and then prints each reply the bot posts, until Ctrl-C.
No Reddit account and no network beyond 127.0.0.1 are involved.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from ..batch import load_thread
from .reddit_server import FakeReddit

PRAW_INI = """[referee]
client_id={client_id}
client_secret={client_secret}
username={bot}
password=bot-password
"""

CONFIG = """# A campaign that talks to the Reddit look-alike of `python -m referee.testing.serve`.
[campaign]
name = "Dune Sea Relay (local Reddit)"
data_dir = "data"
templates_dir = "{templates}"
races = "{races}"
scale = "{scale}"
gms = []  # the subreddit's moderators are the GMs

[secret]
file = "data/secret.txt"
create_if_missing = true

[reddit]
subreddits = ["{subreddit}"]
poll_seconds = 5
oauth_url = "{url}"
reddit_url = "{url}"
"""


def seed(server: FakeReddit, thread_path: Path) -> tuple[str, int]:
    """Post a saved thread into the server, its submission's author as moderator.

    Returns the subreddit and the number of posts written.
    """
    document = json.loads(thread_path.read_text(encoding="utf-8"))
    submission = document[0]["data"]["children"][0]["data"]
    thread = load_thread(thread_path)
    subreddit = str(submission.get("subreddit") or "referee_demo")
    server.add_subreddit(subreddit, moderators=[thread.submission.author])
    fullnames = {
        thread.submission.fullname: server.submit(
            subreddit,
            thread.submission.author,
            str(submission.get("title", "")),
            thread.submission.body,
        )
    }
    for post in thread.posts[1:]:
        parent = fullnames.get(post.parent or "", fullnames[thread.submission.fullname])
        fullnames[post.fullname] = server.comment(parent, post.author, post.body)
    return subreddit, len(fullnames)


def write_campaign(folder: Path, server: FakeReddit, subreddit: str, demo: Path) -> None:
    """A campaign folder whose config.toml and praw.ini point the bot at ``server``."""
    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    for name in ("characters.toml", "vehicles.toml", "npc_templates.toml"):
        if (demo / name).is_file():
            shutil.copy(demo / name, data / name)
    repo = demo.parent.parent if demo.parent.name == "data" else Path.cwd()
    (folder / "config.toml").write_text(
        CONFIG.format(
            templates=(repo / "templates").resolve().as_posix(),
            races=(repo / "data" / "races.toml").resolve().as_posix(),
            scale=(repo / "data" / "scale.toml").resolve().as_posix(),
            subreddit=subreddit,
            url=server.url,
        )
    )
    (folder / "praw.ini").write_text(
        PRAW_INI.format(
            client_id=server.client_id,
            client_secret=server.client_secret,
            bot=server.bot,
        )
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.testing.serve", description=__doc__)
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1")
    parser.add_argument(
        "--campaign",
        type=Path,
        default=Path("/tmp/referee-local"),
        help="the campaign folder to write (replaced if it exists)",
    )
    parser.add_argument(
        "--demo",
        type=Path,
        default=Path("data/demo"),
        help="the demo folder: thread.json and the sheets",
    )
    parser.add_argument(
        "--once",
        action="store_true",
        help="run the bot for one cycle in the campaign folder, show its replies, and stop",
    )
    args = parser.parse_args(argv)
    shutil.rmtree(args.campaign, ignore_errors=True)
    server = FakeReddit(port=args.port).start()
    try:
        subreddit, posts = seed(server, args.demo / "thread.json")
        write_campaign(args.campaign, server, subreddit, args.demo)
        if args.once:
            # The bot in its own process, in the campaign folder where PRAW finds praw.ini.
            command = [sys.executable, "-m", "referee", "run", "--once"]
            code = subprocess.run(command, cwd=args.campaign, check=False).returncode
            replies = server.comments_by(server.bot)
            for reply in replies:
                print(f"\n--- reply to {reply['parent_id']} ---\n{reply['body']}")
            print(
                f"\nThe bot replied to {len(replies)} of the {posts} posts: those with tags "
                f"(exit code {code})."
            )
            return code
        print(f"A Reddit look-alike is serving r/{subreddit} ({posts} posts) at {server.url}.")
        print("In another terminal, run the bot against it (one cycle, or keep it running):")
        print(f"    cd {args.campaign} && referee run --once")
        print("Its replies appear below; stop with Ctrl-C.", flush=True)
        stop = threading.Event()
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        shown = 0
        while not stop.wait(1.0):
            replies = server.comments_by(server.bot)
            for reply in replies[shown:]:
                print(f"\n--- reply to {reply['parent_id']} ---\n{reply['body']}", flush=True)
            shown = len(replies)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
