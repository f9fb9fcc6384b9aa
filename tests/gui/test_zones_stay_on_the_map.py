"""Zones are drawn on the map only (issue 24's screenshots): Brick's 18 m blast at (31, 29) on
the demo's 60 x 40 m map reaches 47 m down, 7 m past the map's bottom edge, and was painted
over the dark margin and round the legend. Its shape and labels stay whole (the engine's);
its paint stops at the map's edge."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPainter, QTransform

from gui import edits
from tests.gui import oracle


def test_a_blast_by_the_maps_edge_is_painted_on_the_map_only(window, qtbot):
    enc = window.document.committed
    m = enc.map
    assert (m.width, m.height) == (60.0, 40.0)
    z = edits.default_zone(enc, "blast", enc.token("brick"), (31.0, 29.0))
    window.document.commit(edits.add_unchecked(enc, z), "blast")
    window.document.commit(edits.resize_zone(window.document.committed, z.id, (49.0, 29.0)), "resize")
    oracle.settle(window)
    layer = window.map_view.zones
    full = layer.drawings()[z.id].full.boundingRect()
    assert full.bottom() == 47.0  # (the shape is whole: 29 + 18)
    k = 10.0  # pixels a metre
    img = QImage(int(m.width * k), int((m.height + 10) * k), QImage.Format.Format_ARGB32)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setTransform(QTransform.fromScale(k, k))
    layer.paint(p, None)
    p.end()
    alpha = lambda x, y: img.pixelColor(int(x * k), int(y * k)).alpha()  # noqa: E731
    assert alpha(31.0, 38.0) > 0  # inside the map, inside the blast
    assert [alpha(31.0, y) for y in (40.5, 43.0, 46.0)] == [0, 0, 0]  # past the edge: nothing
