"""Zones: the engine's wall-clipped shapes, translucent, with their labels."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsItem

from engine.model import Encounter
from gui import style
from gui.qtgeom import geometry_path
from gui.style import ViewOptions
from gui.layers.base import MapLayer
from engine.diff import changed_items
from gui.layers.paint import NO_BRUSH, NO_PEN, TEXT, with_alpha, cosmetic, draw_label


class _Same:
    """Equal only to a holder of the very same object: a zone drawing's key compares the
    obstacles tuple by identity (by value, a file opened again compared 10,000 obstacles
    per zone: ~0.1 s each; a new tuple just builds the zone again, a few ms)."""

    __slots__ = ("obj",)

    def __init__(self, obj) -> None:
        self.obj = obj

    def __eq__(self, other) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


@dataclass
class _ZoneDrawing:
    key: tuple
    colour: QColor
    clipped: QPainterPath
    full: QPainterPath
    origin: tuple[float, float]
    labels: list[tuple[float, float, str, float]] = field(default_factory=list)  # x, y, text, angle (rad)
    reach: QRectF = field(default_factory=QRectF)  # the area whose obstacles can change its shape (m)


def zone_labels(z, origin: tuple[float, float], empty: bool = False) -> list[tuple[float, float, str, float]]:
    """The labels of a zone: (x, y metres of the point they stand off from, text, direction in
    radians to stand off along). Suppressive fire: "10 m wide at 22 m" at its far end; other
    directed zones their length; a blast or circle its radius ("3 m radius") east of its rim.
    Every length in whole metres (:func:`gui.style.metres`)."""
    a = math.radians(z.direction)
    if z.kind == "suppressive" and z.length:
        fx, fy = origin[0] + z.length * math.cos(a), origin[1] + z.length * math.sin(a)
        w = z.effective_width or 0.0
        return [(fx, fy, f"{style.metres(w)} wide at {style.metres(z.length)}", a)]
    if z.kind in ("suppressive", "shotgun", "cone", "line") and not empty and z.length:
        ln = z.length
        return [(origin[0] + ln * math.cos(a), origin[1] + ln * math.sin(a), style.metres(ln), a)]
    if z.kind in ("blast", "circle") and z.radius:
        return [(origin[0] + z.radius, origin[1], f"{style.metres(z.radius)} radius", 0.0)]
    return []


#: Where a zone label may go, in order: (steps along its direction, pill breadths to the side).
_LABEL_PLACES = tuple((j, k) for j in range(6) for k in (0, -1, 1))


class ZoneLayer(MapLayer):
    """Zones as translucent fills of the engine's wall-clipped shapes, with a faint outline
    of the full shape (where walls stop the fire, only the outline remains)."""

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(-60)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._drawings: dict[str, _ZoneDrawing] = {}
        self._obstacles: tuple | None = None  # those of the last set_zones
        self._area = QRectF()  # the map's rectangle (and its background's): zones are drawn inside it
        self.build_count = 0
        #: bumped whenever the drawings change (the label places' memo and the token
        #: layer's name layout, which keeps clear of the zones' labels, follow it)
        self.generation = 0
        self._placed_memo: tuple | None = None
        #: the layer drawing the labels, above the obstacles (:class:`ZoneLabelLayer`)
        self.label_layer: ZoneLabelLayer | None = None

    def _redraw(self, rect: QRectF | None = None) -> None:
        """Repaint the zones (with new bounds ``rect``, metres) and their labels' layer."""
        if rect is not None:
            self._set_rect(rect, 170.0 * self.options.label_scale)
        self.update()
        lab = self.label_layer
        if lab is not None:
            lab._set_rect(self._rect, self._pad_px)
            lab.update()

    def set_zones(self, encounter: Encounter, tactics) -> None:
        """Rebuild the drawings of zones whose shape may have changed (their own value,
        their origin, or the obstacles), asking ``tactics`` for the shapes."""
        keep: dict[str, _ZoneDrawing] = {}
        rect = QRectF()
        changed = False
        edited = self._edited_boxes(encounter.obstacles)
        m, bg = encounter.map, encounter.map.background
        area = QRectF(0.0, 0.0, float(m.width), float(m.height))
        if bg is not None:
            area = area.united(QRectF(bg.x, bg.y, bg.width, bg.height))
        if area != self._area:
            self._area = area
            self.update()
        for z in encounter.zones:
            if not self.options.shows(z) or not self.options.show_zones:
                continue
            try:
                origin = encounter.zone_origin(z)
            except ValueError:
                continue
            # (a shotgun's spread follows its owner's weapon too: the owner's value is in its key)
            owner = encounter.token(z.owner) if z.kind == "shotgun" and z.owner else None
            key = (z, origin, _Same(encounter.obstacles), tactics is not None, owner)
            d = self._drawings.get(z.id)
            if d is not None and d.key != key and edited is not None and d.key[:2] == key[:2] \
                    and d.key[3:] == key[3:] and not any(b.intersects(d.reach) for b in edited):
                d.key = key  # the obstacles edited lie away from it: its shape is the same
            if d is None or d.key != key:
                d = self._build(z, origin, key, tactics)
                changed = True
                if d is None:
                    continue
            keep[z.id] = d
            rect = rect.united(d.full.boundingRect()).united(d.clipped.boundingRect())
        if changed or keep.keys() != self._drawings.keys() or list(keep) != list(self._drawings):
            self._drawings = keep
            self.generation += 1
            self._redraw(rect)

    def _edited_boxes(self, obstacles: tuple) -> list[QRectF] | None:
        """The bounding boxes (before and after) of the obstacles that differ from the last
        call's, or None when too many changed to tell (a zone's clipped shape depends only
        on the obstacles within its area: a far edit leaves it as it is)."""
        old, self._obstacles = self._obstacles, obstacles
        if old is obstacles:
            return []
        if old is None:
            return None
        found = changed_items(old, obstacles, 64)  # (by identity: replaced, added, removed)
        if found is None:
            return None
        changed = found[0] + found[1]
        boxes = []
        for o in changed:
            xs, ys = [p[0] for p in o.polygon], [p[1] for p in o.polygon]
            boxes.append(QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)).adjusted(-0.01, -0.01, 0.01, 0.01))
        return boxes

    def rebuild(self) -> None:
        self._drawings = {}
        self.generation += 1
        self._redraw()

    def clear(self) -> None:
        """Draw no zone (until the next :meth:`set_zones`): a new map's zones come a turn
        after it, and the old map's must not stay meanwhile."""
        if self._drawings:
            self._drawings = {}
            self.generation += 1
            self._redraw(QRectF())

    def placed_labels(self, px_per_m: float, flip: bool = False) -> list[tuple[QRectF, str, QColor]]:
        """Where the zones' labels are drawn at ``px_per_m`` pixels per metre: (pill rect in
        pixels from the map origin, y as drawn, text, colour) each. A label stands off its
        point along its direction, clear of the aim handle; one that would cover a label
        placed before it moves a pill's breadth to one side or the other, else on along
        that direction (a circle's radius under another zone's far-end width was
        unreadable; six circles in a row slid their radii along to the view's edge)."""
        px = 11.0 * self.options.label_scale
        key = (self.generation, round(px_per_m, 6), flip, px, self.options.show_labels)
        if self._placed_memo is not None and self._placed_memo[0] == key:
            return self._placed_memo[1]
        out: list[tuple[QRectF, str, QColor]] = []
        if self.options.show_labels:
            sy = -1.0 if flip else 1.0
            for d in self._drawings.values():
                for x, y, text, a in d.labels:
                    _, w, h = TEXT.get(text, px)
                    bw, bh = w + 0.7 * h, 1.12 * h  # (the pill draw_label draws)
                    c, sn = math.cos(a), math.sin(a) * sy
                    reach = min((w / 2 + 0.4 * h) / max(abs(c), 1e-6), (h / 2 + 0.4 * h) / max(abs(sn), 1e-6)) + 12
                    step = max(abs(bw * c), abs(bh * sn), bh) + 2
                    side = abs(bw * sn) + abs(bh * c) + 4  # (a pill's breadth across the direction)
                    px0, py0 = x * px_per_m, y * px_per_m * sy
                    first = None
                    # along the direction, first level, then a pill's breadth to either side
                    # (circles in a row: their radii alternate above and below the line
                    # instead of sliding on, one past the other, off the map)
                    for j, k in _LABEL_PLACES:
                        cx = px0 + (reach + j * step) * c - k * side * sn
                        cy = py0 + (reach + j * step) * sn + k * side * c
                        rect = QRectF(cx - bw / 2, cy - bh / 2, bw, bh)
                        first = first or rect
                        if not any(rect.adjusted(-2, -2, 2, 2).intersects(r) for r, _, _ in out):
                            break
                    else:
                        rect = first
                    out.append((rect, text, d.colour))
        self._placed_memo = (key, out)
        return out

    def label_rects(self, px_per_m: float, flip: bool = False) -> list[tuple[float, float, float, float]]:
        """The (left, top, right, bottom) pixel rects of :meth:`placed_labels` (what the
        tokens' name labels keep clear of)."""
        return [(r.left(), r.top(), r.right(), r.bottom()) for r, _, _ in self.placed_labels(px_per_m, flip)]

    def _build(self, z, origin, key, tactics) -> _ZoneDrawing | None:
        self.build_count += 1
        if tactics is None:
            return None
        try:
            full = tactics.zone_shape(z.id)
            clipped = tactics.zone_shape_clipped(z.id)
        except ValueError:
            return None
        d = _ZoneDrawing(key, style.zone_colour(z), geometry_path(clipped), geometry_path(full), origin)
        d.reach = d.full.boundingRect().united(QRectF(origin[0] - 0.01, origin[1] - 0.01, 0.02, 0.02))
        d.labels.extend(zone_labels(z, origin, full.is_empty))
        return d

    def drawings(self) -> dict[str, _ZoneDrawing]:
        return self._drawings

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        painter.save()
        # (on the map only: an 18 m blast by the map's edge spilled over the dark margin and
        # round the legend; its shape and labels stay whole)
        if not self._area.isEmpty():
            painter.setClipRect(self._area, Qt.ClipOperation.IntersectClip)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for d in self._drawings.values():
            painter.setPen(NO_PEN)
            painter.setBrush(QBrush(with_alpha(d.colour, 72)))
            painter.drawPath(d.clipped)
            painter.setBrush(NO_BRUSH)
            painter.setPen(cosmetic(with_alpha(d.colour, 150), 1.2, Qt.PenStyle.DashLine))
            painter.drawPath(d.full)
            painter.setPen(cosmetic(with_alpha(d.colour, 230), 1.6))
            painter.drawPath(d.clipped)
        painter.restore()
        if self.label_layer is None:  # (a zone layer on its own draws its labels itself)
            paint_labels(self, painter)


def paint_labels(zones: ZoneLayer, painter: QPainter) -> None:
    """The zones' labels (:meth:`ZoneLayer.placed_labels`) in pills of their colours."""
    if not zones.options.show_labels:
        return
    tr = painter.transform()
    painter.save()
    painter.resetTransform()
    px = 11.0 * zones.options.label_scale
    # beyond the far end, clear of the aim handle and of the labels placed before
    for rect, text, colour in zones.placed_labels(abs(tr.m11()) or 1.0, tr.m22() < 0):
        c = rect.center()
        draw_label(painter, c.x() + tr.dx(), c.y() + tr.dy(), text, px, anchor="center",
                   fg=QColor("#101418"), bg=with_alpha(colour, 220))
    painter.restore()


class ZoneLabelLayer(MapLayer):
    """The labels of a :class:`ZoneLayer`'s zones ("18 m radius", "10 m wide at 30 m"), in a
    layer of their own above the obstacles: the zones' fills lie under the obstacles, and
    a label drawn with them was hidden by any building it fell on (Brick's blast, its rim
    inside the corner building, showed no radius at all)."""

    Z = -47.0  # (above the obstacles (-50), under the players' fog (-45) and the tokens (0))

    def __init__(self, options: ViewOptions, zones: ZoneLayer):
        super().__init__(options)
        self.setZValue(self.Z)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.zones = zones
        zones.label_layer = self
        self._set_rect(zones._rect, zones._pad_px)

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        paint_labels(self.zones, painter)
