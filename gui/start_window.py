"""What the GM sees while the program loads: a window painted first, before the map window's
modules (pyqtgraph, the layers, the rule systems: about a second of imports) are loaded.

:func:`gui.app.run_app` shows a :class:`StartWindow` where the map window will be (the
geometry the map window saved last, or the screen's available area), lets it paint, then
imports and builds the map window, shows it in the same place and closes this one. With
``COVERFIRE_STARTUP_REPORT=1`` in the environment the program prints, to stderr, when the
first window painted and when the map window was ready (wall time since the process started
and its CPU time), then quits: what ``bench/bench_startup.py`` and the CI checks measure.
"""

from __future__ import annotations

import os
import time

from PySide6.QtCore import QByteArray, QEventLoop, QSettings, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPainter
from PySide6.QtWidgets import QWidget

#: The environment variable that makes the program report its start-up times and quit.
REPORT_ENV = "COVERFIRE_STARTUP_REPORT"
#: The line printed at the first paint: wall and CPU milliseconds since the process started.
FIRST_PAINT = "startup: first paint {wall:.0f} ms (cpu {cpu:.0f} ms)"
#: The line printed when the map window has been shown with the encounter.
READY = "startup: window ready {wall:.0f} ms (cpu {cpu:.0f} ms)"


def since_start() -> tuple[float, float]:
    """(wall ms since this process was created, CPU ms it used), read from the system."""
    cpu = time.process_time() * 1e3
    try:
        import psutil

        return (time.time() - psutil.Process().create_time()) * 1e3, cpu
    except Exception:  # noqa: BLE001 - (no psutil: the time since Python started instead)
        return time.perf_counter() * 1e3, cpu


def reporting() -> bool:
    return os.environ.get(REPORT_ENV, "") not in ("", "0")


class StartWindow(QWidget):
    """A plain window in the theme's colours saying what is being opened."""

    def __init__(self, what: str, settings: QSettings | None = None) -> None:
        super().__init__()
        self.setWindowTitle("Coverfire")
        self.what = what
        self.painted = False
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        geo = (settings or QSettings()).value("window/geometry")
        if not (isinstance(geo, QByteArray) and self.restoreGeometry(geo)):
            scr = QGuiApplication.primaryScreen()
            if scr is not None:
                self.setGeometry(scr.availableGeometry())

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("#1e2024"))
        p.setPen(QColor("#c8ccd2"))
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.4)
        p.setFont(font)
        p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, f"Coverfire\n\nopening {self.what} ...")
        p.end()
        if not self.painted:
            self.painted = True
            if reporting():
                import sys

                wall, cpu = since_start()
                print(FIRST_PAINT.format(wall=wall, cpu=cpu), file=sys.stderr, flush=True)

    def show_and_paint(self, limit_ms: int = 2000) -> None:
        """Show the window and run the event loop until it has painted (or ``limit_ms``)."""
        self.show()
        loop = QEventLoop()
        poll = QTimer()
        poll.setInterval(5)
        poll.timeout.connect(lambda: loop.quit() if self.painted else None)
        QTimer.singleShot(limit_ms, loop.quit)
        poll.start()
        if not self.painted:
            loop.exec()
        poll.stop()
