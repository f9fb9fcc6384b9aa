"""Honest controls: a greyed (disabled) control says why in the status bar as well as in
its tooltip, when the mouse comes onto it (buttons, toolbar buttons, fields) or onto its menu
entry. The reason is the control's own tooltip (or status tip), which the code that greys it
sets to the engine's reason."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu, QWidget


def why(widget_or_action) -> str:
    """The reason a greyed control gives: its tooltip, else its status tip ("" if none)."""
    tip = widget_or_action.toolTip() or widget_or_action.statusTip()
    if isinstance(widget_or_action, QAction):
        plain = widget_or_action.text().replace("&", "")
        if tip == plain:  # Qt's default tooltip is the text itself: no reason given
            tip = widget_or_action.statusTip()
    return tip.strip()


def control_name(widget: QWidget) -> str:
    text = getattr(widget, "text", None)
    name = text() if callable(text) else ""
    return (name or widget.accessibleName() or "").replace("&", "").strip()


class GreyedExplainer(QObject):
    """Watches one main window's widgets for the mouse entering a greyed control (an
    application event filter that only looks at Enter and ToolTip events), and the window's
    menus for a hovered greyed entry; shows the reason in the window's status bar. The filter
    sees every event of the application: it is on only while its window is open (:meth:`stop`
    when the window closes, :meth:`start` when it shows again), so a closed window waiting to
    be deleted costs no event anything."""

    EVENTS = (QEvent.Type.Enter, QEvent.Type.ToolTip)

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window
        self.last: str | None = None
        self.watching = False
        self.start()

    def start(self) -> None:
        """Watch the application's events (again)."""
        if not self.watching:
            QApplication.instance().installEventFilter(self)
            self.watching = True

    def stop(self) -> None:
        """Stop watching: the window closed."""
        if self.watching:
            QApplication.instance().removeEventFilter(self)
            self.watching = False

    def watch_menu(self, menu: QMenu) -> None:
        menu.hovered.connect(self._menu_hovered)

    def _menu_hovered(self, action: QAction) -> None:
        if not action.isEnabled():
            name = action.text().replace("&", "").split("  \u2014  ")[0].strip()  # (a reason beside it)
            self.say(name, why(action))

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 - Qt API
        if ev.type() in self.EVENTS and isinstance(obj, QWidget) and not obj.isEnabled():
            if obj.window() is self.window:
                self.say(control_name(obj), why(obj))
        return False

    def say(self, name: str, reason: str) -> None:
        if not reason:
            return
        text = f"{name} is greyed: {reason}" if name and not reason.startswith(name) else reason
        self.last = text
        self.window.statusBar().showMessage(text, 8000)


__all__ = ["GreyedExplainer", "why"]
