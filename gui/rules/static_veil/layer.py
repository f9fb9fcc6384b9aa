"""The Static Veil layer of the GM's map: grapple links, state marks and AP on tokens, whose
turn it is, and the preview of the maneuver being set up (charge path with its run-up leg,
where a shove leaves the target for each number of net hits, a dragged grapple's tracks).

One graphics item for all of it (see :mod:`gui.layers`). It draws only what it is given:
:func:`marks_for` and :func:`drawing_for` turn the engine's answers
(``RULESET.states``, ``grapple_links``, ``preview``) into plain drawing values; nothing here
measures the map or applies a rule.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field, replace

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath
from engine.names import token_name

from gui import style
from gui.layers import NO_BRUSH, NO_PEN, TEXT, MapLayer, with_alpha, cosmetic, draw_label
from gui.qtgeom import polyline_path
from gui.rules.base import Kept

XY = tuple[float, float]

REASON_WRAP = 52  # characters per line of a refusal on the map
REASON_LINES = 3
LINK_COLOUR = QColor("#e879f9")  # grapple links and marks
OK_COLOUR = QColor("#80deea")  # an allowed maneuver's preview
RUNUP_COLOUR = QColor("#ffffff")
REFUSED_COLOUR = QColor("#ff6e6e")
SHOVE_COLOUR = QColor("#ffd54f")
PARTNER_COLOUR = QColor("#f8bbd0")
ACTIVE_COLOUR = QColor("#fff176")
AP_COLOUR = QColor("#66bb6a")  # AP left
AP_EMPTY = QColor("#78909c")  # no AP left
STATE_COLOURS = {
    "Prone": QColor("#bcaaa4"),
    "Grappling": LINK_COLOUR,
    "Grappled": LINK_COLOUR,
    "Distracted": QColor("#ffe082"),
    "Incapacitated": QColor("#ff8a80"),
    "Charged": QColor("#80deea"),
}


def short_state(label: str) -> str:
    """A state label as the map marks it: the partner's name is left out of grapple states
    (the link shows it): "Grappling Vex" -> "Grappling", "Grappled by Rook" -> "Grappled"."""
    if label.startswith("Grappling"):
        return "Grappling"
    if label.startswith("Grappled"):
        return "Grappled"
    return label


def state_colour(label: str) -> QColor:
    return QColor(STATE_COLOURS.get(label.split(" ")[0], QColor("#cfd8dc")))


@dataclass(frozen=True)
class TokenMark:
    """What the layer marks on one token: AP left of ``ap_max``, Movement left (metres),
    short state labels, whether it is the active token."""

    id: str
    x: float
    y: float
    r: float
    ap: int
    ap_max: int
    movement_left: float
    states: tuple[str, ...] = ()
    active: bool = False
    badge_side: int = -1  # -1: the AP badge on the west rim, +1 east (clear of a grapple link)


@dataclass(frozen=True)
class Link:
    """A grapple: the initiator's and the held token's discs (x, y, r) and ids."""

    a: tuple[float, float, float]
    b: tuple[float, float, float]
    a_id: str = ""
    b_id: str = ""


@dataclass(frozen=True)
class Ghost:
    """A disc showing where a body would end (metres), with a label."""

    x: float
    y: float
    r: float
    label: str
    colour: QColor
    strong: bool = False
    tag: str = ""  # short text inside the disc ("0", "1+"), explained by ``label``


@dataclass
class Drawing:
    """A maneuver preview in drawing terms (metres; labels in pixels at map points)."""

    allowed: bool
    colour: QColor
    path: tuple[XY, ...] = ()
    runup: tuple[XY, XY] | None = None
    runup_label: str = ""
    partner_path: tuple[XY, ...] = ()
    ghosts: list[Ghost] = field(default_factory=list)
    arrow: tuple[XY, XY] | None = None
    stop_bar: tuple[XY, XY] | None = None
    line: tuple[XY, XY] | None = None
    #: (x, y, text, colour, away): ``away`` is a unit vector (screen = map axes) to push the
    #: label off the point, or None for above it
    labels: list[tuple[float, float, str, QColor, tuple[float, float] | None]] = field(default_factory=list)
    hover: bool = False  # a would-be target under the mouse, drawn lighter
    across: tuple[float, float] | None = None  # unit normal of the last leg (labels go either side)

    def points(self) -> list[XY]:
        pts: list[XY] = list(self.path) + list(self.partner_path)
        for g in self.ghosts:
            pts += [(g.x - g.r, g.y - g.r), (g.x + g.r, g.y + g.r)]
        for pair in (self.runup, self.arrow, self.line, self.stop_bar):
            if pair:
                pts += list(pair)
        pts += [(x, y) for x, y, _, _, _ in self.labels]
        return pts


# ---------------------------------------------------------------------------------------------
def marks_for(encounter, ruleset, kept: Kept | None = None) -> tuple[list[TokenMark], list[Link]]:
    """Marks for every token of a Static Veil encounter, and its grapple links, from the
    rule system's ``sheet``, ``states`` and ``grapple_links``. With ``kept``
    (:class:`gui.rules.base.Kept`) a token's mark is asked of the rules again only when the
    token, its grapple partner or whether it is the active token changed (an obstacle edit
    asks nothing; 500 tokens: ~19 ms when each token was looked up by id)."""
    settings = ruleset.settings(encounter)
    marks = []
    by_id = {t.id: t for t in encounter.tokens}

    def mark(t, partner):
        s = ruleset.sheet(t)
        states = tuple(short_state(x) for x in ruleset.token_states(encounter, t))
        side = 1 if partner is not None and partner.x < t.x else -1
        return TokenMark(t.id, t.x, t.y, t.radius, s.ap, s.ap_per_turn, s.movement_left, states,
                         settings.active == t.id, side)

    for t in encounter.tokens:
        raw = t.rules.get("static-veil")
        grapple = getattr(raw, "grapple", None)
        partner = by_id.get(grapple.other) if grapple is not None else None
        if kept is None:
            marks.append(mark(t, partner))
        else:
            marks.append(kept.get(t.id, (t, partner, settings.active == t.id), lambda t=t, p=partner: mark(t, p)))
    links = []
    for a, b in ruleset.grapple_links(encounter):
        ta, tb = by_id.get(a), by_id.get(b)
        if ta is not None and tb is not None:
            links.append(Link((ta.x, ta.y, ta.radius), (tb.x, tb.y, tb.radius), a, b))
    return marks, links


def reposition(marks: list[TokenMark], links: list[Link], encounter) -> tuple[list[TokenMark], list[Link]]:
    """The same marks and links at the tokens' current positions (a drag in progress only
    moves tokens: no need to ask the rule system again)."""
    pos = {t.id: (t.x, t.y) for t in encounter.tokens}
    out_m = [replace(m, x=pos[m.id][0], y=pos[m.id][1]) if m.id in pos and pos[m.id] != (m.x, m.y) else m
             for m in marks]
    out_l = []
    for ln in links:
        a = pos.get(ln.a_id, ln.a[:2])
        b = pos.get(ln.b_id, ln.b[:2])
        out_l.append(replace(ln, a=(a[0], a[1], ln.a[2]), b=(b[0], b[1], ln.b[2])))
    return out_m, out_l


def _group_shove_ends(ends) -> list[tuple[list[int], object]]:
    """Shove ends that land on the same spot, grouped: [([net hits...], end)]."""
    groups: list[tuple[list[int], object]] = []
    for e in ends:
        if groups:
            last = groups[-1][1]
            if abs(last.end[0] - e.end[0]) < 1e-6 and abs(last.end[1] - e.end[1]) < 1e-6:
                groups[-1][0].append(e.net_hits)
                continue
        groups.append(([e.net_hits], e))
    return groups


def hits_range(ns: list[int], last: int, stopped: bool) -> str:
    """The net hits of a group of shove ends: "0 net hits", "1 net hit", "2\u20133 net hits";
    "1+ net hits" when the group runs to the ``last`` previewed and is ``stopped`` (by a
    wall or body: more hits cannot push further)."""
    lo, hi = ns[0], ns[-1]
    if hi == last and stopped:
        return f"{lo}+ net hits"
    if lo != hi:
        return f"{lo}\u2013{hi} net hits"
    return f"{lo} net hit{'s' if lo != 1 else ''}"


def drawing_for(preview, encounter, *, net_hits: int | None = None, actor_wins: bool | None = None,
                hover: bool = False) -> Drawing:
    """The drawing of an engine ``Preview``. ``net_hits`` / ``actor_wins``: the outcome the
    GM has entered so far, to pick out the shove end it gives."""
    tokens = {t.id: t for t in encounter.tokens}
    actor = tokens.get(preview.actor)
    target = tokens.get(preview.target) if preview.target else None
    colour = QColor(OK_COLOUR if preview.allowed else REFUSED_COLOUR)
    d = Drawing(allowed=preview.allowed, colour=colour, hover=hover)
    d.path = tuple(preview.path)
    if preview.runup_start is not None and preview.end is not None:
        d.runup = (tuple(preview.runup_start), tuple(preview.end))
        straight = math.dist(preview.runup_start, preview.end)
        d.runup_label = f"run-up {straight:.1f} m"
    if actor is not None and preview.end is not None and d.path:
        ex, ey = preview.end
        d.ghosts.append(Ghost(ex, ey, actor.radius, "", style.side_colour(actor.side)))
    if preview.partner and preview.partner_path:
        d.partner_path = tuple(preview.partner_path)
        partner = tokens.get(preview.partner)
        if partner is not None:
            px, py = preview.partner_path[-1]
            d.ghosts.append(Ghost(px, py, partner.radius, token_name(partner), style.side_colour(partner.side)))
    if target is not None and preview.shove_ends:
        last = preview.shove_ends[-1].net_hits
        groups = _group_shove_ends(preview.shove_ends)
        far = max(preview.shove_ends, key=lambda e: e.travelled)
        d.arrow = ((target.x, target.y), tuple(far.end))
        for ns, e in groups:
            text = hits_range(ns, last, e.stopped_by is not None)
            tag = text.split(" ")[0]
            text += f": {e.travelled:.1f} m" + (f", stopped by {e.stopped_by}" if e.stopped_by else "")
            strong = actor_wins is True and net_hits is not None and (
                net_hits in ns or (net_hits > last and ns[-1] == last and e.stopped_by is not None))
            d.ghosts.append(Ghost(e.end[0], e.end[1], target.radius, text, SHOVE_COLOUR, strong, tag))
        if far.stopped_by:
            a = math.radians(preview.shove_direction or 0.0)
            c, s = math.cos(a), math.sin(a)
            fx, fy = far.end[0] + target.radius * c, far.end[1] + target.radius * s
            half = target.radius * 1.2
            d.stop_bar = ((fx - s * half, fy + c * half), (fx + s * half, fy - c * half))
    if target is not None and actor is not None and not d.path:
        d.line = ((actor.x, actor.y), (target.x, target.y))
    # the headline label: at the end of the path, else by the target, else by the actor
    anchor, away = None, None
    if len(d.path) >= 2:
        anchor = d.path[-1]
        (x0, y0), (x1, y1) = d.path[-2], d.path[-1]
        n = math.hypot(x1 - x0, y1 - y0)
        if n > 1e-9:
            nx, ny = -(y1 - y0) / n, (x1 - x0) / n  # across the last leg
            if ny < -1e-6 or (abs(ny) <= 1e-6 and nx < 0):
                nx, ny = -nx, -ny
            away = (nx, ny)  # the headline below (or right of) the leg; the run-up label opposite
            d.across = away
    elif target is not None:
        anchor = (target.x, target.y - target.radius)
    elif actor is not None:
        anchor = (actor.x, actor.y - actor.radius)
    if anchor is not None:
        d.labels.append((anchor[0], anchor[1], headline(preview, actor, target), colour, away))
    return d


def headline(preview, actor, target) -> str:
    """The map's summary of a preview: "Charge Vex: 11.4 m, 2 AP", or for a refused one
    "Charge refused:" and the reason wrapped in lines of REASON_WRAP characters (at most
    REASON_LINES; the panel shows it whole)."""
    who = token_name(target) if target is not None else ""
    if not preview.allowed:
        reason = preview.reason or "not allowed"
        if ": " in reason and len(reason) > 60:
            reason = reason.split(": ", 1)[1]  # "Moss cannot charge Ash: <why>" -> <why>
        lines = textwrap.wrap(reason, REASON_WRAP)
        if len(lines) > REASON_LINES:
            lines = lines[:REASON_LINES]
            lines[-1] = lines[-1].rstrip(".,;") + " \u2026"
        return "\n".join([f"{preview.label} refused:"] + lines)
    parts = [f"{preview.label} {who}".strip()]
    if preview.movement_cost:
        parts.append(f"{preview.movement_cost:.1f} m")
    parts.append(f"{preview.ap_cost} AP")
    return ": ".join([parts[0], ", ".join(parts[1:])])


# ---------------------------------------------------------------------------------------------
def _label_in_view(painter: QPainter, x: float, y: float, text: str, px: float, *, anchor: str = "top",
                   bold: bool = False, fg: QColor = style.LABEL_TEXT, bg: QColor | None = style.LABEL_PILL) -> QRectF:
    """:func:`gui.layers.draw_label`, moved sideways so that the pill stays inside the
    painter's viewport (pixels) when it would stick out left or right."""
    _, w, h = TEXT.get(text, px, bold)
    bw = w + 0.7 * h
    left = {"top": x - bw / 2, "bottom": x - bw / 2, "center": x - bw / 2, "left": x, "right": x - bw}[anchor]
    vw = painter.viewport().width()
    shift = 0.0
    if vw > 0 and left + bw > vw - 4:
        shift = (vw - 4) - (left + bw)
    if left + shift < 4:
        shift = 4 - left
    return draw_label(painter, x + shift, y, text, px, anchor=anchor, bold=bold, fg=fg, bg=bg)


class StaticVeilLayer(MapLayer):
    """Grapple links, token marks (AP, states, active turn) and the maneuver preview."""

    def __init__(self, options, labels=None):
        super().__init__(options)
        self.setZValue(30)
        self.marks: list[TokenMark] = []
        self.links: list[Link] = []
        self.drawing: Drawing | None = None
        #: the map's :class:`gui.layers.TokenLayer`: its label layout keeps room for the state
        #: tags under each name, and they are drawn where it moved that name
        self.labels = labels
        self._states_key: tuple = ()

    def set_marks(self, marks: list[TokenMark], links: list[Link]) -> None:
        if marks == self.marks and links == self.links:
            return  # (an edit that changed no mark: nothing to lay out or draw again)
        self.marks, self.links = marks, links
        self._reserve_states()
        self._refresh()

    def _state_tags(self, m: TokenMark) -> list[str]:
        return [st for st in m.states if st != "Grappling"]  # the link's knot marks the holder

    def _reserve_states(self) -> None:
        """Tell the token layer how much room (pixels) each token's state tags take under its
        name label (see :meth:`gui.layers.TokenLayer.set_label_extras`) and where the AP
        badges are (its labels keep clear of them)."""
        if self.labels is None:
            return
        self.labels.set_label_obstacles(self._badges if self.marks else None)
        key = (self.options.label_scale, self.options.label_px) + tuple((m.id, m.states) for m in self.marks if m.states)
        if key == self._states_key:
            return
        self._states_key = key
        px = 11.0 * self.options.label_scale
        _, _, name_h = TEXT.get("Xg", self.options.label_px, True)
        pill_h = math.ceil(1.12 * name_h + 1)  # the name label's sprite (gui.layers.label_sprite)
        extras = {}
        for m in self.marks:
            sizes = [TEXT.get(st, px, True)[1:] for st in self._state_tags(m)]
            if sizes:
                # the tags start name_h + 3 below the label's top, each 1.12 th high, 2 px apart
                h = name_h + 3 - pill_h + sum(1.12 * th for _, th in sizes) + 2 * (len(sizes) - 1)
                extras[m.id] = (max(tw + 0.7 * th for tw, th in sizes), max(0.0, h) + 1)
        self.labels.set_label_extras(extras)

    def set_drawing(self, drawing: Drawing | None) -> None:
        if drawing is None and self.drawing is None:
            return  # (no preview before, none now: nothing to draw again)
        self.drawing = drawing
        self._refresh()

    def clear(self) -> None:
        self.marks, self.links, self.drawing = [], [], None
        self._reserve_states()
        self._refresh()

    def _refresh(self) -> None:
        pts: list[XY] = []
        for m in self.marks:
            pts += [(m.x - m.r, m.y - m.r), (m.x + m.r, m.y + m.r)]
        if self.drawing is not None:
            pts += self.drawing.points()
        if pts:
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            rect = QRectF(min(xs) - 1, min(ys) - 1, max(xs) - min(xs) + 2, max(ys) - min(ys) + 2)
        else:
            rect = QRectF()
        self._set_rect(rect, 420.0 * self.options.label_scale)
        self.update()

    # -- painting ------------------------------------------------------------------------------
    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        tr = painter.transform()
        px_per_m = abs(tr.m11()) or 1.0
        self._paint_links(painter, px_per_m)
        self._paint_active(painter, px_per_m)
        if self.drawing is not None:
            self._paint_drawing(painter, self.drawing, px_per_m)
        painter.save()
        painter.resetTransform()
        self._paint_marks(painter, tr, px_per_m)
        if self.drawing is not None:
            self._paint_drawing_labels(painter, self.drawing, tr, px_per_m)
        painter.restore()

    def _paint_links(self, painter: QPainter, px_per_m: float) -> None:
        for ln in self.links:
            (ax, ay, ar), (bx, by, br) = ln.a, ln.b
            dist = math.hypot(bx - ax, by - ay)
            if dist < 1e-9:
                continue
            ux, uy = (bx - ax) / dist, (by - ay) / dist
            p0 = QPointF(ax + ux * ar * 0.55, ay + uy * ar * 0.55)
            p1 = QPointF(bx - ux * br * 0.55, by - uy * br * 0.55)
            painter.setBrush(NO_BRUSH)
            painter.setPen(cosmetic(QColor(0, 0, 0, 200), 9.0))
            painter.drawLine(p0, p1)
            painter.setPen(cosmetic(LINK_COLOUR, 5.0))
            painter.drawLine(p0, p1)
            # the initiator's end: a knot showing who holds whom
            painter.setPen(cosmetic(QColor("#0b0d10"), 1.5))
            painter.setBrush(QBrush(LINK_COLOUR))
            k = 5.5 / px_per_m
            painter.drawEllipse(p0, k, k)

    def _paint_active(self, painter: QPainter, px_per_m: float) -> None:
        for m in self.marks:
            if not m.active:
                continue
            rr = m.r + 9.0 / px_per_m
            painter.setBrush(NO_BRUSH)
            painter.setPen(cosmetic(QColor(0, 0, 0, 180), 5.0))
            painter.drawEllipse(QPointF(m.x, m.y), rr, rr)
            painter.setPen(cosmetic(ACTIVE_COLOUR, 2.5, Qt.PenStyle.DashLine))
            painter.drawEllipse(QPointF(m.x, m.y), rr, rr)

    def _paint_drawing(self, painter: QPainter, d: Drawing, px_per_m: float) -> None:
        alpha = 150 if d.hover else 255
        colour = with_alpha(d.colour, alpha)
        painter.setBrush(NO_BRUSH)
        if d.line is not None:
            a, b = QPointF(*d.line[0]), QPointF(*d.line[1])
            painter.setPen(cosmetic(QColor(0, 0, 0, 150), 5.0))
            painter.drawLine(a, b)
            painter.setPen(cosmetic(colour, 2.2, Qt.PenStyle.DashLine))
            painter.drawLine(a, b)
        if len(d.path) >= 2:
            path = polyline_path(list(d.path))
            painter.setPen(cosmetic(QColor(0, 0, 0, 160), 6.0))
            painter.drawPath(path)
            painter.setPen(cosmetic(colour, 3.0, Qt.PenStyle.DashLine))
            painter.drawPath(path)
        if d.runup is not None:
            a, b = QPointF(*d.runup[0]), QPointF(*d.runup[1])
            painter.setPen(cosmetic(QColor(0, 0, 0, 200), 9.0))
            painter.drawLine(a, b)
            painter.setPen(cosmetic(with_alpha(RUNUP_COLOUR if d.allowed else REFUSED_COLOUR, alpha), 5.0))
            painter.drawLine(a, b)
            # where the straight run-up begins: a bar across the path
            dx, dy = b.x() - a.x(), b.y() - a.y()
            n = math.hypot(dx, dy) or 1.0
            k = 9.0 / px_per_m
            nx, ny = -dy / n * k, dx / n * k
            painter.setPen(cosmetic(QColor(0, 0, 0, 200), 7.0))
            painter.drawLine(QPointF(a.x() - nx, a.y() - ny), QPointF(a.x() + nx, a.y() + ny))
            painter.setPen(cosmetic(RUNUP_COLOUR, 3.5))
            painter.drawLine(QPointF(a.x() - nx, a.y() - ny), QPointF(a.x() + nx, a.y() + ny))
        if len(d.partner_path) >= 2:
            path = polyline_path(list(d.partner_path))
            painter.setPen(cosmetic(QColor(0, 0, 0, 160), 6.0))
            painter.drawPath(path)
            painter.setPen(cosmetic(with_alpha(PARTNER_COLOUR, alpha), 3.0, Qt.PenStyle.DotLine))
            painter.drawPath(path)
        if d.arrow is not None:
            self._paint_arrow(painter, d.arrow, with_alpha(SHOVE_COLOUR, alpha), px_per_m)
        for g in d.ghosts:
            pen = cosmetic(g.colour, 3.0 if g.strong else 2.0, Qt.PenStyle.SolidLine if g.strong else Qt.PenStyle.DashLine)
            painter.setPen(cosmetic(QColor(0, 0, 0, 170), 5.0 if g.strong else 4.0))
            painter.setBrush(NO_BRUSH)
            painter.drawEllipse(QPointF(g.x, g.y), g.r, g.r)
            painter.setPen(pen)
            painter.setBrush(QBrush(with_alpha(g.colour, 130 if g.strong else 55)))
            painter.drawEllipse(QPointF(g.x, g.y), g.r, g.r)
        if d.stop_bar is not None:
            a, b = QPointF(*d.stop_bar[0]), QPointF(*d.stop_bar[1])
            painter.setPen(cosmetic(QColor(0, 0, 0, 200), 8.0))
            painter.drawLine(a, b)
            painter.setPen(cosmetic(REFUSED_COLOUR, 4.0))
            painter.drawLine(a, b)

    @staticmethod
    def _paint_arrow(painter: QPainter, arrow, colour: QColor, px_per_m: float) -> None:
        (x0, y0), (x1, y1) = arrow
        dist = math.hypot(x1 - x0, y1 - y0)
        if dist < 1e-9:
            return
        ux, uy = (x1 - x0) / dist, (y1 - y0) / dist
        head = 12.0 / px_per_m
        tip = QPointF(x1, y1)
        path = QPainterPath(QPointF(x0, y0))
        path.lineTo(tip)
        wing = QPainterPath(QPointF(x1 - ux * head - uy * head * 0.6, y1 - uy * head + ux * head * 0.6))
        wing.lineTo(tip)
        wing.lineTo(QPointF(x1 - ux * head + uy * head * 0.6, y1 - uy * head - ux * head * 0.6))
        painter.setBrush(NO_BRUSH)
        painter.setPen(cosmetic(QColor(0, 0, 0, 190), 6.5))
        painter.drawPath(path)
        painter.drawPath(wing)
        painter.setPen(cosmetic(colour, 3.0))
        painter.drawPath(path)
        painter.drawPath(wing)

    def _badge_rect(self, m: TokenMark, px_per_m: float) -> tuple[float, float, float, float]:
        """The AP badge of ``m`` as (left, top, right, bottom) pixels from the token's centre."""
        _, tw, th = TEXT.get(str(m.ap), 11.0 * self.options.label_scale, True)
        d = max(th + 2, tw + 8)
        # outside the selection outline (rim + 0.12 m, 4.5 px pen) so a selected token shows it
        cx = m.badge_side * (m.r * px_per_m + max(2.0, 0.12 * px_per_m + 2.5) + d / 2)
        return (cx - d / 2, -(th + 2) / 2, cx + d / 2, (th + 2) / 2)

    def _badges(self, px_per_m: float) -> list[tuple[str, float, float, float, float]]:
        """The AP badges as obstacles for the token layer's label layout (see
        :meth:`gui.layers.TokenLayer.set_label_obstacles`); none where they are not drawn."""
        if px_per_m < 6.0:
            return []
        return [(m.id, *self._badge_rect(m, px_per_m)) for m in self.marks]

    def _paint_marks(self, painter: QPainter, tr, px_per_m: float) -> None:
        if px_per_m < 6.0:
            return  # too far out to read; the panel has the numbers
        s = self.options.label_scale
        px = 11.0 * s
        _, _, name_h = TEXT.get("Xg", self.options.label_px, True)
        for m in self.marks:
            p = tr.map(QPointF(m.x, m.y))
            rp = m.r * px_per_m
            # the name label's place after the token layer's label layout (moved if it collided)
            ox, oy = self.labels.label_offset(m.id, px_per_m) if self.labels is not None else (0.0, 0.0)
            # AP left: a round badge on the token's west rim (neighbours in melee stay clear),
            # east when a grapple link leaves westwards
            text = str(m.ap)
            l, t, r, b = self._badge_rect(m, px_per_m)
            cx = p.x() + (l + r) / 2
            painter.setPen(cosmetic(QColor("#0b0d10"), 1.5))
            painter.setBrush(QBrush(AP_COLOUR if m.ap > 0 else AP_EMPTY))
            painter.drawRoundedRect(QRectF(p.x() + l, p.y() + t, r - l, b - t), (b - t) / 2, (b - t) / 2)
            draw_label(painter, cx, p.y(), text, px, anchor="center", bold=True, fg=QColor("#0b0d10"), bg=None)
            # states, one under another below the name label (drawn at rim + 3 px)
            y = p.y() + rp + 3 + name_h + 3 + oy
            for st in self._state_tags(m):
                r = draw_label(painter, p.x() + ox, y, st, px, anchor="top", bold=True, fg=QColor("#0b0d10"),
                               bg=state_colour(st))
                y = r.bottom() + 2
            if m.active:
                draw_label(painter, p.x() - rp - 12, p.y() - rp - 4, "turn", px, anchor="right", bold=True,
                           fg=QColor("#0b0d10"), bg=ACTIVE_COLOUR)

    def _paint_drawing_labels(self, painter: QPainter, d: Drawing, tr, px_per_m: float) -> None:
        s = self.options.label_scale
        px = 12.5 * s
        if d.runup is not None and d.runup_label:
            (ax, ay), (bx, by) = d.runup
            mid = tr.map(QPointF((ax + bx) / 2, (ay + by) / 2))
            nx, ny = d.across if d.across is not None else (0.0, 1.0)
            # opposite the headline's side of the leg
            lx, ly = mid.x() - nx * 12, mid.y() - ny * 12
            side = "bottom" if abs(ny) >= abs(nx) else ("right" if nx > 0 else "left")
            draw_label(painter, lx, ly, d.runup_label, px, anchor=side, bold=True,
                       fg=QColor("#0b0d10"), bg=RUNUP_COLOUR if d.allowed else REFUSED_COLOUR)
        # shove ends: a tag in each disc, the list of what each means under the farthest
        tagged = [g for g in d.ghosts if g.tag]
        for g in tagged:
            p = tr.map(QPointF(g.x, g.y))
            if g.r * px_per_m >= 7:
                draw_label(painter, p.x(), p.y(), g.tag, max(8.0, min(g.r * px_per_m * 0.8, px)), anchor="center",
                           bold=True, fg=QColor("#0b0d10"), bg=None)
        if tagged and d.arrow is not None:
            end = tr.map(QPointF(*d.arrow[1]))
            _, _, name_h = TEXT.get("Xg", self.options.label_px, True)
            y = end.y() + tagged[0].r * px_per_m + name_h + 8  # below the name labels' row
            for g in tagged:
                r = _label_in_view(painter, end.x(), y, g.label, px * 0.92, anchor="top", bold=g.strong,
                                   fg=QColor("#0b0d10"), bg=with_alpha(g.colour, 245 if g.strong else 190))
                y = r.bottom() + 3
        for x, y, text, colour, away in d.labels:
            p = tr.map(QPointF(x, y))
            if away is not None:
                # beside the path's end, across the last leg (clear of the run-up label)
                ux, uy = away
                side = "top" if abs(uy) >= abs(ux) else "left"
                gap = 8.0 + (d.ghosts[0].r * px_per_m if d.ghosts else 0.0)
                lx, ly = p.x() + ux * gap, p.y() + uy * gap
                if side == "top" and len(d.path) >= 2:
                    # extend the way the last leg runs, away from the run-up label over its middle
                    heading = 1.0 if d.path[-1][0] >= d.path[-2][0] else -1.0
                    widest = max(TEXT.get(ln, px * 1.05, True)[1] for ln in text.split("\n"))
                    lx += heading * (widest / 2 - 6)
            else:
                side, lx, ly = "bottom", p.x(), p.y() - 30
            lines = text.split("\n")
            _, _, h = TEXT.get("Xg", px * 1.05, True)
            step = h * 1.12 + 2
            if side == "bottom":
                ly -= step * (len(lines) - 1)
            elif side == "left":
                ly -= step * (len(lines) - 1) / 2
            for i, line in enumerate(lines):
                _label_in_view(painter, lx, ly + i * step, line, px * 1.05, anchor=side, bold=i == 0,
                               fg=QColor("#0b0d10"), bg=with_alpha(colour, 240))
        painter.setPen(NO_PEN)
