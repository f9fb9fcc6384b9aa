"""A token drag's party sight is worked out in the worker thread (issue 26 item 7), and what
the window shows from it is what a fresh computation gives (DESIGN.md "The picture is the
truth").

On the demo (3 runners, 6 gangers, fog on): seeded random drags of a runner, each step shown
before the next (as a GM's mouse moves), the GM's tint on and the player view open. After
every step the window's view, the player view's tokens and the fog's look are compared with
a fresh :class:`engine.vision.SightCache` on the same encounter; a step whose answer comes
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
