"""The legend fits the map view however narrow the dock leaves it (issue 24: at 1366x768
the legend's last line, the range bands' key, ran past the dock's edge)."""

from __future__ import annotations

from gui import style
from gui.layers import TEXT
from gui.map_view import MapView
from tests.gui import oracle
from tests.gui.test_picture_oracle import _crowd


def test_every_legend_entry_lies_inside_a_narrow_map_view(window, qtbot):
    """The crowd (twelve zones, Brick the attacker: the cover row and the range bands' key)
    with the Targets dock 1220 px wide, the map view under 400 px: the legend box lies inside
    the view, across it above the scale bar and below the fitted map, and every entry inside
    the box (a long token name's zones cut with an ellipsis,
    the bands' key split into its four bands)."""
    enc = window.document.committed
    toks = tuple(t.model_copy(update={"name": "Elizabeth Vepar (Dj3VI), the Last Runner of the Long Night"}) if t.id == "sam" else t
                 for t in enc.tokens)
    window.document.commit(enc.model_copy(update={"tokens": toks}), "a long name")
    _crowd(window)
    window.docks["targets"].setMinimumWidth(1220)
    oracle.settle(window)
    view = window.map_view
    vp = view.viewport().rect()
    assert vp.width() < 400
    box = view.legend_rect()
    assert vp.contains(box.toAlignedRect()), (box, vp)
    # too narrow beside the scale bar: the whole width, above the scale bar (60 px), under the map
    assert box.left() == 12 and box.bottom() <= vp.height() - 60
    m = window.document.encounter.map
    assert view.map_to_viewport(0.0, m.height).y() < box.top()
    entries, bw, _ = view.legend_layout()
    s = view.options.label_scale
    px = 12.5 * s
    texts = [t for _, t, _, _, _ in entries]
    assert style.BAND_LEGEND not in texts and "S short" in texts and "E extreme (and the band's modifier)" in texts
    assert any(t.endswith("\u2026") and t.startswith("Elizabeth Vepar") for t in texts)
    for kind, text, _, x, _ in entries:
        if kind == "cover":
            w = sum(TEXT.get(c, px, True)[1] + 16 * s for c in style.COVER_COLOURS) + TEXT.get("cover:", px)[1] + 8 * s
        else:
            w = TEXT.get(text, px)[1] + (6 * s if kind == "text" else 22 * s)
        assert 10 * s + x + w <= bw, (text, x, w, bw)


def test_a_wide_view_lays_the_legend_out_as_before():
    """Nothing fitted where all fits: the rows come back as given."""
    from gui.map_view import _fitted_rows

    rows = [("text", style.BAND_LEGEND, None), ("zone", "Sam's cone", None), ("cover", "cover:", None)]
    assert list(_fitted_rows(rows, 900.0, 12.5, 1.0)) == rows
    assert MapView.SCALE_BAR_ROOM == 230.0
