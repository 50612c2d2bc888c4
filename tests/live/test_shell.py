"""The shell's commands beside a real `referee run` process, on the local Reddit.

Two processes, as a GM has them: the bot (``python -m referee run``) and a shell command
(``python -m referee approve``). Waits are bounded and watch the processes or the
server, never a clock alone.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from referee.live.shell_requests import TABLE, new_request, request_folder, submit, waiting
from referee.store.ledger import verify
from referee.testing import make_campaign
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, fake_reddit, reddit_section, worker_env

NAMES = ("Orla Ash", "Orla Birch", "Orla Cole", "Orla Dane", "Orla Elm", "Orla Fox")
SHEET = """[[apply]]

```
name: {name}
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
    """A FakeReddit whose quota outlasts a wall-clock bot (prawcore would pace it)."""
    with fake_reddit(quota=1_000_000_000) as fake:
        yield fake


def _referee(folder: Path, *command: str) -> list[str]:
    return [sys.executable, "-m", "referee", "--campaign", str(folder), *command]


def _until(condition: Callable[[], bool], process: subprocess.Popen[bytes], seconds: float) -> bool:
    """Wait (bounded) until ``condition`` holds; False if the process exited first."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        try:
            process.wait(timeout=0.01)
            return condition()
        except subprocess.TimeoutExpired:
            pass
    return condition()


def _decisions(server: FakeReddit, application: str) -> int:
    return sum(
        "is approved" in c["body"]
        for c in server.replies_to(application)
        if c["author"] == server.bot
    )


def _campaign(server: FakeReddit, folder: Path) -> None:
    extra = reddit_section(server, "timeout = 2.0\nbudget_share = 1.0\n", poll=5)
    make_campaign(folder, extra_config=extra).close()


def test_approve_beside_a_running_bot_prints_its_answer_and_reaches_the_thread(
    server: FakeReddit, tmp_path: Path
) -> None:
    """`referee approve` while `referee run` runs: the command prints the bot's decision
    within seconds, the decision is posted under the application once, and a SIGKILL
    and a `run --once` after it post nothing more."""
    thread = server.submit(SUB, "gm", "Applications", "Apply below.")
    application = server.comment(thread, "orla_player", SHEET.format(name="Orla Ash"))
    _campaign(server, tmp_path)
    env = worker_env(server)
    bot = subprocess.Popen(_referee(tmp_path, "run"), env=env, stderr=subprocess.DEVNULL)
    try:
        assert _until(lambda: bool(server.replies_to(application)), bot, 30)
        done = subprocess.run(
            _referee(tmp_path, "approve", "Orla Ash"),
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert 0 == done.returncode, done.stderr
        assert "Orla Ash is approved" in done.stdout
        assert "posts this under u/orla_player's application" in done.stderr
        assert "at its next step" in done.stderr
        assert _until(lambda: _decisions(server, application) == 1, bot, 30)
    finally:
        bot.send_signal(signal.SIGKILL)
        bot.wait(timeout=10)
    again = subprocess.run(_referee(tmp_path, "run", "--once"), env=env, capture_output=True)
    assert (0, 1) == (again.returncode, _decisions(server, application)), again.stderr


def test_sigkill_of_the_bot_while_it_takes_requests_loses_and_doubles_nothing(
    server: FakeReddit, tmp_path: Path
) -> None:
    """Six approvals left for the bot; the bot is killed with SIGKILL at random points of
    its progress and started again, then `run --once`: every application is approved
    once (one ledger row) and answered under it once, and no request is left."""
    thread = server.submit(SUB, "gm", "Applications", "Apply below.")
    applications = [
        server.comment(thread, f"player{n}", SHEET.format(name=name))
        for n, name in enumerate(NAMES)
    ]
    _campaign(server, tmp_path)
    env = worker_env(server)
    store_path = tmp_path / "data" / "store.json"
    first = subprocess.run(_referee(tmp_path, "run", "--once"), env=env, capture_output=True)
    assert 0 == first.returncode, first.stderr
    for name in NAMES:
        submit(request_folder(store_path), new_request("decide", decision="approve", name=name))
    chance = random.Random(20260301)
    kills = 0
    for _ in range(4):
        bot = subprocess.Popen(_referee(tmp_path, "run"), env=env, stderr=subprocess.DEVNULL)
        try:
            more = chance.randint(0, 2)
            target = sum(_decisions(server, a) for a in applications) + more

            def reached(target: int = target) -> bool:
                return sum(_decisions(server, a) for a in applications) >= target

            if _until(reached, bot, 30):
                bot.send_signal(signal.SIGKILL)
                kills += 1
        finally:
            bot.kill()
            bot.wait(timeout=10)
    final = subprocess.run(_referee(tmp_path, "run", "--once"), env=env, capture_output=True)
    campaign = make_campaign(tmp_path)
    try:
        rows = list(campaign.store.ledger)
        taken = len(campaign.store.table(TABLE))
    finally:
        campaign.close()
    decisions = Counter(row["post"] for row in rows if row["kind"] == "decision")
    assert (4, 0) == (kills, final.returncode)
    assert [1] * len(NAMES) == [_decisions(server, a) for a in applications]
    assert ({1}, len(NAMES), len(NAMES)) == (set(decisions.values()), len(decisions), taken)
    assert (True, []) == (verify(rows, None).ok, waiting(request_folder(store_path)))
