"""Benchmark of geometry.nav on the seeded bench scene (bench/scene.py): 2,000 obstacles and
200 tokens on a 300 m map.

    python bench/bench_paths.py [--seed 1] [--queries 60] [--movement 40]

Prints wall-clock medians (the budgets) with CPU-time medians beside them (on a shared machine
other work inflates wall times), first the two budget lines:
  * index: the movement graphs for every token radius in the scene (once per obstacle set);
  * charge plan at a target within the mover's reach (straight distance at most --movement,
    the engine's default charge movement; ``max_movement`` passed), one search per mover as
    when a GM points at a pair;
then, for reference:
  * one attacker's charges at all 199 others with the movement cap (``plan_charges``: one
    shared search from the mover, as ``Tactics.targets(charges=True)``),
  * shortest_path between random pairs of tokens and pairs within 30 m (other tokens as discs),
  * plan_charge without a cap, single searches, at any range,
  * slide (a shove),
  * the same shortest paths on a graph with a 4x larger pair budget (how far the default's
    length-limited edges are from a denser graph).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import shapely

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from geometry.nav import PAIR_BUDGET, Navigator, plan_charge, plan_charges, slide  # noqa: E402


def _scene(seed: int):
    """(polygons, bounds, tokens (n, 3) x y r) from bench/scene.py's generator."""
    from bench.scene import make_scene

    enc = make_scene(seed)
    polys = [shapely.Polygon(o.polygon) for o in enc.obstacles if o.blocks]
    toks = np.array([(t.x, t.y, t.radius) for t in enc.tokens], dtype=float)
    return polys, (0.0, 0.0, enc.map.width, enc.map.height), toks


def cpu_med(xs) -> str:
    return f"{statistics.median(xs) * 1e3:.2f} ms"


def ms(xs) -> str:
    return f"{statistics.median(xs) * 1e3:8.2f} ms (median of {len(xs)}, max {max(xs) * 1e3:.1f})"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--movement", type=float, default=40.0, help="charge movement (m), default 40")
    args = ap.parse_args(argv)
    polys, bounds, toks = _scene(args.seed)
    rng = np.random.default_rng(args.seed)
    print(f"scene: {len(polys)} obstacles, {len(toks)} tokens, map {bounds[2]:g} x {bounds[3]:g} m")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"(load average {load:.2f} on {os.cpu_count()} cores before the run: other work inflates wall times)")

    # index: the graph for every token radius, three times (median run)
    radii = sorted({float(r) for r in toks[:, 2]})
    runs = []
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        nav = Navigator(polys, bounds=bounds)
        per = []
        for r in radii:
            t1, c1 = time.perf_counter(), time.process_time()
            nav.prepare(r)
            per.append((time.perf_counter() - t1, time.process_time() - c1))
        runs.append((time.perf_counter() - t, time.process_time() - c, per, nav))
    runs.sort(key=lambda x: x[0])
    wall, cpu, per, nav = runs[1]
    runs = [runs[1]]  # (the other two navigators go)
    gc.freeze()  # as the planner process does once its graphs are built (gui/charge_process.py)
    for r, (w, c) in zip(radii, per):
        n, e, L = nav.graph_size(r)
        print(f"  graph r={r:g}: {n} corners, {e} edges, median edge limit {L:.1f} m, "
              f"built in {w * 1e3:.0f} ms (cpu {c * 1e3:.0f} ms)")
    print(f"index: movement graphs for radii {', '.join(f'{r:g}' for r in radii)}: {wall * 1e3:.0f} ms "
          f"(cpu {cpu * 1e3:.0f} ms; median of 3; with the cover index budget 1000 ms, see bench_engine)")

    # charges at targets within reach, one search per mover (the caches cleared before each)
    mm = args.movement
    per_c, cpu_c, possible, n_c = [], [], 0, 0
    for _ in range(2 * args.queries):
        i = int(rng.integers(len(toks)))
        dist = np.hypot(*(toks[:, :2] - toks[i, :2]).T)
        cand = np.flatnonzero((dist > 1) & (dist <= mm))
        if len(cand) == 0:
            continue
        j = int(rng.choice(cand))
        others = np.delete(toks, [i, j], axis=0)
        nav.charge_trees.clear()
        nav.charge_seen.clear()
        t, c = time.perf_counter(), time.process_time()
        plan = plan_charge(nav, toks[i, :2], toks[i, 2], toks[j, :2], toks[j, 2], discs=others, max_movement=mm)
        per_c.append(time.perf_counter() - t)
        cpu_c.append(time.process_time() - c)
        possible += plan.possible
    print(f"charge plan, target within reach ({mm:g} m, max_movement={mm:g}): {ms(per_c)}, cpu "
          f"{cpu_med(cpu_c)} ({possible} possible; budget 10 ms)")

    # one attacker against every other token with the cap, as Tactics.targets(charges=True)
    tot, tot_c, poss = [], [], []
    for a in (0, 7, 33):
        nav.charge_trees.clear()
        nav.charge_seen.clear()
        t, c = time.perf_counter(), time.process_time()
        plans = plan_charges(nav, toks[a, :2], toks[a, 2], np.delete(toks, a, axis=0), max_movement=mm)
        tot.append(time.perf_counter() - t)
        tot_c.append(time.process_time() - c)
        poss.append(sum(p.possible for p in plans))
    print(f"plan_charges, one attacker vs all {len(toks) - 1} (max_movement={mm:g}): median "
          f"{statistics.median(tot) * 1e3:.0f} ms, cpu {statistics.median(tot_c) * 1e3:.0f} ms "
          f"(attackers 0, 7, 33: {poss} possible)")

    # shortest paths between random token pairs, every other token a disc
    sp, spc, lens, pairs = [], [], [], []
    for _ in range(args.queries):
        i, j = rng.choice(len(toks), 2, replace=False)
        others = np.delete(toks, [i, j], axis=0)
        t, c = time.perf_counter(), time.process_time()
        res = nav.shortest_path(toks[i, :2], toks[j, :2], toks[i, 2], discs=others)
        sp.append(time.perf_counter() - t)
        spc.append(time.process_time() - c)
        pairs.append((i, j))
        lens.append(None if res is None else res.length)
    d = [math.dist(toks[i, :2], toks[j, :2]) for i, j in pairs]
    print(f"shortest_path, random pairs (median {statistics.median(d):.0f} m apart): {ms(sp)}, cpu {cpu_med(spc)}")
    sp30, sp30c = [], []
    for _ in range(args.queries):
        i = int(rng.integers(len(toks)))
        dist = np.hypot(*(toks[:, :2] - toks[i, :2]).T)
        cand = np.flatnonzero((dist > 1) & (dist <= 30))
        if len(cand) == 0:
            continue
        j = int(rng.choice(cand))
        others = np.delete(toks, [i, j], axis=0)
        t, c = time.perf_counter(), time.process_time()
        nav.shortest_path(toks[i, :2], toks[j, :2], toks[i, 2], discs=others)
        sp30.append(time.perf_counter() - t)
        sp30c.append(time.process_time() - c)
    print(f"shortest_path, pairs within 30 m:  {ms(sp30)}, cpu {cpu_med(sp30c)}")

    # single searches without a cap (no shared tree), at any range
    single, single_c = [], []
    for _ in range(args.queries):
        i = int(rng.integers(len(toks)))
        dist = np.hypot(*(toks[:, :2] - toks[i, :2]).T)
        j = int(rng.choice(np.flatnonzero(dist > 1)))
        others = np.delete(toks, [i, j], axis=0)
        nav.charge_trees.clear()
        nav.charge_seen.clear()
        t, c = time.perf_counter(), time.process_time()
        plan_charge(nav, toks[i, :2], toks[i, 2], toks[j, :2], toks[j, 2], discs=others)
        single.append(time.perf_counter() - t)
        single_c.append(time.process_time() - c)
    print(f"plan_charge without a cap, single search, any range: {ms(single)}, cpu {cpu_med(single_c)}")

    sl = []
    for _ in range(args.queries):
        i = int(rng.integers(len(toks)))
        others = np.delete(toks, [i], axis=0)
        t = time.perf_counter()
        slide(nav, toks[i, :2], toks[i, 2], float(rng.uniform(0, 360)), float(rng.uniform(1, 6)), discs=others)
        sl.append(time.perf_counter() - t)
    print(f"slide (shove 1-6 m): {ms(sl)}")

    # reference: a denser graph (4x the pair budget)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"(load average {load:.2f} after the timings)")
    t = time.perf_counter()
    ref = Navigator(polys, bounds=bounds, pair_budget=4 * PAIR_BUDGET)
    ref.prepare(0.4)
    t_ref = time.perf_counter() - t
    ratios = []
    for (i, j), L in zip(pairs, lens):
        if L is None or toks[i, 2] != 0.4:
            continue
        others = np.delete(toks, [i, j], axis=0)
        r = ref.shortest_path(toks[i, :2], toks[j, :2], toks[i, 2], discs=others)
        if r is not None:
            ratios.append(L / r.length)
    if ratios:
        print(f"reference graph (4x pair budget, built in {t_ref * 1e3:.0f} ms): default path length / "
              f"reference = median {statistics.median(ratios):.4f}, max {max(ratios):.4f} over {len(ratios)} paths")


if __name__ == "__main__":
    main()
