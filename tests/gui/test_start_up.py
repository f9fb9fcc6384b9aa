"""Start-up (issue 29 item 5): a window painted before the map window's modules are loaded,
one line when there is no display, and Finder's QFileOpenEvent opening files (item 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFileOpenEvent

from gui.display_check import no_display_message

ROOT = Path(__file__).resolve().parents[2]


def test_no_display_is_one_line_not_qts_abort(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "gui.cli", "demo"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [done.stderr.strip()]  # one line
    assert done.stderr.startswith("coverfire: no display to open the window on (DISPLAY is not set;")
    assert "xcb-cursor" not in done.stderr and "reinstall" not in done.stderr


def test_which_platforms_need_which_display():
    assert no_display_message({}, "linux").startswith("coverfire: no display")  # (Qt's default: xcb)
    assert no_display_message({"DISPLAY": ":0"}, "linux") is None
    assert no_display_message({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert no_display_message({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert "WAYLAND_DISPLAY is not set" in no_display_message({"QT_QPA_PLATFORM": "wayland", "DISPLAY": ":0"}, "linux")
    assert no_display_message({"QT_QPA_PLATFORM": "wayland;xcb", "DISPLAY": ":0"}, "linux") is None
    assert "DISPLAY or WAYLAND_DISPLAY" in no_display_message({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux")
    assert no_display_message({}, "win32") is None and no_display_message({}, "darwin") is None


def test_the_start_window_paints_before_the_map_windows_modules_are_loaded(tmp_path):
    """In a fresh process: at the first paint, neither pyqtgraph nor the map window is imported."""
    code = ("import sys, os\n"
            "from gui.app import make_app\n"
            "from gui.start_window import StartWindow\n"
            "app = make_app()\n"
            "w = StartWindow('demo.json')\n"
            "w.show_and_paint(limit_ms=60000)\n"
            "print(w.painted, 'pyqtgraph' in sys.modules, 'gui.main_window' in sys.modules)\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False", "False"]



def test_coverfire_paints_before_it_loads_the_model_or_the_map(tmp_path):
    """``coverfire demo`` as the command runs it (gui.cli.main): at the first paint neither the
    encounter model (pydantic, numpy, Shapely, engine.files) nor pyqtgraph is loaded, nor the
    package metadata read (all of it came before the paint once: 2.9x a bare window's CPU)."""
    heavy = ("pydantic", "numpy", "shapely", "engine.files", "engine.model", "pyqtgraph", "gui.main_window",
             "importlib.metadata")
    code = ("import os, sys\n"
            "from gui import start_window\n"
            "paint = start_window.StartWindow.paintEvent\n"
            "def first(self, event):\n"
            "    paint(self, event)\n"
            f"    print(sorted(m for m in {heavy!r} if m in sys.modules), flush=True)\n"
            "    os._exit(0)\n"
            "start_window.StartWindow.paintEvent = first\n"
            "from gui.cli import main\n"
            "main(['demo'])\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT), HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / ".config"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]"]

def test_finder_opening_an_encounter_opens_it_in_the_window(qapp, tmp_path):
    from engine.files import load_encounter, save_encounter
    from gui.file_open_events import FileOpenFilter

    demo = ROOT / "assets" / "encounters" / "demo.json"
    enc = load_encounter(demo)
    mine = tmp_path / "ambush.coverfire.json"
    save_encounter(enc.model_copy(update={"name": "Ambush at the docks"}), mine)
    opener = FileOpenFilter()
    qapp.installEventFilter(opener)
    opened = []

    class Window:  # (the calls gui.launch.open_target makes of the main window)
        importing = None

        def open_file(self, path, ask=True):
            opened.append(Path(path))
            return True

        def raise_(self):
            pass

        def activateWindow(self):  # noqa: N802
            pass

    try:
        QCoreApplication.sendEvent(qapp, QFileOpenEvent(str(mine)))  # before the window: kept
        assert opener.pending == [mine] and not opened
        opener.attach(Window(), demo)
        assert opened == [mine]
        QCoreApplication.sendEvent(qapp, QFileOpenEvent(str(demo)))
        assert opened == [mine, demo] and opener.opened == [mine, demo]
    finally:
        qapp.removeEventFilter(opener)


def test_finder_opening_a_file_in_the_real_window(window, tmp_path, qapp):
    from engine.files import load_encounter, save_encounter
    from gui.file_open_events import FileOpenFilter

    demo = ROOT / "assets" / "encounters" / "demo.json"
    mine = tmp_path / "ambush.coverfire.json"
    save_encounter(load_encounter(demo).model_copy(update={"name": "Ambush at the docks"}), mine)
    opener = FileOpenFilter()
    opener.attach(window, demo)
    qapp.installEventFilter(opener)
    try:
        QCoreApplication.sendEvent(qapp, QFileOpenEvent(str(mine)))
    finally:
        qapp.removeEventFilter(opener)
    assert window.document.encounter.name == "Ambush at the docks"
    assert Path(window.document.path) == mine
