"""Static Veil maneuvers in the map window (issue 7): a maneuver picker dock for the
selected token, target picking on the map, the charge path / shove ends / dragged grapple
drawn before the GM confirms, outcome entry or a d100 roll, the combat log, turns, and
grapple links, states and AP on the map. Shown only while the open encounter's ruleset is
``"static-veil"``.

Importing this module registers :func:`install` with :func:`gui.main_window.register_extension`
(it is listed in ``gui.main_window.BUILTIN_EXTENSIONS``); each main window then gets a
:class:`~gui.rules.static_veil.controller.StaticVeilController` as ``window.static_veil``.
"""

from __future__ import annotations


def install(window) -> None:
    """Give ``window`` its Static Veil controller (docks, menu, map layer)."""
    from gui.rules.static_veil.controller import StaticVeilController

    window.static_veil = StaticVeilController(window)


def _register() -> None:
    from gui.main_window import register_extension

    register_extension(install)


_register()
