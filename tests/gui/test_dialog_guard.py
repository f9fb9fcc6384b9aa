"""The suite's guard against modal dialogs (tests/dialog_guard.py): one a test did not expect
fails it at once with its title and text, even when it opens inside a Qt handler or the
program catches the error; one a test expects is answered at once, with no modal loop."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QMessageBox

from tests import dialog_guard


def test_a_message_box_the_test_did_not_expect_raises_with_its_title_and_text(qtbot):
    with pytest.raises(dialog_guard.UnexpectedDialog, match=r"QMessageBox.warning.*'Export'.*2000 px is more than 4x"):
        QMessageBox.warning(None, "Export", "2000 px is more than 4x the view's 448 px")
    with pytest.raises(pytest.fail.Exception, match="2000 px"):
        dialog_guard.check()  # (and the test's end fails it, should the program have caught it)
    dialog_guard.check()  # once told, it is forgotten


def test_each_kind_of_modal_dialog_is_refused(qtbot):
    box = QMessageBox(QMessageBox.Icon.Question, "Unsaved", "Save the changes?")
    calls = [lambda: box.exec(), lambda: QDialog().exec(), lambda: QFileDialog.getOpenFileName(None, "Open map"),
             lambda: QFileDialog.getSaveFileName(None, "Save as"), lambda: QInputDialog.getItem(None, "Scene", "Which?", ["a"]),
             lambda: QMessageBox.question(None, "Quit", "Really?")]
    for call in calls:
        with pytest.raises(dialog_guard.UnexpectedDialog):
            call()
    with pytest.raises(pytest.fail.Exception) as failed:
        dialog_guard.check()
    text = str(failed.value)
    for said in ("'Unsaved'", "'Save the changes?'", "'Open map'", "'Save as'", "'Scene'", "'Quit'", "QDialog.exec()"):
        assert said in text


def test_a_dialog_opened_inside_a_qt_handler_and_caught_by_the_program_still_fails_the_test(qtbot):
    ran = []

    def handler():
        try:
            QMessageBox.critical(None, "Autosave", "the disk is full")
        except Exception:  # noqa: BLE001 - as a careless handler in the program would
            ran.append("caught")
        finally:
            ran.append("done")

    QTimer.singleShot(0, handler)
    with qtbot.captureExceptions() as exceptions:
        qtbot.waitUntil(lambda: "done" in ran)
    assert "caught" not in ran  # (a BaseException: an `except Exception` does not swallow it)
    assert [type(e[1]) for e in exceptions] == [dialog_guard.UnexpectedDialog]
    with pytest.raises(pytest.fail.Exception, match="'Autosave'.*'the disk is full'"):
        dialog_guard.check()


def test_an_expected_dialog_is_answered_at_once_and_its_result_returned(qtbot):
    class Question(QDialog):
        pass

    dialog_guard.expect(Question, lambda d: d.accept())
    dialog_guard.expect(Question, lambda d: d.reject())
    assert Question().exec() == QDialog.DialogCode.Accepted
    assert Question().exec() == QDialog.DialogCode.Rejected
    with pytest.raises(dialog_guard.UnexpectedDialog):  # each answer is used once
        Question().exec()
    with pytest.raises(pytest.fail.Exception):
        dialog_guard.check()


def test_a_test_that_patches_a_dialog_itself_gets_its_own_answer(qtbot, monkeypatch):
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes))
    assert QMessageBox.question(None, "Replace", "Replace the file?") == QMessageBox.StandardButton.Yes
