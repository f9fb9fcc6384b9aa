"""The ruler (issue 13 item 5), with numbers derived by hand on the demo.

Sam (12, 20), radius 0.4 m, carries an Ingram Smartgun X: a submachine gun, bands short
<= 10 m (0), medium <= 40 m (-1), long <= 80 m (-3), extreme <= 150 m (-6) (SR5 range table,
engine/ranges.py). The low wall ``wall-1`` spans x 26..36, y 30..30.3.
"""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from gui.ruler import RulerTool, measure
from tests.gui.conftest import mouse_click, mouse_drag


def test_from_sam_twelve_metres_east(window):
    enc, tactics = window.document.encounter, window.document.tactics
    r = measure(enc, tactics, (12.0, 20.0), (24.0, 20.0), attacker="sam", walker="sam")
    assert r.distance == pytest.approx(12.0)
    assert r.band == ("medium", -1) and r.weapon == "Ingram Smartgun X"
    # nothing between (car-1 ends at y 17.8, 2.2 m north of the line; Sam's 0.4 m fits)
    assert r.walk == pytest.approx(12.0)
    assert r.lines(enc) == ["12.0 m", "M \u22121 (medium, Ingram Smartgun X)", "Sam walks 12.0 m"]


def test_the_selected_tokens_walk_is_from_where_it_stands(window):
    """A ruler from (30, 36) to (24, 20) is hypot(6, 16) = 17.09 m; Sam, selected, walks to
    its end from (12, 20): 12.0 m, nothing in between."""
    enc, tactics = window.document.encounter, window.document.tactics
    r = measure(enc, tactics, (30.0, 36.0), (24.0, 20.0), attacker="sam", walker="sam")
    assert r.distance == pytest.approx(math.hypot(6.0, 16.0))
    assert r.walk == pytest.approx(12.0) and r.walk_points[0] == (12.0, 20.0)


def test_the_walk_goes_round_the_low_wall(window):
    """(31, 28) to (31, 33) is 5 m straight, through wall-1. The navigator inflates the wall
    by the walker's 0.4 m with chamfered (octagon) corners: the corners it passes at the west
    end are (26 - 0.4 tan 22.5deg, 29.6) = (25.8343, 29.6), (25.6, 29.8343), (25.6, 30.4657),
    (25.8343, 30.7). Walk = |(31,28)-(25.8343,29.6)| 5.4078 + chamfer 0.3314 + 0.6314
    + chamfer 0.3314 + |(25.8343,30.7)-(31,33)| 5.6547 = 12.357 m."""
    enc, tactics = window.document.encounter, window.document.tactics
    t = 0.4 * math.tan(math.radians(22.5))  # 0.1657: how far a chamfer cuts in from a corner
    p1, p2, p3, p4 = (26 - t, 29.6), (25.6, 30 - t), (25.6, 30.3 + t), (26 - t, 30.7)
    hand = (math.dist((31, 28), p1) + math.dist(p1, p2) + math.dist(p2, p3) + math.dist(p3, p4)
            + math.dist(p4, (31, 33)))
    assert math.dist(p1, p2) == pytest.approx(math.sqrt(2) * (0.4 - t)) and math.dist(p2, p3) == pytest.approx(0.3 + 2 * t)
    assert hand == pytest.approx(12.357, abs=0.001)
    from engine.model import Token

    probe = Token(id="probe", name="Probe", x=31.0, y=28.0, radius=0.4)
    enc = enc.model_copy(update={"tokens": enc.tokens + (probe,)})
    tactics = type(tactics)(enc)
    r = measure(enc, tactics, (31.0, 28.0), (31.0, 33.0), attacker="sam", walker="probe")
    assert r.distance == pytest.approx(5.0)
    assert r.band == ("short", 0)
    assert r.walk == pytest.approx(hand, abs=0.01)
    assert r.lines(enc)[1:] == ["S 0 (short, Ingram Smartgun X)", "Probe walks 12.4 m"]


def test_out_of_range_and_no_attacker_say_so(window):
    enc, tactics = window.document.encounter, window.document.tactics
    far = measure(enc, tactics, (0.5, 39.5), (59.5, 0.5), attacker="sam")
    assert far.distance == pytest.approx(math.hypot(59.0, 39.0))  # 70.7 m: long, -3
    assert far.band == ("long", -3)
    none = measure(enc, tactics, (10.0, 10.0), (20.0, 10.0))
    assert none.band is None and none.band_note.startswith("no attacker")
    assert none.walk is None and none.walk_note == "select a token for its walk"


def test_the_walk_into_a_building_is_refused_with_the_engine_reason(window):
    enc, tactics = window.document.encounter, window.document.tactics
    r = measure(enc, tactics, (12.0, 20.0), (5.0, 5.0), attacker="sam", walker="sam")  # inside building-1
    assert r.walk is None and r.walk_note.startswith("no walk: ")


def test_key_m_and_a_drag_on_the_map_draw_the_reading(window, qtbot):
    view = window.map_view
    mouse_click(view, 12.0, 20.0)  # Sam: attacker and selected
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_M)
    assert window.actions["tool:Ruler"].isChecked() and isinstance(view.tool, RulerTool)
    mouse_drag(view, (12.0, 20.0), (24.0, 20.0))
    # (on the GUI thread at once on the demo, unless a loaded machine made its first walk
    # slow: then the planner's, shortly)
    qtbot.waitUntil(lambda: not view.tool.reading.walk_pending, timeout=30_000)
    r = view.tool.reading
    assert r.distance == pytest.approx(12.0, abs=0.1) and r.band == ("medium", -1)
    assert r.walker == "sam" and r.walk == pytest.approx(r.distance, abs=0.01)
    labels = [t for _, _, t in view.overlay._tool.labels]
    assert labels[0].endswith(" m") and labels[1].startswith("M \u22121")
    assert window.statusBar().currentMessage().startswith(labels[0])
    assert window.document.undo_stack.count() == 0  # measuring changes nothing
    QTest.keyClick(view, Qt.Key.Key_Escape)
    assert view.overlay._tool.labels == []
