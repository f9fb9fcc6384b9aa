"""Which Coverfire this is: the installed distribution's version (``coverfire --version``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

DISTRIBUTION = "coverfire"
_PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def version() -> str:
    """The version in the package metadata (the wheel's, an editable install's); in the
    standalone bundle (which carries no metadata of Coverfire's) and in a source tree that was
    never installed, the one in its ``pyproject.toml``."""
    if not getattr(sys, "frozen", False):  # (the bundle: no search of sys.path for metadata)
        from importlib import metadata

        try:
            return metadata.version(DISTRIBUTION)
        except metadata.PackageNotFoundError:
            pass
    try:
        text = _PYPROJECT.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return "unknown"
    return project_version(text) or "unknown"


def project_version(text: str) -> str | None:
    """The ``version`` of the ``[project]`` table of a ``pyproject.toml`` (a plain
    ``version = "X"`` line; ``tomllib`` is not there on Python 3.10), or None."""
    table = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if table is None:
        return None
    found = re.search(r"""^version\s*=\s*(["'])([^"'\n]+)\1\s*(?:#.*)?$""", table.group(1), re.M)
    return found.group(2) if found else None
