"""The GM's ping: an animated marker at a map point that the players' window shows (and the
GM's map too), as Foundry's and Owlbear's players expect.

:class:`Pings` (one per main window) keeps the pings made in the last :data:`PING_S`
seconds, each at a map point in metres and stamped with the program's clock
(:mod:`engine.clock`), so a test decides how old a ping is. :class:`PingLayer` draws them
on any map view: rings that grow and fade over the ping's life, drawn in device pixels round
the map point. While a ping lives, one timer repaints the layers; it stops with the last ping.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QObject, QPointF, QRectF, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen

from engine import clock
from gui.layers import NO_BRUSH, NO_PEN, MapLayer
from gui.style import ViewOptions

#: Seconds a ping lives (grows and fades).
PING_S = 2.6
#: Pings kept at once (the oldest goes first).
MAX_PINGS = 6
#: Repaint interval of a living ping, milliseconds (about 30 frames a second).
FRAME_MS = 33
PING_COLOUR = QColor("#ffd54f")


@dataclass(frozen=True)
class Ping:
    """A ping at map point (``x``, ``y``) metres, made at ``at`` (program clock seconds)."""

    x: float
    y: float
    at: float

    def age(self, now: float) -> float:
        return now - self.at

    def phase(self, now: float) -> float:
        """How far through its life the ping is: 0 new, 1 gone."""
        return min(1.0, max(0.0, self.age(now) / PING_S))


class Pings(QObject):
    """The window's living pings. ``changed`` fires when one is made or the last one ends."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._pings: list[Ping] = []
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self.tick)
        self.layers: list[PingLayer] = []

    def ping(self, x: float, y: float) -> Ping:
        """Make a ping at map point (x, y) metres (now, by the program's clock)."""
        p = Ping(float(x), float(y), clock.now())
        self._pings = (self._pings + [p])[-MAX_PINGS:]
        if not self.timer.isActive():
            self.timer.start()
        self.changed.emit()
        self._repaint()
        return p

    def living(self) -> list[Ping]:
        """The pings younger than :data:`PING_S` seconds now."""
        now = clock.now()
        return [p for p in self._pings if p.age(now) < PING_S]

    def tick(self) -> None:
        """One frame: drop the pings that ended, repaint the layers; the timer stops with
        the last ping."""
        alive = self.living()
        ended = len(alive) != len(self._pings)
        self._pings = alive
        self._repaint()
        if not alive:
            self.timer.stop()
            if ended:
                self.changed.emit()

    def attach(self, layer: "PingLayer") -> None:
        self.layers.append(layer)
        layer.pings = self
        layer.destroyed.connect(lambda *_: self.layers.remove(layer) if layer in self.layers else None)

    def _repaint(self) -> None:
        for layer in list(self.layers):
            try:
                layer.refresh()
            except RuntimeError:  # its view was closed
                self.layers.remove(layer)


class PingLayer(MapLayer):
    """The pings on one map view: per ping three rings, the first at the point and the
    others after it, each growing from 10 to :attr:`RADIUS_PX` pixels (times the view's label
    scale) and fading, over a dot at the point."""

    RADIUS_PX = 46.0

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(50)
        self.pings: Pings | None = None

    def refresh(self) -> None:
        living = self.pings.living() if self.pings is not None else []
        if living:
            xs, ys = [p.x for p in living], [p.y for p in living]
            rect = QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
            self._set_rect(rect.adjusted(-1e-3, -1e-3, 1e-3, 1e-3), self.RADIUS_PX * self.options.label_scale + 6)
        else:
            self._set_rect(QRectF())
        self.update()

    def drawn(self) -> list[tuple[float, float, float]]:
        """(x, y metres, opacity 0-1) of each ping drawn now."""
        now = clock.now()
        return [(p.x, p.y, 1.0 - p.phase(now)) for p in (self.pings.living() if self.pings else [])]

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        if self.pings is None:
            return
        now = clock.now()
        living = self.pings.living()
        if not living:
            return
        tr = painter.transform()
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        s = self.options.label_scale
        for p in living:
            c = tr.map(QPointF(p.x, p.y))
            t = p.phase(now)
            for k in range(3):
                u = (t * 1.6 - 0.3 * k)
                if not 0.0 <= u <= 1.0:
                    continue
                r = (10 + (self.RADIUS_PX - 10) * math.sqrt(u)) * s
                a = int(255 * (1 - u))
                painter.setBrush(NO_BRUSH)
                painter.setPen(QPen(QColor(0, 0, 0, a // 2), 6 * s))
                painter.drawEllipse(c, r, r)
                col = QColor(PING_COLOUR)
                col.setAlpha(a)
                painter.setPen(QPen(col, 3.2 * s))
                painter.drawEllipse(c, r, r)
            dot = QColor(PING_COLOUR)
            dot.setAlpha(int(255 * (1 - t)))
            painter.setPen(NO_PEN)
            painter.setBrush(QBrush(dot))
            painter.drawEllipse(c, 6 * s, 6 * s)
        painter.restore()


__all__ = ["PING_S", "Ping", "PingLayer", "Pings"]
