"""``coverfire --version`` prints the version of the installed distribution."""

from __future__ import annotations

import subprocess
import sys
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

    monkeypatch.setattr(metadata, "version", missing)
    assert version_mod.version() == "0.1.0"  # (pyproject.toml's [project] version)


def test_the_bundle_reads_pyproject_without_searching_for_metadata(monkeypatch):
    def searched(name):
        raise AssertionError("the frozen bundle searched sys.path for package metadata")

    monkeypatch.setattr(metadata, "version", searched)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert version_mod.version() == "0.1.0"


def test_the_project_version_is_read_from_the_project_table_only():
    text = ('[build-system]\nversion = "9"\n\n[project]\nname = "x"\nversion = "1.2.3"  # a note\n'
            '\n[tool.x]\nversion = "7"\n')
    assert version_mod.project_version(text) == "1.2.3"
    assert version_mod.project_version('[project]\nname = "x"\n[tool]\nversion = "7"\n') is None
    assert version_mod.project_version("") is None


def test_no_metadata_and_no_pyproject_says_unknown(monkeypatch, tmp_path):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    monkeypatch.setattr(version_mod, "_PYPROJECT", tmp_path / "pyproject.toml")
    assert version_mod.version() == "unknown"



def _fresh(code: str) -> list[str]:
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout.splitlines()


def test_version_loads_no_qt_nor_the_model():
    heavy = ("PySide6", "numpy", "pydantic", "shapely", "engine.files")
    out = _fresh("import sys\nfrom gui.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
                 f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n")
    assert out == [metadata.version("coverfire"), "[]"]


def test_the_window_start_does_not_look_up_the_version():
    """Its options include --version; the package metadata (a search of sys.path) is read only
    when --version is given."""
    out = _fresh("import sys, argparse\nimport gui.cli as c\n"
                 "p = argparse.ArgumentParser(); c._add_program_options(p); p.parse_args([])\n"
                 "print('importlib.metadata' in sys.modules, 'gui.version' in sys.modules)\n")
    assert out == ["False False"]
