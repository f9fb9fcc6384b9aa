"""The map itself: ground, background image, metre grid, edge."""

from __future__ import annotations


from PySide6.QtCore import QRectF
from PySide6.QtGui import QBrush, QImage, QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsItem

from gui import style
from gui.style import ViewOptions
from gui.layers.base import MapLayer
from gui.layers.paint import NO_BRUSH, NO_PEN, cosmetic


class GroundLayer(MapLayer):
    """The map itself: ground fill, optional background image, metre grid (thinned by zoom),
    map edge. Cached in device coordinates."""

    MIN_GRID_PX = 9.0

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(-100)
        self._mw = self._mh = 0.0
        self._grid = 1.0
        self._image: QImage | None = None
        self._image_rect = QRectF()

    def set_map(self, width: float, height: float, grid: float) -> None:
        self._mw, self._mh, self._grid = float(width), float(height), float(grid)
        self._refresh()

    def set_background(self, image: QImage | None, rect: QRectF | None) -> None:
        """Show ``image`` stretched over ``rect`` (metres), or no image."""
        self._image = image if image is not None and not image.isNull() else None
        self._image_rect = QRectF(rect) if rect is not None else QRectF()
        self._refresh()

    def _refresh(self) -> None:
        rect = QRectF(0, 0, self._mw, self._mh)
        if self._image is not None and self.options.show_background:
            rect = rect.united(self._image_rect)
        self._set_rect(rect)
        self.update()

    def rebuild(self) -> None:
        self._refresh()

    @property
    def has_image(self) -> bool:
        return self._image is not None

    def grid_step(self, px_per_m: float) -> float:
        """The grid spacing drawn at this zoom, in metres: the map's grid times 1, 2, 5, 10,
        20, ... so that lines stay at least MIN_GRID_PX pixels apart."""
        for mult in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000):
            if self._grid * mult * px_per_m >= self.MIN_GRID_PX:
                return self._grid * mult
        return self._grid * 10000

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        mw, mh = self._mw, self._mh
        if mw <= 0 or mh <= 0:
            return
        painter.setPen(NO_PEN)
        painter.setBrush(QBrush(style.MAP_GROUND))
        painter.drawRect(QRectF(0, 0, mw, mh))
        if self._image is not None and self.options.show_background:
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
            painter.drawImage(self._image_rect, self._image)
        if self.options.show_grid:
            px_per_m = abs(painter.transform().m11()) or 1.0
            step = self.grid_step(px_per_m)
            minor, major = QPainterPath(), QPainterPath()
            for axis, length, other in ((0, mw, mh), (1, mh, mw)):
                n = int(length / step + 1e-9)
                for i in range(1, n + 1):
                    v = i * step
                    if v >= length - 1e-9:
                        break
                    p = major if i % 5 == 0 else minor
                    if axis == 0:
                        p.moveTo(v, 0)
                        p.lineTo(v, other)
                    else:
                        p.moveTo(0, v)
                        p.lineTo(other, v)
            painter.setBrush(NO_BRUSH)
            painter.setPen(cosmetic(style.GRID_MINOR, 1.0))
            painter.drawPath(minor)
            painter.setPen(cosmetic(style.GRID_MAJOR, 1.0))
            painter.drawPath(major)
        painter.setBrush(NO_BRUSH)
        painter.setPen(cosmetic(style.MAP_EDGE, 1.5))
        painter.drawRect(QRectF(0, 0, mw, mh))
