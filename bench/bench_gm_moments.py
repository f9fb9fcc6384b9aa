"""The GM's slow moments of issue 30 item 9, measured in the real main window offscreen at
1366x768: Enter in the Action panel applying an SR5 attack's damage, a click on Apply
damage, and End phase into initiative pass 2. Each is timed from the key or click to the end
of the event-loop turn that shows its result (the first visible change: the map and panels
repainted), in this thread's CPU time and in wall time; ``--repeat N`` runs each N times on
a fresh turn and prints the median and the worst.

Run: ``nice -n 10 python bench/bench_gm_moments.py [--repeat 5] [--json]`` (quote the load,
``cat /proc/loadavg``, beside the numbers).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen:configfile=" + str(ROOT / "tests" / "gui" / "screens.json"))
sys.path.insert(0, str(ROOT))

ENTRIES = {"sam": "6 6", "nyx": "5", "brick": "=12", "ganger-1": "4", "ganger-2": "1", "ganger-3": "2",
           "ganger-4": "6", "ganger-5": "3", "ganger-6": "5"}


def _timed(app, fn):
    """(cpu ms, wall ms) of ``fn()`` and the event-loop turn that paints its result."""
    c0, w0 = time.thread_time(), time.perf_counter()
    fn()
    app.processEvents()  # (the repaint the change asked for: the first visible change)
    return (time.thread_time() - c0) * 1000.0, (time.perf_counter() - w0) * 1000.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from gui.app import make_app

    app = make_app()
    from PySide6.QtWidgets import QMessageBox

    QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard)
    from assets import demo_encounter_path
    from engine.files import load_encounter
    from gui.main_window import MainWindow

    path = demo_encounter_path()
    tmp = Path(tempfile.mkdtemp(prefix="cf-moments-"))
    win = MainWindow(load_encounter(path), path, settings=QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat),
                     autosave_folder=tmp / "a", autosave_interval_ms=10_000_000)
    win.resize(1366, 768)
    win.show()
    for _ in range(20):
        app.processEvents()
    results: dict[str, list[tuple[float, float]]] = {"enter_apply_damage": [], "apply_click": [], "into_pass_2": []}
    base = win.document.committed

    def fresh_turn():
        win.document.commit(base, "bench: back to the start")
        app.processEvents()
        dlg = win.sr5.tracker.open_initiative()
        for tid, text in ENTRIES.items():
            dlg.edits[tid].setText(text)
        dlg.start_turn()
        app.processEvents()

    def rolled_attack():
        page = win.sr5.open_attack("sam", ["ganger-1"])
        app.processEvents()
        page.roll_all()
        app.processEvents()
        return page

    for _ in range(args.repeat):
        fresh_turn()
        page = rolled_attack()
        panel = win.action_panel
        page.apply_button.setFocus()  # (Enter from the panel: not from a text field)
        results["enter_apply_damage"].append(_timed(app, lambda: QTest.keyClick(panel, Qt.Key.Key_Return)))
        fresh_turn()
        page = rolled_attack()
        results["apply_click"].append(_timed(app, lambda: QTest.mouseClick(page.apply_button, Qt.MouseButton.LeftButton)))
        fresh_turn()
        # every Action Phase of pass 1 ended but the last; its End phase starts pass 2
        from engine.sr5.changes import settings_of

        while True:
            nxt = win.document.committed
            win.sr5.tracker.end_phase()
            app.processEvents()
            if settings_of(win.document.committed).initiative_pass != 1:
                break
            if win.document.committed is nxt:
                break
        # back one step: the last End phase of pass 1, timed
        win.document.undo_stack.undo()
        app.processEvents()
        results["into_pass_2"].append(_timed(app, lambda: win.actions["sr5 end phase"].trigger()))
        assert settings_of(win.document.committed).initiative_pass == 2
    out = {}
    for name, vals in results.items():
        cpu = [v[0] for v in vals]
        wall = [v[1] for v in vals]
        out[name] = {"cpu_ms_median": round(statistics.median(cpu), 1), "cpu_ms_max": round(max(cpu), 1),
                     "wall_ms_median": round(statistics.median(wall), 1), "wall_ms_max": round(max(wall), 1)}
    out["load"] = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else None
    if args.json:
        print(json.dumps(out))
    else:
        for name, v in out.items():
            print(name, v)
    win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
