"""Issue 30 item 6: while the GM drags a token, the metres it walks round the obstacles and
what they cost in the system's movement show beside it; the ruler's range band is the
measured token's gun; after End phase the acting character becomes the attacker.

The demo (SR5): Sam stands at (12, 20), radius 0.4 m, Agility 6 (Walking rate 12 m, Running
rate 24 m). The low wall ``wall-1`` spans x 26..36, y 30..30.3: Sam's walk to (31, 33) goes
round its west end, by the corner (26, 30) pushed out by his radius, (25.83, 30.70):
sqrt(13.83^2 + 10.70^2) = 17.49 m, then sqrt(5.17^2 + 2.30^2) = 5.66 m, 23.14 m in all
(straight: sqrt(19^2 + 13^2) = 23.02 m) -- running, within the 24 m."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from engine.analysis import Tactics
from tests.gui.conftest import vp_point


def _labels(window):
    return [t for _, _, t in window.map_view.overlay._tool.labels]


def _press_and_move(view, a, b, steps=6):
    vp = view.viewport()
    pa, pb = vp_point(view, *a), vp_point(view, *b)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pa)
    for i in range(1, steps + 1):
        QTest.mouseMove(vp, QPoint(round(pa.x() + (pb.x() - pa.x()) * i / steps),
                                   round(pa.y() + (pb.y() - pa.y()) * i / steps)))
    return pb


def test_a_dragged_token_shows_its_walk_and_its_cost(window, qtbot):
    view = window.map_view
    before = window.document.committed
    pb = _press_and_move(view, (12.0, 20.0), (31.0, 33.0))
    qtbot.waitUntil(lambda: any("walks" in t for t in _labels(window)))
    sam = window.document.encounter.token("sam")
    path = Tactics(before).navigator.shortest_path((12.0, 20.0), (sam.x, sam.y), 0.4)
    assert path.length == pytest.approx(23.14, abs=0.4)  # (the drop is the nearest pixel, or grid point)
    walk, cost = _labels(window)
    assert walk == f"Sam walks {path.length:.1f} m"
    m = re.fullmatch(r"running \(Run, a Free Action\): (\d+\.\d) of 24 m", cost)
    assert m and float(m.group(1)) == pytest.approx(path.length, abs=0.051), cost
    # the walk is drawn: a line by the wall's west end
    lines = view.overlay._tool.lines
    assert lines and any(abs(lines[0].elementAt(i).x - 25.83) < 0.05 for i in range(lines[0].elementCount()))
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pb)
    assert _labels(window) == []  # the label goes with the drag


def test_a_short_drag_is_walking(window, qtbot):
    view = window.map_view
    pb = _press_and_move(view, (12.0, 20.0), (12.0, 26.0))
    qtbot.waitUntil(lambda: any("walks" in t for t in _labels(window)))
    sam = window.document.encounter.token("sam")
    d = abs(sam.y - 20.0)
    assert _labels(window) == [f"Sam walks {d:.1f} m", f"walking: {d:.1f} of 12 m"]
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pb)


def test_the_rulers_band_is_the_measured_tokens_gun(window, qtbot):
    """Sam (Ingram Smartgun X: medium to 40 m) is the attacker; the ruler pressed on Razor
    (27, 17) and dragged 20 m east reads Razor's Colt America L36: long (-3) from 15 to
    30 m. From an empty point it reads the attacker's gun again: medium (-1)."""
    from gui.ruler import RulerTool
    from tests.gui.conftest import mouse_click, mouse_drag

    view = window.map_view
    mouse_click(view, 12.0, 20.0)
    assert window.map_view.selection.attacker == "sam"
    view.set_tool(RulerTool(view))
    mouse_drag(view, (27.0, 17.0), (47.0, 17.0))
    r = view.tool.reading
    assert r.distance == pytest.approx(20.0, abs=0.15)
    assert (r.weapon, r.band) == ("Colt America L36", ("long", -3))
    mouse_drag(view, (27.0, 3.0), (47.0, 3.0))  # (no token there)
    r = view.tool.reading
    assert (r.weapon, r.band) == ("Ingram Smartgun X", ("medium", -1))


def test_after_end_phase_the_acting_character_is_the_attacker(window, qtbot):
    """Initiative typed in: Sam 22 acts first, then Nyx 14 (tests/gui/test_sr5_gui.py)."""
    from tests.gui.test_sr5_gui import start_turn

    sel = window.map_view.selection
    start_turn(window)
    assert sel.attacker == "sam"
    window.actions["sr5 end phase"].trigger()
    assert sel.attacker == "nyx"
