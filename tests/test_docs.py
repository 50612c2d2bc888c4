"""The documentation site builds without a broken link, and its examples work.

* ``mkdocs build --strict`` into a temporary folder: a link to a missing page or anchor
  (``rules/stepped.md#r-58``) fails it.
* Every ``.venv/bin/referee ...`` line of the pages' ``sh`` blocks is run, page after
  page in the site's order, on one fresh copy of the shipped campaigns, as a reader
  going through the site would: a ``batch`` of a demo thread exits 1 (its thread holds
  refusals on purpose), every other command 0.
* Every tag the pages show is read by the verbs of the page's dice system (any system's,
  on a page about none); the few shown as refused are refused.
* Every ruling R-1 to R-61 has its own anchor, and every option of every built-in
  system is on its rules page with its default.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from enum import Enum
from pathlib import Path

import pytest

from referee.base.errors import TagError
from referee.cli import main
from referee.read.tags import parse_tag
from referee.resolve.dispatch import verbs_for
from referee.system import rulings_defaults
from referee.system.registry import load_system
from referee.testing.walkthrough import page_tags, shell_commands

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
SYSTEMS = ("stepped", "edge", "pool", "trikus", "hits")

# Tags the pages show being refused (a slip and the reply that corrects it), and text
# between double brackets that is no tag.
REFUSED = {
    "Kara agility",  # answered with [[roll Kara agility]]
    "sht Kara -> Trooper 1",  # answered with the tag corrected to shoot
    "roll 1d20adv",  # "Did you mean 2d20kh1?"
    "roll 2d6 adv",
    "light Kara ³",  # a digit str.isdigit() takes and int() refuses
    "8−−h(H)6K(k9x(616h3lx(H4,h+/0,l%.5 8−−h(H)6K(k9x(616h3lx(H4",  # a hostile tag
}


def _pages() -> list[Path]:
    """The site's pages in the order of its navigation."""
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    return [DOCS / name for name in re.findall(r":\s+(\S+\.md)$", nav, re.MULTILINE)]


def _copy_campaigns(into: Path) -> None:
    """The repository's campaigns as a fresh clone has them: no store, no secret."""
    shutil.copy(REPO / "config.toml", into / "config.toml")
    ignored = shutil.ignore_patterns("store.*", "secret.txt", "*.jsonl*", "local-reddit.json")
    shutil.copytree(REPO / "data", into / "data", ignore=ignored)
    if (REPO / "templates").is_dir():
        shutil.copytree(REPO / "templates", into / "templates")


def test_the_site_builds_with_no_broken_link_or_anchor(tmp_path) -> None:
    """mkdocs build --strict passes: every page is in the navigation, every link lands."""
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    warnings = [line for line in built.stderr.splitlines() if "WARNING" in line]
    assert (0, []) == (built.returncode, warnings)


def test_every_page_is_in_the_navigation() -> None:
    """No page is left out of the site's menu, and the menu names no missing page."""
    pages = _pages()
    assert (sorted(DOCS.rglob("*.md")), []) == (
        sorted(pages),
        [page for page in pages if not page.is_file()],
    )


@pytest.mark.parametrize("secret", ["reader-1", "reader-2"])
def test_the_docs_commands_run_in_order_on_a_fresh_copy(
    secret, tmp_path, monkeypatch, capsys
) -> None:
    """Each page's referee commands give the exit code the page promises, in site order."""
    _copy_campaigns(tmp_path)
    (tmp_path / "revealed.txt").write_text(secret + "\n", encoding="utf-8")
    monkeypatch.setenv("REFEREE_SECRET", secret)
    monkeypatch.chdir(tmp_path)
    results = []
    for page in _pages():
        for command in shell_commands(page.read_text(encoding="utf-8")):
            code = main(command)
            out = capsys.readouterr().out
            expected = 1 if "batch" in command else 0
            refused = "not resolved" in out and expected == 0
            results.append((page.name, command, code == expected, refused))
    assert [] == [(page, command) for page, command, ok, refused in results if not ok or refused]
    assert len(results) >= 10


def _system_of(page: Path) -> tuple[str, ...]:
    """The systems whose verbs read a page's tags: its own, or any for a general page."""
    return (page.stem,) if page.stem in SYSTEMS else SYSTEMS


def _reads(tag: str, systems: tuple[str, ...]) -> bool:
    """Whether some system of ``systems`` reads the tag's text as a request."""
    for name in systems:
        try:
            parse_tag(tag, verbs_for(load_system(name)))
        except TagError:
            continue
        return True
    return False


def _is_a_form(tag: str) -> bool:
    """A verb named alone (``[[sheet]]``) or a form with a gap (``[[npc ...]]``), not a tag."""
    return "..." in tag or "…" in tag or re.fullmatch(r"[a-z]+", tag) is not None


def test_every_tag_in_the_docs_is_read_by_its_systems_verbs() -> None:
    """Each example tag parses with its page's system; each shown as refused is refused."""
    unread, read = [], []
    for page in _pages():
        for tag in page_tags(page.read_text(encoding="utf-8")):
            if tag in REFUSED:
                if _reads(tag, SYSTEMS):
                    read.append((page.name, tag))
            elif not _is_a_form(tag) and not _reads(tag, _system_of(page)):
                unread.append((page.name, tag))
    assert ([], []) == (unread, read)


def test_every_ruling_has_its_own_anchor() -> None:
    """R-1 to R-61 each have one heading anchor ({#r-N}) across the rules pages."""
    anchors = re.findall(
        r"\{#r-(\d+)\}",
        "".join(page.read_text(encoding="utf-8") for page in DOCS.glob("rules/*.md")),
    )
    assert list(range(1, 62)) == sorted(int(number) for number in anchors)


def _toml(value: object) -> str:
    """A ruling's default as config.toml writes it."""
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(f'"{item}"' for item in value) + "]"
    return str(value)


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_option_is_on_its_rules_page_with_its_default(name) -> None:
    """Each ruling of the system has a row `| `key` | default |` in its options table."""
    page = (DOCS / "rules" / f"{name}.md").read_text(encoding="utf-8")
    defaults = rulings_defaults(load_system(name).rulings_type)
    missing = []
    for key, default in defaults.items():
        row = re.search(rf"^\| `{key}` \| ([^|]+) \|", page, re.MULTILINE)
        shown = row[1].strip() if row else None
        # A long list may be written out plainly: its names, with commas.
        plain = ", ".join(default) if isinstance(default, tuple) else None
        if shown not in (f"`{_toml(default)}`", plain):
            missing.append((key, _toml(default), shown))
    assert [] == missing


def test_the_docs_python_examples_run() -> None:
    """Every >>> example of the pages (a die checked by hand) gives what the page says."""
    failed = []
    for page in _pages():
        if ">>>" in page.read_text(encoding="utf-8"):
            result = doctest.testfile(str(page), module_relative=False, verbose=False)
            failed.append((page.name, result.failed))
    assert ([], True) == ([f for f in failed if f[1]], len(failed) >= 1)
