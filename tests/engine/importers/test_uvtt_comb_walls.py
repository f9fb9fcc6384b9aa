"""Walls drawn as combs (issue 15, "never hang"): 1 m teeth 1.5 cm apart cost GEOS far more
to make thick than their point count says. Chains merged end to end are cut into pieces of
at most MAX_POLYLINE_POINTS before they are made thick, and the thickening has a CPU budget
past which the map is refused with the walls' path."""

from __future__ import annotations

import json

import pytest
import shapely

from engine.errors import ImportFileError
from engine.importers import uvtt
from engine.importers.detect import import_file
from engine.importers.walls import split


def _comb_map(path, lines: int, joined: bool) -> None:
    out, x = [], 0.5
    for k in range(lines):
        y0 = 1.0 if joined else 1.0 + k
        pts = []
        for _ in range(250):  # 250 teeth, 1,000 points
            pts += [(x, y0), (x, y0 + 0.67), (x + 0.005, y0 + 0.67), (x + 0.01, y0)]
            x += 0.01
        if not joined:
            x = 0.5
        line = [{"x": a, "y": b} for a, b in pts]
        if joined and out:
            line.insert(0, out[-1][-1])  # starts where the previous one ended: merged into one chain
        out.append(line)
    path.write_text(json.dumps({"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0},
                                "map_size": {"x": 40, "y": 40}, "pixels_per_grid": 70},
                                "line_of_sight": out, "portals": [], "lights": [], "environment": {}}))


def test_split_cuts_a_long_chain_in_the_middle_of_segments_and_keeps_its_course():
    line = shapely.LineString([(float(i), 0.0 if i % 2 == 0 else 1.0) for i in range(2501)])
    pieces = split(line, 1000)
    assert [len(p.coords) for p in pieces] == [999, 1000, 506]  # start + 997 points + a middle, ...
    # consecutive pieces meet at the middle of a segment, and together they trace the line
    assert pieces[0].coords[-1] == pieces[1].coords[0] == (997.5, 0.5)
    assert sum(p.length for p in pieces) == pytest.approx(line.length)
    short = shapely.LineString([(0, 0), (1, 0)])
    assert split(short, 1000) == [short]


def test_a_chain_of_combs_merged_end_to_end_becomes_walls(tmp_path):
    f = tmp_path / "comb.dd2vtt"
    _comb_map(f, 4, joined=True)  # one chain of 4,003 points
    enc = import_file(f).encounter
    walls = [o for o in enc.obstacles if o.name == "Wall"]
    assert len(walls) >= 3  # made thick in one piece, the chain gave no wall at all
    covered = shapely.union_all([shapely.Polygon(o.polygon) for o in walls])
    # the comb runs from x = 0.5 to 10.5 cells (1.5 m a cell), its teeth from y = 1 to 1.67
    # cells; the wall is 0.15 m thick (half 0.075) and its sharp tips are mitred out to the
    # limit, 5 half-widths (0.375 m)
    x0, y0, x1, y1 = covered.bounds
    assert x0 == pytest.approx(0.75 - 0.075, abs=0.005) and x1 == pytest.approx(15.75 + 0.075, abs=0.005)
    assert y0 == pytest.approx(1.5 - 0.375, abs=0.005) and y1 == pytest.approx(2.505 + 0.375, abs=0.005)


def test_walls_over_the_cpu_budget_are_refused_with_the_path(tmp_path, monkeypatch):
    f = tmp_path / "combs.dd2vtt"
    _comb_map(f, 6, joined=False)
    monkeypatch.setattr(uvtt, "THICKEN_CPU_S", 0.0)  # any thickening is over it
    with pytest.raises(ImportFileError) as err:
        import_file(f)
    msg = str(err.value)
    assert "$.line_of_sight" in msg and "too detailed" in msg and "combs.dd2vtt" in msg
    assert "of 6 wall pieces" in msg
