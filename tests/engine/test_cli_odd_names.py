"""A file name that is not UTF-8 is printed, not a traceback after the work is done."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SAMPLE = Path("/work/shared/samples/uvtt/foundry_to_uvtt-prismatic_ballroom_main.uvtt")
REPO = Path(__file__).resolve().parents[2]


def test_import_map_to_a_non_utf8_name_writes_and_says_so(tmp_path):
    import pytest

    if not SAMPLE.exists():
        pytest.skip("the shared UVTT sample is not here")
    out = os.fsencode(tmp_path) + b"/\xffmap.json"
    env = dict(os.environ, PYTHONIOENCODING="utf-8:strict", PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "gui.cli", "import-map", str(SAMPLE), "-o", out],
                          capture_output=True, env=env, cwd=REPO)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"Traceback" not in done.stderr
    assert b"Wrote " in done.stdout and b"\\udcffmap.json" in done.stdout
    assert os.path.exists(out)
