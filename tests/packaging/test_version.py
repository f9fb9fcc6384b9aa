"""``coverfire --version`` prints the version of the installed distribution."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from gui import version as version_mod
from gui.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_version_prints_exactly_the_package_metadata_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert capsys.readouterr().out == metadata.version("coverfire") + "\n"


def test_the_coverfire_script_prints_the_same(tmp_path):
    res = subprocess.run([sys.executable, "-m", "gui.cli", "--version"], capture_output=True,
                         text=True, cwd=ROOT, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == metadata.version("coverfire")


def test_a_source_tree_never_installed_reads_pyproject(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(version_mod.metadata, "version", missing)
    want = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert version_mod.version() == want


def test_no_metadata_and_no_pyproject_says_unknown(monkeypatch, tmp_path):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(version_mod.metadata, "version", missing)
    monkeypatch.setattr(version_mod, "_PYPROJECT", tmp_path / "pyproject.toml")
    assert version_mod.version() == "unknown"
