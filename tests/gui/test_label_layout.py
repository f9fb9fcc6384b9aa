"""The token layer's label layout: names of touching tokens do not overlap; a lone token's
name stays where it always was, centred under its disc."""

from __future__ import annotations

import math

import pytest

from engine.model import Token
from gui.layers import TEXT, TokenDecoration, TokenLayer, place_labels
from gui.style import ViewOptions

M_PER_PX = 0.05  # 20 px per metre


def _layer(tokens) -> TokenLayer:
    layer = TokenLayer(ViewOptions())
    layer.set_pixel_size(M_PER_PX)
    layer.set_tokens(tuple(tokens))
    return layer


def _pill(name: str, px: float = 14.0) -> tuple[int, int]:
    """The name label sprite's size in pixels: text width + 0.7 h by 1.12 h, plus 1, rounded up."""
    _, w, h = TEXT.get(name, px, True)
    return math.ceil(w + 0.7 * h + 1), math.ceil(1.12 * h + 1)


def test_touching_tokens_labels_do_not_intersect(qtbot):
    # radius 0.5 m each, centres 1 m apart: the discs touch (a grapple). At 20 px/m the
    # centres are 20 px apart, narrower than either name pill, so centred labels would overlap.
    bolt = Token(id="b", name="Bolt", x=10.0, y=10.0, radius=0.5)
    nix = Token(id="n", name="Nix", x=11.0, y=10.0, radius=0.5)
    layer = _layer([bolt, nix])
    wb, hb = _pill("Bolt")
    wn, hn = _pill("Nix")
    assert wb / 2 + wn / 2 > 20  # precondition: unplaced, the two pills would intersect

    rects = layer.label_rects(M_PER_PX)
    assert set(rects) == {"b", "n"}
    assert not rects["b"].intersects(rects["n"])
    # Bolt (same y, further west) is placed first and keeps its place: centred at x 10 m =
    # 200 px, top at y 200 px + rim 11 px (the least drawn radius, over the true 10 px) + 3 px = 214 px
    assert rects["b"].center().x() == pytest.approx(200.0)
    assert rects["b"].top() == pytest.approx(214.0)
    assert (rects["b"].width(), rects["b"].height()) == (wb, hb)
    # Nix's goes above its own disc, centred on it: bottom at 200 - 11 - 3 = 186 px
    assert rects["n"].center().x() == pytest.approx(220.0)
    assert rects["n"].bottom() == pytest.approx(186.0)
    # and the offset other layers use to keep their tags attached says the same
    assert layer.label_offset("n", 1 / M_PER_PX) == pytest.approx((0.0, 186.0 - hn - 214.0))
    assert layer.label_offset("b", 1 / M_PER_PX) == (0.0, 0.0)


def test_lone_token_label_stays_centred_under_its_disc(qtbot):
    lone = Token(id="l", name="Rook", x=30.0, y=40.0, radius=0.5)
    far = Token(id="f", name="Vex", x=5.0, y=5.0, radius=0.5)
    rect = _layer([lone, far]).label_rects(M_PER_PX)["l"]
    w, h = _pill("Rook")
    # centre x = 30 m * 20 = 600 px; top = 40 m * 20 + max(0.5 m * 20, 11 px drawn) + 3 = 814 px
    assert rect.center().x() == pytest.approx(600.0)
    assert rect.top() == pytest.approx(814.0)
    assert (rect.width(), rect.height()) == (w, h)


def test_decorations_move_with_their_label_and_layout_is_cached(qtbot):
    bolt = Token(id="b", name="Bolt", x=10.0, y=10.0, radius=0.5)
    nix = Token(id="n", name="Nix", x=11.0, y=10.0, radius=0.5)
    layer = _layer([bolt, nix])
    layer.set_decorations({"n": TokenDecoration(tags=(("Grappled", "#e879f9"),))})
    rects = layer.label_rects(M_PER_PX)
    # Nix's block (label, 2 px, tag row) sits above the disc, its bottom 3 px over the rim,
    # so the label's top is higher than without the tag by the tag row and the 2 px gap
    assert rects["n"].bottom() < 187.0 - 2
    n0 = layer.layout_count
    layer.label_rects(M_PER_PX)
    layer.label_offset("n", 1 / M_PER_PX)
    assert layer.layout_count == n0  # same tokens, same zoom: not laid out again
    # dragging Nix far away (positions only) lays out again and its label comes back under it
    layer.set_tokens((bolt, nix.model_copy(update={"x": 40.0})), moved=frozenset({"n"}))
    rect = layer.label_rects(M_PER_PX)["n"]
    assert layer.layout_count == n0 + 1
    assert rect.center().x() == pytest.approx(800.0) and rect.top() == pytest.approx(214.0)


def test_place_labels_by_hand():
    # blocks (cx, cy, top, w, h): two 40 x 20 blocks 13 px under centres 10 px apart.
    # The first (west) keeps (0, 0). The second's default box x -10..30 hits the first's
    # -20..20, so it goes above its centre: top = 0 - 13 - 20 = -33, i.e. dy = -33 - 13 = -46.
    assert place_labels([(0, 0, 13, 40, 20), (10, 0, 13, 40, 20)]) == [(0.0, 0.0), (0.0, -46.0)]
    # a third one at the same spot finds both places taken and is nudged sideways just clear
    # of the first block it hit: to x 20 + 2 px air = 22 (left edge), from -10: dx = +32
    out = place_labels([(0, 0, 13, 40, 20), (10, 0, 13, 40, 20), (10, 0.5, 13, 40, 20)])
    assert out[2] == (32.0, 0.0)
    # a fixed obstacle (an AP badge) pushes a lone block above its disc
    assert place_labels([(0, 0, 13, 40, 20)], fixed=[(-5, 20, 5, 30)]) == [(0.0, -46.0)]
