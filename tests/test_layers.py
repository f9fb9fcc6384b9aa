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
