"""Which Coverfire this is: the installed distribution's version (``coverfire --version``)."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "coverfire"
_PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def version() -> str:
    """The version in the package metadata (the wheel's, an editable install's, or a bundle's
    copy); in a source tree that was never installed, the one in its ``pyproject.toml``."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    try:
        with _PYPROJECT.open("rb") as f:
            return str(tomllib.load(f)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"
