"""The map's layers, one graphics item each (not one item per object).

Each layer holds cached paths in map metres (x east, y south) built when its data changes,
an honest ``boundingRect`` (the map area it draws on, plus the pixel margin its labels
need), and calls ``prepareGeometryChange`` before that rect changes. Labels, badges and
handles are drawn in device pixels so they stay readable at any zoom. Static layers
(map ground and obstacles) use ``DeviceCoordinateCache``: during a token drag they are
blitted, not redrawn.

The layers only draw what they are given: the engine's answers come in through
:class:`gui.answers.LiveAnswers` and :class:`engine.analysis.Tactics`; no layer measures.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QStaticText,
)
from PySide6.QtWidgets import QGraphicsItem

from engine.model import Encounter
from gui import style
from gui.qtgeom import add_ring, geometry_path, polyline_path
from gui.style import ViewOptions


def cosmetic(colour: QColor | str, width: float = 1.0, style_: Qt.PenStyle = Qt.PenStyle.SolidLine) -> QPen:
    """A pen whose width is in pixels whatever the zoom."""
    pen = QPen(QColor(colour), width)
    pen.setCosmetic(True)
    pen.setStyle(style_)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    return pen


NO_PEN = QPen(Qt.PenStyle.NoPen)
NO_BRUSH = QBrush(Qt.BrushStyle.NoBrush)


def _alpha(c: QColor, a: int) -> QColor:
    out = QColor(c)
    out.setAlpha(a)
    return out


class _TextCache:
    """Static texts and their pixel sizes, by (text, pixel size, bold)."""

    def __init__(self):
        self._cache: dict[tuple[str, int, bool], tuple[QStaticText, float, float]] = {}

    def get(self, text: str, px: float, bold: bool = False) -> tuple[QStaticText, float, float]:
        key = (text, int(round(px)), bold)
        hit = self._cache.get(key)
        if hit is None:
            font = style.ui_font(px, bold)
            st = QStaticText(text)
            st.setTextFormat(Qt.TextFormat.PlainText)
            st.prepare(font=font)
            fm = QFontMetricsF(font)
            hit = (st, fm.horizontalAdvance(text), fm.height())
            if len(self._cache) > 5000:
                self._cache.clear()
            self._cache[key] = hit
        return hit


TEXT = _TextCache()


def draw_label(painter: QPainter, x: float, y: float, text: str, px: float, *, anchor: str = "top",
               bold: bool = False, fg: QColor = style.LABEL_TEXT, bg: QColor | None = style.LABEL_PILL) -> QRectF:
    """Draw ``text`` in device pixels at (x, y) on a rounded pill; ``anchor`` says which
    side of the label (x, y) is: ``top`` (centre of its top edge), ``bottom``, ``left``,
    ``right`` or ``center``. The painter must have an identity transform. Returns the pill."""
    st, w, h = TEXT.get(text, px, bold)
    pad_x, pad_y = 0.35 * h, 0.06 * h
    bw, bh = w + 2 * pad_x, h + 2 * pad_y
    if anchor == "top":
        left, top = x - bw / 2, y
    elif anchor == "bottom":
        left, top = x - bw / 2, y - bh
    elif anchor == "left":
        left, top = x, y - bh / 2
    elif anchor == "right":
        left, top = x - bw, y - bh / 2
    else:
        left, top = x - bw / 2, y - bh / 2
    rect = QRectF(left, top, bw, bh)
    if bg is not None:
        painter.setPen(NO_PEN)
        painter.setBrush(QBrush(bg))
        painter.drawRoundedRect(rect, bh / 2.6, bh / 2.6)
    painter.setPen(QPen(fg))
    painter.setFont(style.ui_font(px, bold))  # drawStaticText draws in the painter's font
    painter.drawStaticText(QPointF(left + pad_x, top + pad_y), st)
    return rect


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
                self.prepareGeometryChange()
            self._m_per_px = m_per_px

    def set_options(self, options: ViewOptions) -> None:
        self.options = options
        self.rebuild()

    def rebuild(self) -> None:  # overridden
        self.update()

    def _set_rect(self, rect: QRectF, pad_px: float = 0.0) -> None:
        if rect != self._rect or pad_px != self._pad_px:
            self.prepareGeometryChange()
            self._rect = QRectF(rect)
            self._pad_px = pad_px


# ---------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------
class ObstacleLayer(MapLayer):
    """Every obstacle in one cached path per height class (low, waist, full), plus hidden
    ones (GM view only, hatched) and open doors (outline only)."""

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(-50)
        self._obstacles: tuple = ()
        self._paths: dict[str, QPainterPath] = {}
        self.build_count = 0

    def set_obstacles(self, obstacles: tuple) -> None:
        if obstacles is self._obstacles:
            return
        self._obstacles = obstacles
        self.rebuild()

    def rebuild(self) -> None:
        self.build_count += 1
        groups: dict[str, list] = {c: [] for c in style.HEIGHT_CLASSES}
        groups["hidden"], groups["open"] = [], []
        for o in self._obstacles:
            if not self.options.shows(o):
                continue
            if o.hidden:
                groups["hidden"].append(o.polygon)
            elif not o.blocks:
                groups["open"].append(o.polygon)
            else:
                groups[style.height_class(o.height)].append(o.polygon)
        self._paths = {}
        rect = QRectF()
        for name, rings in groups.items():
            if not rings:
                continue
            path = QPainterPath()
            for ring in rings:
                add_ring(path, ring)
            self._paths[name] = path
            rect = rect.united(path.boundingRect())
        self._set_rect(rect)
        self.update()

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for cls in style.HEIGHT_CLASSES:
            path = self._paths.get(cls)
            if path is None:
                continue
            painter.setPen(cosmetic(style.HEIGHT_EDGE[cls], 1.4))
            painter.setBrush(QBrush(style.HEIGHT_FILL[cls]))
            painter.drawPath(path)
        path = self._paths.get("open")
        if path is not None:
            painter.setPen(cosmetic(style.HEIGHT_EDGE["full"], 1.4, Qt.PenStyle.DashLine))
            painter.setBrush(NO_BRUSH)
            painter.drawPath(path)
        path = self._paths.get("hidden")
        if path is not None:
            painter.setPen(cosmetic(QColor(200, 200, 200, 150), 1.2, Qt.PenStyle.DashLine))
            painter.setBrush(QBrush(QColor(200, 200, 200, 90), Qt.BrushStyle.BDiagPattern))
            painter.drawPath(path)


# ---------------------------------------------------------------------------------------------
@dataclass
class _ZoneDrawing:
    key: tuple
    colour: QColor
    clipped: QPainterPath
    full: QPainterPath
    origin: tuple[float, float]
    labels: list[tuple[float, float, str]] = field(default_factory=list)


class ZoneLayer(MapLayer):
    """Zones as translucent fills of the engine's wall-clipped shapes, with a faint outline
    of the full shape (where walls stop the fire, only the outline remains)."""

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(-60)
        self._drawings: dict[str, _ZoneDrawing] = {}
        self.build_count = 0

    def set_zones(self, encounter: Encounter, tactics) -> None:
        """Rebuild the drawings of zones whose shape may have changed (their own value,
        their origin, or the obstacles), asking ``tactics`` for the shapes."""
        keep: dict[str, _ZoneDrawing] = {}
        rect = QRectF()
        for z in encounter.zones:
            if not self.options.shows(z) or not self.options.show_zones:
                continue
            try:
                origin = encounter.zone_origin(z)
            except ValueError:
                continue
            key = (z, origin, id(encounter.obstacles), tactics is not None)
            d = self._drawings.get(z.id)
            if d is None or d.key != key:
                d = self._build(z, origin, key, tactics)
                if d is None:
                    continue
            keep[z.id] = d
            rect = rect.united(d.full.boundingRect()).united(d.clipped.boundingRect())
        self._drawings = keep
        self._set_rect(rect, 90.0 * self.options.label_scale)
        self.update()

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
        if z.kind == "suppressive" and z.length:
            a = math.radians(z.direction)
            fx, fy = origin[0] + z.length * math.cos(a), origin[1] + z.length * math.sin(a)
            w = z.effective_width or 0.0
            d.labels.append((fx, fy, f"{w:g} m wide at {z.length:g} m"))
        elif z.kind in ("suppressive", "shotgun", "cone", "line") and not full.is_empty:
            a = math.radians(z.direction)
            ln = z.length or 0.0
            if ln:
                d.labels.append((origin[0] + ln * math.cos(a), origin[1] + ln * math.sin(a), f"{ln:g} m"))
        return d

    def drawings(self) -> dict[str, _ZoneDrawing]:
        return self._drawings

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for d in self._drawings.values():
            painter.setPen(NO_PEN)
            painter.setBrush(QBrush(_alpha(d.colour, 72)))
            painter.drawPath(d.clipped)
            painter.setBrush(NO_BRUSH)
            painter.setPen(cosmetic(_alpha(d.colour, 150), 1.2, Qt.PenStyle.DashLine))
            painter.drawPath(d.full)
            painter.setPen(cosmetic(_alpha(d.colour, 230), 1.6))
            painter.drawPath(d.clipped)
        if not self.options.show_labels:
            return
        tr = painter.transform()
        painter.save()
        painter.resetTransform()
        px = 11.0 * self.options.label_scale
        for d in self._drawings.values():
            for x, y, text in d.labels:
                p = tr.map(QPointF(x, y))
                draw_label(painter, p.x(), p.y(), text, px, anchor="center",
                           fg=QColor("#101418"), bg=_alpha(d.colour, 220))
        painter.restore()


# ---------------------------------------------------------------------------------------------
class TokenLayer(MapLayer):
    """All tokens in one item: discs by side colour, stance letter (C crouched, P prone;
    none standing), facing tick, name label, and rings in the colours of the zones a token
    is in. Hidden tokens are drawn faded with a dashed rim (GM) or not at all (players)."""

    LABEL_MIN_PX_PER_M = 4.0

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(0)
        self._tokens: tuple = ()
        self._ids: list[str] = []
        self._xy = np.zeros((0, 2))
        self._r = np.zeros(0)
        self._rings: dict[str, list[QColor]] = {}
        self._dim: set[str] = set()
        self._by_side: dict[str, tuple[QColor, QPainterPath, QPainterPath]] = {}
        self._ticks = QPainterPath()
        self._labels: list[tuple[float, float, float, str, str, bool]] = []
        self.build_count = 0

    @property
    def ids(self) -> list[str]:
        return self._ids

    def set_tokens(self, tokens: tuple) -> None:
        if tokens is self._tokens:
            return
        self._tokens = tokens
        self.rebuild()

    def set_rings(self, rings: dict[str, list[QColor]]) -> None:
        if rings != self._rings:
            self._rings = rings
            self.update()

    def set_dimmed(self, ids: Iterable[str]) -> None:
        ids = set(ids)
        if ids != self._dim:
            self._dim = ids
            self.update()

    def rebuild(self) -> None:
        self.build_count += 1
        shown = [t for t in self._tokens if self.options.shows(t)]
        self._ids = [t.id for t in shown]
        self._xy = np.array([(t.x, t.y) for t in shown], dtype=float).reshape(-1, 2)
        self._r = np.array([t.radius for t in shown], dtype=float)
        sides: dict[tuple[str, bool], list] = {}
        ticks = QPainterPath()
        labels = []
        for t in shown:
            sides.setdefault((t.side, t.hidden), []).append(t)
            a = math.radians(t.facing)
            c, s = math.cos(a), math.sin(a)
            ticks.moveTo(t.x + 0.45 * t.radius * c, t.y + 0.45 * t.radius * s)
            ticks.lineTo(t.x + 1.55 * t.radius * c, t.y + 1.55 * t.radius * s)
            mark = {"crouched": "C", "prone": "P"}.get(t.stance, "")
            labels.append((t.x, t.y, t.radius, t.name or t.id, mark, t.hidden))
        self._by_side = {}
        for (side, hidden), group in sides.items():
            path = QPainterPath()
            for t in group:
                path.addEllipse(QPointF(t.x, t.y), t.radius, t.radius)
            colour = style.side_colour(side)
            self._by_side[f"{side}\0{int(hidden)}"] = (colour, path, QPainterPath())
        self._ticks = ticks
        self._labels = labels
        if len(self._xy):
            r = self._r.max() * 1.6
            lo, hi = self._xy.min(axis=0) - r, self._xy.max(axis=0) + r
            rect = QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1])
        else:
            rect = QRectF()
        self._set_rect(rect, 110.0 * self.options.label_scale)
        self.update()

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        if not self._ids:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        tr = painter.transform()
        px_per_m = abs(tr.m11()) or 1.0
        # zone rings, outside the discs, drawn in pixels so they show at any zoom
        if self._rings and self.options.show_zone_rings:
            painter.setBrush(NO_BRUSH)
            for tid, colours in self._rings.items():
                t = self._find(tid)
                if t is None:
                    continue
                x, y, r = t
                for k, colour in enumerate(colours[:4]):
                    rr = r + (3.0 + 4.0 * k) / px_per_m
                    painter.setPen(cosmetic(colour, 3.0))
                    painter.drawEllipse(QPointF(x, y), rr, rr)
        outline = cosmetic(QColor("#0b0d10"), 1.6)
        for key, (colour, path, _) in self._by_side.items():
            hidden = key.endswith("\x001")
            if hidden:
                painter.setPen(cosmetic(QColor("#e0e0e0"), 1.4, Qt.PenStyle.DashLine))
                painter.setBrush(QBrush(_alpha(colour, 90)))
            else:
                painter.setPen(outline)
                painter.setBrush(QBrush(colour))
            painter.drawPath(path)
        painter.setBrush(NO_BRUSH)
        painter.setPen(cosmetic(QColor("#0b0d10"), 4.0))
        painter.drawPath(self._ticks)
        painter.setPen(cosmetic(QColor("#fbfcfd"), 2.0))
        painter.drawPath(self._ticks)
        # pixel-space marks and labels
        painter.save()
        painter.resetTransform()
        m11, m22, dx, dy = tr.m11(), tr.m22(), tr.dx(), tr.dy()
        show_names = self.options.show_labels and px_per_m >= self.LABEL_MIN_PX_PER_M
        name_px = self.options.label_px
        for x, y, r, name, mark, hidden in self._labels:
            cx, cy = x * m11 + dx, y * m22 + dy
            rp = r * px_per_m
            if mark and rp >= 5:
                draw_label(painter, cx, cy, mark, max(8.0, min(rp * 1.25, 13.0 * self.options.label_scale)),
                           anchor="center", bold=True, fg=QColor("#0b0d10"), bg=None)
            if show_names:
                draw_label(painter, cx, cy + rp + 3, name, name_px, anchor="top", bold=True,
                           fg=QColor("#c9cfd6") if hidden else style.LABEL_TEXT)
        painter.restore()

    def _find(self, tid: str):
        try:
            i = self._ids.index(tid)
        except ValueError:
            return None
        return self._xy[i, 0], self._xy[i, 1], self._r[i]

    def token_at(self, x: float, y: float, slack: float = 0.0) -> str | None:
        """The id of the token drawn under (x, y) metres (within ``slack`` metres of its rim);
        the nearest centre wins."""
        if not len(self._xy):
            return None
        d = np.hypot(self._xy[:, 0] - x, self._xy[:, 1] - y) - self._r
        i = int(np.argmin(d))
        return self._ids[i] if d[i] <= slack else None


# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Badge:
    """One target's badge: range band text and cover class (from the engine's report)."""

    text: str
    cover: str | None
    colour: QColor


class AnswerLayer(MapLayer):
    """The engine's answers for the selected attacker: a badge on every other token (range
    band and modifier, cover class), and for the looked-at target the line of sight, the
    hidden part of its silhouette, and the charge path with its run-up leg and metres."""

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(20)
        self._attacker: tuple[float, float, float] | None = None
        self._badges: list[tuple[float, float, float, Badge]] = []
        self._sight: dict | None = None
        self._charge: dict | None = None
        self.build_count = 0

    def set_answers(self, encounter: Encounter, attacker_id: str | None, reports: dict,
                    sight=None, charge=None, focus_id: str | None = None) -> None:
        """Take the engine's reports (``TargetReport`` by id), and for ``focus_id`` its
        ``SightReport`` and ``ChargePlan``."""
        self.build_count += 1
        self._badges = []
        self._attacker = None
        self._sight = None
        self._charge = None
        tokens = {t.id: t for t in encounter.tokens if self.options.shows(t)}
        a = tokens.get(attacker_id) if attacker_id else None
        if a is not None:
            self._attacker = (a.x, a.y, a.radius)
            if self.options.show_badges:
                for tid, rep in reports.items():
                    t = tokens.get(tid)
                    if t is None:
                        continue
                    self._badges.append((t.x, t.y, t.radius, badge_for(rep)))
            t = tokens.get(focus_id) if focus_id else None
            if t is not None and sight is not None and self.options.show_sight:
                self._sight = _sight_drawing(a, t, sight, reports.get(t.id))
            if t is not None and charge is not None and self.options.show_charge:
                self._charge = _charge_drawing(t, charge)
        rect = QRectF()
        pts = [(x, y) for x, y, _, _ in self._badges]
        if self._attacker:
            pts.append(self._attacker[:2])
        if self._charge:
            pts += list(self._charge["path"])
        if pts:
            arr = np.asarray(pts, dtype=float)
            lo, hi = arr.min(axis=0) - 2, arr.max(axis=0) + 2
            rect = QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1])
        self._set_rect(rect, 140.0 * self.options.label_scale)
        self.update()

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        if self._attacker is None:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        tr = painter.transform()
        px_per_m = abs(tr.m11()) or 1.0
        ax, ay, ar = self._attacker
        # attacker marker: a bright double ring
        painter.setBrush(NO_BRUSH)
        painter.setPen(cosmetic(QColor("#0b0d10"), 5.0))
        painter.drawEllipse(QPointF(ax, ay), ar + 5 / px_per_m, ar + 5 / px_per_m)
        painter.setPen(cosmetic(QColor("#fff176"), 2.5))
        painter.drawEllipse(QPointF(ax, ay), ar + 5 / px_per_m, ar + 5 / px_per_m)
        if self._charge is not None:
            c = self._charge
            painter.setPen(cosmetic(QColor(0, 0, 0, 160), 5.0))
            painter.drawPath(c["qpath"])
            painter.setPen(cosmetic(style.CHARGE_COLOUR, 2.5, Qt.PenStyle.DashLine))
            painter.drawPath(c["qpath"])
            if c["runup"] is not None:
                painter.setPen(cosmetic(QColor(0, 0, 0, 180), 7.0))
                painter.drawPath(c["runup"])
                painter.setPen(cosmetic(style.RUNUP_COLOUR, 4.0))
                painter.drawPath(c["runup"])
        if self._sight is not None:
            s = self._sight
            painter.setPen(cosmetic(QColor(0, 0, 0, 170), 4.5))
            painter.drawLine(QPointF(*s["a"]), QPointF(*s["b"]))
            colour = style.COVER_COLOURS.get(s["cls"], style.SIGHT_CLEAR)
            pen = cosmetic(colour, 2.2, Qt.PenStyle.SolidLine if s["cls"] in (None, "none") else Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.drawLine(QPointF(*s["a"]), QPointF(*s["b"]))
        # pixel space: badges, charge metres, silhouette inset
        painter.save()
        painter.resetTransform()
        m11, m22, dx, dy = tr.m11(), tr.m22(), tr.dx(), tr.dy()
        bpx = self.options.badge_px
        for x, y, r, b in self._badges:
            cx, cy = x * m11 + dx, y * m22 + dy
            top = cy - r * px_per_m - 3
            _draw_badge(painter, cx, top, b, bpx)
        if self._charge is not None:
            c = self._charge
            lx, ly = c["label_at"]
            draw_label(painter, lx * m11 + dx, ly * m22 + dy + 14, c["text"], bpx * 1.1, anchor="top",
                       bold=True, fg=QColor("#0b0d10"), bg=_alpha(style.CHARGE_COLOUR, 235))
        if self._sight is not None and self._sight.get("profile") is not None:
            _draw_silhouette(painter, self._sight, m11, m22, dx, dy, px_per_m, self.options.label_scale)
        painter.restore()


def badge_for(report) -> Badge:
    """Badge text from the engine's ``TargetReport``: e.g. ``"M -1"`` and the cover class."""
    rng = getattr(report, "range", None)
    if rng is None or getattr(rng, "band", None) is None:
        text = "out"
    else:
        mod = int(rng.modifier)
        text = f"{style.BAND_SHORT.get(rng.band, rng.band[:1].upper())} {'+' if mod > 0 else ''}{mod}".replace("-", "\u2212")
    cover = getattr(report, "cover", None)
    cls = getattr(cover, "cls", None) if cover is not None else None
    return Badge(text, cls, style.COVER_COLOURS.get(cls or "none", style.OUT_OF_RANGE))


def _draw_badge(painter: QPainter, cx: float, bottom: float, b: Badge, px: float) -> None:
    """Two-part pill above a token: range (dark) | cover class (coloured)."""
    st1, w1, h = TEXT.get(b.text, px, True)
    cover_text = b.cover or "?"
    st2, w2, _ = TEXT.get(cover_text, px, True)
    pad = 0.35 * h
    total = w1 + w2 + 4 * pad
    left, top = cx - total / 2, bottom - h - 2
    painter.setPen(NO_PEN)
    painter.setBrush(QBrush(style.LABEL_PILL))
    r = QRectF(left, top, total, h + 2)
    painter.drawRoundedRect(r, 5, 5)
    painter.setBrush(QBrush(b.colour))
    painter.drawRoundedRect(QRectF(left + w1 + 2 * pad, top + 1, w2 + 2 * pad - 1, h), 4, 4)
    painter.setFont(style.ui_font(px, True))  # drawStaticText draws in the painter's font
    painter.setPen(QPen(style.LABEL_TEXT if b.text != "out" else style.OUT_OF_RANGE))
    painter.drawStaticText(QPointF(left + pad, top + 1), st1)
    painter.setPen(QPen(QColor("#0b0d10")))
    painter.drawStaticText(QPointF(left + w1 + 3 * pad - 0.5, top + 1), st2)


def _sight_drawing(a, t, sight, report) -> dict:
    """What to draw for a line of sight, from the engine's ``SightReport``."""
    eye = getattr(sight, "eye", None) or (a.x, a.y)
    tgt = getattr(sight, "target", None) or (t.x, t.y)
    ex, ey = float(eye[0]), float(eye[1])
    tx, ty = float(tgt[0]), float(tgt[1])
    fraction = getattr(sight, "fraction", None)
    cls = getattr(sight, "cls", None)
    if cls is None and report is not None:
        cls = report.cover.cls
        fraction = report.cover.fraction if fraction is None else fraction
    u = getattr(sight, "u", None)
    hidden = getattr(sight, "hidden", None)
    profile = None
    if u is not None and hidden is not None:
        profile = (np.asarray(u, dtype=float), np.asarray(hidden, dtype=float))
    height = getattr(sight, "target_height", None) or getattr(sight, "height", None)
    if height is None:
        from geometry.bodies import body_height

        height = body_height(t.stance)
    return {"a": (ex, ey), "b": (tx, ty), "cls": cls, "fraction": fraction, "profile": profile,
            "height": float(height), "radius": float(t.radius), "target": (t.x, t.y), "side": t.side}


def _draw_silhouette(painter: QPainter, s: dict, m11, m22, dx, dy, px_per_m, scale: float) -> None:
    """An inset beside the target: its silhouette as the shooter sees it (the shooter's right
    on the right), the hidden part dark and hatched, with the hidden percentage and class."""
    u, hidden = s["profile"]
    height, radius = s["height"], s["radius"]
    k = 34.0 * scale  # inset pixels per metre
    w, h = max(2 * radius * k, 10.0), height * k
    tx, ty = s["target"]
    cx, cy = tx * m11 + dx, ty * m22 + dy
    cls = s["cls"] or "none"
    frac = s.get("fraction")
    text = f"{round(100 * frac):d}% hidden" if frac is not None else "hidden"
    st, tw, th = TEXT.get(text, 11.5 * scale, True)
    st2, cw, _ = TEXT.get(cls, 11.5 * scale, True)
    pad = 8.0 * scale
    fw = max(w, tw, cw) + 2 * pad
    fh = h + 2 * th + 3 * pad
    vp = painter.viewport()
    left = cx + radius * px_per_m + 26 * scale
    if vp.width() > 0 and left + fw > vp.width() - 4:
        left = cx - radius * px_per_m - 26 * scale - fw
    top = cy - fh / 2
    painter.setPen(cosmetic(QColor(255, 255, 255, 110), 1.0))
    painter.setBrush(QBrush(QColor(10, 12, 16, 225)))
    painter.drawRoundedRect(QRectF(left, top, fw, fh), 7, 7)
    bx = left + (fw - w) / 2
    bottom = top + pad + h
    # ground line
    painter.setPen(cosmetic(QColor(255, 255, 255, 120), 1.0))
    painter.drawLine(QPointF(left + 4, bottom), QPointF(left + fw - 4, bottom))
    painter.setPen(NO_PEN)
    painter.setBrush(QBrush(style.side_colour(s["side"])))
    painter.drawRect(QRectF(bx, bottom - h, w, h))
    if len(u):
        order = np.argsort(u)
        uu = u[order]
        hh = np.minimum(np.nan_to_num(hidden[order], posinf=height), height)
        edges = np.empty(len(uu) + 1)
        edges[1:-1] = (uu[1:] + uu[:-1]) / 2
        edges[0], edges[-1] = -radius, radius
        path = QPainterPath()
        for i in range(len(uu)):
            if hh[i] <= 0:
                continue
            x0 = bx + (edges[i] + radius) / (2 * radius) * w
            x1 = bx + (edges[i + 1] + radius) / (2 * radius) * w
            path.addRect(QRectF(x0, bottom - hh[i] * k, max(0.5, x1 - x0), hh[i] * k))
        painter.setBrush(QBrush(QColor("#2b3036")))
        painter.drawPath(path)
        painter.setBrush(QBrush(QColor(255, 255, 255, 70), Qt.BrushStyle.BDiagPattern))
        painter.drawPath(path)
    painter.setPen(cosmetic(QColor("#ffffff"), 1.2))
    painter.setBrush(NO_BRUSH)
    painter.drawRect(QRectF(bx, bottom - h, w, h))
    colour = style.COVER_COLOURS.get(cls, style.LABEL_TEXT)
    painter.setPen(QPen(style.LABEL_TEXT))
    painter.drawStaticText(QPointF(left + (fw - tw) / 2, bottom + pad * 0.5), st)
    draw_label(painter, left + fw / 2, bottom + pad * 0.5 + th + 2, cls, 11.5 * scale, anchor="top",
               bold=True, fg=QColor("#0b0d10"), bg=colour)


def _charge_drawing(t, plan) -> dict | None:
    """What to draw for the engine's ``ChargePlan`` to token ``t``."""
    if not getattr(plan, "possible", False):
        reason = getattr(plan, "reason", None) or "no charge"
        return {"qpath": QPainterPath(), "runup": None, "path": [(t.x, t.y)],
                "label_at": (t.x, t.y + t.radius), "text": f"no charge: {reason}"}
    pts = [tuple(map(float, p)) for p in plan.path]
    runup = None
    if plan.runup_start is not None and plan.contact is not None:
        runup = polyline_path([tuple(plan.runup_start), tuple(plan.contact)])
    end = pts[-1] if pts else (t.x, t.y)
    movement = plan.movement if plan.movement is not None else 0.0
    return {"qpath": polyline_path(pts), "runup": runup, "path": pts,
            "label_at": end, "text": f"charge {movement:.1f} m"}


# ---------------------------------------------------------------------------------------------
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
            for x, y, _ in sk.labels:
                rect = rect.united(QRectF(x - 0.01, y - 0.01, 0.02, 0.02))
        self._set_rect(rect, 160.0 * self.options.label_scale)
        self.update()

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        tr = painter.transform()
        for sk in (self._selection, self._tool):
            painter.setPen(NO_PEN)
            painter.setBrush(QBrush(_alpha(sk.colour, 70)))
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


def selection_sketch(encounter: Encounter, ids: Sequence[str], zone_drawings: dict, tactics=None) -> Sketch:
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
    for o in encounter.obstacles:
        if o.id in want:
            p = QPainterPath()
            add_ring(p, o.polygon)
            sk.lines.append(p)
            sk.handles.extend(o.polygon)
    for z in encounter.zones:
        if z.id in want:
            d = zone_drawings.get(z.id)
            if d is not None:
                sk.lines.append(d.full)
            sk.handles.extend(zone_handles(encounter, z))
    return sk


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
