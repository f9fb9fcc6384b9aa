"""Select is not target (issue 13 item 3): a drag moves a token and keeps the attacker, a
click makes it the attacker, hover + T targets (a ring on the map), through real mouse and
key events on the main window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest

from tests.gui.conftest import mouse_click, mouse_drag, vp_point


def hover(view, x: float, y: float) -> None:
    QTest.mouseMove(view.viewport(), vp_point(view, x, y))


def test_dragging_a_non_attacker_moves_it_and_keeps_the_attacker(window, qtbot):
    view, sel = window.map_view, window.selection
    mouse_click(view, 12.0, 20.0)  # Sam
    assert sel.attacker == "sam"
    mouse_drag(view, (36.0, 26.0), (34.0, 28.0))  # Spike, dragged 2 m west and 2 m south
    spike = window.document.encounter.token("ganger-2")
    assert (spike.x, spike.y) == pytest.approx((34.0, 28.0), abs=0.1)
    assert sel.attacker == "sam" and sel.ids == ("ganger-2",)
    assert window.document.undo_stack.count() == 1
    # the targets table still answers for Sam, now about Spike's new place
    rep = window.answers.targets["ganger-2"]
    assert rep.distance == pytest.approx(((34.0 - 12.0) ** 2 + (28.0 - 20.0) ** 2) ** 0.5, abs=0.15)


def test_a_click_without_a_drag_makes_the_token_the_attacker(window, qtbot):
    view, sel = window.map_view, window.selection
    mouse_click(view, 12.0, 20.0)
    mouse_click(view, 36.0, 26.0)
    assert sel.attacker == "ganger-2"
    assert window.document.undo_stack.count() == 0  # a click moves nothing


def test_hover_and_t_toggles_a_target_with_a_ring_on_the_map(window, qtbot):
    view, sel = window.map_view, window.selection
    mouse_click(view, 12.0, 20.0)
    view.setFocus()
    hover(view, 36.0, 26.0)
    assert view.hovered == "ganger-2"
    QTest.keyClick(view, Qt.Key.Key_T)
    assert sel.targets == ("ganger-2",)
    assert sel.attacker == "sam" and sel.ids == ("sam",)  # targeting selects nothing
    hover(view, 27.0, 17.0)
    QTest.keyClick(view, Qt.Key.Key_T)
    assert sel.targets == ("ganger-2", "ganger-1")
    # the ring: red, at the radius the layer says, right of Spike's disc
    k = 1.0 / view.m_per_px()
    rr = view.tokens.target_ring_radius_px("ganger-2", k)
    assert rr is not None and rr > 0.4 * k
    img = view.viewport().grab().toImage()
    c = vp_point(view, 36.0, 26.0)
    red = [img.pixelColor(round(c.x() + rr + d), c.y()) for d in (-1, 0, 1)]
    assert any(p.red() > 200 and p.green() < 110 and p.blue() < 110 for p in red), [p.name() for p in red]
    # T again on Spike: no longer a target
    hover(view, 36.0, 26.0)
    QTest.keyClick(view, Qt.Key.Key_T)
    assert sel.targets == ("ganger-1",)
    assert window.actions["target"].shortcut().toString() == "T"


def test_t_over_empty_ground_says_what_to_do(window, qtbot):
    view = window.map_view
    view.setFocus()
    hover(view, 30.0, 36.0)
    assert view.hovered is None
    QTest.keyClick(view, Qt.Key.Key_T)
    assert window.selection.targets == ()
    assert "press T" in window.statusBar().currentMessage()


def test_targets_follow_deletes_and_a_new_encounter(window, qtbot):
    sel = window.selection
    sel.set_targets(["ganger-2", "ganger-1"])
    sel.select(["ganger-1"], window.document.encounter)
    window.delete_selection()
    assert sel.targets == ("ganger-2",)
    window.actions["open d100 demo"].trigger()
    assert sel.targets == ()


def test_the_token_tool_moved_to_shift_t(window):
    assert window.actions["tool:Token"].shortcut().toString() == "Shift+T"
