"""Starting the map window: ``coverfire [FILE]`` calls :func:`run_app`."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from gui.theme import apply_dark_theme

APP_NAME = "Coverfire"


def make_app(argv: list[str] | None = None) -> QApplication:
    """The QApplication, created once, named for QSettings and the data folder."""
    QCoreApplication.setOrganizationName(APP_NAME)
    QCoreApplication.setApplicationName(APP_NAME)
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
        apply_dark_theme(app)
        from gui.app_icon import app_icon

        app.setWindowIcon(app_icon())
        app.setDesktopFileName("coverfire")  # ties windows to coverfire.desktop (Wayland app id)
    return app


def run_app(path: str | Path | None) -> int:
    """Open the main window on ``path`` (or the demo), offer to recover a crashed session's
    autosave, and run until the window closes. Returns the exit status."""
    app = make_app()
    from gui.launch import open_target
    from gui.main_window import MainWindow, _demo_path

    win = MainWindow()
    open_target(win, Path(path) if path else _demo_path(), _demo_path())
    # what is there now (modules, the window, the first encounter) lives as long as the
    # program: the garbage collector's full passes skip it from here on (a full pass over
    # it took tens of ms at a random moment, a visible hitch in a drag)
    import gc

    gc.freeze()
    win.show()
    QTimer.singleShot(0, win.offer_recovery)
    return int(app.exec())


__all__ = ["run_app", "make_app", "apply_dark_theme", "QMessageBox"]
