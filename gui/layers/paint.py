"""Drawing helpers every layer shares: cosmetic pens, text and sprite caches (labels,
discs and badges drawn once, stamped many times), labels on pills."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QGuiApplication, QPainter, QPen, QPixmap, QStaticText

from gui import style


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


def with_alpha(c: QColor, a: int) -> QColor:
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


#: Widest or tallest pixmap a sprite gets, in device pixels (a 4K screen is 3,840 wide):
#: 4096 x 4096 x 4 bytes is 64 MiB. Past it a sprite is drawn at a lower resolution.
MAX_SPRITE_SIDE = 4096


def sprite_ratio(width: float, height: float, dpr: float) -> float:
    """The device pixel ratio a sprite of ``width`` x ``height`` logical pixels is drawn
    at: ``dpr``, or less when that would make a pixmap side longer than
    :data:`MAX_SPRITE_SIDE`."""
    side = max(width, height) * dpr
    return dpr if side <= MAX_SPRITE_SIDE else dpr * MAX_SPRITE_SIDE / side


class _SpriteCache:
    """Small pixmaps drawn once and stamped many times (token discs, labels, badges): one
    ``drawPixmap`` per object instead of a path, pen and text layout each. Each keeps the
    function that drew it, so :func:`stamp` can replay it as shapes and text on a vector
    device (SVG, PDF)."""

    #: Most sprites kept, and most bytes of their pixels: past either the oldest go (a sprite
    #: may be :data:`MAX_SPRITE_SIDE` px square, 64 MiB; 160 tiny and huge maps exported in one
    #: process kept 132 MiB of sprites when only their count was bounded). The bytes count
    #: the picture a sprite's drawing function holds too (a token's portrait, up to 4 MiB:
    #: once however many sprites share it), which its small pixmap does not say: a new
    #: portrait a case, the fuzz campaign's picture worker grew by 385 MB in 3,600 cases.
    LIMIT = 4000
    LIMIT_BYTES = 128 * 1024 * 1024

    def __init__(self):
        self._cache: dict[tuple, QPixmap] = {}
        self.nbytes = 0
        self._holds: dict[tuple, int] = {}  # sprite key -> the cacheKey of the picture its drawing holds
        self._held: dict[int, list[int]] = {}  # picture cacheKey -> [its bytes, sprites holding it]

    def get(self, key: tuple, width: float, height: float, draw, dpr: float = 1.0, holds=None) -> QPixmap:
        """The sprite ``key``: ``width`` x ``height`` logical pixels drawn by ``draw`` at
        ``dpr`` device pixels a logical one; ``holds``: the ``QImage`` that ``draw`` keeps
        alive (counted toward the bound while a sprite holds it). A sprite wider or taller than
        :data:`MAX_SPRITE_SIDE` device pixels (a token disc zoomed far in, or on a map a few
        centimetres wide) is drawn at a lower resolution, so that its pixmap stays within the
        bound: it keeps its logical size (and place), it is only blurrier."""
        full = key + (dpr,)
        pm = self._cache.get(full)
        if pm is None:
            width = width if math.isfinite(width) and width > 0 else 1.0
            height = height if math.isfinite(height) and height > 0 else 1.0
            ratio = sprite_ratio(width, height, dpr)
            w, h = max(1, math.ceil(width * ratio)), max(1, math.ceil(height * ratio))
            pm = QPixmap(w, h)
            pm.fill(Qt.GlobalColor.transparent)
            pm.setDevicePixelRatio(ratio)
            q = QPainter(pm)
            q.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            q.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            draw(q)
            q.end()
            size = _pixmap_bytes(pm)
            held = None if holds is None else holds.cacheKey()

            def more() -> int:  # (the picture held counts when no sprite kept holds it yet)
                return size + (0 if held is None or held in self._held else int(holds.sizeInBytes()))

            while self._cache and (len(self._cache) >= self.LIMIT or self.nbytes + more() > self.LIMIT_BYTES):
                self._drop(next(iter(self._cache)))  # (the oldest first)
            self.nbytes += more()
            self._cache[full] = pm
            if held is not None:
                self._holds[full] = held
                self._held.setdefault(held, [int(holds.sizeInBytes()), 0])[1] += 1
            _SIZES[pm.cacheKey()] = (width, height) if ratio != dpr else (pm.width() / dpr, pm.height() / dpr)
            _DRAWS[pm.cacheKey()] = draw
        return pm

    def _drop(self, key: tuple) -> None:
        pm = self._cache.pop(key)
        self.nbytes -= _pixmap_bytes(pm)
        held = self._holds.pop(key, None)
        if held is not None:
            entry = self._held[held]
            entry[1] -= 1
            if not entry[1]:
                del self._held[held]
                self.nbytes -= entry[0]
        _SIZES.pop(pm.cacheKey(), None)
        _DRAWS.pop(pm.cacheKey(), None)

    def clear(self) -> None:
        for key in list(self._cache):
            self._drop(key)


def _pixmap_bytes(pm: QPixmap) -> int:
    return pm.width() * pm.height() * max(1, pm.depth() // 8)


SPRITES = _SpriteCache()


def device_ratio(painter: QPainter) -> float:
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
_DRAWS: dict[int, object] = {}  # sprite cacheKey -> the function that drew it

#: Paint engines that keep shapes and text (an exported SVG or PDF, a QPicture): sprites
#: are drawn on them, not stamped as bitmaps.
_VECTOR_ENGINES = None


def is_vector(painter: QPainter) -> bool:
    """True when ``painter`` writes shapes and text (SVG, PDF, QPicture), not pixels."""
    global _VECTOR_ENGINES
    if _VECTOR_ENGINES is None:
        from PySide6.QtGui import QPaintEngine

        t = QPaintEngine.Type
        _VECTOR_ENGINES = frozenset({t.SVG, t.Pdf, t.Picture})
    engine = painter.paintEngine()
    return engine is not None and engine.type() in _VECTOR_ENGINES


def stamp(painter: QPainter, pm: QPixmap, x: float, y: float, anchor: str = "center") -> QRectF:
    """Draw a sprite with its ``anchor`` point (``center``, ``top``, ``bottom``) at (x, y):
    the cached pixmap, or on a vector device (:func:`is_vector`) its drawing itself."""
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
    draw = _DRAWS.get(pm.cacheKey())
    at = QPointF(math.floor(left + 0.5), math.floor(top + 0.5))  # (whole pixels, past Qt's 32-bit ints too)
    if draw is not None and is_vector(painter):
        painter.save()
        painter.translate(at)
        draw(painter)
        painter.restore()
    else:
        painter.drawPixmap(at, pm)
    return QRectF(left, top, w, h)


_FRAGMENTS = None  # pyqtgraph's array of QPainter.PixmapFragment (numpy-backed), made on first use


def stamp_many(painter: QPainter, pm: QPixmap, xs, ys, anchor: str = "center") -> None:
    """:func:`stamp` the same sprite at many points (``xs``, ``ys``: device pixels) in one
    ``drawPixmapFragments`` call, at the same whole pixels :func:`stamp` uses (a 500-token
    map stamped 500 discs one Python call each on every drag step)."""
    global _FRAGMENTS
    n = len(xs)
    if n == 0:
        return
    if n < 4 or is_vector(painter):
        for x, y in zip(xs, ys):
            stamp(painter, pm, float(x), float(y), anchor)
        return
    import numpy as np

    from gui.layers.fragments import Fragments

    size = _SIZES.get(pm.cacheKey())
    dpr = pm.devicePixelRatio() or 1.0
    if size is None:
        size = (pm.width() / dpr, pm.height() / dpr)
    w, h = size
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    left = np.floor(xs - w / 2 + 0.5)
    top = ys - (0.0 if anchor == "top" else (h if anchor == "bottom" else h / 2))
    top = np.floor(top + 0.5)
    if _FRAGMENTS is None:
        _FRAGMENTS = Fragments()
    _FRAGMENTS.resize(n)
    f = _FRAGMENTS.ndarray()
    f[:, 0] = left + w / 2  # (a fragment is placed by its centre)
    f[:, 1] = top + h / 2
    f[:, 2:6] = (0.0, 0.0, pm.width(), pm.height())  # the whole sprite, in its own pixels
    f[:, 6:10] = (1.0 / dpr, 1.0 / dpr, 0.0, 1.0)  # scale, rotation, opacity
    painter.drawPixmapFragments(*_FRAGMENTS.drawargs(), pm)


def ensure_pixmap_cache(layers: int = 4) -> int:
    """Make Qt's pixmap cache (where the map's static layers keep their device-pixel
    caches: the ground and every obstacle tile) big enough for two full-screen views (the
    GM's and a player view): ``layers`` cached layers x 4 bytes a pixel x 2 views x the
    largest screen's pixels. With Qt's default 10 MB, a 1080p player view and the GM's view
    evict each other's caches and every drag step repaints 2,000 obstacles (measured: 1.2 s
    a step instead of 50 ms); the GM's view alone on a 10,000-obstacle map (289 tiles and
    the ground) overflowed it too and repainted every tile on every step (0.3 s). Called by
    every map view. Returns the limit in KB."""
    from PySide6.QtGui import QPixmapCache

    biggest = 0
    for sc in QGuiApplication.screens():
        g, r = sc.geometry(), sc.devicePixelRatio()
        biggest = max(biggest, int(g.width() * r) * int(g.height() * r))
    need_kb = max(64 * 1024, layers * 4 * 2 * biggest // 1024)
    if QPixmapCache.cacheLimit() < need_kb:
        QPixmapCache.setCacheLimit(need_kb)
    return QPixmapCache.cacheLimit()
