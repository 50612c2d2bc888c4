"""The docs' local trial (the Reddit app page), command by command, as written (ids included)."""

from referee.testing.serve import describe, seed_source, trial_server, write_campaign
from referee.testing.serve import main as serve
from referee.testing.shipped import REPO
from referee.testing.trial import demo_systems, make_folder
from referee.testing.walkthrough import shell_commands

PAGE = REPO / "docs" / "gm" / "reddit.md"  # "Try it without Reddit"


def docs_trial() -> list[list[str]]:
    """The arguments of every referee-fake line of the page's sh blocks, in order."""
    return shell_commands(PAGE.read_text(encoding="utf-8"), ".venv/bin/referee-fake ")


def test_the_docs_trial_commands_run_as_written(tmp_path, monkeypatch, capsys):
    """start's system, then each sub-command of the page in order: all exit 0, ids match."""
    start, *commands = docs_trial()
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
