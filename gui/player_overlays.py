"""What the players' window shows over its map, sized for a video call: the turn banner at
the top ("Sam: pass 1, phase 3", :func:`engine.turn_banner.turn_banner`), a roll the GM
revealed at the bottom (for :data:`REVEAL_S` seconds, by the program's clock), and the
blank card between scenes (its title fitted inside it at any size).

Sizes are canvas pixels (the players' fixed 16:9 canvas, 1280x720 or 1920x1080) times the
window's ``scale`` (the letterboxed canvas's width over the canvas's), so the picture players
get is the same whatever the window's size, drawn at the window's own resolution.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QWidget

from engine import clock
from gui import style
from gui.layers import NO_BRUSH

#: Seconds a revealed roll stays on the players' screen.
REVEAL_S = 8.0
#: Canvas pixels of the banner's and the revealed roll's type (at a 1280x720 canvas: 4.4 %
#: and 3.6 % of its height, readable in a 720p call).
BANNER_PX = 32.0
ROLL_PX = 26.0
#: Lines of a revealed roll shown at once.
ROLL_LINES = 4


def _font(px: float, bold: bool) -> QFont:
    return style.ui_font(max(1.0, px), bold)


class _Pill(QWidget):
    """A transparent overlay (mouse clicks pass through) that paints text lines on a dark
    rounded pill, centred on its parent's width at ``top`` or from the bottom."""

    def __init__(self, parent: QWidget, px: float, *, below: "_Pill | None" = None):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground, True)
        self.base_px = px
        self.below = below  # (placed under that pill while it shows)
        self.scale = 1.0
        self.lines: tuple[str, ...] = ()
        self.fg = QColor(style.LABEL_TEXT)
        self.accent = QColor("#ffd54f")
        self.hide()

    def px(self) -> float:
        return self.base_px * self.scale

    def set_scale(self, scale: float) -> None:
        self.scale = scale
        self.place()

    def set_lines(self, lines: tuple[str, ...]) -> None:
        self.lines = tuple(lines)
        self.place()
        self.setVisible(bool(self.lines) and self.wanted())
        self.update()

    def wanted(self) -> bool:
        return True

    def text_size(self) -> tuple[float, float]:
        fm = QFontMetricsF(_font(self.px(), True))
        return (max((fm.horizontalAdvance(t) for t in self.lines), default=0.0), fm.height() * len(self.lines))

    def place(self) -> None:
        """Size and place the pill on the parent (at most 94 % of its width; longer lines
        are elided)."""
        parent = self.parentWidget()
        if parent is None:
            return
        pw, ph = parent.width(), parent.height()
        tw, th = self.text_size()
        pad = 0.45 * self.px()
        w = min(tw + 2 * pad + 4, 0.94 * pw)
        h = th + 0.5 * pad * 2
        margin = 0.025 * ph
        y = margin
        if self.below is not None and self.below.isVisible():
            y = self.below.geometry().bottom() + 0.6 * margin
        self.setGeometry(int(round((pw - w) / 2)), int(round(y)), int(round(w)) + 1, int(round(h)) + 1)
        self.raise_()

    def paintEvent(self, ev) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        r = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        p.setPen(QPen(QColor(255, 255, 255, 60), 1.2))
        p.setBrush(QColor(8, 10, 14, 215))
        p.drawRoundedRect(r, 0.35 * self.px(), 0.35 * self.px())
        p.setPen(self.accent)
        p.drawLine(QPointF(r.left() + 0.3 * self.px(), r.bottom() - 1.5), QPointF(r.right() - 0.3 * self.px(), r.bottom() - 1.5))
        font = _font(self.px(), True)
        p.setFont(font)
        fm = QFontMetricsF(font)
        pad = 0.45 * self.px()
        y = 0.45 * self.px() * 0.5
        p.setPen(self.fg)
        room = r.width() - 2 * pad + 2
        for t in self.lines:
            text = t if fm.horizontalAdvance(t) <= room else fm.elidedText(t, Qt.TextElideMode.ElideRight, room)
            p.drawText(QRectF(pad, y, r.width() - 2 * pad, fm.height()), Qt.AlignmentFlag.AlignCenter, text)
            y += fm.height()
        p.end()


class TurnBanner(_Pill):
    """Whose turn it is, at the top of the players' canvas (hidden outside a fight)."""

    def __init__(self, parent: QWidget):
        super().__init__(parent, BANNER_PX)
        self.enabled = True

    def text(self) -> str:
        return self.lines[0] if self.lines else ""

    def set_text(self, text: str) -> None:
        if (text,) != self.lines or not text:
            self.set_lines((text,) if text else ())

    def wanted(self) -> bool:
        return self.enabled


class RevealedRoll(_Pill):
    """A roll the GM revealed, at the top of the players' canvas (under the turn banner;
    the legend and scale bar keep the bottom) for :data:`REVEAL_S` seconds (the program's
    clock); a timer checks the clock twice a second. Not shown over the blank card."""

    def __init__(self, parent: QWidget, below: _Pill | None = None):
        super().__init__(parent, ROLL_PX, below=below)
        self.blank = False
        self.accent = QColor("#80cbc4")
        self.shown_at: float | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(500)
        self.timer.timeout.connect(self.tick)

    def reveal(self, lines) -> None:
        """Show ``lines`` (the last :data:`ROLL_LINES` of them) now."""
        lines = tuple(str(t).strip() for t in lines if str(t).strip())[-ROLL_LINES:]
        if not lines:
            return
        self.shown_at = clock.now()
        self.set_lines(lines)
        self.timer.start()

    def tick(self) -> None:
        """Hide the roll once it has been shown :data:`REVEAL_S` seconds."""
        if self.shown_at is None or clock.now() - self.shown_at >= REVEAL_S:
            self.shown_at = None
            self.timer.stop()
            self.set_lines(())

    def wanted(self) -> bool:
        return not self.blank

    def set_blank(self, on: bool) -> None:
        self.blank = on
        self.setVisible(bool(self.lines) and not on)


class BlankCard(QWidget):
    """What players see between scenes: a neutral card with the title, fitted inside the
    card at any size (the type shrinks, and a long title breaks into lines, never clipped)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = ""
        self.setAutoFillBackground(False)

    def set_title(self, title: str) -> None:
        self.title = title
        self.update()

    def title_layout(self) -> tuple[QFont, list[str], QRectF]:
        """The font, the lines and the bounding rect (widget pixels) of the title as drawn
        at the card's size now: within 86 % of its width and 60 % of its height."""
        w, h = float(self.width()), float(self.height())
        words = self.title.split()
        if not words or w < 4 or h < 4:
            return _font(12, True), [], QRectF()
        max_w, max_h = 0.86 * w, 0.60 * h
        px = max(6.0, min(w / 20.0, h / 8.0, 96.0))
        while True:
            font = _font(px, True)
            fm = QFontMetricsF(font)
            lines = _wrap(words, fm, max_w)
            tw = max(fm.horizontalAdvance(t) for t in lines)
            th = fm.height() * len(lines)
            if (tw <= max_w and th <= max_h) or px <= 6.0:
                break
            px *= 0.92
        rect = QRectF((w - tw) / 2, (h - th) / 2 - 0.04 * h, tw, th)
        return font, lines, rect

    def title_rect(self) -> QRectF:
        return self.title_layout()[2]

    def paintEvent(self, ev) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.fillRect(self.rect(), style.MAP_BACKDROP)
        font, lines, rect = self.title_layout()
        if lines:
            p.setFont(font)
            p.setPen(style.LABEL_TEXT)
            fm = QFontMetricsF(font)
            y = rect.top()
            for t in lines:
                p.drawText(QRectF(0, y, self.width(), fm.height()), Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter, t)
                y += fm.height()
            p.setPen(QPen(QColor(255, 255, 255, 40), 2))
            p.setBrush(NO_BRUSH)
            w = self.width()
            ly = min(self.height() - 4.0, rect.bottom() + 0.6 * fm.height())
            p.drawLine(QPointF(w * 0.35, ly), QPointF(w * 0.65, ly))
        p.end()


def _wrap(words: list[str], fm: QFontMetricsF, max_w: float) -> list[str]:
    """Words in lines no wider than ``max_w`` where possible (a word wider alone keeps its line)."""
    lines: list[str] = []
    cur = ""
    for word in words:
        trial = f"{cur} {word}" if cur else word
        if cur and fm.horizontalAdvance(trial) > max_w:
            lines.append(cur)
            cur = word
        else:
            cur = trial
    lines.append(cur)
    return lines


__all__ = ["BANNER_PX", "REVEAL_S", "ROLL_PX", "BlankCard", "RevealedRoll", "TurnBanner"]
