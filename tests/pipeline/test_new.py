"""Tests for `referee new`: a campaign of any system, from nothing to a first live verdict."""

import hashlib
import re
import sys
from pathlib import Path

import pytest

from referee.cli import main
from referee.pipeline.campaign import _SECTIONS, load_config
from referee.pipeline.new import starter_tables
from referee.system import rulings_defaults
from referee.system.registry import installed_systems, load_system
from referee.testing import fake_client
from referee.testing.fake_client import LocalReddit
from referee.testing.reddit_server import FakeReddit
from referee.testing.serve import describe, seed_source, write_campaign
from referee.testing.shipped import DATA
from referee.testing.trial import Source, make_folder

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SYSTEMS = installed_systems()


def _commented_keys(text: str) -> tuple[set[str], set[str]]:
    """(every key set in the file, the keys whose line has a comment line just above)."""
    lines = text.splitlines()
    keys, commented = set(), set()
    for number, line in enumerate(lines):
        key = re.match(r"^#?\s?([a-z_0-9]+) = ", line)
        if key:
            keys.add(key.group(1))
            if number and lines[number - 1].startswith("#"):
                commented.add(key.group(1))
    return keys, commented


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_new_campaign_has_every_key_commented_and_loads(system, tmp_path, capsys):
    """config.toml holds every core key and every ruling, each with a comment, and loads."""
    folder = tmp_path / "campaign"
    assert 0 == main(["new", str(folder), "--system", system, "--name", "The Long Night"])
    text = (folder / "config.toml").read_text(encoding="utf-8")
    config = load_config(folder / "config.toml")
    keys, commented = _commented_keys(text)
    every = {key for section in _SECTIONS.values() for key in section}
    every |= set(rulings_defaults(load_system(system).rulings_type))
    assert (set(), set(), ("The Long Night", system)) == (
        every - keys,
        keys - commented,
        (config.name, config.system),
    )


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_sample_sheet_imports_and_the_secret_verifies(system, tmp_path, capsys):
    """The sample sheet is a legal character of the system; verify finds the commitment kept."""
    folder = tmp_path / "campaign"
    main(["new", str(folder), "--system", system])
    printed = capsys.readouterr().out
    at = ["--campaign", str(folder)]
    imported = main([*at, "import", str(folder / "sample-sheet.txt"), "--owner", "player_one"])
    rolled = main([*at, "roll", "[[roll 2d6]]"])
    verified = main([*at, "verify"])
    out = capsys.readouterr().out
    value = (folder / "secret.txt").read_bytes().strip()
    digest = hashlib.sha256(value).hexdigest()
    assert (0, 0, 0) == (imported, rolled, verified)
    assert (True, True, True) == (
        digest in printed,
        f'sha256 = "{digest}"' in (folder / "config.toml").read_text(encoding="utf-8"),
        "all consistent" in out,
    )


def test_new_refuses_a_folder_that_holds_a_campaign_and_changes_nothing(tmp_path, capsys):
    """A second `referee new` on the same folder exits 2 naming it; the first stays whole."""
    folder = tmp_path / "campaign"
    main(["new", str(folder), "--system", "pool"])
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    capsys.readouterr()
    code = main(["new", str(folder), "--system", "hits"])
    err = capsys.readouterr().err
    after = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    assert (2, True, before) == (code, str(folder) in err and "never overwrites" in err, after)


def test_the_gitignore_keeps_the_secret_credentials_and_store_out(tmp_path, capsys):
    """.gitignore names the secret file, praw.ini and the store's files."""
    main(["new", str(tmp_path / "c"), "--system", "edge"])
    lines = (tmp_path / "c" / ".gitignore").read_text().splitlines()
    assert {"secret.txt", "praw.ini", "data/store.*"} <= set(lines)


def test_any_command_without_a_campaign_points_at_referee_new(tmp_path, monkeypatch, capsys):
    """With no config.toml anywhere, a command says how to make one with `referee new`."""
    monkeypatch.chdir(tmp_path)
    code = main(["characters"])
    assert (2, True) == (code, "referee new DIR --system NAME" in capsys.readouterr().err)


def test_verify_explains_a_commitment_made_over_the_files_newline(tmp_path, capsys):
    """`sha256sum secret.txt` as the commitment: verify says so and what to publish instead."""
    folder = tmp_path / "campaign"
    main(["new", str(folder), "--system", "stepped"])
    config = folder / "config.toml"
    over_file = hashlib.sha256((folder / "secret.txt").read_bytes()).hexdigest()
    config.write_text(
        re.sub(r'sha256 = "[0-9a-f]+"', f'sha256 = "{over_file}"', config.read_text()),
        encoding="utf-8",
    )
    capsys.readouterr()
    code = main(["--campaign", str(folder), "verify"])
    out = capsys.readouterr().out
    value = (folder / "secret.txt").read_bytes().strip()
    assert (1, True, True, True) == (
        code,
        "with a newline after it" in out,
        f"Publish {hashlib.sha256(value).hexdigest()}" in out,
        "1 mismatch(es)" in out,
    )


def _bot_env(folder: Path, monkeypatch) -> None:
    """The bot's credentials as PRAW's variables (praw.ini is read once per process)."""
    monkeypatch.chdir(folder)
    monkeypatch.delenv("REFEREE_TRIAL_SECRET", raising=False)
    ini = dict(line.split("=", 1) for line in (folder / "praw.ini").read_text().split()[1:])
    for key, value in ini.items():
        monkeypatch.setenv(f"praw_{key}", value)


@pytest.mark.parametrize("system", SYSTEMS)
def test_from_referee_new_to_a_first_live_verdict(system, tmp_path, monkeypatch, capsys):
    """new -> local trial (real PRAW): a player applies, the GM approves, the roll is answered."""
    campaign = tmp_path / "campaign"
    main(["new", str(campaign), "--system", system])
    sample = (campaign / "sample-sheet.txt").read_text(encoding="utf-8")
    sheet = sample[sample.index("```") :]
    trial = tmp_path / "trial"
    make_folder(trial, fresh=False)
    source = Source(campaign / "config.toml", None, "a new campaign")
    with FakeReddit() as server:
        subreddit, thread, _ = seed_source(server, source)
        write_campaign(trial, server, subreddit, source)
        describe(server, subreddit, thread, trial / "data").write(trial)
        local = LocalReddit.read(trial)
        _bot_env(trial, monkeypatch)
        applied = fake_client.post(local, "new_player", f"[[apply]]\n\n{sheet}", None)
        main(["run", "--once"])
        fake_client.post(local, "gm", "[[approve]]", applied)
        main(["run", "--once"])
        rolled = fake_client.post(local, "new_player", "[[roll 2d6]]", None)
        main(["run", "--once"])
        capsys.readouterr()
        approval = [r["body"] for r in server.comments_by(server.bot) if "approved" in r["body"]]
        verdict = [reply["body"] for reply in server.replies_to(rolled)]
    config = tomllib.loads((trial / "config.toml").read_text(encoding="utf-8"))
    assert (system, 1, 1) == (config["campaign"]["system"], len(approval), len(verdict))
    assert "2d6" in verdict[0]


def test_the_tables_a_system_ships_for_new_campaigns_are_the_repositorys():
    """stepped's campaign/ tables are byte for byte the repository's data/ tables."""
    tables = starter_tables(load_system("stepped"))
    assert [(DATA / t.name).read_bytes() for t in tables] == [t.read_bytes() for t in tables]


def test_new_refuses_a_folder_that_is_not_empty_and_writes_nothing(tmp_path, capsys):
    """A folder holding anything, even no campaign, is refused: nothing in it is touched,
    and the message says how to go on."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("buy dice\n")
    code = main(["new", str(folder), "--system", "pool"])
    err = capsys.readouterr().err
    assert (2, ["todo.txt"]) == (code, sorted(p.name for p in folder.iterdir()))
    assert "not empty" in err and "Pick a new folder name, or empty" in err


def test_new_never_writes_through_a_symlink_planted_in_the_folder(tmp_path, capsys):
    """A link planted where praw.ini goes (pointing at a file the attacker wants written)
    is refused, and the file it points to stays as it was."""
    folder = tmp_path / "campaign"
    folder.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    (folder / "praw.ini").symlink_to(victim)
    code = main(["new", str(folder), "--system", "edge"])
    assert (2, "mine\n") == (code, victim.read_text())
    assert ["praw.ini"] == [p.name for p in folder.iterdir()]


def test_new_refuses_a_folder_that_is_a_symlink(tmp_path, capsys):
    """The campaign folder itself given as a link is refused: nothing is written behind it."""
    real = tmp_path / "elsewhere"
    real.mkdir()
    (tmp_path / "campaign").symlink_to(real)
    code = main(["new", str(tmp_path / "campaign"), "--system", "hits"])
    assert (2, []) == (code, list(real.iterdir()))
    assert "symbolic link" in capsys.readouterr().err


def test_a_link_planted_while_new_writes_is_never_followed(tmp_path, monkeypatch, capsys):
    """Between the check and the writing, a link planted where a file goes is refused
    (every file is created O_EXCL | O_NOFOLLOW), not written through."""
    import referee.pipeline.new as new

    folder = tmp_path / "campaign"
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    checked = new._refuse_unless_new

    def check_then_plant(path: Path) -> None:
        checked(path)
        path.mkdir()
        (path / "config.toml").symlink_to(victim)

    monkeypatch.setattr(new, "_refuse_unless_new", check_then_plant)
    code = main(["new", str(folder), "--system", "pool"])
    assert (2, "mine\n") == (code, victim.read_text())
    assert "Pick a new folder name" in capsys.readouterr().err


def test_the_secret_and_the_credentials_are_their_owners_alone(tmp_path, capsys):
    """secret.txt and praw.ini are 0600 under the usual umask 022; the rest is not secret."""
    import os

    before = os.umask(0o022)
    try:
        main(["new", str(tmp_path / "c"), "--system", "stepped"])
    finally:
        os.umask(before)
    modes = {p.name: p.stat().st_mode & 0o777 for p in (tmp_path / "c").iterdir() if p.is_file()}
    assert (0o600, 0o600, 0o644) == (modes["secret.txt"], modes["praw.ini"], modes["config.toml"])
