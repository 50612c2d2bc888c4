"""What a GM does in the shell reaches the thread, exactly once, with real PRAW.

The live bot is a worker in this process on the local Reddit (its store holds the
writer's lock, as a running bot's does); the shell is ``referee.cli.main``. A decision
from the shell is posted under the player's application post; a retried failure's
reply is edited into the bot's notice. Crashes are the harness's: a worker dropped
with its unflushed changes, then a new one on the same files.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.cli import main
from referee.live import shell, shell_requests
from referee.live.shell_requests import TABLE, request_folder, waiting
from referee.pipeline.failures import FAILURE_REPLY
from referee.render.renderer import Renderer
from referee.store.ledger import verify
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SECRET, SUB, fake_reddit

APPLICATION = """[[apply]] Here is Orla.

```
name: Orla Vex
background: experienced
strength: 2
agility: 2
endurance: 1
perception: 2
magic: Force 2
technique: Telekinesis d4
technique: Mind Trick d6
```
"""


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A running FakeReddit with one subreddit moderated by gm."""
    with fake_reddit() as fake:
        yield fake


@pytest.fixture(autouse=True)
def _secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shell finds the campaign's secret where the GM keeps it: the environment."""
    monkeypatch.setenv("REFEREE_SECRET", SECRET)


@pytest.fixture
def no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shell leaves its request and returns at once instead of waiting for the bot."""
    monkeypatch.setattr(shell, "WAIT_SECONDS", 0.0)


def _application(server: FakeReddit) -> str:
    thread = server.submit(SUB, "gm", "Applications", "Apply below.")
    return server.comment(thread, "orla_player", APPLICATION)


def _bot_bodies(server: FakeReddit, parent: str) -> list[str]:
    return [c["body"] for c in server.replies_to(parent) if c["author"] == server.bot]


def _decisions(server: FakeReddit, parent: str, words: str = "is approved") -> int:
    return sum(words in body for body in _bot_bodies(server, parent))


def _shell(folder: Path, *command: str) -> int:
    return main(["--campaign", str(folder), *command])


# -- a decision from the shell ---------------------------------------------------------


def test_approve_while_the_bot_runs_is_posted_under_the_application_once(
    server: FakeReddit, live, no_wait, capsys
) -> None:
    """The shell leaves the approval; the bot takes it, approves, and posts the decision
    under the player's application, once, through later cycles and a restart."""
    harness = live()
    application = _application(server)
    harness.run_until_settled()
    assert 0 == _shell(harness.folder, "approve", "Orla Vex")
    assert "has not taken the request yet" in capsys.readouterr().err
    _shell(harness.folder, "status")
    assert "requests from the shell waiting: 1" in capsys.readouterr().out
    harness.run_until_settled()
    harness.restart()
    harness.run_until_settled()
    record = harness.campaign.store.table("characters").get("orla vex")
    bodies = _bot_bodies(server, application)
    assert (2, 1) == (len(bodies), _decisions(server, application))  # the verdict, then this
    assert "Awaiting GM approval" in bodies[0]
    assert (True, "orla_player") == (record["approved"], record["owner"])
    assert [] == waiting(request_folder(harness.campaign.store.path))


def test_the_shell_prints_the_bots_answer_when_it_takes_the_request(
    server: FakeReddit, live, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the command waits, the bot takes the request; the command prints the
    decision the bot made and says the bot posts it under the application."""
    harness = live()
    application = _application(server)
    harness.run_until_settled()
    left = threading.Event()
    submit = shell.submit

    def submitted(folder: Path, request: shell_requests.Request) -> Path:
        path = submit(folder, request)
        left.set()
        return path

    monkeypatch.setattr(shell, "submit", submitted)
    codes: list[int] = []
    command = threading.Thread(
        target=lambda: codes.append(_shell(harness.folder, "approve", "Orla Vex"))
    )
    command.start()
    assert left.wait(10)
    taken = harness.worker.take_requests()  # the bot's look, a second at most after
    command.join(10)
    out, err = capsys.readouterr()
    assert ([0], 1) == (codes, taken.requests)
    assert "Orla Vex is approved" in out
    link = f"https://www.reddit.com/comments/{server.thing(application)['link_id'][3:]}/_/"
    assert f"under u/orla_player's application {link}{application[3:]}/ at its next step" in err
    assert 1 == _decisions(server, application)  # posted in the same look: the budget allowed


def test_approve_with_no_bot_running_is_posted_when_the_bot_next_runs(
    server: FakeReddit, live, capsys
) -> None:
    """No bot: the command approves itself and leaves the reply; the bot's next run
    posts it once."""
    harness = live()
    application = _application(server)
    harness.run_until_settled()
    harness.close()
    assert 0 == _shell(harness.folder, "approve", "Orla Vex", "--with", "named")
    out, err = capsys.readouterr()
    assert "Orla Vex is approved" in out and "when it next runs" in err
    assert 0 == _decisions(server, application)
    harness.start()
    harness.run_until_settled()
    harness.restart()
    harness.run_until_settled()
    assert 1 == _decisions(server, application, "The GM amended the sheet: named")


@pytest.mark.parametrize(
    ("verb", "note", "words"),
    [
        ("reject", "the setting has no mages", "is not accepted"),
        ("revise", "move a point from Agility to Endurance", "asks for changes"),
    ],
)
def test_reject_and_revise_reach_the_player(
    server: FakeReddit, live, no_wait, verb: str, note: str, words: str
) -> None:
    """reject and revise from the shell are answered under the application with the note."""
    harness = live()
    application = _application(server)
    harness.run_until_settled()
    assert 0 == _shell(harness.folder, verb, "Orla Vex", note)
    harness.run_until_settled()
    (decision,) = [body for body in _bot_bodies(server, application) if words in body]
    status = harness.campaign.store.table("applications").get("orla vex")["status"]
    assert note in decision
    assert ("rejected" if verb == "reject" else "revision requested") == status


def test_a_refused_decision_is_answered_in_the_shell_and_posts_nothing(
    server: FakeReddit, live, no_wait, capsys
) -> None:
    """An approval of an application nobody made is refused (exit 1), nothing is posted."""
    harness = live()
    application = _application(server)
    harness.run_until_settled()
    harness.close()
    assert 1 == _shell(harness.folder, "approve", "Nobody Here")
    assert "No application is named" in capsys.readouterr().out
    harness.start()
    harness.run_until_settled()
    assert (1, 0) == (len(_bot_bodies(server, application)), _decisions(server, application))


# -- crashes ---------------------------------------------------------------------------


class Crash(BaseException):
    """The process dying at this point (the harness then drops what was not flushed)."""


def _crash_before_flush(harness, monkeypatch) -> None:
    flush = harness.campaign.store.flush

    def dying(*args, **kwargs):
        if not waiting(request_folder(harness.campaign.store.path)):
            return flush(*args, **kwargs)
        raise Crash

    monkeypatch.setattr(harness.campaign.store, "flush", dying)


def _crash_before_delete(harness, monkeypatch) -> None:
    def dying(path: Path) -> None:
        raise Crash

    monkeypatch.setattr(shell_requests, "done", dying)


def _crash_before_posting(harness, monkeypatch) -> None:
    def dying(parent: str, text: str) -> str:
        raise Crash

    monkeypatch.setattr(harness.worker.forum, "reply", dying)


def _crash_after_posting(harness, monkeypatch) -> None:
    reply = harness.worker.forum.reply

    def dying(parent: str, text: str) -> str:
        reply(parent, text)
        raise Crash

    monkeypatch.setattr(harness.worker.forum, "reply", dying)


@pytest.mark.parametrize(
    "crash",
    [_crash_before_flush, _crash_before_delete, _crash_before_posting, _crash_after_posting],
)
def test_a_crash_anywhere_in_a_request_neither_loses_nor_doubles_it(
    server: FakeReddit, live, no_wait, monkeypatch: pytest.MonkeyPatch, crash
) -> None:
    """Killed before the answer is flushed, before the file goes, before or after the
    decision is posted: after a restart the application is approved once (one ledger
    row) and answered once; the bot's earlier reply under it is never taken for it."""
    harness = live()
    application = _application(server)
    harness.run_until_settled()
    assert 0 == _shell(harness.folder, "approve", "Orla Vex")
    with monkeypatch.context() as patched:
        crash(harness, patched)
        with pytest.raises(Crash):
            harness.worker.cycle()
    harness.restart()
    harness.run_until_settled()
    rows = list(harness.campaign.store.ledger)
    decisions = [row for row in rows if row["kind"] == "decision"]
    store = harness.campaign.store
    assert (1, 2) == (_decisions(server, application), len(_bot_bodies(server, application)))
    assert (1, True) == (len(decisions), verify(rows, None).ok)
    assert (1, []) == (len(store.table(TABLE)), waiting(request_folder(store.path)))


def test_a_request_taken_twice_is_carried_out_once(server: FakeReddit, live, no_wait) -> None:
    """A request file that outlived its taking (a crash before the delete) is answered
    from the store: no second approval row, no second reply."""
    harness = live()
    application = _application(server)
    harness.run_until_settled()
    assert 0 == _shell(harness.folder, "approve", "Orla Vex")
    folder = request_folder(harness.campaign.store.path)
    (path,) = waiting(folder)
    kept = path.read_bytes()
    harness.worker.take_requests()
    path.write_bytes(kept)  # the same request again
    harness.run_until_settled()
    rows = [row for row in harness.campaign.store.ledger if row["kind"] == "decision"]
    assert (1, 1, []) == (len(rows), _decisions(server, application), waiting(folder))


# -- failures --retry ------------------------------------------------------------------


@pytest.fixture
def broken_roll(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Rendering a reply holding a d7 raises, as a template bug would; the fix is to
    put the renderer back (the list's clear)."""
    render = Renderer.render
    broken: list[str] = ["on"]

    def maybe_broken(self: Renderer, reply) -> str:
        if broken and any("d7" in verdict.tag.text for verdict in reply.verdicts):
            raise RuntimeError("a template bug")
        return render(self, reply)

    monkeypatch.setattr(Renderer, "render", maybe_broken)
    return broken


@pytest.mark.parametrize("bot_running", [True, False])
def test_failures_retry_replaces_the_public_notice_once(
    server: FakeReddit, live, no_wait, broken_roll, bot_running: bool, capsys
) -> None:
    """After a fix, `failures --retry` referees the post again and the bot edits its
    failure notice into the real reply: one edit, no second reply, with the bot
    running or not, and a restart after it changes nothing."""
    harness = live()
    thread = server.submit(SUB, "alice", "Scene", "Go.")
    post = server.comment(thread, "bob", "I try [[roll 1d7]]")
    harness.run_until_settled()
    (notice,) = server.replies_to(post)
    assert FAILURE_REPLY.format(post=post) == notice["body"]
    broken_roll.clear()  # the fix
    edits = server.count("POST", "/api/editusertext")
    if not bot_running:
        harness.close()
    assert 0 == _shell(harness.folder, "failures", "--retry", post)
    err = capsys.readouterr().err
    if not bot_running:  # the shell carried it out: it says what the bot will do
        assert "puts this in place of its notice" in err and "when it next runs" in err
        harness.start()
    harness.run_until_settled()
    harness.restart()
    harness.run_until_settled()
    (reply,) = server.replies_to(post)
    rows = [row for row in harness.campaign.store.ledger if row["post"] == post]
    assert (notice["name"], 1) == (reply["name"], server.count("POST", "/api/editusertext") - edits)
    assert "1d7" in reply["body"] and "could not handle" not in reply["body"]
    assert (1, 0) == (len(rows), len(list(harness.campaign.store.table("failures").keys())))


def test_import_while_the_bot_runs_reaches_the_store(
    server: FakeReddit, live, no_wait, tmp_path: Path
) -> None:
    """import from the shell while the bot runs is carried out by the bot: the NPC is on
    its roster, with one ledger row."""
    harness = live()
    sheet = tmp_path / "brute.txt"
    sheet.write_text("name: Brute\nkind: npc\nstrength: 3\nagility: 1\nendurance: 3\n")
    assert 0 == _shell(harness.folder, "import", str(sheet), "--force")
    harness.run_until_settled()
    rows = Counter(row["kind"] for row in harness.campaign.store.ledger)
    assert (True, 1) == ("brute" in harness.campaign.store.table("characters"), rows["import"])


def test_a_gap_after_a_shell_decision_is_still_filled(server: FakeReddit, live, no_wait) -> None:
    """The shell's records are the newest posts the bot knows, but no Reddit thread: a gap
    deeper than the listing reaches is still read thread by thread."""
    harness = live(page_size=2, listing_reach=4)
    application = _application(server)
    harness.run_until_settled()
    assert 0 == _shell(harness.folder, "approve", "Orla Vex")
    harness.run_until_settled()
    harness.close()
    thread = server.thing(application)["link_id"]
    missed = [server.comment(thread, "bob", f"[[roll 1d{n + 4}]]") for n in range(5)]
    harness.start()
    harness.run_until_settled()
    assert {1} == {len(server.replies_to(post)) for post in missed}


def test_the_look_for_requests_never_waits_for_a_step(server: FakeReddit, live, no_wait) -> None:
    """While a step holds the worker, the scheduler's look for requests returns at once
    (nothing taken, the request still waiting); once the step is done, it takes it."""
    harness = live()
    _application(server)
    harness.run_until_settled()
    assert 0 == _shell(harness.folder, "approve", "Orla Vex")
    held, release = threading.Event(), threading.Event()

    def a_long_step() -> None:
        with harness.worker.lock:
            held.set()
            release.wait(10)

    step = threading.Thread(target=a_long_step)
    step.start()
    assert held.wait(10)
    during = harness.worker.take_requests(wait=False)
    folder = request_folder(harness.campaign.store.path)
    left = len(waiting(folder))
    release.set()
    step.join(10)
    after = harness.worker.take_requests(wait=False)
    assert (0, 1, 1, []) == (during.requests, left, after.requests, waiting(folder))


# -- who may leave a request -----------------------------------------------------------


def _left_by_the_shell(harness) -> Path:
    """An approval of Orla Vex left in the request folder by the shell, not yet taken."""
    assert 0 == _shell(harness.folder, "approve", "Orla Vex")
    (path,) = waiting(request_folder(harness.campaign.store.path))
    return path


def _approved(harness) -> bool:
    record = harness.campaign.store.table("characters").get("orla vex") or {}
    return bool(record.get("approved"))


def test_the_request_folder_is_made_for_the_stores_owner_alone(
    server: FakeReddit, live, no_wait
) -> None:
    """The folder the shell leaves requests in is made 0700, its requests 0600."""
    import os

    harness = live()
    _application(server)
    harness.run_until_settled()
    before = os.umask(0o022)
    try:
        path = _left_by_the_shell(harness)
    finally:
        os.umask(before)
    assert (0o700, 0o600) == (path.parent.stat().st_mode & 0o777, path.stat().st_mode & 0o777)


def test_a_request_planted_as_a_symlink_is_refused_kept_and_never_run(
    server: FakeReddit, live, no_wait, tmp_path: Path, caplog
) -> None:
    """A link in the request folder pointing at a request file elsewhere (someone else's
    approval, say) is never followed: refused, kept as .refused, logged, not run."""
    import logging

    harness = live()
    application = _application(server)
    harness.run_until_settled()
    path = _left_by_the_shell(harness)
    elsewhere = tmp_path / "planted.json"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    with caplog.at_level(logging.WARNING):
        harness.worker.take_requests()
    harness.run_until_settled()
    assert (False, 0) == (_approved(harness), _decisions(server, application))
    assert path.with_suffix(".refused").is_symlink() and not path.exists()
    assert "event=shell_request_refused" in caplog.text and "symbolic link" in caplog.text


def test_a_request_others_may_write_is_refused(server: FakeReddit, live, no_wait) -> None:
    """A request file writable by the group or by anyone is refused, not run."""
    harness = live()
    application = _application(server)
    harness.run_until_settled()
    path = _left_by_the_shell(harness)
    path.chmod(0o666)
    harness.worker.take_requests()
    harness.run_until_settled()
    assert (False, 0) == (_approved(harness), _decisions(server, application))
    assert path.with_suffix(".refused").exists()


def test_no_request_is_taken_from_a_folder_others_may_write(
    server: FakeReddit, live, no_wait, caplog
) -> None:
    """A request folder writable by others (anyone could have dropped a file in it) is
    refused whole: its requests are kept as .refused and none runs."""
    import logging

    harness = live()
    application = _application(server)
    harness.run_until_settled()
    path = _left_by_the_shell(harness)
    path.parent.chmod(0o777)
    with caplog.at_level(logging.WARNING):
        harness.worker.take_requests()
    assert (False, 0) == (_approved(harness), _decisions(server, application))
    assert "may be written by other users (mode 777)" in caplog.text


def test_a_request_of_another_user_is_refused(server: FakeReddit, live, no_wait) -> None:
    """A request file owned by another uid than the store's is refused, not run."""

    harness = live()
    _application(server)
    harness.run_until_settled()
    path = _left_by_the_shell(harness)
    owner = shell_requests.store_owner(harness.campaign.store.path)
    assert shell_requests.read_request(path, owner + 1) is None
    assert (False, True) == (_approved(harness), path.with_suffix(".refused").exists())
    assert "owned by uid" in (shell_requests.refusal(path.with_suffix(".refused"), owner + 1) or "")


@pytest.mark.skipif(
    not hasattr(__import__("os"), "geteuid") or __import__("os").geteuid() != 0,
    reason="giving a file to another user needs root",
)
def test_a_request_file_given_to_another_user_is_refused_by_the_bot(
    server: FakeReddit, live, no_wait
) -> None:
    """The bot, as root here, refuses a request file owned by another uid."""
    import os

    harness = live()
    application = _application(server)
    harness.run_until_settled()
    path = _left_by_the_shell(harness)
    os.chown(path, 4242, 4242)
    harness.worker.take_requests()
    harness.run_until_settled()
    assert (False, 0) == (_approved(harness), _decisions(server, application))


def test_the_shell_says_why_its_request_was_refused(server: FakeReddit, live, capsys) -> None:
    """With no bot running, the shell takes its own request; from a folder others may
    write it refuses, and the GM reads why and how to fix it."""
    harness = live()
    _application(server)
    harness.run_until_settled()
    harness.close()
    folder = request_folder(harness.campaign.store.path)
    folder.mkdir(exist_ok=True)
    folder.chmod(0o777)
    assert 2 == _shell(harness.folder, "approve", "Orla Vex")
    err = capsys.readouterr().err
    assert "the request was refused, not run" in err and f"chmod 700 {folder}" in err
