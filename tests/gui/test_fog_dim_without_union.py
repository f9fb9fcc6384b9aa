"""The on-screen fog dims the remembered explored areas without the Shapely union of them
with what is in sight (issue 26 item 7): the party's view's ``explored`` is never worked out
for the picture, and the picture is the one the regions give.

Hand-made view on the demo's 60 x 40 m map: in sight the square x 10-20, y 10-20;
remembered (explored before) the rectangle x 15-30, y 0-15, which overlaps it over x 15-20,
y 10-15. Drawn at 10 pixels a metre: never seen (5, 5) and (12, 30) are dark; remembered and
out of sight (25, 5) is dimmed; in sight only (12, 12) and in sight and remembered (17, 12)
are clear. The same in the GM's look with its colours.
"""

from __future__ import annotations

import pytest
import shapely
from PySide6.QtGui import QColor, QImage, QPainter, QTransform

from engine.files import load_encounter
from engine.vision import PartyView
from gui.layers.fog import FOG_DARK, FOG_DIM, GM_DARK, GM_DIM, FogLayer
from gui.style import ViewOptions

PX_PER_M = 10
CASES = {(5, 5): "dark", (12, 30): "dark", (25, 5): "dim", (12, 12): "clear", (17, 12): "clear"}


def _view() -> PartyView:
    return PartyView(shapely.box(10, 10, 20, 20), None, frozenset(), remembered=shapely.box(15, 0, 30, 15))


def _paint(layer: FogLayer) -> QImage:
    img = QImage(60 * PX_PER_M, 40 * PX_PER_M, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(0)
    p = QPainter(img)
    p.setTransform(QTransform.fromScale(PX_PER_M, PX_PER_M))
    layer.paint(p)
    p.end()
    return img


@pytest.mark.parametrize("player", [True, False])
def test_the_remembered_areas_are_dimmed_and_what_is_in_sight_cleared_without_their_union(qapp, demo_path, player):
    enc = load_encounter(demo_path)
    enc = enc.model_copy(update={"sight": enc.sight.model_copy(update={"fog": True})})
    view = _view()
    layer = FogLayer(ViewOptions(player=player))
    layer.set_pixel_size(1 / PX_PER_M)
    layer.set_view(enc, view)
    img = _paint(layer)
    dark, dim = (FOG_DARK, FOG_DIM) if player else (GM_DARK, GM_DIM)
    want = {"dark": dark, "dim": dim, "clear": QColor(0, 0, 0, 0)}
    for (x, y), what in CASES.items():
        got = img.pixelColor(x * PX_PER_M, y * PX_PER_M)
        exp = want[what]
        assert got.alpha() == exp.alpha(), ((x, y), what, got.getRgb(), exp.getRgb())
        if exp.alpha():
            # (stored premultiplied: a level or two off once unpremultiplied)
            assert max(abs(got.red() - exp.red()), abs(got.green() - exp.green()),
                       abs(got.blue() - exp.blue())) <= 2, ((x, y), what, got.getRgb(), exp.getRgb())
    assert view._explored is None  # (the union with the remembered areas was never made)
