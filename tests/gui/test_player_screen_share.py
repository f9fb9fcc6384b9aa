"""The players' window made for a screen share and one laptop screen (issue 26 items 5, 6):
the fixed 16:9 canvas, the GM's ping, the turn banner, the camera on the acting token,
revealed rolls, the blank card's title, the "Players see" inset, and the window's place and
on-top remembered. Driven through the real main window, offscreen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSettings, QSize, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from engine.files import load_encounter
from gui import style
from gui.pings import PING_COLOUR, PING_S
from gui.player_overlays import REVEAL_S, BlankCard
from tests.gui.conftest import open_window, vp_point
from tests.gui.settle import settle

#: every token's initiative dice all 1s: Sam 6+4+2 = 12 acts first, Nyx 4+5+1 = 10 second,
#: Brick 8 third (Edge 2, as Tusk; Reaction 4, Intuition 3, as Tusk; first in the file)
ONES = {"sam": [1, 1], "nyx": [1], "brick": [1], "ganger-1": [1], "ganger-2": [1], "ganger-3": [1],
        "ganger-4": [1], "ganger-5": [1], "ganger-6": [1]}


def _start_turn(window) -> None:
    from engine.sr5.system import StartTurn

    enc = window.document.encounter
    window.document.commit(enc.system.apply(enc, StartTurn(entered=ONES)).encounter, "initiative")


def _end_phase(window) -> None:
    from engine.sr5.system import EndPhase

    enc = window.document.encounter
    window.document.commit(enc.system.apply(enc, EndPhase()).encounter, "end phase")


@pytest.fixture
def player(window, qtbot):
    p = window.player_view.open()
    p.resize(960, 640)
    qtbot.waitExposed(p)
    settle(qtbot, window)
    return p


def _pixel(view, x: float, y: float) -> QColor:
    img = view.viewport().grab().toImage()
    p = view.map_to_viewport(x, y)
    return img.pixelColor(p.x(), p.y())


def _close(a: QColor, b: QColor, tol: int = 24) -> bool:
    return all(abs(u - v) <= tol for u, v in zip(a.getRgb()[:3], b.getRgb()[:3]))


# -- the canvas ------------------------------------------------------------------------------------
def test_the_canvas_is_1280x720_letterboxed_whatever_the_window(window, player, qtbot):
    player.resize(1000, 700)
    settle(qtbot, window)
    assert player.canvas_size() == QSize(1280, 720)
    # 1000/1280 = 0.78125 < 700/720: as wide as the window, 562 px tall (562.5 rounded to
    # even), (700 - 562) / 2 = 69 px bars above and below
    assert player.canvas_rect() == QRect(0, 69, 1000, 562)
    assert player.stage.geometry() == QRect(0, 69, 1000, 562)
    assert player.view.options.label_scale == pytest.approx(1.4 * 1000 / 1280)
    small = player.view_rect()
    player.resize(1920, 1200)  # 1920/1280 = 1.5 < 1200/720: 1920x1080, 60 px bars
    settle(qtbot, window)
    assert player.canvas_rect() == QRect(0, 60, 1920, 1080)
    assert player.canvas_scale() == pytest.approx(1.5)
    assert player.view.options.label_scale == pytest.approx(1.4 * 1.5)
    # the same map area on the canvas at both sizes: the picture does not depend on the window
    # (to the half pixel the small letterbox rounds its height by: 0.1 % of the width)
    big = player.view_rect()
    tol = 0.002 * big.width()
    for a, b in ((small.left(), big.left()), (small.top(), big.top()), (small.width(), big.width()),
                 (small.height(), big.height())):
        assert a == pytest.approx(b, abs=tol)
    # the letterbox bars are black, the canvas is the map's backdrop
    img = player.grab().toImage()
    assert img.pixelColor(960, 20) == QColor(0, 0, 0)
    assert img.pixelColor(960, 1180) == QColor(0, 0, 0)
    # a 1920x1080 canvas in the same window: drawn at scale 1, labels as chosen
    window.player_view.set_options(window.player_view.options.with_(canvas="1920x1080"))
    settle(qtbot, window)
    assert player.canvas_size() == QSize(1920, 1080) and player.canvas_scale() == pytest.approx(1.0)
    assert player.view.options.label_scale == pytest.approx(1.4)


# -- the ping ---------------------------------------------------------------------------------------
def test_alt_click_pings_at_the_clicked_map_point_for_players_and_gm(window, player, qtbot, manual_clock):
    gm = window.map_view
    at = (20.0, 36.0)  # open floor, south of Lupe
    px = vp_point(gm, *at)
    where = gm.viewport_to_map(px)  # (the pixel's own map point: within a pixel of ``at``)
    assert where[0] == pytest.approx(at[0], abs=2 * gm.m_per_px())
    selected = window.selection.ids
    QTest.mouseClick(gm.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.AltModifier, px)
    assert window.selection.ids == selected  # the click pinged; it selected nothing
    (x, y, opacity), = player.ping_layer.drawn()
    assert (x, y) == pytest.approx(where, abs=1e-9) and opacity == pytest.approx(1.0)
    assert window.player_view.gm_ping_layer.drawn() == player.ping_layer.drawn()
    # the players see it: the dot at the point is the ping's colour
    assert _close(_pixel(player.view, *where), PING_COLOUR), _pixel(player.view, *where).name()
    manual_clock.advance(PING_S / 2)
    (_, _, opacity), = player.ping_layer.drawn()
    assert opacity == pytest.approx(0.5)
    manual_clock.advance(PING_S / 2 + 0.01)
    qtbot.waitUntil(lambda: not window.pings.timer.isActive())  # (the frame timer sees it end)
    assert player.ping_layer.drawn() == [] and window.pings.living() == []
    # the key Q pings where the mouse is
    px = vp_point(gm, 45.0, 35.0)
    QTest.mouseMove(gm.viewport(), px)
    where = gm.viewport_to_map(px)
    assert window.actions["ping"].shortcut().toString() == "Q"
    window.actions["ping"].trigger()
    (x, y, _), = player.ping_layer.drawn()
    assert (x, y) == pytest.approx(where, abs=2 * gm.m_per_px())




# -- the turn banner and the camera -------------------------------------------------------------------
def test_the_turn_banner_names_whose_turn_it_is(window, player, qtbot):
    assert not player.banner.isVisible() and player.banner.text() == ""  # no fight yet
    _start_turn(window)
    assert player.banner.text() == "Sam: pass 1, phase 1" and player.banner.isVisible()
    _end_phase(window)
    assert player.banner.text() == "Nyx: pass 1, phase 2"
    _end_phase(window)
    assert player.banner.text() == "Brick: pass 1, phase 3"
    # at the top of the canvas, inside it
    g = player.banner.geometry()
    assert player.stage.rect().contains(g) and g.top() < player.stage.height() * 0.1
    # an actor the players do not know of is not named
    enc = window.document.encounter
    tokens = tuple(t.model_copy(update={"hidden": True}) if t.id == "brick" else t for t in enc.tokens)
    window.document.commit(enc.model_copy(update={"tokens": tokens}), "hide Brick")
    assert player.banner.text() == "Pass 1, phase 3"
    # off in the options: not shown
    window.player_view.set_options(window.player_view.options.with_(banner=False))
    assert not player.banner.isVisible()


def test_the_camera_follows_the_acting_token_when_asked(window, player, qtbot):
    ctl = window.player_view
    ctl.set_options(ctl.options.with_(follow=False))
    window.actions["player view follows acting"].trigger()
    assert ctl.options.follow_acting
    width = player.view_rect().width()
    _start_turn(window)
    c = player.view_rect().center()
    assert (c.x(), c.y()) == pytest.approx((12.0, 20.0), abs=0.01)  # Sam
    assert player.view_rect().width() == pytest.approx(width)  # the zoom is kept
    _end_phase(window)
    c = player.view_rect().center()
    assert (c.x(), c.y()) == pytest.approx((10.5, 23.5), abs=0.01)  # Nyx
    window.actions["player view follows acting"].trigger()  # off: the camera stays
    _end_phase(window)
    c = player.view_rect().center()
    assert (c.x(), c.y()) == pytest.approx((10.5, 23.5), abs=0.01)


# -- revealed rolls -----------------------------------------------------------------------------------
def test_a_log_line_revealed_shows_to_the_players_then_goes(window, player, qtbot, manual_clock):
    from gui.combat_log import combat_log_for

    log = combat_log_for(window)
    log.add(["Sam fires at Razor: 6 hits against 2", "Razor takes 7P"], "sr5", round=1)
    log.add(["Nyx moves 4 m"], "sr5", round=1)
    panel = window.combat_log_panel
    assert panel.reveal_action.text() == "Reveal roll to players"
    panel.list.item(0).setSelected(True)
    assert panel.reveal() == ["Sam fires at Razor: 6 hits against 2"]
    assert player.roll.lines == ("Sam fires at Razor: 6 hits against 2",) and player.roll.isVisible()
    assert player.stage.rect().contains(player.roll.geometry())
    assert player.roll.geometry().top() > player.banner.geometry().bottom() or not player.banner.isVisible()
    panel.list.clearSelection()
    panel.reveal_action.trigger()  # nothing selected: the newest action's lines
    assert player.roll.lines == ("Nyx moves 4 m",)
    manual_clock.advance(REVEAL_S - 0.5)
    player.roll.tick()
    assert player.roll.isVisible()
    manual_clock.advance(0.6)
    qtbot.waitUntil(lambda: not player.roll.isVisible())  # (its timer reads the clock)
    assert player.roll.lines == ()


# -- the blank card -----------------------------------------------------------------------------------
LONG = "The long night at the abandoned Renraku arcology, part two \u2014 players"


def _light_columns(img):
    """The x of every pixel column holding a light (title) pixel."""
    import numpy as np

    img = img.convertToFormat(img.Format.Format_RGB32)
    a = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine())[:, : 4 * img.width()]
    light = a.reshape(img.height(), img.width(), 4)[:, :, :3].min(axis=2) > 200
    return np.nonzero(light.any(axis=0))[0]


@pytest.mark.parametrize("size", [(160, 90), (320, 180), (1280, 720), (1920, 1080)])
def test_the_blank_cards_title_lies_inside_the_card(qtbot, size):
    card = BlankCard()
    qtbot.addWidget(card)
    card.resize(*size)
    for title in ("Alley ambush on Halsey Street \u2014 players", LONG):
        card.set_title(title)
        r = card.title_rect()
        assert not r.isEmpty() and card.rect().toRectF().contains(r), (size, title, r)
        # what is drawn: the title's light pixels stay clear of the card's edges
        xs = _light_columns(card.grab().toImage())
        assert xs.size and xs.min() > 0.04 * size[0] and xs.max() < 0.96 * size[0], (size, title)


# -- the inset -----------------------------------------------------------------------------------------
def _inset_pixel(inset, player, x: float, y: float) -> QColor:
    """The inset picture's colour at map point (x, y) metres."""
    img = inset.picture.image
    vp = player.view.map_to_viewport(x, y)
    p = player.view.viewport().mapTo(player.stage, vp)
    return img.pixelColor(int(p.x() * img.width() / player.stage.width()),
                          int(p.y() * img.height() / player.stage.height()))


def test_the_players_see_inset_shows_the_players_picture(window, qtbot, manual_clock):
    ctl = window.player_view
    inset = ctl.inset
    assert not inset.dock.isVisible()
    player = ctl.open()
    player.resize(1280, 720)
    qtbot.waitExposed(player)
    assert inset.dock.isVisible()
    manual_clock.advance(1.0)
    inset.refresh_soon()
    qtbot.waitUntil(lambda: inset.picture.image is not None)
    img = inset.picture.image
    assert img.width() / img.height() == pytest.approx(16 / 9, rel=0.02)
    building = _inset_pixel(inset, player, 5.0, 5.0)  # the big building, top left (full cover)
    assert not _close(building, style.MAP_BACKDROP, 12), building.name()
    # blanked: the inset shows the card too
    before = inset.refreshes
    manual_clock.advance(1.0)
    window.actions["blank player view"].trigger()
    qtbot.waitUntil(lambda: inset.refreshes > before)
    assert _close(_inset_pixel(inset, player, 5.0, 5.0), style.MAP_BACKDROP, 12)
    window.actions["blank player view"].trigger()
    # a drag's steps draw no picture while the clock stands (at most one every half second)
    manual_clock.advance(1.0)
    inset.refresh_soon()
    qtbot.waitUntil(lambda: not inset._job.isActive())
    n = inset.refreshes
    doc = window.document
    sam = doc.encounter.token("sam")
    for i in range(1, 6):
        tokens = tuple(t.model_copy(update={"x": sam.x + i}) if t.id == "sam" else t for t in doc.encounter.tokens)
        doc.preview(doc.encounter.model_copy(update={"tokens": tokens}))
        QApplication.processEvents()
        QApplication.processEvents()
    assert inset.refreshes <= n + 1
    # released (and the clock moved on): the final picture
    manual_clock.advance(1.0)
    doc.commit(doc.encounter, "move Sam")
    qtbot.waitUntil(lambda: inset.refreshes > n + 1 or (inset.refreshes > n and not inset._job.isActive()))
    # and nothing changing, no picture more (its own grab is not a change of the players' picture)
    manual_clock.advance(1.0)
    settle(qtbot, window)
    done = inset.refreshes
    manual_clock.advance(1.0)
    for _ in range(5):
        QApplication.processEvents()
    assert inset.refreshes == done and not inset._job.isActive()
    # closed: the inset says so
    ctl.close()
    assert not inset.dock.isVisible()


# -- remembered ------------------------------------------------------------------------------------------
def test_on_top_size_and_place_are_remembered_and_reset_forgets_them(window, qtbot, tmp_path, demo_path, monkeypatch):
    from gui.settings_reset import reset_settings

    ctl = window.player_view
    p = ctl.open()
    assert not p.on_top
    window.actions["player view on top"].trigger()
    assert p.on_top and p.isVisible()
    p.resize(800, 450)
    p.move(40, 30)
    qtbot.waitUntil(lambda: p.size() == QSize(800, 450))
    ctl.close()
    window.close()
    # the next session: a new window on the same settings file
    again = open_window(qtbot, demo_path, tmp_path)
    p2 = again.player_view.open()
    qtbot.waitExposed(p2)
    assert p2.on_top and again.actions["player view on top"].isChecked()
    assert p2.size() == QSize(800, 450)
    again.player_view.close()
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    lines = reset_settings(settings)
    assert any("playerView/on_top" in ln for ln in lines) and any("playerView/geometry" in ln for ln in lines)
    again.close()
    fresh = open_window(qtbot, demo_path, tmp_path)
    p3 = fresh.player_view.open()
    assert not p3.on_top and p3.size() == QSize(1280, 720)
