"""The "Players see" inset (issue 26 item 5), offscreen: what one picture costs, and how
many pictures a drag makes.

The scene of :mod:`bench.bench_fog` (fog on, a party of 5, the GM's tint on) with the player
view open at 1920 x 1080 and the inset shown. Printed per scene: the CPU milliseconds of one
inset picture (a grab of the players' canvas at its size, scaled; median of ``--pictures``),
then a drag of ``--steps`` steps through :func:`bench.bench_drag.measure` (CPU median of a
step, as bench_fog's), the pictures the inset made during it, and the load average. The
inset never draws in a drag step itself: a picture is an idle job, at most every
``PREVIEW_INTERVAL_S`` seconds while the GM drags.

Run: ``python bench/bench_inset.py [--steps N] [--pictures N] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_drag import _pick, _window, measure  # noqa: E402  (sets the offscreen screen)
from bench.bench_fog import with_party  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def run(steps: int = 60, pictures: int = 10) -> list[dict]:
    from bench.scene import make_scene
    from engine.files import load_encounter
    from gui.app import make_app

    make_app()
    demo = ROOT / "assets" / "encounters" / "demo.json"
    rows = []
    for label, enc, path in (("demo (9 tokens, 10 obstacles)", load_encounter(demo), demo),
                             ("generated (200 tokens, 2000 obstacles)", make_scene(1), None)):
        attacker, _ = _pick(enc)
        enc = with_party(enc, attacker)
        win = _window(enc, path)
        win.sight_controls.set_gm_fog(True)
        pv = win.player_view.open()
        pv.resize(1920, 1080)
        win.selection.select([attacker], win.document.encounter)
        for _ in range(5):
            QApplication.processEvents()
        inset = win.player_view.inset
        cpu = []
        for _ in range(pictures):
            t = time.thread_time()
            inset._refresh_now()
            cpu.append((time.thread_time() - t) * 1000)
        before = inset.refreshes
        measure(win, attacker, 10, full=False)  # warm-up
        before = inset.refreshes
        times, step_cpu = measure(win, attacker, steps, full=False)
        rows.append({"scene": label, "picture_cpu_ms": statistics.median(cpu), "picture_cpu_max_ms": max(cpu),
                     "step_cpu_median_ms": statistics.median(step_cpu), "steps": len(times),
                     "drag_wall_s": sum(times) / 1000, "pictures_during_drag": inset.refreshes - before})
        win.document.undo_stack.setClean()
        win.close()
        win.deleteLater()
        QApplication.processEvents()
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--pictures", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = run(args.steps, args.pictures)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'scene':40s} {'picture cpu ms':>15s} {'max':>6s} {'step cpu ms':>12s} {'drag s':>7s} {'pictures':>9s}")
    for r in rows:
        print(f"{r['scene']:40s} {r['picture_cpu_ms']:15.1f} {r['picture_cpu_max_ms']:6.1f} {r['step_cpu_median_ms']:12.1f}"
              f" {r['drag_wall_s']:7.2f} {r['pictures_during_drag']:9d}")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
