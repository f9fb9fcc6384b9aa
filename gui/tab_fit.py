"""The dock column's tabs all in view (issue 30 item 8): when the tabs standing down the
column's edge are longer than the column is high (a rule system's panels, 125 % scaling on a
laptop), their font steps down until they fit (never below :data:`LEAST_POINT_SIZE`), and
back up when there is room again: no tab hides behind the bar's scroll arrows."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QMainWindow, QTabBar

#: The smallest font (points) a tab is written in.
LEAST_POINT_SIZE = 7.0

_VERTICAL = (QTabBar.Shape.RoundedWest, QTabBar.Shape.RoundedEast, QTabBar.Shape.TriangularWest,
             QTabBar.Shape.TriangularEast)


class TabFit(QObject):
    """An event filter on the main window's dock tab bars (:meth:`fit` on each resize)."""

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window

    def room(self, bar: QTabBar) -> int:
        """The length (pixels) the bar may take: the dock column's height (or the window's
        width for a bar lying across)."""
        central = self.window.centralWidget()
        if bar.shape() in _VERTICAL:
            return central.height() if central is not None else self.window.height()
        return bar.parentWidget().width() if bar.parentWidget() is not None else bar.width()

    def length(self, bar: QTabBar) -> int:
        along = bar.shape() in _VERTICAL
        return sum(bar.tabSizeHint(i).height() if along else bar.tabSizeHint(i).width() for i in range(bar.count()))

    def fit(self, bar: QTabBar) -> None:
        if bar.count() == 0:
            return
        base = self.window.font().pointSizeF()
        if base <= 0:
            return
        room = self.room(bar)
        font = bar.font()
        size = base
        font.setPointSizeF(size)
        bar.setFont(font)
        while self.length(bar) > room and size - 0.5 >= LEAST_POINT_SIZE:
            size -= 0.5
            font.setPointSizeF(size)
            bar.setFont(font)

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 - Qt API
        if isinstance(obj, QTabBar) and ev.type() in (QEvent.Type.Show, QEvent.Type.LayoutRequest):
            if not obj.property("coverfire_fitting"):
                obj.setProperty("coverfire_fitting", True)
                try:
                    self.fit(obj)
                finally:
                    obj.setProperty("coverfire_fitting", False)
        return False


__all__ = ["LEAST_POINT_SIZE", "TabFit"]
