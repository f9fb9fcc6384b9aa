"""The registry of rule systems, by the ``ruleset`` name an encounter file gives.

Each rule system is a module (or package) under ``engine/`` that exposes a ``RULESET``
object; this registry maps the file's name to the module path and imports it on first use,
so loading an encounter never pays for rule systems it does not use. Like
``chess.variant.VARIANTS`` in python-chess: one name, one implementation.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.errors import CoverfireError

#: ruleset name (as in the encounter file) -> module that defines ``RULESET``.
RULESETS: dict[str, str] = {
    "sr5": "engine.sr5",
    "d100": "engine.d100",
    "static-veil": "engine.static_veil",
}


def get_ruleset(name: str) -> Any:
    """The ``RULESET`` object of a rule system; raises :class:`CoverfireError` if unknown
    or not built into this Coverfire."""
    try:
        module = RULESETS[name]
    except KeyError:
        known = ", ".join(sorted(RULESETS))
        raise CoverfireError(f"unknown ruleset {name!r}; known: {known}") from None
    mod = importlib.import_module(module)
    ruleset = getattr(mod, "RULESET", None)
    if ruleset is None:
        raise CoverfireError(f"the {name} rule system is not available in this build")
    return ruleset
