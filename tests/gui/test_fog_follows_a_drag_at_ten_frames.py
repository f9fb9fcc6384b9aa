"""During a token drag the fog and the players' document follow at most
``1000 / FOG_FRAME_MS`` views a second by the program's clock (issue 26 item 7), the last
step is always shown in the end, and after the drop both windows draw what a fresh window
draws for the same encounter (DESIGN.md "The picture is the truth").

On the demo with the fog on, the GM's tint on and the player view open, Sam (12, 20) is
dragged east in 1 m steps with the program's clock standing still (a :class:`ManualClock`):
the first step's view is shown at once; the second's, worked out while the frame is not
over, is held (the fog and the players' Sam stay at the first step) and shown when the
frame's timer ends, as the party's view of that very step (the players' window repaints for
it, not for the GM's step before it); the drop lands at the third.
"""

from __future__ import annotations

import shapely

from engine import vision
from gui.party_sight import FOG_FRAME_MS
from gui.tools import Pointer, SelectTool
from tests.gui import oracle
from tests.gui.settle import settle
from tests.gui.test_party_sight_worker import fogged  # noqa: F401 - (a fixture: the fog on, the players' window open)


def _same_as_fresh(view, enc) -> None:
    fresh = vision.SightCache().view(enc)
    assert view.visible == fresh.visible
    assert shapely.symmetric_difference(view.sight, fresh.sight).area < 1e-9


def test_the_fog_follows_a_drag_at_its_frame_rate_ends_on_the_last_step_and_draws_as_fresh(
        window, qtbot, manual_clock, fogged, tmp_path):
    assert FOG_FRAME_MS == 100  # ten views a second at most
    player = window.player_view.player
    ps, doc = window.party_sight, window.document
    players = player.players
    view = window.map_view
    tool = SelectTool(view)
    view.set_tool(tool)
    k = view.m_per_px()
    tool.press(Pointer(12.0, 20.0, m_per_px=k))

    tool.move(Pointer(13.0, 20.0, m_per_px=k))  # the first step: shown when the worker is done
    qtbot.waitUntil(lambda: not ps.pending, timeout=10_000)
    first = doc.encounter
    assert ps.encounter is first and players.encounter.token("sam").x == 13.0
    _same_as_fresh(ps.view, first)
    shown = ps.async_count

    hold = player.preview_repaint
    qtbot.waitUntil(lambda: not hold._later.isActive(), timeout=10_000)  # (the first step's repaint done)
    repaints = hold.repaints
    tool.move(Pointer(14.0, 20.0, m_per_px=k))  # the clock has not moved: the frame is not over
    second = doc.encounter
    assert second.token("sam").x == 14.0  # (the GM's own token follows every step)
    qtbot.waitUntil(lambda: ps._deferred, timeout=10_000)  # worked out, and held
    assert ps.encounter is first and ps.async_count == shown
    assert players.encounter.token("sam").x == 13.0  # the players' Sam waits with its fog
    assert hold.repaints == repaints  # nothing the players see changed: their window is not repainted
    qtbot.waitUntil(lambda: not ps.pending, timeout=10_000)  # the frame's timer ends: shown
    assert ps.encounter is second and ps.async_count == shown + 1
    assert players.encounter.token("sam").x == 14.0
    _same_as_fresh(ps.view, second)
    qtbot.waitUntil(lambda: hold.repaints > repaints, timeout=10_000)  # and now their window is

    tool.move(Pointer(15.0, 20.0, m_per_px=k))
    tool.release(Pointer(15.0, 20.0, m_per_px=k))  # the drop: its view at once, for where it landed
    assert not doc.in_preview and doc.encounter.token("sam").x == 15.0
    assert ps.encounter is doc.encounter and players.encounter.token("sam").x == 15.0
    _same_as_fresh(ps.view, doc.encounter)
    settle(qtbot)
    assert oracle.compare(window, tmp_path) == []
