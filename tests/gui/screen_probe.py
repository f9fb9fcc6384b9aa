"""Run the main window on one offscreen screen of a given size and report what it did, as
JSON (used by the ``screen`` fixture: Qt takes the screen size when the application starts,
so each size runs in its own process).

``python -m tests.gui.screen_probe WIDTH HEIGHT OUT.json [SHOTS_DIR]``
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path


def rect(r) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def main(argv: list[str]) -> int:
    width, height, out = int(argv[0]), int(argv[1]), Path(argv[2])
    shots = Path(argv[3]) if len(argv) > 3 else None
    from PySide6.QtCore import QByteArray, QSettings
    from PySide6.QtWidgets import QMessageBox

    from gui.app import make_app

    app = make_app()
    QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard)
    from gui.main_window import MainWindow, demo_paths

    tmp = Path(tempfile.mkdtemp(prefix="coverfire-probe-"))
    report: dict = {"screen": rect(app.primaryScreen().availableGeometry())}

    def settle(win) -> None:
        for _ in range(6):
            app.processEvents()

    def facts(win) -> dict:
        settle(win)
        mv = win.map_view
        area = win.width() * win.height()
        docks = {n: rect(d.geometry()) for n, d in win.docks.items()
                 if d.isVisible() and not d.visibleRegion().isEmpty()}  # (a tab behind another: not shown)
        return {"frame": rect(win.frameGeometry()), "window": [win.width(), win.height()],
                "map": [mv.width(), mv.height()], "map_share": mv.width() * mv.height() / area,
                "docks": docks, "title": win.windowTitle(), "path": str(win.document.path)}

    settings = QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings=settings, autosave_folder=tmp / "autosave")
    win.open_demo(demo_paths()[0])
    win.show()
    report["first_start"] = facts(win)
    report["demos"] = {}
    for path in demo_paths():
        win.open_demo(path)
        report["demos"][path.name] = facts(win)
        if shots is not None:
            win.map_view.fit_map()
            settle(win)
            win.grab().save(str(shots / f"window-{width}x{height}-{path.stem}.png"))
    report["opened_files"] = {}
    for path in demo_paths():
        win.open_file(path, ask=False)
        report["opened_files"][path.name] = facts(win)
    win.close()
    settle(win)
    report["saved_state"] = isinstance(settings.value("window/state"), QByteArray)

    # a layout saved on a bigger screen comes back no larger than this one
    big = MainWindow(settings=settings, autosave_folder=tmp / "autosave2")
    big.show()
    big.resize(width + 900, height + 700)
    settle(big)
    big.close()
    settle(big)
    again = MainWindow(settings=settings, autosave_folder=tmp / "autosave3")
    again.open_demo(demo_paths()[0])
    again.show()
    report["restored_after_bigger"] = facts(again)
    again.close()
    out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
