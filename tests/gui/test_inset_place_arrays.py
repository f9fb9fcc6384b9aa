"""The hover inset's place is worked out from arrays of the rectangles it keeps clear of (no
``QRectF`` a name, badge and disc: 1,500 of them on a 500-token map, each intersected with
twelve places in Python, were most of a hovered undo's paint); the places are those of
the rectangles one by one, exactly (ties included), on seeded crowds of rectangles."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF

from gui.layers.answer_layer import inset_place


def one_by_one(cx, cy, rpx, fw, fh, gap, vp, avoid):
    """The former placement: each candidate place intersected with each rectangle."""
    places = [QRectF(x, cy - fh / 2 + shift * fh / 2, fw, fh)
              for away in (gap, 2.2 * gap) for shift in (0, -1, 1)
              for x in (cx + rpx + away, cx - rpx - away - fw)]
    best, best_cost = places[0], None
    for r in places:
        c = 0.0
        for a in avoid:
            i = r.intersected(a)
            if not i.isEmpty():
                c += i.width() * i.height()
        if not vp.isEmpty():
            i = r.intersected(vp)
            c += 4 * (r.width() * r.height() - (0.0 if i.isEmpty() else i.width() * i.height()))
        if c == 0:
            return r
        if best_cost is None or c < best_cost:
            best, best_cost = r, c
    return best


def test_a_rectangle_in_the_way_as_an_array_row_sends_the_inset_left():
    # as tests/gui/test_hover_inset.py: right of the disc is 236..286 x 150..250; a name at
    # 240..280 x 205..221 is in the way, so the inset goes left (114..164)
    row = np.array([[240.0, 205.0, 40.0, 16.0]])
    r = inset_place(200, 200, 10, 50, 100, 26, QRectF(), row)
    assert (r.left(), r.top(), r.width(), r.height()) == (114, 150, 50, 100)


def test_seeded_crowds_get_the_places_of_the_rectangles_one_by_one():
    rng = np.random.default_rng(11)
    moved = 0
    for case in range(300):
        n = int(rng.integers(0, 400))
        xy = rng.uniform(0, 800, (n, 2))
        wh = rng.uniform(4, 90, (n, 2))
        if case % 5 == 0:  # some on the grid (rectangles that just touch: no overlap)
            xy, wh = np.round(xy / 10) * 10, np.round(wh / 10) * 10
        rows = np.column_stack([xy, wh])
        rects = [QRectF(*row) for row in rows.tolist()]
        cx, cy = rng.uniform(100, 700, 2)
        fw, fh = rng.uniform(40, 140), rng.uniform(60, 180)
        vp = QRectF(4, 4, 792, 592) if case % 3 else QRectF()
        want = one_by_one(cx, cy, 12.0, fw, fh, 26.0, vp, rects)
        for got in (inset_place(cx, cy, 12.0, fw, fh, 26.0, vp, rows), inset_place(cx, cy, 12.0, fw, fh, 26.0, vp, rects)):
            assert (got.x(), got.y(), got.width(), got.height()) == (want.x(), want.y(), want.width(), want.height())
        moved += (want.x(), want.y()) != (cx + 12.0 + 26.0, cy - fh / 2)
    assert 50 < moved < 300  # (crowds that push it off its first place, and some that do not)
