"""The window's dark theme: Fusion with a dark palette, and check box and radio button
indicators drawn so they stay visible (WCAG 2.1 non-text contrast: at least 3:1 against
what is next to them). Fusion's own indicators on this palette are a dark box on a dark
panel (about 1.2:1): the GM could not see which options were on."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle

WINDOW = QColor("#252a31")  # panels
BASE = QColor("#1b1f24")  # fields, tables, and the inside of an unchecked indicator
TEXT = QColor("#e6e9ed")
HIGHLIGHT = QColor("#2f81c7")
INDICATOR_EDGE = QColor("#aab4bf")  # the rim of every check box and radio button
INDICATOR_EDGE_DISABLED = QColor("#6e7681")
INDICATOR_ON = HIGHLIGHT  # the fill of a checked one
INDICATOR_MARK = QColor("#ffffff")  # its tick or dot


def luminance(c: QColor) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour (0 black .. 1 white)."""
    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (1 .. 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def dark_palette() -> QPalette:
    pal = QPalette()
    pal.setColor(QPalette.ColorRole.Window, WINDOW)
    pal.setColor(QPalette.ColorRole.WindowText, TEXT)
    pal.setColor(QPalette.ColorRole.Base, BASE)
    pal.setColor(QPalette.ColorRole.AlternateBase, QColor("#21262c"))
    pal.setColor(QPalette.ColorRole.ToolTipBase, QColor("#101317"))
    pal.setColor(QPalette.ColorRole.ToolTipText, TEXT)
    pal.setColor(QPalette.ColorRole.Text, TEXT)
    pal.setColor(QPalette.ColorRole.Button, QColor("#2d333b"))
    pal.setColor(QPalette.ColorRole.ButtonText, TEXT)
    pal.setColor(QPalette.ColorRole.Highlight, HIGHLIGHT)
    pal.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.PlaceholderText, QColor("#8b949e"))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6e7681"))
    return pal


class IndicatorStyle(QProxyStyle):
    """Fusion, with check box and radio button indicators of a light rim (checked: filled
    in the highlight colour with a white tick or dot)."""

    def __init__(self, base: str = "Fusion"):
        super().__init__(base)

    def drawPrimitive(self, element, option, painter, widget=None):  # noqa: N802 - Qt API
        if element in (QStyle.PrimitiveElement.PE_IndicatorCheckBox, QStyle.PrimitiveElement.PE_IndicatorRadioButton,
                       QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck):
            self._indicator(element, option, painter)
            return
        super().drawPrimitive(element, option, painter, widget)

    def _indicator(self, element, option, painter: QPainter) -> None:
        state = option.state
        on = bool(state & QStyle.StateFlag.State_On)
        partial = bool(state & QStyle.StateFlag.State_NoChange)
        enabled = bool(state & QStyle.StateFlag.State_Enabled)
        r = QRectF(option.rect).adjusted(1.0, 1.0, -1.0, -1.0)
        side = min(r.width(), r.height())
        r = QRectF(r.center().x() - side / 2, r.center().y() - side / 2, side, side)
        radio = element == QStyle.PrimitiveElement.PE_IndicatorRadioButton
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        edge = INDICATOR_EDGE if enabled else INDICATOR_EDGE_DISABLED
        painter.setPen(QPen(edge, 1.6))
        fill = INDICATOR_ON if (on or partial) and enabled else (INDICATOR_EDGE_DISABLED if on or partial else BASE)
        painter.setBrush(fill)
        if radio:
            painter.drawEllipse(r)
            if on:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(INDICATOR_MARK)
                painter.drawEllipse(r.center(), side * 0.2, side * 0.2)
        else:
            painter.drawRoundedRect(r, 2.5, 2.5)
            painter.setPen(QPen(INDICATOR_MARK, max(1.6, side / 7), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap,
                                Qt.PenJoinStyle.RoundJoin))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            if partial:
                painter.drawLine(QPointF(r.left() + side * 0.25, r.center().y()),
                                 QPointF(r.right() - side * 0.25, r.center().y()))
            elif on:
                tick = QPainterPath(QPointF(r.left() + side * 0.22, r.top() + side * 0.52))
                tick.lineTo(r.left() + side * 0.42, r.top() + side * 0.72)
                tick.lineTo(r.left() + side * 0.78, r.top() + side * 0.3)
                painter.drawPath(tick)
        painter.restore()


def apply_dark_theme(app: QApplication) -> None:
    """Fusion with the dark palette and the visible indicators."""
    app.setStyle(IndicatorStyle())
    app.setPalette(dark_palette())


__all__ = ["apply_dark_theme", "contrast", "luminance", "IndicatorStyle", "dark_palette"]
