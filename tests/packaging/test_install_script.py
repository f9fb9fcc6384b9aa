"""``.ci/install`` on a Python that refuses pip (PEP 668's EXTERNALLY-MANAGED, as Debian 12's
own python3): it makes .venv, installs there, reuses it the second time, and leaves the
system Python as it was. Run on a tiny stand-in project so no Qt wheel is fetched."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PY = Path("/usr/bin/python3")

PYPROJECT = """
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "cf-install-probe"
version = "1.0"
[project.optional-dependencies]
test = []
[project.scripts]
coverfire = "probe:main"
"""


def _externally_managed(py: Path) -> bool:
    res = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
                         capture_output=True, text=True)
    return res.returncode == 0 and (Path(res.stdout.strip()) / "EXTERNALLY-MANAGED").is_file()


def _site_listing(py: Path) -> list[str]:
    res = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                         capture_output=True, text=True)
    site = Path(res.stdout.strip())
    return sorted(p.name for p in site.iterdir()) if site.is_dir() else []


@pytest.mark.slow
def test_install_makes_and_reuses_a_venv_and_never_writes_into_the_system_python(tmp_path):
    if not SYSTEM_PY.is_file() or not _externally_managed(SYSTEM_PY):
        pytest.skip("no externally-managed /usr/bin/python3 here")
    if subprocess.run([str(SYSTEM_PY), "-c", "import ensurepip"], capture_output=True).returncode:
        pytest.skip("/usr/bin/python3 has no venv module (python3-venv); .ci/install would apt-get it")
    proj = tmp_path / "checkout"
    (proj / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "install", proj / ".ci" / "install")
    (proj / "pyproject.toml").write_text(PYPROJECT)
    (proj / "probe.py").write_text("def main():\n    print('probe ran')\n")
    before = _site_listing(SYSTEM_PY)
    env = dict(os.environ, PYTHON=str(SYSTEM_PY), PATH="/usr/bin:/bin")
    env.pop("VIRTUAL_ENV", None)

    first = subprocess.run(["bash", ".ci/install"], cwd=proj, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "making .venv with Python 3" in first.stdout
    venv_py = proj / ".venv" / "bin" / "python"
    assert subprocess.run([str(proj / ".venv" / "bin" / "coverfire")], capture_output=True,
                          text=True).stdout == "probe ran\n"
    base = subprocess.run([str(venv_py), "-c", "import sys; print(sys.base_prefix)"], capture_output=True, text=True)
    assert base.stdout.strip() == "/usr"

    second = subprocess.run(["bash", ".ci/install"], cwd=proj, env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    assert "reusing .venv" in second.stdout
    assert _site_listing(SYSTEM_PY) == before
    assert subprocess.run([str(SYSTEM_PY), "-c", "import probe"], cwd=tmp_path, capture_output=True).returncode != 0


def test_install_refuses_a_python_older_than_3_10(tmp_path):
    fake = tmp_path / "python3.9"
    fake.write_text("#!/bin/sh\n[ \"$1\" = -V ] && { echo 'Python 3.9.18'; exit 0; }\nexit 1\n")
    fake.chmod(0o755)
    (tmp_path / "checkout" / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "install", tmp_path / "checkout" / ".ci" / "install")
    res = subprocess.run(["bash", ".ci/install"], cwd=tmp_path / "checkout", env=dict(os.environ, PYTHON=str(fake)),
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 1
    assert not (tmp_path / "checkout" / ".venv").exists()
    assert "Coverfire needs Python 3.10 or newer; " + str(fake) + " is Python 3.9.18" in res.stderr
