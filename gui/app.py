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
        from PySide6.QtCore import QSettings

        from gui import theme

        # View > Theme (the desktop's choice unless the GM chose one); the window's own menu
        # changes it and follows the desktop's changes
        choice = str(QSettings(APP_NAME, APP_NAME).value("view/theme", "system") or "system")
        theme.apply_theme(app, theme.scheme_for(choice, theme.system_scheme(app)))
        from gui.app_icon import app_icon

        app.setWindowIcon(app_icon())
        app.setDesktopFileName("coverfire")  # ties windows to coverfire.desktop (Wayland app id)
    return app


def run_app(path: str | Path | None) -> int:
    """Open the main window on ``path`` (or the demo), offer to recover a crashed session's
    autosave, and run until the window closes. Returns the exit status.

    A window is painted first (:class:`gui.start_window.StartWindow`, before the map
    window's modules are imported), then the map window is made and takes its place. With no
    display to open a window on, one line says so (status 2) instead of Qt's abort. Files
    Finder opens with Coverfire on macOS come as ``QFileOpenEvent`` (:mod:`gui.file_open_events`)."""
    import os

    from gui.display_check import no_display_message

    why = no_display_message(os.environ)
    if why is not None:
        print(why, file=sys.stderr)
        return 2
    app = make_app()
    from gui.file_open_events import FileOpenFilter
    from gui.start_window import READY, StartWindow, reporting, since_start

    opener = FileOpenFilter(app)
    app.installEventFilter(opener)
    start = StartWindow(Path(path).name if path else "the demo")
    start.show_and_paint()
    from gui.launch import open_target
    from gui.main_window import MainWindow, demo_file

    win = MainWindow()
    open_target(win, Path(path) if path else demo_file(), demo_file())
    opener.attach(win, demo_file())
    # what is there now (modules, the window, the first encounter) lives as long as the
    # program: the garbage collector's full passes skip it from here on (a full pass over
    # it took tens of ms at a random moment, a visible hitch in a drag)
    import gc

    gc.freeze()
    win.show()
    start.close()
    start.deleteLater()
    if reporting():  # (bench/bench_startup.py: say when the window was ready, and quit)
        QApplication.processEvents()
        wall, cpu = since_start()
        print(READY.format(wall=wall, cpu=cpu), file=sys.stderr, flush=True)
        win.close()
        return 0
    QTimer.singleShot(0, win.offer_recovery)
    return int(app.exec())


__all__ = ["run_app", "make_app", "apply_dark_theme", "QMessageBox"]
