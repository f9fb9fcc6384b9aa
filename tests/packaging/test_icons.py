"""The shipped PNG icons are the SVG as packaging/render_icons.py draws it today (so an edit
of the SVG without re-rendering fails here), and the icon reads at 16 px."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from assets import ICONS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def render():
    spec = importlib.util.spec_from_file_location("render_icons", ROOT / "packaging" / "render_icons.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.render


@pytest.mark.parametrize("size", [16, 48, 256])
def test_each_png_is_the_svg_rendered_at_its_size(qapp, render, size):
    fresh = render(ICONS / "coverfire.svg", size).convertToFormat(QImage.Format.Format_ARGB32)
    shipped = QImage(str(ICONS / f"coverfire-{size}.png")).convertToFormat(QImage.Format.Format_ARGB32)
    assert (shipped.width(), shipped.height()) == (size, size)
    worst = max(
        max(abs(a - b) for a, b in zip(fresh.pixelColor(x, y).getRgb(), shipped.pixelColor(x, y).getRgb()))
        for y in range(size) for x in range(size))
    assert worst <= 8, f"coverfire-{size}.png differs from the SVG by {worst}: run packaging/render_icons.py"


def test_the_icon_has_transparent_corners_and_the_red_crosshair_at_its_centre(qapp):
    img = QImage(str(ICONS / "coverfire-256.png"))
    assert img.pixelColor(0, 0).alpha() == 0 and img.pixelColor(255, 255).alpha() == 0
    ring = img.pixelColor(128, 110 - 72)  # top of the reticle ring
    assert ring.red() > 200 and ring.green() < 110 and ring.blue() < 90
