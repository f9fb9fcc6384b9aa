"""Shared test set-up: Qt always runs offscreen, the shared samples are located once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# two offscreen screens (DESIGN.md "Testing at a screen size"): "fullhd" 1920x1080 at x=0,
# where windows open (Qt's default 800x600 is smaller than the windows tests drive, and the
# window keeps itself on its screen), and "laptop" 1366x768 at x=1920 (the screen_window
# fixture in tests/gui/conftest.py puts a window on either). Set whatever the environment
# says: a QT_QPA_PLATFORM=offscreen of the CI's own gave Qt's one 800x600 screen, =xcb (under
# Xvfb) the display's, and tests written for these two screens failed, or hung on a dialog.
SUITE_PLATFORM = f"offscreen:configfile={ROOT / 'tests' / 'gui' / 'screens.json'}"
_GIVEN_PLATFORM = os.environ.get("QT_QPA_PLATFORM")
os.environ["QT_QPA_PLATFORM"] = SUITE_PLATFORM
SHARED = ROOT.parent / "shared"


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: two workers a core (at most 8). A GUI test spends about a third of its time
    waiting (the window's timers, its worker threads, child processes), so one worker a core
    left the cores a third idle: on 2 cores, quiet, the suite took 242 s with 2 workers and
    197 s with 4 (2026-12-02, load 2-4)."""
    return max(1, min(2 * (os.cpu_count() or 1), 8))


def pytest_report_header(config):
    stretch = f"default timeouts x{_stretch():.1f} (the load a core: timeout_stretch)"
    if _GIVEN_PLATFORM and _GIVEN_PLATFORM != SUITE_PLATFORM:
        return [f"Qt platform: the suite's own offscreen screens (QT_QPA_PLATFORM={_GIVEN_PLATFORM!r} from the environment is not used)", stretch]
    return ["Qt platform: the suite's own offscreen screens (tests/gui/screens.json)", stretch]


try:  # no hypothesis example fails for taking long: speed is never tested (a deadline of 200 ms
    # failed test_files' round trip at load 25); a test's own @settings still says otherwise
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("coverfire-suite", deadline=None)
    _hypothesis_settings.load_profile("coverfire-suite")
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    pass


@pytest.fixture(autouse=True)
def _no_unexpected_dialog(monkeypatch):
    """A modal dialog the test did not expect fails it with its title and text instead of
    waiting for ever for someone to close it (tests/dialog_guard.py)."""
    if "PySide6.QtWidgets" not in sys.modules:  # (a test that has not imported Qt opens no dialog)
        yield
        return
    from tests import dialog_guard

    dialog_guard.install(monkeypatch)
    yield
    dialog_guard.check()


@pytest.fixture
def demo_path() -> Path:
    from assets import demo_encounter_path

    return demo_encounter_path()


@pytest.fixture
def samples_dir() -> Path:
    """``../shared/samples`` beside the checkout; tests that need it skip without it."""
    d = SHARED / "samples"
    if not d.is_dir():
        pytest.skip("../shared/samples is not beside this checkout")
    return d


@pytest.fixture(scope="session")
def dead_pid() -> int:
    """The id of a process that has exited (as a crashed Coverfire's autosave names)."""
    return int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True).stdout)


@pytest.fixture
def manual_clock():
    """The program's clock (engine.clock) replaced by a :class:`ManualClock` for the test:
    time budgets then spend exactly what the test advances, whatever the machine's load."""
    from engine import clock

    with clock.using(clock.ManualClock()) as c:
        yield c


def _file_seconds() -> dict[str, float]:
    """Seconds of the long tests of each test file, from tests/durations.json."""
    import json

    try:
        tests = json.loads((ROOT / "tests" / "durations.json").read_text(encoding="utf-8"))["tests"]
    except (OSError, ValueError, KeyError):
        return {}
    out: dict[str, float] = {}
    for node, seconds in tests.items():
        out[node.split("::")[0]] = out.get(node.split("::")[0], 0.0) + float(seconds)
    return out


#: The most a loaded machine stretches the tests' default timeouts (60 s, 300 s if slow).
MAX_STRETCH = 5.0


def timeout_stretch(load: float, cores: int) -> float:
    """How many times the default timeouts a test gets on a machine this loaded (its 1-minute
    load average over its cores, from 1 to :data:`MAX_STRETCH`): a timeout is there to end a
    hang, and a test that works seconds quietly takes that many times longer when that many
    processes share each core (on 2 Dec, at load 15 on 2 cores, three 2-5 s tests passed 60 s
    and their workers were ended). A hang still ends, within 5 minutes (25 if slow)."""
    return min(MAX_STRETCH, max(1.0, load / max(1, cores)))


def _stretch() -> float:
    try:
        return timeout_stretch(os.getloadavg()[0], os.cpu_count() or 1)
    except OSError:  # (no load average: Windows)
        return 1.0


def pytest_collection_modifyitems(config, items):
    """A test marked ``slow`` (seconds of work even on a quiet machine) gets 300 s before its
    timeout instead of 60, unless it names its own with ``@pytest.mark.timeout``; both are
    stretched on a loaded machine (:func:`timeout_stretch`), unless ``--timeout`` is given.

    The files whose tests take longest (tests/durations.json) run first, longest first, each
    file's tests in their own order and the other files after them in theirs: the two workers
    (``--dist worksteal``) then end together, instead of one running a long test alone at
    the end (a file is never split, so its module fixtures are made once)."""
    stretch = _stretch() if config.getoption("timeout", None) is None else 1.0
    base = float(config.getini("timeout") or 0)
    for item in items:
        if item.get_closest_marker("timeout"):
            continue
        if item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.timeout(300 * stretch))
        elif base and stretch > 1.0:
            item.add_marker(pytest.mark.timeout(base * stretch))
    weight = _file_seconds()
    items.sort(key=lambda item: -weight.get(item.nodeid.split("::")[0], 0.0))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """A backstop under pytest-timeout: its timer is a Python thread, which cannot run while a
    deadlock holds the GIL (a Qt lock taken with the GIL held on one thread, the GIL asked for
    under that lock on another: seen once, a picture decoded in a worker while the window
    built its menus). faulthandler's watchdog is a C thread: 30 s after the test's timeout it
    prints every thread's stack and ends the worker, which xdist reports and replaces, so the
    suite never hangs."""
    import faulthandler

    marker = item.get_closest_marker("timeout")
    try:  # the test's own timeout, else --timeout, else the ini's (0: none, as pytest-timeout)
        given = item.config.getoption("timeout", None)
        seconds = float(marker.args[0] if marker and marker.args
                        else given if given is not None else item.config.getini("timeout") or 0)
    except (TypeError, ValueError):
        seconds = 0.0
    armed = seconds > 0
    if armed:
        faulthandler.dump_traceback_later(seconds + 30, exit=True, file=sys.__stderr__)
    try:
        yield
    finally:
        if armed:
            faulthandler.cancel_dump_traceback_later()
