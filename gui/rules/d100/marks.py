"""Compact d100 status marks on the map's tokens: an injury arc around each disc (the
injury total against the maximum, coloured by how close to death), and small tags for
dead, unconscious, stunned and bleeding. One item for all tokens, drawn in device pixels
above the token layer, like the map's own layers."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

from engine.d100 import RULESET
from gui.layers import MapLayer, cosmetic, draw_label
from gui.style import GM_VIEW


class StatusMarkLayer(MapLayer):
    """Draws, for each token with a d100 sheet: a ring arc (injury / maximum), an X over the
    dead, and a tag row under the disc (``DEAD``, ``KO``, ``STUN``, ``BLEED n``)."""

    def __init__(self, options=GM_VIEW):
        super().__init__(options)
        self.setZValue(5)
        self._marks: list[tuple[float, float, float, float, bool, list[tuple[str, QColor]]]] = []
        self._tags: dict[str, tuple[object, int, float, list]] = {}  # id -> (sheet, round, frac, tags)

    def _tags_of(self, encounter, t) -> tuple[float, list[tuple[str, QColor]]]:
        """Injury fraction and tags of one token, kept while its sheet and the round stay
        the same (a drag moves tokens without asking the rules again)."""
        rnd = encounter.d100.round if encounter.d100 is not None else 0
        hit = self._tags.get(t.id)
        if hit is not None and hit[0] is t.d100 and hit[1] == rnd:
            return hit[2], hit[3]
        s = t.d100
        frac = min(1.0, s.injury / max(1, s.max_injury))
        tags: list[tuple[str, QColor]] = []
        if s.dead:
            tags.append(("DEAD", QColor("#ff5252")))
        elif s.unconscious:
            tags.append(("KO", QColor("#b39ddb")))
        if RULESET.status(encounter, t.id).stunned:
            tags.append(("STUN", QColor("#ffca28")))
        bleeding = sum(w.bleeding for w in s.wounds.values())
        if bleeding and not s.dead:
            tags.append((f"BLEED {bleeding}", QColor("#ff6b6b")))
        self._tags[t.id] = (s, rnd, frac, tags)
        return frac, tags

    def set_encounter(self, encounter, active: bool) -> None:
        """Follow ``encounter`` (previews included); no marks unless ``active``."""
        marks = []
        if active:
            for t in encounter.tokens:
                if t.d100 is None or not self.options.shows(t):
                    continue
                frac, tags = self._tags_of(encounter, t)
                marks.append((t.x, t.y, t.radius, frac, t.d100.dead, tags))
        else:
            self._tags.clear()
        self._marks = marks
        if marks:
            xs = [m[0] for m in marks]
            ys = [m[1] for m in marks]
            r = max(m[2] for m in marks) * 2
            rect = QRectF(min(xs) - r, min(ys) - r, max(xs) - min(xs) + 2 * r, max(ys) - min(ys) + 2 * r)
        else:
            rect = QRectF()
        self._set_rect(rect, 60.0)
        self.update()

    @property
    def marks(self):
        return list(self._marks)

    def paint(self, painter: QPainter, *args) -> None:
        self.paint_count += 1
        if not self._marks:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        tr = painter.transform()
        px_per_m = abs(tr.m11()) or 1.0
        m11, m22, dx, dy = tr.m11(), tr.m22(), tr.dx(), tr.dy()
        painter.save()
        painter.resetTransform()
        for x, y, r, frac, dead, tags in self._marks:
            cx, cy = x * m11 + dx, y * m22 + dy
            rp = max(4.0, r * px_per_m)
            ring = QRectF(cx - rp - 4, cy - rp - 4, 2 * rp + 8, 2 * rp + 8)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            if frac > 0:
                painter.setPen(cosmetic(QColor(20, 24, 28, 210), 6.0))
                painter.drawEllipse(ring)
                colour = QColor("#81c784") if frac < 0.5 else (QColor("#ffb74d") if frac < 0.8 else QColor("#ef5350"))
                pen = QPen(colour, 4.0)
                pen.setCapStyle(Qt.PenCapStyle.FlatCap)
                painter.setPen(pen)
                # from 12 o'clock clockwise: Qt angles are 1/16 degree, counter-clockwise
                painter.drawArc(ring, 90 * 16, -int(round(frac * 360 * 16)))
            if dead:
                painter.setPen(cosmetic(QColor("#ff5252"), 3.0))
                k = rp * math.sqrt(0.5)
                painter.drawLine(QPointF(cx - k, cy - k), QPointF(cx + k, cy + k))
                painter.drawLine(QPointF(cx + k, cy - k), QPointF(cx - k, cy + k))
            if tags and rp >= 5:
                px = 10.0 * self.options.label_scale
                text = " ".join(t for t, _ in tags)
                below_name = rp + 6 + self.options.label_px * 1.45  # under the token layer's name
                draw_label(painter, cx, cy + below_name, text, px, anchor="top", bold=True,
                           fg=QColor("#101418"), bg=tags[0][1])
        painter.restore()

