"""Fixtures for driving the real main window offscreen, with real mouse events."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from tests.gui.settle import settle


@pytest.fixture(autouse=True)
def _delete_closed_windows(qapp):
    """After each test, the windows pytest-qt closed (``qtbot.addWidget``) are deleted, not
    left for an event loop that never comes: its ``deleteLater`` waits for the loop it was
    called in to run, and the suite runs none between tests. Left alone, every window a
    worker ever opened stayed alive (its panels, its scene, its timers) and so did what it
    watches: the suite grew slower and bigger test after test, and an earlier test's window
    could still take a later test's events."""
    yield
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def open_window(qtbot, path, tmp_path, size=(1600, 1000), *, active: bool = True):
    """The main window on the encounter file ``path``, with its own settings file and
    autosave folder (in ``tmp_path``), shown at ``size`` with its deferred start-up work
    (dock sizing, refits) done and the map fitted: ready for a test to drive the mouse."""
    from engine.files import load_encounter
    from gui.main_window import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(load_encounter(path), path, settings=settings,
                     autosave_folder=tmp_path / "autosave", autosave_interval_ms=10_000_000)
    qtbot.addWidget(win)
    win.resize(*size)
    win.show()
    qtbot.waitExposed(win)
    if active:
        win.activateWindow()
        qtbot.waitActive(win)
    settle(qtbot, win)
    win.map_view.fit_map()
    return win


def discard_on_close(monkeypatch) -> None:
    """Closing a window never blocks on a question: unsaved changes are discarded."""
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard))


@pytest.fixture
def window(qtbot, demo_path, tmp_path, monkeypatch):
    """The main window on the demo (:func:`open_window`); closing it never blocks on a
    question (unsaved changes are discarded unless a test says else)."""
    discard_on_close(monkeypatch)
    return open_window(qtbot, demo_path, tmp_path)


SCREENS = {"laptop": (1366, 768), "fullhd": (1920, 1080)}


def screen_named(name: str):
    """The offscreen screen called ``name`` (tests/gui/screens.json, which tests/conftest.py
    gives Qt whatever QT_QPA_PLATFORM the environment set); skips only when Qt was started
    before the suite's set-up could choose (a plugin that made the application first)."""
    from PySide6.QtGui import QGuiApplication

    for scr in QGuiApplication.screens():
        if scr.name() == name:
            return scr
    pytest.skip(f"no offscreen screen {name!r}: Qt started on another platform before tests/conftest.py chose its screens")


@pytest.fixture(params=list(SCREENS))
def screen_window(request, qtbot, demo_path, tmp_path, monkeypatch):
    """The main window on the demo on the "laptop" (1366x768) or the "fullhd" (1920x1080)
    screen, sized as on a first start there (the screen's available geometry)."""
    from engine.files import load_encounter
    from gui.main_window import MainWindow

    scr = screen_named(request.param)
    assert (scr.geometry().width(), scr.geometry().height()) == SCREENS[request.param]
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(load_encounter(demo_path), demo_path, settings=settings,
                     autosave_folder=tmp_path / "autosave", autosave_interval_ms=10_000_000)
    qtbot.addWidget(win)
    win.setScreen(scr)
    win.move(scr.availableGeometry().topLeft())
    win.fill_screen()
    win.show()
    qtbot.waitExposed(win)
    settle(qtbot, win)
    win.map_view.fit_map()
    win.screen_name = request.param
    return win



def vp_point(view, x: float, y: float) -> QPoint:
    """The viewport pixel of map point (x, y) metres."""
    return view.map_to_viewport(x, y)


def mouse_drag(view, a, b, steps: int = 8, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """Press at map point ``a``, move in ``steps`` to ``b``, release: real mouse events."""
    vp = view.viewport()
    pa, pb = vp_point(view, *a), vp_point(view, *b)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, modifier, pa)
    for i in range(1, steps + 1):
        p = QPoint(round(pa.x() + (pb.x() - pa.x()) * i / steps), round(pa.y() + (pb.y() - pa.y()) * i / steps))
        QTest.mouseMove(vp, p)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, modifier, pb)


def mouse_click(view, x: float, y: float) -> None:
    vp = view.viewport()
    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, vp_point(view, x, y))
