"""Token art (issue 13 item 6): a token's picture (``Token.portrait``, a file path or a data
URI) drawn clipped in its disc in the GM view, the player view and exports; tokens keep a
legible minimum size at any zoom."""

from __future__ import annotations

import base64

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QColor, QImage

from engine.files import load_encounter
from gui import style
from gui.snapshot import Snapshot, SnapshotSpec
from tests.gui.settle import settle
from tests.gui.test_export import Png

MAGENTA = QColor("#e0109c")


def png_bytes(colour: QColor = MAGENTA, size: int = 64) -> bytes:
    img = QImage(size, size, QImage.Format.Format_ARGB32)
    img.fill(colour)
    buf = QByteArray()
    dev = QBuffer(buf)
    dev.open(QIODevice.OpenModeFlag.WriteOnly)
    img.save(dev, "PNG")
    return bytes(buf.data())


def data_uri(colour: QColor = MAGENTA) -> str:
    return "data:image/png;base64," + base64.b64encode(png_bytes(colour)).decode("ascii")


def _pixel(view, x, y) -> QColor:
    img = view.viewport().grab().toImage()
    p = view.map_to_viewport(x, y)
    return img.pixelColor(p.x(), p.y())


def _near(a: QColor, b: QColor, tol: int = 30) -> bool:
    return abs(a.red() - b.red()) <= tol and abs(a.green() - b.green()) <= tol and abs(a.blue() - b.blue()) <= tol


def with_portrait(window, token_id: str, src: str) -> None:
    enc = window.document.committed
    t = enc.token(token_id).model_copy(update={"portrait": src})
    from gui import edits

    window.document.commit(edits.replace(enc, t), "portrait")


def zoom_on(view, x, y, half=3.0):
    view.vb.setRange(xRange=(x - half, x + half), yRange=(y - half, y + half), padding=0)


def test_the_gm_view_draws_the_picture_in_the_disc(window, qtbot):
    view = window.map_view
    zoom_on(view, 36.0, 26.0)  # Spike (standing, r 0.4), a ganger: red disc
    settle(qtbot, window)
    assert _near(_pixel(view, 35.8, 26.1), style.side_colour("ganger"))
    with_portrait(window, "ganger-2", data_uri())
    qtbot.waitUntil(lambda: _near(_pixel(view, 35.8, 26.1), MAGENTA))
    assert set(view.tokens.portraits) == {"ganger-2"}
    # the rim keeps the side's colour; outside the disc the map shows
    assert _near(_pixel(view, 36.0 + 0.385, 26.0), style.side_colour("ganger"), 60)
    assert not _near(_pixel(view, 36.0 + 0.6, 26.0), MAGENTA, 60)


def test_a_picture_beside_the_encounter_file_is_saved_and_drawn(window, qtbot, tmp_path):
    (tmp_path / "spike.png").write_bytes(png_bytes())
    window.save_as(tmp_path / "fight.json")
    with_portrait(window, "ganger-2", "spike.png")
    assert window.save()
    assert load_encounter(tmp_path / "fight.json").token("ganger-2").portrait == "spike.png"
    window.open_file(tmp_path / "fight.json", ask=False)
    view = window.map_view
    zoom_on(view, 36.0, 26.0)
    qtbot.waitUntil(lambda: _near(_pixel(view, 35.8, 26.1), MAGENTA))


def test_a_missing_picture_is_named_and_the_disc_drawn_plain(window, qtbot):
    view = window.map_view
    with_portrait(window, "ganger-2", "nowhere/spike.png")
    qtbot.waitUntil(lambda: len(view.portrait_problems) == 1)
    assert view.tokens.portraits == {}
    assert len(view.portrait_problems) == 1
    assert "spike.png is missing; its disc is drawn plain" in view.portrait_problems[0]
    zoom_on(view, 36.0, 26.0)
    settle(qtbot, window)
    assert _near(_pixel(view, 35.8, 26.1), style.side_colour("ganger"))


def test_the_player_view_and_the_export_draw_it_too(window, qtbot, tmp_path):
    with_portrait(window, "ganger-2", data_uri())
    window.actions["player view"].trigger()
    pv = window.player_view.player
    pv.resize(900, 600)
    qtbot.waitExposed(pv)
    zoom_on(window.map_view, 36.0, 26.0)
    qtbot.waitUntil(lambda: set(pv.view.tokens.portraits) == {"ganger-2"})
    settle(qtbot)  # (the player window's view follows the GM's)
    with Snapshot(window.document.encounter, SnapshotSpec(table=False)) as snap:
        snap.write(tmp_path / "x.png")
    png = Png(tmp_path / "x.png")
    c = png.at(35.85, 26.1)
    assert abs(int(c[0]) - MAGENTA.red()) < 40 and abs(int(c[2]) - MAGENTA.blue()) < 40
    c = png.at(11.8, 19.8)  # Sam has no picture: his side's colour
    runner = style.side_colour("runner")
    assert abs(int(c[0]) - runner.red()) < 30 and abs(int(c[2]) - runner.blue()) < 30


def test_tokens_keep_a_legible_size_zoomed_far_out(window, qtbot):
    view = window.map_view
    view.vb.setRange(xRange=(-400, 460), yRange=(-300, 340), padding=0)  # 0.4 m is under 1 px here
    settle(qtbot, window)
    k = 1.0 / view.m_per_px()
    assert 0.4 * k < 1.0
    layer = view.tokens
    assert layer.radii_px(k).min() == pytest.approx(layer.MIN_RADIUS_PX)
    img = view.viewport().grab().toImage()
    p = view.map_to_viewport(22.0, 8.0)  # Vex (standing, no neighbour within 10 m): a 5 px disc
    ganger = style.side_colour("ganger")
    ring = [img.pixelColor(p.x() + dx, p.y() + dy) for dx, dy in ((3, 0), (-3, 0), (0, 3), (0, -3))]
    assert all(_near(c, ganger, 40) for c in ring), [c.name() for c in ring]  # 3 px out: still the disc


def test_a_token_far_zoomed_out_is_a_22_px_disc_and_grabbed_where_drawn(window, qtbot):
    """Issue 30 item 7: tokens were 11-14 px across at fit zoom on real maps; a disc is now
    never under 22 px across (radius 11), and a click 9 px from its centre, on the drawn
    disc, picks it."""
    from tests.gui.conftest import mouse_click

    view = window.map_view
    view.vb.setRange(xRange=(-400, 460), yRange=(-300, 340), padding=0)
    settle(qtbot, window)
    assert view.tokens.MIN_RADIUS_PX == 11.0
    img = view.viewport().grab().toImage()
    p = view.map_to_viewport(22.0, 8.0)  # Vex
    ganger = style.side_colour("ganger")
    ring = [img.pixelColor(p.x() + dx, p.y() + dy) for dx, dy in ((8, 0), (-8, 0), (0, 8), (0, -8))]
    assert all(_near(c, ganger, 40) for c in ring), [c.name() for c in ring]
    k = view.m_per_px()
    mouse_click(view, 22.0 + 9 * k, 8.0)
    assert window.selection.ids == ("ganger-6",)
