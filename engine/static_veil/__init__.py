"""The Static Veil rule system (seed 004): combat maneuvers priced in action points.

``RULESET`` is the :class:`~engine.static_veil.rules.StaticVeil` instance the registry
(:mod:`engine.rules`, name ``"static-veil"``) hands out. The maneuvers are values in
:mod:`engine.static_veil.actions`; test outcomes in :mod:`engine.static_veil.dice`; a
character's data in :mod:`engine.static_veil.sheet`. See docs/static-veil.md.

    from engine.static_veil import RULESET, Shove, Opposed
    RULESET.available_maneuvers(enc, "rook", "vex")     # the picker
    RULESET.preview(enc, Shove("rook", "vex"))          # shove ends, nothing changes
    res = RULESET.apply(enc, Shove("rook", "vex", outcome=Opposed(True, 2)))
    enc = res.encounter  # undo is the document's: it keeps whole encounters

Importing this package must stay cheap and cycle-free: :mod:`engine.model` imports
``engine.static_veil.sheet`` while it is being built, so the rule system's names are loaded
on first attribute access (PEP 562), not here.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "actions": (
        "ACTION_BY_KEY", "APPROACHES", "CALLED_SHOT_PENALTY", "ApplyPressure", "BreakFree",
        "CalledShot", "Charge", "Distraction", "Grapple", "MoveGrapple", "Release", "Shove",
        "StandUp", "Takedown",
    ),
    "dice": ("Attack", "Check", "Opposed", "Roll", "TestSpec"),
    "rules": (
        "Change", "Move", "Option", "Variant", "OutcomeNeededError", "Preview", "Result", "ShoveEnd",
        "StaticVeil",
    ),
    "sheet": ("GrappleLink", "LogEntry", "Settings", "Sheet"),
}
_WHERE = {name: mod for mod, names in _EXPORTS.items() for name in names}

__all__ = ["RULESET", *sorted(_WHERE)]

_ruleset: Any = None


def __getattr__(name: str) -> Any:
    global _ruleset
    if name == "RULESET":
        if _ruleset is None:
            _ruleset = importlib.import_module("engine.static_veil.rules").StaticVeil()
        return _ruleset
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module 'engine.static_veil' has no attribute {name!r}")
    return getattr(importlib.import_module(f"engine.static_veil.{mod}"), name)
