"""Zone labels a GM can read (issue 24, seen in the screenshots of the crowded demo): on
top of the buildings they fall on, and near their own zone when zones stand in a row."""

from __future__ import annotations

import math

import numpy as np

from gui import edits
from gui.layers import TEXT, ZoneLabelLayer
from gui.layers.fog import FogLayer
from tests.gui import oracle


def _label_pixels(win, rect) -> np.ndarray:
    """The map view's pixels inside ``rect`` (pixels from the map origin)."""
    view = win.map_view
    o = view.map_to_viewport(0.0, 0.0)
    r = rect.translated(o.x(), o.y()).toAlignedRect()
    img = oracle.grab(view).copy(r)
    return oracle.as_array(img)


def test_a_blast_radius_on_a_building_is_drawn_over_the_building(window, qtbot):
    """An 18 m blast at (27, 6): its label point, the rim east of the centre at (45, 6), lies
    in the Stuffer Shack (44-60 m x 0-9 m, 6 m tall). The label is drawn over the building
    (the zones' layer, fills and labels, lay under the obstacles: no radius at all)."""
    view = window.map_view
    enc = window.document.committed
    z = edits.default_zone(enc, "blast", None, (27.0, 6.0))
    enc = edits.add_unchecked(enc, z)
    window.document.commit(edits.resize_zone(enc, z.id, (45.0, 6.0)), "blast")
    oracle.settle(window)
    assert view.zones.drawings()[z.id].labels == [(45.0, 6.0, "18 m radius", 0.0)]
    k = 1 / view.m_per_px()
    (rect,) = [r for r, text, _ in view.zones.placed_labels(k) if text == "18 m radius"]
    assert 44.0 * k < rect.left() and rect.right() < 60.0 * k and rect.bottom() < 9.0 * k  # on the shack
    shown = _label_pixels(window, rect)
    window.actions["view:show_labels"].trigger()
    oracle.settle(window)
    hidden = _label_pixels(window, rect)
    window.actions["view:show_labels"].trigger()
    # the pill (the blast's yellow at 220/255) over the building's grey: most of its pixels
    differ = (np.abs(shown - hidden).max(axis=2) > 48).mean()
    assert differ > 0.6, differ
    # (under the players' fog, which hides what they have not seen)
    assert view.obstacles.zValue() < ZoneLabelLayer.Z < FogLayer.Z < view.tokens.zValue()


def test_radii_of_circles_in_a_row_stay_by_their_own_circles(window, qtbot):
    """Six 3 m circles 5 m apart along y = 34, zoomed out until 5 m is narrower than the
    label "3 m radius": each label is placed east of its rim, and one that would cover the label before
    it goes a pill's height above or below the line: every label's centre lies within one
    label width of its own rim point (they slid along the line, the sixth ~25 m off, past
    the map's edge), and none covers another."""
    view = window.map_view
    enc = window.document.committed
    circles = []
    for i in range(6):
        z = edits.default_zone(enc, "circle", None, (12.0 + 5 * i, 34.0))
        enc = edits.add_unchecked(enc, z)
        circles.append(z.id)
    window.document.commit(edits.checked(enc), "circles")
    view.zoom_by(2.0)  # (zoomed out: 5 m narrower than a label)
    oracle.settle(window)
    k = 1 / view.m_per_px()
    assert 5 * k < TEXT.get("3 m radius", 11.0 * view.options.label_scale)[1]
    placed = view.zones.placed_labels(k)
    at = [lab for d in view.zones.drawings().values() for lab in d.labels]
    assert len(placed) == len(at)
    mine = {zid: None for zid in circles}
    n = 0
    for zid, d in view.zones.drawings().items():
        for x, y, text, _ in d.labels:
            if zid in mine:
                mine[zid] = ((x, y), placed[n][0])
            n += 1
    for i, zid in enumerate(circles):
        (x, y), rect = mine[zid]
        assert (x, y) == (15.0 + 5 * i, 34.0)
        gap = math.hypot(rect.center().x() - x * k, rect.center().y() - y * k)
        assert gap < rect.width(), (zid, gap, rect.width())
    rects = [r for r, _, _ in placed]
    for i, a in enumerate(rects):
        assert not any(a.intersects(b) for b in rects[:i])
