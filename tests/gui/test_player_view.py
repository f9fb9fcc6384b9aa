"""The player view, driven through the real main window (offscreen): opened from the View
menu, following a drag live, pinned, blanked, full screen, hiding what players must not
see, and keeping the GM's choices."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDockWidget, QMenuBar, QToolBar

from engine.model import Token
from gui import style
from gui.player_view import (
    PlayerOptions,
    PlayerWindow,
    condition_tracks,
)
from tests.gui.conftest import vp_point
from tests.gui.settle import settle


def _pixel(view, x: float, y: float) -> QColor:
    """The colour the view shows at map point (x, y) metres (a fresh grab of the widget)."""
    img = view.viewport().grab().toImage()
    p = view.map_to_viewport(x, y)
    dpr = img.devicePixelRatio()
    return img.pixelColor(round(p.x() * dpr), round(p.y() * dpr))


def _close(a: QColor, b: QColor, tol: int = 10) -> bool:
    return abs(a.red() - b.red()) <= tol and abs(a.green() - b.green()) <= tol and abs(a.blue() - b.blue()) <= tol


@pytest.fixture
def player(window, qtbot) -> PlayerWindow:
    ctl = window.player_view
    window.actions["player view"].trigger()
    p = ctl.player
    p.resize(960, 640)
    qtbot.waitExposed(p)
    return p


def test_view_menu_opens_a_bare_window_titled_for_the_screen_share(window, player):
    assert window.actions["player view"].isChecked() and player.isVisible() and player.isWindow()
    assert not player.findChildren(QToolBar) and not player.findChildren(QDockWidget)
    assert not player.findChildren(QMenuBar)
    assert player.windowTitle() == "Alley ambush on Halsey Street \u2014 players"
    enc = window.document.encounter
    window.document.commit(enc.model_copy(update={"name": "Halsey Street, later"}), "rename")
    assert player.windowTitle() == "Halsey Street, later \u2014 players"
    window.player_view.set_options(window.player_view.options.with_(title="Halsey St. (players)"))
    assert player.windowTitle() == "Halsey St. (players)"
    # no GM marks in what it draws
    o = player.view.options
    assert o.player and not o.show_selection and not o.show_sight and not o.show_charge
    # 1.4 on the 1280x720 canvas, drawn in the 960x540 letterbox of a 960x640 window
    assert o.label_scale == pytest.approx(1.4 * 960 / 1280)
    window.actions["player view"].trigger()
    assert not player.isVisible()


def test_it_follows_a_token_drag_live_before_the_mouse_is_released(window, player, qtbot):
    gm, pv = window.map_view, player.view
    runner = style.side_colour("runner")
    # look at the corner of the map where the drag happens, so the discs are large enough to
    # sample whatever size the GM's panels leave the map (the player view follows the GM's)
    # (the drag ends at y 36 m: far enough above the bottom edge that the legend leaves it clear)
    gm.vb.setRange(xRange=(4.0, 32.0), yRange=(14.0, 46.0), padding=0)
    settle(qtbot)  # (the GM's window and the player's follow)
    # Sam (standing, radius 0.4 m) at (12, 20); its disc centre shows the runner colour
    assert pv.tokens.token_at(12.0, 20.0) == "sam"
    assert _close(_pixel(pv, 11.9, 20.0), runner, 25)
    vp = gm.viewport()
    a, b = vp_point(gm, 12.0, 20.0), vp_point(gm, 24.0, 36.0)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for i in range(1, 7):
        QTest.mouseMove(vp, QPoint(round(a.x() + (b.x() - a.x()) * i / 6), round(a.y() + (b.y() - a.y()) * i / 6)))
    # mid-drag: a preview, not yet an undo step, and the player view already shows it
    assert window.document.in_preview and window.document.undo_stack.count() == 0
    sam = window.document.encounter.token("sam")
    assert sam.x == pytest.approx(24.0, abs=0.15) and sam.y == pytest.approx(36.0, abs=0.15)
    assert pv.tokens.token_at(sam.x, sam.y) == "sam"
    assert pv.tokens.token_at(12.0, 20.0) is None
    assert _close(_pixel(pv, sam.x - 0.1, sam.y), runner, 25)
    assert not _close(_pixel(pv, 11.9, 20.0), runner, 60)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
    assert window.document.undo_stack.count() == 1
    window.actions["undo"].trigger()
    assert pv.tokens.token_at(12.0, 20.0) == "sam"


def test_it_follows_the_gm_pan_and_zoom_unless_pinned(window, player):
    gm = window.map_view
    assert player.following and window.actions["player view follows"].isChecked()

    def centre(rect):
        return rect.center().x(), rect.center().y()

    gm.zoom_by(0.5)
    gm.pan_by(120, -40)
    g, p = gm.vb.viewRect(), player.view_rect()
    # the player window shows at least the GM's area, centred on the same point
    assert centre(p) == pytest.approx(centre(g), abs=0.05)
    assert p.width() >= g.width() - 0.05 and p.height() >= g.height() - 0.05
    assert p.contains(g.adjusted(0.05, 0.05, -0.05, -0.05))
    # pinned: the GM moves on, the player view stays
    QTest.keyClick(player, Qt.Key.Key_P)
    assert not player.following and not window.actions["player view follows"].isChecked()
    assert window.player_view.options.follow is False
    pinned = player.view_rect()
    gm.pan_by(-300, 200)
    gm.zoom_by(1.6)
    assert centre(player.view_rect()) == pytest.approx(centre(pinned), abs=1e-6)
    assert player.view_rect().width() == pytest.approx(pinned.width())
    assert centre(gm.vb.viewRect()) != pytest.approx(centre(pinned), abs=0.5)
    # following again jumps to the GM's view at once
    window.actions["player view follows"].trigger()
    assert player.following
    assert centre(player.view_rect()) == pytest.approx(centre(gm.vb.viewRect()), abs=0.05)


def test_hidden_in_the_inspector_means_greyed_for_the_gm_and_absent_for_players(window, player):
    gm, pv = window.map_view, player.view
    red = style.side_colour("ganger")
    # Vex: ganger, standing, radius 0.4 m, at (22, 8)
    window.selection.select(["ganger-6"], window.document.encounter)
    box = window.inspector.widgets["hidden"]
    assert not box.isChecked()
    box.click()
    assert window.document.encounter.token("ganger-6").hidden
    assert "ganger-6" in gm.tokens.ids and "ganger-6" not in pv.tokens.ids
    assert pv.tokens.token_at(22.0, 8.0) is None
    # sampled 0.2 m off the disc's centre and off the metre grid lines
    gm_px, pv_px = _pixel(gm, 21.8, 7.8), _pixel(pv, 21.8, 7.8)
    assert not _close(gm_px, red, 40)  # faded, not the full red
    assert gm_px.red() > gm_px.blue() + 20  # but still a reddish ghost for the GM
    assert not _close(pv_px, red, 90) and _close(pv_px, style.MAP_GROUND, 25)
    # an obstacle too: the crate (47-48.5, 25-26.5, 0.9 m: "low")
    window.selection.select(["crate-1"], window.document.encounter)
    box = window.inspector.widgets["hidden"]
    box.click()
    assert window.document.encounter.obstacle("crate-1").hidden
    low = style.HEIGHT_FILL["low"]
    assert _close(_pixel(pv, 47.55, 25.55), style.MAP_GROUND, 25)
    assert not _close(_pixel(gm, 47.55, 25.55), low, 10)  # hatched, not the plain fill
    # and players do not see it in the legend's zones or a tooltip
    assert all(t.id != "ganger-6" for t in window.document.encounter.tokens if pv.options.shows(t))


def test_players_never_see_notes_ids_or_numbers_in_tooltips(window, player):
    enc = window.document.encounter
    sam = enc.token("sam")
    enc2 = enc.model_copy(update={"tokens": enc.tokens + (
        Token(id="npc-7", side="ganger", x=30.5, y=36.5, notes="carries the vault key"),)})
    enc2 = enc2.model_copy(update={"tokens": tuple(
        t.model_copy(update={"notes": "secretly a mole"}) if t.id == "sam" else t for t in enc2.tokens)})
    window.document.commit(enc2, "notes")
    window.selection.select(["sam"], window.document.encounter)
    gm_tip, pv_tip = window.map_view.token_tooltip("ganger-1"), player.view.token_tooltip("ganger-1")
    assert "m," in gm_tip and "cover" in gm_tip  # the GM sees distance and cover
    assert pv_tip.startswith("Razor") and "cover" not in pv_tip and " m," not in pv_tip
    assert "mole" not in player.view.token_tooltip("sam") and sam.name in player.view.token_tooltip("sam")
    tip = player.view.token_tooltip("npc-7")
    assert "npc-7" not in tip and "vault" not in tip and tip.startswith("ganger")
    # its label on the map is its side, not its id (which would number the NPCs)
    labelled = {t.id: t.name for t in player.view.display_tokens(window.document.encounter.tokens)}
    assert labelled["npc-7"] == "ganger" and labelled["sam"] == "Sam"
    assert {t.id: t.name for t in window.map_view.document.encounter.tokens}["npc-7"] == ""


def test_blank_hides_the_map_behind_a_title_card_and_reveal_brings_it_back(window, player, qtbot):
    runner = style.side_colour("runner")
    assert not player.blank
    window.actions["blank player view"].trigger()
    assert player.blank and window.actions["blank player view"].isChecked()
    img = player.grab().toImage()
    colours = {img.pixelColor(x, y).rgb() for x in range(0, img.width(), 7) for y in range(0, img.height(), 7)}
    assert all(not _close(QColor.fromRgb(c), runner, 40) for c in colours)  # no token anywhere
    assert player.card.isVisible() and player.card.title == player.windowTitle()
    QTest.keyClick(player, Qt.Key.Key_B)
    assert not player.blank and not window.actions["blank player view"].isChecked()
    assert player.view.isVisible()


def test_full_screen_on_a_chosen_screen_and_back(window, player):
    screens = QGuiApplication.screens()
    p = window.player_view.full_screen_on(len(screens) - 1)
    assert p.isFullScreen() and p.screen() is screens[-1]
    QTest.keyClick(p, Qt.Key.Key_Escape)
    assert not p.isFullScreen()
    with pytest.raises(ValueError, match="no screen"):
        p.show_full_screen(len(screens) + 3)
    window.player_view._fill_screens()
    texts = [a.text() for a in window.player_view.screen_menu.actions()]
    assert texts[0].startswith("Screen 1") and "Windowed" in texts


def test_choices_apply_at_once_and_persist_in_settings(window, player, tmp_path):
    dlg = window.player_view.edit_options()
    assert player.view.options.show_labels
    dlg.boxes["names"].setChecked(False)
    dlg.boxes["range_rings"].setChecked(True)
    dlg.scale_spin.setValue(2.0)
    dlg.title_edit.setText("Table 3")
    # (2.0 on the canvas, times the 960x540 letterbox's 0.75)
    assert not player.view.options.show_labels and player.view.options.label_scale == pytest.approx(2.0 * 0.75)
    assert player.windowTitle() == "Table 3"
    # Sam's Ingram (SR5 submachine gun: short 10, medium 40, long 80, extreme 150 m) round Sam
    window.selection.select(["sam"], window.document.encounter)
    assert player.view.range_rings.rings() == [("short", 10.0, 0), ("medium", 40.0, -1), ("long", 80.0, -3),
                                               ("extreme", 150.0, -6)]
    window.selection.set_weapon("Ares Predator V")  # heavy pistol: 5, 20, 40, 60 m
    assert [r for _, r, _ in player.view.range_rings.rings()] == [5.0, 20.0, 40.0, 60.0]
    # a new settings reader (the next session) gets the same choices
    again = PlayerOptions.load(QSettings(window.settings.fileName(), QSettings.Format.IniFormat))
    assert again == window.player_view.options
    assert (again.names, again.range_rings, again.label_scale, again.title) == (False, True, 2.0, "Table 3")


def test_condition_bars_show_the_party_and_npcs_only_when_chosen(window, player):
    from engine.sr5.sheet import Sheet

    enc = window.document.encounter
    # Body 5 -> Physical 8 + ceil(5/2) = 11 boxes; Willpower 3 -> Stun 8 + 2 = 10 boxes
    sheet = Sheet(body=5, willpower=3, physical_damage=4, stun_damage=10)
    tokens = tuple(t.with_rules("sr5", sheet if t.id in ("sam", "ganger-1") else None) for t in enc.tokens)
    window.document.commit(enc.model_copy(update={"tokens": tokens}), "sheets")
    phys, stun = condition_tracks(window.document.encounter, window.document.encounter.token("sam"))
    assert (phys.label, phys.taken, phys.size) == ("Physical", 4, 11) and phys.left == pytest.approx(7 / 11)
    assert (stun.taken, stun.size, stun.left) == (10, 10, 0.0)
    bars = player.view.conditions.bars()
    assert [(x, y) for x, y, _, _ in bars] == [(12.0, 20.0)]  # Sam (runner) only, not Razor
    window.player_view.set_options(window.player_view.options.with_(npc_conditions=True))
    assert sorted((x, y) for x, y, _, _ in player.view.conditions.bars()) == [(12.0, 20.0), (27.0, 17.0)]
    window.player_view.set_options(window.player_view.options.with_(conditions=False))
    assert player.view.conditions.bars() == []


def test_it_closes_with_the_main_window_and_never_keeps_the_app_running(window, player):
    assert not player.testAttribute(Qt.WidgetAttribute.WA_QuitOnClose)
    window.showMinimized()
    assert player.isVisible()  # minimising the GM's window leaves the players' view up
    window.showNormal()
    window.close()  # the fixture answers "discard" to the unsaved-changes question
    assert not window.isVisible() and not player.isVisible()


def test_a_drag_moves_the_players_discs_without_rebuilding_them_when_a_token_has_no_name(window, player):
    from gui import edits

    enc = window.document.encounter
    window.document.commit(enc.model_copy(update={"tokens": enc.tokens + (
        Token(id="npc-7", side="ganger", x=30.5, y=36.5),)}), "an unnamed NPC")
    layer = player.view.tokens
    builds = layer.build_count
    base = window.document.encounter
    for i in range(1, 6):  # five drag steps of Sam
        window.document.preview(edits.move_tokens(base, {"sam": (12.0 + i, 20.0)}))
    assert layer.build_count == builds  # only the moved disc's place changed
    assert layer._xy[layer._index["sam"]].tolist() == [17.0, 20.0]
    labels = {t.id: t.name for t in player.view.display_tokens(window.document.encounter.tokens)}
    assert labels["npc-7"] == "ganger"  # still labelled with its side for the players
    window.document.cancel_preview()
