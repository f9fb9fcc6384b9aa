"""Sprites stamped in one ``drawPixmapFragments`` call through Coverfire's own fragment
array (gui/layers/fragments.py), not pyqtgraph's private PrimitiveArray (issue 29 item 6)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap

from gui.layers.fragments import Fragments

ROOT = Path(__file__).resolve().parents[2]


def _canvas() -> QImage:
    img = QImage(40, 20, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(Qt.GlobalColor.transparent)
    return img


def test_fragments_draw_what_one_drawpixmap_each_draws(qapp):
    pm = QPixmap(4, 4)
    pm.fill(QColor("#c03020"))
    where = [(5.0, 6.0), (20.0, 3.0), (33.0, 12.0)]
    one_by_one = _canvas()
    p = QPainter(one_by_one)
    for x, y in where:
        p.drawPixmap(QPointF(x - 2, y - 2), pm)
    p.end()
    frags = Fragments()
    frags.resize(len(where))
    f = frags.ndarray()
    f[:, 0:2] = where  # (a fragment is placed by its centre)
    f[:, 2:6] = (0.0, 0.0, 4.0, 4.0)
    f[:, 6:10] = (1.0, 1.0, 0.0, 1.0)
    at_once = _canvas()
    p = QPainter(at_once)
    p.drawPixmapFragments(*frags.drawargs(), pm)
    p.end()
    assert at_once == one_by_one
    assert QColor(at_once.pixel(20, 3)) == QColor("#c03020") and at_once.pixel(0, 0) == 0
    frags.resize(0)
    assert frags.drawargs() == (None, 0)


def test_no_module_uses_pyqtgraphs_private_internals():
    used = [str(p.relative_to(ROOT)) for p in (ROOT / "gui").rglob("*.py")
            if "from pyqtgraph.Qt.internals" in (t := p.read_text(encoding="utf-8")) or "import pyqtgraph.Qt.internals" in t]
    assert not used
