"""Issue 30 item 1: the first start fits the window's FRAME (title bar and borders the window
manager adds) to the screen's available geometry, not its client area -- at 100 %, 125 % and
150 % scaling (the screen's available geometry in device-independent pixels: 1366x768 is
1093x614 at 125 %, 911x512 at 150 %).

Qt's offscreen platform draws no title bar, so the window manager is modelled: its frame
margins (``MainWindow.frame_margins``) are nothing until the window is shown, then a 30 px
title bar and 4 px borders, reported after the first show as a real WM does when it reparents
the window. One subprocess runs the real window offscreen at QT_SCALE_FACTOR=1.25."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QMargins, QRect, QSettings

from gui import screen_fit
from tests.gui.conftest import discard_on_close, screen_named
from tests.gui.settle import settle

ROOT = Path(__file__).resolve().parents[2]
WM = QMargins(4, 30, 4, 4)  # a title bar of 30 px and 4 px borders


@pytest.mark.parametrize("avail, client", [
    # 1366x768 at 100 %: the client is 8 px narrower and 34 px lower than the screen
    (QRect(0, 0, 1366, 768), QRect(4, 30, 1358, 734)),
    # at 125 %: 1366/1.25 = 1092.8 -> 1093, 768/1.25 = 614.4 -> 614
    (QRect(0, 0, 1093, 614), QRect(4, 30, 1085, 580)),
    # at 150 %: 911x512
    (QRect(0, 0, 911, 512), QRect(4, 30, 903, 478)),
    # a screen to the right with a task bar of 40 px at its bottom
    (QRect(1920, 0, 1366, 728), QRect(1924, 30, 1358, 694)),
])
def test_the_client_leaves_room_for_the_frame(avail, client):
    got = screen_fit.client_for_frame(avail, WM)
    assert got == client
    assert screen_fit.frame_of(got, WM) == avail


def test_before_the_frame_is_known_a_title_bar_is_assumed():
    got = screen_fit.client_for_frame(QRect(0, 0, 1366, 768), screen_fit.widest(QMargins(), screen_fit.ASSUMED_FRAME))
    assert got == QRect(1, 32, 1364, 735)


def _modelled_window(qtbot, tmp_path, monkeypatch, demo_path, screen: str):
    from engine.files import load_encounter
    from gui.main_window import MainWindow

    shown = {"decorated": False}

    def frame_margins(self):
        return WM if shown["decorated"] else QMargins()

    monkeypatch.setattr(MainWindow, "frame_margins", frame_margins)
    discard_on_close(monkeypatch)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(load_encounter(demo_path), demo_path, settings=settings,
                     autosave_folder=tmp_path / "autosave", autosave_interval_ms=10_000_000)
    qtbot.addWidget(win)
    scr = screen_named(screen)
    win.setScreen(scr)
    win.move(scr.availableGeometry().topLeft())
    win.fill_screen()
    win.show()
    qtbot.waitExposed(win)
    settle(qtbot, win)
    # the WM reparents the window into its frame: the client moves down by the title bar
    shown["decorated"] = True
    win.setGeometry(win.geometry().translated(WM.left(), WM.top()))
    settle(qtbot, win)
    return win, scr.availableGeometry()


@pytest.mark.parametrize("screen", ["laptop", "fullhd"])
def test_first_start_fits_the_frame_once_the_window_manager_adds_it(qtbot, tmp_path, monkeypatch, demo_path, screen):
    win, avail = _modelled_window(qtbot, tmp_path, monkeypatch, demo_path, screen)
    frame = win.geometry().marginsAdded(WM)
    assert frame == avail, (frame, avail)
    # the status bar's bottom edge is the client's bottom, inside the screen
    bar = win.statusBar()
    bottom = win.mapToGlobal(bar.geometry().bottomLeft()).y()
    assert bottom <= avail.bottom() - WM.bottom()


def test_a_move_by_the_gm_after_the_fit_is_kept(qtbot, tmp_path, monkeypatch, demo_path):
    win, avail = _modelled_window(qtbot, tmp_path, monkeypatch, demo_path, "laptop")
    win.resize(900, 600)
    win.move(avail.x() + 100, 50)
    settle(qtbot, win)
    assert (win.width(), win.height()) == (900, 600)


def test_the_real_window_fits_at_125_percent(tmp_path):
    """QT_SCALE_FACTOR=1.25 on a 1366x768 offscreen screen: the frame lies within the
    1093x614 available geometry, every button of the window is inside it, and with an SR5
    attack open the Action panel's Apply damage and Close are wholly in view (they were
    scrolled out of the dock)."""
    cfg = tmp_path / "screens.json"
    cfg.write_text(json.dumps({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768,
                                            "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    out = tmp_path / "fit.json"
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={cfg}", QT_SCALE_FACTOR="1.25",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "tests.gui.frame_probe", str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rep = json.loads(out.read_text())
    ax, ay, aw, ah = rep["avail"]
    assert (aw, ah) == (1093, 614)
    x, y, w, h = rep["frame"]
    assert ax <= x and ay <= y and x + w <= ax + aw and y + h <= ay + ah
    assert w >= 0.95 * aw and h >= 0.9 * ah
    assert rep["outside"] == [], rep["outside"]
    assert rep["footer_hidden"] == [], rep["footer_hidden"]  # Apply damage and Close in view
