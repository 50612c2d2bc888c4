"""A Reddit look-alike on 127.0.0.1 holding the demo thread: try the live bot as a player or GM.

Run from the repository's folder (``referee-fake`` is the same command)::

    python -m referee.testing.serve start [--once] [--port 8765] [--campaign /tmp/referee-local]
    python -m referee.testing.serve accounts
    python -m referee.testing.serve post --as kara_venn_pbp "Kara fires. [[roll 2d6]]"
    python -m referee.testing.serve post --as gm_talon --to t1_abc "[[approve]]"
    python -m referee.testing.serve edit --as kara_venn_pbp t1_abc "Kara fires twice. [[roll 2d6]]"
    python -m referee.testing.serve delete --as kara_venn_pbp t1_abc
    python -m referee.testing.serve message --as gm_talon "[[roll 1d20]] the guard notices?"
    python -m referee.testing.serve replies | inbox --as gm_talon | roster

``start`` runs :class:`~referee.testing.reddit_server.FakeReddit` (the server the worker's
tests use) with the demo thread posted in r/DuneSeaPbP and its GM as the subreddit's
moderator, writes a ready campaign folder (a ``config.toml`` pointing the bot at this
server, the demo's sheets, a ``praw.ini`` holding the look-alike's credentials, and
``local-reddit.json`` for the other sub-commands), prints the command that runs the bot
there, and then prints each reply the bot posts, until Ctrl-C. With ``--once`` it runs the
bot for one cycle instead, shows its replies and stops. The other sub-commands, in a
second terminal, act through real PRAW as one of the seeded accounts (``accounts`` lists
them with their passwords and roles). No Reddit account and no network beyond 127.0.0.1
are involved. A sub-command given no ``start`` first defaults to ``start``.
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

from referee.pipeline.batch import load_thread
from referee.testing import fake_client
from referee.testing.fake_client import LocalReddit
from referee.testing.reddit_server import FakeReddit

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

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
wiki_page = "roster"
oauth_url = "{url}"
reddit_url = "{url}"
"""


def seed(server: FakeReddit, thread_path: Path) -> tuple[str, int]:
    """Post a saved thread into the server, its submission's author as moderator.

    Returns the subreddit and the number of posts written.
    """
    subreddit, _, count = seed_thread(server, thread_path)
    return subreddit, count


def seed_thread(server: FakeReddit, thread_path: Path) -> tuple[str, str, int]:
    """:func:`seed`, also returning the new submission's fullname: (subreddit, it, count)."""
    document = json.loads(thread_path.read_text(encoding="utf-8"))
    submission = document[0]["data"]["children"][0]["data"]
    thread = load_thread(thread_path)
    subreddit = str(submission.get("subreddit") or "referee_demo")
    # The GM moderates; the bot may write the wiki (the roster page) without being a GM.
    server.add_subreddit(
        subreddit, moderators=[thread.submission.author], wiki_contributors=[server.bot]
    )
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
    return subreddit, fullnames[thread.submission.fullname], len(fullnames)


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


def describe(server: FakeReddit, subreddit: str, thread: str, demo: Path) -> LocalReddit:
    """The running server as the other sub-commands see it: address, accounts and roles."""
    owners: dict[str, list[str]] = {}
    sheets = demo / "characters.toml"
    if sheets.is_file():
        for character in tomllib.loads(sheets.read_text(encoding="utf-8")).get("character", []):
            if character.get("owner"):
                owners.setdefault(str(character["owner"]).casefold(), []).append(
                    str(character["name"])
                )
    moderators = {name.casefold() for name in server.moderators_of(subreddit)}
    roles = {}
    for name in server.passwords():
        if name.casefold() == server.bot.casefold():
            roles[name] = "the bot: `referee run` logs in as it"
        elif name.casefold() in moderators:
            roles[name] = f"GM (moderator of r/{subreddit})"
        elif name.casefold() in owners:
            roles[name] = "player of " + ", ".join(owners[name.casefold()])
        else:
            roles[name] = "player with no character in the demo's sheets (may [[apply]])"
    return LocalReddit(
        url=server.url,
        client_id=server.client_id,
        client_secret=server.client_secret,
        subreddit=subreddit,
        thread=thread,
        bot=server.bot,
        accounts=server.passwords(),
        roles=roles,
    )


def _start(args: argparse.Namespace) -> int:
    shutil.rmtree(args.campaign, ignore_errors=True)
    server = FakeReddit(port=args.port).start()
    try:
        server.add_user("new_player")  # an account with no character yet, to try [[apply]]
        subreddit, thread, posts = seed_thread(server, args.demo / "thread.json")
        write_campaign(args.campaign, server, subreddit, args.demo)
        describe(server, subreddit, thread, args.demo).write(args.campaign)
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
        print("and post as a player or the GM (`accounts` lists who may log in):")
        print(
            f"    python -m referee.testing.serve post --campaign {args.campaign} "
            '--as kara_venn_pbp "[[roll Kara agility]]"'
        )
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


def _accounts(local: LocalReddit, args: argparse.Namespace) -> int:
    print(f"r/{local.subreddit} at {local.url}; the demo thread is {local.thread}.")
    width = max(map(len, local.accounts))
    for name, password in sorted(local.accounts.items()):
        print(f"  {name.ljust(width)}  password {password!r:16}  {local.roles.get(name, '')}")
    return 0


def _post(local: LocalReddit, args: argparse.Namespace) -> int:
    fullname = fake_client.post(local, args.author, args.text, args.to)
    print(f"{fullname}: posted by u/{args.author}; `referee run --once` answers it.")
    return 0


def _submit(local: LocalReddit, args: argparse.Namespace) -> int:
    fullname = fake_client.submit(local, args.author, args.title, args.text)
    print(f"{fullname}: a new thread in r/{local.subreddit} by u/{args.author}; reply with --to.")
    return 0


def _edit(local: LocalReddit, args: argparse.Namespace) -> int:
    fake_client.edit(local, args.author, args.fullname, args.text)
    print(f"{args.fullname}: edited by u/{args.author}.")
    return 0


def _delete(local: LocalReddit, args: argparse.Namespace) -> int:
    fake_client.delete(local, args.author, args.fullname)
    print(f"{args.fullname}: deleted by u/{args.author}.")
    return 0


def _message(local: LocalReddit, args: argparse.Namespace) -> int:
    fake_client.message(local, args.author, args.text, args.subject, args.to or "")
    print(f"Sent by u/{args.author} to u/{args.to or local.bot}.")
    return 0


def _replies(local: LocalReddit, args: argparse.Namespace) -> int:
    shown = 0
    for fullname, parent, body in fake_client.bot_replies(local, args.limit):
        print(f"--- {fullname}, the bot's reply to {parent} ---\n{body}\n")
        shown += 1
    if not shown:
        print("The bot has not replied yet: run it (`referee run --once` in the campaign).")
    return 0


def _inbox(local: LocalReddit, args: argparse.Namespace) -> int:
    shown = 0
    for fullname, author, body in fake_client.inbox(local, args.author, args.limit):
        print(f"--- {fullname}, from u/{author} ---\n{body}\n")
        shown += 1
    if not shown:
        print(f"u/{args.author} has no private messages.")
    return 0


def _roster(local: LocalReddit, args: argparse.Namespace) -> int:
    page = local.login(local.bot).subreddit(local.subreddit).wiki["roster"]
    try:
        print(page.content_md)
    except Exception:  # prawcore's NotFound: the bot has not published it yet
        print("The roster page does not exist yet: the bot publishes it when it runs.")
    return 0


ACTIONS = {
    "accounts": _accounts,
    "post": _post,
    "submit": _submit,
    "edit": _edit,
    "delete": _delete,
    "message": _message,
    "replies": _replies,
    "inbox": _inbox,
    "roster": _roster,
}


def parser() -> argparse.ArgumentParser:
    """The command line: ``start`` and the sub-commands that act on a running server."""
    main_parser = argparse.ArgumentParser(
        prog="python -m referee.testing.serve",
        description="A local Reddit to try the live bot on, as a player or a GM.",
    )
    commands = main_parser.add_subparsers(dest="command", required=True)
    campaign = argparse.ArgumentParser(add_help=False)
    campaign.add_argument(
        "--campaign",
        type=Path,
        default=Path("/tmp/referee-local"),
        help="the trial's campaign folder (start writes it, replacing it if it exists)",
    )
    start = commands.add_parser("start", parents=[campaign], help="start the server")
    start.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1")
    start.add_argument(
        "--demo", type=Path, default=Path("data/demo"), help="the demo's thread.json and sheets"
    )
    start.add_argument(
        "--once",
        action="store_true",
        help="run the bot for one cycle in the campaign folder, show its replies, and stop",
    )
    author = argparse.ArgumentParser(add_help=False)
    author.add_argument("--as", dest="author", required=True, help="the seeded account to act as")
    commands.add_parser("accounts", parents=[campaign], help="who may log in, and as what")
    post = commands.add_parser("post", parents=[campaign, author], help="comment in the thread")
    post.add_argument("text")
    post.add_argument("--to", help="the fullname to reply to (default: the demo thread)")
    submit = commands.add_parser(
        "submit", parents=[campaign, author], help="start a new thread (a self post)"
    )
    submit.add_argument("title")
    submit.add_argument("text", nargs="?", default="", help="the post's text (tags welcome)")
    edit = commands.add_parser("edit", parents=[campaign, author], help="edit your comment")
    edit.add_argument("fullname")
    edit.add_argument("text")
    delete = commands.add_parser("delete", parents=[campaign, author], help="delete your comment")
    delete.add_argument("fullname")
    message = commands.add_parser(
        "message", parents=[campaign, author], help="a private message (a GM's secret roll)"
    )
    message.add_argument("text")
    message.add_argument("--to", help="the recipient (default: the bot)")
    message.add_argument("--subject", default="secret roll")
    replies = commands.add_parser("replies", parents=[campaign], help="the bot's newest replies")
    replies.add_argument("--limit", type=int, default=10)
    inbox = commands.add_parser(
        "inbox", parents=[campaign, author], help="your private messages (the bot's answers)"
    )
    inbox.add_argument("--limit", type=int, default=10)
    commands.add_parser("roster", parents=[campaign], help="the roster wiki page the bot wrote")
    return main_parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments or arguments[0].startswith("-"):
        arguments.insert(0, "start")  # the form before sub-commands: serve [--once]
    args = parser().parse_args(arguments)
    if args.command == "start":
        return _start(args)
    return ACTIONS[args.command](LocalReddit.read(args.campaign), args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
