"""A drag step with the fog on and the player view open (issue 18 item 5), offscreen.

The same step as :mod:`bench.bench_drag` (its window, its ``measure``): the select tool
moves a token, the engine's answers and the party's sight follow, the GM's map and the
player view (1920 x 1080 beside it) repaint. Here the encounter's fog is on, the GM shows
the players' fog on the map (key V), and the party is 5 tokens (side ``party``, the
players' side) with the dragged token one of them, so each step redoes one token's sight
(:class:`engine.vision.SightCache`), the fog's paths, the player document's knowledge and
its answers. The moved token's sight is worked out in the party sight's worker thread
(:mod:`gui.party_sight`): ``cpu ms`` is the GUI thread's own time a step, ``worker ms`` the
worker's CPU a step (on the machine's other core), ``shown`` how many steps' views the
players' window showed (the rest were replaced by a newer step while the worker was busy).
Printed: wall and CPU milliseconds per step (median, p90), the drop (one undo step,
explored grows), and the load average.

Measured (issue 26 item 7; the budget is 12 ms for the step, the players' window included):
at load 24-26 on 2 cores, GUI-thread CPU medians on 200 x 2,000, 25.1 ms with the player view
open and 15.9 closed (27.0 and 17.3 for the code before, run in turn), the drop 82.7 ms, while
``bench/bench_drag.py``'s plain step without fog took 14.5 ms (README, "Speed"). With the
players' window's repaints held to one every 0.1 s during a drag (``gui.player_repaint``), at
load 3-3.6, main and the change run in turn: open 13.2-17.2 ms before, 9.9-14.2 after (closed
7.7-9.2 and 8.3-11.4); the drop 49-66 ms CPU either way. With the fog and the players'
document at 10 views a second (``gui.party_sight.FOG_FRAME_MS``), the dim fill without a union
(``gui.layers.fog.dim_geometry``) and the drop's explored areas worked out in the worker
(``PartySight._landed``), main and the change in turn at load 14.7-15.4 (100 steps): open
25.0 / 21.1 ms before, 23.1 / 18.5 after; closed 16.8 / 18.7 and 8.7 / 14.8; the drop and
its repaints 79 ms CPU before, 43-55 after, the release's own turn (``(turn)``) 21-24 ms.

Run: ``python bench/bench_fog.py [--steps N] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_drag import _pick, _window, measure  # noqa: E402  (sets the offscreen screen)
from PySide6.QtWidgets import QApplication  # noqa: E402

PARTY = 5


def with_party(encounter, mover: str, size: int = PARTY):
    """The encounter with fog on and ``mover`` plus its ``size - 1`` nearest tokens as the
    party (side ``party``, the only players' side)."""
    m = encounter.token(mover)
    near = sorted(encounter.tokens, key=lambda t: (t.x - m.x) ** 2 + (t.y - m.y) ** 2)[:size]
    ids = {t.id for t in near}
    tokens = tuple(t.model_copy(update={"side": "party"}) if t.id in ids else t for t in encounter.tokens)
    sight = encounter.sight.model_copy(update={"fog": True, "player_sides": ("party",)})
    return encounter.model_copy(update={"tokens": tokens, "sight": sight})


def run(steps: int = 60) -> list[dict]:
    from bench.scene import make_scene
    from engine.files import load_encounter
    from gui.app import make_app

    make_app()
    demo = ROOT / "assets" / "encounters" / "demo.json"
    scenes = [("demo (9 tokens, 10 obstacles)", load_encounter(demo), demo),
              ("generated (200 tokens, 2000 obstacles)", make_scene(1), None)]
    rows = []
    for label, enc, path in scenes:
        attacker, _ = _pick(enc)
        enc = with_party(enc, attacker)
        for player in (False, True):
            win = _window(enc, path)
            win.sight_controls.set_gm_fog(True)
            if player:
                pv = win.player_view.open()
                pv.resize(1920, 1080)
            win.selection.select([attacker], win.document.encounter)
            QApplication.processEvents()
            measure(win, attacker, 10, full=False)  # warm-up
            computed0 = win.party_sight.compute_count
            worker0, shown0 = win.party_sight.worker_cpu, win.party_sight.async_count
            landed = []  # per step: whether a view from the worker was shown in it
            seen = [win.party_sight.async_count]

            def after_step():
                landed.append(win.party_sight.async_count != seen[0])
                seen[0] = win.party_sight.async_count

            times, cpu = measure(win, attacker, steps, full=False, after_step=after_step)
            with_view = [c for c, hit in zip(cpu, landed) if hit]
            rows.append({
                "scene": label, "player_view": player, "median_ms": statistics.median(times),
                "p90_ms": sorted(times)[int(0.9 * len(times)) - 1], "cpu_median_ms": statistics.median(cpu),
                "cpu_mean_ms": statistics.fmean(cpu), "cpu_p90_ms": sorted(cpu)[int(0.9 * len(cpu)) - 1],
                "cpu_with_view_ms": statistics.median(with_view) if with_view else float("nan"),
                "release_ms": measure.last_release_ms, "release_cpu_ms": measure.last_release_cpu_ms,
                "release_turn_cpu_ms": measure.last_release_turn_cpu_ms, "steps": len(times),
                "sight_computations": win.party_sight.compute_count - computed0,
                "worker_ms": (win.party_sight.worker_cpu - worker0) * 1e3 / len(times),
                "shown": win.party_sight.async_count - shown0,
            })
            win.document.undo_stack.setClean()
            win.close()
            win.deleteLater()
            QApplication.processEvents()
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    load0 = os.getloadavg()[0]
    rows = run(args.steps)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'scene':40s} {'player view':12s} {'median ms':>10s} {'p90 ms':>8s} {'cpu ms':>7s} {'cpu mean':>9s}"
          f" {'cpu p90':>8s} {'view step':>10s} {'worker ms':>10s} {'shown':>7s} {'release ms':>11s} {'(cpu)':>6s}"
          f" {'(turn)':>7s}")
    for r in rows:
        print(f"{r['scene']:40s} {'open' if r['player_view'] else 'closed':12s} {r['median_ms']:10.1f}"
              f" {r['p90_ms']:8.1f} {r['cpu_median_ms']:7.1f} {r['cpu_mean_ms']:9.1f} {r['cpu_p90_ms']:8.1f}"
              f" {r['cpu_with_view_ms']:10.1f} {r['worker_ms']:10.1f} {r['shown']:3d}/{r['steps']:<3d}"
              f" {r['release_ms']:11.1f} {r['release_cpu_ms']:6.1f} {r['release_turn_cpu_ms']:7.1f}")
    print(f"\nfog on, the GM's fog shown, party of {PARTY} with the dragged token in it; load average "
          f"{load0:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores (cpu ms: the GUI "
          "thread's own time, median, mean and p90 of the steps; view step: the median of the steps in which a new view "
          "was shown; worker ms: the sight worker's CPU a step, mean; release: the drop and the event-loop turns after it, "
          "wall and CPU, and (turn) the CPU of the release's own turn)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
