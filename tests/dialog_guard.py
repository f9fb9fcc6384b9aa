"""No modal dialog a test did not expect: it fails the test with its title and text.

A modal dialog offscreen has no one to close it, so before this the suite could hang for
ever on one (issue 23: a warning box about the export's size under an 800x600 screen). The
suite's autouse fixture (tests/conftest.py) replaces every way the program opens one:

- ``QDialog.exec`` and the ``exec`` of each standard dialog class,
- the static helpers of ``QMessageBox``, ``QFileDialog``, ``QInputDialog``, ``QColorDialog``,
  ``QFontDialog``,

with a stand-in that notes the dialog, raises :class:`UnexpectedDialog` (a ``BaseException``,
so no ``except Exception`` in the program swallows it) and, should it be swallowed all the
same, fails the test at its end. A test that means a dialog to open says so: it monkeypatches
the static helper itself (its patch is made after this one, so it wins), or it answers a
dialog's ``exec`` with :func:`expect`.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest


class UnexpectedDialog(BaseException):
    """A modal dialog opened that the test did not expect."""


_opened: list[str] = []
_expected: list[tuple[type, Callable[[object], None]]] = []


def expect(cls: type, answer: Callable[[object], None]) -> None:
    """The next ``exec()`` of a dialog of class ``cls`` calls ``answer(dialog)`` at once (which
    sets its values and calls ``accept()`` or ``reject()``) and returns the dialog's result,
    with no modal event loop."""
    _expected.append((cls, answer))


def _describe(what: str, title: object = "", text: object = "") -> str:
    return f"{what}: title {str(title)!r}, text {str(text)!r}"


def _dialog_text(dlg) -> str:
    from PySide6.QtWidgets import QLabel, QMessageBox

    if isinstance(dlg, QMessageBox):
        return " ".join(t for t in (dlg.text(), dlg.informativeText()) if t)
    return " | ".join(lab.text() for lab in dlg.findChildren(QLabel) if lab.text())[:500]


def _fail(message: str):
    _opened.append(message)
    raise UnexpectedDialog(f"a modal dialog the test did not expect opened: {message}")


def _exec(self, *args, **kwargs):
    for i, (cls, answer) in enumerate(_expected):
        if isinstance(self, cls):
            del _expected[i]
            answer(self)
            return self.result()
    _fail(_describe(f"{type(self).__name__}.exec()", self.windowTitle(), _dialog_text(self)))


def _static(owner: str, name: str, title_at: int | None, text_at: int | None):
    def opened(*args, **kwargs):
        title = args[title_at] if title_at is not None and len(args) > title_at else kwargs.get("title", kwargs.get("caption", ""))
        text = args[text_at] if text_at is not None and len(args) > text_at else kwargs.get("text", kwargs.get("label", ""))
        _fail(_describe(f"{owner}.{name}()", title, text))

    return staticmethod(opened)


def install(monkeypatch) -> None:
    """Replace every way of opening a modal dialog for the test (undone by ``monkeypatch``)."""
    from PySide6.QtWidgets import (
        QColorDialog,
        QDialog,
        QErrorMessage,
        QFileDialog,
        QFontDialog,
        QInputDialog,
        QMessageBox,
        QProgressDialog,
    )

    _opened.clear()
    _expected.clear()
    for cls in (QDialog, QMessageBox, QFileDialog, QInputDialog, QProgressDialog, QColorDialog,
                QFontDialog, QErrorMessage):
        monkeypatch.setattr(cls, "exec", _exec)
        if hasattr(cls, "exec_"):
            monkeypatch.setattr(cls, "exec_", _exec)
    for name in ("information", "warning", "critical", "question", "about", "aboutQt"):
        monkeypatch.setattr(QMessageBox, name, _static("QMessageBox", name, 1, 2))
    for name in ("getOpenFileName", "getOpenFileNames", "getSaveFileName", "getExistingDirectory",
                 "getOpenFileUrl", "getOpenFileUrls", "getSaveFileUrl", "getExistingDirectoryUrl"):
        monkeypatch.setattr(QFileDialog, name, _static("QFileDialog", name, 1, None))
    for name in ("getItem", "getText", "getInt", "getDouble", "getMultiLineText"):
        monkeypatch.setattr(QInputDialog, name, _static("QInputDialog", name, 1, 2))
    monkeypatch.setattr(QColorDialog, "getColor", _static("QColorDialog", "getColor", 2, None))
    monkeypatch.setattr(QFontDialog, "getFont", _static("QFontDialog", "getFont", None, None))


def check() -> None:
    """At the test's end: fail it if a dialog opened (even when the program caught the error)."""
    opened, _opened[:] = list(_opened), []
    _expected.clear()
    if opened:
        pytest.fail("a modal dialog the test did not expect opened:\n  " + "\n  ".join(opened), pytrace=False)
