"""Shared test set-up: Qt always runs offscreen, the shared samples are located once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# one 1920x1080 screen (Qt's offscreen default is 800x600, smaller than the windows tests
# drive, and the window keeps itself on its screen); tests/gui/test_laptop_window.py runs
# other sizes in their own processes
os.environ.setdefault("QT_QPA_PLATFORM", f"offscreen:configfile={ROOT / 'tests' / 'screens-desktop.json'}")
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
