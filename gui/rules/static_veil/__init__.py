"""Static Veil maneuvers in the map window (issue 7): a maneuver picker page in the Action
panel for the selected token, target picking on the map, the charge path / shove ends /
dragged grapple drawn before the GM confirms, outcome entry or a d100 roll, the combat log,
turns, and grapple links, states and AP on the map. Installed only while the open
encounter's ruleset is ``"static-veil"``.

Importing this module registers :class:`~gui.rules.static_veil.controller.StaticVeilController`
(:func:`gui.rules.base.register_rule_gui`); while a Static Veil encounter is open it is
``window.static_veil`` (and ``window.rule_gui``).
"""

from __future__ import annotations

from gui.rules.base import register_rule_gui
from gui.rules.static_veil.controller import StaticVeilController

register_rule_gui(StaticVeilController)

__all__ = ["StaticVeilController"]
