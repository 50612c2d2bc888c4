"""Tests for the local trial's folder (referee.testing.trial) and `referee-fake start`."""

import hashlib
import sys
import time
from pathlib import Path

import pytest
import requests
from prawcore.rate_limit import RateLimiter

from referee.cli import main
from referee.store.store import Store
from referee.testing import fake_client
from referee.testing.fake_client import LocalReddit
from referee.testing.reddit_server import FakeReddit, WallClock
from referee.testing.serve import describe, seed_source, write_campaign
from referee.testing.serve import main as serve
from referee.testing.shipped import DATA, REPO, copy_shipped
from referee.testing.trial import MARK, demo_systems, find_source, make_folder

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SYSTEMS = demo_systems(REPO)


def _digest(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_start_refuses_a_folder_it_did_not_make_and_leaves_it_whole(tmp_path, capsys):
    """start --fresh on a folder without the trial's mark names it and deletes nothing."""
    folder = tmp_path / "my-campaign"
    folder.mkdir()
    (folder / "secret.txt").write_text("the GM's secret")
    before = _digest(folder)
    with pytest.raises(SystemExit) as refused:
        serve(["start", "--trial", str(folder), "--fresh", "--port", "0", "--once"])
    assert (True, before) == (str(folder) in str(refused.value), _digest(folder))


def test_an_earlier_trial_is_replaced_only_with_fresh(tmp_path):
    """A folder start made is kept without --fresh, and replaced (marked again) with it."""
    folder = tmp_path / "trial"
    make_folder(folder, fresh=False)
    (folder / "store.json").write_text("{}")
    with pytest.raises(SystemExit) as kept:
        make_folder(folder, fresh=False)
    make_folder(folder, fresh=True)
    assert ("--fresh" in str(kept.value), [MARK]) == (
        True,
        sorted(path.name for path in folder.iterdir()),
    )


def test_an_empty_folder_is_used_without_fresh(tmp_path):
    """An existing empty folder becomes the trial's: nothing in it to lose."""
    make_folder(tmp_path, fresh=False)
    assert (tmp_path / MARK).is_file()


def test_start_plays_a_copy_of_a_campaign_and_never_changes_it(tmp_path, monkeypatch, capsys):
    """start --campaign DIR --once plays a copy: DIR stays byte for byte, its secret unread."""
    campaign = copy_shipped(DATA / "demos" / "pool", tmp_path / "pool")
    (campaign / "secret.txt").write_text("the GM's own secret\n")
    shipped = tomllib.loads((campaign / "config.toml").read_text(encoding="utf-8"))["campaign"]
    before = _digest(campaign)
    monkeypatch.chdir(tmp_path)
    trial = tmp_path / "trial"
    at = ["--campaign", str(campaign), "--trial", str(trial), "--port", "0"]
    code = serve(["start", *at, "--once"])
    capsys.readouterr()
    config = tomllib.loads((trial / "config.toml").read_text(encoding="utf-8"))
    assert (0, before) == (code, _digest(campaign))
    assert (shipped["name"], "pool", False) == (
        config["campaign"]["name"],
        config["campaign"]["system"],
        "the GM's own secret" in _texts(trial),
    )


def _texts(folder: Path) -> str:
    return "".join(
        path.read_text(encoding="utf-8", errors="replace")
        for path in folder.rglob("*")
        if path.is_file()
    )


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_a_system_demo_is_played_with_its_own_accounts_name_and_system(
    system, tmp_path, monkeypatch, capsys
):
    """Each system's demo in the trial: its config, its players' accounts, a roll answered."""
    source = SYSTEMS[system]
    shipped = tomllib.loads(source.config.read_text(encoding="utf-8"))["campaign"]
    with FakeReddit() as server:
        subreddit, thread, _ = seed_source(server, source)
        write_campaign(tmp_path, server, subreddit, source)
        local = describe(server, subreddit, thread, tmp_path / "data")
        local.write(tmp_path)
        _bot_env(tmp_path, monkeypatch)
        config = tomllib.loads((tmp_path / "config.toml").read_text(encoding="utf-8"))
        assert 0 == main(["run", "--once"])
        posted = fake_client.post(LocalReddit.read(tmp_path), "new_player", "[[roll 2d6]]", None)
        assert 0 == main(["run", "--once"])
        capsys.readouterr()
        answers = [reply["body"] for reply in server.replies_to(posted)]
    players = {role for role in local.roles.values() if role.startswith("player of")}
    assert (shipped["name"], system, 1) == (
        config["campaign"]["name"],
        config["campaign"].get("system", "stepped"),
        len(answers),
    )
    assert ("**Roll 2d6**" in answers[0] or "2d6" in answers[0], True) == (True, bool(players))


def _bot_env(folder: Path, monkeypatch) -> None:
    """The bot's credentials as PRAW's variables (praw.ini is read once per process)."""
    monkeypatch.chdir(folder)
    monkeypatch.delenv("REFEREE_TRIAL_SECRET", raising=False)
    ini = dict(line.split("=", 1) for line in (folder / "praw.ini").read_text().split()[1:])
    for key, value in ini.items():
        monkeypatch.setenv(f"praw_{key}", value)


def test_the_trials_rate_limit_window_resets_with_real_time():
    """On a WallClock the look-alike's spent window is whole again ten minutes later."""
    seconds = [1_800_000_000.0]
    with FakeReddit(clock=WallClock(source=lambda: seconds[0])) as server:
        server.use_quota(400)
        spent, _ = server.rate_limit()
        seconds[0] += 600
        after, _ = server.rate_limit()
    assert (400, 0) == (spent, after)


def _praw_delays(server: FakeReddit, seconds: list[float], minutes: int) -> list[float]:
    """PRAW's pause before each request, the bot making 60 a minute for ``minutes`` minutes.

    Each simulated second one request: 59 a minute are only counted by the server, the
    60th is a real GET whose x-ratelimit headers go through prawcore's own RateLimiter,
    as in the bot.
    """
    session = requests.Session()
    token = session.post(
        f"{server.url}/api/v1/access_token",
        auth=(server.client_id, server.client_secret),
        data={"grant_type": "password", "username": server.bot, "password": "bot-password"},
    ).json()["access_token"]
    limiter = RateLimiter(window_size=600)
    delays = []
    for _ in range(minutes):
        for _ in range(59):  # one request a second, as the bot's budget spreads them
            seconds[0] += 1
            server.use_quota(1)
        seconds[0] += 1
        response = session.get(
            f"{server.url}/api/v1/me", headers={"Authorization": f"bearer {token}"}
        )
        limiter.update(response_headers=response.headers)
        assert limiter.next_request_timestamp_ns is not None
        delays.append((limiter.next_request_timestamp_ns - time.monotonic_ns()) / 1e9)
    session.close()
    return delays


def test_after_an_hour_the_trial_paces_the_bot_as_in_its_first_minutes():
    """At the bot's 60 requests a minute, PRAW waits as little in the hour's last 10 minutes
    as in its first 10 (<= 5 s at p95) on the trial's clock; on a clock that stands still
    the window never resets and PRAW waits its full 10 s."""
    seconds = [1_800_000_000.0]
    with FakeReddit(clock=WallClock(source=lambda: seconds[0])) as server:
        moving = _praw_delays(server, seconds, 70)
    with FakeReddit() as server:  # a FakeClock: it moves only when told to, and nobody does
        still = _praw_delays(server, [0.0], 70)

    def p95(values: list[float]) -> float:
        return sorted(values)[int(0.95 * (len(values) - 1))]

    assert (True, True, True) == (
        p95(moving[-10:]) <= 5,
        p95(moving[-10:]) <= p95(moving[:10]) + 1,
        p95(still[-10:]) > 5,
    )


def test_a_trial_folder_inside_the_campaign_is_refused(tmp_path, capsys):
    """start --campaign DIR --trial DIR/sub exits naming DIR, and DIR gains nothing."""
    campaign = copy_shipped(DATA / "demos" / "hits", tmp_path / "hits")
    before = _digest(campaign)
    with pytest.raises(SystemExit) as refused:
        serve(["start", "--campaign", str(campaign), "--trial", str(campaign / "trial")])
    assert (True, before, False) == (
        str(campaign) in str(refused.value),
        _digest(campaign),
        (campaign / "trial").exists(),
    )


def test_a_character_imported_into_the_store_plays_in_the_trial(tmp_path, monkeypatch, capsys):
    """The README's first steps: `referee new`, `import --owner nova_plays`, then the trial.
    The imported character (in the store, not the sheets file) is in the trial's copy,
    its player has an account there, and the campaign's folder is left as it was."""
    campaign = tmp_path / "my-campaign"
    assert 0 == main(["new", str(campaign), "--system", "pool", "--name", "Kestrel"])
    sheet = campaign / "sample-sheet.txt"
    assert 0 == main(["--campaign", str(campaign), "import", str(sheet), "--owner", "nova_plays"])
    capsys.readouterr()
    before = _digest(campaign)
    source = find_source(None, campaign, REPO)
    with FakeReddit() as server:
        subreddit, thread, _ = seed_source(server, source)
        write_campaign(tmp_path / "trial", server, subreddit, source)
        local = describe(server, subreddit, thread, tmp_path / "trial" / "data")
        known = {name.casefold() for name in server.passwords()}
    with Store(tmp_path / "trial" / "data" / "store.json", read_only=True) as store:
        owners = [c.get("owner") for c in store.table("characters").values()]
    assert (["nova_plays"], True) == (owners, "nova_plays" in known)
    assert local.roles["nova_plays"].startswith("player of ")
    assert before == _digest(campaign)
