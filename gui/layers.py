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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
    QStaticText,
)
from PySide6.QtWidgets import QGraphicsItem

from engine.model import Encounter
from geometry.cover import cover_percent
from gui import style
from gui.qtgeom import add_ring, geometry_path, polygon_f, polyline_path, rings_path
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
    if anchor == "top-left":
        left, top = x, y
    elif anchor == "top":
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


class _SpriteCache:
    """Small pixmaps drawn once and stamped many times (token discs, labels, badges): one
    ``drawPixmap`` per object instead of a path, pen and text layout each."""

    LIMIT = 4000

    def __init__(self):
        self._cache: dict[tuple, QPixmap] = {}

    def get(self, key: tuple, width: float, height: float, draw, dpr: float = 1.0) -> QPixmap:
        full = key + (dpr,)
        pm = self._cache.get(full)
        if pm is None:
            w, h = max(1, math.ceil(width * dpr)), max(1, math.ceil(height * dpr))
            pm = QPixmap(w, h)
            pm.fill(Qt.GlobalColor.transparent)
            pm.setDevicePixelRatio(dpr)
            q = QPainter(pm)
            q.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            q.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            draw(q)
            q.end()
            if len(self._cache) > self.LIMIT:
                self._cache.clear()
                _SIZES.clear()
            self._cache[full] = pm
            _SIZES[pm.cacheKey()] = (pm.width() / dpr, pm.height() / dpr)
        return pm


SPRITES = _SpriteCache()


def _dpr(painter: QPainter) -> float:
    dev = painter.device()
    try:
        return float(dev.devicePixelRatioF()) if dev is not None else 1.0
    except AttributeError:
        return 1.0


def label_sprite(text: str, px: float, *, bold: bool = False, fg: QColor = style.LABEL_TEXT,
                 bg: QColor | None = style.LABEL_PILL, dpr: float = 1.0) -> QPixmap:
    """A label (pill and text, as :func:`draw_label` draws it) as a cached pixmap."""
    st, w, h = TEXT.get(text, px, bold)
    pad_x, pad_y = 0.35 * h, 0.06 * h
    bw, bh = w + 2 * pad_x, h + 2 * pad_y
    key = ("label", text, px, bold, fg.rgba(), bg.rgba() if bg is not None else None)

    def draw(q: QPainter):
        draw_label(q, 0.0, 0.0, text, px, anchor="top-left", bold=bold, fg=fg, bg=bg)

    return SPRITES.get(key, bw + 1, bh + 1, draw, dpr)


_SIZES: dict[int, tuple[float, float]] = {}


def stamp(painter: QPainter, pm: QPixmap, x: float, y: float, anchor: str = "center") -> QRectF:
    """Draw a sprite with its ``anchor`` point (``center``, ``top``, ``bottom``) at (x, y)."""
    size = _SIZES.get(pm.cacheKey())
    if size is None:
        dpr = pm.devicePixelRatio() or 1.0
        size = (pm.width() / dpr, pm.height() / dpr)
    w, h = size
    if anchor == "top":
        left, top = x - w / 2, y
    elif anchor == "bottom":
        left, top = x - w / 2, y - h
    else:
        left, top = x - w / 2, y - h / 2
    painter.drawPixmap(int(left + 0.5), int(top + 0.5), pm)
    return QRectF(left, top, w, h)


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
DOOR_FILL = QColor("#7a4e24")  # closed doors: wood, apart from the grey walls
DOOR_EDGE = QColor("#f0c27a")  # their outline, dashed when open
WINDOW_FILL = QColor(150, 210, 255, 150)  # windows (Obstacle.kind "window"): pale glass
WINDOW_EDGE = QColor("#e8f6ff")


class ObstacleLayer(MapLayer):
    """Every obstacle in one cached path per height class (low, waist, full), plus hidden
    ones (GM view only, hatched), closed doors (wood-coloured, so the GM can tell them from
    walls), windows (pale glass, dotted edge) and open doors (dashed outline only)."""

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
        groups["hidden"], groups["open"], groups["door"], groups["window"] = [], [], [], []
        for o in self._obstacles:
            if not self.options.shows(o):
                continue
            if o.hidden:
                groups["hidden"].append(o.polygon)
            elif not o.blocks:
                groups["open"].append(o.polygon)
            elif o.door:
                groups["door"].append(o.polygon)
            elif o.kind == "window":
                groups["window"].append(o.polygon)
            else:
                groups[style.height_class(o.height)].append(o.polygon)
        self._paths = {name: rings_path(rings) for name, rings in groups.items() if rings}
        rect = QRectF()
        for path in self._paths.values():
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
        path = self._paths.get("door")
        if path is not None:
            painter.setPen(cosmetic(DOOR_EDGE, 1.4))
            painter.setBrush(QBrush(DOOR_FILL))
            painter.drawPath(path)
        path = self._paths.get("window")
        if path is not None:
            painter.setPen(cosmetic(WINDOW_EDGE, 1.4, Qt.PenStyle.DotLine))
            painter.setBrush(QBrush(WINDOW_FILL))
            painter.drawPath(path)
        path = self._paths.get("open")
        if path is not None:
            painter.setPen(cosmetic(DOOR_EDGE, 1.4, Qt.PenStyle.DashLine))
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
    labels: list[tuple[float, float, str, float]] = field(default_factory=list)  # x, y, text, angle (rad)


class ZoneLayer(MapLayer):
    """Zones as translucent fills of the engine's wall-clipped shapes, with a faint outline
    of the full shape (where walls stop the fire, only the outline remains)."""

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(-60)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._drawings: dict[str, _ZoneDrawing] = {}
        self.build_count = 0

    def set_zones(self, encounter: Encounter, tactics) -> None:
        """Rebuild the drawings of zones whose shape may have changed (their own value,
        their origin, or the obstacles), asking ``tactics`` for the shapes."""
        keep: dict[str, _ZoneDrawing] = {}
        rect = QRectF()
        changed = False
        for z in encounter.zones:
            if not self.options.shows(z) or not self.options.show_zones:
                continue
            try:
                origin = encounter.zone_origin(z)
            except ValueError:
                continue
            key = (z, origin, encounter.obstacles, tactics is not None)
            d = self._drawings.get(z.id)
            if d is None or d.key != key:
                d = self._build(z, origin, key, tactics)
                changed = True
                if d is None:
                    continue
            keep[z.id] = d
            rect = rect.united(d.full.boundingRect()).united(d.clipped.boundingRect())
        if changed or keep.keys() != self._drawings.keys() or list(keep) != list(self._drawings):
            self._drawings = keep
            self._set_rect(rect, 170.0 * self.options.label_scale)
            self.update()

    def rebuild(self) -> None:
        self._drawings = {}
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
            d.labels.append((fx, fy, f"{w:g} m wide at {z.length:g} m", a))
        elif z.kind in ("suppressive", "shotgun", "cone", "line") and not full.is_empty:
            a = math.radians(z.direction)
            ln = z.length or 0.0
            if ln:
                d.labels.append((origin[0] + ln * math.cos(a), origin[1] + ln * math.sin(a), f"{ln:g} m", a))
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
            for x, y, text, a in d.labels:
                p = tr.map(QPointF(x, y))
                # beyond the far end, clear of the aim handle: half the label out along the aim
                _, w, h = TEXT.get(text, px)
                c, sn = math.cos(a), math.sin(a) * (1 if tr.m22() > 0 else -1)
                reach = min((w / 2 + 0.4 * h) / max(abs(c), 1e-6), (h / 2 + 0.4 * h) / max(abs(sn), 1e-6)) + 12
                draw_label(painter, p.x() + reach * c, p.y() + reach * sn, text, px, anchor="center",
                           fg=QColor("#101418"), bg=_alpha(d.colour, 220))
        painter.restore()


# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TokenBar:
    """A thin bar under a token (a condition monitor ...): ``fraction`` (0 to 1) of it filled
    in ``colour`` (``"#rrggbb"``), divided into ``cells`` marks when > 0 (boxes)."""

    fraction: float
    colour: str
    cells: int = 0


@dataclass(frozen=True)
class TokenDecoration:
    """What a rule system adds to one token on the map (:meth:`TokenLayer.set_decorations`):
    thin ``bars`` under the name and short ``tags`` (``(text, "#rrggbb")``: "-2", "RUN" ...)
    below them. Any rule system may use it; the token layer draws them with the tokens, one
    cached sprite per distinct look."""

    bars: tuple[TokenBar, ...] = ()
    tags: tuple[tuple[str, str], ...] = ()


# ---------------------------------------------------------------------------------------------
def place_labels(blocks: Sequence[tuple[float, float, float, float, float]], gap: float = 2.0,
                 cell: float = 96.0, fixed: Sequence[tuple[float, float, float, float]] = ()) -> list[tuple[float, float]]:
    """Greedy overlap-free placement of label blocks, in pixels. Each block is
    ``(cx, cy, r, top, w, h)``: a token centre (cx, cy), its disc radius r, the block's
    default top ``top`` pixels below the centre (past the disc's rim) and its size
    ``w`` x ``h``, centred under the disc. Answers the (dx, dy) pixel offset of each block from its default place.

    Blocks are placed in order of y then x; the first keeps its place. A block that would
    overlap an already placed one (with ``gap`` pixels of air) tries, in turn: below the
    disc (the default), above it, each of those nudged sideways just clear of what it hit,
    and last stacked below what it hit. Placed blocks sit in a grid of ``cell`` pixel
    squares, so a block is only checked against its neighbours. ``fixed``: (left, top,
    right, bottom) pixel rects drawn by others (badges on a disc's rim) that blocks keep
    clear of as if placed first."""
    n = len(blocks)
    out = [(0.0, 0.0)] * n
    grid: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def put(rect: tuple[float, float, float, float]) -> None:
        for gx in range(int(math.floor(rect[0] / cell)), int(math.floor(rect[2] / cell)) + 1):
            for gy in range(int(math.floor(rect[1] / cell)), int(math.floor(rect[3] / cell)) + 1):
                grid.setdefault((gx, gy), []).append(rect)

    for rect in fixed:
        put(tuple(rect))

    def hits(l: float, t: float, r: float, b: float) -> list[tuple[float, float, float, float]]:
        found = []
        for gx in range(int(math.floor(l / cell)), int(math.floor(r / cell)) + 1):
            for gy in range(int(math.floor(t / cell)), int(math.floor(b / cell)) + 1):
                for q in grid.get((gx, gy), ()):
                    if q[0] < r + gap and l < q[2] + gap and q[1] < b + gap and t < q[3] + gap and q not in found:
                        found.append(q)
        return found

    order = sorted(range(n), key=lambda i: (blocks[i][1], blocks[i][0]))
    for i in order:
        cx, cy, top, w, h = blocks[i]
        l0, t0 = cx - w / 2, cy + top
        above = cy - top - h  # mirror of the default: same air between disc and block
        place = (l0, t0)
        hit = hits(l0, t0, l0 + w, t0 + h)
        if hit:
            place = None
            tries = [t0, above]
            for t in tries:
                if not hits(l0, t, l0 + w, t + h):
                    place = (l0, t)
                    break
            if place is None:
                for t in tries:
                    shifts = []
                    for q in hits(l0, t, l0 + w, t + h):
                        shifts += [q[2] + gap - l0, q[0] - gap - w - l0]
                    for dx in sorted(shifts, key=abs):
                        if not hits(l0 + dx, t, l0 + dx + w, t + h):
                            place = (l0 + dx, t)
                            break
                    if place is not None:
                        break
            if place is None:  # stack under whatever it hits (bounded: n blocks at most)
                t = t0
                for _ in range(n + 1):
                    hit = hits(l0, t, l0 + w, t + h)
                    if not hit:
                        break
                    t = max(q[3] for q in hit) + gap
                place = (l0, t)
        l, t = place
        put((l, t, l + w, t + h))
        out[i] = (l - l0, t - t0)
    return out


class TokenLayer(MapLayer):
    """All tokens in one item: discs by side colour, stance letter (C crouched, P prone;
    none standing), facing tick, name label, and rings in the colours of the zones a token
    is in. Hidden tokens are drawn faded with a dashed rim (GM) or not at all (players).

    Discs and labels are cached sprites stamped in device pixels; below
    ``LABEL_MIN_PX_PER_M`` names are left out, below ``DETAIL_MIN_PX`` disc radius the
    facing ticks too (they would be a pixel long).

    Rule systems add per-token bars and tags with :meth:`set_decorations` (drawn under the
    name label, in device pixels, following the token while it is dragged)."""

    LABEL_MIN_PX_PER_M = 4.0
    DETAIL_MIN_PX = 3.0

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(0)
        self._tokens: tuple = ()
        self._ids: list[str] = []
        self._index: dict[str, int] = {}
        self._xy = np.zeros((0, 2))
        self._r = np.zeros(0)
        self._facing = np.zeros(0)
        self._looks: list[tuple] = []  # (colour, hidden, mark, name)
        self._rings: dict[str, list[QColor]] = {}
        self._decorations: dict[str, TokenDecoration] = {}
        self.build_count = 0
        self._layout_gen = 0  # bumped when positions, looks or decorations change
        self._layout_key: tuple | None = None
        self._layout: list[tuple[float, float]] = []
        self._extras: dict[str, tuple[float, float]] = {}
        self._flip = False
        self._obstacles = None
        self.layout_count = 0

    @property
    def ids(self) -> list[str]:
        return self._ids

    @property
    def decorations(self) -> dict[str, TokenDecoration]:
        """The per-token decorations shown now (token id -> :class:`TokenDecoration`)."""
        return dict(self._decorations)

    def set_decorations(self, decorations: Mapping[str, TokenDecoration]) -> None:
        """Replace the per-token decorations (token id -> :class:`TokenDecoration`; ids of
        tokens not shown are ignored); repaints only when they differ."""
        decorations = {k: v for k, v in decorations.items() if v.bars or v.tags}
        if decorations != self._decorations:
            self._decorations = decorations
            self._layout_gen += 1
            self.update()

    def set_tokens(self, tokens: tuple, moved: frozenset[str] | None = None) -> None:
        """Show these tokens. ``moved``: ids whose position alone changed (then only their
        places are updated)."""
        if tokens is self._tokens:
            return
        old, self._tokens = self._tokens, tokens
        if moved is not None and len(old) == len(tokens):
            # only positions changed (same ids, same order, same looks): move those discs
            for t in tokens:
                if t.id in moved:
                    i = self._index.get(t.id)
                    if i is not None:
                        self._xy[i] = (t.x, t.y)
            self._layout_gen += 1
            self._refresh_rect()
            self.update()
            return
        self.rebuild()

    def _refresh_rect(self) -> None:
        if len(self._xy):
            r = self._r.max() * 1.6
            lo, hi = self._xy.min(axis=0) - r, self._xy.max(axis=0) + r
            rect = QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1])
        else:
            rect = QRectF()
        self._set_rect(rect, 110.0 * self.options.label_scale)

    def set_rings(self, rings: dict[str, list[QColor]]) -> None:
        if rings != self._rings:
            self._rings = rings
            self.update()

    def rebuild(self) -> None:
        self.build_count += 1
        shown = [t for t in self._tokens if self.options.shows(t)]
        self._ids = [t.id for t in shown]
        self._index = {tid: i for i, tid in enumerate(self._ids)}
        self._xy = np.array([(t.x, t.y) for t in shown], dtype=float).reshape(-1, 2)
        self._r = np.array([t.radius for t in shown], dtype=float)
        self._facing = np.radians(np.array([t.facing for t in shown], dtype=float))
        self._looks = [
            (style.side_colour(t.side), t.hidden, {"crouched": "C", "prone": "P"}.get(t.stance, ""), t.name or t.id)
            for t in shown
        ]
        self._layout_gen += 1
        self._refresh_rect()
        self.update()

    # -- label layout ---------------------------------------------------------------------------
    def set_label_extras(self, extras: Mapping[str, tuple[float, float]]) -> None:
        """Room another layer draws under a token's name label (token id -> (width, height)
        pixels; Static Veil's state tags ...): the label layout keeps it clear of other
        labels, and that layer draws it at :meth:`label_offset` so it moves with the label."""
        extras = {k: (float(w), float(h)) for k, (w, h) in extras.items() if w > 0 and h > 0}
        if extras != self._extras:
            self._extras = extras
            self._layout_gen += 1
            self.update()

    def set_label_obstacles(self, obstacles) -> None:
        """What another layer draws by the tokens that labels should keep clear of (Static
        Veil's AP badges ...): a function of pixels per metre answering (token id, left,
        top, right, bottom) rects in pixels relative to that token's centre (y down), or
        None. Call again whenever what it answers changes."""
        self._obstacles = obstacles
        self._layout_gen += 1
        self.update()

    def _label_offsets(self, px_per_m: float, flip: bool = False) -> list[tuple[float, float]]:
        """Per shown token (in ``ids`` order) the (dx, dy) pixel offset of its name label
        and what hangs under it (decorations, :meth:`set_label_extras`) from their default
        place centred under the disc, at ``px_per_m`` pixels per metre (``flip``: the view
        has y up). Recomputed only when the tokens, their decorations, the options or the
        zoom changed since the last call."""
        names = self.options.show_labels and px_per_m >= self.LABEL_MIN_PX_PER_M
        # (rounded: other layers ask at 1 / (1 / px_per_m), which may differ in the last bit)
        key = (self._layout_gen, round(px_per_m, 6), flip, names, self.options.label_px, self.options.label_scale)
        if key == self._layout_key:
            return self._layout
        self.layout_count += 1
        rpx = self._r * px_per_m
        rs = (np.round(rpx * 4) / 4).tolist()
        detail = rpx.max(initial=0.0) >= self.DETAIL_MIN_PX
        decs = self._decorations if detail else {}
        extras = self._extras if names else {}
        px, scale = self.options.label_px, self.options.label_scale
        xs, ys = (self._xy[:, 0] * px_per_m).tolist(), (self._xy[:, 1] * (-px_per_m if flip else px_per_m)).tolist()
        blocks, which = [], []
        for i, tid in enumerate(self._ids):
            w = h = 0.0
            top = rs[i] + 3
            if names:
                _, tw, th = TEXT.get(self._looks[i][3], px, True)
                w, h = math.ceil(tw + 0.7 * th + 1), math.ceil(1.12 * th + 1)
                ex = extras.get(tid)
                if ex is not None:
                    w, h = max(w, ex[0]), h + ex[1]
            dec = decs.get(tid)
            if dec is not None:
                dw, dh = _decoration_geometry(dec, rs[i], scale, px)[:2]
                dw, dh = math.ceil(dw), math.ceil(dh)
                if h:
                    w, h = max(w, dw), h + 2 + dh
                else:
                    w, h, top = dw, dh, top + 2
            if w:
                blocks.append((xs[i], ys[i], top, w, h))
                which.append(i)
        fixed = []
        if blocks and self._obstacles is not None:
            for tid, l, t, r, b in self._obstacles(px_per_m):
                i = self._index.get(tid)
                if i is not None:
                    fixed.append((xs[i] + l, ys[i] + t, xs[i] + r, ys[i] + b))
        out = [(0.0, 0.0)] * len(self._ids)
        for i, off in zip(which, place_labels(blocks, fixed=fixed)):
            out[i] = off
        self._layout_key, self._layout = key, out
        return out

    def label_rects(self, m_per_px: float | None = None) -> dict[str, QRectF]:
        """Where each shown token's name label is drawn at ``m_per_px`` metres per pixel
        (default: the view's zoom now), after the overlap layout: token id -> the label's
        rect in pixels, measured from the map origin (x east, y south). Tokens without a
        label at that zoom (names off, or zoomed out past ``LABEL_MIN_PX_PER_M``) are absent."""
        k = 1.0 / (m_per_px or self._m_per_px)
        if not (self.options.show_labels and k >= self.LABEL_MIN_PX_PER_M):
            return {}
        offs = self._label_offsets(k)
        rs = (np.round(self._r * k * 4) / 4).tolist()
        out = {}
        for i, tid in enumerate(self._ids):
            _, tw, th = TEXT.get(self._looks[i][3], self.options.label_px, True)
            w, h = math.ceil(tw + 0.7 * th + 1), math.ceil(1.12 * th + 1)
            dx, dy = offs[i]
            cx, top = self._xy[i, 0] * k + dx, self._xy[i, 1] * k + rs[i] + 3 + dy
            out[tid] = QRectF(cx - w / 2, top, w, h)
        return out

    def label_offset(self, token_id: str, px_per_m: float) -> tuple[float, float]:
        """The (dx, dy) pixels the label layout moved this token's name label (and what
        hangs under it) from its place centred under the disc, at ``px_per_m`` pixels per
        metre; (0, 0) for ids not shown."""
        i = self._index.get(token_id)
        return (0.0, 0.0) if i is None else self._label_offsets(px_per_m, self._flip)[i]

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        if not self._ids:
            return
        tr = painter.transform()
        m11, m22, dx, dy = tr.m11(), tr.m22(), tr.dx(), tr.dy()
        px_per_m = abs(m11) or 1.0
        dev = np.column_stack((self._xy[:, 0] * m11 + dx, self._xy[:, 1] * m22 + dy))
        rpx = self._r * px_per_m
        # cull what lies outside the painted area (with room for labels)
        clip = painter.clipBoundingRect() if painter.hasClipping() else QRectF()
        vis = np.ones(len(dev), dtype=bool)
        if not clip.isEmpty():
            c = tr.mapRect(clip)
            m = 150.0 * self.options.label_scale
            vis = ((dev[:, 0] > c.left() - m) & (dev[:, 0] < c.right() + m)
                   & (dev[:, 1] > c.top() - m) & (dev[:, 1] < c.bottom() + m))
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        dpr = _dpr(painter)
        # zone rings, outside the discs
        if self._rings and self.options.show_zone_rings:
            painter.setBrush(NO_BRUSH)
            for tid, colours in self._rings.items():
                i = self._index.get(tid)
                if i is None or not vis[i]:
                    continue
                for k, colour in enumerate(colours[:4]):
                    rr = rpx[i] + 3.0 + 4.0 * k
                    painter.setPen(cosmetic(colour, 3.0))
                    painter.drawEllipse(QPointF(dev[i, 0], dev[i, 1]), rr, rr)
        detail = rpx.max(initial=0.0) >= self.DETAIL_MIN_PX
        # facing ticks, as device-space lines
        if detail:
            cos, sin = np.cos(self._facing), np.sin(self._facing)
            lines = []
            for i in np.nonzero(vis & (rpx >= self.DETAIL_MIN_PX))[0].tolist():
                x, y, r = dev[i, 0], dev[i, 1], rpx[i]
                lines.append(QLineF(x + 0.45 * r * cos[i], y + 0.45 * r * sin[i] * np.sign(m22),
                                    x + 1.55 * r * cos[i], y + 1.55 * r * sin[i] * np.sign(m22)))
            painter.setPen(cosmetic(QColor("#0b0d10"), 4.0))
            painter.drawLines(lines)
        # discs (sprites)
        shown = np.nonzero(vis)[0].tolist()
        xs, ys, rs = dev[:, 0].tolist(), dev[:, 1].tolist(), (np.round(rpx * 4) / 4).tolist()
        scale = self.options.label_scale
        looks = self._looks
        for i in shown:
            colour, hidden, mark, _ = looks[i]
            stamp(painter, _disc_sprite(colour, hidden, mark, rs[i], scale, dpr), xs[i], ys[i])
        if detail:
            painter.setPen(cosmetic(QColor("#fbfcfd"), 2.0))
            painter.drawLines(lines)
        # names, where the label layout put them (centred under the disc unless they collide)
        below: dict[int, float] = {}
        names = self.options.show_labels and px_per_m >= self.LABEL_MIN_PX_PER_M
        self._flip = m22 < 0
        offs = self._label_offsets(px_per_m, self._flip) if names or (self._decorations and detail) else None
        if names:
            px = self.options.label_px
            dim = QColor("#c9cfd6")
            for i in shown:
                colour, hidden, mark, name = looks[i]
                pm = label_sprite(name, px, bold=True, fg=dim if hidden else style.LABEL_TEXT, dpr=dpr)
                ox, oy = offs[i]
                below[i] = stamp(painter, pm, xs[i] + ox, ys[i] + rs[i] + 3 + oy, "top").bottom()
        # rule systems' bars and tags, under the name (moved with it)
        if self._decorations and detail:
            for tid, dec in self._decorations.items():
                i = self._index.get(tid)
                if i is None or not vis[i]:
                    continue
                pm = _decoration_sprite(dec, rs[i], scale, self.options.label_px, dpr)
                ox, oy = offs[i]
                stamp(painter, pm, xs[i] + ox, below.get(i, ys[i] + rs[i] + 3 + oy) + 2, "top")
        painter.restore()

    def token_at(self, x: float, y: float, slack: float = 0.0) -> str | None:
        """The id of the token drawn under (x, y) metres (within ``slack`` metres of its rim);
        the nearest centre wins."""
        if not len(self._xy):
            return None
        d = np.hypot(self._xy[:, 0] - x, self._xy[:, 1] - y) - self._r
        i = int(np.argmin(d))
        return self._ids[i] if d[i] <= slack else None


def _decoration_geometry(dec: TokenDecoration, rp: float, scale: float, label_px: float):
    """Pixel geometry of a token's decoration sprite: (width, height, bar_w, bar_h, gap,
    tag_px, tags, tag_ws, row_w) -- shared by the sprite and the label layout."""
    bar_w = max(2 * rp, 40.0 * scale)
    bar_h, gap = max(3.0, round(5.0 * scale)), 2.0
    tag_px = max(9.0, 0.78 * label_px)
    tags = [(text, QColor(colour)) + TEXT.get(text, tag_px, True)[1:] for text, colour in dec.tags]
    tag_ws = [w + 0.7 * h for _, _, w, h in tags]
    tag_h = max((h * 1.12 for *_, h in tags), default=0.0)
    row_w = sum(tag_ws) + gap * max(0, len(tags) - 1)
    width = max(bar_w, row_w) + 2
    bars_h = len(dec.bars) * (bar_h + gap)
    height = bars_h + tag_h + 2
    return width, height, bar_w, bar_h, gap, tag_px, tags, tag_ws, row_w


def _decoration_sprite(dec: TokenDecoration, rp: float, scale: float, label_px: float, dpr: float) -> QPixmap:
    """A token's bars (as wide as the disc, at least 40 px) and its tags (a row of small
    pills) as one pixmap, top-centred on the point it is stamped at."""
    width, height, bar_w, bar_h, gap, tag_px, tags, tag_ws, row_w = _decoration_geometry(dec, rp, scale, label_px)

    def draw(q: QPainter):
        top = 1.0
        left = (width - bar_w) / 2
        for bar in dec.bars:
            frame = QRectF(left, top, bar_w, bar_h)
            q.setPen(cosmetic(QColor("#0b0d10"), 1.0))
            q.setBrush(QBrush(QColor(10, 12, 16, 215)))
            q.drawRect(frame)
            q.setPen(NO_PEN)
            q.setBrush(QBrush(QColor(bar.colour)))
            q.drawRect(QRectF(left, top, bar_w * max(0.0, min(1.0, bar.fraction)), bar_h))
            if 1 < bar.cells <= bar_w / 2.5:
                q.setPen(cosmetic(QColor(10, 12, 16, 150), 1.0))
                q.drawLines([QLineF(left + bar_w * k / bar.cells, top, left + bar_w * k / bar.cells, top + bar_h)
                             for k in range(1, bar.cells)])
            top += bar_h + gap
        x = (width - row_w) / 2
        for (text, colour, w, h), tw in zip(tags, tag_ws):
            draw_label(q, x, top, text, tag_px, anchor="top-left", bold=True, fg=QColor("#0b0d10"), bg=colour)
            x += tw + gap

    key = ("decoration", dec, round(rp * 4) / 4, round(scale, 2), round(tag_px, 1))
    return SPRITES.get(key, width, height, draw, dpr)


def _disc_sprite(colour: QColor, hidden: bool, mark: str, rp: float, scale: float, dpr: float) -> QPixmap:
    """A token disc of radius ``rp`` pixels (rounded to a quarter pixel): side colour, dark
    rim (dashed and faded when hidden), stance letter when there is room."""
    rq = max(0.75, rp)  # already rounded to a quarter pixel by the caller
    size = 2 * rq + 4
    show_mark = bool(mark) and rq >= 5

    def draw(q: QPainter):
        c = QPointF(size / 2, size / 2)
        if hidden:
            q.setPen(cosmetic(QColor("#e0e0e0"), 1.4, Qt.PenStyle.DashLine))
            q.setBrush(QBrush(_alpha(colour, 90)))
        else:
            q.setPen(cosmetic(QColor("#0b0d10"), 1.6) if rq >= 2 else NO_PEN)
            q.setBrush(QBrush(colour))
        q.drawEllipse(c, rq, rq)
        if show_mark:
            draw_label(q, c.x(), c.y(), mark, max(8.0, min(rq * 1.25, 13.0 * scale)), anchor="center",
                       bold=True, fg=QColor("#0b0d10"), bg=None)

    key = ("disc", colour.rgba(), hidden, mark if show_mark else "", rq, round(scale, 2))
    return SPRITES.get(key, size, size, draw, dpr)


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
            ranged = encounter.ruleset == "sr5"  # the others have no range bands: show metres
            if self.options.show_badges:
                for tid, rep in reports.items():
                    t = tokens.get(tid)
                    if t is None:
                        continue
                    self._badges.append((t.x, t.y, t.radius, badge_for(rep, ranged)))
            t = tokens.get(focus_id) if focus_id else None
            if t is not None and sight is not None and self.options.show_sight:
                self._sight = _sight_drawing(t, sight)
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
        clip = painter.clipBoundingRect() if painter.hasClipping() else QRectF()  # in metres, before the reset
        painter.save()
        painter.resetTransform()
        m11, m22, dx, dy = tr.m11(), tr.m22(), tr.dx(), tr.dy()
        bpx = self.options.badge_px
        dpr = _dpr(painter)
        if self._badges:
            arr = np.array([(x, y, r) for x, y, r, _ in self._badges], dtype=float)
            cxs = (arr[:, 0] * m11 + dx).tolist()
            cys = (arr[:, 1] * m22 + dy).tolist()
            tops = (arr[:, 1] * m22 + dy - arr[:, 2] * px_per_m - 3).tolist()
            c = tr.mapRect(clip) if not clip.isEmpty() else None
            full = px_per_m >= TokenLayer.LABEL_MIN_PX_PER_M
            for i, (_, _, _, b) in enumerate(self._badges):
                if c is not None and not (c.left() - 80 < cxs[i] < c.right() + 80 and c.top() - 40 < cys[i] < c.bottom() + 60):
                    continue
                if full:
                    stamp(painter, _badge_sprite(b, bpx, dpr), cxs[i], tops[i], "bottom")
                else:  # zoomed far out: only the cover colour, as a dot above the token
                    stamp(painter, _dot_sprite(b.colour, dpr), cxs[i], tops[i] - 1, "bottom")
        if self._charge is not None:
            c = self._charge
            lx, ly = c["label_at"]
            draw_label(painter, lx * m11 + dx, ly * m22 + dy + 14, c["text"], bpx * 1.1, anchor="top",
                       bold=True, fg=QColor("#0b0d10"), bg=_alpha(style.CHARGE_COLOUR, 235))
        if self._sight is not None and self._sight.get("profile") is not None:
            _draw_silhouette(painter, self._sight, m11, m22, dx, dy, px_per_m, self.options.label_scale)
        painter.restore()


_BADGES: dict[tuple, Badge] = {}


def badge_for(report, ranged: bool = True) -> Badge:
    """Badge text from the engine's ``TargetReport``: e.g. ``"M -1"`` (Shadowrun's range band
    and modifier) or, when not ``ranged``, the distance ``"16 m"``; and the cover class."""
    rng, cls = report.range, report.cover.cls
    if not ranged:
        text = f"{report.distance:.0f} m"
        key = ("m", text, cls)
    else:
        key = (None, None, cls) if rng is None else (rng.band, rng.modifier, cls)
    b = _BADGES.get(key)
    if b is None:
        if ranged and rng is None:
            text = "out"
        elif ranged:
            mod = int(rng.modifier)
            text = f"{style.BAND_SHORT.get(rng.band, rng.band[:1].upper())} {'+' if mod > 0 else ''}{mod}".replace("-", "\u2212")
        b = _BADGES[key] = Badge(text, cls, style.COVER_COLOURS.get(cls, style.OUT_OF_RANGE))
    return b


def _badge_sprite(b: Badge, px: float, dpr: float) -> QPixmap:
    """A badge (see :func:`_draw_badge`) as a cached pixmap; its bottom centre is the anchor."""
    _, w1, h = TEXT.get(b.text, px, True)
    _, w2, _ = TEXT.get(b.cover or "?", px, True)
    pad = 0.35 * h
    total = w1 + w2 + 4 * pad

    def draw(q: QPainter):
        _draw_badge(q, total / 2, h + 2, b, px)

    return SPRITES.get(("badge", b.text, b.cover, b.colour.rgba(), px), total + 1, h + 3, draw, dpr)


def _dot_sprite(colour: QColor, dpr: float) -> QPixmap:
    def draw(q: QPainter):
        q.setPen(cosmetic(QColor("#0b0d10"), 1.0))
        q.setBrush(QBrush(colour))
        q.drawEllipse(QPointF(3.5, 3.5), 2.6, 2.6)

    return SPRITES.get(("dot", colour.rgba()), 7, 7, draw, dpr)


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


def _sight_drawing(t, sight) -> dict:
    """What to draw for the engine's ``SightReport`` to token ``t``."""
    return {"a": tuple(sight.eye), "b": tuple(sight.target), "cls": sight.cls, "fraction": sight.fraction,
            "profile": (np.asarray(sight.u, dtype=float), np.asarray(sight.hidden, dtype=float)),
            "height": float(sight.target_height), "radius": float(t.radius), "target": (t.x, t.y), "side": t.side}


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
    text = f"{cover_percent(frac, cls)}% hidden" if frac is not None else "hidden"
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
        # the hidden part as one stepped outline: along the top of the columns, back along the ground
        xe = bx + (edges + radius) / (2 * radius) * w
        ytop = bottom - hh * k
        pts = np.empty((2 * len(uu) + 2, 2))
        pts[0:-2:2, 0], pts[1:-2:2, 0] = xe[:-1], xe[1:]
        pts[0:-2:2, 1] = pts[1:-2:2, 1] = ytop
        pts[-2] = (xe[-1], bottom)
        pts[-1] = (xe[0], bottom)
        painter.setBrush(QBrush(QColor("#2b3036")))
        painter.drawPolygon(polygon_f(pts))
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
