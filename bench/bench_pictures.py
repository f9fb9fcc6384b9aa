"""The longest GUI-thread turn while a map with big pictures opens (issue 25 item 1).

The demo with a background of ``--side`` x ``--side`` pixels (a PNG of noise, so it does not
compress to nothing) and ``--portraits`` token pictures of ``--portrait-side`` pixels each
(one an SVG; ``0``: none), opened in the real main window offscreen inside a running event loop. A probe
timer fires every ``PROBE_MS`` on the GUI thread: the longest gap between two firings, from
the open until every picture has landed and the window has painted, is the **stall** (budget
50 ms), given as wall time and as the GUI thread's CPU time in that turn (on this shared
2-core machine a loaded moment stretches wall time). Also: the wall time until the pictures
were all shown. Run::

    QT_QPA_PLATFORM=offscreen python bench/bench_pictures.py [--side 7000] [--portraits 8] [--portrait-side 3000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PySide6.QtCore import QSettings, QTimer  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

PROBE_MS = 5


def noise_png(path: Path, side: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 256, size=(side, side, 4), dtype=np.uint8)
    a[..., 3] = 255
    img = QImage(a.data, side, side, 4 * side, QImage.Format.Format_RGBA8888)
    assert img.save(str(path), "PNG", 0 if side > 4000 else -1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", type=int, default=7000)
    ap.add_argument("--portraits", type=int, default=8)
    ap.add_argument("--portrait-side", type=int, default=3000)
    args = ap.parse_args(argv)
    app = QApplication.instance() or QApplication(["bench"])
    from engine.files import load_encounter
    from gui.main_window import MainWindow

    folder = Path(tempfile.mkdtemp(prefix="coverfire-bench-pictures-"))
    d = json.loads((ROOT / "assets" / "encounters" / "demo.json").read_text(encoding="utf-8"))
    if args.side:
        noise_png(folder / "map.png", args.side, 1)
        d["map"]["background"] = {"image": "map.png", "x": 0, "y": 0, "width": d["map"]["width"],
                                  "height": d["map"]["height"]}
    for i in range(min(args.portraits, len(d["tokens"]))):
        if i == 0:
            (folder / "p0.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512">'
                                           '<circle cx="256" cy="256" r="200" fill="teal"/></svg>')
            d["tokens"][i]["portrait"] = "p0.svg"
        else:
            noise_png(folder / f"p{i}.png", args.portrait_side, 10 + i)
            d["tokens"][i]["portrait"] = f"p{i}.png"
    path = folder / "fight.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    enc = load_encounter(path)

    from gui.map_view import MapView

    spent: dict[str, float] = {}  # the GUI thread's CPU in the view's picture steps, worst call

    def timed(name):
        fn = getattr(MapView, name, None)
        if fn is None:  # (the code before the loader: no such step)
            return

        def wrapper(self, *a, **kw):
            c0 = time.thread_time()
            try:
                return fn(self, *a, **kw)
            finally:
                spent[name] = max(spent.get(name, 0.0), time.thread_time() - c0)
        setattr(MapView, name, wrapper)

    for name in ("_load_background", "_load_portraits", "_picture_landed"):
        timed(name)
    state = {"win": None, "last": None, "worst": (0.0, 0.0), "t0": None, "shown": None, "open": None, "cpu": 0.0}

    def probe():
        now = (time.perf_counter(), time.thread_time())
        last = state["last"]
        if last is not None:
            gap = (now[0] - last[0], now[1] - last[1])
            if state["win"] is not None and state["open"] is None:
                state["open"] = gap  # (the turn that made the window)
            elif state["win"] is not None:
                if gap[0] > state["worst"][0]:
                    state["worst"] = gap
                state["cpu"] = max(state["cpu"], gap[1])
        state["last"] = (time.perf_counter(), time.thread_time())
        win = state["win"]
        if win is not None and state["shown"] is None:
            v = win.map_view
            if not getattr(v, "pictures_pending", False) and (v.ground.has_image or not args.side):
                state["shown"] = time.perf_counter() - state["t0"]
                QTimer.singleShot(200, app.quit)  # (a few paints more, then stop)

    def open_it():
        state["t0"] = time.perf_counter()
        settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
        win = MainWindow(enc, path, settings=settings, autosave_folder=folder / "autosave",
                         autosave_interval_ms=10_000_000)
        win.resize(1366, 768)
        win.show()
        state["win"] = win

    timer = QTimer()
    timer.timeout.connect(probe)
    timer.start(PROBE_MS)
    QTimer.singleShot(50, open_it)
    QTimer.singleShot(120_000, app.quit)
    app.exec()
    wall, cpu = state["worst"]
    v = state["win"].map_view
    for why in [v.background_problem] + list(v.portrait_problems):
        if why:
            print("left out:", why)
    print(f"background {args.side}x{args.side} px, {args.portraits} portraits ({args.portrait_side} px; one SVG)")
    ow, oc = state["open"]
    print(f"the open's turn: {ow * 1000:.0f} ms wall, {oc * 1000:.0f} ms CPU (run with --side 0 --portraits 0 for "
          "the same without pictures)")
    print(f"longest GUI-thread turn after it: {wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU (budget 50 ms); "
          f"the most GUI-thread CPU in one turn after it: {state['cpu'] * 1000:.0f} ms")
    print("GUI-thread CPU of the worst call: " + ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in spent.items()))
    shown = state["shown"]
    print("pictures all shown after " + (f"{shown:.2f} s" if shown is not None else "(not within 120 s)"))
    with open("/proc/loadavg") as f:
        print("load", f.read().split()[:3])
    return 0


if __name__ == "__main__":
    sys.exit(main())
