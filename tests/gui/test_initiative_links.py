"""Issue 30 item 3: the Initiative panel rolls no rule action of its own (the suppressive
fire tests are a page of the Action panel, which the panel links to), and the first scroll
over the panel moves the panel, not the list under the mouse."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QPushButton, QScrollArea

from engine.sr5.changes import settings_of
from tests.gui.conftest import discard_on_close, open_window
from tests.gui.settle import settle
from tests.gui.test_sr5_gui import start_turn


def _suppress(win) -> None:
    """Sam fills the demo's suppressive zone with 3 hits (as test_sr5_gui's Tusk test)."""
    start_turn(win)
    win.selection.select(["sam"], win.document.encounter)
    page = win.sr5.open_suppressive()
    page.dice.faces.setText("6 6 5 1 2 2 3 3 4 4 2 2 3 3")
    page.dice.enter_button.click()
    assert [s.hits for s in settings_of(win.document.encounter).suppressions] == [3]


def test_the_tests_are_rolled_on_the_action_panel_page_and_the_first_scroll_moves_the_panel(
        qtbot, demo_path, tmp_path, monkeypatch):
    discard_on_close(monkeypatch)
    win = open_window(qtbot, demo_path, tmp_path, size=(1366, 768), active=False)
    _suppress(win)
    t = win.sr5.tracker
    win.sr5.dock.raise_()
    settle(qtbot, win)
    # no "Roll test..." button in the panel: the list is to read, the link opens the page
    assert not [b.text() for b in t.findChildren(QPushButton) if "test" in b.text().lower() and b is not t.tests_button]
    assert all(t.supp.itemWidget(t.supp.topLevelItem(i), c) is None
               for i in range(t.supp.topLevelItemCount()) for c in range(t.supp.columnCount()))
    assert t.supp.topLevelItemCount() == 2 and t.tests_button.isVisibleTo(t)
    t.tests_button.click()
    page = win.sr5.test_dialog
    assert win.action_panel.current is page
    # Tusk (ganger-4) must roll against sup-1 (Reaction 4 + Edge 2); Razor only loses 3 dice
    assert (page.plan.token, page.plan.zone) == ("ganger-4", "sup-1") and page.plan.test.total == 6
    # a double-click on Tusk's row opens the same page on his test
    win.action_panel.close_page()
    assert win.action_panel.current is None
    rows = {t.supp.topLevelItem(i).text(0).split(":")[0]: t.supp.topLevelItem(i) for i in range(t.supp.topLevelItemCount())}
    t.supp.itemDoubleClicked.emit(rows["Tusk"], 0)
    assert win.action_panel.current is page and page.plan.token == "ganger-4"
    # the first scroll over the list of actions moves the panel (the list stays)
    win.action_panel.close_page()
    win.sr5.dock.raise_()
    settle(qtbot, win)
    outer = win.sr5.dock.widget()
    assert isinstance(outer, QScrollArea)
    bar = outer.verticalScrollBar()
    if bar.maximum() == 0:  # make the panel scroll: a column shorter than the panel
        win.sr5.dock.setFloating(True)
        win.sr5.dock.resize(360, 300)
        settle(qtbot, win)
    assert bar.maximum() > 0
    bar.setValue(0)
    inner = t.actions.verticalScrollBar()
    assert inner.maximum() > 0  # (the list could scroll too: the wheel chose the panel)
    before_outer, before_inner = bar.value(), inner.value()
    vp = t.actions.viewport()
    pos = QPointF(vp.width() / 2, vp.height() / 2)
    ev = QWheelEvent(pos, QPointF(vp.mapToGlobal(pos.toPoint())), QPoint(0, 0), QPoint(0, -120), Qt.MouseButton.NoButton,
                     Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(vp, ev)
    assert bar.value() > before_outer and inner.value() == before_inner
