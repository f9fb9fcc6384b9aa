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
# fixture in tests/gui/conftest.py puts a window on either)
os.environ.setdefault("QT_QPA_PLATFORM", f"offscreen:configfile={ROOT / 'tests' / 'gui' / 'screens.json'}")
SHARED = ROOT.parent / "shared"


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
