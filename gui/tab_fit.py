"""The dock column's tabs all in view (issue 30 item 8): when the tabs standing down the
column's edge are longer than the column is high (a rule system's panels, 125 % scaling on a
laptop), their font steps down until they fit (never below :data:`LEAST_POINT_SIZE`), and
back up when there is room again: no tab hides behind the bar's scroll arrows."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QFont, QFontMetrics
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

    def fit(self, bar: QTabBar) -> None:
        """Give ``bar`` the largest font (at most the window's, in half points, at least
        :data:`LEAST_POINT_SIZE`) at which its tabs fit :meth:`room`; the font is set only
        when it changes (a change lays the bar out again)."""
        if bar.count() == 0:
            return
        base = self.window.font().pointSizeF()
        now = bar.font()
        if base <= 0 or now.pointSizeF() <= 0:
            return
        along = bar.shape() in _VERTICAL
        fm = QFontMetrics(now)
        texts = [bar.tabText(i).replace("&", "") for i in range(bar.count())]
        # each tab's padding, icon and frame: its length less its text's, at the font it has
        extra = [(bar.tabSizeHint(i).height() if along else bar.tabSizeHint(i).width()) - fm.horizontalAdvance(t)
                 for i, t in enumerate(texts)]
        room = self.room(bar)
        size = base
        while size - 0.5 >= LEAST_POINT_SIZE:
            f = QFont(now)
            f.setPointSizeF(size)
            m = QFontMetrics(f)
            if sum(m.horizontalAdvance(t) + e for t, e in zip(texts, extra)) <= room:
                break
            size -= 0.5
        if abs(now.pointSizeF() - size) > 1e-6:
            f = QFont(now)
            f.setPointSizeF(size)
            bar.setFont(f)

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 - Qt API
        if isinstance(obj, QTabBar) and ev.type() in (QEvent.Type.Show, QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self.fit(obj)
        return False


__all__ = ["LEAST_POINT_SIZE", "TabFit"]
