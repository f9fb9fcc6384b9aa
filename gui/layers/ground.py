"""The map itself: ground, background image, metre grid, edge."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF
from PySide6.QtGui import QBrush, QImage, QPainter, QPainterPath, QTransform
from PySide6.QtWidgets import QGraphicsItem

from gui import style
from gui.style import ViewOptions
from gui.layers.base import MapLayer
from gui.layers.paint import NO_BRUSH, NO_PEN, cosmetic, is_vector


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
        self.grid_lines = 0  # (drawn by the last paint: only those in view)
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

    def _visible(self, painter: QPainter) -> tuple[float, float, float, float]:
        """The part of the map the painter's device shows (metres), within the map."""
        inv, ok = painter.transform().inverted()
        if ok:
            r = inv.mapRect(QRectF(painter.viewport()))
            x0, y0, x1, y1 = r.left(), r.top(), r.right(), r.bottom()
        else:
            x0, y0, x1, y1 = 0.0, 0.0, self._mw, self._mh
        return max(0.0, x0), max(0.0, y0), min(self._mw, x1), min(self._mh, y1)

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
            x0, y0, x1, y1 = self._visible(painter)
            snap = _pixel_snap(painter)
            for axis, lo, hi, a, b in ((0, x0, x1, y0, y1), (1, y0, y1, x0, x1)):
                # only the lines in view (a zoomed-in 100 km map would otherwise build 10^5)
                for i in range(max(1, math.ceil(lo / step - 1e-9)), math.floor(hi / step + 1e-9) + 1):
                    v = i * step
                    if v >= (mw if axis == 0 else mh) - 1e-9:
                        break
                    if snap is not None:
                        v = snap[axis](v)
                    p = major if i % 5 == 0 else minor
                    if axis == 0:
                        p.moveTo(v, a)
                        p.lineTo(v, b)
                    else:
                        p.moveTo(a, v)
                        p.lineTo(b, v)
            self.grid_lines = minor.elementCount() // 2 + major.elementCount() // 2
            painter.setBrush(NO_BRUSH)
            painter.setPen(cosmetic(style.GRID_MINOR, 1.0))
            painter.drawPath(minor)
            painter.setPen(cosmetic(style.GRID_MAJOR, 1.0))
            painter.drawPath(major)
        painter.setBrush(NO_BRUSH)
        painter.setPen(cosmetic(style.MAP_EDGE, 1.5))
        painter.drawRect(QRectF(0, 0, mw, mh))


def _pixel_snap(painter: QPainter):
    """Two functions (x, y) putting a grid line at metre ``v`` on the middle of the device
    pixel it falls in, or None on a vector device (or a rotated one). Qt draws a one-pixel
    line along an axis on one whole pixel, the one its centre falls in; a line whose centre
    sits on a pixel's edge (a map corner on a whole pixel and a whole number of pixels to
    the metre: every fifth line) went to one side or the other on a last-bit difference of
    the transform (the device cache's corner, a view range copied), and the grid's major
    lines came out a pixel off a fresh window's (seed 1601: 20 crossings). A centre within a
    millionth of a pixel of an edge counts as past it."""
    if is_vector(painter):
        return None
    t = painter.deviceTransform()
    if t.type().value > QTransform.TransformationType.TxScale.value or t.m11() == 0 or t.m22() == 0:
        return None
    sx, dx, sy, dy = t.m11(), t.dx(), t.m22(), t.dy()

    def on_x(v: float) -> float:
        return (math.floor(sx * v + dx + 1e-6) + 0.5 - dx) / sx

    def on_y(v: float) -> float:
        return (math.floor(sy * v + dy + 1e-6) + 0.5 - dy) / sy
    return on_x, on_y
