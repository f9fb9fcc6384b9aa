"""The drop of a drag with the fog on grows the explored areas from the union the party-sight
worker folded over the drag (issue 26 item 7): the union, the simplification and the
rounding to the 1 cm grid are worked out in the worker, none on the GUI thread, and what is
saved is what the GUI-thread path (:func:`engine.vision.explore` of the same areas) saves,
to the saved areas' own tolerance.

On the demo with the fog on and the player view open, Sam (12, 20) is dragged three steps
of (1.5, 0.7) m, each shown; the drop lands at the third. Saved: everything the party saw
before the drag, at each step and after the drop, nothing more: each within
``2 * EXPLORED_TOLERANCE`` of the other (both are simplified by ``EXPLORED_TOLERANCE``).
"""

from __future__ import annotations

import threading

import shapely

from engine import vision
from gui.tools import Pointer, SelectTool
from tests.gui.settle import settle


def test_the_drop_saves_the_workers_fold_of_every_step_and_agrees_with_the_gui_threads_path(window, qtbot, monkeypatch):
    doc = window.document
    enc = doc.committed
    doc.commit(enc.model_copy(update={"sight": enc.sight.model_copy(update={"fog": True})}), "fog on")
    window.actions["player view"].trigger()
    qtbot.waitExposed(window.player_view.player)
    settle(qtbot)
    ps = window.party_sight
    before = doc.committed
    seen = [ps.view.sight]  # (what the players were shown before the drag)
    view = window.map_view
    tool = SelectTool(view)
    view.set_tool(tool)
    k = view.m_per_px()
    tool.press(Pointer(12.0, 20.0, m_per_px=k))
    for i in range(1, 4):
        tool.move(Pointer(12.0 + 1.5 * i, 20.0 + 0.7 * i, m_per_px=k))
        qtbot.waitUntil(lambda: not ps.pending, timeout=10_000)
        seen.append(ps.view.sight)

    threads, explored_here = [], []
    areas = vision.explored_areas
    monkeypatch.setattr(vision, "explored_areas",
                        lambda *a: (threads.append(threading.get_ident()), areas(*a))[1])
    explore = vision.explore
    monkeypatch.setattr(vision, "explore", lambda *a, **kw: (explored_here.append(1), explore(*a, **kw))[1])
    tool.release(Pointer(16.5, 22.1, m_per_px=k))
    settle(qtbot)
    monkeypatch.setattr(vision, "explored_areas", areas)  # (not undo(): the fixture's own patches stay)
    monkeypatch.setattr(vision, "explore", explore)
    assert doc.encounter.token("sam").x == 16.5
    assert threads and threading.get_ident() not in threads  # worked out in the worker
    assert not explored_here  # (the GUI-thread path was not taken)

    saved = vision.explored_geometry(doc.encounter)
    final = vision.SightCache().view(doc.encounter).sight
    tol = 2 * vision.EXPLORED_TOLERANCE
    for i, sight in enumerate([*seen, final]):
        assert shapely.difference(sight, saved.buffer(tol)).area < 1e-6 * max(sight.area, 1.0), i
    shown = shapely.union_all([vision.explored_geometry(before), *seen, final])
    assert shapely.difference(saved, shown.buffer(tol)).area < 1e-6 * saved.area  # nothing more

    # the GUI thread's path on the same areas saves the same, to the tolerance
    moved = before.model_copy(update={"tokens": doc.encounter.tokens})
    here = vision.explored_geometry(vision.explore(moved, vision.SightCache().view(moved), also=seen))
    assert shapely.difference(here, saved.buffer(tol)).area < 1e-6 * here.area
    assert shapely.difference(saved, here.buffer(tol)).area < 1e-6 * saved.area
