"""Selection outlines, handles and tool previews (sketches)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath

from engine.model import Encounter
from gui import style
from gui.qtgeom import add_ring
from engine.id_index import IdIndex
from gui.style import ViewOptions
from gui.layers.base import MapLayer
from gui.layers.paint import NO_BRUSH, NO_PEN, TEXT, with_alpha, cosmetic, draw_label


@dataclass
class Sketch:
    """What a tool draws while it works, in metres: outline paths, filled shapes, handles
    (pixel squares at points) and labels (pixel text at points)."""

    lines: list[QPainterPath] = field(default_factory=list)
    fills: list[QPainterPath] = field(default_factory=list)
    handles: list[tuple[float, float]] = field(default_factory=list)
    labels: list[tuple[float, float, str]] = field(default_factory=list)
    colour: QColor = field(default_factory=lambda: QColor(style.PREVIEW_COLOUR))


class OverlayLayer(MapLayer):
    """Selection outlines, handles (vertices, zone aim handle) and tool previews."""

    HANDLE_PX = 9.0

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(40)
        self._selection = Sketch(colour=QColor(style.SELECT_COLOUR))
        self._tool = Sketch()

    def set_selection_sketch(self, sketch: Sketch) -> None:
        self._selection = sketch
        self._refresh()

    def set_tool_sketch(self, sketch: Sketch | None) -> None:
        self._tool = sketch or Sketch()
        self._refresh()

    def _refresh(self) -> None:
        rect = QRectF()
        for sk in (self._selection, self._tool):
            for p in sk.lines + sk.fills:
                rect = rect.united(p.boundingRect())
            for x, y in sk.handles:
                rect = rect.united(QRectF(x - 0.01, y - 0.01, 0.02, 0.02))
        pad = 160.0 * self.options.label_scale
        for sk in (self._selection, self._tool):
            for x, y, text in sk.labels:
                rect = rect.united(QRectF(x - 0.01, y - 0.01, 0.02, 0.02))
                # (a label is drawn 12 px right of and below its point: its whole pill inside the
                # bounds, or a longer one, such as a drag's walk and cost, leaves stale pixels)
                _, w, h = TEXT.get(text, 12 * self.options.label_scale, True)
                pad = max(pad, 12.0 + w + 16.0, 12.0 + h + 16.0)
        self._set_rect(rect, pad)
        self.update()

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        tr = painter.transform()
        for sk in (self._selection, self._tool):
            painter.setPen(NO_PEN)
            painter.setBrush(QBrush(with_alpha(sk.colour, 70)))
            for p in sk.fills:
                painter.drawPath(p)
            painter.setBrush(NO_BRUSH)
            for p in sk.lines:
                painter.setPen(cosmetic(QColor(0, 0, 0, 170), 4.5))
                painter.drawPath(p)
                painter.setPen(cosmetic(sk.colour, 2.0))
                painter.drawPath(p)
        painter.save()
        painter.resetTransform()
        hs = self.HANDLE_PX
        for sk in (self._selection, self._tool):
            painter.setPen(cosmetic(QColor("#0b0d10"), 1.5))
            painter.setBrush(QBrush(style.HANDLE_FILL))
            for x, y in sk.handles:
                p = tr.map(QPointF(x, y))
                painter.drawRect(QRectF(p.x() - hs / 2, p.y() - hs / 2, hs, hs))
            for x, y, text in sk.labels:
                p = tr.map(QPointF(x, y))
                draw_label(painter, p.x() + 12, p.y() + 12, text, 12 * self.options.label_scale,
                           anchor="left", bold=True)
        painter.restore()


def selection_sketch(encounter: Encounter, ids: Sequence[str], zone_drawings: dict) -> Sketch:
    """Outlines and handles for the selected objects: token rims, obstacle outlines with a
    handle per vertex, zone outlines with an aim handle (directed) or a radius handle."""
    sk = Sketch(colour=QColor(style.SELECT_COLOUR))
    want = set(ids)
    if not want:
        return sk
    for t in encounter.tokens:
        if t.id in want:
            p = QPainterPath()
            p.addEllipse(QPointF(t.x, t.y), t.radius + 0.12, t.radius + 0.12)
            sk.lines.append(p)
            want.discard(t.id)
    # (redrawn on every drag step: the selected ones are looked up, not 10,000 obstacles scanned)
    obstacles = _INDEX["obstacles"].picked(encounter.obstacles, want)
    want.difference_update(o.id for o in obstacles)
    for o in obstacles:
        p = QPainterPath()
        add_ring(p, o.polygon)
        sk.lines.append(p)
        sk.handles.extend(o.polygon)
    for z in _INDEX["zones"].picked(encounter.zones, want):
        d = zone_drawings.get(z.id)
        if d is not None:
            sk.lines.append(d.full)
        sk.handles.extend(zone_handles(encounter, z))
    return sk


_INDEX = {"obstacles": IdIndex(), "zones": IdIndex()}  # (a drag asks about the same tuples every step)


def zone_handles(encounter: Encounter, z) -> list[tuple[float, float]]:
    """Where a zone's handles are (metres): directed zones and rects: the aim point (origin +
    length along the direction, half the length for rects); circles: a point on the rim
    (east of the centre); area zones and zones with their own origin: the centre too."""
    out = []
    try:
        ox, oy = encounter.zone_origin(z)
    except ValueError:
        return out
    a = math.radians(z.direction)
    if z.kind in ("suppressive", "shotgun", "cone", "line"):
        ln = z.length or 5.0
        out.append((ox + ln * math.cos(a), oy + ln * math.sin(a)))
    elif z.kind == "rect":
        ln = (z.length or 2.0) / 2
        out.append((ox + ln * math.cos(a), oy + ln * math.sin(a)))
    elif z.kind in ("blast", "circle"):
        out.append((ox + (z.radius or 1.0), oy))
    if z.x is not None:
        out.append((ox, oy))
    return out
