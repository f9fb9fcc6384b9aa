"""The GM's table, walked through (issue 30 "Done when"): the real main window offscreen on
one screen (1366x768 or 1920x1080, QT_SCALE_FACTOR for 125 %), a modelled window-manager
frame (a 30 px title bar, 4 px borders: ``MainWindow.frame_margins``), driven through a fight
with real mouse events, a screenshot after each step (the window as a WM would frame it).

``QT_SCALE_FACTOR=1.25 python bench/walkthrough.py 1366 768 OUT_DIR [--uvtt FILE]``

Prints, per step, the shot's file, whether every visible button lies on the screen, and the
texts the step added to the Action panel's top and the status bar.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    width, height, out = int(argv[0]), int(argv[1]), Path(argv[2])
    uvtt = Path(argv[argv.index("--uvtt") + 1]) if "--uvtt" in argv else None
    out.mkdir(parents=True, exist_ok=True)
    cfg = out / f"screen-{width}x{height}.json"
    cfg.write_text(json.dumps({"screens": [{"name": "s", "x": 0, "y": 0, "width": width, "height": height,
                                            "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={cfg}"
    from PySide6.QtCore import QMargins, QPoint, QRect, QSettings, Qt
    from PySide6.QtGui import QColor, QMoveEvent, QPainter, QPixmap
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QAbstractButton, QApplication, QMessageBox

    from gui.app import make_app

    app = make_app()
    QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard)
    from gui.main_window import MainWindow, demo_paths

    WM = QMargins(4, 30, 4, 4)
    decorated = {"on": False}
    MainWindow.frame_margins = lambda self: WM if decorated["on"] else QMargins()
    scale = os.environ.get("QT_SCALE_FACTOR", "1")
    tag = f"{width}x{height}@{scale}"
    tmp = Path(tempfile.mkdtemp(prefix="cf-walk-"))
    win = MainWindow(settings=QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat), autosave_folder=tmp / "a")
    win.open_demo(demo_paths()[0])
    win.fill_screen()
    win.show()

    from tests.gui.settle import settle as settled
    from tests.gui.text_fit import cut_texts

    def settle(n=12):
        for _ in range(n):
            app.processEvents()
        settled(None, win)

    settle()
    decorated["on"] = True
    QApplication.sendEvent(win, QMoveEvent(win.pos() + QPoint(WM.left(), WM.top()), win.pos()))
    settle()
    avail = win.available_geometry()
    said: list[str] = []
    win.statusBar().messageChanged.connect(lambda t: t and said.append(t))
    report = []

    def shot(name: str) -> None:
        settle()
        inner = win.grab()
        frame = QPixmap(inner.width() + WM.left() + WM.right(), inner.height() + WM.top() + WM.bottom())
        frame.fill(QColor("#3a3f44"))
        p = QPainter(frame)
        p.setPen(QColor("#e8eaed"))
        p.drawText(QRect(0, 0, frame.width(), WM.top()), Qt.AlignmentFlag.AlignCenter, win.windowTitle())
        p.drawPixmap(WM.left(), WM.top(), inner)
        p.end()
        # the picture of the whole screen: the framed window where it is
        screen = QPixmap(avail.width(), avail.height())
        screen.fill(QColor("#000000"))
        p = QPainter(screen)
        g = win.geometry()
        p.drawPixmap(g.x() - WM.left() - avail.x(), g.y() - WM.top() - avail.y(), frame)
        p.end()
        path = out / f"{tag}-{name}.png"
        screen.save(str(path))
        off = []
        for b in win.findChildren(QAbstractButton):
            if b.isVisible() and not b.visibleRegion().isEmpty():
                r = QRect(b.mapToGlobal(b.rect().topLeft()), b.size())
                if not avail.contains(r):
                    off.append(b.text() or b.toolTip())
        panel = getattr(win, "action_panel", None)
        top = [panel.result_text(), panel.blocked_text()] if panel is not None else []
        report.append({"step": name, "shot": str(path), "buttons_off_screen": off, "cut_texts": cut_texts(win),
                       "frame": [g.x() - WM.left(), g.y() - WM.top(), g.width() + WM.left() + WM.right(),
                                 g.height() + WM.top() + WM.bottom()],
                       "panel_top": [t for t in top if t], "status": list(said)})
        said.clear()

    view = win.map_view

    def vp(x, y):
        return view.map_to_viewport(x, y)

    def click(x, y, shift=False):
        mod = Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, mod, vp(x, y))
        settle(3)

    shot("01-first-start")
    # initiative typed in; Sam acts first
    dlg = win.sr5.tracker.open_initiative()
    for tid, text in {"sam": "6 6", "nyx": "5", "brick": "=12", "ganger-1": "4", "ganger-2": "1", "ganger-3": "2",
                      "ganger-4": "6", "ganger-5": "3", "ganger-6": "5"}.items():
        dlg.edits[tid].setText(text)
    dlg.start_turn()
    shot("02-initiative")
    # Sam fills the suppressive zone: the Initiative panel lists who is under fire and links to
    # the tests' page in the Action panel
    win.selection.select(["sam"], win.document.encounter)
    supp = win.sr5.open_suppressive()
    supp.dice.faces.setText("6 6 5 1 2 2 3 3 4 4 2 2 3 3")
    supp.dice.enter_button.click()
    shot("02b-suppressive-filled")
    win.sr5.dock.raise_()
    outer = win.sr5.dock.widget()
    outer.ensureWidgetVisible(win.sr5.tracker.tests_button)
    shot("02c-initiative-under-fire")
    win.sr5.tracker.tests_button.click()
    shot("02d-suppressive-test-page")
    win.document.undo_stack.undo()
    win.action_panel.close_page()
    settle()
    # drag Sam towards the low wall: the walk and its cost beside him
    a, b = vp(12.0, 20.0), vp(20.0, 27.0)
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for i in range(1, 7):
        QTest.mouseMove(view.viewport(), QPoint(round(a.x() + (b.x() - a.x()) * i / 6), round(a.y() + (b.y() - a.y()) * i / 6)))
    settle()
    shot("03-drag-distance")
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
    settle()
    win.document.undo_stack.undo()
    settle()
    # attack Razor, roll, apply
    click(12.0, 20.0)
    click(27.0, 17.0, shift=True)
    page = win.sr5.open_attack()
    settle()
    shot("04-attack-page")
    page.roll_all()
    shot("05-rolled")
    page.apply()
    shot("06-applied")
    # end phase: Nyx acts, the attacker
    win.actions["sr5 end phase"].trigger()
    shot("07-end-phase")
    # the right-click menu of Nyx
    from gui.context_menu import entries_for

    _, es = entries_for(win, 10.5, 23.5)
    report.append({"step": "menu", "top": [e.label for e in es],
                   "rules": [(e.label, [c.label for c in e.children]) for e in es if e.label.endswith("actions")
                             for e in e.children]})
    if uvtt is not None:
        from engine.model import Token

        win.importing.import_map(uvtt)
        settle(30)
        enc = win.document.committed
        w, h = enc.map.width, enc.map.height
        toks = [Token(id=f"t{i}", name=n, x=w * fx, y=h * fy, side=side, radius=0.4)
                for i, (n, fx, fy, side) in enumerate([("Ash", 0.3, 0.4, "runner"), ("Kit", 0.35, 0.45, "runner"),
                                                        ("Vex", 0.6, 0.5, "ganger"), ("Jay", 0.65, 0.3, "ganger")])]
        win.document.commit(enc.model_copy(update={"tokens": tuple(enc.tokens) + tuple(toks)}), "tokens")
        view = win.map_view
        view.fit_map()
        settle(30)
        shot("08-imported-map-fit")
        report.append({"step": "token sizes at fit", "px_per_m": round(1 / view.m_per_px(), 2),
                       "drawn_radius_px": sorted(set(float(r) for r in view.tokens.radii_px(1 / view.m_per_px())))})
    print(json.dumps(report, indent=1))
    sys.stdout.flush()
    os._exit(0)  # (no teardown: a closing window under the offscreen platform may crash)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
