"""The shell's commands that change the campaign: approve, reject, revise, import, failures.

Each leaves a request (:mod:`referee.live.shell_requests`) and waits for its answer:
when the live bot runs, the bot takes it between its steps (within a second or so)
and its answer is read back from the store; when no bot runs, the command takes the
store's lock and carries the request out itself (with any request left waiting
before it, in order). Either way a reply players wait for (a decision, a retried
post) is left for the bot, which posts it exactly once. :mod:`referee.cli` dispatches
to these; they print for the GM and return the exit code.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from referee.base.errors import ConfigError, StoreError
from referee.base.files import read_text_bounded
from referee.base.limits import DEFAULT_LIMITS
from referee.base.posts import post_link, safe_text
from referee.live.operate import reading
from referee.live.shell_requests import (
    EXIT_OK,
    EXIT_TAG_ERRORS,
    EXIT_USAGE,
    SHELL_GM,
    Answer,
    Request,
    answer_of,
    done,
    leave_offline,
    new_request,
    read_request,
    refusal,
    refused_path,
    request_folder,
    store_owner,
    submit,
    take,
    waiting,
)
from referee.live.worker import stored_moderators
from referee.pipeline.campaign import Campaign, Config, find_config, load_config, load_secret
from referee.pipeline.failures import FailureLog, tag_failure_key
from referee.pipeline.flow import Referee
from referee.render.terminal import shown
from referee.store.store import Store, writer_running
from referee.system.arguments import shorten

WAIT_SECONDS = 30.0  # how long a command waits for the running bot to take its request
LOOK_EVERY = 0.1  # seconds between looks at whether it was taken


def ask(config: Config, request: Request, *, wait: float | None = None) -> tuple[Answer, str]:
    """Leave ``request`` for the store's writer and wait for its answer.

    Returns the answer and who took it: ``"bot"`` (the running bot), ``"shell"`` (this
    command, no bot running) or ``"nobody"`` (the bot had not taken it within ``wait``
    seconds, :data:`WAIT_SECONDS` unless told; it stays waiting and is taken later).
    """
    folder = request_folder(config.store_path)
    path = submit(folder, request)
    deadline = time.monotonic() + (WAIT_SECONDS if wait is None else wait)
    told = False
    while True:
        if not path.exists():  # taken: its answer was flushed before the file went
            with Store(config.store_path, read_only=True) as store:
                answer = answer_of(store, request.id)
            if answer is None:
                answer = Answer("", EXIT_USAGE, _not_taken(config, path))
            return answer, "bot"
        if not writer_running(config.store_path):
            try:
                return _take_here(config, request), "shell"
            except StoreError:
                if not writer_running(config.store_path):
                    raise  # not the lock: a store that cannot be opened
        elif not told:
            print(
                "referee: the live bot is running; it takes this request between its steps.",
                file=sys.stderr,
            )
            told = True
        if time.monotonic() >= deadline:
            note = (
                f"the live bot has not taken the request yet ({path} waits); it will, and "
                "`referee status` counts the requests waiting. If the bot is stuck, stop it: "
                "the next command that changes the campaign, or the bot's next start, takes it."
            )
            return Answer("", EXIT_OK, note), "nobody"
        time.sleep(LOOK_EVERY)


def _take_here(config: Config, request: Request) -> Answer:
    """No bot runs: take the store's lock and every waiting request, oldest first."""
    others = 0
    with Campaign(config, load_secret(config)) as campaign:
        referee = Referee(campaign, gms=[SHELL_GM, *stored_moderators(campaign.store)])
        leave = leave_offline(campaign.store)
        owner = store_owner(config.store_path)
        for path in waiting(request_folder(config.store_path)):
            taken = read_request(path, owner)
            if taken is not None:
                take(referee, taken, leave)
                campaign.store.flush()
                others += taken.id != request.id
            done(path)
        answer = answer_of(campaign.store, request.id)
    if others:
        print(f"referee: also took {others} earlier request(s) left for the bot.", file=sys.stderr)
    mine = request_folder(config.store_path) / f"{request.id}.json"
    if answer is None and refused_path(mine).exists():
        return Answer("", EXIT_USAGE, _not_taken(config, mine))
    return answer or Answer("", EXIT_USAGE, "the request was lost; run the command again.")


def _not_taken(config: Config, path: Path) -> str:
    """Why the request left in ``path`` went unanswered: refused (and why), or unreadable."""
    kept = refused_path(path)
    if kept.exists():
        why = refusal(kept, store_owner(config.store_path)) or "see the bot's log"
        return (
            f"the request was refused, not run: {why}. It is kept as {kept}; only the "
            "store's owner may leave requests, in a folder no one else may write."
        )
    return f"the bot could not read the request; it is kept as {path.stem}.bad"


def _finish(answer: Answer, by: str, args: argparse.Namespace) -> int:
    """Print an answer for the GM: the reply on stdout, what happens next on stderr."""
    if answer.text:
        sys.stdout.write(shown(answer.text, getattr(args, "format", None), sys.stdout))
        if not answer.text.endswith("\n"):
            sys.stdout.write("\n")
    if answer.note:
        print(f"referee: {answer.note}", file=sys.stderr)
    if answer.bot_does:
        when = "when it next runs" if by == "shell" else "at its next step"
        print(f"referee: the live bot {answer.bot_does} {when}.", file=sys.stderr)
    return answer.code


def _config(args: argparse.Namespace) -> Config:
    return load_config(find_config(args.campaign))


def decide(args: argparse.Namespace) -> int:
    """``referee approve NAME [--with ...]``, ``reject NAME REASON``, ``revise NAME NOTE``."""
    words = args.amendments if args.command == "approve" else args.note
    request = new_request("decide", decision=args.command, name=args.name, words=words)
    return _finish(*ask(_config(args), request), args)


def import_sheet(args: argparse.Namespace) -> int:
    """``referee import SHEET [--owner USER] [--force]``."""
    path: Path = args.sheet
    try:
        text = read_text_bounded(path, DEFAULT_LIMITS.max_sheet_file_bytes, "The sheet")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"Cannot read {path} as UTF-8 text: {error}.") from error
    owner = args.owner or ""
    request = new_request("import", sheet=text, owner=owner, force="yes" if args.force else "")
    return _finish(*ask(_config(args), request), args)


def failures(args: argparse.Namespace) -> int:
    """``referee failures`` (the list), ``--retry POST``, ``--forget POST#TAG``."""
    if args.retry:
        request = new_request("retry", post=safe_text(args.retry))
        return _finish(*ask(_config(args), request), args)
    if args.forget:
        request = new_request("forget", key=safe_text(args.forget))
        return _finish(*ask(_config(args), request), args)
    with reading(args) as campaign:
        failed = list(FailureLog(campaign.store))
    if not failed:
        print("No failed posts.")
        return EXIT_OK
    for failure in failed:
        if failure.tag is None:
            print(f"{failure.post}  by {failure.author}  at {failure.failed_at}")
        else:
            key = tag_failure_key(failure.post, failure.tag)
            print(
                f"{key}  tag {failure.tag + 1} of the post, by {failure.author}  at "
                f"{failure.failed_at}: [[{shorten(failure.tag_text, 60)}]]"
            )
        print(f"    {post_link(failure.as_post())}")
        print(f"    {failure.error}")
    posts = sum(failure.tag is None for failure in failed)
    tags = len(failed) - posts
    if posts:
        print(
            f"{posts} failed post(s). After a fix, `referee failures --retry POST` "
            "referees one again."
        )
    if tags:
        print(
            f"{tags} failed tag(s): the rest of each post stands. After a fix, the player "
            "writes the tag again in a new reply; `referee failures --forget POST#TAG` "
            "takes it off this list."
        )
    return EXIT_TAG_ERRORS
