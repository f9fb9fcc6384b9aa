"""How the engine's costs grow with the map: a table of cost against size, with the fitted
exponent (cost ~ size^k: k = 1 grows in proportion, k < 1 slower).

Scenes from ``bench/scene.py`` at the bench density (:func:`bench.scene.scene_size`):
obstacles 500 / 2,000 / 8,000 / 16,000 with 200 tokens, and tokens 10 / 200 / 800 with 2,000
obstacles. For each it measures (median, milliseconds, wall and CPU):

* ``index``: the cover index (``Tactics(encounter)``) and, apart, the movement graph for one
  body radius (0.4 m; built in the background in the window);
* ``answers``: one attacker against every other token (cover + range + zones) as in a drag;
* ``edit``: one obstacle moved 0.5 m -- cover, zones and ranges back (``Tactics.update`` and
  ``targets``), and apart the movement graph edited near it;
* ``charge``: one charge plan at a target within the attacker's reach (40 m);
* ``all charges``: after the edit, every charge of the attacker (``targets(charges=True)``:
  the graph edited near the obstacle, then a plan at each other token).

Run: ``python bench/bench_scaling.py [--quick]`` (about a minute; ``--quick``: fewer repeats).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.scene import make_scene
from engine.analysis import Tactics

OBSTACLES = (500, 2000, 8000, 16000)
TOKENS = (10, 200, 800)
COLUMNS = ("index", "graph", "answers", "edit", "graph edit", "charge", "all charges")


def _timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return (time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3, out


def _median(rows):
    return statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)


def measure(tokens: int, obstacles: int, repeats: int = 5) -> dict:
    """The costs for one scene: {column: (wall ms, cpu ms)}."""
    enc = make_scene(1, tokens=tokens, obstacles=obstacles)
    out: dict = {}
    idx = [_timed(lambda: Tactics(enc)) for _ in range(3)]
    out["index"] = _median(idx)
    tac = idx[-1][2]
    out["graph"] = _median([_timed(lambda: tac.navigator.prepare(0.4))])
    ids = [t.id for t in enc.tokens]
    n = min(repeats * 4, len(ids))
    tac.targets(ids[0])
    rows = []
    for i in range(n):
        tok = enc.tokens[i]
        moved = enc.model_copy(update={"tokens": enc.tokens[:i] + (tok.model_copy(update={"x": tok.x + 0.05}),)
                                       + enc.tokens[i + 1:]})
        rows.append(_timed(lambda: (tac.update(moved), tac.targets(ids[i]))))
    tac.update(enc)
    out["answers"] = _median(rows)
    # one obstacle near the attacker moved 0.5 m, then back (as a drag and its undo)
    a = enc.tokens[0]
    k = min(range(len(enc.obstacles)),
            key=lambda j: (enc.obstacles[j].polygon[0][0] - a.x) ** 2 + (enc.obstacles[j].polygon[0][1] - a.y) ** 2)
    rows, grows, alls = [], [], []
    state = enc
    tac.navigator.prepare(a.radius)
    tac.targets(a.id, charges=True)
    for rep in range(repeats):
        o = state.obstacles[k]
        d = 0.5 if rep % 2 == 0 else -0.5
        o2 = o.model_copy(update={"polygon": tuple((x + d, y) for x, y in o.polygon)})
        state = state.model_copy(update={"obstacles": state.obstacles[:k] + (o2,) + state.obstacles[k + 1:]})
        rows.append(_timed(lambda: (tac.update(state), tac.targets(a.id))))
        grows.append(_timed(lambda: tac.navigator.prepare(0.4)))
        alls.append(_timed(lambda: tac.targets(a.id, charges=True)))
    out["edit"] = _median(rows)
    out["graph edit"] = _median(grows)
    # every charge: the graph edit (timed above, when the attacker's radius is 0.4 m) + plans
    out["all charges"] = _median([(g[0] + c[0], g[1] + c[1]) if a.radius == 0.4 else c[:2]
                                  for g, c in zip(grows, alls)])
    tac.update(enc)
    for radius in sorted({t.radius for t in enc.tokens}):  # (graphs ready: the charges alone)
        tac.navigator.prepare(radius)
    # charge plans at targets within reach, each by another attacker
    xy = np.array([(t.x, t.y) for t in enc.tokens])
    rows = []
    for i in range(len(ids)):
        dd = np.hypot(*(xy - xy[i]).T)
        near = np.nonzero((dd > 2) & (dd <= 40.0))[0]
        if len(near):
            j = int(near[len(near) // 2])
            rows.append(_timed(lambda: tac.charge(ids[i], ids[j])))
        if len(rows) >= repeats * 3:
            break
    out["charge"] = _median(rows) if rows else (math.nan, math.nan)
    return out


def exponent(sizes, costs) -> float:
    """Least-squares slope of log(cost) against log(size)."""
    x, y = np.log(np.asarray(sizes, dtype=float)), np.log(np.maximum(np.asarray(costs, dtype=float), 1e-6))
    ok = np.isfinite(y)
    return float(np.polyfit(x[ok], y[ok], 1)[0]) if ok.sum() >= 2 else math.nan


def table(label: str, sizes, results, log=print) -> None:
    log(f"\n{label:>10s} " + " ".join(f"{c:>17s}" for c in COLUMNS))
    for s, r in zip(sizes, results):
        log(f"{s:>10,d} " + " ".join(f"{r[c][0]:8.1f} ({r[c][1]:6.1f})" for c in COLUMNS))
    log(f"{'exponent':>10s} " + " ".join(f"{exponent(sizes, [r[c][1] for r in results]):17.2f}" for c in COLUMNS))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    reps = 3 if args.quick else 5
    t0, c0 = time.perf_counter(), time.process_time()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; milliseconds, wall (cpu); "
          "exponents fitted to the cpu times")
    by_obs = [measure(200, n, reps) for n in OBSTACLES]
    table("obstacles", OBSTACLES, by_obs)
    by_tok = [measure(n, 2000, reps) for n in TOKENS]
    table("tokens", TOKENS, by_tok)
    print(f"\n(took {time.perf_counter() - t0:.0f} s, cpu {time.process_time() - c0:.0f} s; "
          f"load average {os.getloadavg()[0]:.2f} after)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
