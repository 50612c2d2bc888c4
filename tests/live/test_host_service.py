"""``referee host`` as a process: serves, reloads on ``--reload``, stops cleanly on SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.store.store import Store
from referee.testing.host import host_campaign, write_host
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import bot_replies, fake_reddit, worker_env

SUBS = ("ashes", "bells", "crows")


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """A FakeReddit with three subreddits."""
    with fake_reddit(subreddits=SUBS) as fake:
        yield fake


def _wait_for(lines: Iterator[str], seen: list[str], event: str, count: int) -> None:
    """Read the host's log until ``event`` appeared ``count`` times (the watchdog bounds it)."""
    for line in lines:
        seen.append(line)
        if sum(event in s for s in seen) >= count:
            return


def test_host_serves_reloads_and_stops(server: FakeReddit, tmp_path: Path) -> None:
    """Two campaigns answered; a third added by --reload answered too; SIGTERM flushes all."""
    folders = [host_campaign(server, tmp_path / sub, sub, poll=5) for sub in SUBS]
    host_file = write_host(tmp_path / "host.toml", server, folders[:2])
    posts = [server.comment(server.submit(s, "al", "S", "x"), "bo", "[[roll 1d6]]") for s in SUBS]
    env = worker_env(server)
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "host", str(host_file)],
        env=env,
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    watchdog = threading.Timer(60, process.kill)
    watchdog.start()
    seen: list[str] = []
    try:
        _wait_for(process.stderr, seen, "event=replied", 2)
        write_host(host_file, server, folders)
        reload = subprocess.run(
            [sys.executable, "-m", "referee", "host", "--reload", str(host_file)],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        _wait_for(process.stderr, seen, "event=replied", 3)
        process.send_signal(signal.SIGTERM)
        _, rest = process.communicate(timeout=30)
    finally:
        watchdog.cancel()
        process.kill()
    log = "".join(seen) + rest
    assert (0, 0) == (reload.returncode, process.returncode), log + reload.stderr
    assert Counter(dict.fromkeys(posts, 1)) == bot_replies(server), log
    assert "event=stopped" in log
    for folder in folders:  # every store closed: its lock is free, its reply delivered
        with Store(folder / "data" / "store.json") as store:
            states = [r["delivery"]["state"] for r in store.table("posts").values()]
        assert ["delivered"] == states
