"""The hover inset (the target's silhouette as the attacker sees it) keeps clear of the
names, badges and discs around it (issue 24: it covered a neighbour's name)."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtTest import QTest

from gui import edits
from gui.layers.answer_layer import inset_place
from tests.gui.conftest import mouse_click, vp_point
from tests.gui.settle import settle


def test_the_inset_goes_where_it_covers_nothing():
    # a 50 x 100 inset beside a 10 px disc at (200, 200), 26 px away: right of it
    # (236..286, 150..250) unless that covers something, then left (114..164), then raised
    # by half its height (100..200), then lowered
    free = inset_place(200, 200, 10, 50, 100, 26, QRectF(), [])
    assert (free.left(), free.top(), free.width(), free.height()) == (236, 150, 50, 100)
    name_right = QRectF(240, 205, 40, 16)
    left = inset_place(200, 200, 10, 50, 100, 26, QRectF(), [name_right])
    assert (left.left(), left.top()) == (114, 150)
    both = [name_right, QRectF(120, 230, 30, 16)]  # and a badge left below
    raised = inset_place(200, 200, 10, 50, 100, 26, QRectF(), both)
    assert (raised.left(), raised.top()) == (236, 100)
    # off the view's right edge (the view 0..280 wide): left
    edge = inset_place(200, 200, 10, 50, 100, 26, QRectF(0, 0, 280, 400), [])
    assert (edge.left(), edge.top()) == (114, 150)


def test_the_hover_inset_leaves_a_neighbours_name_readable(window, qtbot):
    """Razor stands 2.5 m right of Vex: hovering Vex with Sam as attacker, the inset's usual
    place right of Vex would cover Razor's name; it goes left of Vex instead, covering no
    name, badge or other disc."""
    enc = window.document.committed
    window.document.commit(edits.move_tokens(enc, {"ganger-1": (24.5, 8.0)}), "move")
    v = window.map_view
    mouse_click(v, 12.0, 20.0)  # Sam: the attacker
    QTest.mouseMove(v.viewport(), vp_point(v, 22.0, 8.0))  # over Vex
    assert v.focus_target() == "ganger-6"
    settle(qtbot, window)
    v.viewport().grab()  # (a paint: where the inset went)
    inset = v.answer_layer.inset_at
    assert inset is not None
    k = 1 / v.m_per_px()
    origin = v.map_to_viewport(0.0, 0.0)
    vex = v.map_to_viewport(22.0, 8.0)
    assert inset.right() < vex.x()  # left of Vex
    names = v.tokens.label_rects()
    razor = names["ganger-1"].translated(origin.x(), origin.y())
    usual = inset_place(vex.x(), vex.y(), v.tokens.radii_px(k)[v.tokens.ids.index("ganger-6")],
                        inset.width(), inset.height(), 26 * v.options.label_scale, QRectF(), [])
    assert usual.intersects(razor)  # (where it went before: over Razor's name)
    for tid, r in names.items():
        assert not inset.intersects(r.translated(origin.x(), origin.y())), tid
