"""The bench's scene generator and runner at a small size, so neither rots.

The real bench (200 tokens, 2,000 obstacles) is run by hand: ``python bench/bench_engine.py``."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from bench.bench_engine import report, run
from bench.scene import make_scene


def test_scene_is_seeded_and_sane():
    a = make_scene(3, tokens=15, obstacles=80, size=60.0)
    b = make_scene(3, tokens=15, obstacles=80, size=60.0)
    assert a == b
    assert make_scene(4, tokens=15, obstacles=80, size=60.0) != a
    assert len(a.tokens) == 15 and 70 <= len(a.obstacles) <= 80
    heights = {o.height for o in a.obstacles}
    assert min(heights) < 1.6 < max(heights)  # low and tall cover both occur
    blocked = shapely.union_all([shapely.Polygon(o.polygon) for o in a.obstacles])
    for t in a.tokens:
        assert blocked.distance(shapely.Point(t.x, t.y)) >= t.radius
        assert 0 < t.x < 60 and 0 < t.y < 60
    xy = np.array([(t.x, t.y) for t in a.tokens])
    r = np.array([t.radius for t in a.tokens])
    d = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    assert (d >= r[:, None] + r[None, :]).all()
    assert {z.kind for z in a.zones} >= {"suppressive", "shotgun", "blast"}


def test_bench_runs_small():
    lines = []
    res = run(seed=2, tokens=12, obstacles=60, size=50.0, attackers=3, repeats=1, charges=2,
              naive_attackers=2, log=lines.append)
    assert lines and lines[0].startswith("scene: seed 2, 12 tokens, 60 obstacles")
    # the counts are the seeded scene's, the same on every machine
    assert res["obstacles_made"] == 60 and res["radii"] == [0.4, 0.5]
    assert (res["charges"], res["charges_possible"]) == (2, 2)
    assert (res["charges_all_n"], res["charges_all_possible"]) == (11, 9)
    assert (res["compared"], res["partial_compared"]) == (107, 15)
    # the fast cover agrees with the naive shadow union on every target
    assert res["agree_max"] <= 1e-9 and res["agree_class"] == 1.0
    # every timing was measured (positive, finite) and the ratio is the one of the medians
    for key in ("index_s", "navigator_s", "targets_ms", "cover_ms", "zones_ms", "charge_ms", "naive_ms", "naive_fast_ms"):
        assert 0 < res[key] < 60_000, (key, res[key])
    assert res["targets_min_ms"] <= res["targets_ms"] <= res["targets_max_ms"]
    assert res["ratio"] == res["naive_ms"] / res["naive_fast_ms"]
    out = []
    report(res, log=out.append)
    assert any("agreement over 107 targets (15 partly hidden)" in x and "same class 100.0 %" in x for x in out)
    assert any(f"{res['ratio']:.0f}x faster" in x for x in out)


def test_scene_doors_and_sizes_keep_the_bench_density():
    from bench.scene import scene_size

    assert scene_size(2000) == 300.0 and scene_size(8000) == 600.0 and scene_size(10000) == 671.0
    plain = make_scene(3, tokens=15, obstacles=80, size=60.0)
    with_doors = make_scene(3, tokens=15, obstacles=80, size=60.0, doors=4)
    assert with_doors.obstacles[:len(plain.obstacles)] == plain.obstacles and with_doors.tokens == plain.tokens
    doors = with_doors.obstacles[len(plain.obstacles):]
    assert len(doors) == 4 and all(o.door and not o.open and o.blocks for o in doors)
    walls = shapely.union_all([shapely.Polygon(o.polygon) for o in plain.obstacles])
    for d in doors:
        assert shapely.Polygon(d.polygon).distance(walls) >= 0.3
        assert shapely.Polygon(d.polygon).area == pytest.approx(1.2 * 0.2, rel=1e-2)


def test_scaling_exponent_fits_a_power_law():
    from bench.bench_scaling import exponent

    sizes = [500, 2000, 8000, 16000]
    assert exponent(sizes, [3.0 * s for s in sizes]) == pytest.approx(1.0)
    assert exponent(sizes, [2.0 * s ** 0.5 for s in sizes]) == pytest.approx(0.5)
