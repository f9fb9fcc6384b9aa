"""Keys go where the GM expects (issue 13 item 9) and greyed controls say why (item 10)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QPushButton, QWidget

from tests.gui.conftest import mouse_click
from tests.gui.settle import settle


def test_selecting_a_token_leaves_the_keys_with_the_map(window, qtbot):
    view = window.map_view
    mouse_click(view, 12.0, 20.0)  # Sam: the Inspector shows his fields
    assert window.inspector.target() == ("token", "sam")
    assert not isinstance(QApplication.focusWidget(), QLineEdit)
    fields = [w for w in window.inspector.findChildren(QWidget) if isinstance(w, QLineEdit)]
    assert fields and all(w.focusPolicy() == Qt.FocusPolicy.ClickFocus for w in fields)
    # the tool keys reach the tools, and no field is renamed
    QTest.keyClick(view, Qt.Key.Key_P)
    assert window.actions["tool:Polygon"].isChecked()
    QTest.keyClick(view, Qt.Key.Key_S)
    assert window.actions["tool:Select"].isChecked()
    assert window.document.encounter.token("sam").name == "Sam"
    assert window.document.undo_stack.count() == 0


def test_a_field_takes_keys_once_clicked(window, qtbot):
    mouse_click(window.map_view, 12.0, 20.0)
    window.docks["inspector"].raise_()
    qtbot.waitUntil(lambda: not window.inspector.visibleRegion().isEmpty())
    name = window.inspector.widgets["name"]
    assert isinstance(name, QLineEdit)
    QTest.mouseClick(name, Qt.MouseButton.LeftButton)
    assert name.hasFocus()
    name.selectAll()
    QTest.keyClicks(name, "Sammy")
    QTest.keyClick(name, Qt.Key.Key_Return)
    assert window.document.encounter.token("sam").name == "Sammy"
    assert window.actions["tool:Select"].isChecked()  # the S typed went into the field


def test_tab_does_not_walk_into_the_inspector(window, qtbot):
    mouse_click(window.map_view, 12.0, 20.0)
    window.map_view.setFocus()
    for _ in range(3):
        QTest.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_Tab)
        assert not isinstance(QApplication.focusWidget(), QLineEdit)


def test_a_greyed_button_says_why_in_the_status_bar(window, qtbot):
    button = QPushButton("Apply damage")
    button.setToolTip("Nothing to apply: the attack missed")
    window.docks["targets"].widget().widget().layout().addWidget(button)
    button.setEnabled(False)
    button.show()
    QApplication.sendEvent(button, QEvent(QEvent.Type.Enter))
    assert window.statusBar().currentMessage() == "Apply damage is greyed: Nothing to apply: the attack missed"
    # an enabled one says nothing of the sort
    window.statusBar().clearMessage()
    button.setEnabled(True)
    QApplication.sendEvent(button, QEvent(QEvent.Type.Enter))
    assert window.statusBar().currentMessage() == ""


def test_a_greyed_menu_entry_says_why_in_the_status_bar(window, qtbot):
    act = QAction("Roll initiative", window)
    act.setStatusTip("No one can act: every token is out of the fight")
    act.setEnabled(False)
    window.menus["Edit"].addAction(act)
    window.menus["Edit"].hovered.emit(act)
    assert window.statusBar().currentMessage() == ("Roll initiative is greyed: No one can act: every token "
                                                   "is out of the fight")


def test_the_inspector_behind_a_tab_waits_until_it_is_shown(window, qtbot):
    from gui import edits

    window.selection.select(["sam"], window.document.encounter)
    window.docks["targets"].raise_()
    qtbot.waitUntil(lambda: window.inspector.visibleRegion().isEmpty())
    insp = window.inspector
    assert insp.visibleRegion().isEmpty()  # the Inspector's tab is behind the Targets'
    x = insp.widgets["x"]
    before = x.text() if hasattr(x, "text") else x.value()
    window.document.preview(edits.move_tokens(window.document.encounter, {"sam": (17.5, 20.0)}))
    settle(qtbot, window)  # (whatever it deferred has run)
    assert (x.text() if hasattr(x, "text") else x.value()) == before  # no refresh out of sight
    window.docks["inspector"].raise_()
    qtbot.waitUntil(lambda: (x.text() if hasattr(x, "text") else x.value()) != before)
    now = x.text() if hasattr(x, "text") else x.value()
    assert now != before and "17.5" in str(now)
