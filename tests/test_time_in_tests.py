"""No test depends on the machine's speed (DESIGN.md "Time in tests"): no test module reads
a clock (an assertion on wall or CPU time belongs in bench/), and none waits a fixed delay
for something to happen (``qtbot.wait(20)``): it waits for the condition."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_one_clock import clock_reads

TESTS = Path(__file__).resolve().parent
#: (test module, function) -> why it may read a clock; never for an assertion.
CLOCK_OK = {
    ("gui/test_monkey.py", "test_a_gm_who_presses_anything"): "prints the run's CPU seconds",
}
#: (test module, function) -> why it may wait a fixed time.
WAIT_OK = {
    ("gui/test_monkey.py", "wait"): "a pause is one of the random GM's inputs",
}


def _test_modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if "__pycache__" not in p.parts)


def fixed_waits(source: str) -> list[tuple[str, int]]:
    """(enclosing function, line) of every ``qtbot.wait(...)`` / ``QTest.qWait(...)`` call."""
    tree = ast.parse(source)
    out: list[tuple[str, int]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else where
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and child.func.attr in ("wait", "qWait") \
                    and isinstance(child.func.value, (ast.Name, ast.Attribute)) \
                    and ast.unparse(child.func.value).split(".")[-1] in ("qtbot", "QTest"):
                out.append((where, child.lineno))
            visit(child, inner)

    visit(tree, "<module>")
    return out


def test_the_scan_finds_a_fixed_wait():
    src = "def test_x(qtbot):\n    qtbot.wait(20)\n    self.qtbot.wait(5)\n    QTest.qWait(10)\n    qtbot.waitUntil(f)\n"
    assert fixed_waits(src) == [("test_x", 2), ("test_x", 3), ("test_x", 4)]


def test_no_test_module_reads_a_clock():
    found = []
    for path in _test_modules():
        rel = path.relative_to(TESTS).as_posix()
        for where, line, name in clock_reads(path.read_text(encoding="utf-8")):
            if (rel, where) not in CLOCK_OK:
                found.append(f"tests/{rel}:{line} ({where}) reads {name}: measure speed in bench/, assert on work done")
    assert found == []


def test_no_test_waits_a_fixed_delay():
    found = []
    for path in _test_modules():
        rel = path.relative_to(TESTS).as_posix()
        for where, line in fixed_waits(path.read_text(encoding="utf-8")):
            if (rel, where) not in WAIT_OK:
                found.append(f"tests/{rel}:{line} ({where}) waits a fixed delay: wait for the condition (qtbot.waitUntil, tests/gui/settle.py)")
    assert found == []
