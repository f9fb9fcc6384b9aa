"""Detailed footprints are simplified at load within the cover tolerance (engine/footprint.py)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import shapely

from engine.errors import EncounterFileError
from engine.files import loads_encounter
from engine.footprint import COVER_TOLERANCE, SIMPLIFY_ABOVE, SIMPLIFY_TOLERANCE, bounded_footprint, circle
from engine.limits import MAX_FOOTPRINT_VERTICES, MAX_POLYGON_POINTS
from engine.report import analyze
from geometry.cover import CoverIndex


def _encounter(polygon, **token):
    return {"format": "coverfire.encounter", "version": 1, "map": {"width": 60, "height": 40},
            "obstacles": [{"id": "pillar", "height": 3.0, "polygon": [list(p) for p in polygon]}],
            "tokens": [{"id": "a", "x": 5.0, "y": 20.0}, {"id": "b", "x": 40.0, "y": 20.3},
                       {"id": "c", "x": 25.0, "y": 5.0}]}


def test_a_round_pillar_of_10000_points_keeps_about_a_hundred_within_one_millimetre():
    raw = circle(20.0, 20.0, 1.0, 10_000)
    kept = bounded_footprint(raw)
    # a chord of a 1 m circle bows 1 mm at an angle of 2 acos(0.999) = 5.1 degrees: >= 71 sides
    assert 71 <= len(kept) <= 200
    # every kept vertex is an original one, and the outlines lie within the tolerance
    assert set(kept) <= set(raw)
    d = shapely.Polygon(raw).hausdorff_distance(shapely.Polygon(kept))
    assert d <= SIMPLIFY_TOLERANCE + 1e-12


def test_small_footprints_are_kept_exactly():
    square = ((0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (0.0, 1.0))
    assert bounded_footprint(square) == square
    sixty = circle(0, 0, 5, SIMPLIFY_ABOVE)
    assert bounded_footprint(sixty) == sixty


@pytest.mark.parametrize("height", [3.0, 1.0])  # taller than the eye (1.6 m) and lower
def test_cover_behind_a_simplified_pillar_stays_within_the_cover_tolerance(height):
    raw = shapely.Polygon(circle(0.0, 0.0, 0.5, 2_000))  # (cover of 10,000 takes 20 s)
    kept = shapely.Polygon(bounded_footprint(raw.exterior.coords[:-1]))
    full, simple = CoverIndex([raw], [height]), CoverIndex([kept], [height])
    worst = 0.0
    for eye_d in (1.5, 3.0, 10.0, 30.0):
        for k in range(6):
            a = 2 * math.pi * k / 6 + 0.1
            eye = (-eye_d * math.cos(a), -eye_d * math.sin(a))
            # targets behind the pillar, sweeping across the shadow's edges
            along = np.array([0.95, 2.0, 5.0, 20.0])
            across = np.linspace(-1.5, 1.5, 31)
            pts = []
            for s in along:
                for q in across:
                    pts.append((s * math.cos(a) - q * math.sin(a), s * math.sin(a) + q * math.cos(a)))
            pts = np.array(pts)
            f1 = full.cover_fractions(eye, 1.6, pts, 0.4, 1.8)
            f2 = simple.cover_fractions(eye, 1.6, pts, 0.4, 1.8)
            assert f1.max() > 0.3  # the sweep does pass through the shadow
            worst = max(worst, float(np.abs(f1 - f2).max()))
    assert worst <= COVER_TOLERANCE, worst


def test_a_10000_point_pillar_analyses_fast_and_50000_loads(monkeypatch):
    # Analysing the unsimplified pillar took 16 s: the cover index and the movement graphs
    # worked on all its 10,000 vertices. The work is bounded by what they hold: at most the
    # kept footprint's vertices (bench/bench_bounds.py times it).
    import engine.report

    made = []

    class Recorded(engine.report.Tactics):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)

    monkeypatch.setattr(engine.report, "Tactics", Recorded)
    enc = loads_encounter(json.dumps(_encounter(circle(22.0, 20.0, 1.0, 10_000))))
    kept = len(enc.obstacles[0].polygon)
    assert kept <= 200
    reports = analyze(enc)
    [tactics] = made
    # the cover index: the kept ring (closed) and nothing more
    assert int(shapely.get_num_coordinates(tactics.cover_index.polygons).sum()) == kept + 1
    # the movement graph of the tokens' bodies: corners of the kept ring (grown by the
    # body's radius) and of the map's edge, not of the 10,000 read
    corners, edges, _ = tactics.navigator.graph_size(enc.tokens[0].radius)
    assert corners <= kept + 8 and edges <= (kept + 8) ** 2
    cover = {t["id"]: t["cover"]["fraction"] for t in reports[0]["targets"]}
    assert cover["b"] > 0.5  # b stands right behind the pillar from a
    big = loads_encounter(json.dumps(_encounter(circle(22.0, 20.0, 1.0, 50_000))))
    assert len(big.obstacles[0].polygon) <= 200


def test_a_footprint_too_detailed_even_simplified_is_refused_with_its_path():
    # a zig-zag of 1 m teeth: nothing to simplify within 1 mm
    n = MAX_FOOTPRINT_VERTICES // 2 + 10
    top = [(i * 0.5, 1.0 if i % 2 else 0.0) for i in range(2 * n)]
    poly = top + [(top[-1][0], -5.0), (0.0, -5.0)]
    with pytest.raises(EncounterFileError) as err:
        loads_encounter(json.dumps(_encounter([(x + 1, y + 10) for x, y in poly])), file="zig.json")
    assert err.value.path == "$.obstacles[0].polygon"
    assert "split it into several obstacles" in str(err.value)
    assert str(err.value).startswith("zig.json: at $.obstacles[0].polygon:")


def test_a_polygon_of_more_points_than_read_is_refused_before_any_geometry():
    pts = circle(20, 20, 1, MAX_POLYGON_POINTS + 1)
    with pytest.raises(EncounterFileError) as err:
        loads_encounter(json.dumps(_encounter(pts)))
    assert err.value.path == "$.obstacles[0].polygon"
    assert f"{MAX_POLYGON_POINTS + 1:,} points" in err.value.reason


def test_a_50000_point_zigzag_is_refused_at_once(monkeypatch):
    n = 50_000
    pts = [(10 + (5 if i % 2 else 3) * math.cos(2 * math.pi * i / n), 10 + (5 if i % 2 else 3) * math.sin(2 * math.pi * i / n))
           for i in range(n)]
    # GEOS's validity check alone took 3.2 s on it: refused before any Shapely geometry of
    # more than 4 x MAX_FOOTPRINT_VERTICES points is made (the thinning is a bounded number
    # of numpy passes, never recursive)
    import engine.footprint

    made = []
    real = shapely.Polygon

    def counted(shell=None, *a, **k):
        made.append(len(shell) if shell is not None else 0)
        return real(shell, *a, **k)

    monkeypatch.setattr(engine.footprint.shapely, "Polygon", counted)
    with pytest.raises(ValueError, match="still 50,000 after simplifying within 1 mm"):
        bounded_footprint(pts)
    assert all(n <= 4 * MAX_FOOTPRINT_VERTICES for n in made), made


@pytest.mark.slow  # (5 s of work on a quiet machine: past the 60 s timeout at load 25)
def test_thin_moves_an_outline_at_most_its_tolerance_and_never_recurses():
    from engine.footprint import thin

    rng = np.random.default_rng(5)
    a = np.linspace(0, 2 * np.pi, 20_000, endpoint=False)
    r = 3.0 + 0.002 * rng.standard_normal(a.size)  # a rough round wall: 2 mm noise
    ring = np.c_[r * np.cos(a), r * np.sin(a)]
    kept = thin(ring, 0.004)
    assert len(kept) < 0.6 * len(ring)  # (measured 10,774 of 20,000)
    assert shapely.Polygon(ring).hausdorff_distance(shapely.Polygon(kept)) <= 0.004 + 1e-12
    line = [(i * 0.01, (i % 2) * 0.01) for i in range(200_000)]  # GEOS simplify segfaults on this
    assert len(thin(line, 0.001, closed=False)) == 200_000  # 1 cm teeth: nothing within 1 mm
    assert len(thin(line, 0.04, closed=False)) < 20


def test_repeated_points_are_dropped_so_a_saved_footprint_reloads_the_same():
    square = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)]
    assert bounded_footprint(square + [(0.0, 0.0)] * 10) == tuple(square)  # (fuzz 3:encounter:394)
    assert bounded_footprint([(0.0, 0.0), (0.0, 0.0), (2.0, 0.0), (2.0, 0.0), (2.0, 2.0)]) == (
        (0.0, 0.0), (2.0, 0.0), (2.0, 2.0))
    assert bounded_footprint(bounded_footprint(square * 3)) == bounded_footprint(square * 3)
