"""`referee backup` while a writer runs, and `referee restore`: checked before anything is written.

The running bot is a writer holding the store's lock (in this process, or a child that
appends and checkpoints as fast as it can); the backup never takes the lock.
"""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import signal
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from referee.base.limits import BackupLimits
from referee.base.posts import Post
from referee.cli import main
from referee.live import backups
from referee.pipeline.flow import Referee
from referee.store.backup import check_store
from referee.store.store import Store
from referee.testing import make_campaign, sheet
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, bot_replies, fake_reddit


@pytest.fixture
def campaign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A campaign folder with Kara, a few rolls and a secret file beside config.toml."""
    folder = tmp_path / "dune"
    opened = make_campaign(folder, [sheet("Kara", owner="alice")])
    referee = Referee(opened)
    for n in range(5):
        referee.referee(Post(f"t1_k{n}", "t3_s", "alice", f"[[roll 1d{n + 4}]]", float(n)))
    opened.close()
    _own_tables(folder)
    (folder / "config.toml").write_text(
        (folder / "config.toml").read_text() + '[secret]\nfile = "secret.txt"\n'
    )
    (folder / "secret.txt").write_text("test-secret\n")
    monkeypatch.delenv("REFEREE_SECRET", raising=False)
    return folder


def _own_tables(folder: Path) -> None:
    """The race and scale tables copied into the campaign's data folder, as `referee new`
    makes them (make_campaign names the repository's by absolute path, which a restore
    into another folder refuses)."""
    config = folder / "config.toml"
    text = config.read_text()
    for key in ("races", "scale"):
        (source,) = re.findall(rf'^{key} = "(.*)"$', text, flags=re.M)
        shutil.copyfile(source, folder / "data" / Path(source).name)
        text = text.replace(f'"{source}"', f'"data/{Path(source).name}"')
    config.write_text(text)


def _backup(folder: Path, out: Path, capsys) -> str:
    assert 0 == main(["--campaign", str(folder), "backup", str(out)])
    return capsys.readouterr().out


def _names(archive: Path) -> list[str]:
    with tarfile.open(archive) as opened:
        return opened.getnames()


def test_a_backup_beside_the_bot_holds_its_last_commit_whole(campaign: Path, tmp_path, capsys):
    """With the writer holding the lock, a change it has not flushed and a batch half
    appended at the journal's end: the backup holds every committed row, none of the
    rest, and no secret, lock or heartbeat."""
    writer = Store(campaign / "data" / "store.json")
    writer.table("characters").put("ghost", {"name": "Ghost"})  # unflushed
    journal = campaign / "data" / "store.ledger.jsonl"
    with journal.open("ab") as handle:
        handle.write(b'{"op":"put","table":"characters","key":"torn","val')  # mid-append
    try:
        said = _backup(campaign, tmp_path / "dune.tar.gz", capsys)
    finally:
        writer.discard()
    names = _names(tmp_path / "dune.tar.gz")
    assert "the store with 5 ledger rows (checked)" in said
    assert {"config.toml", "data/store.json", "data/store.ledger.jsonl"} <= set(names)
    assert not [n for n in names if n.endswith((".lock", "secret.txt", ".status.json"))]


def test_restore_into_a_new_folder_gives_the_campaign_back(campaign, tmp_path, capsys):
    """On another machine: restore into an empty folder (its GMs and its secret are
    new there: listed, applied with --yes), put the secret back, and the campaign
    verifies and lists its characters."""
    _backup(campaign, tmp_path / "dune.tar.gz", capsys)
    moved = tmp_path / "elsewhere"
    restore = ["--campaign", str(moved), "restore", str(tmp_path / "dune.tar.gz")]
    assert 1 == main(restore)
    said = capsys.readouterr().out
    assert "GMs (campaign.gms): adds gm" in said and "run again with --yes" in said
    assert not moved.exists()
    assert 0 == main([*restore, "--yes"])
    assert "the store with 5 ledger rows, chain checked" in capsys.readouterr().out
    (moved / "secret.txt").write_text("test-secret\n")
    assert 0 == main(["--campaign", str(moved), "verify"])
    assert "5 ledger rows: chain checked, 5 rows' dice re-derived" in capsys.readouterr().out
    assert 0 == main(["--campaign", str(moved), "characters"])
    assert "Kara" in capsys.readouterr().out


def test_restore_over_a_campaign_keeps_what_it_replaces(campaign, tmp_path, capsys):
    """Rolls made after the backup are not lost by a restore: the replaced store files
    are kept, as they were, in replaced-<time>/; unchanged files are left alone."""
    _backup(campaign, tmp_path / "dune.tar.gz", capsys)
    with Store(campaign / "data" / "store.json") as store:
        store.ledger.append({"roll_id": "later-1"})
    later = (campaign / "data" / "store.ledger.jsonl").read_bytes()
    assert 0 == main(["--campaign", str(campaign), "restore", str(tmp_path / "dune.tar.gz")])
    said = capsys.readouterr().out
    (kept,) = campaign.glob("replaced-*")
    assert f"kept in {kept}" in said
    journal = "data/store.ledger.jsonl"
    assert f"{journal} -> {campaign / journal} (replaced; the old one is kept as " in said
    assert f"config.toml -> {campaign / 'config.toml'} (already the same, left alone)" in said
    assert later == (kept / "data" / "store.ledger.jsonl").read_bytes()
    assert 5 == check_store(campaign / "data" / "store.json").rows
    assert not (kept / "config.toml").exists()  # the same in both: left in place


def _tampered(archive: Path, out: Path, change) -> Path:
    """A copy of ``archive`` with one member's bytes changed (its manifest left as is,
    or rewritten to match, as a careful forger would)."""
    with tarfile.open(archive) as source, tarfile.open(out, "w:gz") as target:
        members = {m.name: source.extractfile(m).read() for m in source if m.isfile()}
        members = change(members)
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            target.addfile(info, io.BytesIO(data))
    return out


def _forged(members: dict[str, bytes]) -> dict[str, bytes]:
    """A die of the third row changed in the journal, the manifest's sha256 made to fit."""
    import hashlib

    journal = members["data/store.ledger.jsonl"].splitlines(keepends=True)
    rolls = [i for i, line in enumerate(journal) if b'"draws":[[' in line]
    line = journal[rolls[2]]
    at = line.index(b'"draws":[[') + len(b'"draws":[[')
    journal[rolls[2]] = line[:at] + b"9" + line[at:]
    members["data/store.ledger.jsonl"] = b"".join(journal)
    manifest = orjson.loads(members["referee-backup.json"])
    manifest["files"]["data/store.ledger.jsonl"] = hashlib.sha256(
        members["data/store.ledger.jsonl"]
    ).hexdigest()
    members["referee-backup.json"] = orjson.dumps(manifest)
    return members


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (_forged, "does not check out"),
        (  # a file changed after the backup was made
            lambda m: {**m, "data/store.index": m["data/store.index"] + b" "},
            "does not match its own list of files",
        ),
        (lambda m: {**m, "../outside.txt": b"x"}, "which a backup never does"),
        (lambda m: {k: v for k, v in m.items() if k != "referee-backup.json"}, "not a referee"),
    ],
)
def test_restore_refuses_a_backup_that_does_not_check_out_and_writes_nothing(
    campaign, tmp_path, capsys, change, reason: str
) -> None:
    """A forged row (its file's sha256 made to fit), a file changed, a name leaving the
    campaign, no manifest: refused with the reason; the campaign is as it was."""
    _backup(campaign, tmp_path / "dune.tar.gz", capsys)
    bad = _tampered(tmp_path / "dune.tar.gz", tmp_path / "bad.tar.gz", change)
    before = {p: p.read_bytes() for p in campaign.rglob("*") if p.is_file()}
    assert 2 == main(["--campaign", str(campaign), "restore", str(bad)])
    err = capsys.readouterr().err
    after = {p: p.read_bytes() for p in campaign.rglob("*") if p.is_file()}
    assert (True, True) == (reason in err, "Nothing was written" in err), err
    assert before == after
    assert not (tmp_path / "outside.txt").exists()


def test_restore_refuses_while_a_bot_runs_on_the_campaign(campaign, tmp_path, capsys):
    """The store's writer holds the lock: restore says to stop it and writes nothing."""
    _backup(campaign, tmp_path / "dune.tar.gz", capsys)
    writer = Store(campaign / "data" / "store.json")
    try:
        assert 2 == main(["--campaign", str(campaign), "restore", str(tmp_path / "dune.tar.gz")])
    finally:
        writer.discard()
    assert "stop it first" in capsys.readouterr().err
    assert [] == list(campaign.glob("replaced-*"))


# A writer as fast as it goes: batches of rows and a table change in one flush, and a
# checkpoint (the sheets file and the index replaced) every few kilobytes of journal.
CHILD = """
import os
import sys
from pathlib import Path
import referee.store.store as module
from referee.store.store import Store

module.CHECKPOINT_BYTES = 4096
store = Store(Path(sys.argv[1]))
n = len(store.ledger)
os.write(1, b"ready\\n")
while True:
    for _ in range(7):
        store.ledger.append({"roll_id": f"r{n}", "pad": "x" * 80})
        n += 1
    store.table("meta").put("count", {"rows": n})
    store.flush(sync=False)
"""


def test_backups_taken_while_a_writer_appends_and_checkpoints_are_never_torn(
    tmp_path: Path, capsys
) -> None:
    """Ten backups taken while another process appends and checkpoints without pause:
    each restores into a store that checks out whole, with its sheets table agreeing
    with its ledger (a flush lands whole across both)."""
    folder = tmp_path / "busy"
    make_campaign(folder).close()
    _own_tables(folder)
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(folder / "data" / "store.json")],
        stdout=subprocess.PIPE,
    ) as child:
        counts = _backups_beside(child, folder, tmp_path, capsys)
    assert [rows for rows, _ in counts] == [meta for _, meta in counts]
    assert counts[-1][0] > counts[0][0] > 0  # the writer was writing all along


def _backups_beside(child, folder: Path, tmp_path: Path, capsys) -> list[tuple[int, int]]:
    """Ten backups, each restored and checked, while ``child`` writes; then kill it."""
    assert child.stdout is not None
    try:
        assert b"ready\n" == child.stdout.readline()
        counts = []
        for n in range(10):
            archive = tmp_path / f"busy-{n}.tar.gz"
            _backup(folder, archive, capsys)
            restored = tmp_path / f"restored-{n}"
            assert 0 == main(["--campaign", str(restored), "restore", str(archive), "--yes"])
            capsys.readouterr()
            with Store(restored / "data" / "store.json", read_only=True) as store:
                meta = store.table("meta").get("count") or {"rows": 0}
                counts.append((len(store.ledger), meta["rows"]))
            check_store(restored / "data" / "store.json")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    return counts


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A running FakeReddit with one subreddit."""
    with fake_reddit() as fake:
        yield fake


def test_after_a_restore_the_bot_never_answers_twice_what_it_answered_since_the_backup(
    server: FakeReddit, live, tmp_path: Path, capsys
) -> None:
    """A post answered after the backup was made is read again after the restore (the
    cursors went back with the store): the bot finds its reply instead of posting again,
    and a post written after the restore is answered once."""
    harness = live()
    thread = server.submit(SUB, "alice", "Scene", "Go.")
    first = server.comment(thread, "bob", "[[roll 1d6]]")
    harness.run_until_settled()
    harness.close()
    _backup(harness.folder, tmp_path / "before.tar.gz", capsys)
    harness.start()
    later = server.comment(thread, "bob", "[[roll 1d8]]")
    harness.run_until_settled()
    harness.close()
    assert 0 == main(
        ["--campaign", str(harness.folder), "restore", str(tmp_path / "before.tar.gz")]
    )
    harness.start()
    newest = server.comment(thread, "carol", "[[roll 1d4]]")
    harness.run_until_settled()
    assert {first: 1, later: 1, newest: 1} == dict(bot_replies(server))
