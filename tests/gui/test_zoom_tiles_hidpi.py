"""The obstacle tiles' pictures on a high-DPI screen (2 device pixels a logical one): the zoom
tests of test_zoom_tiles.py run again in a process of their own with Qt scaling by 2, where a
picture drawn at the wrong size shows as a different image from the paths drawn directly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_zoom_tests_pass_at_twice_the_pixels():
    env = dict(os.environ, QT_SCALE_FACTOR="2")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-p", "no:randomly",
                           str(ROOT / "tests" / "gui" / "test_zoom_tiles.py")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout and "skipped" not in done.stdout
