"""The README's local trial, command by command, as written (ids included)."""

import re
import shlex

from referee.testing.serve import describe, seed_source, trial_server, write_campaign
from referee.testing.serve import main as serve
from referee.testing.shipped import REPO
from referee.testing.trial import demo_systems, make_folder

_SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.DOTALL | re.MULTILINE)
_FAKE = ".venv/bin/referee-fake "


def readme_trial() -> list[list[str]]:
    """The arguments of every referee-fake line of the README's sh blocks, in order."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return [
        shlex.split(line.split(_FAKE, 1)[1], comments=True)
        for block in _SH_BLOCK.findall(text)
        for line in block.splitlines()
        if line.startswith(_FAKE)
    ]


def test_the_readmes_trial_commands_run_as_written(tmp_path, monkeypatch, capsys):
    """start's system, then each sub-command of the README in order: all exit 0, ids match."""
    start, *commands = readme_trial()
    system = start[start.index("--system") + 1]
    trial = tmp_path / "trial"
    monkeypatch.delenv("REFEREE_TRIAL_SECRET", raising=False)
    make_folder(trial, fresh=False)
    results = []
    with trial_server(0) as server:
        subreddit, thread, _ = seed_source(server, demo_systems(REPO)[system])
        write_campaign(trial, server, subreddit, demo_systems(REPO)[system])
        describe(server, subreddit, thread, trial / "data").write(trial)
        for command in commands:
            code = serve([command[0], "--trial", str(trial), *command[1:]])
            results.append((command[0], code, capsys.readouterr().out))
        ids = {out.split(":")[0] for name, _, out in results if name == "post"}
        named = {word for command in commands for word in command if word.startswith("t1_")}
        first = min(ids, key=lambda fullname: int(fullname[3:], 36))
        answered = {reply["author"] for reply in server.replies_to(first)}
    assert ([], named) == ([(n, c) for n, c, _ in results if c != 0], named & ids)
    assert {server.bot, "gm_lua"} == answered  # the bot's verdict and the GM's reply
