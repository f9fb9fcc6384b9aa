"""The lowest versions pyproject.toml allows of each direct dependency, as pip constraints
(``name==version``), for .ci/check-lowest ("lowest-direct" resolution: the dependencies'
own requirements are left to pip). Each version is the lowest one PyPI has that meets the
whole specifier of the requirements that hold for the Python running this (``pip index
versions``; PySide6's lowest is 6.8.0.2, as 6.8.0 and 6.8.0.1 are excluded).

    python .ci/lowest_pins.py > constraints.txt
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packaging"))

from third_party_notices import _applies, _requirement_name, project_dependencies  # noqa: E402

try:
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version
except ImportError:  # (pip's copy)
    from pip._vendor.packaging.specifiers import SpecifierSet
    from pip._vendor.packaging.version import Version


def available(name: str) -> list[Version]:
    res = subprocess.run([sys.executable, "-m", "pip", "index", "versions", name, "--disable-pip-version-check"],
                         capture_output=True, text=True, timeout=120)
    found = re.search(r"Available versions:\s*(.+)", res.stdout)
    if res.returncode != 0 or not found:
        raise SystemExit(f"lowest_pins: pip index versions {name} failed: {res.stdout}{res.stderr}")
    return sorted(Version(v.strip()) for v in found.group(1).split(","))


def main() -> int:
    for req in project_dependencies():
        name, marker = _requirement_name(req)
        if not _applies(marker):
            continue
        spec = SpecifierSet(req.split(";", 1)[0][len(name):].strip())
        ok = [v for v in available(name) if v in spec and not v.is_prerelease]
        if not ok:
            raise SystemExit(f"lowest_pins: no version of {name} meets {spec}")
        print(f"{name}=={ok[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
