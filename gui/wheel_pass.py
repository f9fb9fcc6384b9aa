"""The first scroll moves the panel, not a list inside it (issue 30 item 3): over a list or
table inside a scrolling panel, the wheel scrolls the panel while the panel can still move
that way and the list has not been clicked into (has no focus); then the list's own turn."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QScrollArea, QWidget


def _outer(view: QWidget) -> QScrollArea | None:
    p = view.parentWidget()
    while p is not None:
        if isinstance(p, QScrollArea):
            return p
        p = p.parentWidget()
    return None


class WheelToPanel(QObject):
    """An event filter on the inner views' viewports (:func:`pass_wheel_to_panel`)."""

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 - Qt API
        if ev.type() != QEvent.Type.Wheel:
            return False
        view = obj.parentWidget()
        if not isinstance(view, QAbstractScrollArea) or view.hasFocus():
            return False
        outer = _outer(view)
        if outer is None:
            return False
        bar = outer.verticalScrollBar()
        dy = ev.angleDelta().y()
        if bar.maximum() <= 0 or dy == 0 or (dy > 0 and bar.value() <= bar.minimum()) or (
                dy < 0 and bar.value() >= bar.maximum()):
            return False  # the panel cannot move that way: the list scrolls
        QApplication.sendEvent(bar, ev)
        return True


def pass_wheel_to_panel(panel: QWidget) -> None:
    """Every list and table inside ``panel`` hands the wheel to the scrolling panel around
    it first (see the module)."""
    f = panel.findChild(WheelToPanel)
    if f is None:
        f = WheelToPanel(panel)
    for view in panel.findChildren(QAbstractScrollArea):
        vp = view.viewport()
        if not vp.property("coverfire_wheel_pass"):
            vp.setProperty("coverfire_wheel_pass", True)
            vp.installEventFilter(f)


__all__ = ["WheelToPanel", "pass_wheel_to_panel"]
