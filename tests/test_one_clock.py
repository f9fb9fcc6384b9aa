"""Every time budget reads the one clock (engine.clock), so that tests can drive it (DESIGN.md
"Time in tests"): no module of the program but engine/clock.py reads a clock of its own, except
the report-only uses listed below."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gui", "engine", "geometry")
#: The clocks a budget could read: :mod:`time`'s, and Qt's timers of elapsed time.
CLOCKS = {"perf_counter", "perf_counter_ns", "thread_time", "thread_time_ns", "process_time",
          "process_time_ns", "monotonic", "monotonic_ns", "QElapsedTimer", "QDeadlineTimer"}
#: (module, function) -> why it may read the machine's clock. Only durations that are
#: *reported*, never a budget that decides what the program does.
REPORT_ONLY = {
    ("engine/importers/uvtt.py", "import_uvtt"): "the import report's 'in 0.42 s'",
    ("engine/importers/uvtt.py", "import_uvtt_data"): "the import report's 'in 0.42 s'",
    ("engine/importers/foundry.py", "import_foundry"): "the import report's 'in 0.42 s'",
    ("engine/importers/foundry.py", "import_every_scene"): "each scene's import report's 'in 0.42 s'",
    ("engine/importers/chummer.py", "import_chummer"): "the import report's 'in 0.42 s'",
    ("gui/start_window.py", "since_start"): "COVERFIRE_STARTUP_REPORT's times since the process started",
}
THE_CLOCK = "engine/clock.py"


def clock_reads(source: str) -> list[tuple[str, int, str]]:
    """(enclosing function or "<module>", line, name) of every mention of a clock in ``source``
    as code (``time.perf_counter()``, ``from time import monotonic``, ``QElapsedTimer()``);
    comments and strings do not count."""
    tree = ast.parse(source)
    out: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else where
            if isinstance(child, ast.Attribute) and child.attr in CLOCKS:
                out.append((where, child.lineno, child.attr))
            elif isinstance(child, ast.Name) and child.id in CLOCKS:
                out.append((where, child.lineno, child.id))
            elif isinstance(child, ast.ImportFrom):
                out.extend((where, child.lineno, a.name) for a in child.names if a.name in CLOCKS)
            visit(child, inner)

    visit(tree, "<module>")
    return out


def test_the_scan_finds_every_form_of_reading_a_clock():
    src = """
import time
from time import monotonic as m
from PySide6.QtCore import QElapsedTimer
# time.perf_counter() in a comment is no reading
'time.thread_time() in a string is none either'
def budget():
    return time.perf_counter() - t0 > 0.005
class Slow:
    def turn(self):
        return time.thread_time_ns(), QElapsedTimer()
"""
    assert clock_reads(src) == [("<module>", 3, "monotonic"), ("<module>", 4, "QElapsedTimer"),
                                ("budget", 8, "perf_counter"), ("turn", 11, "thread_time_ns"),
                                ("turn", 11, "QElapsedTimer")]


def test_no_module_but_the_clock_reads_the_machines_clock():
    found, allowed_seen = [], set()
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == THE_CLOCK:
                continue
            for where, line, name in clock_reads(path.read_text(encoding="utf-8")):
                if (rel, where) in REPORT_ONLY:
                    allowed_seen.add((rel, where))
                else:
                    found.append(f"{rel}:{line} ({where}) reads {name}: read engine.clock's now() or cpu()")
    assert found == []
    # (an entry of the list that no longer reads a clock goes: the list stays the truth)
    assert allowed_seen == set(REPORT_ONLY)


def test_a_stopwatch_reads_the_programs_clock_and_starts_again_when_it_is_swapped(manual_clock):
    import math

    from engine import clock

    never = clock.Stopwatch(start=False)
    assert never.elapsed() == math.inf  # (never started: long ago)
    w = clock.Stopwatch()
    manual_clock.advance(2.0)
    manual_clock.wait(1.5)
    assert w.elapsed() == 3.5
    with clock.using(clock.ManualClock(start=-1e6)):
        assert w.elapsed() == 0.0  # (another clock's readings say nothing of this one's)
        clock.current().advance(0.25)
        assert w.elapsed() == 0.25
    never.restart()
    manual_clock.advance(1.0)
    assert never.elapsed() == 1.0


def test_a_manual_clock_moves_only_when_told():
    from engine.clock import ManualClock

    c = ManualClock(start=10.0)
    assert (c.now(), c.cpu()) == (10.0, 10.0)
    c.advance(1.0)  # (work on this thread)
    c.wait(2.0)  # (time off it)
    assert (c.now(), c.cpu()) == (13.0, 11.0)
    stepping = ManualClock(start=0.0, step=0.5)
    assert [stepping.now() for _ in range(3)] == [0.5, 1.0, 1.5] and stepping.cpu() == 1.5
