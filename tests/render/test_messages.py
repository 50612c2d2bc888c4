"""Every message a player can read points somewhere he can go: never to a shell command.

A player on Reddit cannot run ``referee characters``; only the GM who hosts the bot
can. This scans every string the package can put in a reply (error messages, sheet
problems, notes, templates) for a ``referee <command>`` and fails naming the place.
Strings only an operator reads (``ConfigError``/``StoreError``/``OperatorError`` and
``ForumError`` messages, log lines, ``print``) are left out, and so are the command
line and the reading of ``config.toml``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import referee

PACKAGE = Path(referee.__file__).resolve().parent
SHELL_COMMAND = re.compile(
    r"\breferee (?:batch|run|roll|characters|systems|approve|import|verify|failures|history|"
    r"applications|migrate)\b"
)
OPERATOR_ONLY = {"ConfigError", "StoreError", "OperatorError", "ForumError", "print"}
LOGGERS = {"log", "logger", "logging", "LOG"}
# The command line speaks to whoever runs it; config.toml's problems go to the operator;
# the digest is a private message to the GMs, whose lines say what whoever runs the bot
# can do in the shell; the shell's requests answer the GM who made them, in the shell.
SHELL_ONLY = {
    "cli.py",
    "__main__.py",
    "campaign.py",
    "new.py",
    "digest.py",
    "shell.py",
    "shell_requests.py",
}


def _called(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id if func.value.id in LOGGERS else func.attr
    return ""


def _reply_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every string constant outside docstrings and operator-only calls."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                skipped.add(id(value))  # a docstring
        if isinstance(node, ast.Call) and (
            _called(node) in OPERATOR_ONLY or _called(node) in LOGGERS
        ):
            skipped.update(id(inner) for inner in ast.walk(node))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skipped
    ]


def test_no_message_sends_a_player_to_a_shell_command() -> None:
    """No string a reply can hold, in any module or template, names a `referee` command."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in SHELL_ONLY or "testing" in path.relative_to(PACKAGE).parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, text in _reply_strings(tree):
            if SHELL_COMMAND.search(text):
                found.append(f"{path.relative_to(PACKAGE)}:{line}: {text!r}")
    for path in sorted(PACKAGE.rglob("*.j2")):
        for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if SHELL_COMMAND.search(text) and not text.lstrip().startswith("{#"):
                found.append(f"{path.relative_to(PACKAGE)}:{line}: {text!r}")
    assert [] == found


def test_the_scan_finds_a_shell_command_in_an_error_message() -> None:
    """The scan itself works: a UserError naming `referee characters` is caught, a log line not."""
    source = (
        "def f():\n"
        "    '''Docstring: `referee characters` is fine here.'''\n"
        "    log.info('see `referee failures`')\n"
        "    raise UnknownName(f'No {name}; `referee characters` lists them.')\n"
    )
    found = [text for _, text in _reply_strings(ast.parse(source))]
    assert ["; `referee characters` lists them."] == [t for t in found if SHELL_COMMAND.search(t)]
