"""Universal VTT imports stay bounded: a map that repeats its walls thousands of times (fuzz
case 3002:uvtt:1542, 8.4 MB: one 40-point wall 6,000 times; its import took over 10 s of CPU)
imports as the walls it has, once each, and what follows the repeats is still read. The
work is counted (tests/engine/importers/_helpers.py UvttWork), not timed: bench/bench_bounds.py
prints the CPU seconds of these cases."""

from __future__ import annotations

import json

from engine.files import load_encounter
from engine.importers import uvtt
from engine.importers.images import save_with_images
from engine.importers.uvtt import import_uvtt
from tests.engine.importers._helpers import UvttWork

WALL = [{"x": 2, "y": 2}, {"x": 8, "y": 2}, {"x": 8, "y": 6}]
OTHER = [{"x": 2, "y": 8}, {"x": 6, "y": 8}]
BOX = [{"x": 12, "y": 12}, {"x": 14, "y": 12}, {"x": 14, "y": 14}, {"x": 12, "y": 14}, {"x": 12, "y": 12}]


def _map(tmp_path, walls, objects=()):
    data = {"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 20, "y": 20},
                                          "pixels_per_grid": 64},
            "line_of_sight": walls, "objects_line_of_sight": list(objects), "portals": [], "lights": []}
    p = tmp_path / "repeats.dd2vtt"
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def test_repeated_walls_are_imported_once_with_one_warning(tmp_path, monkeypatch):
    work = UvttWork(monkeypatch)
    once, _ = import_uvtt(_map(tmp_path, [WALL, OTHER], [BOX]))
    done_once = vars(work).copy()
    work.reset()
    # the same wall 3,000 times forwards and 3,000 backwards, the other once, the box once
    walls = [WALL] * 3000 + [WALL[::-1]] * 3000 + [OTHER]
    enc, report = import_uvtt(_map(tmp_path, walls, [BOX]))
    assert [o.polygon for o in enc.obstacles] == [o.polygon for o in once.obstacles]
    assert sum(o.id.startswith("cover") for o in enc.obstacles) == 1  # the box after the repeats is kept
    repeats = [w for w in report.warnings if "repeat" in w.message]
    assert len(repeats) == 1 and repeats[0].where == "$.line_of_sight"
    assert repeats[0].message.startswith("5,999 polylines repeat one before")
    # (it took over 10 s of CPU when every repeat was merged and made thick): the same work
    # as the map without the repeats
    assert vars(work) == done_once
    assert work.merged_lines == 2 and work.thickened_points <= len(WALL) + len(OTHER) + len(BOX)


def test_repeats_count_towards_the_points_looked_at(tmp_path, monkeypatch):
    # repeats are not kept, so they do not use up the kept-points budget; they are still read,
    # and past MAX_READ_POINTS the rest of the map is skipped with a warning naming the place
    monkeypatch.setattr(uvtt, "MAX_READ_POINTS", 3 * 100)
    enc, report = import_uvtt(_map(tmp_path, [WALL] * 100 + [OTHER], [BOX]))
    skipped = [w for w in report.warnings if "repeats included" in w.message]
    assert [w.where for w in skipped] == ["$.line_of_sight[100]", "$.objects_line_of_sight[0]"]
    assert sum(o.id.startswith("wall") for o in enc.obstacles) >= 1


def test_the_fuzz_case_imports_saves_and_reopens_in_seconds(tmp_path, monkeypatch):
    from tests.fuzz.kinds import make_input

    path, what = make_input("3002:uvtt:1542", tmp_path / "case")
    assert what.endswith("duplicate item of ('line_of_sight',) x6000")
    raw = json.loads(path.read_text(encoding="utf-8"))
    distinct = {tuple((p["x"], p["y"]) for p in pl) for pl in raw["line_of_sight"]}
    distinct = {pl for pl in distinct if pl[::-1] not in distinct or pl <= pl[::-1]}
    work = UvttWork(monkeypatch)
    enc, report = import_uvtt(path)
    saved, _ = save_with_images(enc, tmp_path / "out.json")
    assert load_encounter(tmp_path / "out.json") == saved
    assert len(enc.obstacles) == 14  # the sample's own walls and cover (as imported unmutated)
    assert [w.message[:33] for w in report.warnings] == ["6,000 polylines repeat one before"]
    # it took over 10 s of CPU when the 6,000 copies were merged and made thick: only the
    # file's distinct walls are (len(raw) is 6,000 more)
    assert len(raw["line_of_sight"]) >= len(distinct) + 6000
    assert work.merged_lines <= len(distinct)
    assert work.merged_points <= sum(map(len, distinct))


def test_a_million_points_are_read_at_once_and_a_bad_one_is_still_named(tmp_path, monkeypatch):
    # fuzz case 4020:uvtt:2853: 985,000 points (984 copies of a 1,000-point wall) took 3.3 s
    # of CPU to read one by one; plain numbers are now converted a polyline at a time. And
    # 200 such walls zig-zagging by 1.5 cm took 52 s to make thick (GEOS buffer, then cut in
    # halves ~15 times for specks of holes): simplified within 2 cm, one obstacle each
    wall = [{"x": 1 + (i % 500) * 0.01, "y": 1 + (i % 2) * 0.01 + i // 500} for i in range(1000)]
    walls = [[{"x": p["x"] + k * 1e-3, "y": p["y"]} for p in wall] for k in range(200)]  # 200,000 distinct points
    work = UvttWork(monkeypatch)
    enc, report = import_uvtt(_map(tmp_path, walls))
    assert len(enc.obstacles) == 200
    # read a polyline at a time: none of the 200,000 points one by one (only the map's
    # origin and size)
    assert work.points_read_one_by_one <= 2
    # made thick as simplified within 2 cm: a few points a wall, not its 1,000 zig-zags
    assert any("simplified within 2 cm" in n for n in report.summary)
    assert work.thickened_points <= 200 * 10, work.thickened_points
    bad = [dict(p) for p in wall]
    bad[7]["y"] = True  # a bool is no number, as before
    bad[9]["x"] = float("nan")
    _, report = import_uvtt(_map(tmp_path, [bad, WALL]))
    assert [(w.where, w.message) for w in report.warnings][0] == (
        "$.line_of_sight[0][7].y", "expected a number, got true; this polyline is skipped")
