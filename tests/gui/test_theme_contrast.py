"""Dark-theme check boxes and radio buttons are visible (issue 13 item 11): the indicator's
rim is at least 3:1 against the panel behind it and the field inside it (WCAG 2.1 non-text
contrast), and a checked one's mark 3:1 against its fill, computed from the style's colours
and read back from pixels the style paints."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QCheckBox, QRadioButton

from gui import theme


def test_wcag_contrast_of_known_pairs():
    assert theme.contrast(QColor("#000000"), QColor("#ffffff")) == pytest.approx(21.0)
    assert theme.contrast(QColor("#777777"), QColor("#ffffff")) == pytest.approx(4.48, abs=0.01)
    assert theme.contrast(QColor("#252a31"), QColor("#252a31")) == pytest.approx(1.0)


def test_the_indicator_colours_pass_non_text_contrast():
    assert theme.contrast(theme.INDICATOR_EDGE, theme.WINDOW) >= 3.0  # rim on the panel
    assert theme.contrast(theme.INDICATOR_EDGE, theme.BASE) >= 3.0  # rim on its inside
    assert theme.contrast(theme.INDICATOR_MARK, theme.INDICATOR_ON) >= 3.0  # tick on the fill
    assert theme.contrast(theme.INDICATOR_ON, theme.WINDOW) >= 3.0 or \
        theme.contrast(theme.INDICATOR_EDGE, theme.WINDOW) >= 3.0  # a checked box still shows its rim
    # what Fusion drew on this palette before: its outline (window darker by 140%) on the panel
    assert theme.contrast(theme.WINDOW.darker(140), theme.WINDOW) < 1.5


_STYLES = []  # (a widget does not own the style it is given)


def _render(widget) -> QImage:
    widget.setPalette(theme.dark_palette())
    _STYLES.append(theme.IndicatorStyle())
    widget.setStyle(_STYLES[-1])
    widget.setAutoFillBackground(True)
    widget.resize(widget.sizeHint())
    img = QImage(widget.size(), QImage.Format.Format_ARGB32)
    img.fill(theme.WINDOW)
    widget.render(img)
    return img


def _colours(img: QImage) -> list[QColor]:
    return [img.pixelColor(x, y) for x in range(img.width()) for y in range(img.height())]


@pytest.mark.parametrize("cls", [QCheckBox, QRadioButton])
@pytest.mark.parametrize("checked", [False, True])
def test_the_painted_indicator_stands_out_from_the_panel(qtbot, cls, checked):
    w = cls("")
    qtbot.addWidget(w)
    w.setChecked(checked)
    img = _render(w)
    best = max(theme.contrast(c, theme.WINDOW) for c in _colours(img))
    assert best >= 3.0
    if checked:  # the highlight fill and the white mark are both there
        cols = _colours(img)
        assert any(theme.contrast(c, theme.INDICATOR_ON) < 1.1 for c in cols)
        assert any(c.red() > 240 and c.green() > 240 and c.blue() > 240 for c in cols)


def test_the_app_theme_uses_the_indicator_style():
    """In its own process: swapping the style of the test session's application would pull
    it from under every widget alive."""
    import subprocess
    import sys

    code = ("from PySide6.QtWidgets import QApplication; from gui import theme; app = QApplication([]); "
            "theme.apply_dark_theme(app); "
            "print(type(app.style()).__name__, app.palette().color(app.palette().ColorRole.Window).name())")
    from pathlib import Path

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2],
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.stdout.split() == ["IndicatorStyle", theme.WINDOW.name()]


# -- issue 30 item 10: the light theme, and following the desktop -------------------------------
@pytest.mark.parametrize("colours", [theme.DARK, theme.LIGHT], ids=["dark", "light"])
def test_each_themes_colours_pass_wcag(colours):
    assert theme.contrast(colours.text, colours.window) >= 7.0  # body text (AAA)
    assert theme.contrast(colours.text, colours.base) >= 7.0
    assert theme.contrast(colours.edge, colours.window) >= 3.0  # the indicator's rim
    assert theme.contrast(colours.edge, colours.base) >= 3.0
    assert theme.contrast(colours.mark, colours.on) >= 3.0
    assert theme.contrast(colours.error, colours.window) >= 4.5  # a refusal's red text
    assert theme.contrast(colours.dim, colours.window) >= 4.5  # a hint's grey text
    assert theme.contrast(colours.disabled, colours.window) >= 2.0  # greyed, but there


def test_the_light_palette_is_light_and_the_dark_dark():
    w = theme.light_palette().color(theme.light_palette().ColorRole.Window)
    d = theme.dark_palette().color(theme.dark_palette().ColorRole.Window)
    assert theme.luminance(w) > 0.8 and theme.luminance(d) < 0.05


@pytest.mark.parametrize("choice, desktop, want", [
    ("system", "dark", "dark"), ("system", "light", "light"), ("system", "", "dark"),
    ("dark", "light", "dark"), ("light", "dark", "light"), ("light", "", "light")])
def test_the_theme_follows_the_desktop_unless_the_gm_chose(choice, desktop, want):
    assert theme.scheme_for(choice, desktop) == want


@pytest.mark.parametrize("cls", [QCheckBox, QRadioButton])
@pytest.mark.parametrize("checked", [False, True])
def test_the_painted_light_indicator_stands_out(qtbot, cls, checked):
    w = cls("")
    qtbot.addWidget(w)
    w.setChecked(checked)
    w.setPalette(theme.light_palette())
    _STYLES.append(theme.IndicatorStyle(colours=theme.LIGHT))
    w.setStyle(_STYLES[-1])
    w.setAutoFillBackground(True)
    w.resize(w.sizeHint())
    img = QImage(w.size(), QImage.Format.Format_ARGB32)
    img.fill(theme.LIGHT.window)
    w.render(img)
    assert max(theme.contrast(c, theme.LIGHT.window) for c in _colours(img)) >= 3.0


def test_view_theme_switches_the_palette_and_is_saved(window):
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    try:
        window.actions["theme:light"].trigger()
        assert app.palette().color(app.palette().ColorRole.Window) == theme.LIGHT.window
        assert theme.ink("error") == theme.LIGHT.error.name()
        assert window.settings.value("view/theme") == "light"
        window.actions["theme:system"].trigger()  # (offscreen: the desktop says nothing -> dark)
        assert app.palette().color(app.palette().ColorRole.Window) == theme.DARK.window
    finally:
        theme.apply_theme(app, "dark")
