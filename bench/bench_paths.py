"""Benchmark of geometry.paths on the seeded bench scene (bench/scene.py): 2,000 obstacles and
200 tokens on a 300 m map.

    python bench/bench_paths.py [--seed 1] [--queries 60]

Prints medians (milliseconds) of:
  * graph build for one radius (the "indexing" of movement; once per obstacle set and radius),
  * shortest_path between random pairs of tokens (other tokens as discs to walk around),
  * plan_charge, one attacker against every other token: the first TREE_AFTER calls are
    single A* searches, later calls by the same mover share a shortest-path tree grown on
    demand (all included in the "all targets" total); and plan_charges, the batch form,
  * plan_charge as single searches (no shared tree) at targets within 30 m, the range a
    charge is actually declared at, and at any range,
  * slide (a shove),
and, as a reference, the same shortest paths on a graph with a 4x larger pair budget
(how far the default's length-limited edges are from a denser graph).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import shapely

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from geometry.paths import PAIR_BUDGET, TREE_AFTER, Navigator, plan_charge, plan_charges, slide  # noqa: E402


def _scene(seed: int):
    """(polygons, bounds, tokens (n, 3) x y r) from bench/scene.py's generator."""
    from bench.scene import make_scene

    enc = make_scene(seed)
    polys = [shapely.Polygon(o.polygon) for o in enc.obstacles if o.blocks]
    toks = np.array([(t.x, t.y, t.radius) for t in enc.tokens], dtype=float)
    return polys, (0.0, 0.0, enc.map.width, enc.map.height), toks


def d_all(toks, a):
    return np.hypot(*(np.delete(toks, a, axis=0)[:, :2] - toks[a, :2]).T).tolist()


def cpu_med(xs) -> str:
    return f"{statistics.median(xs) * 1e3:.2f} ms"


def ms(xs) -> str:
    return f"{statistics.median(xs) * 1e3:8.2f} ms (median of {len(xs)}, max {max(xs) * 1e3:.1f})"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--queries", type=int, default=60)
    args = ap.parse_args(argv)
    polys, bounds, toks = _scene(args.seed)
    rng = np.random.default_rng(args.seed)
    print(f"scene: {len(polys)} obstacles, {len(toks)} tokens, map {bounds[2]:g} x {bounds[3]:g} m")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"(load average {load:.2f} on {os.cpu_count()} cores before the run: other work inflates wall times)")

    t = time.perf_counter()
    nav = Navigator(polys, bounds=bounds)
    t_nav = time.perf_counter() - t
    builds = []
    for r in (0.4, 0.5):
        t, c = time.perf_counter(), time.process_time()
        nav.prepare(r)
        builds.append(time.perf_counter() - t)
        c = time.process_time() - c
        n, e, L = nav.graph_size(r)
        print(f"graph r={r}: {n} corners, {e} edges, median edge limit {L:.1f} m, "
              f"built in {builds[-1] * 1e3:.0f} ms (cpu {c * 1e3:.0f} ms)")
    print(f"graph build (index) per radius: {ms(builds)}  (+{t_nav * 1e3:.0f} ms Navigator)")

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
    near = [k for k, (i, j) in enumerate(pairs) if d[k] <= 30]
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

    # one attacker against every other token, as Tactics.targets asks them
    a = 0
    per, cpu, possible = [], [], 0
    t_all = time.perf_counter()
    for j in range(1, len(toks)):
        others = np.delete(toks, [a, j], axis=0)
        t, c = time.perf_counter(), time.process_time()
        plan = plan_charge(nav, toks[a, :2], toks[a, 2], toks[j, :2], toks[j, 2], discs=others)
        per.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        possible += plan.possible
    t_all = time.perf_counter() - t_all
    k = TREE_AFTER
    print(f"plan_charge, one attacker vs all {len(toks) - 1} targets (median {statistics.median(d_all(toks, a)):.0f} m "
          f"away): {ms(per)}, cpu {statistics.median(cpu) * 1e3:.2f} ms; total {t_all * 1e3:.0f} ms = "
          f"{t_all / (len(toks) - 1) * 1e3:.2f} ms per target; first {k} single searches "
          f"{sum(per[:k]) * 1e3:.0f} ms, then a shared tree; {possible} possible")
    t, c = time.perf_counter(), time.process_time()
    plans = plan_charges(nav, toks[7, :2], toks[7, 2], np.delete(toks, 7, axis=0))
    t_b, c_b = time.perf_counter() - t, time.process_time() - c
    print(f"plan_charges (batch), attacker 7 vs all {len(plans)}: {t_b * 1e3:.0f} ms, cpu {c_b * 1e3:.0f} ms "
          f"= {c_b / len(plans) * 1e3:.1f} ms cpu per target ({sum(p.possible for p in plans)} possible)")

    # single searches (no shared tree)
    single, single30 = [], []
    cpu_of = {id(single): [], id(single30): []}
    for k in range(args.queries):
        i = int(rng.integers(len(toks)))
        dist = np.hypot(*(toks[:, :2] - toks[i, :2]).T)
        for pool, out in ((np.flatnonzero(dist > 1), single), (np.flatnonzero((dist > 1) & (dist <= 30)), single30)):
            if len(pool) == 0:
                continue
            j = int(rng.choice(pool))
            others = np.delete(toks, [i, j], axis=0)
            nav._trees.clear()
            nav._charge_seen.clear()
            t, c = time.perf_counter(), time.process_time()
            plan_charge(nav, toks[i, :2], toks[i, 2], toks[j, :2], toks[j, 2], discs=others)
            out.append(time.perf_counter() - t)
            cpu_of[id(out)].append(time.process_time() - c)
    print(f"plan_charge, single search, target within 30 m: {ms(single30)}, cpu {cpu_med(cpu_of[id(single30)])}")
    print(f"plan_charge, single search, any range:          {ms(single)}, cpu {cpu_med(cpu_of[id(single)])}")

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
    del near


if __name__ == "__main__":
    main()
