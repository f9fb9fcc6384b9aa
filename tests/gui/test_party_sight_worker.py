"""A token drag's party sight is worked out in the worker thread (issue 26 item 7), and what
the window shows from it is what a fresh computation gives (DESIGN.md "The picture is the
truth").

On the demo (3 runners, 6 gangers, fog on): seeded random drags of a runner, each step shown
before the next (as a GM's mouse moves), the GM's tint on and the player view open. After
every step the window's view and the player view's tokens are compared with a fresh
:class:`engine.vision.SightCache` on the same encounter, and what both map views show after
their partial repaints (the fog repaints only around the moved token's sight) with a repaint
of all of them; a step whose answer comes
after the drag landed (or was undone) is dropped; the drop explores every step shown.
"""

from __future__ import annotations

import random
import threading

import pytest
import shapely

from engine import vision
from gui.tools import Pointer, SelectTool
from tests.gui.settle import settle


def _fog_on(window) -> None:
    enc = window.document.committed
    window.document.commit(enc.model_copy(update={"sight": enc.sight.model_copy(update={"fog": True})}), "fog on")


@pytest.fixture
def fogged(window, qtbot):
    _fog_on(window)
    window.sight_controls.set_gm_fog(True)
    window.actions["player view"].trigger()
    p = window.player_view.player
    p.resize(960, 640)
    qtbot.waitExposed(p)
    settle(qtbot)
    return window


def _same_view(got, fresh) -> None:
    assert got.visible == fresh.visible
    assert shapely.symmetric_difference(got.sight, fresh.sight).area < 1e-9
    assert shapely.symmetric_difference(got.explored, fresh.explored).area < 1e-9


def _repainted_alike(view, qtbot) -> None:
    """What the view shows after its own (partial) repaints is what a repaint of all of it
    with the fog's image made afresh shows (its backing store, tests/gui/oracle.py)."""
    from tests.gui import oracle

    from gui.layers.fog import FogLayer

    live = oracle.grab(view)
    for layer in view.layers:
        if isinstance(layer, FogLayer):  # (its image made afresh, not only where it changed)
            layer._image = layer._image_key = layer._partial = None
    view.viewport().repaint()
    full = oracle.grab(view)
    mask = oracle.differing(live, full)
    assert mask is not None and int(mask.sum()) <= oracle.PIXELS_ALLOWED


def _shown(window, qtbot) -> None:
    qtbot.waitUntil(lambda: not window.party_sight.pending, timeout=10_000)
    settle(qtbot)


def test_drag_steps_are_worked_out_in_the_worker_and_agree_with_a_fresh_view(fogged, qtbot, monkeypatch):
    window = fogged
    ps = window.party_sight
    doc = window.document
    threads = []
    compute = ps.compute
    monkeypatch.setattr(ps, "compute", lambda enc: (threads.append(threading.get_ident()), compute(enc))[1])
    rng = random.Random(26)
    runner = next(t for t in doc.encounter.tokens if t.side == "runner")
    view = window.map_view
    tool = SelectTool(view)
    view.set_tool(tool)
    k = view.m_per_px()
    for drag in range(2):
        start = doc.encounter.token(runner.id)
        tool.press(Pointer(start.x, start.y, m_per_px=k))
        threads.clear()
        for _ in range(3):
            x = min(max(start.x + rng.uniform(-6, 6), 1.0), doc.encounter.map.width - 1)
            y = min(max(start.y + rng.uniform(-6, 6), 1.0), doc.encounter.map.height - 1)
            tool.move(Pointer(x, y, m_per_px=k))
            _shown(window, qtbot)
            enc = doc.encounter
            assert doc.in_preview and ps.encounter is enc
            fresh = vision.SightCache().view(enc)
            _same_view(ps.view, fresh)
            players = window.player_view.player.players.encounter
            assert {t.id for t in players.tokens} == set(fresh.visible)
            assert players.token(runner.id).x == enc.token(runner.id).x  # moved with its fog
            _repainted_alike(window.map_view, qtbot)  # (the fog repaints only where it changed)
            _repainted_alike(window.player_view.player.view, qtbot)
        assert threads and threading.get_ident() not in threads  # not one on the GUI thread
        tool.release(Pointer(x, y, m_per_px=k))
        settle(qtbot)
        _same_view(ps.view, vision.SightCache().view(doc.encounter))
        if drag == 1:
            doc.undo_stack.undo()
            settle(qtbot)
            _same_view(ps.view, vision.SightCache().view(doc.encounter))


def test_a_steps_answer_that_comes_after_the_drop_or_an_undo_is_dropped(fogged, qtbot):
    window = fogged
    ps = window.party_sight
    doc = window.document
    runner = next(t for t in doc.encounter.tokens if t.side == "runner")
    base = doc.committed
    from gui import edits

    doc.preview(edits.move_tokens(base, {runner.id: (runner.x + 4.0, runner.y)}))
    assert ps.pending  # (being worked out)
    doc.cancel_preview()  # back where it was before the answer is in
    settle(qtbot)
    qtbot.waitUntil(lambda: not ps.pending, timeout=10_000)
    settle(qtbot)
    assert ps.encounter is doc.encounter is base
    _same_view(ps.view, vision.SightCache().view(base))


def test_the_drop_explores_every_step_the_players_were_shown(fogged, qtbot):
    window = fogged
    ps = window.party_sight
    doc = window.document
    runner = next(t for t in doc.encounter.tokens if t.side == "runner")
    view = window.map_view
    tool = SelectTool(view)
    view.set_tool(tool)
    k = view.m_per_px()
    tool.press(Pointer(runner.x, runner.y, m_per_px=k))
    seen = []
    for i in range(1, 4):
        tool.move(Pointer(runner.x + 1.5 * i, runner.y + 0.7 * i, m_per_px=k))
        _shown(window, qtbot)
        seen.append(ps.view.sight)
    tool.release(Pointer(runner.x + 4.5, runner.y + 2.1, m_per_px=k))
    settle(qtbot)
    explored = vision.explored_geometry(doc.encounter)
    grown = explored.buffer(2 * vision.EXPLORED_TOLERANCE)  # (saved simplified)
    for i, sight in enumerate(seen):
        left = shapely.difference(sight, grown).area
        assert left < 1e-6 * max(sight.area, 1.0), (i, left)


def test_a_drag_step_repaints_the_fog_where_the_moved_tokens_sight_was_and_is(qtbot, tmp_path, monkeypatch):
    # A 60 x 20 m map cut in two by a 3 m wall at x 29.8..30.2 (taller than the eyes): Sam,
    # the party, sees only the half it stands in. Dragged from the west half to the east one,
    # the west half turns from clear to dimmed and the east from dark to clear: both halves
    # must be repainted, and nothing else need be.
    from engine.files import save_encounter
    from engine.model import Encounter, MapSpec, Obstacle, Sight, Token
    from tests.gui.conftest import discard_on_close, open_window

    discard_on_close(monkeypatch)
    wall = Obstacle(id="wall", height=3.0, polygon=((29.8, 0.0), (30.2, 0.0), (30.2, 20.0), (29.8, 20.0)))
    enc = Encounter(ruleset="d100", map=MapSpec(width=60, height=20), obstacles=(wall,),
                    tokens=(Token(id="sam", x=10.0, y=10.0, side="runner"),
                            Token(id="vex", x=50.0, y=4.0, side="ganger")), sight=Sight(fog=True))
    path = tmp_path / "halves.json"
    save_encounter(enc, path)
    window = open_window(qtbot, path, tmp_path)
    window.sight_controls.set_gm_fog(True)
    settle(qtbot)
    view = window.map_view
    tool = SelectTool(view)
    view.set_tool(tool)
    k = view.m_per_px()
    tool.press(Pointer(10.0, 10.0, m_per_px=k))
    for x in (12.0, 40.0, 50.0, 20.0):
        tool.move(Pointer(x, 10.0, m_per_px=k))
        _shown(window, qtbot)
        _repainted_alike(view, qtbot)
        assert ("vex" in window.party_sight.view.visible) == (x > 30)
    tool.release(Pointer(20.0, 10.0, m_per_px=k))
    settle(qtbot)
    _repainted_alike(view, qtbot)


def test_an_obstacle_drag_that_rests_is_worked_out_in_the_worker_and_agrees_with_a_fresh_view(fogged, qtbot,
                                                                                             monkeypatch):
    # A corner dragged and left still: its view (every party token's sight may change) is
    # worked out off the GUI thread, shown, and is a fresh cache's on the same encounter; the
    # drop works it out at once and agrees too.
    from gui import edits

    window = fogged
    ps = window.party_sight
    doc = window.document
    threads = []
    compute = ps.compute
    monkeypatch.setattr(ps, "compute", lambda enc: (threads.append(threading.get_ident()), compute(enc))[1])
    enc = doc.committed
    ob = next(o for o in enc.obstacles if o.blocks)
    x, y = ob.polygon[0]
    shown = ps.async_count
    doc.preview(edits.set_vertex(enc, ob.id, 0, (x - 1.5, y - 1.0)))
    qtbot.waitUntil(lambda: ps.async_count > shown and not ps.pending, timeout=10_000)
    settle(qtbot)
    assert threads and threading.get_ident() not in threads
    assert doc.in_preview and ps.encounter is doc.encounter
    _same_view(ps.view, vision.SightCache().view(doc.encounter))
    _repainted_alike(window.map_view, qtbot)
    doc.commit(edits.set_vertex(enc, ob.id, 0, (x - 1.5, y - 1.0)), "corner")
    settle(qtbot)
    _same_view(ps.view, vision.SightCache().view(doc.encounter))
