"""The map view: a pyqtgraph ViewBox in metres (aspect locked, y down) holding the layers,
turning mouse input into tool calls, with a scale bar, legend and title drawn over it.

Several views can show one document (the GM's map, a player view, an offscreen export):
each gets its own :class:`gui.style.ViewOptions` and builds its own layers, while the
document, selection and :class:`gui.answers.LiveAnswers` are shared.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QImage, QMouseEvent, QPainter, QPen, QRegion
from PySide6.QtWidgets import QWidget

from engine.diff import changed_items
from engine.model import Encounter
from engine.names import name_of, token_name, zone_name
from engine.obstacles import WALL_HEIGHT
from geometry.cover import cover_percent
from gui import style
from gui.answers import LiveAnswers
from gui.document import DocumentChange, EncounterDocument
from gui.edits import diff
from gui.idle import IdleJob
from gui.layers import (
    NO_BRUSH,
    NO_PEN,
    AnswerLayer,
    GroundLayer,
    ObstacleLayer,
    OverlayLayer,
    Sketch,
    TokenLayer,
    ZoneLabelLayer,
    ZoneLayer,
    with_alpha,
    cosmetic,
    draw_label,
    selection_sketch,
)
from gui.layers.answer_layer import uses_range_bands
from gui.layers.paint import ensure_pixmap_cache
from gui.selection import Selection
from gui.style import GM_VIEW, ViewOptions
from gui.tools import Picker, Pointer, SelectTool, Tool

pg.setConfigOptions(antialias=True)


RIGHT_CLICK_PX = 4  # a right press that moves less than this (Manhattan pixels) is a click


# from this many obstacles, a new map's zones are drawn in the turn after the map's
ZONES_LATER_FROM = 2000


class MapViewBox(pg.ViewBox):
    """A ViewBox in map metres: aspect locked, y growing downwards, no context menu; the
    wheel zooms (pyqtgraph's own), panning is done by :class:`MapView`."""

    def __init__(self):
        super().__init__(lockAspect=True, invertY=True, enableMenu=False)
        self.setBackgroundColor(None)

    def mouseDragEvent(self, ev, axis=None):  # panning is the view's job
        ev.ignore()

    def mouseClickEvent(self, ev):
        ev.ignore()


def load_background_image(encounter: Encounter, doc_path: Path | None) -> tuple[QImage | None, str | None]:
    """The background image of an encounter, from a ``data:`` URI or a path relative to the
    encounter file (or absolute), and why it cannot be shown: ``(image, None)``; ``(None,
    reason)``, the reason naming the file looked for; ``(None, None)`` without a background."""
    bg = encounter.map.background
    if bg is None:
        return None, None
    return load_image_ref(bg.image, doc_path, "Background image", "the map is drawn without it")


def load_image_ref(src: str, doc_path: Path | None, what: str, fallback: str) -> tuple[QImage | None, str | None]:
    """An image named in an encounter (a ``data:`` URI, or a path relative to the encounter
    file or absolute), read within the bounds of :mod:`gui.pictures`: ``(image, None)``,
    ``(None, reason)`` naming ``what`` and the file and ending with ``fallback`` (what is
    drawn instead), or ``(image, note)``: an SVG drawn without what it referred to outside it.
    This blocks (the caller's thread decodes it); the window asks :mod:`gui.picture_loader`."""
    from gui.picture_loader import PictureSource, decode_source

    source = PictureSource(src, doc_path)
    pic = decode_source(source)
    if pic.image is None:
        return None, f"{what} {source.where()} {pic.why}; {fallback}"
    return pic.image, (f"{what} {source.where()} {pic.why}" if pic.why else None)


def _qround(v: float) -> int:
    """Qt's qRound: to the nearest integer, halves away from zero (as ``QRectF.toRect``)."""
    return int(v + 0.5) if v >= 0 else int(v - 0.5)


def _drawn(layer, dev: QRectF, region: QRegion, viewport: QRect) -> bool | None:
    """Whether Qt draws ``layer`` (its bounds at ``dev`` in device pixels) in a paint of
    ``region``: True, False, or None where that is within a few pixels of the edge (Qt
    draws an item whose bounds, rounded and padded a pixel or two, meet the region and the
    viewport)."""
    if not layer.isVisible() or layer.effectiveOpacity() < 0.001:
        return False
    m = 3.0
    outer = dev.adjusted(-m, -m, m, m).toAlignedRect()
    if not region.intersects(outer) or not QRectF(viewport).intersects(QRectF(outer)):
        return False
    inner = dev.adjusted(m, m, -m, -m)
    if inner.isEmpty():
        return None
    inner = inner.toRect()
    if region.intersects(inner) and viewport.intersects(inner):
        return True
    return None


class MapView(pg.GraphicsView):
    """A view of one document. Signals: ``hoverChanged(str|None)`` (the token under the
    mouse), ``statusMessage(str)`` (for the status bar), ``cursorMoved(float, float)``
    (map metres)."""

    hoverChanged = Signal(object)
    statusMessage = Signal(str)
    cursorMoved = Signal(float, float)
    #: a right click without a drag at map point (x, y) metres; the global screen point
    contextRequested = Signal(float, float, QPoint)
    #: files dropped on the map (local paths) at map point (x, y) metres
    filesDropped = Signal(list, object)

    def __init__(self, document: EncounterDocument, selection: Selection, answers: LiveAnswers,
                 options: ViewOptions = GM_VIEW, *, interactive: bool = True, parent: QWidget | None = None):
        super().__init__(parent, background=style.MAP_BACKDROP)
        self.document = document
        self.selection = selection
        self.answers = answers
        self.options = options
        self.interactive = interactive
        # tool host settings
        self.snapping = False
        self.new_token_side = "neutral"
        self.new_obstacle_height = 1.0  # polygons and rectangles: low cover (a crate)
        self.new_wall_height = WALL_HEIGHT  # the Wall tool: full height
        self.wall_thickness = 0.3
        self.tool: Tool = SelectTool(self)
        self._left_down = False
        self._in_tool = False  # (a document change while True is the tool's own)
        self._pan_from: QPointF | None = None
        self._right_from: QPointF | None = None  # where a right press began (a click opens the menu)
        self._hover: str | None = None
        self._picker: Picker | None = None
        self._picker_for: Encounter | None = None
        self._bg_key = None
        self.background_problem: str | None = None  # why the background image is not shown
        self._bg_waiting = None  # (the loader's key of the background being decoded)
        self._bg_rect: QRectF | None = None
        self._bg_source = None
        self._portrait_keys: dict = {}
        self._portrait_answers: dict = {}
        self._portraits_waiting: set = set()
        self._portraits_told = None
        self.portrait_problems: list[str] = []
        from gui.picture_loader import loader

        loader().loaded.connect(self._picture_landed)

        ensure_pixmap_cache()  # (Qt's 10 MB default cannot hold a big map's cached tiles)
        # a handful of items whose bounds change on every drag step: no BSP index to update
        self.scene().setItemIndexMethod(self.scene().ItemIndexMethod.NoIndex)
        self.vb = MapViewBox()
        self.setCentralItem(self.vb)
        self.vb.disableAutoRange()
        self.ground = GroundLayer(options)
        self.zones = ZoneLayer(options)
        # a big map just opened draws its zones (cut by the walls) in the next turn
        self._zones_later = IdleJob(self._set_zones_now)
        self._picker_later = IdleJob(self._build_picker)  # a big map's picker, made after the open
        self.obstacles = ObstacleLayer(options)
        self.tokens = TokenLayer(options)
        self.answer_layer = AnswerLayer(options)
        self.answer_layer.token_layer = self.tokens
        self.overlay = OverlayLayer(options)
        self.zone_labels = ZoneLabelLayer(options, self.zones)  # (above the obstacles)
        self.layers = [self.ground, self.zones, self.obstacles, self.zone_labels, self.tokens, self.answer_layer,
                       self.overlay]
        for layer in self.layers:
            self.vb.addItem(layer, ignoreBounds=True)
        self.vb.sigTransformChanged.connect(self._on_transform)
        self.vb.sigRangeChangedManually.connect(lambda *_: setattr(self, "auto_fit", False))  # the wheel
        self.auto_fit = True
        self.setMouseTracking(True)
        self.viewport().setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)  # ours opens on release
        self.setAcceptDrops(interactive)
        self.viewport().setAcceptDrops(interactive)
        self.setAttribute(Qt.WidgetAttribute.WA_Hover, True)

        document.changed.connect(self._on_document)
        selection.changed.connect(self._on_selection)
        answers.updated.connect(self._on_answers)
        answers.focusUpdated.connect(self._on_answers)
        self._on_document(DocumentChange(diff=diff(None, document.encounter), reset=True))
        self._on_answers()
        self.fit_map()

    # -- options -------------------------------------------------------------------------------
    def set_options(self, options: ViewOptions) -> None:
        """Draw with other options (e.g. a player view's larger labels)."""
        self.options = options
        for layer in self.layers:
            layer.options = options
        enc = self.document.encounter
        self.obstacles.rebuild()
        self.tokens.rebuild()
        self.zones.rebuild()
        self.zones.set_zones(enc, self.document.tactics)
        self._follow_zone_labels()
        self.ground.rebuild()
        self._on_answers()
        self._refresh_selection()
        self.viewport().update()

    # -- ToolHost --------------------------------------------------------------------------------
    def picker(self) -> Picker:
        enc = self.document.encounter
        if self._picker is None or self._picker_for is not enc:
            self._picker = Picker(enc, self.document.tactics, self.options.shows, previous=self._picker)
            self._picker_for = enc
        return self._picker

    def set_sketch(self, sketch: Sketch | None) -> None:
        self.overlay.set_tool_sketch(sketch)

    def status(self, text: str) -> None:
        self.statusMessage.emit(text)

    def grid(self) -> float:
        return self.document.encounter.map.grid

    def set_tool(self, tool: Tool) -> None:
        self.tool.cancel()
        self.tool = tool
        self.set_sketch(None)
        cursor = Qt.CursorShape.ArrowCursor if isinstance(tool, SelectTool) else Qt.CursorShape.CrossCursor
        self.viewport().setCursor(cursor)
        if tool.tip:
            self.status(tool.tip)

    # -- geometry helpers ---------------------------------------------------------------------
    def m_per_px(self) -> float:
        """Metres spanned by one device pixel at the current zoom."""
        px = self.vb.viewPixelSize()
        return float(px[0]) if px and px[0] > 0 else 0.05

    def map_to_viewport(self, x: float, y: float) -> QPoint:
        """The viewport pixel showing map point (x, y) metres."""
        scene = self.vb.mapViewToScene(QPointF(x, y))
        return self.mapFromScene(scene)

    def viewport_to_map(self, pos: QPointF | QPoint) -> tuple[float, float]:
        """The map point (metres) under a viewport pixel."""
        scene = self.mapToScene(QPoint(int(round(pos.x())), int(round(pos.y()))))
        p = self.vb.mapSceneToView(scene)
        return (p.x(), p.y())

    def fit_map(self) -> None:
        """Show the whole map (and background image), leaving room for the legend and the
        scale bar below it so they do not cover it. Until the GM zooms or pans, the view
        fits again whenever it is resized."""
        self.auto_fit = True
        m = self.document.encounter.map
        rect = QRectF(0, 0, m.width, m.height)
        if self.ground.has_image and m.background is not None:
            bg = m.background
            rect = rect.united(QRectF(bg.x, bg.y, bg.width, bg.height))
        vw, vh = self.viewport().width(), self.viewport().height()
        if vw < 50 or vh < 50:
            self.vb.setRange(rect, padding=0.03)
            return
        margin = right = 16.0
        self._fit_legend_h = self._legend_room()
        bottom = 50.0 if self.options.show_scale_bar else margin
        if self.options.show_legend:
            bottom = max(bottom, self._legend_room() + 24.0)
        top = 52.0 * self.options.label_scale if self.options.title else margin
        if vh - top - bottom < 0.5 * vh:  # a short view: let the legend overlap
            bottom = margin
        s = min((vw - right - margin) / rect.width(), (vh - top - bottom) / rect.height())
        # centre the map in the free area, then express the whole viewport in metres
        free_cx = margin + (vw - right - margin) / 2
        free_cy = top + (vh - top - bottom) / 2
        x0 = rect.center().x() - free_cx / s
        y0 = rect.center().y() - free_cy / s
        self.vb.setRange(QRectF(x0, y0, vw / s, vh / s), padding=0.0)

    def zoom_by(self, factor: float) -> None:
        """Zoom in (factor < 1 shows less) around the view's centre."""
        self.auto_fit = False
        self.vb.scaleBy((factor, factor))

    def pan_by(self, dx_px: float, dy_px: float) -> None:
        self.auto_fit = False
        k = self.m_per_px()
        self.vb.translateBy(x=dx_px * k, y=dy_px * k)

    def render_image(self, width: int, height: int, *, fit: bool = True) -> QImage:
        """Render this view offscreen at ``width`` x ``height`` pixels (for snapshots)."""
        self.resize(QSize(width, height))
        if fit:
            self.fit_map()
        return self.grab().toImage()

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        # (pyqtgraph's close() clears the scene, deleting the view box, then resizes)
        if getattr(self, "auto_fit", False) and hasattr(self, "vb") and not self.closed:
            self.fit_map()

    # -- document / selection / answers ---------------------------------------------------------
    def _on_transform(self, *_):
        k = self.m_per_px()
        for layer in self.layers:
            layer.set_pixel_size(k)

    def _keep_caches_in_phase(self, region: QRegion | None = None) -> None:
        """Before a paint: a layer whose device-coordinate cache Qt would place off where a
        fresh drawing goes drops it. Qt places a cached picture at its bounds' device corner
        rounded to whole pixels, drawn at the phase of the paint that made it: after a move
        by a fraction of a pixel (a players' view following the GM's at another scale), or
        by whole pixels from a corner at half a pixel (a zoom about the view's middle) where
        the rounding goes the other way, the grid, the map's edge and the zones sat a pixel
        off the obstacles and tokens. A move by whole pixels otherwise (the GM's own drag,
        the arrow keys) keeps them. Scales within rounding error are the same scale, as Qt
        takes them. A viewport of another size drops them too: Qt keeps the part of a cache
        it had and draws what the new size shows into it, and when the corner sat at half a
        pixel the two parts were a pixel apart (the grid at its crossings, after a window
        opened at one width was widened at the same scale: the oracle's fresh window).

        Compared with the last paint that drew the layer, as Qt compares its cache's (its
        last transform is only taken when it draws the item): a paint of only part of the
        viewport (``region``: the legend, a name) that missed the layer, or one with the
        layer out of view, leaves Qt's cache as it was, so it must leave the phase as it was
        (seed 1601: a paint of the legend between two pans, the map not in it, took the
        phase Qt never saw, and the grid's crossings came out a pixel off). Where it cannot
        be told whether Qt draws the layer (a paint's edge within a few pixels of the
        layer's) the cache is dropped and the next paint that surely draws it starts afresh."""
        vt = self.viewportTransform()
        vp = self.viewport().rect()
        size = (vp.width(), vp.height())
        if region is None:
            region = QRegion(vp)
        for layer in self.layers:
            mode = layer.cacheMode()
            if mode == layer.CacheMode.NoCache:
                continue
            t = layer.deviceTransform(vt)
            dev = t.mapRect(layer.boundingRect())
            drawn = _drawn(layer, dev, region, vp)
            if drawn is False:
                continue  # (Qt neither draws it nor takes its transform: its cache stays as it was)
            last = getattr(layer, "_cache_phase", None)
            now = (t.m11(), t.m22(), dev.left(), dev.top(), size)
            if drawn is None or last is None:
                # (Qt may or may not draw it in this paint: the phase of its cache unknown)
                layer._cache_phase = now if drawn else None
                layer.setCacheMode(layer.CacheMode.NoCache)
                layer.setCacheMode(mode)
                continue
            layer._cache_phase = now
            if any(abs(a - b) > 1e-9 * abs(b) for a, b in zip(now[:2], last[:2])):
                continue  # (a zoom draws the cache afresh anyway)
            if last[4] != size:
                layer.setCacheMode(layer.CacheMode.NoCache)
                layer.setCacheMode(mode)
                continue
            dx, dy = now[2] - last[2], now[3] - last[3]
            if (abs(dx - round(dx)) < 1e-6 and abs(dy - round(dy)) < 1e-6
                    and _qround(now[2]) - _qround(last[2]) == round(dx)
                    and _qround(now[3]) - _qround(last[3]) == round(dy)):
                continue
            layer.setCacheMode(layer.CacheMode.NoCache)
            layer.setCacheMode(mode)

    def _on_document(self, change: DocumentChange) -> None:
        if self._left_down and not self._in_tool and not change.preview:
            # an edit from elsewhere landed mid-drag (Delete, Ctrl+Z, a menu, another file):
            # the drag was made on the encounter as it was, so it is dropped, as Escape does
            # (its release would land a stale preview, or name an object that is gone)
            self._left_down = False
            self.tool.cancel()
        enc = self.document.encounter
        d = change.diff
        if d.map or change.reset:
            m = enc.map
            self.ground.set_map(m.width, m.height, m.grid)
            self._load_background(enc)
        if d.obstacles or change.reset:
            self.obstacles.set_obstacles(enc.obstacles)
        if d.tokens or d.token_looks or change.reset:
            moved = d.tokens if d.only_token_positions and not change.reset else None
            if moved is None:
                self._load_portraits(enc)
            self.tokens.set_tokens(self.display_tokens(enc.tokens), moved)
        if change.reset and len(enc.obstacles) >= ZONES_LATER_FROM:
            self.zones.clear()  # (the old map's zones go now, not with the new map's)
            self._zones_later.start()  # (its own turn: the open's stays under 50 ms)
        elif d.zones or d.obstacles or d.tokens or change.reset or self._zones_later.isActive():
            self._zones_later.stop()
            self.zones.set_zones(enc, self.document.tactics)
        if change.reset:
            self.fit_map()
            if len(enc.obstacles) >= ZONES_LATER_FROM:
                self._picker_later.start()  # (in a turn of its own, not the first click's)
        self._refresh_selection()
        self._follow_zone_labels()
        self._refresh_legend()

    def _follow_zone_labels(self) -> None:
        """Name labels keep clear of the zones' labels: tell the token layer when those
        changed (:attr:`gui.layers.ZoneLayer.generation`)."""
        gen = self.zones.generation
        if gen != getattr(self, "_zone_labels_gen", None):
            self._zone_labels_gen = gen
            self.tokens.set_zone_labels(self.zones.label_rects)

    def _build_picker(self) -> None:
        if not self.closed:
            self.picker()

    def _set_zones_now(self) -> None:
        if not self.closed:
            self.zones.set_zones(self.document.encounter, self.document.tactics)
            self._follow_zone_labels()
            self._refresh_selection()

    def display_tokens(self, tokens: tuple) -> tuple:
        """The tokens as this view labels them (the GM's view: as they are)."""
        return tokens

    # -- pictures (decoded off the GUI thread: gui.picture_loader) ----------------------------------
    @property
    def pictures_pending(self) -> bool:
        """Whether a picture this view draws (the background, a token's) is still being
        decoded: until it lands the map is drawn without it."""
        return bool(self._bg_waiting or self._portraits_waiting)

    @property
    def pictures_waited_for(self) -> list:
        """The loader's keys (:mod:`gui.picture_loader`) of the pictures still to land here."""
        return ([self._bg_waiting] if self._bg_waiting else []) + list(self._portraits_waiting)

    def _picture_landed(self, key) -> None:
        if self.closed:
            return
        if key == self._bg_waiting:
            self._show_background(key)
        if key in self._portraits_waiting:
            self._show_portraits()

    def _load_portraits(self, enc: Encounter) -> None:
        """Ask for the tokens' pictures (``Token.portrait``) for the token layer, each once
        per (source, file); each is drawn when it is decoded (:mod:`gui.picture_loader`); a
        picture that cannot be read is named in the status bar and its disc is drawn plain."""
        from gui.picture_loader import PictureSource, loader

        wanted = tuple((t.id, t.portrait) for t in enc.tokens if t.portrait)
        key = (wanted, self.document.path)
        if key == getattr(self, "_portraits_key", None):
            return
        self._portraits_key = key
        keys, answers = {}, {}
        for tid, src in wanted:
            keys[tid], pic = loader().request(PictureSource(src, self.document.path, portrait=True))
            if pic is not None:
                answers[keys[tid]] = pic
        self._portrait_keys = keys
        self._portrait_answers = answers  # (this view's own: the loader may let go of one)
        self._portraits_told = None
        self._show_portraits()

    def _show_portraits(self) -> None:
        """Draw the tokens' pictures decoded so far; name those left out once all are in."""
        from gui.picture_loader import PictureSource, loader

        images, problems, waiting = {}, [], set()
        enc = self.document.encounter
        refs = dict(self._portraits_key[0]) if self._portraits_key else {}
        for tid, key in self._portrait_keys.items():
            pic = self._portrait_answers.get(key)
            if pic is None:
                pic = loader().result(key)
                if pic is None:
                    waiting.add(key)
                    continue
                self._portrait_answers[key] = pic
            if pic.image is not None:
                images[tid] = pic.image
            if pic.why:
                where = PictureSource(refs.get(tid, ""), self.document.path).where()
                tail = "" if pic.image is not None else "; its disc is drawn plain"
                problems.append(f"The picture of {name_of(enc, tid)} {where} {pic.why}{tail}")
        self._portraits_waiting = waiting
        self.portrait_problems = problems
        if problems and not waiting and self._portraits_told != problems:
            self._portraits_told = problems
            self.status(problems[0] if len(problems) == 1 else f"{problems[0]} (and {len(problems) - 1} more)")
        self.tokens.set_portraits(images)

    def _load_background(self, enc: Encounter) -> None:
        from gui.picture_loader import PictureSource, loader

        bg = enc.map.background
        key = (bg, self.document.path)
        if key == self._bg_key:
            return
        self._bg_key = key
        self._bg_rect = QRectF(bg.x, bg.y, bg.width, bg.height) if bg is not None else None
        self.background_problem = None
        if bg is None:
            self._bg_waiting = None
            self.ground.set_background(None, None)
            return
        self._bg_source = PictureSource(bg.image, self.document.path)
        pkey, pic = loader().request(self._bg_source)
        if pic is None:  # (drawn without it until it lands)
            self._bg_waiting = pkey
            self.ground.set_background(None, self._bg_rect)
        else:
            self._show_background(pkey)

    def _show_background(self, pkey) -> None:
        from gui.picture_loader import loader

        pic = loader().result(pkey)
        if pic is None:  # (asked for again meanwhile: its next answer lands here)
            self._bg_waiting = pkey
            return
        self._bg_waiting = None
        had = self.ground.has_image
        where = self._bg_source.where()
        if pic.image is None:
            self.background_problem = f"Background image {where} {pic.why}; the map is drawn without it"
        else:
            self.background_problem = f"Background image {where} {pic.why}" if pic.why else None
        if self.background_problem:
            self.status(self.background_problem)
        self.ground.set_background(pic.image, self._bg_rect)
        if had != self.ground.has_image and self.auto_fit:
            self.fit_map()  # (the picture may reach beyond the map: the fit takes it in)

    def _on_selection(self) -> None:
        self._refresh_selection()

    @property
    def hovered(self) -> str | None:
        """The token under the mouse (None when none is)."""
        return self._hover

    def _refresh_selection(self) -> None:
        self.tokens.set_targets(self.selection.targets)
        if self.options.show_selection:
            enc = self.document.encounter
            self.overlay.set_selection_sketch(selection_sketch(enc, self.selection.ids, self.zones.drawings()))
        else:
            self.overlay.set_selection_sketch(Sketch())

    def focus_target(self) -> str | None:
        """The target whose sight line and charge are drawn: the hovered token, else the
        one picked in the targets table."""
        a = self.answers.attacker
        if self._hover is not None and self._hover != a:
            return self._hover
        f = self.selection.focus
        return f if f != a else None

    def _on_answers(self) -> None:
        enc = self.document.encounter
        ans = self.answers
        focus = self.focus_target()
        sight = ans.sight(focus) if focus and self.options.show_sight else None
        charge = ans.live_charge(focus) if focus and self.options.show_charge else None
        self.answer_layer.set_answers(enc, ans.attacker, ans.targets, sight, charge, focus)
        self.tokens.set_badge_boxes(self.answer_layer.badge_boxes())
        rings: dict[str, list[QColor]] = {}
        if self.options.show_zone_rings:
            zones = {z.id: z for z in enc.zones if self.options.shows(z)}
            for tid, hits in ans.token_zones.items():
                cols = [style.zone_colour(zones[zid]) for zid, _ in hits if zid in zones]
                if cols:
                    rings[tid] = cols
        self.tokens.set_rings(rings)
        self._update_tooltip()
        self._refresh_legend()

    def token_tooltip(self, token_id: str) -> str:
        """The tooltip of a token: its name, and the zones it is in with the fraction inside."""
        enc = self.document.encounter
        try:
            t = enc.token(token_id)
        except ValueError:
            return ""
        lines = [f"{token_name(t)} ({t.side}, {t.stance})"]
        hits = self.answers.token_zones.get(token_id, [])
        zones = {z.id: z for z in enc.zones}
        for zid, frac in hits:
            z = zones.get(zid)
            if z is None or not self.options.shows(z):
                continue
            lines.append(f"in {zone_name(z, enc)}: {frac * 100:.0f}% of its footprint")
        if len(lines) == 1:
            lines.append("in no zone")
        rep = self.answers.targets.get(token_id)
        if rep is not None and not self.options.player:
            rng = rep.range
            band = f"{rng.band} ({rng.modifier:+d})" if rng is not None and rng.band else "out of range"
            lines.append(f"{rep.distance:.1f} m, {band}, cover {cover_percent(rep.cover.fraction, rep.cover.cls)}% {rep.cover.cls}")
        return "\n".join(lines)

    def _update_tooltip(self) -> None:
        self.tokens.setToolTip(self.token_tooltip(self._hover) if self._hover else "")

    def set_hover(self, token_id: str | None) -> None:
        if token_id == self._hover:
            return
        self._hover = token_id
        self.hoverChanged.emit(token_id)
        self._on_answers()

    # -- mouse -------------------------------------------------------------------------------
    def _pointer(self, ev: QMouseEvent) -> Pointer:
        x, y = self.viewport_to_map(ev.position())
        mods = ev.modifiers()
        return Pointer(x, y, bool(mods & Qt.KeyboardModifier.ShiftModifier),
                       bool(mods & Qt.KeyboardModifier.ControlModifier),
                       bool(mods & Qt.KeyboardModifier.AltModifier), self.m_per_px())

    def mousePressEvent(self, ev: QMouseEvent) -> None:
        if ev.button() in (Qt.MouseButton.MiddleButton, Qt.MouseButton.RightButton):
            self._pan_from = ev.position()
            self._right_from = ev.position() if ev.button() == Qt.MouseButton.RightButton else None
            ev.accept()
            return
        if ev.button() == Qt.MouseButton.LeftButton and self.interactive:
            self.setFocus()
            self._left_down = True
            self.set_hover(None)
            self._in_tool = True
            try:
                self.tool.press(self._pointer(ev))
            finally:
                self._in_tool = False
            ev.accept()
            return
        super().mousePressEvent(ev)

    def mouseMoveEvent(self, ev: QMouseEvent) -> None:
        if self._pan_from is not None:
            if self._right_from is not None:  # a right press pans once it moves past a click
                if (ev.position() - self._right_from).manhattanLength() < RIGHT_CLICK_PX:
                    ev.accept()
                    return
                self._right_from = None
            d = ev.position() - self._pan_from
            self._pan_from = ev.position()
            self.pan_by(-d.x(), -d.y())
            ev.accept()
            return
        p = self._pointer(ev)
        self.cursorMoved.emit(p.x, p.y)
        if self._left_down:
            self._in_tool = True
            try:
                self.tool.move(p)
            finally:
                self._in_tool = False
            ev.accept()
            return
        if self.interactive:
            self.tool.hover(p)
        self.set_hover(self.tokens.token_at(p.x, p.y, 3 * p.m_per_px))
        super().mouseMoveEvent(ev)

    def mouseReleaseEvent(self, ev: QMouseEvent) -> None:
        if self._pan_from is not None and ev.button() in (Qt.MouseButton.MiddleButton, Qt.MouseButton.RightButton):
            clicked = self._right_from is not None and ev.button() == Qt.MouseButton.RightButton
            self._pan_from = self._right_from = None
            ev.accept()
            if clicked and self.interactive:
                x, y = self.viewport_to_map(ev.position())
                self.contextRequested.emit(x, y, ev.globalPosition().toPoint())
            return
        if ev.button() == Qt.MouseButton.LeftButton and self._left_down:
            self._left_down = False
            self.tool.release(self._pointer(ev))
            ev.accept()
            return
        super().mouseReleaseEvent(ev)

    def mouseDoubleClickEvent(self, ev: QMouseEvent) -> None:
        if ev.button() == Qt.MouseButton.LeftButton and self.interactive:
            self.tool.double_click(self._pointer(ev))
            ev.accept()
            return
        super().mouseDoubleClickEvent(ev)

    # -- drag and drop of files (gui.drop decides what they are) ------------------------------
    def dragEnterEvent(self, ev) -> None:  # noqa: N802 - Qt API
        if self.interactive and ev.mimeData().hasUrls():
            ev.acceptProposedAction()
        else:
            ev.ignore()

    def dragMoveEvent(self, ev) -> None:  # noqa: N802 - Qt API
        if self.interactive and ev.mimeData().hasUrls():
            ev.acceptProposedAction()
            x, y = self.viewport_to_map(ev.position())
            self.set_hover(self.tokens.token_at(x, y, 3 * self.m_per_px()))
        else:
            ev.ignore()

    def dropEvent(self, ev) -> None:  # noqa: N802 - Qt API
        paths = [u.toLocalFile() for u in ev.mimeData().urls() if u.isLocalFile()] if self.interactive else []
        if not paths:
            ev.ignore()
            return
        ev.acceptProposedAction()
        self.filesDropped.emit(paths, self.viewport_to_map(ev.position()))

    def leaveEvent(self, ev: QEvent) -> None:
        self.set_hover(None)
        super().leaveEvent(ev)

    def event(self, ev: QEvent) -> bool:
        # Let the window's shortcuts (Ctrl+Z, Delete, tool keys) win over the scene, which
        # would otherwise claim every key for its focus item.
        if ev.type() == QEvent.Type.ShortcutOverride:
            ev.ignore()
            return False
        return super().event(ev)

    def keyPressEvent(self, ev) -> None:
        key = ev.key()
        step = 60
        if key == Qt.Key.Key_Escape:
            panel = getattr(self.window(), "action_panel", None)
            if not self.tool.busy() and panel is not None and panel.current is not None:
                panel.cancel()  # (nothing drawn in progress: Escape drops the declared action)
            else:
                self.tool.cancel()
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.tool.finish()
        elif key == Qt.Key.Key_Backspace:
            self.tool.undo_point()
        elif key == Qt.Key.Key_Left:
            self.pan_by(-step, 0)
        elif key == Qt.Key.Key_Right:
            self.pan_by(step, 0)
        elif key == Qt.Key.Key_Up:
            self.pan_by(0, -step)
        elif key == Qt.Key.Key_Down:
            self.pan_by(0, step)
        else:
            super().keyPressEvent(ev)
            return
        ev.accept()

    # -- foreground: scale bar, legend, title -------------------------------------------------------
    def paintEvent(self, ev) -> None:
        self.obstacles.new_paint(ev.region())  # (each paint draws a budget of fresh tiles: a zoom step stays short)
        self.scene().prepareForPaint()  # (the view box's transform brought up to date first)
        self._keep_caches_in_phase(ev.region())
        super().paintEvent(ev)

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        super().drawForeground(painter, rect)
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        vp = self.viewport().rect()
        if self.options.show_scale_bar:
            self._draw_scale_bar(painter, vp)
        if self.options.show_legend:
            self._draw_legend(painter, vp)
        if self.options.title:
            draw_label(painter, vp.width() / 2, 12, self.options.title, 24 * self.options.label_scale,
                       anchor="top", bold=True)
        painter.restore()

    def scale_bar_metres(self) -> float:
        """The scale bar's length in metres: 1, 2 or 5 times a power of ten, 70-180 pixels long."""
        px_per_m = 1.0 / self.m_per_px()
        best = 1.0
        for e in range(-2, 6):
            for m in (1, 2, 5):
                length = m * 10.0**e
                if length * px_per_m <= 180:
                    best = length
        return best

    def _draw_scale_bar(self, painter: QPainter, vp) -> None:
        from gui.layers import SPRITES, device_ratio

        metres = self.scale_bar_metres()
        length = round(metres / self.m_per_px(), 1)
        s = self.options.label_scale
        w, h = length + 40, 30 * s + 30
        pm = SPRITES.get(("scalebar", metres, length, s), w, h,
                         lambda q: self._paint_scale_bar(q, metres, length, h), device_ratio(painter))
        painter.drawPixmap(0, int(vp.height() - h), pm)

    def _paint_scale_bar(self, painter: QPainter, metres: float, length: float, h: float) -> None:
        s = self.options.label_scale
        x0, y0 = 18.0, h - 22.0
        painter.setPen(NO_PEN)
        painter.setBrush(QBrush(style.LABEL_PILL))
        painter.drawRoundedRect(QRectF(x0 - 10, y0 - 30 * s, length + 20, 30 * s + 12), 6, 6)
        for colour, width in ((QColor("#0b0d10"), 5.0), (QColor("#f5f7fa"), 2.5)):
            painter.setPen(cosmetic(colour, width))
            painter.drawLine(QPointF(x0, y0), QPointF(x0 + length, y0))
            painter.drawLine(QPointF(x0, y0 - 6), QPointF(x0, y0 + 4))
            painter.drawLine(QPointF(x0 + length, y0 - 6), QPointF(x0 + length, y0 + 4))
        text = f"{metres:g} m"
        draw_label(painter, x0 + length / 2, y0 - 6, text, 12.5 * s, anchor="bottom", bold=True, bg=None)

    def legend_entries(self) -> list[tuple[str, str, QColor]]:
        """(kind, text, colour) rows of the legend: obstacle heights present, sides present,
        visible zones, and (with an attacker) the cover classes of the badges."""
        enc = self.document.encounter
        key = (enc.obstacles, enc.tokens, enc.zones, self.answers.attacker is not None, self.options)
        memo = getattr(self, "_legend_memo", None)
        if memo is not None and len(memo[0]) == len(key) and all(a is b for a, b in zip(memo[0][:3], key[:3])) \
                and memo[0][3:] == key[3:]:
            return memo[1]
        counts = self._legend_classes(enc.obstacles, memo)
        rows = self._legend_rows(enc, {c for c, n in counts.items() if n > 0 and c is not None})
        self._legend_memo = (key, rows, counts)
        return rows

    def _legend_class(self, o) -> str | None:
        return style.height_class(o.height) if self.options.shows(o) and o.blocks and not o.hidden else None

    def _legend_classes(self, obstacles: tuple, memo) -> Counter:
        """How many shown, blocking obstacles each height class has. An edit of a few
        obstacles (a dragged corner, a door) counts only those again, not all 10,000."""
        if memo is not None and memo[0][4] == self.options:
            old, counts = memo[0][0], memo[2]
            if old is obstacles:
                return counts
            if len(old) == len(obstacles):
                changed = changed_items(old, obstacles, 63)
                if changed is not None:
                    counts = Counter(counts)
                    for a, b in zip(*changed):
                        counts[self._legend_class(a)] -= 1
                        counts[self._legend_class(b)] += 1
                    return counts
        # (a plain loop over 10,000 obstacles: ~4 ms, where a call per obstacle took ~15)
        low, full = style.LOW_MAX, style.FULL_MIN
        n_low = n_waist = n_full = n_none = 0
        for o in obstacles:
            if o.hidden or (o.door and o.open):  # as _legend_class
                n_none += 1
                continue
            h = o.height
            if h < low:
                n_low += 1
            elif h >= full:
                n_full += 1
            else:
                n_waist += 1
        counts = Counter({"low": n_low, "waist": n_waist, "full": n_full, None: n_none})
        return Counter({c: n for c, n in counts.items() if n})

    def _legend_rows(self, enc, classes) -> list[tuple[str, str, QColor]]:
        rows: list[tuple[str, str, QColor]] = []
        for c in style.HEIGHT_CLASSES:
            if c in classes:
                rows.append(("box", style.HEIGHT_LABELS[c], style.HEIGHT_FILL[c]))
        sides = []
        for t in enc.tokens:
            if self.options.shows(t) and t.side not in sides:
                sides.append(t.side)
        for side in sides:
            rows.append(("disc", side, style.side_colour(side)))
        if any(t.stance != "standing" for t in enc.tokens if self.options.shows(t)):
            rows.append(("text", "C crouched   P prone", QColor("#f5f7fa")))
        for z in enc.zones:
            if self.options.shows(z) and self.options.show_zones:
                rows.append(("zone", zone_name(z, enc), style.zone_colour(z)))
        if self.answers.attacker is not None and self.options.show_badges:
            rows.append(("cover", "cover:", QColor()))
            if uses_range_bands(enc):
                rows.append(("text", style.BAND_LEGEND, QColor("#f5f7fa")))
        return rows

    SCALE_BAR_ROOM = 230.0  # pixels left free for the scale bar at the bottom left

    def legend_layout(self, rows=None, width: float | None = None):
        """Where the legend's entries go: a strip along the bottom, right of the scale bar,
        wrapping into rows. Returns (entries [(kind, text, colour, x, y)], box width, box
        height) with x, y relative to the box's top-left, in pixels."""
        rows = self.legend_entries() if rows is None else rows
        width = width if width is not None else self.viewport().width()
        memo = getattr(self, "_layout_memo", None)
        if memo is not None and memo[0] is rows and memo[1] == (width, self.options.label_scale):
            return memo[2]
        out = self._legend_layout(rows, width)
        self._layout_memo = (rows, (width, self.options.label_scale), out)
        return out

    def _legend_layout(self, rows, width):
        from gui.layers import TEXT

        s = self.options.label_scale
        px, line, gap = 12.5 * s, 22 * s, 18 * s
        # (the box, its 20 px of padding included, ends 3 px inside the view's right edge)
        avail = width - 24 - 20 * s if self._legend_wide(width) else width - self.SCALE_BAR_ROOM - 4 - 20 * s
        avail = max(avail, 200.0)
        x = y = 0.0
        widest = 0.0
        out = []
        for kind, text, colour in _fitted_rows(rows, avail, px, s):
            if kind == "cover":
                w = sum(TEXT.get(c, px, True)[1] + 16 * s for c in style.COVER_COLOURS) + TEXT.get("cover:", px)[1] + 8 * s
            elif kind == "text":
                w = TEXT.get(text, px)[1] + 6 * s
            else:
                w = TEXT.get(text, px)[1] + 22 * s
            if x > 0 and x + w > avail:
                x, y = 0.0, y + line
            out.append((kind, text, colour, x, y))
            x += w + gap
            widest = max(widest, x - gap)
        height = (y + line) if out else 0.0
        return out, widest + 20 * s, height + 10 * s

    def legend_size(self, rows=None) -> tuple[float, float]:
        """Width and height of the legend box in pixels."""
        _, w, h = self.legend_layout(rows)
        return w, h

    def legend_rect(self) -> QRectF:
        """Where the legend box is drawn in the viewport (pixels; empty without a legend)."""
        if not self.options.show_legend:
            return QRectF()
        entries, bw, bh = self.legend_layout()
        if not entries:
            return QRectF()
        vp = self.viewport().rect()
        left, top = self._legend_corner(vp.width(), vp.height(), bw, bh)
        return QRectF(int(left), int(top), bw + 1, bh + 1)

    #: Narrower than this right of the scale bar, the legend spans the view above it.
    LEGEND_MIN_WIDTH = 420.0

    def _legend_wide(self, width: float) -> bool:
        """Whether the legend takes the view's whole width, above the scale bar: when the
        strip right of the scale bar is narrower than :data:`LEGEND_MIN_WIDTH` (a wide dock
        beside the map), where its rows would stack up over half the map."""
        return width - self.SCALE_BAR_ROOM - 4 - 20 * self.options.label_scale < self.LEGEND_MIN_WIDTH

    def _scale_bar_height(self) -> float:
        return 30 * self.options.label_scale + 30 if self.options.show_scale_bar else 0.0

    def _legend_corner(self, vw: float, vh: float, bw: float, bh: float) -> tuple[float, float]:
        """The legend box's top-left corner in a ``vw`` x ``vh`` view (pixels)."""
        if self._legend_wide(vw):
            return 12.0, vh - bh - 10 - self._scale_bar_height()
        return max(self.SCALE_BAR_ROOM, vw - bw - 12), vh - bh - 10

    def _refresh_legend(self) -> None:
        """Repaint the legend's old and new box when its rows or place changed. The view
        repaints only what its items say changed (pyqtgraph's MinimalViewportUpdate), and
        the legend is no item: a row added by a zone drawn elsewhere left the old legend on
        the screen, and a box that grew or shrank was painted over in part only (rows
        twice, fragments such as 'P pronorone')."""
        rect = self.legend_rect()
        entries = self.legend_layout()[0] if not rect.isEmpty() else []
        drawn = (tuple((k, t, c.rgba(), x, y) for k, t, c, x, y in entries), rect)
        old = getattr(self, "_legend_drawn", None)
        if old != drawn:
            self._legend_drawn = drawn
            area = rect if old is None else rect.united(old[1])
            if not area.isEmpty():
                self.viewport().update(area.toAlignedRect().adjusted(-2, -2, 2, 2))
        self._refit_for_legend()

    def _refit_for_legend(self) -> None:
        """The GM's fitted view fits again when the legend is no longer as tall as the fit
        left it room for (a grenade's zone and cover rows covered the map's bottom edge at
        1366x768); not while a drag is under way (the map would move under the pointer:
        the fit waits for the drag to land), not in the players' view (it follows the GM's
        area, or stays where it was pinned), not for the attacker's cover row (the fit
        leaves it room: :meth:`_legend_room`)."""
        if not (self.interactive and self.auto_fit) or self._left_down or self.document.in_preview:
            return
        if self._legend_room() != getattr(self, "_fit_legend_h", None):
            self.fit_map()

    def _legend_room(self) -> float:
        """The legend's height the fit leaves room for (pixels; 0 without a legend): its
        rows as they are, with the attacker's cover row (and range bands) whether or not an
        attacker is picked, so that picking one does not move the map."""
        if not self.options.show_legend:
            return 0.0
        rows = list(self.legend_entries())
        if self.options.show_badges and not any(r[0] == "cover" for r in rows):
            rows.append(("cover", "cover:", QColor()))
            if uses_range_bands(self.document.encounter):
                rows.append(("text", style.BAND_LEGEND, QColor("#f5f7fa")))
        if not rows:
            return 0.0
        width = self.viewport().width()
        above = self._scale_bar_height() if self._legend_wide(width) else 0.0
        return self._legend_layout(rows, width)[2] + above

    def _draw_legend(self, painter: QPainter, vp) -> None:
        from gui.layers import SPRITES, device_ratio

        entries, bw, bh = self.legend_layout()
        if not entries:
            return
        left, top = self._legend_corner(vp.width(), vp.height(), bw, bh)
        self._legend_drawn = (tuple((k, t, c.rgba(), x, y) for k, t, c, x, y in entries),
                              QRectF(int(left), int(top), bw + 1, bh + 1))
        key = ("legend", tuple((k, t, c.rgba(), x, y) for k, t, c, x, y in entries), bw, bh,
               self.options.label_scale)
        pm = SPRITES.get(key, bw + 1, bh + 1, lambda q: self._paint_legend(q, entries, bw, bh), device_ratio(painter))
        painter.drawPixmap(int(left), int(top), pm)

    def _paint_legend(self, painter: QPainter, entries, bw: float, bh: float) -> None:
        s = self.options.label_scale
        px = 12.5 * s
        line = 22 * s
        left, top = 0.0, 0.0
        painter.setPen(cosmetic(QColor(255, 255, 255, 40), 1.0))
        painter.setBrush(QBrush(QColor(10, 12, 16, 210)))
        painter.drawRoundedRect(QRectF(left, top, bw, bh), 8, 8)
        ox, oy = left + 10 * s, top + 5 * s
        for kind, text, colour, ex, ey in entries:
            cx, cy = ox + ex + 6 * s, oy + ey + line / 2
            if kind == "box":
                painter.setPen(cosmetic(QColor("#0b0d10"), 1.0))
                painter.setBrush(QBrush(colour))
                painter.drawRect(QRectF(cx - 6 * s, cy - 6 * s, 12 * s, 12 * s))
            elif kind == "disc":
                painter.setPen(cosmetic(QColor("#0b0d10"), 1.2))
                painter.setBrush(QBrush(colour))
                painter.drawEllipse(QPointF(cx, cy), 6 * s, 6 * s)
            elif kind == "zone":
                painter.setPen(cosmetic(colour, 1.5))
                painter.setBrush(QBrush(with_alpha(colour, 110)))
                painter.drawRect(QRectF(cx - 6 * s, cy - 6 * s, 12 * s, 12 * s))
            if kind == "cover":
                r = draw_label(painter, ox + ex, cy, "cover:", px, anchor="left", bg=None)
                x = r.right() + 4 * s
                for cls, c in style.COVER_COLOURS.items():
                    r = draw_label(painter, x, cy, cls, px, anchor="left", bold=True, fg=QColor("#0b0d10"), bg=c)
                    x = r.right() + 6 * s
            elif kind == "text":
                draw_label(painter, ox + ex - 4 * s, cy, text, px, anchor="left", bg=None)
            else:
                draw_label(painter, ox + ex + 12 * s, cy, text, px, anchor="left", bg=None)
        painter.setBrush(NO_BRUSH)
        painter.setPen(QPen(Qt.PenStyle.NoPen))


def _fitted_rows(rows, avail: float, px: float, s: float):
    """The legend's rows made to fit a line ``avail`` pixels wide: a text wider than that
    (the range bands' key in a narrow view) split where it has two spaces, a name wider
    than that cut short with an ellipsis (the last line of the legend ran past the dock's
    edge)."""
    from gui.layers import TEXT

    for kind, text, colour in rows:
        if kind == "cover":
            yield kind, text, colour
            continue
        pad = 6 * s if kind == "text" else 22 * s
        if TEXT.get(text, px)[1] + pad <= avail:
            yield kind, text, colour
            continue
        if kind == "text" and "  " in text:
            pieces = [p for p in text.split("  ") if p]
            yield from _fitted_rows([(kind, p, colour) for p in pieces], avail, px, s)
            continue
        lo, hi = 0, len(text)  # the longest start of the text that fits with "\u2026"
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if TEXT.get(text[:mid].rstrip() + "\u2026", px)[1] + pad <= avail:
                lo = mid
            else:
                hi = mid - 1
        yield kind, text[:lo].rstrip() + "\u2026", colour
