"""The layers stay apart: engine/ and geometry/ never import Qt, geometry/ knows no rules."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QT = ("PySide6", "pyqtgraph", "shiboken6")


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
    return out


@pytest.mark.parametrize("package,forbidden", [
    ("engine", QT + ("gui",)),
    ("geometry", QT + ("gui", "engine")),
])
def test_no_forbidden_imports_anywhere_in_the_source(package, forbidden):
    offenders = []
    for f in sorted((ROOT / package).rglob("*.py")):
        for line, mod in _imports(f):
            if mod.split(".")[0] in forbidden:
                offenders.append(f"{f.relative_to(ROOT)}:{line} imports {mod}")
    assert offenders == []


def test_import_linter_contracts_hold():
    """The contracts in pyproject.toml, checked by import-linter itself."""
    exe = Path(sys.executable).with_name("lint-imports")
    if not exe.exists():
        pytest.skip("import-linter is not installed")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stdout + res.stderr


def test_engine_runs_without_qt_loaded():
    """Loading and analysing headless must not pull Qt into the process."""
    code = (
        "import sys, engine.files, engine.model, geometry;"
        "bad=[m for m in sys.modules if m.split('.')[0] in ('PySide6','pyqtgraph')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def _cycles(package: str) -> list[list[str]]:
    """The import circles among ``package``'s modules (strongly connected groups of more than
    one module; imports under ``if TYPE_CHECKING`` are for type hints and never run)."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph(package, cache_dir=None, exclude_type_checking_imports=True)
    adj = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in sorted(graph.modules)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []
    for root in adj:  # Tarjan's algorithm, iteratively
        if root in index:
            continue
        work = [(root, iter(adj[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    work.append((w, iter(adj[w])))
                elif w in stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    out.append(sorted(group))
    return out


def test_no_import_circles_inside_engine():
    """engine.model -> engine.registry, never engine.rules (which imports the model); a
    system's modules import downwards (issue #27)."""
    assert _cycles("engine") == []


def test_the_core_contract_guards_all_of_engine():
    """"The core imports no rule system" names all of ``engine`` (new modules are guarded
    too), not a hand-kept list."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # (Python 3.10: tomli, which pytest itself needs there)
        import tomli as tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    core = next(c for c in contracts if c["name"] == "the core imports no rule system")
    assert core["source_modules"] == ["engine"]
    assert sorted(core["forbidden_modules"]) == ["engine.d100", "engine.sr5", "engine.static_veil"]
