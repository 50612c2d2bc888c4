"""The README's commands work in the order a newcomer runs them, whatever the dice.

Every ``.venv/bin/referee ...`` line of the README's ``sh`` blocks is run, in order, on a
fresh copy of the repository's campaigns (no store, no secret), as the newcomer would
after cloning. A demo's ``batch`` exits 1 (its thread holds refusals on purpose, as the
README says); every other command exits 0. A few campaign secrets are tried, so no
command works only because the dice happened to fall one way.
"""

from __future__ import annotations

import re

import pytest

from referee.cli import main
from referee.testing.shipped import REPO, copy_repository_campaign
from referee.testing.walkthrough import shell_commands

README = REPO / "README.md"
_SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.DOTALL | re.MULTILINE)
_LINK = re.compile(r"\]\((docs/[^)#]+)(?:#([^)]+))?\)")


def readme_commands() -> list[list[str]]:
    """The arguments of every referee command in the README's sh blocks, in order."""
    return shell_commands(README.read_text(encoding="utf-8"))


def test_the_readme_has_the_newcomers_commands() -> None:
    """The walk-through is there: the demo batch first, then tags tried from the shell."""
    commands = readme_commands()
    assert (["batch", "data/demo/thread.json"], True) == (
        commands[0],
        any(command[0] == "roll" and "shoot" in command[1] for command in commands),
    )


@pytest.mark.parametrize("secret", ["newcomer-1", "newcomer-2", "newcomer-3"])
def test_the_readme_commands_run_in_order_on_a_fresh_copy(
    secret, tmp_path, monkeypatch, capsys
) -> None:
    """Each README command gives the exit code the README promises, one after the other."""
    copy_repository_campaign(tmp_path)
    monkeypatch.setenv("REFEREE_SECRET", secret)
    monkeypatch.chdir(tmp_path)
    results = []
    for command in readme_commands():
        code = main(command)
        out = capsys.readouterr().out
        expected = 1 if "batch" in command else 0
        results.append((command, code == expected, "not resolved" in out and expected == 0))
    assert [] == [(command, ok, refused) for command, ok, refused in results if not ok or refused]


def test_ci_runs_the_readmes_demo_and_then_its_test_command_word_for_word() -> None:
    """.ci/run holds the README's install-and-demo line, then its test line, unchanged."""
    setup = [
        line
        for block in _SH_BLOCK.findall(README.read_text(encoding="utf-8"))
        for line in block.splitlines()
        if line.startswith("python3 -m venv .venv")
    ]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    demo = next((n for n, line in enumerate(ci) if line.startswith(setup[0] + " ")), None)
    tests = next((n for n, line in enumerate(ci) if line == setup[1]), None)
    assert (2, True) == (len(setup), demo is not None and tests is not None and demo < tests)


def _anchors(page: str) -> set[str]:
    """The anchors MkDocs gives a page's headings (lower case, words joined by hyphens)."""
    headings = re.findall(r"^#+ (.+?)(?: \{#([\w-]+)\})?$", page, re.MULTILINE)
    return {explicit or _slug(title) for title, explicit in headings}


def _slug(title: str) -> str:
    """A heading's anchor as MkDocs makes it: ``The end`` -> ``the-end``."""
    return re.sub(r"\s+", "-", re.sub(r"[^\w\s-]", "", title.lower()).strip())


def test_the_readmes_links_into_the_docs_land() -> None:
    """Every docs/ page the README links to exists, and so does the heading it names."""
    broken = []
    for path, anchor in _LINK.findall(README.read_text(encoding="utf-8")):
        page = REPO / path
        if not page.is_file() or (anchor and anchor not in _anchors(page.read_text("utf-8"))):
            broken.append(f"{path}#{anchor}")
    assert ([], True) == (broken, len(_LINK.findall(README.read_text(encoding="utf-8"))) > 10)
