"""The ruler's walk on a big map comes from the charge planner's process (issue 14): the same
path and length as ``shortest_path`` on the GUI thread, "walk: working out…" until it comes,
the walk for the new obstacles after an edit, and no walk read as before.

The demo is made "big" for these tests (``PROCESS_FROM`` = 1). Sam stands at (12, 20),
radius 0.4 m; the low wall ``wall-1`` spans x 26..36, y 30..30.3 (the walk from Sam to
(31, 33) goes round its west end); building-1 covers (5, 5).
"""

from __future__ import annotations

import math

import pytest

from engine.analysis import Tactics
from engine.model import Obstacle
from gui import charge_worker
from gui.ruler import WALK_PENDING, RulerTool
from gui.tools import Pointer


@pytest.fixture
def big(monkeypatch, qtbot):
    monkeypatch.setattr(charge_worker, "PROCESS_FROM", 1)
    charge_worker.start_planner()
    qtbot.waitUntil(charge_worker._SERVER.ready.is_set, timeout=30_000)


def _ruler(window) -> RulerTool:
    view = window.map_view
    tool = RulerTool(view)
    view.set_tool(tool)
    return tool


def _drag(tool, a, b, steps=4):
    """The ruler dragged from ``a`` to ``b`` (map metres), no event processed in between."""
    k = tool.host.m_per_px()
    tool.press(Pointer(a[0], a[1], m_per_px=k))
    for i in range(1, steps + 1):
        f = i / steps
        tool.move(Pointer(a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]), m_per_px=k))
    tool.release(Pointer(b[0], b[1], m_per_px=k))


def _here(encounter, walker, end):
    t = encounter.token(walker)
    return Tactics(encounter).navigator.shortest_path((t.x, t.y), end, t.radius)


def _labels(window):
    return [t for _, _, t in window.map_view.overlay._tool.labels]


def test_the_walk_comes_from_the_planner_and_is_the_in_thread_path(window, qtbot, big):
    tool = _ruler(window)
    _drag(tool, (12.0, 20.0), (31.0, 33.0))  # from Sam, round wall-1
    r = tool.reading
    # distance and band at once; the walk pending, said so on the map and in the status bar
    assert r.distance == pytest.approx(math.hypot(19.0, 13.0))
    assert r.walk_pending and r.walk is None and r.walk_points == ()
    assert _labels(window)[-1] == WALK_PENDING == "walk: working out\u2026"
    assert window.statusBar().currentMessage().endswith(WALK_PENDING)
    assert tool.walks.asked_of_planner >= 1 and tool.walks.worked_here == 0
    qtbot.waitUntil(lambda: not tool.reading.walk_pending, timeout=30_000)
    r = tool.reading
    want = _here(window.document.encounter, "sam", (31.0, 33.0))
    assert want is not None and want.length > r.distance + 0.1  # (round the wall: longer than straight)
    assert r.walk == pytest.approx(want.length, abs=1e-9)
    assert r.walk_points == tuple((float(x), float(y)) for x, y in want.points)
    assert _labels(window)[-1] == f"Sam walks {want.length:.1f} m"
    assert tool.walks.worked_here == 0  # (nothing searched on the GUI thread)


def test_an_edit_while_the_walk_is_pending_gives_the_walk_for_the_new_obstacles(window, qtbot, big):
    tool = _ruler(window)
    _drag(tool, (12.0, 20.0), (24.0, 20.0))  # 12 m east, nothing in between
    assert tool.reading.walk_pending
    # a wall across the straight walk lands before the planner's answer is read
    enc = window.document.encounter
    wall = Obstacle(id="wall-new", height=2.0, polygon=((18.0, 15.0), (18.3, 15.0), (18.3, 25.0), (18.0, 25.0)))
    window.document.commit(enc.model_copy(update={"obstacles": enc.obstacles + (wall,)}), "wall")
    assert tool.reading.walk_pending  # measured again, for the new obstacles: pending again
    qtbot.waitUntil(lambda: not tool.reading.walk_pending, timeout=30_000)
    r = tool.reading
    want = _here(window.document.encounter, "sam", (24.0, 20.0))
    assert want.length > 12.5  # round the new wall
    assert r.walk == pytest.approx(want.length, abs=1e-9)
    assert r.walk_points == tuple((float(x), float(y)) for x, y in want.points)
    # its undo: the straight 12 m again (never the walk of the obstacles before)
    window.document.undo_stack.undo()
    assert tool.reading.walk_pending or tool.reading.walk == pytest.approx(12.0)
    qtbot.waitUntil(lambda: not tool.reading.walk_pending, timeout=30_000)
    assert tool.reading.walk == pytest.approx(12.0, abs=1e-9)


def test_an_answer_to_an_older_ruler_end_is_dropped(window, qtbot, big):
    tool = _ruler(window)
    _drag(tool, (12.0, 20.0), (24.0, 20.0))
    asked = tool.walks._asked
    assert asked is not None
    old = asked[0] - 1  # an earlier request's number (the ruler has moved on since)
    tool.walks._on_reply(old, ("path", ((12.0, 20.0), (99.0, 99.0)), 123.0))
    assert tool.walks._known is None and tool.walks._asked is asked  # dropped; still waiting
    assert tool.reading.walk_pending
    qtbot.waitUntil(lambda: not tool.reading.walk_pending, timeout=30_000)
    assert tool.reading.walk == pytest.approx(12.0, abs=1e-9)


def test_no_walk_reads_as_before_when_it_comes_from_the_planner(window, qtbot, big):
    enc = window.document.encounter
    tool = _ruler(window)
    # into building-1: the geometry's refusal, word for word as on the GUI thread
    _drag(tool, (12.0, 20.0), (5.0, 5.0))
    qtbot.waitUntil(lambda: not tool.reading.walk_pending, timeout=30_000)
    r = tool.reading
    with pytest.raises(ValueError) as refused:
        _here(enc, "sam", (5.0, 5.0))
    assert "building-1" in str(refused.value)  # the geometry says the id; the GM reads the name
    assert r.walk is None and r.walk_note == "no walk: the goal point (5.00, 5.00) lies inside Warehouse corner"
    # 0.2 m north of wall-1: Sam's 0.4 m body does not fit there
    assert _here(enc, "sam", (31.0, 29.8)) is None
    _drag(tool, (12.0, 20.0), (31.0, 29.8))
    qtbot.waitUntil(lambda: not tool.reading.walk_pending, timeout=30_000)
    r = tool.reading
    assert r.walk is None and r.walk_note == "no walk: Sam cannot get there"
    assert _labels(window)[-1] == "no walk: Sam cannot get there"
    assert tool.walks.worked_here == 0


def test_small_maps_walk_on_the_gui_thread_at_once(window, monkeypatch):
    # (the demo's 10 obstacles, under PROCESS_FROM: no planner, no pending -- however loaded
    # the machine that runs the test)
    from gui import walk_worker

    monkeypatch.setattr(walk_worker, "HERE_BUDGET_S", float("inf"))
    assert len(window.document.tactics.cover_index.polygons) < charge_worker.PROCESS_FROM
    tool = _ruler(window)
    _drag(tool, (12.0, 20.0), (24.0, 20.0))
    r = tool.reading
    assert not r.walk_pending and r.walk == pytest.approx(12.0)
    assert tool.walks.asked_of_planner == 0 and tool.walks.worked_here >= 1


def test_a_walk_asked_of_a_planner_that_died_is_asked_again_and_comes(window, qtbot, big):
    tool = _ruler(window)
    _drag(tool, (12.0, 20.0), (31.0, 33.0))
    assert tool.reading.walk_pending
    dead = charge_worker._SERVER
    dead.walkers.clear()  # (its answer, if it comes, reaches no one: as if it died first)
    dead.proc.kill()
    dead.proc.wait(10)
    qtbot.waitUntil(lambda: not tool.reading.walk_pending, timeout=60_000)
    want = _here(window.document.encounter, "sam", (31.0, 33.0))
    assert tool.reading.walk == pytest.approx(want.length, abs=1e-9)
    # a later walk goes to the planner started again
    _drag(tool, (12.0, 20.0), (24.0, 20.0))
    qtbot.waitUntil(lambda: not tool.reading.walk_pending, timeout=60_000)
    assert tool.reading.walk == pytest.approx(12.0, abs=1e-9)
    assert charge_worker._SERVER is not dead and charge_worker._SERVER.alive()


def test_a_small_map_whose_walk_was_slow_on_the_gui_thread_walks_in_the_planner_after(window, qtbot, monkeypatch):
    from gui import walk_worker

    monkeypatch.setattr(walk_worker, "HERE_BUDGET_S", 0.0)  # (every walk here "too slow")
    monkeypatch.setattr(walk_worker.WalkWorker, "slow_sets", set())
    charge_worker.start_planner()
    qtbot.waitUntil(charge_worker._SERVER.ready.is_set, timeout=30_000)
    tool = _ruler(window)
    k = tool.host.m_per_px()
    tool.press(Pointer(12.0, 20.0, m_per_px=k))  # on Sam: its walk to where it stands, here
    assert not tool.reading.walk_pending and tool.reading.walk == pytest.approx(0.0)
    assert tool.walks.worked_here == 1
    tool.move(Pointer(31.0, 33.0, m_per_px=k))
    assert tool.reading.walk_pending  # then the planner's
    tool.release(Pointer(31.0, 33.0, m_per_px=k))
    qtbot.waitUntil(lambda: not tool.reading.walk_pending, timeout=30_000)
    want = _here(window.document.encounter, "sam", (31.0, 33.0))
    assert tool.reading.walk == pytest.approx(want.length, abs=1e-9) and tool.walks.worked_here == 1


def test_no_walk_while_the_engine_refuses_the_encounter(window, monkeypatch):
    """(its answers are then of the encounter before: never shown as this one's walk)"""
    tool = _ruler(window)
    _drag(tool, (12.0, 20.0), (24.0, 20.0))
    monkeypatch.setattr(window.document.session, "tactics_error", "obstacle 'x': a footprint the geometry refuses")
    tool._document_changed()
    r = tool.reading
    assert r.walk is None and not r.walk_pending
    assert r.walk_note == "no walk: obstacle 'x': a footprint the geometry refuses"
    assert r.distance == pytest.approx(12.0)


def test_without_a_planner_the_walk_is_worked_out_here(window, monkeypatch):
    """(a bundled build has no python to start the planner with: its server says failed)"""
    import threading

    class Failed:
        failed = True
        ready = threading.Event()
        started = 0.0

        def alive(self):
            return False

    monkeypatch.setattr(charge_worker, "PROCESS_FROM", 1)
    monkeypatch.setattr(charge_worker, "_SERVER", Failed())
    tool = _ruler(window)
    _drag(tool, (12.0, 20.0), (31.0, 33.0))
    r = tool.reading
    want = _here(window.document.encounter, "sam", (31.0, 33.0))
    assert not r.walk_pending and r.walk == pytest.approx(want.length, abs=1e-9)
    assert tool.walks.asked_of_planner == 0 and tool.walks.worked_here >= 1
