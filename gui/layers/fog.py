"""The fog of the party's sight: one layer, two looks.

* In the **player view** (``ViewOptions.player``): what the party never saw is dark, what it
  saw before but does not see now is dimmed (the background art stays visible there), and
  what it sees now is clear.
* In the **GM's window**: the same regions as a light tint (so the GM still sees every
  token and obstacle under it) and the outline of what the party sees now.

The regions are the engine's (:class:`engine.vision.PartyView`: ``sight`` and ``explored``,
Shapely geometries in metres); here they are only cut against the map's rectangle
(:func:`fog_regions`) and turned into cached ``QPainterPath`` values, rebuilt when the view
changes (a drag step: only when the moved token's sight did). :func:`paint_fog` paints the
same fog for an encounter onto any ``QPainter`` already in map metres (snapshots, exports:
vector paths, no bitmap).
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from PySide6.QtCore import QRectF
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QPaintEngine, QPainterPath, QTransform

from gui.layers.base import MapLayer
from gui.layers.paint import NO_BRUSH, NO_PEN, cosmetic
from gui.qtgeom import geometry_path
from gui.style import ViewOptions

#: Unexplored in the player view: nothing shows through.
FOG_DARK = QColor(6, 8, 11, 255)
#: Explored but out of sight in the player view: the map art dimmed, no tokens of other sides.
FOG_DIM = QColor(6, 8, 11, 135)
#: The GM's tint: unexplored, explored out of sight, and the outline of what is in sight.
GM_DARK = QColor(20, 40, 90, 120)
GM_DIM = QColor(20, 40, 90, 55)
GM_SIGHT_EDGE = QColor(140, 220, 255, 210)


def map_area(encounter) -> shapely.Geometry:
    """The area fog covers (metres): the map's rectangle and the background image's."""
    m = encounter.map
    area = shapely.box(0.0, 0.0, float(m.width), float(m.height))
    bg = m.background
    if bg is not None:
        area = shapely.union(area, shapely.box(bg.x, bg.y, bg.x + bg.width, bg.y + bg.height))
    return area


def fog_regions(area: shapely.Geometry, view) -> tuple[shapely.Geometry, shapely.Geometry]:
    """``(dark, dim)``: the parts of ``area`` the party never saw (neither explored nor in
    sight now) and the explored parts out of sight now, for a :class:`PartyView` (None: all
    of ``area`` is dark)."""
    if view is None:
        return area, shapely.Polygon()
    sight = view.sight if view.sight is not None else shapely.Polygon()
    explored = view.explored if view.explored is not None else shapely.Polygon()
    known = shapely.union(explored, sight) if not explored.is_empty else sight  # (explored has sight: cheap)
    dark = shapely.difference(area, known) if not known.is_empty else area
    dim = shapely.difference(shapely.intersection(explored, area), sight) if not explored.is_empty \
        else shapely.Polygon()
    return dark, dim


def paint_fog_paths(painter: QPainter, dark: QPainterPath, dim: QPainterPath, sight: QPainterPath | None,
                    player: bool) -> None:
    """Fill the fog's paths (metres) with the player's or the GM's look."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(NO_PEN)
    painter.setBrush(QBrush(FOG_DARK if player else GM_DARK))
    painter.drawPath(dark)
    painter.setBrush(QBrush(FOG_DIM if player else GM_DIM))
    painter.drawPath(dim)
    if not player and sight is not None:
        painter.setBrush(NO_BRUSH)
        painter.setPen(cosmetic(GM_SIGHT_EDGE, 1.6))
        painter.drawPath(sight)


def paint_fog(painter: QPainter, encounter, view=None, *, player: bool = True) -> bool:
    """Paint the fog of ``encounter`` (its party's view, or ``view``: an
    :class:`engine.vision.PartyView`) onto ``painter``, whose transform maps map metres to
    its device (as a map view's painter does). Vector paths only, so an SVG or PDF keeps
    them as shapes. Does nothing (False) when the encounter's fog is off."""
    if not encounter.sight.fog:
        return False
    if view is None:
        from engine.vision import party_view

        view = party_view(encounter)
    dark, dim = fog_regions(map_area(encounter), view)
    painter.save()
    paint_fog_paths(painter, geometry_path(dark), geometry_path(dim), geometry_path(view.sight), player)
    painter.restore()
    return True


#: The fog's image has this share of the device's pixels each way (1: the device's own;
#: below 1 it is drawn scaled up, smoothly: a softer edge, fewer pixels to fill).
RESOLUTION = 1.0
#: Paint engines that keep shapes (exports): the fog is cut with Shapely and drawn as paths.
VECTOR_ENGINES = (QPaintEngine.Type.SVG, QPaintEngine.Type.Pdf, QPaintEngine.Type.Picture)


_PATHS: list[tuple] = []  # [(geometry, its path)], newest last
_PATHS_KEPT = 6


def path_of(geom) -> QPainterPath:
    """``geometry_path(geom)``, built once for the very same geometry object: the GM's fog
    and the player view's show one view (and its explored area is often its sight), so a
    drag step builds one path, not four. Kept for the last few geometries (held, so their
    ids cannot be reused while kept)."""
    for g, path in _PATHS:
        if g is geom:
            return path
    path = geometry_path(geom)
    _PATHS.append((geom, path))
    del _PATHS[:-_PATHS_KEPT]
    return path


def dim_geometry(view) -> shapely.Geometry:
    """What the on-screen fog fills dim before it clears what is in sight: the view's
    remembered (saved) explored areas alone when it has them, else its ``explored``
    (then ``sight`` itself, or the area it was given). ``explored`` is the remembered areas
    and ``sight`` together, and whatever is in sight is cleared after the dim fill, so
    filling the remembered areas alone draws the same fog without the Shapely union
    (:attr:`engine.vision.PartyView.explored`: several ms on the GUI thread at every drop
    on a big map), and their path stays the same object, built once, through a drag."""
    return view.remembered if view.remembered is not None else view.explored


#: Device pixels around a changed part of the fog that are painted again with it (the GM's
#: outline is 2 px wide; the fog image is drawn without antialiasing).
DIRTY_MARGIN_PX = 4.0


def changed_rect(before, after) -> QRectF | None:
    """The rectangle (metres) outside which the fog of the party's view ``after`` looks as
    that of ``before``, or None when that is not known (repaint all): the views'
    ``sight`` is the union of their ``parts``, and ``explored`` is ``sight`` with the same
    ``remembered`` areas, so the fog changed only within the parts that differ (the moved
    token's area before and after a drag step)."""
    if before is None or after is None or before.remembered is not after.remembered:
        return None
    old, new = dict(getattr(before, "parts", ())), dict(getattr(after, "parts", ()))
    if not old or not new:
        return None
    gone = [g for k, g in old.items() if new.get(k) is not g]
    came = [g for k, g in new.items() if old.get(k) is not g]
    if not gone and not came:
        return None if before.sight is not after.sight else QRectF()
    b = shapely.bounds(gone + came)
    if not np.isfinite(b).all():  # (an empty area among them: no bounds)
        b = b[np.isfinite(b).all(axis=1)]
        if not len(b):
            return QRectF()
    x0, y0 = float(b[:, 0].min()), float(b[:, 1].min())
    x1, y1 = float(b[:, 2].max()), float(b[:, 3].max())
    return QRectF(x0, y0, x1 - x0, y1 - y0)


class FogLayer(MapLayer):
    """The fog over the map (see the module docstring); ``set_view(encounter, view)`` with
    the engine's :class:`PartyView` (None: no fog drawn). ``shown`` says whether it draws.

    On screen the fog is a device-sized image made with three fills and no boolean
    geometry (the map's rectangle dark, the remembered explored areas over it dim, what is
    in sight cleared: :func:`dim_geometry`), kept while neither the view nor the zoom changes: a drag step costs three
    fills without antialiasing (measured 1.2 ms CPU at 1920 x 1080 with the 1,200-point
    sight of 5 tokens on the 200-token / 2,000-obstacle scene; 6 ms with antialiasing).
    Into an SVG, PDF or QPicture it paints the Shapely-cut regions as vector paths."""

    Z = -45  # over the ground, zones and obstacles; under range rings, tokens and badges

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setZValue(self.Z)
        self.enabled = True
        self.view = None
        self.encounter = None
        self._area = QPainterPath()
        self._explored = QPainterPath()
        self._sight = QPainterPath()
        self._key: tuple | None = None
        self._version = 0
        self._image: QImage | None = None
        self._image_key: tuple | None = None
        self.build_count = 0
        self.render_count = 0
        self.partial_renders = 0
        #: where the fog changed since its image was made (metres; None: everywhere)
        self._partial: QRectF | None = None

    @property
    def shown(self) -> bool:
        return self.enabled and self.view is not None

    def set_view(self, encounter, view) -> None:
        """Draw the fog of ``view`` (the party's, for ``encounter``); None clears it."""
        self._last = (encounter, view)
        if view is None or not self.enabled:
            if self.view is not None:
                self.view, self._key = None, None
                self._set_rect(QRectF())
                self.update()
            return
        m = encounter.map
        key = (view.sight, dim_geometry(view), m.width, m.height, m.background)
        if self._key is not None and key[0] is self._key[0] and key[1] is self._key[1] and key[2:] == self._key[2:]:
            self.view, self.encounter = view, encounter
            return
        old = self._key
        before = self.view
        self._key = key
        self.view, self.encounter = view, encounter
        self.build_count += 1
        if old is None or key[2:] != old[2:]:
            area = map_area(encounter)
            self._area = geometry_path(area)
            x0, y0, x1, y1 = area.bounds
            self._set_rect(QRectF(x0, y0, x1 - x0, y1 - y0), 4.0)
        if old is None or key[1] is not old[1]:
            self._explored = path_of(key[1])
        if old is None or key[0] is not old[0]:
            self._sight = path_of(view.sight)
        self._version += 1
        dirty = None if old is None or key[2:] != old[2:] else changed_rect(before, view)
        if dirty is None:
            self._partial = None
            self.update()
        else:  # (only where the fog changed: a drag step repaints what the moved token's sight touched)
            m = DIRTY_MARGIN_PX * self._m_per_px
            dirty = dirty.adjusted(-m, -m, m, m)
            if self._partial is not None:
                self._partial = dirty if self._partial.isEmpty() else self._partial.united(dirty)
            self.update(dirty)

    def rebuild(self) -> None:
        self._key = None
        last = getattr(self, "_last", None)
        if last is not None:
            self.set_view(*last)
        self.update()

    def _render(self, painter: QPainter) -> QImage | None:
        """The fog as an image covering the painter's device at :data:`RESOLUTION` of its
        pixels (drawn scaled up, smoothly: the fog's edge is soft)."""
        dev = painter.device()
        w, h = dev.width(), dev.height()
        if w <= 0 or h <= 0:
            return None
        dpr = dev.devicePixelRatioF() if hasattr(dev, "devicePixelRatioF") else 1.0
        tr = painter.transform()
        key = (self._version, w, h, dpr, tr.m11(), tr.m12(), tr.m21(), tr.m22(), tr.dx(), tr.dy(),
               self.options.player)
        if key == self._image_key and self._image is not None:
            return self._image
        k = RESOLUTION * dpr
        size = (max(1, int(math.ceil(w * k))), max(1, int(math.ceil(h * k))))
        img = self._image
        to_image = tr * QTransform.fromScale(k, k)
        partial = (img is not None and self._image_key is not None and key[1:] == self._image_key[1:]
                   and self._partial is not None and (img.width(), img.height()) == size)
        if img is None or (img.width(), img.height()) != size:
            img = QImage(size[0], size[1], QImage.Format.Format_ARGB32_Premultiplied)
        p = QPainter(img)
        outline = self._sight
        if partial:  # (only where the fog changed since the image was made: the rest is the same)
            clip = to_image.mapRect(self._partial).toAlignedRect().adjusted(-2, -2, 2, 2)
            if not self.options.player:
                outline = self._outline_within(to_image, clip)
            p.setClipRect(clip)
            p.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
            p.fillRect(clip, QColor(0, 0, 0, 0))
            p.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
            self.partial_renders += 1
        else:
            img.fill(0)
        self._partial = QRectF()
        p.setTransform(to_image)
        player = self.options.player
        p.fillPath(self._area, FOG_DARK if player else GM_DARK)
        p.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
        p.fillPath(self._explored, FOG_DIM if player else GM_DIM)
        p.setCompositionMode(QPainter.CompositionMode.CompositionMode_Clear)
        p.fillPath(self._sight, QColor(0, 0, 0, 0))
        if not player:  # the GM's outline of what is in sight, sharp (in the image: stroked once a view)
            p.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
            p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            p.setBrush(NO_BRUSH)
            p.setPen(cosmetic(GM_SIGHT_EDGE, 2.0 * k))
            p.drawPath(outline)
        p.end()
        self._image, self._image_key = img, key
        self.render_count += 1
        return img

    def _outline_within(self, to_image: QTransform, clip) -> QPainterPath:
        """The outline of what is in sight, only its pieces near the image rectangle ``clip``
        (pixels; cut 8 pixels outside it, clear of the 2-pixel pen): the same pixels inside
        ``clip`` as the whole outline's, for a fraction of the stroking (a wide pen's stroke
        costs by the length of the path, whatever the clip: 5 ms for the 1,700 points of 5
        tokens' sight on the 200 x 2,000 scene at 1920 x 1080)."""
        inv, ok = to_image.inverted()
        sight = getattr(self.view, "sight", None)
        if not ok or sight is None:
            return self._sight
        r = inv.mapRect(QRectF(clip.adjusted(-8, -8, 8, 8)))
        return geometry_path(shapely.clip_by_rect(sight.boundary, r.left(), r.top(), r.right(), r.bottom()))

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        if self.view is None:
            return
        engine = painter.paintEngine()
        if engine is not None and engine.type() in VECTOR_ENGINES:
            dark, dim = fog_regions(map_area(self.encounter), self.view)
            paint_fog_paths(painter, geometry_path(dark), geometry_path(dim),
                            None if self.options.player else self._sight, self.options.player)
            return
        img = self._render(painter)
        if img is None:
            return
        dev = painter.device()
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, RESOLUTION != 1.0)
        painter.drawImage(QRectF(0, 0, img.width() / (RESOLUTION * self._dpr(dev)),
                                 img.height() / (RESOLUTION * self._dpr(dev))), img)
        painter.restore()

    @staticmethod
    def _dpr(dev) -> float:
        return dev.devicePixelRatioF() if hasattr(dev, "devicePixelRatioF") else 1.0


__all__ = ["FOG_DARK", "FOG_DIM", "FogLayer", "GM_DARK", "GM_DIM", "dim_geometry", "fog_regions", "map_area",
           "paint_fog"]
