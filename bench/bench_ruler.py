"""The ruler's event-loop stalls in the real main window (offscreen).

Opens a scene (default: :data:`bench.scene.BIG`, 500 tokens and 10,000 obstacles, with
``make_scene(1, doors=20, **BIG)``), lets it settle, takes the ruler (key M) and drags it from
a token near the middle ``--steps`` steps (one per 16 ms frame, as a GM's mouse would), then
drops it and waits until the walk is shown. The drag is done twice: the first builds the
walker's movement graph (somewhere), the second only searches. With ``--select`` the walker
is selected first and the ruler taken up 0.5 s before the drag (as a GM clicks a token, presses
M and goes to it): the planner builds its graph meanwhile. For each drag it prints the
longest event-loop turn (wall time, and the GUI thread's CPU time in that turn: what the load
does not stretch; the probe is the 5 ms timer of :mod:`bench.bench_stalls`), and the time
from the drop until the walk was shown. Budget: 50 ms per turn. Run::

    QT_QPA_PLATFORM=offscreen python bench/bench_ruler.py [--scene big|large|demo] [--steps 20] [--json] [--profile] [--select] [--in-thread]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import bench_stalls  # noqa: E402  (sets QT_QPA_PLATFORM to the 1920x1080 offscreen screen)
from bench.bench_stalls import (FRAME_MS, STALL_BUDGET_MS, Probe, Script, _near_middle, _settled,  # noqa: E402
                                 _window, close_window)

WALK_TIMEOUT_S = 60.0


def _walk_shown(tool) -> bool:
    r = tool.reading
    return r is not None and not getattr(r, "walk_pending", False) and (r.walk is not None or bool(r.walk_note))


def measure(path: Path, steps: int = 20, drags: int = 2, log=print, sampler=None, select: bool = False) -> list[dict]:
    """Open ``path`` in the window and drag the ruler ``drags`` times; one row a drag."""

    from gui.ruler import RulerTool
    from gui.tools import Pointer

    tmp = Path(tempfile.mkdtemp(prefix="cf-ruler-"))
    win = _window(tmp)
    probe = Probe()
    rows: list[dict] = []

    def script():
        yield 50
        win.open_file(path, ask=False)
        yield lambda: _settled(win)
        yield 300  # (the first paints)
        view = win.map_view
        enc = win.document.encounter
        k = view.m_per_px()
        walker = _near_middle(enc, n=1)[0]
        if select:  # (the GM clicked the token, then took up the ruler and went to it: 0.5 s)
            win.selection.select([walker.id], enc)
            yield lambda: _settled(win)
        tool = RulerTool(view)
        view.set_tool(tool)
        for n in range(drags):
            yield 500 if select and n == 0 else 100
            sx, sy = walker.x, walker.y
            dx, dy = (15.0, 9.0) if n == 0 else (-12.0, 11.0)
            t0, c0 = time.perf_counter(), time.thread_time()
            tool.press(Pointer(sx, sy, m_per_px=k))
            for i in range(1, steps + 1):
                f = i / steps
                tool.move(Pointer(sx + f * dx, sy + f * dy, m_per_px=k))
                yield FRAME_MS
            t_drop = time.perf_counter()
            tool.release(Pointer(sx + dx, sy + dy, m_per_px=k))
            yield lambda: _walk_shown(tool)
            t1 = time.perf_counter()
            yield 50
            t2 = time.perf_counter()
            r = tool.reading
            row = {"drag": n + 1, "stall_ms": probe.longest(t0, t2), "stall_cpu_ms": probe.longest_cpu(t0, t2),
                   "drag_ms": (t_drop - t0) * 1e3, "walk_after_drop_ms": (t1 - t_drop) * 1e3,
                   "gui_cpu_ms": (time.thread_time() - c0) * 1e3,
                   "walk_m": r.walk if r is not None else None, "walk_note": r.walk_note if r is not None else "",
                   "shown": _walk_shown(tool), "load": os.getloadavg()[0]}
            rows.append(row)
            walk = f"{row['walk_m']:.2f} m" if row["walk_m"] is not None else repr(row["walk_note"])
            log(f"  drag {n + 1}: longest turn {row['stall_ms']:7.1f} ms (gui cpu {row['stall_cpu_ms']:6.1f} ms); "
                f"walk shown {row['walk_after_drop_ms']:7.0f} ms after the drop ({walk}"
                f"{'' if row['shown'] else ', NOT shown'}); gui cpu in the drag {row['gui_cpu_ms']:.0f} ms; "
                f"load {row['load']:.2f}")
            if sampler is not None:
                _, g0, g1 = probe.longest_window(t0, t2)
                for line in sampler.report(g0, g1):
                    log(line)
        tool.cancel()

    Script(script()).run()
    probe._timer.stop()
    win.document.undo_stack.setClean()
    close_window(win)
    return rows


def run(scene: str = "big", steps: int = 20, drags: int = 2, log=print, profile: bool = False,
        select: bool = False) -> list[dict]:
    from bench.scene import BIG, LARGE, make_scene
    from engine.files import save_encounter
    from gui.app import make_app

    make_app()
    if scene == "demo":
        path = ROOT / "assets" / "encounters" / "demo.json"
    else:
        path = Path(tempfile.mkdtemp(prefix="cf-ruler-scene-")) / f"{scene}.json"
        save_encounter(make_scene(1, doors=20, **{"large": LARGE, "big": BIG}[scene]), path)
    log(f"scene {scene} ({path.name}), load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores:")
    sampler = bench_stalls.Sampler() if profile else None
    try:
        return measure(path, steps, drags, log=log, sampler=sampler, select=select)
    finally:
        if sampler is not None:
            sampler.stop()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default="big", choices=("big", "large", "demo"))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--drags", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--profile", action="store_true", help="sample the GUI thread's stack; print what ran in each drag's longest turn")
    ap.add_argument("--in-thread", action="store_true",
                    help="every walk on the GUI thread, as before the planner did them (the 'before' of #14)")
    ap.add_argument("--select", action="store_true",
                    help="select the walker first and take up the ruler 0.5 s before the drag (its graph is prepared then)")
    args = ap.parse_args(argv)
    if args.in_thread:
        from gui import charge_worker, walk_worker

        charge_worker.PROCESS_FROM = 10**9  # (the walker asks it; the charge column too)
        walk_worker.HERE_BUDGET_S = float("inf")
    rows = run(args.scene, args.steps, args.drags, log=(lambda *a: None) if args.json else print, profile=args.profile,
               select=args.select)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    worst = max(rows, key=lambda r: r["stall_ms"])
    print(f"longest turn {worst['stall_ms']:.1f} ms (gui cpu {max(r['stall_cpu_ms'] for r in rows):.1f} ms), "
          f"budget {STALL_BUDGET_MS:g} ms; load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    bench_stalls  # (imported for its screen set-up)
    sys.exit(main())
