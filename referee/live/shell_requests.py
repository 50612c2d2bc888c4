"""What a GM does in the shell reaches the thread: requests the store's writer takes once.

A shell command that decides something players wait for (``referee approve``,
``reject``, ``revise``, ``failures --retry``; also ``import`` and ``failures --forget``)
never writes the store beside the live bot: the store has one writer, and two would
overwrite each other's rolls. The command leaves a *request* instead, one JSON file in
``<data>/store.requests/`` (written to a temp file, fsynced, renamed into place: a
request is whole or absent), and the store's writer takes it: the running bot between
its steps (it looks every second), or, when no bot runs, the shell command itself.

Taking a request (:func:`take`), exactly once across a crash at any point:

1. if the store's ``shell_requests`` table holds the request's id, it was taken
   already: its recorded answer stands, nothing runs again;
2. else it runs through the same :class:`~referee.pipeline.flow.Referee` as a GM's tag
   (a decision is the tag ``[[approve NAME]]`` written by the shell's GM), and its answer
   is put under its id, beside what it changed and the reply it leaves for the thread
   (a delivery like every reply's: pending, posted once by the bot);
3. the writer flushes all of it as ONE synced batch, then deletes the file.

A request runs as a GM, so only the store's owner may leave one: the folder is made
0700, and a request is taken only from a folder that is a real folder of ours, writable
by us alone, and only if the file is a regular file (not a link) owned by the store
file's owner and writable by its owner alone (:func:`refusal`). Any other is refused:
kept as ``<id>.refused`` for the GM to look at, logged with the reason, never run; the
shell command that left it says why.

Killed before 3's flush, nothing of the request landed and the file is still there:
it is taken again from the start. Killed after it, the id is in the store: the file is
deleted and nothing is done twice. The reply then goes out through the bot's own
exactly-once delivery: a decision is posted under the player's application post (the
bot looks for it by the decision's roll id before posting again after a crash); a
retried failure's reply is edited into the failure notice the bot posted.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import stat
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

from referee.base.errors import ConfigError, OperatorError, UserError
from referee.base.files import PRIVATE_FOLDER_MODE
from referee.base.limits import DEFAULT_LIMITS
from referee.base.posts import Post, post_link, safe_text
from referee.live.delivery import DeliversReplies
from referee.live.parts import OPEN_KEY, WORKER_TABLE, CycleReport, Delivery, Task
from referee.pipeline.failures import describe
from referee.pipeline.flow import Outcome, Referee
from referee.read.sheets import sheet_block
from referee.store.entries import character_key
from referee.store.store import Store
from referee.store.tinyfile import fsync_directory

log = logging.getLogger(__name__)

SHELL_GM = "gm (shell)"  # the author of what the shell does: no Reddit name has a space
SHELL_THREAD = "t3_shell"  # the "thread" of the shell's records (no Reddit thread)
TABLE = "shell_requests"  # request id -> its answer: the proof that it was taken
REQUEST_BYTES = 256 * 1024  # the most a request file may hold (a sheet to import, say)
REQUESTS_A_STEP = 20  # requests the bot takes at once, before its next step
EXIT_OK, EXIT_TAG_ERRORS, EXIT_USAGE = 0, 1, 2  # as the shell's commands exit

Leave = Callable[[str, dict[str, Any], dict[str, Any]], None]  # (post, record, delivery)


@dataclass(frozen=True)
class Request:
    """One shell command for the store's writer to carry out."""

    id: str  # time-ordered: the milliseconds in hex, then a random part
    command: str  # a key of HANDLERS
    args: dict[str, str]

    @property
    def fullname(self) -> str:
        """The shell post's fullname: its roll ids are ``<id>-1``..., unique to it."""
        return f"cli_{self.id}"


@dataclass(frozen=True)
class Answer:
    """What taking a request said: the reply's Markdown, the exit code, a line for stderr."""

    text: str
    code: int
    note: str = ""
    bot_does: str = ""  # what the bot does with the reply ("posts it under ..."), or ""

    def to_record(self) -> dict[str, Any]:
        return {"text": self.text, "code": self.code, "note": self.note, "bot_does": self.bot_does}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Answer:
        return cls(
            str(record.get("text", "")),
            int(record.get("code", EXIT_USAGE)),
            str(record.get("note", "")),
            str(record.get("bot_does", "")),
        )


# -- the folder of requests -------------------------------------------------------------


def request_folder(store_path: Path) -> Path:
    """Where requests for the writer of ``store_path`` wait: ``<data>/store.requests/``."""
    return store_path.with_name(store_path.stem + ".requests")


def new_request(command: str, **args: str) -> Request:
    """A request with a fresh id (time-ordered, so requests are taken in the order made)."""
    if command not in HANDLERS:
        raise ValueError(f"no shell request {command!r}")
    stamp = f"{int(time.time() * 1000):011x}{secrets.token_hex(3)}"
    return Request(stamp, command, {key: safe_text(value) for key, value in args.items()})


def submit(folder: Path, request: Request) -> Path:
    """Write ``request`` into ``folder`` whole (temp file, fsync, rename); its path."""
    data = orjson.dumps({"id": request.id, "command": request.command, "args": request.args})
    if len(data) > REQUEST_BYTES:
        raise ConfigError(
            f"That request is {len(data):,} bytes; a shell request holds {REQUEST_BYTES:,} "
            "at most. Shorten the sheet or the note."
        )
    try:
        folder.mkdir(mode=PRIVATE_FOLDER_MODE, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        path = folder / f"{request.id}.json"
        os.replace(temp, path)
        fsync_directory(folder)
    except OSError as exc:
        raise ConfigError(
            f"Cannot leave the request in {folder}: {exc.strerror or exc}. Run the command "
            "as the user the bot runs as (it owns the data folder)."
        ) from exc
    return path


def waiting(folder: Path) -> list[Path]:
    """The requests waiting in ``folder``, oldest first."""
    try:
        names = sorted(
            entry.name
            for entry in os.scandir(folder)
            if entry.name.endswith(".json") and not entry.name.startswith(".")
        )
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [folder / name for name in names]


def store_owner(store_path: Path) -> int:
    """The uid that may leave requests: the store file's owner (ours while it is new)."""
    try:
        return os.stat(store_path).st_uid
    except FileNotFoundError:
        return os.geteuid()


def _writable_by_others(mode: int) -> bool:
    return bool(mode & (stat.S_IWGRP | stat.S_IWOTH))


def folder_refusal(folder: Path) -> str | None:
    """Why no request in ``folder`` may be taken, or None: it must be a real folder
    (not a link), ours, and writable by us alone."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return None
    if not stat.S_ISDIR(info.st_mode):
        return f"the request folder {folder} is not a folder (a symbolic link or a file)"
    if info.st_uid != os.geteuid():
        return (
            f"the request folder {folder} is owned by uid {info.st_uid}, not by the bot's "
            f"user (uid {os.geteuid()})"
        )
    if _writable_by_others(info.st_mode):
        return (
            f"the request folder {folder} may be written by other users (mode "
            f"{stat.S_IMODE(info.st_mode):o}); `chmod 700 {folder}`"
        )
    return None


def file_refusal(info: os.stat_result, owner: int) -> str | None:
    """Why a request file with ``info`` (from ``fstat`` of a file opened without following
    a link) may not be taken, or None: a regular file of ``owner``'s, writable by it alone."""
    if not stat.S_ISREG(info.st_mode):
        return "it is not a regular file"
    if info.st_uid != owner:
        return f"it is owned by uid {info.st_uid}, not by the store's owner (uid {owner})"
    if _writable_by_others(info.st_mode):
        return f"other users may write it (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def refusal(path: Path, owner: int) -> str | None:
    """Why the request file ``path`` may not be taken, or None (gone, or acceptable)."""
    why = folder_refusal(path.parent)
    if why is not None:
        return why
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError:  # ELOOP: a symbolic link where a request goes
        return "it is a symbolic link, not a file" if path.is_symlink() else "it cannot be read"
    try:
        return file_refusal(os.fstat(fd), owner)
    finally:
        os.close(fd)


def refused_path(path: Path) -> Path:
    """Where a refused request is kept: ``<id>.refused``, never taken."""
    return path.with_suffix(".refused")


def read_request(path: Path, owner: int) -> Request | None:
    """The request in ``path``; None if it is gone, refused (then kept as .refused, see
    :func:`refusal`) or unreadable (then set aside as .bad).

    Only a request that ``owner`` (the store file's owner) left in a folder of ours, in a
    regular file no one else may write, is read: a request runs as a GM.
    """
    why = folder_refusal(path.parent)
    data = b""
    if why is None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError:
            why = refusal(path, owner) or "it cannot be read"
        else:
            with os.fdopen(fd, "rb") as handle:
                why = file_refusal(os.fstat(handle.fileno()), owner)
                if why is None:
                    data = handle.read(REQUEST_BYTES + 1)
    if why is not None:
        with contextlib.suppress(OSError):
            os.replace(path, refused_path(path))
        log.warning(
            "event=shell_request_refused file=%s: %s; kept as %s, not run",
            path,
            why,
            refused_path(path).name,
        )
        return None
    raw: Any = None
    with contextlib.suppress(orjson.JSONDecodeError):
        raw = orjson.loads(data) if len(data) <= REQUEST_BYTES else None
    args = raw.get("args") if isinstance(raw, dict) else None
    if not (
        isinstance(args, dict)
        and raw.get("command") in HANDLERS
        and raw.get("id") == path.stem
        and all(isinstance(value, str) for value in args.values())
    ):
        with contextlib.suppress(OSError):
            os.replace(path, path.with_suffix(".bad"))
        log.warning("event=shell_request_unreadable file=%s: set aside as .bad", path)
        return None
    return Request(str(raw["id"]), str(raw["command"]), {k: str(v) for k, v in args.items()})


def done(path: Path) -> None:
    """Delete a request taken (its answer is flushed first)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def answer_of(store: Store, request_id: str) -> Answer | None:
    """The recorded answer of a request taken, or None if it was not taken."""
    record = store.table(TABLE).get(request_id)
    return None if record is None else Answer.from_record(record)


# -- taking one -------------------------------------------------------------------------


def take(referee: Referee, request: Request, leave: Leave) -> Answer:
    """Carry out ``request`` once, as the shell's GM; the caller flushes, then deletes it.

    A request taken before (its id in the store) is not carried out again: its recorded
    answer is returned. ``leave(post, record, delivery)`` keeps a reply for the bot.
    """
    table = referee.campaign.store.table(TABLE)
    recorded = table.get(request.id)
    if recorded is not None:
        return Answer.from_record(recorded)
    post = Post(request.fullname, SHELL_THREAD, SHELL_GM, "", referee.clock())
    gms = referee.gms
    referee.gms = gms | {SHELL_GM}  # the shell holds the campaign's files: it is a GM
    try:
        answer = HANDLERS[request.command](referee, request.args, post, leave)
    except (UserError, OperatorError) as error:
        answer = Answer("", EXIT_USAGE, error.message)
    except Exception as error:  # a bug must not stop the bot; the request is answered
        log.exception("event=shell_request_failed id=%s command=%s", request.id, request.command)
        answer = Answer("", EXIT_USAGE, f"the referee hit an error: {describe(error)}")
    finally:
        referee.gms = gms
    table.put(request.id, {"command": request.command, **answer.to_record()})
    log.info(
        "event=shell_request id=%s command=%s code=%d", request.id, request.command, answer.code
    )
    return answer


def _no_brackets(*texts: str) -> None:
    for text in texts:
        if "[[" in text or "]]" in text:
            raise ConfigError(f"{text!r} holds [[ or ]]: leave them out, the tag is made for you.")


def _decide(referee: Referee, args: dict[str, str], post: Post, leave: Leave) -> Answer:
    """approve, reject, revise: the GM's tag, then its reply left under the application."""
    decision, name, words = args["decision"], args["name"], args.get("words", "").strip()
    _no_brackets(name, words)
    if decision == "approve":
        body = f"[[approve {name}{' with ' + words if words else ''}]]"
    else:
        body = f"[[{decision} {name}: {words}]]"
    outcome = referee.referee(replace(post, body=body))
    if outcome.problems or outcome.failed:
        return Answer(outcome.text, EXIT_TAG_ERRORS)
    application = referee.campaign.store.table("applications").get(character_key(name)) or {}
    parent = str(application.get("post") or "")
    if not parent.startswith(("t1_", "t3_")):
        note = "the application was not made in a thread, so there is no post to answer"
        return Answer(outcome.text, EXIT_OK, note)
    record = referee.posts.get(post.fullname) or {}
    thread = str((referee.posts.get(parent) or {}).get("thread") or "")
    roll_ids = record.get("roll_ids") or [""]
    delivery = {"state": Delivery.PENDING.value, "attempts": 0, "parent": parent}
    leave(post.fullname, record, {**delivery, "thread": thread, "mark": str(roll_ids[0])})
    link = post_link(Post(parent, thread, "", "", 0.0))
    owner = application.get("owner")
    return Answer(
        outcome.text, EXIT_OK, bot_does=f"posts this under u/{owner}'s application {link}"
    )


def retry_failure(referee: Referee, fullname: str) -> Outcome:
    """Referee a failed post again, after a fix; the bot then corrects its reply.

    The failure notice the bot already posted is edited into the new reply (or, if it
    was never posted, the new reply is posted instead), through the same delivery
    states as every reply. If the post fails again, it stays recorded as failed and
    its reply is left as it is. Raises :class:`ConfigError` for a post that did not fail.
    """
    failure = referee.failures.get(fullname)
    if failure is None:
        raise ConfigError(f"No failed post {fullname}; `referee failures` lists them.")
    if failure.tag is not None:
        raise ConfigError(
            f"{fullname} is one tag of post {failure.post}, whose other tags stand and are "
            "public, so it is not refereed again in place. Once the bug is fixed, ask "
            f"u/{failure.author} to write the tag again in a new reply, then "
            f"`referee failures --forget {fullname}`."
        )
    record = referee.posts.get(fullname) or {}
    delivery = record.get("delivery")
    if record.get("failed"):
        referee.posts.delete(fullname)  # a stub: the post was never refereed
    referee.failures.clear(fullname)
    outcome = referee.referee(failure.as_post(), private=failure.private)
    new = referee.posts.get(fullname)
    if delivery and new is not None:
        delivery = dict(delivery)
        if not outcome.failed and delivery.get("state") in (
            Delivery.DELIVERED.value,
            Delivery.SENDING.value,
        ):
            delivery["edit_pending"] = True
        referee.posts.put(fullname, {**new, "delivery": delivery})
    log.info("event=retried post=%s failed=%s", fullname, outcome.failed)
    return outcome


def _retry(referee: Referee, args: dict[str, str], post: Post, leave: Leave) -> Answer:
    """failures --retry: referee the failed post again; its reply replaces the notice."""
    fullname = args["post"]
    outcome = retry_failure(referee, fullname)
    if outcome.failed:
        note = f"{fullname} failed again; `referee failures` shows the error."
        return Answer(outcome.text, EXIT_TAG_ERRORS, note)
    record = referee.posts.get(fullname) or {}
    delivery = record.get("delivery")
    where = post_link(Post(fullname, str(record.get("thread", "")), "", "", 0.0))
    if not delivery:  # refereed by `referee batch`: the bot posts it when it reads the post
        return Answer(outcome.text, EXIT_OK, f"{fullname} refereed.")
    if DeliversReplies._is_open(record):
        leave(fullname, record, delivery)
        return Answer(outcome.text, EXIT_OK, bot_does=f"puts this in place of its notice {where}")
    return Answer(outcome.text, EXIT_OK, f"{fullname} refereed; its notice could not be posted.")


def _forget(referee: Referee, args: dict[str, str], post: Post, leave: Leave) -> Answer:
    """failures --forget: take a failed tag off the list."""
    key = args["key"]
    failure = referee.failures.get(key)
    if failure is None or failure.tag is None:
        raise ConfigError(
            f"{key} is not a failed tag; `referee failures` lists them (a failed post "
            "leaves the list when `--retry` referees it)."
        )
    referee.failures.clear(key)
    return Answer(f"Forgot the failure of {key}.", EXIT_OK)


def _import(referee: Referee, args: dict[str, str], post: Post, leave: Leave) -> Answer:
    """import: add a character from a sheet's text, approved, with a ledger row."""
    campaign = referee.campaign
    text, owner = args["sheet"], args.get("owner") or None
    block = sheet_block(text)
    sheet = campaign.system.sheet
    kind = "pc" if owner else "npc"  # without an owner the GM imports an NPC
    record = sheet.parse(block if block is not None else text, DEFAULT_LIMITS, kind=kind)
    record["kind"] = kind
    character = sheet.from_record(record)
    problems = sheet.validate(character, campaign.rules)
    if problems and args.get("force") != "yes":
        return Answer(
            "",
            EXIT_TAG_ERRORS,
            "the sheet breaks the rules; fix it or add --force:\n- " + "\n- ".join(problems),
        )
    if character.name in referee.roster:
        raise ConfigError(f"{character.name} is already on the roster; pick another name.")
    with campaign.store.savepoint():
        referee.roster.add(character, owner, approved=True)
        action = {"character": character.name, "owner": owner}
        roll = referee.record_action(post, "import", action)
    who = f"played by {owner}" if owner else "NPC"
    return Answer(f"Imported {character.name} ({who}), approved; ledger row {roll}.", EXIT_OK)


HANDLERS: dict[str, Callable[[Referee, dict[str, str], Post, Leave], Answer]] = {
    "decide": _decide,
    "retry": _retry,
    "forget": _forget,
    "import": _import,
}


def leave_offline(store: Store) -> Leave:
    """How the shell, writing the store with no bot running, keeps a reply for the bot:
    the post's delivery, and the post in the worker's list of open replies."""

    def leave(fullname: str, record: dict[str, Any], delivery: dict[str, Any]) -> None:
        store.posts.put(fullname, {**record, "delivery": delivery})
        state = store.table(WORKER_TABLE)
        saved = state.get(OPEN_KEY)
        if saved is not None and fullname not in saved.get("posts", []):
            state.put(OPEN_KEY, {"posts": [*saved.get("posts", []), fullname]})

    return leave


# -- the bot taking them ----------------------------------------------------------------


class TakesShellRequests(DeliversReplies):
    """The worker taking the shell's requests between its steps."""

    @property
    def request_folder(self) -> Path:
        return request_folder(self.store.path)

    def _requests_due(self, now: float) -> float:
        return now if waiting(self.request_folder) else float("inf")

    def _take_requests(self, report: CycleReport) -> None:
        """Take the waiting requests, oldest first: each flushed (synced), then deleted."""
        owner = store_owner(self.store.path)
        for path in waiting(self.request_folder)[:REQUESTS_A_STEP]:
            request = read_request(path, owner)
            if request is not None:
                take(self.referee, request, self._set)
                self.store.flush()  # the answer and its reply, durable before the file goes
                report.requests += 1
                self._roster_due = True  # an approval or an import changes the roster
            done(path)

    def take_requests(self, *, wait: bool = True) -> CycleReport:
        """Take the waiting requests now (the scheduler looks every second), then post
        the oldest ready reply if the budget allows: a decision reaches the thread at once.

        ``wait=False``: while a step holds the worker, return at once; the step's own
        turn (:attr:`Task.SHELL`, early in the order) takes them.
        """
        if not self.lock.acquire(blocking=wait):
            return CycleReport()
        try:
            report = CycleReport()
            if not waiting(self.request_folder):
                return report
            self._take_requests(report)
            now = self.clock()
            if now >= self.backoff_until and self.budget.ready_at(now) <= now:
                self._run([Task.REPLY], one=True)
            return report
        finally:
            self.lock.release()
