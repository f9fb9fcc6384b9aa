"""The engine's answers for the attacker: badges on the other tokens, the line of sight and
hidden silhouette, the charge path."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen, QPixmap

from engine.model import Encounter
from geometry.cover import cover_percent
from gui import style
from gui.qtgeom import polygon_f, polyline_path
from gui.style import ViewOptions
from gui.layers.base import MapLayer
from gui.layers.tokens import TokenLayer
from gui.layers.paint import (
    NO_BRUSH,
    NO_PEN,
    SPRITES,
    TEXT,
    with_alpha,
    device_ratio,
    cosmetic,
    draw_label,
    stamp,
    stamp_many,
)


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
        self._badge_ids: list[str] = []
        self._sight: dict | None = None
        self._charge: dict | None = None
        self.build_count = 0
        #: the view's token layer, whose layout places the badges (None: above each disc)
        self.token_layer: TokenLayer | None = None
        #: where the silhouette inset was last drawn (painter pixels), None when it was not
        self.inset_at: QRectF | None = None

    def set_answers(self, encounter: Encounter, attacker_id: str | None, reports: dict,
                    sight=None, charge=None, focus_id: str | None = None) -> None:
        """Take the engine's reports (``TargetReport`` by id), and for ``focus_id`` its
        ``SightReport`` and ``ChargePlan``."""
        self.build_count += 1
        was = (dict(zip(self._badge_ids, self._badges)), self._attacker,
               self._sight is not None or self._charge is not None)
        self._badges = []
        self._badge_ids: list[str] = []
        self._attacker = None
        self._sight = None
        self._charge = None
        tokens = {t.id: t for t in encounter.tokens if self.options.shows(t)}
        a = tokens.get(attacker_id) if attacker_id else None
        if a is not None:
            self._attacker = (a.x, a.y, a.radius)
            ranged = uses_range_bands(encounter)  # the others have no range bands: show metres
            if self.options.show_badges:
                for tid, rep in reports.items():
                    t = tokens.get(tid)
                    if t is None:
                        continue
                    self._badges.append((t.x, t.y, t.radius, badge_for(rep, ranged)))
                    self._badge_ids.append(tid)
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
        before = QRectF(self._rect)
        self._set_rect(rect, 200.0 * self.options.label_scale)  # (the inset: up to ~190 px out)
        tl = self.token_layer
        if tl is not None and self._rect == before and not was[2] and self._sight is None \
                and self._charge is None and tl.simple_drawing():
            self._update_changed(*was[:2])
        else:
            self.update()

    #: More changed places than this in one step repaint the whole layer instead.
    MAX_DIRTY_RECTS = 24

    def _update_changed(self, old_badges: dict, old_attacker) -> None:
        """Repaint only where a badge (a dot, zoomed out) or the attacker's ring changed."""
        m = self._m_per_px
        pad = self.token_layer.FOOTPRINT_PX * m
        dirty = []

        def around(x, y, r):
            rr = max(r, TokenLayer.MIN_RADIUS_PX * m) + pad
            dirty.append(QRectF(x - rr, y - rr, 2 * rr, 2 * rr))

        if old_attacker != self._attacker:
            for a in (old_attacker, self._attacker):
                if a is not None:
                    around(*a)
        new = dict(zip(self._badge_ids, self._badges))
        for tid in old_badges.keys() | new.keys():
            o, n = old_badges.get(tid), new.get(tid)
            if o != n:
                for b in (o, n):
                    if b is not None:
                        around(b[0], b[1], b[2])
        if len(dirty) > self.MAX_DIRTY_RECTS:  # a region of many rects clips dearer than it saves
            self.update()
            return
        for r in dirty:
            self.update(r)

    def badge_boxes(self) -> dict[str, tuple[float, float]]:
        """token id -> (width, height) pixels of the badge drawn above its disc (bottom
        edge 3 px above the rim, centred), for the label layout to keep clear of."""
        bpx = self.options.badge_px
        return {tid: badge_size(b, bpx) for tid, (_, _, _, b) in zip(self._badge_ids, self._badges)}

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
        dpr = device_ratio(painter)
        if self._badges:
            arr = np.array([(x, y, r) for x, y, r, _ in self._badges], dtype=float)
            cxs = (arr[:, 0] * m11 + dx).tolist()
            cys = (arr[:, 1] * m22 + dy).tolist()
            tops = (arr[:, 1] * m22 + dy - np.maximum(arr[:, 2] * px_per_m, TokenLayer.MIN_RADIUS_PX) - 3).tolist()
            placed = self.token_layer.badge_rects(px_per_m) if self.token_layer is not None else {}
            if placed:  # where the badge layout put them (clear of discs and of each other)
                for i, tid in enumerate(self._badge_ids):
                    r = placed.get(tid)
                    if r is not None:
                        cxs[i] = (r[0] + r[2]) / 2 + dx
                        tops[i] = r[3] + dy
            c = tr.mapRect(clip) if not clip.isEmpty() else None
            full = px_per_m >= TokenLayer.LABEL_MIN_PX_PER_M
            # the badges that look alike are stamped in one call
            groups: dict[int, tuple] = {}
            for i, (_, _, _, b) in enumerate(self._badges):
                if c is not None and not (c.left() - 80 < cxs[i] < c.right() + 80 and c.top() - 40 < cys[i] < c.bottom() + 60):
                    continue
                if full:
                    pm, y = _badge_sprite(b, bpx, dpr), tops[i]
                else:  # zoomed far out: only the cover colour, as a dot above the token
                    pm, y = _dot_sprite(b.colour, dpr), tops[i] - 1
                g = groups.get(pm.cacheKey())
                if g is None:
                    g = groups[pm.cacheKey()] = (pm, [], [])
                g[1].append(cxs[i])
                g[2].append(y)
            for pm, gx, gy in groups.values():
                stamp_many(painter, pm, gx, gy, "bottom")
        if self._charge is not None:
            c = self._charge
            lx, ly = c["label_at"]
            draw_label(painter, lx * m11 + dx, ly * m22 + dy + 14, c["text"], bpx * 1.1, anchor="top",
                       bold=True, fg=QColor("#0b0d10"), bg=with_alpha(style.CHARGE_COLOUR, 235))
        if self._sight is not None and self._sight.get("profile") is not None:
            self.inset_at = _draw_silhouette(painter, self._sight, m11, m22, dx, dy, px_per_m,
                                             self.options.label_scale, self._inset_avoid(px_per_m, dx, dy))
        else:
            self.inset_at = None
        painter.restore()

    def _inset_avoid(self, px_per_m: float, dx: float, dy: float) -> np.ndarray:
        """What the silhouette inset keeps clear of, in the painter's pixels: every token's
        name block (name and what hangs under it) and attack badge, and the other tokens'
        discs, as rows of left, top, width and height (:func:`inset_place`)."""
        tl = self.token_layer
        if tl is None:
            return np.zeros((0, 4))
        boxes = list(tl.block_rects(px_per_m).values()) + list(tl.badge_rects(px_per_m).values())
        B = np.array(boxes, dtype=float).reshape(-1, 4)
        labels = np.column_stack([B[:, 0] + dx, B[:, 1] + dy, B[:, 2] - B[:, 0], B[:, 3] - B[:, 1]])
        xy = np.asarray(tl.xy, dtype=float).reshape(-1, 2)
        rs = np.asarray(tl.radii_px(px_per_m), dtype=float).reshape(-1)
        keep = np.ones(len(xy), dtype=bool)
        target = self._sight["target"] if self._sight is not None else None
        if target is not None:
            keep = ~((np.abs(xy[:, 0] - target[0]) < 1e-9) & (np.abs(xy[:, 1] - target[1]) < 1e-9))
        x, y, r = xy[keep, 0], xy[keep, 1], rs[keep]
        discs = np.column_stack([x * px_per_m + dx - r, y * px_per_m + dy - r, 2 * r, 2 * r])
        return np.vstack([labels, discs])


_BADGES: dict[tuple, Badge] = {}


def uses_range_bands(encounter: Encounter) -> bool:
    """Whether the encounter's rule system judges targets by range band (its registered
    system says; an unknown ruleset: no bands, badges show metres)."""
    from engine.errors import CoverfireError
    from engine.rules import find_system

    try:
        return bool(find_system(encounter.ruleset).uses_range_bands)
    except (CoverfireError, ValueError):
        return False


def badge_size(b: Badge, px: float) -> tuple[float, float]:
    """The pixel width and height of a badge drawn at ``px`` (its sprite's size)."""
    _, w1, h = TEXT.get(b.text, px, True)
    _, w2, _ = TEXT.get(b.cover or "?", px, True)
    return w1 + w2 + 4 * 0.35 * h + 1, h + 3


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


def inset_place(cx: float, cy: float, rpx: float, fw: float, fh: float, gap: float,
                vp: QRectF, avoid) -> QRectF:
    """Where the silhouette inset (``fw`` x ``fh`` px) goes beside a target disc (centre
    ``cx``, ``cy``, radius ``rpx``): right of it, else left, level with it, else raised or
    lowered by half its height, then as much again farther out, the first place covering none of ``avoid`` (names, badges,
    discs) and inside ``vp`` (when known); when every place covers something, the one
    covering least. ``avoid``: rectangles (a list of ``QRectF``, or an (n, 4) array of their
    left, top, width and height: the same answer, without a rectangle object each)."""
    places = [QRectF(x, cy - fh / 2 + shift * fh / 2, fw, fh)
              for away in (gap, 2.2 * gap) for shift in (0, -1, 1)
              for x in (cx + rpx + away, cx - rpx - away - fw)]
    covered = _covered(places, avoid)

    def cost(k: int, r: QRectF) -> float:
        c = 0.0
        for a in covered[k]:  # (in the order of avoid, as QRectF.intersected one by one)
            c += a
        if not vp.isEmpty():
            i = r.intersected(vp)
            c += 4 * (r.width() * r.height() - (0.0 if i.isEmpty() else i.width() * i.height()))
        return c

    best = places[0]
    best_cost = None
    for k, r in enumerate(places):
        c = cost(k, r)
        if c == 0:
            return r
        if best_cost is None or c < best_cost:
            best, best_cost = r, c
    return best


def _covered(places: list[QRectF], avoid) -> list[list[float]]:
    """For each place, the areas (px^2) it covers of the ``avoid`` rectangles it meets, in
    their order: ``QRectF.intersected``'s arithmetic on arrays (a side runs from its
    position to position + size, the overlap from the larger start to the smaller end;
    none when that is empty)."""
    if isinstance(avoid, np.ndarray):
        A = avoid.reshape(-1, 4).astype(float, copy=False)
    else:
        A = np.array([(a.x(), a.y(), a.width(), a.height()) for a in avoid], dtype=float).reshape(-1, 4)
    if len(A) == 0:
        return [[] for _ in places]
    ax0, ay0 = A[:, 0], A[:, 1]
    ax1, ay1 = ax0 + A[:, 2], ay0 + A[:, 3]
    al, ar = np.minimum(ax0, ax1), np.maximum(ax0, ax1)
    at, ab = np.minimum(ay0, ay1), np.maximum(ay0, ay1)
    P = np.array([(r.x(), r.y(), r.width(), r.height()) for r in places], dtype=float)
    pl, pt = P[:, 0:1], P[:, 1:2]
    pr, pb = pl + P[:, 2:3], pt + P[:, 3:4]
    iw = np.minimum(pr, ar[None, :]) - np.maximum(pl, al[None, :])
    ih = np.minimum(pb, ab[None, :]) - np.maximum(pt, at[None, :])
    hit = (iw > 0) & (ih > 0)
    area = iw * ih
    return [area[k][hit[k]].tolist() for k in range(len(places))]


def _draw_silhouette(painter: QPainter, s: dict, m11, m22, dx, dy, px_per_m, scale: float,
                     avoid: list[QRectF] = ()) -> QRectF:
    """An inset beside the target: its silhouette as the shooter sees it (the shooter's right
    on the right), the hidden part dark and hatched, with the hidden percentage and class;
    placed clear of ``avoid`` (:func:`inset_place`). Returns where it was drawn."""
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
    area = QRectF(4, 4, vp.width() - 8, vp.height() - 8) if vp.width() > 8 and vp.height() > 8 else QRectF()
    place = inset_place(cx, cy, radius * px_per_m, fw, fh, 26 * scale, area, avoid)
    left, top = place.left(), place.top()
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
    return place


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
    movement = plan.movement if plan.movement is not None else 0.0
    return {"qpath": polyline_path(pts), "runup": runup, "path": pts,
            "label_at": halfway(pts) if pts else (t.x, t.y), "text": f"charge {movement:.1f} m"}


def halfway(pts) -> tuple[float, float]:
    """The point half-way along a polyline (metres): where a path's label goes, clear of
    the tokens and labels at its ends."""
    legs = [math.dist(a, b) for a, b in zip(pts, pts[1:])]
    left = sum(legs) / 2
    for (a, b), d in zip(zip(pts, pts[1:]), legs):
        if d >= left and d > 0:
            k = left / d
            return (a[0] + (b[0] - a[0]) * k, a[1] + (b[1] - a[1]) * k)
        left -= d
    return tuple(pts[-1])
