"""No code of Coverfire's, and no test, calls ``QAction.menu()``: in PySide6 before 6.11.2
(PYSIDE-3380; 6.8.0.2, the lowest pyproject.toml allows, has it) the menu it returns becomes a
Python child of the action's wrapper, and when that wrapper goes the menu's wrapper and every
wrapper under it (its actions, ones the window keeps as attributes) are marked deleted while
Qt still shows them: the next use raises "Internal C++ object ... already deleted". A test
finds a submenu from its own side (tests/gui/menus.py)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("gui", "engine", "geometry", "tests", "bench", "packaging")


def menu_calls(source: str) -> list[int]:
    """The lines of every ``X.menu()`` call (no arguments: the getter, not a setter)."""
    return [n.lineno for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "menu"
            and not n.args and not n.keywords]


def test_the_scan_finds_a_menu_getter():
    src = "a.menu()\nfor x in m.actions():\n    s = x.menu()\nb.setMenu(m)\nc.menu(1)\nd.menus()\n"
    assert menu_calls(src) == [1, 3]


def test_no_code_calls_qaction_menu():
    found = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            found += [f"{path.relative_to(ROOT).as_posix()}:{line}"
                      for line in menu_calls(path.read_text(encoding="utf-8"))]
    assert found == [], "QAction.menu() (see this module's docstring): " + ", ".join(found)
