"""The window's theme: Fusion with a dark or a light palette (issue 30 item 10: the GM's
choice in View > Theme, by default the desktop's own light/dark choice,
``QStyleHints.colorScheme()``, dark when the desktop says nothing), and check box and radio
button indicators drawn so they stay visible (WCAG 2.1 non-text contrast: at least 3:1
against what is next to them). Fusion's own indicators on the dark palette are a dark box on
a dark panel (about 1.2:1): the GM could not see which options were on. The map keeps its
own colours (gui/style.py) in both."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Colours:
    """One theme's colours: the palette's main roles, the indicators', and the inks of
    coloured panel texts (``error``: a refusal; ``dim``: a hint; ``warn``: a caution;
    ``good``: a success), each >= 4.5:1 on ``window``."""

    name: str
    window: QColor
    base: QColor
    alternate: QColor
    text: QColor
    button: QColor
    tooltip: QColor
    highlight: QColor
    disabled: QColor
    placeholder: QColor
    edge: QColor
    edge_disabled: QColor
    on: QColor
    mark: QColor
    error: QColor
    dim: QColor
    warn: QColor
    good: QColor


DARK = Colours("dark", WINDOW, BASE, QColor("#21262c"), TEXT, QColor("#2d333b"), QColor("#101317"), HIGHLIGHT,
               QColor("#6e7681"), QColor("#8b949e"), INDICATOR_EDGE, INDICATOR_EDGE_DISABLED, INDICATOR_ON,
               INDICATOR_MARK, QColor("#ff8a80"), QColor("#9aa4ae"), QColor("#ffcc80"), QColor("#a5d6a7"))
LIGHT = Colours("light", QColor("#eef0f3"), QColor("#ffffff"), QColor("#f4f6f8"), QColor("#15191e"),
                QColor("#e1e5ea"), QColor("#fffbe6"), QColor("#1f6fb2"), QColor("#8a939c"), QColor("#6b737c"),
                QColor("#5b6570"), QColor("#a6adb5"), QColor("#1f6fb2"), QColor("#ffffff"), QColor("#b3261e"),
                QColor("#525c66"), QColor("#8a4b00"), QColor("#2e6b30"))
THEMES = {"dark": DARK, "light": LIGHT}
#: Accent inks of coloured panel texts (a modifier's source, a state), each >= 4.5:1 on the
#: theme's window colour.
ACCENTS = {
    "dark": {"cyan": QColor("#80deea"), "purple": QColor("#b39ddb"), "orange": QColor("#ffcc80"),
             "green": QColor("#a5d6a7"), "salmon": QColor("#ffab91"), "grey": QColor("#cfd8dc")},
    "light": {"cyan": QColor("#00676f"), "purple": QColor("#5b3c9e"), "orange": QColor("#8a4b00"),
              "green": QColor("#2e6b30"), "salmon": QColor("#a63a1c"), "grey": QColor("#3c4650")},
}


def accent(name: str) -> QColor:
    """The accent ink ``name`` ("cyan", "purple", "orange", "green", "salmon", "grey") of the
    theme now."""
    return ACCENTS.get(current().name, ACCENTS["dark"])[name]


def colour(role: str) -> QColor:
    """The QColor of a panel text role in the theme now (:func:`ink`'s roles)."""
    return QColor(getattr(current(), role))
#: The View > Theme choices: the desktop's, or one of the two.
CHOICES = ("system", "dark", "light")
_current: list[Colours] = [DARK]


def current() -> Colours:
    """The colours of the theme the application uses now."""
    return _current[0]


def ink(role: str) -> str:
    """The CSS colour (``#rrggbb``) of a coloured panel text in the theme now: "error", "dim", "warn", "good", "text"."""
    return getattr(current(), role).name()


def system_scheme(app=None) -> str:
    """The desktop's light/dark choice as Qt reports it: "dark", "light" or "" (unknown)."""
    app = app or QApplication.instance()
    try:
        scheme = app.styleHints().colorScheme()
    except AttributeError:  # (Qt before 6.5)
        return ""
    return {Qt.ColorScheme.Dark: "dark", Qt.ColorScheme.Light: "light"}.get(scheme, "")


def scheme_for(choice: str, system: str) -> str:
    """The theme to use for the GM's ``choice`` ("system", "dark", "light") when the desktop
    says ``system`` ("dark", "light", ""): the choice, else the desktop's, else dark."""
    if choice in THEMES:
        return choice
    return system if system in THEMES else "dark"


def luminance(c: QColor) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour (0 black .. 1 white)."""
    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (1 .. 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def palette_of(c: Colours) -> QPalette:
    """The application palette of a theme's colours."""
    pal = QPalette()
    pal.setColor(QPalette.ColorRole.Window, c.window)
    pal.setColor(QPalette.ColorRole.WindowText, c.text)
    pal.setColor(QPalette.ColorRole.Base, c.base)
    pal.setColor(QPalette.ColorRole.AlternateBase, c.alternate)
    pal.setColor(QPalette.ColorRole.ToolTipBase, c.tooltip)
    pal.setColor(QPalette.ColorRole.ToolTipText, c.text)
    pal.setColor(QPalette.ColorRole.Text, c.text)
    pal.setColor(QPalette.ColorRole.Button, c.button)
    pal.setColor(QPalette.ColorRole.ButtonText, c.text)
    pal.setColor(QPalette.ColorRole.Highlight, c.highlight)
    pal.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.PlaceholderText, c.placeholder)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, c.disabled)
    return pal


def dark_palette() -> QPalette:
    return palette_of(DARK)


def light_palette() -> QPalette:
    return palette_of(LIGHT)


class IndicatorStyle(QProxyStyle):
    """Fusion, with check box and radio button indicators of a light rim (checked: filled
    in the highlight colour with a white tick or dot)."""

    def __init__(self, base: str = "Fusion", colours: Colours | None = None):
        super().__init__(base)
        self.colours = colours  # (None: the application's theme now, :func:`current`)

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
        c = self.colours or current()
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        edge = c.edge if enabled else c.edge_disabled
        painter.setPen(QPen(edge, 1.6))
        fill = c.on if (on or partial) and enabled else (c.edge_disabled if on or partial else c.base)
        painter.setBrush(fill)
        if radio:
            painter.drawEllipse(r)
            if on:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(c.mark)
                painter.drawEllipse(r.center(), side * 0.2, side * 0.2)
        else:
            painter.drawRoundedRect(r, 2.5, 2.5)
            painter.setPen(QPen(c.mark, max(1.6, side / 7), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap,
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


def apply_theme(app: QApplication, scheme: str) -> None:
    """Fusion with the visible indicators and the palette of ``scheme`` ("dark", "light");
    switching later changes only the palette and the indicators' colours (the style stays)."""
    _current[0] = THEMES.get(scheme, DARK)
    if not isinstance(app.style(), IndicatorStyle):
        app.setStyle(IndicatorStyle())
    app.setPalette(palette_of(_current[0]))


def apply_dark_theme(app: QApplication) -> None:
    """Fusion with the dark palette and the visible indicators."""
    apply_theme(app, "dark")


__all__ = ["apply_dark_theme", "apply_theme", "contrast", "luminance", "IndicatorStyle", "dark_palette",
           "light_palette", "palette_of", "scheme_for", "system_scheme", "current", "ink", "Colours", "DARK",
           "LIGHT", "CHOICES"]
