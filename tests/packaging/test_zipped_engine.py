"""The rule systems are found where no .py file lies on disk (a zip, the frozen bundle): the
registry asks the import system, not the file system."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_rule_systems_are_discovered_from_a_zipped_engine(tmp_path):
    archive = tmp_path / "engine.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for pkg in ("engine", "geometry"):
            for f in (ROOT / pkg).rglob("*.py"):
                z.write(f, f.relative_to(ROOT).as_posix())
    child = ("import sys; sys.path.insert(0, sys.argv[1]); import engine.rules as r;"
             "assert r.__file__.startswith(sys.argv[1]), r.__file__;"
             "print(sorted(s.name for s in r.systems()), r.find_system('static-veil').name)")
    res = subprocess.run([sys.executable, "-c", child, str(archive)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "['d100', 'sr5', 'static-veil'] static-veil"
