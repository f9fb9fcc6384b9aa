"""``python -m build``: the sdist and the wheel hold what the program runs on, and no tests."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from gui.version import project_version

ROOT = Path(__file__).resolve().parents[2]
VERSION = project_version((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _build(tmp: Path) -> Path:
    out = tmp / "dist"
    # from a copy of the checkout: setuptools writes coverfire.egg-info and build/ into the
    # tree it builds, and another run of the suite may be building the same tree at once
    src = tmp / "src" / "coverfire"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"))
    res = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(src)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The sdist and wheel ``python -m build`` makes from this checkout (the wheel is built
    from the sdist, so a file the sdist forgets is missing from the wheel too). Made once a
    run: the suite's workers (pytest-xdist) share this run's temporary folder, and the first
    to ask builds while the others wait for it."""
    pytest.importorskip("build")
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return _build(tmp_path_factory.mktemp("wheel"))
    shared = tmp_path_factory.getbasetemp().parent  # (this run's, common to its workers)
    with open(shared / "wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / "wheel" / "built"
        if not done.exists():
            _build(shared / "wheel")
            done.touch()
    return shared / "wheel" / "dist"


@pytest.fixture(scope="module")
def wheel_names(dist) -> set[str]:
    (whl,) = dist.glob(f"coverfire-{VERSION}-py3-none-any.whl")
    with zipfile.ZipFile(whl) as z:
        return set(z.namelist())


@pytest.fixture(scope="module")
def sdist_names(dist) -> set[str]:
    (sd,) = dist.glob(f"coverfire-{VERSION}.tar.gz")
    with tarfile.open(sd) as t:
        prefix = f"coverfire-{VERSION}/"
        return {m.name.removeprefix(prefix) for m in t.getmembers() if m.isfile()}


def _source_modules() -> set[str]:
    """Every module of the program in this checkout, as a path inside the wheel."""
    return {p.relative_to(ROOT).as_posix() for pkg in ("engine", "geometry", "gui")
            for p in (ROOT / pkg).rglob("*.py") if "__pycache__" not in p.parts} | {"assets/__init__.py"}


pytestmark = pytest.mark.slow


def test_the_wheel_holds_every_module_the_demos_and_the_icons(wheel_names):
    assert _source_modules() <= wheel_names, sorted(_source_modules() - wheel_names)
    for demo in ("demo.json", "demo-d100.json", "demo-static-veil.json"):
        assert f"assets/encounters/{demo}" in wheel_names
    for n in (16, 22, 24, 32, 48, 64, 128, 256):
        assert f"assets/icons/coverfire-{n}.png" in wheel_names
    assert "assets/icons/coverfire.svg" in wheel_names


def test_the_wheel_and_the_sdist_hold_nothing_of_the_tests(wheel_names, sdist_names):
    for names in (wheel_names, sdist_names):
        assert not [n for n in names if n.startswith(("tests/", "bench/")) or "/tests/" in n or "conftest" in n]
    assert not [n for n in wheel_names if n.startswith(("docs/", "packaging/", ".ci/"))]


def test_the_sdist_holds_what_the_wheel_is_built_from(sdist_names):
    assert {"pyproject.toml", "README.md", "MANIFEST.in"} <= sdist_names
    assert _source_modules() <= sdist_names
    assert "assets/icons/coverfire-48.png" in sdist_names


def test_the_wheel_metadata_names_the_version_the_command_and_the_pinned_qt(dist, wheel_names):
    (whl,) = dist.glob("*.whl")
    with zipfile.ZipFile(whl) as z:
        meta = z.read(f"coverfire-{VERSION}.dist-info/METADATA").decode()
        entry = z.read(f"coverfire-{VERSION}.dist-info/entry_points.txt").decode()
    assert f"Version: {VERSION}\n" in meta
    # below 6.12 only where 6.12.0 aborts (CPython < 3.12); never 6.8.0 or 6.8.0.1 (issue 29 item 6)
    assert 'Requires-Dist: PySide6-Essentials!=6.8.0,!=6.8.0.1,<6.12,>=6.8; python_version < "3.12"\n' in meta
    assert 'Requires-Dist: PySide6-Essentials!=6.8.0,!=6.8.0.1,<7,>=6.8; python_version >= "3.12"\n' in meta
    assert "License-File: LICENSE\n" in meta and "License-File: THIRD_PARTY_NOTICES.txt\n" in meta
    assert "[console_scripts]\ncoverfire = gui.cli:main" in entry
