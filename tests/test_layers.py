"""The package's shape: stages as layers, no import circle, no import hidden in a function.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``): each layer imports
only the layers below it, and no core module imports a concrete dice system. The
circle check counts every import, those under ``if TYPE_CHECKING:`` included, because a
type-only circle still ties two modules together.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp

PACKAGE = Path(__file__).resolve().parents[1] / "referee"
PYPROJECT = PACKAGE.parent / "pyproject.toml"
# Test helpers may hold a longer module: a fixture server, a conformance kit.
SIZE_EXEMPT = ("testing",)
LONGEST_MODULE = 620  # about 600 lines: past it a module is usually two topics


def test_every_import_contract_is_kept() -> None:
    """The layers and the ban on core modules importing a dice system hold."""
    # In a process of its own: import-linter configures logging with dictConfig, which
    # disables every logger it does not name (referee's among them) for the rest of the
    # process, so later tests would read no log at all.
    linter = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(linter), str(PYPROJECT), "--no-cache", "--no-logo"],
        capture_output=True,
        text=True,
        cwd=PACKAGE.parent,
        check=False,
    )
    last_line = done.stdout.strip().splitlines()[-1]
    assert (0, "Contracts: 2 kept, 0 broken.") == (done.returncode, last_line)


def _strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm: the circles of the import graph (groups of two or more)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in edges[module]:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_itself_round_a_circle() -> None:
    """Over the whole package, type-only imports counted, no two modules import each other
    however far round."""
    graph = grimp.build_graph("referee", include_external_packages=False)
    edges = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    assert [] == _strongly_connected(edges)


def _imports_in_functions(path: Path) -> list[int]:
    """Lines of ``path`` where a function imports a module of referee."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.ImportFrom)
                    and (inner.level or (inner.module or "").startswith("referee"))
                ) or (
                    isinstance(inner, ast.Import)
                    and any(alias.name.startswith("referee") for alias in inner.names)
                ):
                    lines.append(inner.lineno)
    return lines


def _core_modules() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] not in ("testing", "systems")
    ]


def _modules_but_test_helpers() -> list[Path]:
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] not in SIZE_EXEMPT
    ]


def test_no_core_module_imports_inside_a_function() -> None:
    """An import inside a function hides an arrow from the layers; none is left."""
    hidden = {
        str(path.relative_to(PACKAGE)): lines
        for path in _core_modules()
        if (lines := _imports_in_functions(path))
    }
    assert {} == hidden


def test_the_package_reads_as_its_stages() -> None:
    """``ls referee/`` shows the stages and the base, no more than fifteen entries, and no
    module (the dice systems' included) grows past the size one topic takes."""
    entries = sorted(path.name for path in PACKAGE.iterdir() if path.name not in ("__pycache__",))
    long_modules = {
        str(path.relative_to(PACKAGE)): length
        for path in _modules_but_test_helpers()
        if (length := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST_MODULE
    }
    assert len(entries) <= 15, entries
    assert {} == long_modules
