"""Every obstacle, by height class, doors, windows and hidden ones: in cached square tiles."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPixmap, QRegion, QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QGraphicsView, QWidget

from engine import clock
from gui import style
from gui.idle import IdleJob
from gui.qtgeom import rings_path
from gui.style import ViewOptions
from engine.diff import changed_items
from gui.layers.base import MapLayer
from gui.layers.paint import NO_BRUSH, NO_PEN, cosmetic


DOOR_FILL = QColor("#7a4e24")  # closed doors: wood, apart from the grey walls
DOOR_EDGE = QColor("#f0c27a")  # their outline, dashed when open
WINDOW_FILL = QColor(150, 210, 255, 150)  # windows (Obstacle.kind "window"): pale glass
WINDOW_EDGE = QColor("#e8f6ff")


#: Metres: obstacles are drawn in square tiles this wide, each with its own picture, so that an
#: edit repaints the tile it touches and a big map's first paint is spread over several turns
#: (56 m: ~150 tiles on a 671 m map, each painted by Python every frame it is exposed: 40 m
#: tiles cost a token drag step ~3 ms more at 10,000 obstacles; 80 m tiles a corner drag
#: step ~4 ms more, its tile drawn again each step).
TILE_M = 56.0
#: Obstacles whose tiles are built (and shown) per event-loop turn when a whole map arrives,
#: at most (a batch is the obstacles of whole tiles, in tile order, so that a tile is built
#: and first painted once; its first paint costs about as much as building it).
BUILD_BATCH = 400
#: Milliseconds of building per event-loop turn, at most (then the turn ends; the tiles
#: built are painted in the next).
BUILD_MS = 5.0
#: Pixels across a tile on screen past which it is drawn directly, without a picture.
MAX_TILE_PX = 2048
#: Obstacles whose tiles one paint of the view draws afresh after a zoom, about (~5 ms).
REDRAW_OBSTACLES = 500
#: Device pixels of tile pictures one paint draws afresh after a zoom, about: zoomed in, a
#: tile's cost is its pixels' (six 1,100 px tiles of 55 obstacles each, well within the
#: obstacles' budget, took a wheel step 40 ms on the 2,000-obstacle scene at load 20).
REDRAW_PIXELS = 1_500_000
#: Bytes of tile pictures kept, about, past which those out of view are dropped.
PICTURE_BYTES = 192 * 1024 * 1024
#: Pixels of margin around a tile's picture (its outlines' pen reaches past the paths).
_PAD = 2
#: An update changing more obstacles than this share rebuilds every tile.
REBUILD_SHARE = 0.25


def _paints_screen(painter: QPainter) -> bool:
    """Whether ``painter`` (on a widget) paints into the widget's window's back buffer: a
    ``QWidget.grab`` or ``render`` paints the widget too (``painter.device()`` is the widget)
    but into a picture of its own."""
    device = painter.device()
    store = device.backingStore() if isinstance(device, QWidget) else None
    engine = painter.paintEngine()
    if store is None or engine is None:
        return False
    target, back = engine.paintDevice(), store.paintDevice()
    if target is None or back is None:
        return False
    key = getattr(target, "cacheKey", None)
    if key is not None and hasattr(back, "cacheKey"):
        return key() == back.cacheKey()
    return target is back


def _group(o) -> str:
    if o.hidden:
        return "hidden"
    if not o.blocks:
        return "open"
    if o.door:
        return "door"
    if o.kind == "window":
        return "window"
    return style.height_class(o.height)


class _Budget:
    """How many obstacles the tiles may draw afresh in one paint of the view (the view starts
    each paint with :meth:`ObstacleLayer.new_paint`)."""

    def __init__(self) -> None:
        self.spent = 0
        self.pixels = 0

    def allow(self, n: int, pixels: int = 0) -> bool:
        """Whether a tile of ``n`` obstacles and a picture of ``pixels`` device pixels may be
        drawn afresh in this paint (the first always may)."""
        if self.spent and (self.spent + n > REDRAW_OBSTACLES or self.pixels + pixels > REDRAW_PIXELS):
            return False
        self.spent += n
        self.pixels += pixels
        return True


class _Tile(QGraphicsRectItem):
    """The obstacles of one tile, one path per group, drawn from its own picture.

    A rect item (with no pen) so that Qt asks its C++ ``boundingRect``: the scene has no
    index, and every repaint asks each of a big map's ~150 tiles for its bounds 3 times
    (a Python override cost ~2 ms a drag step).

    The picture is the tile drawn at the view's zoom, in device pixels. After a zoom a tile
    draws its old picture scaled (at once) and a fresh one within the paint's budget
    (:data:`REDRAW_OBSTACLES`, those left over in the next turns: the layer asks again), so
    a wheel step over 10,000 obstacles no longer draws them all in one turn (~110 ms with
    Qt's device cache). Anything but the view's own widget (a snapshot's page) and a
    tile wider than :data:`MAX_TILE_PX` on screen get the paths drawn directly.

    What the screen shows of the tile is kept apart from what its picture is: ``_shown`` is
    the key and place of the picture the screen shows over the whole tile, None when it may show
    anything else (its old picture scaled, a new one in only part of it). Only a paint on
    the screen (not a grab, which draws into a picture of its own) changes it, and a tile
    whose screen is not its current picture stays in the layer's tiles to redraw until a
    paint of the screen draws that picture over all of it in view (:meth:`ObstacleLayer.later`)."""

    def __init__(self, parent: "ObstacleLayer"):
        super().__init__(parent)
        self.layer = parent
        self.setPen(NO_PEN)
        self.items: dict[str, object] = {}  # obstacle id -> Obstacle
        self.paths: dict[str, QPainterPath] = {}
        self._rect = QRectF()
        self._pic: QPixmap | None = None
        self._pic_key: tuple | None = None  # (x scale, y scale, x phase, y phase) it was drawn at
        self.drawn = 0  # pictures drawn afresh (for tests and benches)
        self.blits = 0  # paints from the picture of the current zoom
        self._shown: tuple | None = None  # (key, device x, y) of the picture the screen shows over all of the tile

    def rebuild(self, options: ViewOptions) -> None:
        groups: dict[str, list] = {}
        for o in self.items.values():
            if options.shows(o):
                groups.setdefault(_group(o), []).append(o.polygon)
        self.paths = {name: rings_path(rings) for name, rings in groups.items()}
        rect = QRectF()
        for path in self.paths.values():
            rect = rect.united(path.boundingRect())
        if rect != self._rect:
            if not self._rect.isEmpty():
                self.layer.moved_off(self, self._rect)
            self._rect = rect
            self.setRect(rect)  # (prepares the geometry change)
        self.forget_picture()
        self.layer.unpictured(self)
        self.update()
        # (and to redraw until a paint of the screen shows it: Qt may drop an item's update,
        # the corner tile of the 2,000-obstacle map, built last while the players' view opened,
        # was never painted there, the oracle's seed 2401: 124 pixels by the legend's top edge)
        self.layer.later(self)

    def paint(self, painter: QPainter, *args) -> None:
        device = painter.device()
        t = painter.worldTransform()
        if not isinstance(device, QWidget):
            self._draw(painter)  # (a snapshot's page, an export)
            return
        if t.m12() or t.m21() or t.m11() <= 0 or t.m22() <= 0 or self._rect.isEmpty():
            self._draw(painter)
            self._drawn_directly(painter, t, None)
            return
        dpr = device.devicePixelRatioF()
        sx, sy = t.m11() * dpr, t.m22() * dpr
        corner = t.map(self._rect.topLeft())
        cx, cy = corner.x() * dpr, corner.y() * dpr
        if max(self._rect.width() * sx, self._rect.height() * sy) > MAX_TILE_PX:
            self._draw(painter)  # (zoomed far in: few tiles in view, each drawn as it shows)
            self._drawn_directly(painter, t, ("paths", round(sx, 9), round(sy, 9), math.floor(cx), math.floor(cy)))
            return
        key = (round(sx, 9), round(sy, 9), round((cx - math.floor(cx)) * 8), round((cy - math.floor(cy)) * 8))
        pixels = int((self._rect.width() * sx + 2 * _PAD + 1) * (self._rect.height() * sy + 2 * _PAD + 1))
        if self._pic_key != key and (self._pic is None or self.layer.budget.allow(len(self.items), pixels)):
            self._picture(sx, sy, cx - math.floor(cx), cy - math.floor(cy), dpr)
            self._pic_key = key
        pic = self._pic
        painter.save()
        if self._pic_key == key:
            self.blits += 1
            painter.resetTransform()
            painter.drawPixmap(QPointF((math.floor(cx) - _PAD) / dpr, (math.floor(cy) - _PAD) / dpr), pic)
        else:  # the picture of another zoom, scaled into place until the new one is drawn
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
            w, h = pic.width() - 2 * _PAD, pic.height() - 2 * _PAD
            kx, ky = self._rect.width() / max(w - 1, 1), self._rect.height() / max(h - 1, 1)
            painter.drawPixmap(self._rect.adjusted(-_PAD * kx, -_PAD * ky, _PAD * kx, _PAD * ky), pic,
                               QRectF(0, 0, pic.width(), pic.height()))
        painter.restore()
        if not self.layer.on_screen(painter):
            return  # (a grab: the screen shows what it showed)
        at = key + (math.floor(cx), math.floor(cy))
        if self._pic_key != key:
            self._shown = None
            self.layer.later(self)  # (drawn afresh in a later turn)
        elif self._shown == at or self.layer.exposes(t.mapRect(self._rect).adjusted(-1, -1, 1, 1)):
            self._shown = at
            self.layer.settled(self)
        else:
            # the current picture in a paint of only part of the tile (a name or a badge
            # repainted over it): the rest of it may show the old picture scaled, a blurred
            # row of tiles in the players' view (the oracle's seed 701): painted whole again
            self._shown = None
            self.layer.later(self)

    def _drawn_directly(self, painter: QPainter, t: QTransform, at: tuple | None) -> None:
        """The paths were drawn, no picture (``at``: the scale and place, None: nothing of the
        tile to keep apart, rotated or empty): on the screen the tile settles as in
        :meth:`paint`."""
        if not self.layer.on_screen(painter):
            return
        if at is None or self._shown == at or self.layer.exposes(t.mapRect(self._rect).adjusted(-1, -1, 1, 1)):
            self._shown = at
            self.layer.settled(self)
        else:
            self._shown = None
            self.layer.later(self)

    def _picture(self, sx: float, sy: float, fx: float, fy: float, dpr: float) -> None:
        """Draw the tile into a picture of device pixels at scale (sx, sy) device pixels a
        metre, its corner at the sub-pixel phase (fx, fy), for a screen of ``dpr`` device
        pixels a logical one (the picture says so: it is drawn at its logical size, and its
        outlines are as wide as on the screen)."""
        w = math.ceil(self._rect.width() * sx + fx) + 2 * _PAD
        h = math.ceil(self._rect.height() * sy + fy) + 2 * _PAD
        pic = QPixmap(max(1, w), max(1, h))
        pic.setDevicePixelRatio(dpr)
        pic.fill(Qt.GlobalColor.transparent)
        p = QPainter(pic)
        p.setTransform(QTransform(sx / dpr, 0.0, 0.0, sy / dpr, (_PAD + fx - self._rect.left() * sx) / dpr,
                                  (_PAD + fy - self._rect.top() * sy) / dpr))
        self._draw(p)
        p.end()
        self._pic = pic
        self.drawn += 1
        self.layer.pictured(self, pic.width() * pic.height() * 4)

    def forget_picture(self) -> None:
        """Drop the picture (it is drawn again when the tile next shows; the screen shows an
        old one until then)."""
        self._pic = self._pic_key = self._shown = None

    def _draw(self, painter: QPainter) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for cls in style.HEIGHT_CLASSES:
            path = self.paths.get(cls)
            if path is None:
                continue
            painter.setPen(cosmetic(style.HEIGHT_EDGE[cls], 1.4))
            painter.setBrush(QBrush(style.HEIGHT_FILL[cls]))
            painter.drawPath(path)
        for name, pen, brush in (("door", cosmetic(DOOR_EDGE, 1.4), QBrush(DOOR_FILL)),
                                 ("window", cosmetic(WINDOW_EDGE, 1.4, Qt.PenStyle.DotLine), QBrush(WINDOW_FILL)),
                                 ("open", cosmetic(DOOR_EDGE, 1.4, Qt.PenStyle.DashLine), NO_BRUSH),
                                 ("hidden", cosmetic(QColor(200, 200, 200, 150), 1.2, Qt.PenStyle.DashLine),
                                  QBrush(QColor(200, 200, 200, 90), Qt.BrushStyle.BDiagPattern))):
            path = self.paths.get(name)
            if path is not None:
                painter.setPen(pen)
                painter.setBrush(brush)
                painter.drawPath(path)


class ObstacleLayer(MapLayer):
    """Every obstacle, by height class (low, waist, full), plus hidden ones (GM view only,
    hatched), closed doors (wood-coloured, so the GM can tell them from walls), windows
    (pale glass, dotted edge) and open doors (dashed outline only).

    Drawn in square tiles (:data:`TILE_M`), each its own item with its own picture: an edit (a door, a
    dragged corner, a wall) rebuilds and repaints only the tiles of the obstacles it changed
    (found by identity: an edited encounter keeps every other obstacle value), and a whole
    new map is built :data:`BUILD_BATCH` obstacles per event-loop turn, so that neither ever
    holds the GUI thread for long (a single path of 10,000 antialiased polygons took 2 s to
    paint)."""

    def __init__(self, options: ViewOptions):
        super().__init__(options)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
        self.setZValue(-50)
        self._obstacles: tuple = ()
        self._tiles: dict[tuple[int, int], _Tile] = {}
        self._where: dict[str, tuple[int, int]] = {}  # obstacle id -> its tile
        self._pending: list = []  # obstacles of a new map not in their tiles yet
        self._unsorted = False  # whether _pending still waits to be put in tile order
        self._batch = IdleJob(self._build_batch, repeat=True)
        self._stale: dict = {}  # tiles in view whose screen is not their current picture (-> None)
        self._gone: dict = {}  # tiles that shrank, moved or emptied -> where they drew before (metres)
        self._pictures: dict = {}  # tile -> bytes of its picture
        self.budget = _Budget()
        self._redraw = IdleJob(self._redraw_stale)
        self._region = QRegion()  # what the paint of the view under way exposes (viewport pixels)
        self._screen: bool | None = None  # whether that paint is of the screen (None: not known yet)
        self._whole: bool | None = None  # whether it covers the whole viewport (None: not known yet)
        self._viewport = None  # (the viewport's rect in that paint)
        self._paints = 0  # paints of the view begun (for the redraw job: whether they answer)
        self._paints_seen = 0  # ... when the redraw job last ran
        self._unanswered = 0  # the redraw job's turns in a row with no paint of the view since the last
        self.build_count = 0

    @property
    def _paths(self) -> dict[str, int]:
        """The groups drawn (name -> tiles holding some), e.g. "door", "open", "full"."""
        self._finish()
        out: dict[str, int] = {}
        for tile in self._tiles.values():
            for name in tile.paths:
                out[name] = out.get(name, 0) + 1
        return out

    @property
    def pending(self) -> bool:
        """Whether some obstacles of a new map are not drawn yet (a few turns after it came)."""
        return bool(self._pending)

    def set_obstacles(self, obstacles: tuple) -> None:
        if obstacles is self._obstacles:
            return
        old, self._obstacles = self._obstacles, obstacles
        if len(old) == len(obstacles) and not self._pending:
            gone, came = changed_items(old, obstacles)
            if len(gone) <= REBUILD_SHARE * max(len(obstacles), 1):
                self._edit(gone, came)
                return
        if not old:  # the first map: nothing to keep
            self.rebuild()
            return
        limit = int(REBUILD_SHARE * max(len(obstacles), 1))
        found = changed_items(old, obstacles, limit)  # (by identity: a wall drawn, undone)
        if found is not None:
            gone, came = found
            if gone and came:  # (by value among those: an equal value is no change)
                before, after = {o.id: o for o in gone}, {o.id: o for o in came}
                gone, came = [o for o in gone if after.get(o.id) != o], [o for o in came if before.get(o.id) != o]
        else:
            before = {o.id: o for o in old}
            after = {o.id: o for o in obstacles}
            # (by identity, else by value: an encounter validated again has new, equal values)
            gone = [o for i, o in before.items() if (a := after.get(i)) is not o and a != o]
            came = [o for i, o in after.items() if (b := before.get(i)) is not o and b != o]
            if len(after) != len(obstacles):
                gone = came = obstacles  # (ids used twice: draw them all again)
        if len(gone) + len(came) > limit:
            self.rebuild()
        elif self._pending:
            # a new map still being built, batch by batch: edit the tiles already built and
            # keep building the rest (restarting would never finish while a corner is dragged)
            placed = self._where
            before = {o.id: o for o in old}
            after = {o.id: o for o in obstacles}
            self._edit([o for o in gone if o.id in placed],
                       [o for o in came if o.id in placed or o.id not in before])
            self._pending = [after[o.id] for o in self._pending if o.id in after and o.id not in placed]
            if not self._pending:
                self._batch.stop()
        else:
            self._edit(gone, came)

    def pictured(self, tile: _Tile, size: int) -> None:
        """``tile`` made a picture of ``size`` bytes. Past :data:`PICTURE_BYTES` in all, the
        pictures of tiles out of view are dropped (zoomed far in and panned across a big map,
        every tile's picture at 2,048 px would be 16 MB)."""
        self._pictures[tile] = size
        total = sum(self._pictures.values())
        if total <= PICTURE_BYTES:
            return
        seen = self._in_view()
        for other in list(self._pictures):
            if other is tile or any(other.rect().intersects(r) for r in seen):
                continue
            other.forget_picture()
            total -= self._pictures.pop(other)
            if total <= PICTURE_BYTES:
                break

    def unpictured(self, tile: _Tile) -> None:
        self._pictures.pop(tile, None)

    @property
    def picture_bytes(self) -> int:
        """Bytes of the tiles' pictures kept now."""
        return sum(self._pictures.values())

    def new_paint(self, region: QRegion | None = None) -> None:
        """A paint of the view begins (``region``: what it exposes, viewport pixels): the
        tiles' budget for fresh pictures starts again."""
        self.budget.spent = self.budget.pixels = 0
        self._region = QRegion(region) if region is not None else QRegion()
        self._screen = None
        self._whole = None  # (whether that paint covers the whole viewport: not known yet)
        self._paints += 1
        if self._stale and not self._redraw.isActive():
            self._redraw.start()  # (the job waited for a paint: the asks are answered again)

    def on_screen(self, painter: QPainter) -> bool:
        """Whether ``painter`` paints the view's widget on the screen (its window's back
        buffer), not into a picture of its own (``QWidget.grab``, ``render``: those paint the
        widget too, redirected, and the screen keeps what it showed)."""
        if self._screen is None:
            self._screen = _paints_screen(painter)
        return self._screen

    def exposes(self, rect: QRectF) -> bool:
        """Whether the paint under way covers all of ``rect`` (viewport pixels) in view."""
        if self._whole is None:
            scene = self.scene()
            views = scene.views() if scene is not None else []
            self._viewport = views[0].viewport().rect() if views else None
            self._whole = self._viewport is not None and self._region.contains(self._viewport) \
                and QRegion(self._viewport).subtracted(self._region).isEmpty()
        if self._whole:
            return True  # (a paint of the whole viewport: one rect, most paints after a zoom)
        if self._viewport is None:
            return False
        r = rect.toAlignedRect().intersected(self._viewport)
        return r.isEmpty() or QRegion(r).subtracted(self._region).isEmpty()

    def later(self, tile: _Tile) -> None:
        """``tile``'s screen is not its current picture (its old one scaled, or the new one
        in only part of it): it is asked to paint again in the next turns until a paint of
        the screen draws its current picture over all of it."""
        self._stale[tile] = None
        if not self._redraw.isActive():
            self._redraw.start()

    def settled(self, tile: _Tile) -> None:
        """``tile``'s screen shows its current picture over all of it."""
        self._stale.pop(tile, None)

    def moved_off(self, tile: _Tile, rect: QRectF) -> None:
        """``tile`` drew in ``rect`` (metres) before it shrank, moved or emptied: the viewport's
        pixels there are painted again in the next turn, with whatever is there now (Qt's
        repaint of an item's old bounds is its own bookkeeping too)."""
        old = self._gone.get(tile)
        self._gone[tile] = rect if old is None else old.united(rect)
        if not self._redraw.isActive():
            self._redraw.start()

    def _redraw_stale(self) -> None:
        # A tile leaves the set only when a paint of the screen draws its current picture over
        # all of it (:meth:`settled`), or when it is in no shown view (nothing of it is on the
        # screen; a paint that shows it again puts it back). While the asks get no paint (a
        # hidden or held view: the players' view while the GM drags, asked nothing) the job
        # waits for the next paint of the view instead of asking every turn; the tiles stay.
        seen = self._in_view()
        if self._paints != self._paints_seen:
            self._paints_seen, self._unanswered = self._paints, 0
        else:
            self._unanswered += 1
        scene = self.scene()
        asking = [(v, self.deviceTransform(v.viewportTransform()), QRegion())
                  for v in (scene.views() if scene is not None else ())
                  if v.isVisible() and v.viewportUpdateMode() != QGraphicsView.ViewportUpdateMode.NoViewportUpdate]
        gone, self._gone = self._gone, {}
        for tile, rect in gone.items():
            if tile.parentItem() is not self:
                continue
            for i, (v, t, region) in enumerate(asking):
                left = QRegion(t.mapRect(rect).adjusted(-2, -2, 2, 2).toAlignedRect())
                if not tile.rect().isEmpty():  # (what it covers now is its own paint's, asked below)
                    left = left.subtracted(QRegion(t.mapRect(tile.rect()).adjusted(-2, -2, 2, 2).toAlignedRect()))
                asking[i] = (v, t, region.united(left))
        for tile in list(self._stale):
            if tile.parentItem() is not self or not any(tile.rect().intersects(r) for r in seen):
                self._stale.pop(tile, None)
                tile._shown = None
                continue
            for i, (v, t, region) in enumerate(asking):
                # (the viewport's own update of the very pixels a paint must expose for the
                # tile to settle, padded: an item's update is Qt's rounding of its bounds)
                asking[i] = (v, t, region.united(t.mapRect(tile.rect()).adjusted(-2, -2, 2, 2).toAlignedRect()))
        for v, _, region in asking:
            if not region.isEmpty():
                v.viewport().update(region)
        if self._stale and self._unanswered < 3:
            self._redraw.start()

    def _in_view(self) -> list[QRectF]:
        """The parts of the map the shown views of the layer's scene show, in metres."""
        scene = self.scene()
        out = []
        for v in scene.views() if scene is not None else ():
            if v.isVisible():
                # (the scene's coordinates are the view's pixels; the layer's, the map's metres)
                out.append(self.mapFromScene(v.mapToScene(v.viewport().rect())).boundingRect())
        return out

    @property
    def redrawing(self) -> bool:
        """Whether some tiles in view do not show their current picture on the screen yet."""
        return bool(self._stale or self._gone)

    def _new_tile(self, key: tuple[int, int]) -> _Tile:
        """A tile for ``key``, stacked by its place on the map (row, then column), not by
        when it was made: obstacles that overlap across tiles are drawn in the same order
        whatever the history (a tile made by an edit went on top of older ones; the same
        map opened afresh stacked them in file order)."""
        tile = _Tile(self)
        tile.setZValue(key[1] * 65536.0 + key[0])
        return tile

    def _tile_of(self, o) -> tuple[int, int]:
        x, y = o.polygon[0]
        return (int(x // TILE_M), int(y // TILE_M))

    def _edit(self, gone, came) -> None:
        self.build_count += 1
        touched = set()
        for o in gone:
            key = self._where.pop(o.id, None)
            if key is not None and key in self._tiles:
                self._tiles[key].items.pop(o.id, None)
                touched.add(key)
        for o in came:
            key = self._tile_of(o)
            tile = self._tiles.get(key)
            if tile is None:
                tile = self._tiles[key] = self._new_tile(key)
            tile.items[o.id] = o
            self._where[o.id] = key
            touched.add(key)
        for key in touched:
            self._tiles[key].rebuild(self.options)
        self._update_rect()

    def rebuild(self) -> None:
        """Draw every obstacle again (a new map, other view options): tile by tile, a batch
        per event-loop turn."""
        self.build_count += 1
        scene = self.scene()
        for tile in self._tiles.values():
            tile.setParentItem(None)
            if scene is not None:
                scene.removeItem(tile)
        self._tiles, self._where = {}, {}
        self._pictures, self._stale, self._gone = {}, {}, {}
        self._pending = list(self._obstacles)
        if len(self._pending) <= BUILD_BATCH:
            self._finish()
        else:
            self._unsorted = True  # (put in tile order by the first batch, not in this turn)
            self._batch.start()

    def _build_batch(self, everything: bool = False) -> None:
        if self._unsorted:
            self._unsorted = False
            self._pending.sort(key=self._tile_of)  # (stable: file order within a tile)
        if everything:
            take, self._pending = self._pending, []
        else:
            # whole tiles (the pending obstacles are in tile order), up to BUILD_BATCH
            # obstacles or BUILD_MS of work
            n = min(BUILD_BATCH, len(self._pending))
            while 0 < n < len(self._pending) and self._tile_of(self._pending[n]) == self._tile_of(self._pending[n - 1]):
                n -= 1
            if n == 0:
                n = min(BUILD_BATCH, len(self._pending))
            take, self._pending = self._pending[:n], self._pending[n:]
        start = clock.now()
        groups: dict[tuple[int, int], list] = {}
        for o in take:
            groups.setdefault(self._tile_of(o), []).append(o)
        for i, (key, obs) in enumerate(groups.items()):
            if not everything and i and (clock.now() - start) * 1e3 > BUILD_MS:
                rest = [o for k, g in list(groups.items())[i:] for o in g]
                self._pending = rest + self._pending  # (the next turn goes on from here)
                break
            tile = self._tiles.get(key)
            if tile is None:
                tile = self._tiles[key] = self._new_tile(key)
            for o in obs:
                tile.items[o.id] = o
                self._where[o.id] = key
            tile.rebuild(self.options)
        if not self._pending:
            self._batch.stop()
        self._update_rect()

    def _finish(self) -> None:
        if self._pending:
            self._build_batch(everything=True)

    def _update_rect(self) -> None:
        rect = QRectF()
        for tile in self._tiles.values():
            rect = rect.united(tile.boundingRect())
        self._set_rect(rect)

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1  # (the tiles draw; this item has no contents of its own)
