"""Open the main window on the demo as on a first start and report, as JSON, the screen's
available geometry, the window's frame and every visible button whose rectangle reaches
outside that geometry (run by tests/gui/test_window_frame.py in a process of its own, with
QT_SCALE_FACTOR set: Qt reads the scale when the application starts).

``python -m tests.gui.frame_probe OUT.json``
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path


def rect(r) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    from PySide6.QtCore import QRect, QSettings
    from PySide6.QtWidgets import QAbstractButton, QMessageBox

    from gui.app import make_app

    app = make_app()
    QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard)
    from gui.main_window import MainWindow, demo_paths

    tmp = Path(tempfile.mkdtemp(prefix="coverfire-frame-"))
    settings = QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings=settings, autosave_folder=tmp / "autosave")
    win.open_demo(demo_paths()[0])
    win.show()
    for _ in range(8):
        app.processEvents()
    avail = win.available_geometry()
    outside = []
    for b in win.findChildren(QAbstractButton):
        if not b.isVisible() or b.visibleRegion().isEmpty():
            continue
        r = QRect(b.mapToGlobal(b.rect().topLeft()), b.size())
        if not avail.contains(r):
            outside.append([b.text() or b.toolTip() or b.objectName(), rect(r)])
    # an SR5 attack open in the Action panel: its footer's buttons (Apply damage, Close) wholly in view
    dlg = win.sr5.tracker.open_initiative()
    for tid, text in {"sam": "6 6", "nyx": "5", "brick": "=12", "ganger-1": "4", "ganger-2": "1", "ganger-3": "2",
                      "ganger-4": "6", "ganger-5": "3", "ganger-6": "5"}.items():
        dlg.edits[tid].setText(text)
    dlg.start_turn()
    page = win.sr5.open_attack("sam", ["ganger-1"])
    for _ in range(12):
        app.processEvents()
    hidden = []
    for b in page.footer.findChildren(QAbstractButton):
        if b.isVisibleTo(page.footer):
            seen = b.visibleRegion().boundingRect()
            r = QRect(b.mapToGlobal(b.rect().topLeft()), b.size())
            if seen != b.rect() or not avail.contains(r):
                hidden.append([b.text(), rect(seen), rect(r)])
    out.write_text(json.dumps({"avail": rect(avail), "frame": rect(win.frameGeometry()), "outside": outside,
                               "footer_hidden": hidden}))
    win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
