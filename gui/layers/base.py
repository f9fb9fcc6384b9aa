"""The base of the map layers: an honest ``boundingRect`` (the drawn map area plus a pixel
margin for labels) at the zoom the view sets."""

from __future__ import annotations


import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QGraphicsItem

from gui.style import ViewOptions


class MapLayer(pg.GraphicsObject):
    """Base of the layers: ``boundingRect`` is the drawn map area (``_rect``, metres) plus
    ``_pad_px`` device pixels for labels, using the metres-per-pixel the view sets."""

    def __init__(self, options: ViewOptions):
        super().__init__()
        self.options = options
        self._rect = QRectF()
        self._pad_px = 0.0
        self._m_per_px = 0.05
        self.paint_count = 0

    def boundingRect(self) -> QRectF:  # noqa: D401 - Qt API
        if self._rect.isNull():
            return QRectF()
        pad = self._pad_px * self._m_per_px
        return self._rect.adjusted(-pad, -pad, pad, pad)

    def set_pixel_size(self, m_per_px: float) -> None:
        """Tell the layer how many metres one device pixel spans now (after a zoom)."""
        if m_per_px > 0 and abs(m_per_px - self._m_per_px) > 1e-12:
            if self._pad_px:
                self._bounds_changing()
            self._m_per_px = m_per_px

    def _bounds_changing(self) -> None:
        """``prepareGeometryChange``, and a layer with a device-coordinate cache drops its
        cached picture. Qt keeps the part of that picture inside the viewport and, when the
        bounds move past the viewport's edge (a zone grown off the map, a bigger map
        opened), scrolls it by the bounds' move as if the view had panned, then repaints only
        the strip the scroll uncovered, even after ``update()``: zones drawn 60-160 px off
        their owners, the old map left on the screen. A new picture costs what ``update()``
        was meant to cost: one paint of the layer."""
        self.prepareGeometryChange()
        mode = self.cacheMode()
        if mode != QGraphicsItem.CacheMode.NoCache:
            self.setCacheMode(QGraphicsItem.CacheMode.NoCache)
            self.setCacheMode(mode)

    def set_options(self, options: ViewOptions) -> None:
        self.options = options
        self.rebuild()

    def rebuild(self) -> None:  # overridden
        self.update()

    def _set_rect(self, rect: QRectF, pad_px: float = 0.0) -> None:
        if rect != self._rect or pad_px != self._pad_px:
            self._bounds_changing()
            self._rect = QRectF(rect)
            self._pad_px = pad_px
