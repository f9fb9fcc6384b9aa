"""A zoom on a big map: the obstacle tiles show their old pictures scaled at once and are
drawn afresh a paint's budget at a time (REDRAW_OBSTACLES), until every tile in view is
drawn at the new zoom, and what is shown then is what drawing the paths directly shows."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from bench.scene import make_scene
from gui import idle
from gui.layers import obstacles as obstacles_mod


def _grab(view) -> np.ndarray:
    img = view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    ptr = img.constBits()
    return np.frombuffer(ptr, dtype=np.uint8, count=img.sizeInBytes()).reshape(img.height(), img.bytesPerLine())[
        :, : img.width() * 4].copy()


def _rendered(view):
    """The view drawn directly (``QGraphicsView.render``, no kept tile pictures), as bytes."""
    img = QImage(view.viewport().size() * view.viewport().devicePixelRatioF(), QImage.Format.Format_RGB32)
    img.setDevicePixelRatio(view.viewport().devicePixelRatioF())
    painter = QPainter(img)
    view.render(painter, QRectF(0, 0, view.viewport().width(), view.viewport().height()), view.viewport().rect())
    painter.end()
    ptr = img.constBits()
    return np.frombuffer(ptr, dtype=np.uint8, count=img.sizeInBytes()).reshape(img.height(), img.bytesPerLine())[
        :, : img.width() * 4].copy()


def test_a_zoom_draws_the_tiles_afresh_a_budget_at_a_time(window, qtbot):
    enc = make_scene(5, tokens=20, obstacles=3000)
    window.document.set_content(enc, None)
    view = window.map_view
    layer = view.obstacles
    qtbot.waitUntil(lambda: not layer.pending, timeout=20000)
    view.viewport().repaint()
    tiles = list(layer._tiles.values())
    assert len(tiles) > 20
    before = {id(t): t.drawn for t in tiles}
    view.zoom_by(1.25)
    view.viewport().repaint()  # (one paint, in this turn)
    fresh = [t for t in tiles if t.drawn > before[id(t)]]
    assert fresh, "some tiles are drawn at the new zoom at once"
    assert sum(len(t.items) for t in fresh) <= obstacles_mod.REDRAW_OBSTACLES + max(len(t.items) for t in tiles)
    assert layer.redrawing  # the others wait for the next turns
    qtbot.waitUntil(lambda: not layer.redrawing, timeout=10000)
    view.viewport().repaint()
    assert not layer.redrawing  # (every tile in view at the new zoom)
    # and the pictures show what the paths drawn directly show (the view rendered into an
    # image draws them so): the same pixels but for the edges' anti-aliasing
    drawn_before, blits_before = sum(t.drawn for t in tiles), sum(t.blits for t in tiles)
    shown = _grab(view)
    assert sum(t.drawn for t in tiles) == drawn_before  # (no tile drawn afresh: the pictures are current)
    assert sum(t.blits for t in tiles) > blits_before  # (the grab showed the pictures)
    direct = _rendered(view)
    diff = np.abs(shown.astype(int) - direct.astype(int))
    assert diff.mean() < 2.0
    assert np.mean(diff.max(axis=1) > 40) < 0.05  # (nearly every row alike)


def test_zoomed_in_a_paint_draws_afresh_a_budget_of_pixels_and_ends_as_drawn_directly(window, qtbot):
    # zoomed in, a tile's picture costs its pixels: few obstacles, many pixels each (a
    # 200 m map of 400 crates in rows)
    from engine.model import Encounter, MapSpec, Obstacle

    crates = tuple(Obstacle(id=f"c{i}-{j}", height=1.0 + (i + j) % 3,
                            polygon=((5 + 10 * i, 5 + 10 * j), (9 + 10 * i, 5 + 10 * j), (9 + 10 * i, 8 + 10 * j),
                                     (5 + 10 * i, 8 + 10 * j)))
                   for i in range(20) for j in range(20))
    enc = Encounter(name="crates", map=MapSpec(width=200.0, height=200.0), obstacles=crates)
    window.document.set_content(enc, None)
    view = window.map_view
    layer = view.obstacles
    qtbot.waitUntil(lambda: not layer.pending, timeout=20000)
    for _ in range(6):
        view.zoom_by(0.8)
    view.viewport().repaint()
    qtbot.waitUntil(lambda: not layer.redrawing, timeout=10000)
    view.viewport().repaint()
    tiles = list(layer._tiles.values())
    before = {id(t): t.drawn for t in tiles}
    view.zoom_by(1.25)
    view.viewport().repaint()  # (one paint, in this turn)
    fresh = [t for t in tiles if t.drawn > before[id(t)]]
    px = [t._pic.width() * t._pic.height() for t in fresh]
    assert fresh
    # (the paint's budget: a repaint may hold more than one paint of the view)
    assert 0 < layer.budget.pixels <= obstacles_mod.REDRAW_PIXELS + max(px)
    assert sum(len(t.items) for t in fresh) < obstacles_mod.REDRAW_OBSTACLES  # (the pixels held it back)
    assert layer.redrawing
    qtbot.waitUntil(lambda: not layer.redrawing, timeout=10000)
    view.viewport().repaint()
    shown = _grab(view)
    direct = _rendered(view)
    diff = np.abs(shown[::3, ::3].astype(np.int16) - direct[::3, ::3].astype(np.int16))  # (every third pixel)
    assert diff.mean() < 2.0


def test_pictures_and_direct_drawing_agree(window, qtbot):
    view = window.map_view
    layer = view.obstacles
    sched = idle.scheduler()
    qtbot.waitUntil(lambda: not layer.pending and not sched.jobs, timeout=10_000)  # (the map drawn, start-up work done)
    view.viewport().repaint()
    assert any(t.drawn for t in layer._tiles.values())  # (the widget's paints use the pictures)


def test_pictures_of_tiles_out_of_view_are_dropped_past_the_memory_cap(window, qtbot, monkeypatch):
    enc = make_scene(5, tokens=20, obstacles=3000)
    window.document.set_content(enc, None)
    view = window.map_view
    layer = view.obstacles
    qtbot.waitUntil(lambda: not layer.pending, timeout=20000)
    view.viewport().repaint()
    qtbot.waitUntil(lambda: not layer.redrawing, timeout=10000)
    view.viewport().repaint()
    full = layer.picture_bytes
    had = len(layer._pictures)
    assert full > 0 and had > 20
    cap = full // 4
    monkeypatch.setattr(obstacles_mod, "PICTURE_BYTES", cap)
    view.zoom_by(0.5)  # (in: every tile in view draws a bigger picture)
    view.viewport().repaint()
    # (the tiles in view drawn afresh, a paint's budget a turn: each new picture drops what is
    # out of view past the cap)
    qtbot.waitUntil(lambda: not layer.redrawing, timeout=10_000)
    view.viewport().repaint()
    seen = layer._in_view()
    in_view = sum(size for t, size in layer._pictures.items() if any(t.rect().intersects(r) for r in seen))
    out_of_view = layer.picture_bytes - in_view
    # what is out of view was dropped down to the cap (what is in view is always kept)
    assert out_of_view <= cap
    assert len(layer._pictures) < had  # (some were dropped)
    assert all(t._pic is None for t in layer._tiles.values() if t not in layer._pictures)
