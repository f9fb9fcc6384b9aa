"""The yardstick of start-up: a bare PySide6 window (a QWidget that paints one colour), which
prints when it first painted as Coverfire does (gui/start_window.py's line), then quits.

    python bench/bare_window.py
"""

from __future__ import annotations

import sys
import time


def _since_start() -> tuple[float, float]:
    cpu = time.process_time() * 1e3
    try:
        import psutil

        return (time.time() - psutil.Process().create_time()) * 1e3, cpu
    except ImportError:
        return time.perf_counter() * 1e3, cpu


def main() -> int:
    from PySide6.QtGui import QColor, QPainter
    from PySide6.QtWidgets import QApplication, QWidget

    app = QApplication(sys.argv[:1])

    class Bare(QWidget):
        done = False

        def paintEvent(self, event):  # noqa: N802
            p = QPainter(self)
            p.fillRect(self.rect(), QColor("#1e2024"))
            p.end()
            if not self.done:
                self.done = True
                wall, cpu = _since_start()
                print(f"startup: first paint {wall:.0f} ms (cpu {cpu:.0f} ms)", file=sys.stderr, flush=True)
                app.quit()

    w = Bare()
    w.resize(1280, 800)
    w.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
