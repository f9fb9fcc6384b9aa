"""LICENSE and the third-party notices (packaging/third_party_notices.py, issue 29 item 4):
the wheel's list is what the dependencies pull in; a bundle's notices must list every binary
in it, and readline and OpenSSL must not be there."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("third_party_notices", ROOT / "packaging" / "third_party_notices.py")
tpn = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tpn)


def test_the_licence_is_mit_as_declared():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text()


def test_the_committed_wheel_notices_are_what_the_dependencies_pull_in():
    # (the notices describe the wheel as installed today; .ci/check-lowest's oldest allowed
    # versions pull in another set of packages, so there only the direct ones are checked)
    if not os.environ.get("COVERFIRE_LOWEST_PINS"):
        assert tpn.main(["wheel", "--check", str(ROOT / "THIRD_PARTY_NOTICES.txt")]) == 0
    text = (ROOT / "THIRD_PARTY_NOTICES.txt").read_text()
    for name in ("pyside6-essentials", "shiboken6", "shapely", "numpy", "pydantic", "pyqtgraph", "psutil", "defusedxml"):
        assert f"\n* {name}: " in text, name


def test_dependencies_are_read_from_pyproject():
    deps = tpn.project_dependencies()
    assert any(d.startswith("PySide6-Essentials") and "python_version < '3.12'" in d for d in deps)
    assert any(d.startswith("psutil") for d in deps)


def _bundle(tmp_path: Path, listed: list[str], files: list[str]) -> Path:
    b = tmp_path / "coverfire" / "_internal"
    b.mkdir(parents=True)
    (b / "LICENSE").write_text("MIT")
    (b / tpn.NOTICES).write_text("...\nEvery binary in the bundle and what covers it\n"
                                 + "".join(f"{f}: something\n" for f in listed))
    for f in files:
        (b / f).parent.mkdir(parents=True, exist_ok=True)
        (b / f).write_bytes(b"\x7fELF")
    return tmp_path / "coverfire"


def test_a_bundle_whose_notices_list_every_binary_passes(tmp_path):
    files = ["libQt6Gui.so.6", "PySide6/QtGui.abi3.so", "shapely.libs/libgeos_c-1.so.1.20.5"]
    assert tpn.check_bundle(_bundle(tmp_path, files, files)) == []


def test_a_binary_missing_from_the_notices_fails(tmp_path):
    b = _bundle(tmp_path, ["libQt6Gui.so.6"], ["libQt6Gui.so.6", "libxcb.so.1"])
    assert tpn.check_bundle(b) == [f"libxcb.so.1 is not in {tpn.NOTICES}"]


def test_readline_and_openssl_fail_even_when_listed(tmp_path):
    files = ["libreadline.so.8", "lib-dynload/_hashlib.cpython-311-x86_64-linux-gnu.so", "libcrypto.so.3"]
    problems = tpn.check_bundle(_bundle(tmp_path, files, files))
    assert len(problems) == 3 and all("readline and OpenSSL are left out" in p for p in problems)


def test_the_bundle_notices_cover_python_distributions_and_system_libraries(tmp_path):
    import numpy

    numpy_file = next(Path(numpy.__file__).parent.rglob("*.so"))
    binaries = [("numpy/" + numpy_file.name, str(numpy_file), "EXTENSION"),
                ("libpython3.11.so.1.0", str(Path(sys.base_prefix) / "lib" / "libpython3.11.so.1.0"), "BINARY"),
                ("libnothing.so.1", str(tmp_path / "libnothing.so.1"), "BINARY")]
    (tmp_path / "libnothing.so.1").write_bytes(b"")
    out = tpn.write_bundle_notices(tmp_path / "n.txt", binaries)
    text = out.read_text()
    assert "GNU LESSER GENERAL PUBLIC LICENSE" in text and "Version 3, 29 June 2007" in text  # (Qt's LGPL-3.0)
    assert "PSF" in text and "LICENSE_GEOS" in text
    listing = text.split("Every binary in the bundle and what covers it", 1)[1]
    assert f"numpy/{numpy_file.name}: numpy" in listing
    assert "libpython3.11.so.1.0: Python" in listing
    assert "libnothing.so.1: a library of the build machine (no package found)" in listing
