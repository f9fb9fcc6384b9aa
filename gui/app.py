"""Starting the map window: ``coverfire [FILE]`` calls :func:`run_app`."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QMessageBox

APP_NAME = "Coverfire"


def apply_dark_theme(app: QApplication) -> None:
    """Fusion with a dark palette, matching the map's colours."""
    app.setStyle("Fusion")
    pal = QPalette()
    base, window, text = QColor("#1b1f24"), QColor("#252a31"), QColor("#e6e9ed")
    pal.setColor(QPalette.ColorRole.Window, window)
    pal.setColor(QPalette.ColorRole.WindowText, text)
    pal.setColor(QPalette.ColorRole.Base, base)
    pal.setColor(QPalette.ColorRole.AlternateBase, QColor("#21262c"))
    pal.setColor(QPalette.ColorRole.ToolTipBase, QColor("#101317"))
    pal.setColor(QPalette.ColorRole.ToolTipText, text)
    pal.setColor(QPalette.ColorRole.Text, text)
    pal.setColor(QPalette.ColorRole.Button, QColor("#2d333b"))
    pal.setColor(QPalette.ColorRole.ButtonText, text)
    pal.setColor(QPalette.ColorRole.Highlight, QColor("#2f81c7"))
    pal.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.PlaceholderText, QColor("#8b949e"))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6e7681"))
    app.setPalette(pal)


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
    win.show()
    QTimer.singleShot(0, win.offer_recovery)
    return int(app.exec())


__all__ = ["run_app", "make_app", "apply_dark_theme", "QMessageBox"]
