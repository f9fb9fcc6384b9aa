"""View > Theme: follow the desktop's light/dark choice (the default), or keep the dark or
the light theme whatever the desktop says (issue 30 item 10). The choice is saved in the
window's settings (``view/theme``: "system", "dark", "light") and applied at once; with
"Follow the desktop" a change of the desktop's scheme is followed while the program runs."""

from __future__ import annotations

import weakref

from PySide6.QtGui import QActionGroup
from PySide6.QtWidgets import QApplication

from gui import theme

LABELS = {"system": "Follow the &desktop", "dark": "&Dark", "light": "&Light"}
KEY = "view/theme"


def choice(settings) -> str:
    value = str(settings.value(KEY, "system") or "system")
    return value if value in theme.CHOICES else "system"


def install(window) -> None:
    """The View > Theme submenu of ``window`` (actions "theme:system", "theme:dark",
    "theme:light"), ticked on the saved choice."""
    menu = window.menus["View"].addMenu("&Theme")
    group = QActionGroup(window)
    group.setExclusive(True)
    now = choice(window.settings)
    for key in theme.CHOICES:
        act = menu.addAction(LABELS[key])
        act.setCheckable(True)
        act.setChecked(key == now)
        act.setObjectName(f"theme:{key}")
        group.addAction(act)
        act.triggered.connect(lambda _=False, k=key: choose(window, k))
        window.actions[f"theme:{key}"] = act
    app = QApplication.instance()
    hints = app.styleHints() if app is not None else None
    if hints is not None and hasattr(hints, "colorSchemeChanged"):
        ref = weakref.ref(window)  # (the application outlives the window: no reference kept)
        hints.colorSchemeChanged.connect(lambda _=None: _follow(ref()))


def choose(window, key: str) -> None:
    """Use theme ``key`` ("system", "dark", "light") now and from the next start."""
    window.settings.setValue(KEY, key)
    app = QApplication.instance()
    scheme = theme.scheme_for(key, theme.system_scheme(app))
    theme.apply_theme(app, scheme)
    window.statusBar().showMessage(f"Theme: {scheme}" + (" (the desktop's)" if key == "system" else ""), 6000)


def _follow(window) -> None:
    if window is None:
        return
    try:
        settings = window.settings
    except RuntimeError:  # (the window is gone)
        return
    if choice(settings) == "system":
        app = QApplication.instance()
        theme.apply_theme(app, theme.scheme_for("system", theme.system_scheme(app)))


__all__ = ["install", "choose", "choice", "LABELS", "KEY"]
