"""All tokens in one item: discs, stance letters, facing ticks, name labels (placed by
:mod:`gui.labels`), zone rings and the rule systems' decorations."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QPainterPath, QPixmap
from engine.names import token_name

from gui import style
from gui.style import ViewOptions
from gui.labels import disc_rects, place_labels
from gui.layers.base import MapLayer
from gui.layers.paint import (
    NO_BRUSH,
    NO_PEN,
    SPRITES,
    TEXT,
    with_alpha,
    device_ratio,
    cosmetic,
    draw_label,
    label_sprite,
    stamp,
    stamp_many,
)


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
    #: Discs are drawn at least this many pixels in radius, however far the view is zoomed
    #: out: a 22 px disc, a toolbar icon's size, shows its picture and stance letter and is
    #: easy to grab (issue 30 item 7: imported maps at fit zoom drew tokens 11-14 px across).
    MIN_RADIUS_PX = 11.0

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
        self._groups_memo: tuple | None = None  # (key, looks, portraits, [(disc sprite, token indexes)])
        self._rings: dict[str, list[QColor]] = {}
        self._targets: tuple[str, ...] = ()
        self._portraits: dict[str, QImage] = {}
        self._decorations: dict[str, TokenDecoration] = {}
        self.build_count = 0
        self._layout_gen = 0  # bumped when positions, looks or decorations change
        self._layout_key: tuple | None = None
        self._layout: list[tuple[float, float]] = []
        self._extras: dict[str, tuple[float, float]] = {}
        self._flip = False
        self._obstacles = None
        self._zone_labels = None
        self._badge_boxes: dict[str, tuple[float, float]] = {}
        self._badge_rects: dict[str, tuple[float, float, float, float]] = {}
        self._block_rects: dict[str, tuple[float, float, float, float]] = {}
        self.layout_count = 0

    @property
    def xy(self):
        """The shown tokens' centres (m): one row an id of :attr:`ids`."""
        return self._xy

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
            simple = self.simple_drawing()
            dirty = []
            for t in tokens:
                if t.id in moved:
                    i = self._index.get(t.id)
                    if i is not None:
                        if simple:
                            dirty += [self.footprint(i), self.footprint(i, (t.x, t.y))]
                        self._xy[i] = (t.x, t.y)
            self._layout_gen += 1
            before = QRectF(self._rect)
            self._refresh_rect()
            if simple and self._rect == before:
                for r in dirty:  # the moved discs' old and new places only
                    self.update(r)
            else:
                self.update()
            return
        self.rebuild()

    def simple_drawing(self) -> bool:
        """Whether each token is drawn within :meth:`footprint` of its centre, whatever the
        others do: zoomed out past names and badge layout (``LABEL_MIN_PX_PER_M``) and past
        facing ticks and decorations (``DETAIL_MIN_PX``). Then a drag step repaints the
        moved discs' places, not the whole map (every obstacle tile blitted again)."""
        k = 1.0 / self._m_per_px
        return k < self.LABEL_MIN_PX_PER_M and (self._r * k).max(initial=0.0) < self.DETAIL_MIN_PX

    #: Pixels round a disc that its zone rings, target ring and ticks and badge dot reach.
    FOOTPRINT_PX = 40.0

    def footprint(self, i: int, at: tuple[float, float] | None = None) -> QRectF:
        """The map rect (metres) token ``i`` is drawn in (at ``at`` instead of its place)
        while :meth:`simple_drawing` holds."""
        x, y = at if at is not None else self._xy[i]
        m = self._m_per_px
        pad = max(float(self._r[i]), self._min_px() * m) + self.FOOTPRINT_PX * m
        return QRectF(x - pad, y - pad, 2 * pad, 2 * pad)

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

    def set_targets(self, ids) -> None:
        """Mark these tokens as targeted (:attr:`gui.selection.Selection.targets`): a red
        ring with four ticks round the disc, in both the GM's and the players' views."""
        ids = tuple(ids)
        if ids != self._targets:
            self._targets = ids
            self.update()

    @property
    def targets(self) -> tuple[str, ...]:
        return self._targets

    def set_portraits(self, portraits: Mapping[str, QImage]) -> None:
        """Pictures drawn clipped in the tokens' discs (token id -> image; see
        ``Token.portrait``), the side's colour kept as the rim."""
        portraits = {k: v for k, v in portraits.items() if v is not None and not v.isNull()}
        if portraits.keys() != self._portraits.keys() or any(
                v.cacheKey() != self._portraits[k].cacheKey() for k, v in portraits.items()):
            self._portraits = portraits
            self.update()

    @property
    def portraits(self) -> dict[str, QImage]:
        return dict(self._portraits)

    def radii_px(self, px_per_m: float) -> np.ndarray:
        """The drawn disc radii in pixels at this zoom: true size, at least MIN_RADIUS_PX."""
        return np.maximum(self._r * px_per_m, self._min_px())

    def _min_px(self) -> float:
        return float(getattr(self.options, "min_token_px", self.MIN_RADIUS_PX))

    def rebuild(self) -> None:
        self.build_count += 1
        shown = [t for t in self._tokens if self.options.shows(t)]
        self._ids = [t.id for t in shown]
        self._index = {tid: i for i, tid in enumerate(self._ids)}
        self._xy = np.array([(t.x, t.y) for t in shown], dtype=float).reshape(-1, 2)
        self._r = np.array([t.radius for t in shown], dtype=float)
        self._facing = np.radians(np.array([t.facing for t in shown], dtype=float))
        self._looks = [
            (style.side_colour(t.side), t.hidden, {"crouched": "C", "prone": "P"}.get(t.stance, ""), token_name(t))
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

    def set_badge_boxes(self, boxes: Mapping[str, tuple[float, float]]) -> None:
        """The badges drawn above token discs (token id -> (width, height) pixels, bottom
        3 px above the rim, centred; :meth:`gui.layers.AnswerLayer.badge_boxes`): labels
        keep clear of them."""
        boxes = dict(boxes)
        if boxes != self._badge_boxes:
            self._badge_boxes = boxes
            self._layout_gen += 1
            if not self.simple_drawing():  # (zoomed out they place nothing: badges are dots)
                self.update()

    def set_zone_labels(self, rects) -> None:
        """The zones' labels, which name labels keep clear of: a function of pixels per
        metre and ``flip`` answering (left, top, right, bottom) pixel rects from the map
        origin (:meth:`gui.layers.ZoneLayer.label_rects`), or None. Call again whenever
        what it answers changes."""
        self._zone_labels = rects
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
        # (rounded, and laid out at the rounded scale: other layers ask at 1 / (1 / px_per_m),
        # which may differ in the last bit, and a fresh window's scale may too; the greedy
        # placement is not continuous (a block a thousandth of a pixel nearer hits a
        # neighbour), so a layout made at one of two such scales and kept under the key put
        # Nix's name above the disc where a fresh window put it below: the oracle's seed 801)
        px_per_m = round(px_per_m, 6)
        names = self.options.show_labels and px_per_m >= self.LABEL_MIN_PX_PER_M
        key = (self._layout_gen, px_per_m, flip, names, self.options.label_px, self.options.label_scale)
        if key == self._layout_key:
            return self._layout
        self.layout_count += 1
        rpx = self.radii_px(px_per_m)
        rs = (np.round(rpx * 4) / 4).tolist()
        detail = (self._r * px_per_m).max(initial=0.0) >= self.DETAIL_MIN_PX
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
        place_badges = bool(self._badge_boxes) and px_per_m >= self.LABEL_MIN_PX_PER_M
        discs = disc_rects(xs, ys, rs, pad=1.0) if (blocks or place_badges) else []
        others = []  # what other layers draw by the tokens (Static Veil's AP badges ...)
        if (blocks or place_badges) and self._obstacles is not None:
            for tid, l, t, r, b in self._obstacles(px_per_m):
                i = self._index.get(tid)
                if i is not None:
                    others.append((xs[i] + l, ys[i] + t, xs[i] + r, ys[i] + b))
        # the attack badges first, above their discs, clear of every disc and of each other
        # (zoomed out past the names, badges are cover dots over the discs: nothing to place)
        badges = self._place_badges(xs, ys, rs, discs + others) if place_badges else {}
        # then the names (and what hangs under them): no label over any disc, badge or mark,
        # nor over a zone's label (a name over "18 m radius" left "8 m radius" to read)
        fixed = discs + list(badges.values()) + others if blocks else []
        if blocks and self._zone_labels is not None:
            fixed += self._zone_labels(px_per_m, flip)
        out = [(0.0, 0.0)] * len(self._ids)
        placed = {}
        for i, block, off in zip(which, blocks, place_labels(blocks, fixed=fixed, sides=True, cell=layout_cell(rs))):
            out[i] = off
            cx, cy, top, w, h = block
            placed[self._ids[i]] = (cx - w / 2 + off[0], cy + top + off[1], cx + w / 2 + off[0], cy + top + off[1] + h)
        self._layout_key, self._layout = key, out
        self._block_rects = placed
        self._badge_rects = badges
        return out

    def _place_badges(self, xs, ys, rs, fixed) -> dict[str, tuple[float, float, float, float]]:
        """Where each attack badge goes (token id -> (left, top, right, bottom) pixels):
        centred above its disc, its bottom 3 px over the rim, unless that covers a disc or
        another badge; then below, or nudged sideways (the label placement, mirrored)."""
        ids, blocks = [], []
        for tid, (bw, bh) in self._badge_boxes.items():
            i = self._index.get(tid)
            if i is not None:
                ids.append(tid)
                blocks.append((xs[i], -ys[i], rs[i] + 3, bw, bh))  # y mirrored: "below" is above
        if not blocks:
            return {}
        mirrored = [(l, -b, r, -t) for l, t, r, b in fixed]
        out = {}
        for tid, (x, my, top, bw, bh), (dx, dy) in zip(ids, blocks, place_labels(blocks, fixed=mirrored,
                                                                                 cell=layout_cell(rs))):
            mtop = my + top + dy
            out[tid] = (x - bw / 2 + dx, -(mtop + bh), x + bw / 2 + dx, -mtop)
        return out

    def badge_rects(self, px_per_m: float) -> dict[str, tuple[float, float, float, float]]:
        """Where the attack badges are drawn at ``px_per_m`` (token id -> (left, top, right,
        bottom) pixels from the map origin, y as the view draws it): the badge layout's
        answer, which :class:`gui.layers.AnswerLayer` follows."""
        self._label_offsets(px_per_m, self._flip)
        return dict(self._badge_rects)

    def block_rects(self, px_per_m: float) -> dict[str, tuple[float, float, float, float]]:
        """Where each token's whole label block (its name, what hangs under it: decorations,
        :meth:`set_label_extras`) is drawn at ``px_per_m`` (token id -> (left, top, right,
        bottom) pixels from the map origin, y as the view draws it)."""
        self._label_offsets(px_per_m, self._flip)
        return dict(self._block_rects)

    def label_rects(self, m_per_px: float | None = None) -> dict[str, QRectF]:
        """Where each shown token's name label is drawn at ``m_per_px`` metres per pixel
        (default: the view's zoom now), after the overlap layout: token id -> the label's
        rect in pixels, measured from the map origin (x east, y south). Tokens without a
        label at that zoom (names off, or zoomed out past ``LABEL_MIN_PX_PER_M``) are absent."""
        k = 1.0 / (m_per_px or self._m_per_px)
        if not (self.options.show_labels and k >= self.LABEL_MIN_PX_PER_M):
            return {}
        offs = self._label_offsets(k)
        rs = (np.round(self.radii_px(k) * 4) / 4).tolist()
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
        rpx = self.radii_px(px_per_m)
        true_px = self._r * px_per_m
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
        dpr = device_ratio(painter)
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
        if self._targets:
            self._paint_targets(painter, dev, rpx, vis)
        detail = true_px.max(initial=0.0) >= self.DETAIL_MIN_PX
        # facing ticks, as device-space lines
        if detail:
            cos, sin = np.cos(self._facing), np.sin(self._facing)
            lines = []
            for i in np.nonzero(vis & (true_px >= self.DETAIL_MIN_PX))[0].tolist():
                x, y, r = dev[i, 0], dev[i, 1], rpx[i]
                lines.append(QLineF(x + 0.45 * r * cos[i], y + 0.45 * r * sin[i] * np.sign(m22),
                                    x + 1.55 * r * cos[i], y + 1.55 * r * sin[i] * np.sign(m22)))
            painter.setPen(cosmetic(QColor("#0b0d10"), 4.0))
            painter.drawLines(lines)
        # discs (sprites): the tokens that look alike are stamped in one call
        shown = np.nonzero(vis)[0].tolist()
        xs, ys, rs = dev[:, 0].tolist(), dev[:, 1].tolist(), (np.round(rpx * 4) / 4).tolist()
        scale = self.options.label_scale
        looks = self._looks
        for pm, idx in self._disc_groups(rs, scale, dpr):
            idx = idx[vis[idx]]
            stamp_many(painter, pm, dev[idx, 0], dev[idx, 1])
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

    def _disc_groups(self, rs: list[float], scale: float, dpr: float) -> list[tuple[QPixmap, np.ndarray]]:
        """The tokens' disc sprites and which tokens (index arrays) wear each, in the order
        of their first token; kept while the tokens' looks, sizes and portraits are the same
        (a drag step moves discs, it does not change them)."""
        key = (id(self._looks), tuple(rs), scale, dpr, id(self._portraits))
        memo = self._groups_memo
        if memo is not None and memo[0] == key and memo[1] is self._looks and memo[2] is self._portraits:
            return memo[3]
        groups: dict[int, tuple[QPixmap, list[int]]] = {}
        portraits, ids = self._portraits, self._ids
        for i, (colour, hidden, mark, _) in enumerate(self._looks):
            img = portraits.get(ids[i]) if portraits else None
            if img is not None:
                pm = _portrait_sprite(img, colour, hidden, mark, rs[i], scale, dpr)
            else:
                pm = _disc_sprite(colour, hidden, mark, rs[i], scale, dpr)
            groups.setdefault(pm.cacheKey(), (pm, []))[1].append(i)
        out = [(pm, np.array(idx, dtype=np.int64)) for pm, idx in groups.values()]
        self._groups_memo = (key, self._looks, self._portraits, out)
        return out

    TARGET_COLOUR = QColor("#ff3d3d")

    def _paint_targets(self, painter: QPainter, dev, rpx, vis) -> None:
        """Target rings: outside the zone rings, dark under bright, four ticks pointing in."""
        lines, rings = [], []
        for tid in self._targets:
            i = self._index.get(tid)
            if i is None or not vis[i]:
                continue
            x, y = dev[i, 0], dev[i, 1]
            rr = rpx[i] + 6.0 + 4.0 * min(len(self._rings.get(tid, ())), 4)
            rings.append((x, y, rr))
            for cx, cy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                lines.append(QLineF(x + cx * (rr + 6), y + cy * (rr + 6), x + cx * (rr - 3), y + cy * (rr - 3)))
        painter.setBrush(NO_BRUSH)
        for colour, width in ((QColor("#0b0d10"), 5.0), (self.TARGET_COLOUR, 2.5)):
            painter.setPen(cosmetic(colour, width))
            for x, y, rr in rings:
                painter.drawEllipse(QPointF(x, y), rr, rr)
            painter.drawLines(lines)

    def target_ring_radius_px(self, token_id: str, px_per_m: float) -> float | None:
        """The pixel radius of a targeted token's ring at this zoom (None: not targeted or
        not shown)."""
        i = self._index.get(token_id)
        if i is None or token_id not in self._targets:
            return None
        return float(self.radii_px(px_per_m)[i]) + 6.0 + 4.0 * min(len(self._rings.get(token_id, ())), 4)

    def token_at(self, x: float, y: float, slack: float = 0.0) -> str | None:
        """The id of the token drawn under (x, y) metres (within ``slack`` metres of its rim);
        the nearest centre wins."""
        if not len(self._xy):
            return None
        drawn = np.maximum(self._r, self._min_px() * self._m_per_px) if self._m_per_px else self._r
        d = np.hypot(self._xy[:, 0] - x, self._xy[:, 1] - y) - drawn
        i = int(np.argmin(d))
        return self._ids[i] if d[i] <= slack else None


def layout_cell(rs) -> float:
    """The cell size in pixels of the label layout's grid (:func:`gui.labels.place_labels`)
    for discs of pixel radii ``rs``: 96 px, or larger when a disc is so big (a token zoomed
    far in, or on a map a few centimetres wide) that it would cover more than 16 x 16 cells
    (a disc of a million pixels filled 10^8 cells: the window froze)."""
    biggest = max(rs, default=0.0)
    return max(96.0, 2 * biggest / 16)


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


def _portrait_sprite(image: QImage, colour: QColor, hidden: bool, mark: str, rp: float, scale: float,
                     dpr: float) -> QPixmap:
    """A token's picture clipped in its disc of radius ``rp`` pixels (the middle of the
    picture, scaled to cover the disc), a rim in the side's colour, the stance letter on a
    small pill; faded with a dashed rim when hidden."""
    rq = max(0.75, rp)
    size = 2 * rq + 4
    show_mark = bool(mark) and rq >= 5

    def draw(q: QPainter):
        c = QPointF(size / 2, size / 2)
        clip = QPainterPath()
        clip.addEllipse(c, rq, rq)
        q.save()
        q.setClipPath(clip, Qt.ClipOperation.IntersectClip)  # inside any clip of the page it is replayed on
        q.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        if hidden:
            q.setOpacity(0.45)
        side = min(image.width(), image.height())
        src = QRectF((image.width() - side) / 2, (image.height() - side) / 2, side, side)
        q.drawImage(QRectF(c.x() - rq, c.y() - rq, 2 * rq, 2 * rq), image, src)
        q.restore()
        q.setBrush(NO_BRUSH)
        if hidden:
            q.setPen(cosmetic(QColor("#e0e0e0"), 1.4, Qt.PenStyle.DashLine))
            q.drawEllipse(c, rq, rq)
        else:
            q.setPen(cosmetic(QColor("#0b0d10"), 1.0))
            q.drawEllipse(c, rq + 0.5, rq + 0.5)
            w = max(1.5, min(rq * 0.12, 6.0))  # the side's colour as a rim, an eighth of the radius
            q.setPen(cosmetic(colour, w))
            q.drawEllipse(c, rq - w / 2, rq - w / 2)
        if show_mark:
            draw_label(q, c.x(), c.y() + rq * 0.55, mark, max(8.0, min(rq * 0.9, 11.0 * scale)), anchor="center",
                       bold=True, fg=QColor("#0b0d10"), bg=with_alpha(colour, 230))

    key = ("portrait", image.cacheKey(), colour.rgba(), hidden, mark if show_mark else "", rq, round(scale, 2))
    return SPRITES.get(key, size, size, draw, dpr, holds=image)  # (draw keeps the whole picture)


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
            q.setBrush(QBrush(with_alpha(colour, 90)))
        else:
            q.setPen(cosmetic(QColor("#0b0d10"), 1.6) if rq >= 2 else NO_PEN)
            q.setBrush(QBrush(colour))
        q.drawEllipse(c, rq, rq)
        if show_mark:
            draw_label(q, c.x(), c.y(), mark, max(8.0, min(rq * 1.25, 13.0 * scale)), anchor="center",
                       bold=True, fg=QColor("#0b0d10"), bg=None)

    key = ("disc", colour.rgba(), hidden, mark if show_mark else "", rq, round(scale, 2))
    return SPRITES.get(key, size, size, draw, dpr)
