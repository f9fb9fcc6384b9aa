"""Universal VTT import: the three shared sample maps, checked against their JSON, and broken
files made here.

Coordinates: a point (x, y) in cells becomes ((x - origin_x) * cell, (y - origin_y) * cell)
metres; walls are 0.15 m wide (half-width 0.075 m) with flat ends.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from pathlib import Path

import pytest
import shapely

from engine.errors import CoverfireError, ImportFileError
from engine.files import load_encounter
from engine.importers import images
from engine.importers.images import save_with_images
from engine.importers.uvtt import WALL_THICKNESS, import_uvtt, run_import_map
from engine.importers.walls import CHUNK_SEGMENTS
from tests.engine.importers._helpers import UvttWork, huge_png_header, png_bytes

HALF = WALL_THICKNESS / 2
DD = "uvtt/dd2vtt_importer-test.dd2vtt"
FGU = "uvtt/uvtt2fgu-sampleMap.dd2vtt"
BALLROOM = "uvtt/foundry_to_uvtt-prismatic_ballroom_main.uvtt"


def _json(samples_dir: Path, name: str) -> dict:
    return json.loads((samples_dir / name).read_text(encoding="utf-8"))


def _by_kind(enc):
    walls = [o for o in enc.obstacles if o.id.startswith("wall-")]
    doors = [o for o in enc.obstacles if o.door]
    cover = [o for o in enc.obstacles if o.id.startswith("cover-")]
    return walls, doors, cover


def _bounds(o):
    return shapely.Polygon(o.polygon).bounds


def _assert_walls_cover_the_file(enc, raw: dict, cell: float) -> None:
    """Every wall vertex of the file lies on a wall obstacle, and every obstacle vertex lies
    within a mitred corner's reach (5 half-widths) of a wall polyline: walls are where the
    file says, no more, no less."""
    ox, oy = raw["resolution"]["map_origin"]["x"], raw["resolution"]["map_origin"]["y"]
    walls, _, _ = _by_kind(enc)
    union = shapely.union_all([shapely.Polygon(o.polygon) for o in walls])
    lines = shapely.MultiLineString(
        [[((p["x"] - ox) * cell, (p["y"] - oy) * cell) for p in pl] for pl in raw["line_of_sight"]]
    )
    for pl in raw["line_of_sight"]:
        for p in pl:
            pt = shapely.Point((p["x"] - ox) * cell, (p["y"] - oy) * cell)
            assert union.distance(pt) < 1e-3, (p, union.distance(pt))
    for o in walls:
        for x, y in o.polygon:
            assert lines.distance(shapely.Point(x, y)) <= 5 * HALF + 1e-3


# -- the samples --------------------------------------------------------------------------------


def test_uvtt2fgu_sample_origin_walls_doors_in_metres(samples_dir):
    raw = _json(samples_dir, FGU)
    enc, report = import_uvtt(samples_dir / FGU)  # default 1.5 m a cell
    assert report.ok, report.warnings
    # map_size 10 x 10 cells -> 15 x 15 m; the origin (2, 1) is subtracted.
    assert (enc.map.width, enc.map.height, enc.map.grid) == (15.0, 15.0, 1.5)
    bg = enc.map.background
    assert bg is not None and bg.image.startswith("data:image/png;base64,")
    assert (bg.x, bg.y, bg.width, bg.height) == (0.0, 0.0, 15.0, 15.0)
    walls, doors, cover = _by_kind(enc)
    # 4 polylines: three short ones on x = 7 cells between the doors, and the closed outer
    # square (11,10)-(3,10)-(3,2)-(11,2)-(11,10), which needs two obstacles (no holes).
    assert len(raw["line_of_sight"]) == 4 and len(walls) == 5
    # Polyline 0: (7, 2)-(7, 2.5) cells -> x = (7-2)*1.5 = 7.5, y = (2-1)*1.5 = 1.5 .. 2.25.
    assert any(
        _bounds(w) == pytest.approx((7.5 - HALF, 1.5, 7.5 + HALF, 2.25), abs=1e-6) for w in walls
    )
    # The outer square, 12 m a side centred on its walls: its two halves together are the
    # ring (12 + 0.15)^2 - (12 - 0.15)^2 = 4 * 12 * 0.15 = 7.2 m^2, closed all round.
    ring = [w for w in walls if shapely.Polygon(w.polygon).length > 20]
    assert len(ring) == 2
    u = shapely.union_all([shapely.Polygon(w.polygon) for w in ring])
    assert u.area == pytest.approx(7.2, abs=1e-3)
    assert u.bounds == pytest.approx((1.5 - HALF, 1.5 - HALF, 13.5 + HALF, 13.5 + HALF), abs=1e-6)
    assert len(u.interiors) == 1  # a closed ring: no gap at the cuts
    # Portals: (7,2.5)-(7,3.5) closed: a door; (7,8.619141)-(7,9.380859) open: a window
    # (Dungeondraft marks windows so), 1 m sill, blocking movement, cover up to the sill.
    windows = [o for o in enc.obstacles if o.kind == "window"]
    assert [d.open for d in doors] == [False] and len(windows) == 1
    assert _bounds(doors[0]) == pytest.approx((7.5 - HALF, 2.25, 7.5 + HALF, 3.75), abs=1e-6)
    assert _bounds(windows[0]) == pytest.approx(
        (7.5 - HALF, (8.619141 - 1) * 1.5, 7.5 + HALF, (9.380859 - 1) * 1.5), abs=1e-3
    )
    assert doors[0].blocks and windows[0].blocks and not windows[0].door
    assert windows[0].height == 1.0 and windows[0].id == "window-1" and windows[0].name == "Window"
    assert all(d.height == 3.0 for d in doors)
    assert len(cover) == 1 and cover[0].height == 1.0
    # Lights in metres: (8.570312, 9) cells, range 5 cells = 7.5 m, colour ffeccd8b, intensity 1.
    lights = enc.lights
    assert len(lights) == 2
    assert lights[0].x == pytest.approx((8.570312 - 2) * 1.5)
    assert lights[0].y == pytest.approx((9 - 1) * 1.5)
    assert lights[0].radius == pytest.approx(7.5)
    assert (lights[0].id, lights[0].level, lights[0].on) == ("light-1", "full", True)
    assert lights[0].color == "#eccd8b" and lights[0].alpha == 1.0
    assert lights[0].shadows is True and lights[0].intensity == 1
    assert lights[1].id == "light-2" and lights[1].color == "#4dd569"
    # Ambient ffffffff: full light.
    assert enc.rules["sr5"].environment.light == "full" and enc.sight.light == "full"
    _assert_walls_cover_the_file(enc, raw, 1.5)


def test_dd2vtt_importer_sample_counts_and_positions(samples_dir):
    raw = _json(samples_dir, DD)
    walls15, _, _ = _by_kind(import_uvtt(samples_dir / DD)[0])
    enc, report = import_uvtt(samples_dir / DD, cell_size=1.0)
    assert report.ok, report.warnings
    assert (enc.map.width, enc.map.height) == (20.0, 20.0)
    walls, doors, cover = _by_kind(enc)
    # 9 wall polylines (read from the file): 3 -> 7 -> 0 meet end to end at (4.632813, 14)
    # and (7.359375, 5) and merge into one chain; 4 and 8 share both ends and close into a
    # ring (cut in two); 5 and 6 are closed squares (two each); 1 and 2 stand alone.
    # At 1.5 m a cell: 1 + 2 + 2 + 2 + 1 + 1 = 9 obstacles.
    assert len(raw["line_of_sight"]) == 9 and len(walls15) == 9
    # At 1 m a cell the ring 4 + 8 is only 7 - 6.878906 = 0.12 m wide, less than the 0.15 m
    # wall: its thin polygon has no hole and stays one obstacle: 8.
    assert len(walls) == 8
    # All three portals are closed doors; the first spans (11, 6)-(12, 6).
    assert len(doors) == 3 and not any(d.open for d in doors)
    assert _bounds(doors[0]) == pytest.approx((11.0, 6 - HALF, 12.0, 6 + HALF), abs=1e-6)
    # The closed 2 x 2 square (7,19)-(5,19)-(5,17)-(7,17): two halves, ring area 4*2*0.15.
    square = [w for w in walls if 4.8 < shapely.Polygon(w.polygon).centroid.x < 7.2
              and shapely.Polygon(w.polygon).centroid.y > 16.5]
    assert len(square) == 2
    assert shapely.union_all([shapely.Polygon(w.polygon) for w in square]).area == pytest.approx(1.2, abs=1e-3)
    # Two closed object outlines -> two filled low covers containing their outline's centre.
    assert len(cover) == 2
    for pl, c in zip(raw["objects_line_of_sight"], cover):
        outline = shapely.Polygon([(p["x"], p["y"]) for p in pl])
        assert shapely.Polygon(c.polygon).contains(outline.centroid)
        assert shapely.Polygon(c.polygon).area >= outline.area
    assert len(enc.lights) == 1 and enc.lights[0].radius == pytest.approx(9.900001)
    _assert_walls_cover_the_file(enc, raw, 1.0)


def test_ballroom_sample_merges_segments_and_reports_the_missing_image(samples_dir):
    raw = _json(samples_dir, BALLROOM)
    enc, report = import_uvtt(samples_dir / BALLROOM)
    # 33 x 46 cells of 1.5 m.
    assert (enc.map.width, enc.map.height) == (49.5, 69.0)
    assert enc.map.background is None
    assert [w.where for w in report.warnings] == ["$.image"]
    assert "not there" in report.warnings[0].message
    assert enc.imported["image_path"] == raw["image"]  # kept, so nothing is lost
    # 90 two-point segments. Chains end where a point is not shared by exactly two
    # segments: count each end point's segments in the file.
    degree = Counter()
    for pl in raw["line_of_sight"]:
        for p in (pl[0], pl[-1]):
            degree[(p["x"], p["y"])] += 1
    ends = sum(d for d in degree.values() if d != 2)
    walls, doors, _ = _by_kind(enc)
    assert len(raw["line_of_sight"]) == 90
    assert len(walls) == ends // 2 == 7
    assert doors == []
    _assert_walls_cover_the_file(enc, raw, 1.5)


@pytest.mark.parametrize("name", [DD, FGU, BALLROOM])
def test_each_sample_imports_with_work_bounded_by_its_walls(samples_dir, name, monkeypatch):
    # (measured 0.005-0.04 s here; bench/bench_bounds.py prints it.) The costly part, making
    # walls thick, works on no more pieces and points than the file's polylines hold.
    raw = json.loads((samples_dir / name).read_text(encoding="utf-8"))
    lines = [pl for key in ("line_of_sight", "objects_line_of_sight") for pl in raw.get(key) or []]
    work = UvttWork(monkeypatch)
    import_uvtt(samples_dir / name)
    assert work.merged_lines <= len(raw.get("line_of_sight") or [])
    points = sum(map(len, lines))
    # (a detailed or self-crossing chain is cut in pieces of CHUNK_SEGMENTS segments, each cut
    # adding a point on either side)
    assert work.thickened <= len(lines) + points // CHUNK_SEGMENTS
    assert work.thickened_points <= points + 2 * work.thickened
    assert work.points_read_one_by_one <= 2 + 3 * len(raw.get("portals") or []) + len(raw.get("lights") or [])


def test_cli_writes_encounter_and_image_beside_it(samples_dir, tmp_path, capsys):
    class Args:
        file = str(samples_dir / FGU)
        output = str(tmp_path / "house.json")
        cell_size = 1.0

    assert run_import_map(Args()) == 0
    enc = load_encounter(tmp_path / "house.json")
    assert enc.map.background.image == "house.map.png"
    written = (tmp_path / "house.map.png").read_bytes()
    info = images.check_image(written)
    assert (info.format, info.width, info.height, info.problem) == ("png", 2560, 2560, None)
    assert (enc.map.width, enc.map.height) == (10.0, 10.0)
    assert (tmp_path / "house.json").stat().st_size < 50_000  # no image inside the JSON
    out = capsys.readouterr().out
    assert "5 wall obstacles" in out and "house.map.png" in out


# -- broken files made here ---------------------------------------------------------------------


def _map(**over) -> dict:
    base = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 3}, "pixels_per_grid": 1},
        "line_of_sight": [[{"x": 0, "y": 1}, {"x": 4, "y": 1}], [{"x": 2, "y": 1}, {"x": 2, "y": 3}]],
        "portals": [],
        "image": base64.b64encode(png_bytes(4, 3)).decode(),
    }
    base.update(over)
    return base


def _write(tmp_path: Path, data, name="m.dd2vtt") -> Path:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def test_a_whole_small_map_imports_with_its_image(tmp_path):
    enc, rep = import_uvtt(_write(tmp_path, _map()), cell_size=2.0)
    assert rep.ok
    assert (enc.map.width, enc.map.height) == (8.0, 6.0)
    assert enc.map.background.image.startswith("data:image/png;base64,")
    assert len(enc.obstacles) == 2  # the T meets at (2, 1) mid-wall: no end-to-end merge



def test_coordinates_too_large_for_a_map_are_reported_and_skipped(tmp_path):
    # 1e308 cells is a finite number, but 1.5 m a cell makes it infinite metres: each shape
    # with such a point is left out with a warning naming it, the rest is imported
    huge = {"x": 1e308, "y": 1}
    data = _map(line_of_sight=[[{"x": 0, "y": 1}, {"x": 4, "y": 1}], [{"x": 2, "y": 1}, huge],
                               [{"x": 0, "y": 2}, {"x": 1, "y": 2}, huge, {"x": 0, "y": 2}]],
                portals=[{"bounds": [{"x": 1, "y": 0}, huge], "closed": True}],
                objects_line_of_sight=[[{"x": 3, "y": 2}, huge]])
    enc, rep = import_uvtt(_write(tmp_path, data), cell_size=1.5)
    assert len(enc.obstacles) == 1 and enc.obstacles[0].id == "wall-1"
    where = sorted(w.where for w in rep.warnings)
    assert where == ["$.line_of_sight[1][1].x", "$.line_of_sight[2][2].x", "$.objects_line_of_sight[0][1].x",
                     "$.portals[0].bounds[1].x"]
    assert all("too large" in w.message for w in rep.warnings)

def test_missing_image_path_warns_and_keeps_the_rest(tmp_path):
    enc, rep = import_uvtt(_write(tmp_path, _map(image="maps/cellar.webp")))
    assert enc.map.background is None
    assert len(enc.obstacles) == 2
    assert [w.where for w in rep.warnings] == ["$.image"]
    assert "maps/cellar.webp" in rep.warnings[0].message


def test_image_path_that_exists_is_embedded(tmp_path):
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "cellar.png").write_bytes(png_bytes(4, 3))
    enc, rep = import_uvtt(_write(tmp_path, _map(image="maps/cellar.png")))
    assert rep.ok
    saved, written = save_with_images(enc, tmp_path / "cellar.json")
    assert written == ["cellar.map.png"]
    assert (tmp_path / "cellar.map.png").read_bytes() == png_bytes(4, 3)


@pytest.mark.parametrize("uri", [
    "data:image/png;base64," + base64.b64encode(png_bytes(4, 3)).decode()[:41],  # cut short: bad padding
    "data:image/png;base64,!!!!",  # no base64 at all
    "data:,",
])
def test_saving_a_damaged_data_uri_background_keeps_it_inline_instead_of_failing(tmp_path, uri):
    from engine.model import Background

    enc, _ = import_uvtt(_write(tmp_path, _map()))
    bg = Background(image=uri, width=4.0, height=3.0)
    enc = enc.model_copy(update={"map": enc.map.model_copy(update={"background": bg})})
    saved, written = save_with_images(enc, tmp_path / "cellar.json")
    assert written == [] and list(tmp_path.glob("cellar.map.*")) == []  # no empty image file written
    assert load_encounter(tmp_path / "cellar.json").map.background.image == uri  # nothing lost


def test_truncated_base64_warns_and_keeps_the_walls(tmp_path):
    full = base64.b64encode(png_bytes(40, 30)).decode()
    enc, rep = import_uvtt(_write(tmp_path, _map(image=full[: len(full) // 2 + 1])))
    assert enc.map.background is None
    assert len(enc.obstacles) == 2
    (w,) = rep.warnings
    assert w.where == "$.image" and "cut short" in w.message


def test_corrupt_png_checksum_is_caught(tmp_path):
    blob = bytearray(png_bytes(4, 3))
    blob[40] ^= 0xFF  # a byte inside IDAT
    enc, rep = import_uvtt(_write(tmp_path, _map(image=base64.b64encode(bytes(blob)).decode())))
    assert enc.map.background is None
    assert "checksum" in rep.warnings[0].message


def test_huge_image_is_refused_from_its_header_before_decoding(tmp_path, monkeypatch):
    def no_full_decode(*a, **k):
        raise AssertionError("the whole image was decoded")

    monkeypatch.setattr(images, "b64_decode", no_full_decode)
    text = base64.b64encode(huge_png_header(100_000, 100_000)).decode()
    enc, rep = import_uvtt(_write(tmp_path, _map(image=text)))
    assert enc.map.background is None
    assert len(enc.obstacles) == 2
    (w,) = rep.warnings
    assert "100000 x 100000 px" in w.message and w.where == "$.image"


def test_unknown_format_warns_and_imports(tmp_path):
    enc, rep = import_uvtt(_write(tmp_path, _map(format=7.5)))
    assert [w.where for w in rep.warnings] == ["$.format"]
    assert "7.5" in rep.warnings[0].message
    assert len(enc.obstacles) == 2 and enc.map.background is not None


def test_malformed_json_names_file_and_place(tmp_path):
    p = _write(tmp_path, '{"format": 0.3, "resolution": {')
    with pytest.raises(ImportFileError) as err:
        import_uvtt(p)
    assert str(p) in str(err.value) and "line 1" in str(err.value)


def test_not_a_map(tmp_path):
    with pytest.raises(ImportFileError, match=r"\$\.resolution"):
        import_uvtt(_write(tmp_path, {"format": 0.3, "walls": []}))
    with pytest.raises(ImportFileError, match="one JSON object"):
        import_uvtt(_write(tmp_path, [1, 2]))
    with pytest.raises(ImportFileError, match="no such file"):
        import_uvtt(tmp_path / "absent.dd2vtt")


def test_a_bad_point_skips_only_its_polyline(tmp_path):
    los = [[{"x": 0, "y": 1}, {"x": 4, "y": 1}], [{"x": "two", "y": 1}, {"x": 2, "y": 3}]]
    enc, rep = import_uvtt(_write(tmp_path, _map(line_of_sight=los)))
    assert len(enc.obstacles) == 1
    assert [w.where for w in rep.warnings] == ["$.line_of_sight[1][0].x"]


def test_bad_portal_and_light_are_reported(tmp_path):
    portals = [
        {"bounds": [{"x": 1, "y": 1}, {"x": 1, "y": 1}], "closed": True},
        {"bounds": [{"x": 1, "y": 0}, {"x": 1, "y": 2}], "closed": "yes"},
    ]
    lights = [{"position": {"x": 1}}, {"position": {"x": 1, "y": 1}, "range": 2, "color": "ff000000"}]
    enc, rep = import_uvtt(_write(tmp_path, _map(portals=portals, lights=lights)), cell_size=1.0)
    wheres = [w.where for w in rep.warnings]
    assert "$.portals[0].bounds" in wheres and "$.portals[1].closed" in wheres
    assert "$.lights[0].position" in wheres
    doors = [o for o in enc.obstacles if o.door]
    assert len(doors) == 1 and doors[0].open is False
    assert [li.model_dump(exclude_defaults=True) for li in enc.lights] == [
        {"id": "light-1", "x": 1.0, "y": 1.0, "radius": 2.0, "color": "#000000", "alpha": 1.0}]


def test_dark_ambient_light_sets_the_environment(tmp_path):
    enc, _ = import_uvtt(_write(tmp_path, _map(environment={"ambient_light": "ff202020"})))
    # luminance of 0x20/255 = 0.125 < 0.15: dark
    assert enc.rules["sr5"].environment.light == "dark"
    enc, _ = import_uvtt(_write(tmp_path, _map(environment={"ambient_light": "ff808080"})))
    # 0x80/255 = 0.502: partial (0.4 <= L < 0.75)
    assert enc.rules["sr5"].environment.light == "partial"


def test_unknown_fields_are_kept(tmp_path):
    enc, _ = import_uvtt(_write(tmp_path, _map(software="Dungeondraft", extra_layer={"a": 1})))
    assert enc.imported["unknown_fields"] == {"software": "Dungeondraft", "extra_layer": {"a": 1}}


def test_bad_cell_size_is_refused(tmp_path):
    with pytest.raises(CoverfireError, match="cell size"):
        import_uvtt(_write(tmp_path, _map()), cell_size=0)


# -- any polyline becomes valid obstacles that cover it -------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_coord = st.one_of(st.integers(0, 10).map(float), st.floats(0, 10, allow_nan=False))
_polyline = st.lists(st.tuples(_coord, _coord), min_size=2, max_size=10)


@settings(max_examples=60, deadline=None)
@given(st.lists(_polyline, min_size=1, max_size=5), st.booleans())
def test_random_walls_become_valid_obstacles_over_every_vertex(polylines, close_first):
    from engine.importers.uvtt import UvttOptions, import_uvtt_data

    if close_first:
        polylines = [polylines[0] + [polylines[0][0]]] + polylines[1:]
    los = [[{"x": x, "y": y} for x, y in pl] for pl in polylines]
    raw = _map(line_of_sight=los, image=None)
    raw["resolution"]["map_size"] = {"x": 10, "y": 10}
    enc, rep = import_uvtt_data(raw, UvttOptions(cell_size=1.0))
    polys = [shapely.Polygon(o.polygon) for o in enc.obstacles]
    assert all(p.is_valid and not p.interiors and p.area > 0 for p in polys)
    union = shapely.union_all(polys) if polys else shapely.Polygon()
    for pl in polylines:
        length = shapely.LineString(pl).length if len(set(pl)) >= 2 else 0.0
        if length < 1e-5:
            # Reported and skipped: a polyline needs two distinct points a micrometre apart.
            assert any(w.where and w.where.startswith("$.line_of_sight") for w in rep.warnings)
            continue
        for x, y in pl:
            assert union.distance(shapely.Point(x, y)) < 2e-3
