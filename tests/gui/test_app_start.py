"""``coverfire`` with no file opens the main window on the bundled demo (a real start-up,
in a subprocess, with its own settings and data folders)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import sys
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow
    from gui.app import make_app
    app = make_app()

    def done():
        wins = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMainWindow) and w.isVisible()]
        if not wins:  # (the start window is painted first; the map window comes after it)
            QTimer.singleShot(100, done)
            return
        w = wins[0]
        print("TITLE", w.windowTitle())
        print("TOKENS", len(w.document.encounter.tokens))
        w.document.undo_stack.setClean()
        w.close()
        app.quit()

    QTimer.singleShot(400, done)
    from gui.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


def _run(tmp_path, *args):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True,
                          env=env, timeout=120, cwd=tmp_path)


def test_coverfire_without_a_file_opens_the_demo(tmp_path):
    res = _run(tmp_path)
    assert res.returncode == 0, res.stderr
    assert "TITLE demo.json" in res.stdout and "Alley ambush" in res.stdout
    assert "TOKENS 9" in res.stdout
    assert "Traceback" not in res.stderr


def test_coverfire_with_a_bad_file_says_so_and_opens_the_demo(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    # the message box would block: the child replaces it by a print
    child = CHILD.replace("from gui.app import make_app",
                          "from PySide6.QtWidgets import QMessageBox\n"
                          "QMessageBox.warning = staticmethod(lambda p, t, m, *a: print('WARNING', t, '|', m))\n"
                          "from gui.app import make_app")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"), PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", child, str(bad)], capture_output=True, text=True,
                         env=env, timeout=120, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "WARNING Cannot open this encounter" in res.stdout and "malformed JSON" in res.stdout
    assert "TITLE demo.json" in res.stdout
