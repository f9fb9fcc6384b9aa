"""The d100 rule system (seed 003): hit locations, aimed and placed shots, stances, wounds
per body part, armour that wears, bleeding, recovery.

``RULESET`` (a :class:`~engine.d100.rules.D100Rules`, the native rules behind
:func:`engine.rules.find_system` ``("d100")``, see ``engine/d100/system.py``): ``why_not`` / ``check`` / ``preview`` / ``apply`` / ``status`` / ``round_order``. Actions are the values of
:mod:`engine.d100.actions`; dice sources are in :mod:`engine.d100.dice`; the character and
encounter data are :mod:`engine.d100.sheet`; the map's hidden locations come from
:mod:`engine.d100.mapcover`. Defaults for every number the seed leaves open: docs/d100.md.

    from engine.d100 import RULESET, Fire, TargetSpec, EnteredDice
    pre = RULESET.preview(enc, Fire("ana", (TargetSpec("bo", prefer="head"),)))
    change = RULESET.apply(enc, Fire("ana", ("bo",)), EnteredDice({"hit": 12}))
    enc = change.encounter  # undo is the document's: it keeps whole encounters

Importing this package stays cheap and cycle-free: :mod:`engine.model` imports
``engine.d100.sheet`` while it is being built, so the rule system's names are loaded on first
attribute access (PEP 562), not here.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "actions": (
        "ACTIONS", "Aim", "ChangeStance", "EndTurn", "Fire", "FireTwoPistols", "Melee",
        "Recover", "RestWeapon", "StartRound", "SwitchWeapon", "TargetSpec",
    ),
    "dice": ("EnteredDice", "RandomDice", "Roll", "ScriptedDice", "SeededDice"),
    "rules": (
        "AttackPreview", "Chance", "Change", "D100Rules", "DamageResult", "Event", "MAP_STANCE",
        "Modifier", "Preview", "RecoverResult", "STANCE_HIDDEN", "STANCE_LABELS", "ShotResult",
        "Status", "TokenChange",
    ),
    "sheet": (
        "LOCATIONS", "SEVERITIES", "STANCES", "Armour", "D100Weapon", "LocationTableError",
        "LogEntry", "Settings", "Sheet", "Wound", "location_ranges", "table_from_ranges",
        "threshold_fault",
    ),
    "mapcover": ("MapCover", "map_cover"),
}
_WHERE = {name: mod for mod, names in _EXPORTS.items() for name in names}

__all__ = ["RULESET", *sorted(_WHERE)]


def __getattr__(name: str) -> Any:
    if name == "RULESET":
        return importlib.import_module("engine.d100.rules").RULES
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module 'engine.d100' has no attribute {name!r}")
    return getattr(importlib.import_module(f"engine.d100.{mod}"), name)
