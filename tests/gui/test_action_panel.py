"""The fight runs in the Action panel beside the map, never in a window over it (issue 13
item 2), on the laptop (1366x768) and a 1920x1080 screen: the panel fits, every Coverfire
dialog fits the laptop, each rule system's action goes from the panel to applied on its demo
with the map in view, Escape cancels with nothing changed, Enter applies, and the keyboard
goes back to the map after an action.

Numbers: the sr5 attack is the one of tests/gui/test_sr5_gui.py (Sam on Tusk with typed
dice: 9 boxes Physical); the d100 shot the one of tests/gui/test_d100_gui.py (Lupe's chest,
5 damage); the Static Veil shove the one of tests/gui/test_static_veil_gui.py (Jay to 19.6 m).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QWidget

from engine.rules import find_system
from gui.action_panel import MAX_WIDTH
from tests.gui.conftest import mouse_click, vp_point
from tests.gui.settle import settle

ROOT = Path(__file__).resolve().parents[2]
ENCOUNTERS = ROOT / "assets" / "encounters"
LAPTOP = (1366, 768)


def click(view, x: float, y: float, shift: bool = False) -> None:
    mod = Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, mod, vp_point(view, x, y))


def start_sr5_turn(window) -> None:
    """Initiative typed in the tracker's dialog (the scores of tests/gui/test_sr5_gui.py)."""
    from tests.gui.test_sr5_gui import start_turn

    start_turn(window)


def window_rect(win) -> QRect:
    return QRect(0, 0, win.width(), win.height())


def assert_beside_the_map(win) -> None:
    """The Action panel is shown in its dock, at most MAX_WIDTH px wide, inside the window;
    its page needs no more width than the panel has; the map is shown and no other
    top-level window (a dialog) is open over it."""
    settle(None, win)  # the panel's deferred layout
    panel = win.action_panel
    dock = panel.dock
    assert dock.isVisible() and not dock.isFloating()
    assert dock.width() <= MAX_WIDTH and panel.width() <= MAX_WIDTH
    geo = dock.geometry()
    assert window_rect(win).contains(geo), (geo, win.size())
    page = panel.current
    assert page is not None
    room = panel.scroll.viewport().width()
    assert page.minimumSizeHint().width() <= room, (type(page).__name__, page.minimumSizeHint(), room)
    if page.footer is not None:
        assert page.footer.minimumSizeHint().width() <= panel.width()
    view = win.map_view
    assert view.isVisible() and view.width() > 300 and view.height() > 250
    assert not geo.intersects(QRect(view.mapTo(win, QPoint(0, 0)), view.size()))  # beside, not over
    others = [t for t in QApplication.topLevelWidgets() if t.isVisible() and t is not win and t.isWindow()
              and t.windowType() in (Qt.WindowType.Dialog, Qt.WindowType.Tool, Qt.WindowType.Window)]
    assert others == []


def grab(win, name: str) -> None:
    """Save the window as /tmp/coverfire-<name>.png (to look at), once laid out."""
    settle(None, win)
    win.grab().save(f"/tmp/coverfire-{name}.png")
    win.activateWindow()  # (offscreen, a grab leaves no window active: keys would find no shortcut)
    QApplication.processEvents()


def screen_name(win) -> str:
    return win.screen_name


@pytest.fixture
def on_screen(screen_window, qtbot):
    """``screen_window`` made the active window (key shortcuts need one)."""
    screen_window.activateWindow()
    qtbot.waitActive(screen_window)
    return screen_window


# -- sr5 -----------------------------------------------------------------------------------------
def test_sr5_attack_from_the_panel_to_applied_with_enter_and_the_map_in_view(on_screen, qtbot):
    w = on_screen
    start_sr5_turn(w)
    view = w.map_view
    click(view, 12.0, 20.0)  # Sam
    click(view, 41.5, 15.5, shift=True)  # Tusk
    QTest.keyClick(view, Qt.Key.Key_A)
    page = w.sr5.attack_dialog
    assert page.isVisible() and w.action_panel.current is page and page.targets == ["ganger-4"]
    assert_beside_the_map(w)
    grab(w, f"sr5-attack-{screen_name(w)}")
    # the map keeps picking while the panel is open: Vex joins, then leaves again
    click(view, 22.0, 8.0, shift=True)
    assert page.targets == ["ganger-4", "ganger-6"]
    click(view, 22.0, 8.0, shift=True)
    assert page.targets == ["ganger-4"]
    for faces in ("6 6 5 5 5 1 2 2 3 3 4 4 2", "5 1 1 2 2 3 4 1 1", "5 5 5 " + "2 " * 15):
        page.dice.faces.setText(faces)
        QTest.keyClick(page.dice.faces, Qt.Key.Key_Return)  # takes the dice, does not apply
    assert page.resolution is not None and page.resolution.done
    assert page.apply_button.text() == "Apply damage"
    assert w.document.undo_stack.undoText() == "SR5: Combat Turn 1: initiative"  # nothing applied yet
    grab(w, f"sr5-attack-rolled-{screen_name(w)}")
    page.force.setFocus()
    QTest.keyClick(page.force, Qt.Key.Key_Return)  # Enter applies
    tusk = w.document.encounter.token("ganger-4").rules["sr5"]
    assert tusk.physical_damage == 9
    assert w.document.undo_stack.undoText() == "SR5: Sam attacks: Tusk hit"
    assert w.focusWidget() is view  # the keyboard is back on the map
    QTest.keyClick(view, Qt.Key.Key_R)  # a tool key works at once
    assert w.map_view.tool.name == "Rectangle"


def test_a_miss_offers_no_apply_damage(window):
    w = window
    page = w.sr5.open_attack("sam", ["ganger-4"])
    # 13 attack dice without a 5 or 6: no hit; Tusk's 9 defense dice don't matter
    page.dice.faces.setText("1 2 3 4 1 2 3 4 1 2 3 4 1")
    page.dice.enter_button.click()
    page.roll_all()
    r = page.resolution
    assert r.done and r.outcome("ganger-4").result == "miss"
    assert page.apply_button.isEnabled() and page.apply_button.text() == "Apply the miss"
    assert "Apply damage" not in page.apply_button.text()
    page.apply()
    assert w.document.encounter.token("ganger-4").rules["sr5"].physical_damage == 0
    assert w.document.encounter.token("sam").weapon("Ingram Smartgun X").loaded == 29  # the burst is spent


def test_escape_cancels_the_attack_half_rolled_and_nothing_changes(window, qtbot):
    w = window
    before = w.document.committed
    steps = w.document.undo_stack.count()
    page = w.sr5.open_attack("sam", ["ganger-4"])
    page.roll_next()  # the attack rolled, nothing applied
    page.dice.faces.setFocus()
    QTest.keyClick(page.dice.faces, Qt.Key.Key_Escape)
    assert not page.isVisible() and not w.action_panel.dock.isVisible()
    assert w.document.committed == before and w.document.undo_stack.count() == steps
    assert page.resolution is None
    assert w.focusWidget() is w.map_view


def test_escape_on_the_map_cancels_the_action_unless_a_shape_is_being_drawn(window, qtbot):
    w = window
    before = w.document.committed
    page = w.sr5.open_attack("sam", ["ganger-4"])
    page.roll_next()
    tool = w.set_tool("Polygon")
    w.map_view.setFocus()
    tool.points = [(1.0, 1.0), (3.0, 1.0)]  # a polygon half drawn: Escape drops its corners first
    QTest.keyClick(w.map_view, Qt.Key.Key_Escape)
    assert tool.points == [] and w.action_panel.current is page
    QTest.keyClick(w.map_view, Qt.Key.Key_Escape)  # nothing in progress: the action goes
    assert w.action_panel.current is None and not page.isVisible()
    assert w.document.committed == before and page.resolution is None


def test_grenade_and_suppressive_fire_run_in_the_same_panel(on_screen, qtbot):
    from tests.gui.test_sr5_blast_gui import draw_blast, sr5

    w = sr5.__wrapped__(on_screen, qtbot)  # Brick acting, his grenade ready
    w.map_view.fit_map()
    zid = draw_blast(w)
    page = w.sr5.open_blast("brick", zid)
    assert w.action_panel.current is page and page.plan is not None
    assert_beside_the_map(w)
    grab(w, f"sr5-grenade-{screen_name(w)}")
    page.roll_all()
    assert page.resolution.done
    steps = w.document.undo_stack.count()
    assert page.apply_default() is not None  # what Enter does
    assert w.document.undo_stack.count() == steps + 1
    assert w.focusWidget() is w.map_view
    supp = w.sr5.open_suppressive("sam")
    assert w.action_panel.current is supp and not page.isVisible()
    assert_beside_the_map(w)


# -- d100 ----------------------------------------------------------------------------------------
@pytest.fixture
def d100_window(on_screen, qtbot):
    w = on_screen
    w.actions["open d100 demo"].trigger()
    assert w.document.encounter.ruleset == "d100"
    settle(qtbot, w)
    w.map_view.fit_map()
    return w


def test_d100_action_from_the_panel_to_applied_then_closes(d100_window, qtbot):
    RULESET = find_system("d100")

    w, view = d100_window, d100_window.map_view
    click(view, 12.0, 20.0)  # Sam
    w.actions["d100 action"].trigger()
    page = w.d100.dialog
    assert page.isVisible() and page.shooter_id() == "sam"
    click(view, 31.0, 31.2)  # Lupe, picked on the map while the panel is open
    assert page.targets == ["ganger-3"]
    page.set_action("aim")  # +20%: the aimed shot of tests/gui/test_d100_gui.py
    assert page.apply() is not None
    page.set_action("single")
    assert_beside_the_map(w)
    grab(w, f"d100-action-{screen_name(w)}")
    page.enter_mode.setChecked(True)
    page.hit_die.setValue(20)
    page.loc_die.setValue(45)
    page.dmg_dice.setText("7")
    page.apply_button.setFocus()
    QTest.keyClick(page.apply_button, Qt.Key.Key_Return)
    lupe = RULESET.sheet(w.document.encounter.token("ganger-3"))
    assert lupe.wounds["chest"].damage == 5
    assert w.focusWidget() is view
    # Close closes it (it used to do nothing), and the shooter's lock is given back
    page.close_button.click()
    assert not page.isVisible() and not w.action_panel.dock.isVisible()
    assert not w.selection.attacker_locked
    # Escape closes it too
    w.actions["d100 action"].trigger()
    assert page.isVisible()
    page.shooter.setFocus()
    QTest.keyClick(page.shooter, Qt.Key.Key_Escape)
    assert not page.isVisible()


def test_d100_panel_clears_when_another_encounter_opens(d100_window):
    w = d100_window
    page = w.d100.open_dialog("sam")
    w.selection.select(["sam", "ganger-3"], w.document.encounter, keep_attacker=True)
    assert page.targets == ["ganger-3"]
    page.apply()
    assert page.result.toPlainText()
    w.actions["open d100 demo"].trigger()  # another d100 encounter
    assert not page.isVisible() and not w.action_panel.dock.isVisible()
    assert page.result.toPlainText() == "" and page.targets == [] and page.preview is None


# -- Static Veil ------------------------------------------------------------------------------------
def test_static_veil_maneuver_from_the_panel_then_s_is_the_select_tool(on_screen, qtbot):
    w = on_screen
    assert w.open_file(ENCOUNTERS / "demo-static-veil.json")
    settle(qtbot, w)
    w.map_view.fit_map()
    ctl = w.static_veil
    kit = w.document.encounter.token("kit")
    mouse_click(w.map_view, kit.x, kit.y)
    assert ctl.actor == "kit" and ctl.page.isVisible()
    qtbot.mouseClick(ctl.panel.buttons["shove"], Qt.MouseButton.LeftButton)
    jay = w.document.encounter.token("jay")
    mouse_click(w.map_view, jay.x, jay.y)
    assert ctl.target == "jay"
    assert_beside_the_map(w)
    ctl.panel.outcome.enter(True, 2)
    grab(w, f"static-veil-shove-{screen_name(w)}")
    ctl.panel.confirm_btn.setFocus()
    QTest.keyClick(ctl.panel.confirm_btn, Qt.Key.Key_Return)  # Enter confirms
    jay = w.document.encounter.token("jay")
    assert (jay.x, jay.y) == pytest.approx((19.6, 15.0))
    assert w.focusWidget() is w.map_view
    names = [t.name for t in w.document.encounter.tokens]
    QTest.keyClick(w.focusWidget(), Qt.Key.Key_S)  # the Select tool, not a rename
    assert [t.name for t in w.document.encounter.tokens] == names
    assert w.map_view.tool.name == "Select"


def test_static_veil_escape_drops_the_maneuver_and_changes_nothing(window, qtbot):
    w = window
    assert w.open_file(ENCOUNTERS / "demo-static-veil.json")
    w.map_view.fit_map()
    ctl = w.static_veil
    before = w.document.committed
    kit = before.token("kit")
    mouse_click(w.map_view, kit.x, kit.y)
    qtbot.mouseClick(ctl.panel.buttons["shove"], Qt.MouseButton.LeftButton)
    jay = before.token("jay")
    mouse_click(w.map_view, jay.x, jay.y)
    assert ctl.key == "shove" and ctl.preview is not None
    ctl.panel.confirm_btn.setFocus()
    QTest.keyClick(ctl.panel.confirm_btn, Qt.Key.Key_Escape)
    assert ctl.key is None and ctl.layer.drawing is None
    assert w.document.committed == before


# -- dialogs --------------------------------------------------------------------------------------
def _all_dialog_classes() -> set[type]:
    import importlib
    import pkgutil

    import gui

    for m in pkgutil.walk_packages(gui.__path__, "gui."):
        importlib.import_module(m.name)
    out: set[type] = set()
    todo = list(QDialog.__subclasses__())
    while todo:
        c = todo.pop()
        if c.__module__.startswith("gui."):
            out.add(c)
        todo += c.__subclasses__()
    return out


def _open_every_dialog(w) -> dict[str, QWidget]:
    from engine.importers.report import ReportBuilder
    from gui.export import ExportDialog
    from gui.importing import ImportReportDialog, MapImportDialog
    from gui.player_view import PlayerOptionsDialog

    rb = ReportBuilder("map.uvtt", "uvtt")
    for i in range(60):
        rb.warn(f"wall {i}: a long warning about a wall that could not be carried over as it was drawn")
    dialogs = {
        "export": ExportDialog(w),
        "map import": MapImportDialog(w, "a-very-long-map-file-name-" * 4 + ".uvtt", 1.5, 1.0),
        "import report": ImportReportDialog(w, "Import report", rb.build()),
        "player options": PlayerOptionsDialog(w.player_view.options, w),
        "sr5 initiative": w.sr5.tracker.open_initiative(),
    }
    w.actions["open d100 demo"].trigger()
    dialogs["d100 settings"] = w.d100.open_settings()
    return dialogs


def test_every_coverfire_dialog_fits_the_laptop(screen_window, qtbot):
    w = screen_window
    avail = w.screen().availableGeometry()
    dialogs = _open_every_dialog(w)
    for name, dlg in dialogs.items():
        dlg.show()
        QApplication.processEvents()
        size = dlg.frameGeometry().size()
        assert size.width() <= LAPTOP[0] and size.height() <= LAPTOP[1], (name, size)
        assert size.width() <= avail.width() and size.height() <= avail.height(), (name, size)
        hint = dlg.sizeHint()
        assert hint.width() <= LAPTOP[0] and hint.height() <= LAPTOP[1], (name, hint)
        dlg.hide()
    covered = {type(d) for d in dialogs.values()}
    missing = {c.__qualname__ for c in _all_dialog_classes()} - {c.__qualname__ for c in covered}
    assert missing == set(), f"dialogs this test does not open: {missing}"


def test_targets_picked_with_t_feed_the_attack_page(window):
    w = window
    w.selection.set_attacker("sam")
    w.selection.set_targets(["ganger-6", "ganger-4"])  # hover + T on the map, Vex first
    page = w.sr5.open_attack()
    assert page.attacker == "sam" and page.targets == ["ganger-6", "ganger-4"]
    w.selection.toggle_target("ganger-6")  # T again on Vex: no longer a target
    assert page.targets == ["ganger-4"]
