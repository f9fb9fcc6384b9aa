"""Universal VTT maps as real exports make them (issue #17 items 1-2, #15 importer faults):
cropped exports, windows, numbers beyond float range, unsaveable copied fields, huge walls.

A point (x, y) in cells is ((x - ox) * cell, (y - oy) * cell) metres; walls are 0.15 m wide.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
import shapely

from engine.analysis import Tactics
from engine.files import dumps_encounter, load_encounter, loads_encounter
from engine.importers.images import save_with_images
from engine.importers.uvtt import MAX_POLYLINE_POINTS, import_uvtt
from engine.model import Token
from tests.engine.importers._helpers import UvttWork

HALF = 0.075


def _pt(x, y):
    return {"x": x, "y": y}


def _write(tmp_path: Path, data, name="m.dd2vtt") -> Path:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def _cropped_export() -> dict:
    """A 10 x 12 cell crop of a larger level, origin (20, 30): one wall inside, one crossing
    the east edge, one wholly off the map far to the west (as Dungeondraft keeps them), a
    door inside, a door far off the map, and a window (an open portal) inside."""
    return {
        "format": 0.3,
        "resolution": {"map_origin": _pt(20, 30), "map_size": _pt(10, 12), "pixels_per_grid": 50},
        "line_of_sight": [
            [_pt(22, 32), _pt(26, 32)],            # inside: (3, 3)-(9, 3) m
            [_pt(28, 35), _pt(34, 35)],            # crosses x = 10 cells, runs to 14 cells
            [_pt(-20, 31), _pt(-10, 31)],          # x = -40 .. -30 cells: wholly off
        ],
        "objects_line_of_sight": [[_pt(-30, 40), _pt(-29, 40), _pt(-29, 41), _pt(-30, 41), _pt(-30, 40)]],
        "portals": [
            {"position": _pt(24, 34), "bounds": [_pt(24, 33.5), _pt(24, 34.5)], "rotation": 1.5708,
             "closed": True, "freestanding": False},
            {"position": _pt(-5, 31), "bounds": [_pt(-5, 30.5), _pt(-5, 31.5)], "rotation": 0,
             "closed": True, "freestanding": False},
            {"position": _pt(25, 40), "bounds": [_pt(24.5, 40), _pt(25.5, 40)], "rotation": 0,
             "closed": False, "freestanding": False},
        ],
        "lights": [],
        "image": "",
    }


def test_a_cropped_export_keeps_what_lies_on_the_map_and_cuts_at_one_cell(tmp_path):
    enc, rep = import_uvtt(_write(tmp_path, _cropped_export()), cell_size=1.5)
    assert (enc.map.width, enc.map.height) == (15.0, 18.0)
    ids = [o.id for o in enc.obstacles]
    # Kept: the inside wall, the east wall cut at the margin, the inside door and the window.
    # Dropped: the west wall, the far door and the far object (3 shapes).
    assert ids == ["wall-1", "wall-2", "door-1", "window-1"]
    inside, east = enc.obstacles[0], enc.obstacles[1]
    assert shapely.Polygon(inside.polygon).bounds == pytest.approx((3.0, 3.0 - HALF, 9.0, 3.0 + HALF), abs=1e-6)
    # The east wall runs (8, 5)..(14, 5) cells from the origin = 12..21 m; the map is 15 m
    # wide and the margin one cell (1.5 m): cut at x = 16.5 m.
    assert shapely.Polygon(east.polygon).bounds == pytest.approx((12.0, 7.5 - HALF, 16.5, 7.5 + HALF), abs=1e-6)
    assert all(max(x for x, _ in o.polygon) <= 16.5 + 1e-9 and min(x for x, _ in o.polygon) >= -1.5 - 1e-9
               for o in enc.obstacles)
    assert enc.imported["cropped"] == {"margin": 1.5, "dropped": 3, "cut": 1}
    text = "\n".join(rep.lines())
    assert "cropped export: 3 shapes lying wholly more than 1 cell (1.5 m) outside the map dropped, 1 cut" in text


def test_open_portals_are_windows_that_block_movement_up_to_the_sill(tmp_path):
    enc, rep = import_uvtt(_write(tmp_path, _cropped_export()), cell_size=1.5, window_sill=0.9)
    door, window = enc.obstacle("door-1"), enc.obstacle("window-1")
    assert door.door and not door.open and door.height == 3.0 and door.kind is None
    assert window.kind == "window" and not window.door and window.blocks
    assert window.height == 0.9  # the sill is the height: cover up to it, sight above it
    # (24.5, 40)-(25.5, 40) cells -> x 6.75..8.25 m, y 15 m; 0.15 m thick.
    assert shapely.Polygon(window.polygon).bounds == pytest.approx((6.75, 15 - HALF, 8.25, 15 + HALF), abs=1e-6)
    assert enc.imported["window_sill"] == 0.9
    assert "1 window (open portals): they block movement and give cover up to the 0.9 m sill" in "\n".join(rep.lines())
    # A saved window loads back a window.
    back = loads_encounter(dumps_encounter(enc))
    assert back.obstacle("window-1").kind == "window"


def test_windows_block_a_charge_through_them(tmp_path):
    from engine.analysis import Tactics

    data = {
        "format": 1.0,
        "resolution": {"map_origin": _pt(0, 0), "map_size": _pt(6, 6), "pixels_per_grid": 10},
        # A wall across the map at y = 3 cells with a one-cell window in it at x = 2..3.
        "line_of_sight": [[_pt(0, 3), _pt(2, 3)], [_pt(3, 3), _pt(6, 3)]],
        "portals": [{"position": _pt(2.5, 3), "bounds": [_pt(2, 3), _pt(3, 3)], "rotation": 0, "closed": False}],
        "image": "",
    }
    enc, _ = import_uvtt(_write(tmp_path, data), cell_size=1.0)
    assert [o.id for o in enc.obstacles if o.kind == "window"] == ["window-1"]
    tokens = (Token(id="a", x=2.5, y=1.0), Token(id="b", x=2.5, y=5.0))
    through_window = enc.model_copy(update={"tokens": tokens})
    plan = Tactics(through_window).charge("a", "b", runup=0.5, max_movement=100.0)
    # The wall spans the map: with the window closed to movement there is no way at all.
    assert not plan.possible
    # The old import made it an open door (a hole): the charge ran straight through, 4 m less
    # the two radii and the reach.
    as_hole = through_window.model_copy(update={"obstacles": tuple(
        o.model_copy(update={"kind": None, "door": True, "open": True}) if o.kind == "window" else o
        for o in through_window.obstacles)})
    hole_plan = Tactics(as_hole).charge("a", "b", runup=0.5, max_movement=100.0)
    assert hole_plan.possible and hole_plan.movement <= 4.0 - 0.8 + 1e-6


def test_integers_beyond_float_range_are_reported_not_a_crash(tmp_path):
    big = 10 ** 400
    data = _cropped_export()
    data["format"] = big
    data["line_of_sight"].append([_pt(1, big), _pt(2, 2)])
    data["lights"] = [{"position": _pt(21, 31), "range": big, "color": "ffffffff"}]
    data["resolution"]["pixels_per_grid"] = big
    enc, rep = import_uvtt(_write(tmp_path, data), cell_size=1.5)
    wheres = {w.where for w in rep.warnings}
    assert "$.format" in wheres and "$.line_of_sight[3][0].y" in wheres and "$.lights[0].range" in wheres
    assert "$.resolution.pixels_per_grid" in wheres
    assert all(len(w.message) < 300 for w in rep.warnings)  # never the 400 digits
    assert enc.lights == ()  # a light without a usable range lights nothing: skipped, with the warning


def test_unknown_fields_deeper_than_the_loader_reads_are_left_out_and_the_import_reopens(tmp_path):
    deep: object = 1
    for _ in range(150):
        deep = [deep]
    data = _cropped_export()
    data["deep_thing"] = deep
    data["software"] = "Dungeondraft"
    data["nan_field"] = float("nan")
    data["half_emoji"] = "\ud83d"
    data["lights"] = [{"position": _pt(21, 31), "range": 4, "color": "ffffffff", "weird": float("inf")}]
    path = _write(tmp_path, json.dumps(data))  # json writes NaN / Infinity, Python reads them back
    enc, rep = import_uvtt(path, cell_size=1.5)
    unknown = enc.imported["unknown_fields"]
    assert unknown["software"] == "Dungeondraft"
    assert "nan_field" not in unknown and "weird" not in enc.lights[0]
    assert unknown["half_emoji"] == "\ufffd"
    # The deep list is kept to 20 levels, the rest left out with a warning at its path.
    depth, v = 0, unknown["deep_thing"]
    while isinstance(v, list):
        depth, v = depth + 1, (v[0] if v else None)
    assert depth == 19  # levels 1..19 below unknown_fields; the 20th and deeper left out
    assert any(w.where and w.where.startswith("$.deep_thing") for w in rep.warnings)
    # import -> save -> reload: equal.
    out = tmp_path / "fight.json"
    saved, _files = save_with_images(enc, out)
    assert load_encounter(out) == saved
    assert "null" not in out.read_text(encoding="utf-8")


def test_a_wall_of_20000_points_imports_quickly_with_a_reason(tmp_path, monkeypatch):
    rnd = random.Random(7)
    wild = [_pt(rnd.uniform(0, 20), rnd.uniform(0, 20)) for _ in range(20_000)]
    circle = [_pt(10 + 5 * math.cos(2 * math.pi * i / 20_000), 10 + 5 * math.sin(2 * math.pi * i / 20_000))
              for i in range(20_000)]
    data = {"format": 0.3, "resolution": {"map_origin": _pt(0, 0), "map_size": _pt(20, 20), "pixels_per_grid": 10},
            "line_of_sight": [wild, circle], "image": ""}
    work = UvttWork(monkeypatch)
    enc, rep = import_uvtt(_write(tmp_path, data), cell_size=1.5)
    # (22 s and 2.7 GB when the 40,000 points were made thick; 0.5 s now, bench/bench_bounds.py):
    # each polyline brought under MAX_POLYLINE_POINTS before, pieces no longer than that
    assert work.merged_points <= 2 * MAX_POLYLINE_POINTS
    assert work.largest_thickened <= MAX_POLYLINE_POINTS
    assert work.thickened_points <= 2 * MAX_POLYLINE_POINTS + 2 * work.thickened
    msgs = {w.where: w.message for w in rep.warnings}
    # The circle simplifies within 1 cm; the random zigzag does not and is thinned evenly.
    assert "simplified to" in msgs["$.line_of_sight[1]"] and "within 1 cm" in msgs["$.line_of_sight[1]"]
    assert f"thinned to {MAX_POLYLINE_POINTS:,} evenly spaced points" in msgs["$.line_of_sight[0]"]
    assert sum(len(o.polygon) for o in enc.obstacles) < 20_000
    # The circle alone: the simplified ring stays within 1 cm of the true one (radius 7.5 m
    # at (15, 15)), plus the wall's half width and the mitre of its short segments.
    data["line_of_sight"] = [circle]
    enc, rep = import_uvtt(_write(tmp_path, data), cell_size=1.5)
    assert len(enc.obstacles) == 2  # a closed ring: two halves
    radii = [math.hypot(x - 15, y - 15) for o in enc.obstacles for x, y in o.polygon]
    assert min(radii) >= 7.5 - HALF - 0.011 - 1e-3 and max(radii) <= 7.5 + HALF + 0.011 + 1e-3


def test_values_past_the_encounter_limits_are_cleaned_not_a_refused_map(tmp_path):
    # Found by fuzzing: a surrogate in "format", 1e308 in the environment, a light with a
    # 300-character name, an image path too long for the file system.
    data = _cropped_export()
    data["format"] = "\ud83d"
    data["environment"] = {"ambient_light": 1e308, "baked_lighting": True}
    data["image"] = "x" * 300 + ".png"
    enc, rep = import_uvtt(_write(tmp_path, json.dumps(data)), cell_size=1.5)
    assert enc.imported["format"] == "\ufffd"
    assert enc.imported["environment"] == {"baked_lighting": True}
    assert any(w.where == "$.environment.ambient_light" for w in rep.warnings)
    assert loads_encounter(dumps_encounter(enc)) == enc


def test_a_zigzag_wall_of_100000_points_does_not_crash_the_interpreter(tmp_path):
    """Fuzzing found GEOS's simplify recursing once a vertex on a zig-zag of 100,000 points
    until the C stack overflowed (a segfault). Run in a child process so a crash fails here."""
    import os
    import subprocess
    import sys

    pts = [_pt((i % 2) * 5.0 + i * 1e-4, i * 1e-4) for i in range(100_000)]
    data = {"format": 0.3, "resolution": {"map_origin": _pt(0, 0), "map_size": _pt(20, 20), "pixels_per_grid": 10},
            "line_of_sight": [pts], "image": ""}
    path = _write(tmp_path, data)
    code = ("import sys; from engine.importers.uvtt import import_uvtt; e, r = import_uvtt(sys.argv[1]); "
            "print(len(e.obstacles), r.warnings[0].message)")
    root = Path(__file__).resolve().parents[3]
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(root)), cwd=str(root))
    assert r.returncode == 0, r.stderr[-500:]
    assert "the polyline has 100,000 points" in r.stdout and "thinned to 1,000 evenly spaced points" in r.stdout
