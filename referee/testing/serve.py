"""A Reddit look-alike on 127.0.0.1 holding the demo thread: try the live bot as a player or GM.

Run from the repository's folder (``python -m referee.testing.serve`` is the same command)::

    referee-fake start [--system NAME | --campaign DIR] [--trial DIR] [--fresh] [--once]
    referee-fake run [--once]
    referee-fake accounts
    referee-fake post --as kara_venn_pbp "Kara fires. [[roll 2d6]]"
    referee-fake post --as gm_talon --to t1_abc "[[approve]]"
    referee-fake edit --as kara_venn_pbp t1_abc "Kara fires twice. [[roll 2d6]]"
    referee-fake delete --as kara_venn_pbp t1_abc
    referee-fake message --as gm_talon "[[roll 1d20]] the guard notices?"
    referee-fake replies | inbox --as gm_talon | roster

``start`` runs :class:`~referee.testing.reddit_server.FakeReddit` (the server the worker's
tests use, on a clock that moves with real time) with a campaign's thread posted in its
subreddit and its GM as the subreddit's moderator: a system's demo (``--system NAME``,
by default the stepped one) or a campaign of the GM's (``--campaign DIR``, copied, never
changed; see :mod:`referee.testing.trial`). It writes the trial's folder (``--trial``,
``/tmp/referee-local``: a ``config.toml`` pointing the bot at this server, the copied
sheets and store, a ``praw.ini`` holding the look-alike's credentials, and ``local-reddit.json``
for the other sub-commands), prints the commands to use, and then prints each reply the
bot posts, until Ctrl-C. With ``--once`` it runs the bot for one cycle instead, shows its
replies and stops. The other sub-commands, in a second terminal, run the bot in the
trial's folder (``run``) or act through real PRAW as one of the seeded accounts
(``accounts`` lists them with their passwords and roles). No Reddit account and no
network beyond 127.0.0.1 are involved. A sub-command given no ``start`` first defaults
to ``start``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

import prawcore

from referee.base.errors import StoreError
from referee.pipeline.batch import load_thread
from referee.pipeline.campaign import STORE_NAME, load_config
from referee.store.store import Store
from referee.testing import fake_client
from referee.testing.fake_client import LocalReddit
from referee.testing.reddit_server import FakeReddit, WallClock
from referee.testing.trial import Source, find_source, keep_apart, make_folder, write_trial

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEFAULT_TRIAL = Path("/tmp/referee-local")  # the trial's folder unless --trial names one
TRIAL_SUBREDDIT = "referee_trial"  # where a campaign without a saved thread is played

PRAW_INI = """[referee]
client_id={client_id}
client_secret={client_secret}
username={bot}
password=bot-password
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


def write_campaign(folder: Path, server: FakeReddit, subreddit: str, source: Source) -> None:
    """A trial's folder: ``source`` copied, its config.toml and praw.ini pointing at ``server``."""
    write_trial(folder, source, subreddit, server.url)
    (folder / "praw.ini").write_text(
        PRAW_INI.format(
            client_id=server.client_id,
            client_secret=server.client_secret,
            bot=server.bot,
        )
    )


def seed_source(server: FakeReddit, source: Source) -> tuple[str, str, int]:
    """Post ``source``'s thread (or open an empty one by its first GM): (subreddit, it, count).

    Every character's owner gets an account, and so does ``new_player`` (no character yet,
    to try ``[[apply]]``).
    """
    if source.thread is not None:
        subreddit, thread, count = seed_thread(server, source.thread)
    else:
        config = load_config(source.config)
        gm = config.gms[0] if config.gms else "gm"
        subreddit = TRIAL_SUBREDDIT
        server.add_subreddit(subreddit, moderators=[gm], wiki_contributors=[server.bot])
        thread = server.submit(
            subreddit, gm, f"{config.name}: a local trial", "Post your tags below."
        )
        count = 1
    known = {name.casefold() for name in server.passwords()}
    for name in ["new_player", *_owners(load_config(source.config).data_dir)]:
        if name.casefold() not in known:
            server.add_user(name)
            known.add(name.casefold())
    return subreddit, thread, count


def _owners(data: Path) -> dict[str, list[str]]:
    """The owners of the characters in ``data``: its characters.toml and, when the
    campaign has one, its store (characters imported or approved): account -> names."""
    owners: dict[str, list[str]] = {}
    sheets = data / "characters.toml"
    if sheets.is_file():
        for character in tomllib.loads(sheets.read_text(encoding="utf-8")).get("character", []):
            if character.get("owner"):
                owners.setdefault(str(character["owner"]), []).append(str(character["name"]))
    try:
        store = Store(data / STORE_NAME, read_only=True)
    except StoreError:  # no store yet: the sheets are all there is
        return owners
    with store:
        for record in store.table("characters").values():
            owner, name = record.get("owner"), record.get("name")
            if owner and name and name not in owners.get(str(owner), []):
                owners.setdefault(str(owner), []).append(str(name))
    return owners


def describe(server: FakeReddit, subreddit: str, thread: str, data: Path) -> LocalReddit:
    """The running server as the other sub-commands see it: address, accounts and roles.

    ``data`` is the folder of the campaign's sheets (who plays whom).
    """
    owners = {name.casefold(): names for name, names in _owners(data).items()}
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
            roles[name] = "player with no character in the campaign's sheets (may [[apply]])"
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


def trial_server(port: int) -> FakeReddit:
    """The look-alike ``start`` runs: on ``port``, its clock (and rate-limit window) real time.

    >>> type(trial_server(0).clock).__name__
    'WallClock'
    """
    return FakeReddit(port=port, clock=WallClock())


def _me() -> str:
    """This command as the GM typed it (``.venv/bin/referee-fake``), for the hints it prints."""
    typed = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path()
    return str(typed) if typed.name == "referee-fake" else "python -m referee.testing.serve"


def _start(args: argparse.Namespace) -> int:
    source = find_source(args.system, args.campaign, Path.cwd())
    if args.campaign is not None:
        keep_apart(args.trial, source)
    make_folder(args.trial, args.fresh)
    try:
        server = trial_server(args.port).start()
    except OSError as error:
        raise SystemExit(
            f"Cannot serve on 127.0.0.1:{args.port} ({error.strerror}): is another trial "
            "running? Stop it, or pick another port with --port N."
        ) from None
    try:
        subreddit, thread, posts = seed_source(server, source)
        write_campaign(args.trial, server, subreddit, source)
        describe(server, subreddit, thread, args.trial / "data").write(args.trial)
        if args.once:
            code = _run_bot(args.trial, once=True)
            replies = server.comments_by(server.bot)
            for reply in replies:
                print(f"\n--- reply to {reply['parent_id']} ---\n{reply['body']}")
            print(
                f"\nThe bot replied to {len(replies)} of the {posts} posts: those with tags "
                f"(exit code {code})."
            )
            return code
        me = _me()
        at = "" if args.trial == DEFAULT_TRIAL else f" --trial {args.trial}"
        print(
            f"A Reddit look-alike is serving r/{subreddit} ({posts} posts of {source.label}) "
            f"at {server.url}; the trial's campaign is {args.trial}."
        )
        print("In another terminal, run the bot against it (one cycle, or keep it running):")
        print(f"    {me} run{at} --once")
        print("and post as a player or the GM (`accounts` lists who may log in):")
        print(f"    {me} accounts{at}")
        print(f'    {me} post{at} --as new_player "[[roll 2d6]]"')
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


def _run_bot(trial: Path, once: bool) -> int:
    """``referee run`` in its own process, in the trial's folder where PRAW finds praw.ini."""
    command = [sys.executable, "-m", "referee", "run", *(["--once"] if once else [])]
    try:
        return subprocess.run(command, cwd=trial, check=False).returncode
    except KeyboardInterrupt:  # Ctrl-C reached the bot too, which stops cleanly
        return 0


def _run(local: LocalReddit, args: argparse.Namespace) -> int:
    return _run_bot(args.trial, args.once)


def _accounts(local: LocalReddit, args: argparse.Namespace) -> int:
    print(f"r/{local.subreddit} at {local.url}; the trial's thread is {local.thread}.")
    width = max(map(len, local.accounts))
    for name, password in sorted(local.accounts.items()):
        print(f"  {name.ljust(width)}  password {password!r:16}  {local.roles.get(name, '')}")
    return 0


def _post(local: LocalReddit, args: argparse.Namespace) -> int:
    fullname = fake_client.post(local, args.author, args.text, args.to)
    print(f"{fullname}: posted by u/{args.author}; `{_me()} run --once` answers it.")
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
        print(f"The bot has not replied yet: run it (`{_me()} run --once`).")
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
    "run": _run,
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
        prog="referee-fake",
        description="A local Reddit to try the live bot on, as a player or a GM.",
    )
    commands = main_parser.add_subparsers(dest="command", required=True)
    trial = argparse.ArgumentParser(add_help=False)
    trial.add_argument(
        "--trial",
        type=Path,
        default=DEFAULT_TRIAL,
        help=f"the trial's own folder, which start makes (default {DEFAULT_TRIAL})",
    )
    start = commands.add_parser("start", parents=[trial], help="start the server")
    played = start.add_mutually_exclusive_group()
    played.add_argument(
        "--system", help="play this system's demo (default: stepped's, the repository's own)"
    )
    played.add_argument(
        "--campaign",
        type=Path,
        help="play your campaign in this folder (its config.toml, sheets and store are copied; "
        "the folder is never changed)",
    )
    start.add_argument(
        "--fresh",
        action="store_true",
        help="replace the trial's folder if an earlier start made it (never another folder)",
    )
    start.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1")
    start.add_argument(
        "--once",
        action="store_true",
        help="run the bot for one cycle in the trial's folder, show its replies, and stop",
    )
    run = commands.add_parser(
        "run", parents=[trial], help="run the bot in the trial's folder (`referee run` there)"
    )
    run.add_argument("--once", action="store_true", help="one cycle, then a summary line")
    author = argparse.ArgumentParser(add_help=False)
    author.add_argument("--as", dest="author", required=True, help="the seeded account to act as")
    commands.add_parser("accounts", parents=[trial], help="who may log in, and as what")
    post = commands.add_parser("post", parents=[trial, author], help="comment in the thread")
    post.add_argument("text")
    post.add_argument("--to", help="the fullname to reply to (default: the trial's thread)")
    submit = commands.add_parser(
        "submit", parents=[trial, author], help="start a new thread (a self post)"
    )
    submit.add_argument("title")
    submit.add_argument("text", nargs="?", default="", help="the post's text (tags welcome)")
    edit = commands.add_parser("edit", parents=[trial, author], help="edit your comment")
    edit.add_argument("fullname")
    edit.add_argument("text")
    delete = commands.add_parser("delete", parents=[trial, author], help="delete your comment")
    delete.add_argument("fullname")
    message = commands.add_parser(
        "message", parents=[trial, author], help="a private message (a GM's secret roll)"
    )
    message.add_argument("text")
    message.add_argument("--to", help="the recipient (default: the bot)")
    message.add_argument("--subject", default="secret roll")
    replies = commands.add_parser("replies", parents=[trial], help="the bot's newest replies")
    replies.add_argument("--limit", type=int, default=10)
    inbox = commands.add_parser(
        "inbox", parents=[trial, author], help="your private messages (the bot's answers)"
    )
    inbox.add_argument("--limit", type=int, default=10)
    commands.add_parser("roster", parents=[trial], help="the roster wiki page the bot wrote")
    return main_parser


def _listening(url: str) -> bool:
    """Whether something accepts connections at ``url`` (a local address: an answer or a
    refusal is immediate; the timeout only guards a port that swallows packets)."""
    address = urlsplit(url)
    try:
        with socket.create_connection((address.hostname, address.port or 80), timeout=2):
            return True
    except OSError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments or arguments[0].startswith("-"):
        arguments.insert(0, "start")  # the form before sub-commands: serve [--once]
    args = parser().parse_args(arguments)
    if args.command == "start":
        return _start(args)
    local = LocalReddit.read(args.trial)
    stopped = SystemExit(
        f"No local Reddit answers at {local.url}: the one started for {args.trial} has "
        "stopped (its posts went with it). Start a new one in another terminal: "
        f"referee-fake start --trial {args.trial} --fresh"
    )
    if args.command != "accounts" and not _listening(local.url):
        raise stopped
    try:
        return ACTIONS[args.command](local, args)
    except prawcore.exceptions.RequestException:  # it stopped while we spoke to it
        raise stopped from None
    except BrokenPipeError:  # the reader went away (`| head`): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
