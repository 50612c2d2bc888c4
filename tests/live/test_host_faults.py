"""``referee host`` killed with SIGKILL at random points: every campaign's tags are still
answered exactly once and rolled exactly once."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.store.ledger import verify
from referee.store.store import Store
from referee.testing.host import host_campaign, write_host
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import bot_replies, fake_reddit, seed_tagged, worker_env

SUBS = ("ashes", "bells", "crows")


@pytest.fixture
def roomy_server() -> Iterator[FakeReddit]:
    """Three subreddits and a quota that outlasts the host's requests on the wall clock."""
    with fake_reddit(subreddits=SUBS, quota=1_000_000_000) as fake:
        yield fake


def _await(server: FakeReddit, process: subprocess.Popen[bytes], target: int) -> bool:
    """Wait (bounded) until the bot has ``target`` replies; False if the host exited first."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            process.wait(timeout=0.005)
            return False
        except subprocess.TimeoutExpired:
            pass
        if sum(bot_replies(server).values()) >= target:
            return True
    return True


@pytest.mark.slow
def test_sigkill_of_the_host_loses_and_doubles_nothing(
    roomy_server: FakeReddit, tmp_path: Path
) -> None:
    """Three campaigns on one account; the host is SIGKILLed after a random number of
    replies, five times, then left to finish: no duplicate, no tag missed, ledgers whole."""
    server = roomy_server
    tagged = {sub: seed_tagged(server, threads=2, per_thread=7, sub=sub) for sub in SUBS}
    folders = [host_campaign(server, tmp_path / sub, sub, poll=5) for sub in SUBS]
    host_file = write_host(tmp_path / "host.toml", server, folders, budget_share=1.0)
    command = [sys.executable, "-m", "referee", "host", str(host_file)]
    total = sum(map(len, tagged.values()))
    chance = random.Random(20261127)  # a fixed seed: the same kill points on every run
    kills = 0
    with (tmp_path / "host.log").open("a") as log_file:
        for run in range(6):
            process = subprocess.Popen(
                command, env=worker_env(server), cwd=tmp_path, stderr=log_file
            )
            try:
                target = (
                    total if run == 5 else sum(bot_replies(server).values()) + chance.randint(1, 8)
                )
                reached = _await(server, process, min(target, total))
                if run < 5 and reached:
                    process.send_signal(signal.SIGKILL)
                    process.wait(timeout=10)
                    kills += 1
                else:
                    process.send_signal(signal.SIGTERM)
                    process.wait(timeout=30)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
    replies = bot_replies(server)
    everything = [post for posts in tagged.values() for post in posts]
    duplicates = {post: n for post, n in replies.items() if n > 1}
    missed = [post for post in everything if post not in replies]
    assert (5, {}, []) == (kills, duplicates, missed), (tmp_path / "host.log").read_text()[-3000:]
    for sub, folder in zip(SUBS, folders, strict=True):
        with Store(folder / "data" / "store.json") as store:
            rows = list(store.ledger)
        assert (len(tagged[sub]), True) == (len(rows), verify(rows, None).ok)
