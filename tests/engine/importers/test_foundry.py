"""Foundry VTT scenes (issue #17 items 10, 11): exported scene JSON of v9 and v10+, a NeDB
scenes.db, a v11+ LevelDB world, and files that are not maps, all made here.

A canvas point (x, y) px becomes ((x - pad_x) / grid * cell, (y - pad_y) / grid * cell)
metres, pad = ceil(padding * size / grid) * grid, cell = grid distance x metres a unit.
"""

from __future__ import annotations

import json
import subprocess
import sys
import os
from pathlib import Path

import pytest
import shapely

from engine.errors import ImportFileError
from engine.files import load_encounter
from engine.importers.detect import import_file, sniff
from engine.importers.foundry import import_foundry
from engine.importers.images import save_with_images
from tests.engine.importers._helpers import png_bytes

FT = 0.3048
HALF = 0.075
ROOT = Path(__file__).resolve().parents[3]


def _bounds(o):
    return shapely.Polygon(o.polygon).bounds


def v10_scene() -> dict:
    """A v10+ scene: 1000 x 800 px, grid 100 px = 5 ft, padding 0.25 -> pad (300, 200) px."""
    return {
        "name": "Hall", "width": 1000, "height": 800, "padding": 0.25,
        "background": {"src": "maps/room.png", "offsetX": 0, "offsetY": 0},
        "grid": {"type": 1, "size": 100, "distance": 5, "units": "ft"},
        "walls": [
            {"c": [300, 200, 1300, 200], "move": 20, "sight": 20, "light": 20, "door": 0, "ds": 0},
            {"c": [500, 400, 500, 500], "move": 20, "sight": 20, "door": 1, "ds": 1},
            {"c": [700, 400, 700, 500], "move": 20, "sight": 20, "door": 2, "ds": 2},
            {"c": [300, 700, 500, 700], "move": 20, "sight": 0, "light": 0, "door": 0},
            {"c": [800, 300, 800, 600], "move": 0, "sight": 20, "light": 20, "door": 0},
            {"c": [0, 0, 100, 100], "move": 20, "sight": 20, "door": 0},
        ],
        "tokens": [
            {"name": "Guard", "x": 900, "y": 500, "width": 1, "height": 1, "hidden": True, "disposition": -1,
             "texture": {"src": "tokens/guard.png"}},
            {"name": "Ally", "x": 400, "y": 300, "width": 2, "height": 2, "hidden": False, "disposition": 1,
             "texture": {"src": "tokens/missing.png"}},
        ],
        "lights": [{"x": 800, "y": 600, "config": {"dim": 30, "bright": 15, "color": "#ff8800", "alpha": 0.5}}],
        "drawings": [{"x": 1}], "notes": [],
        "flags": {"exportSource": {"world": "w", "system": "sr5", "coreVersion": "10.291"}},
    }


def v9_scene() -> dict:
    """A v9 scene: 600 x 400 px, grid 50 px = 1.5 m, no padding."""
    return {
        "name": "Cellar", "img": "cellar.png", "width": 600, "height": 400, "padding": 0,
        "grid": 50, "gridDistance": 1.5, "gridUnits": "m", "shiftX": 0, "shiftY": 0,
        "walls": [
            {"c": [0, 0, 600, 0], "move": 1, "sense": 1, "door": 0},
            {"c": [300, 50, 300, 400], "move": 1, "sense": 2, "door": 0},
            {"c": [100, 200, 150, 200], "move": 1, "sense": 1, "door": 1, "ds": 0},
            {"c": [400, 300, 500, 300], "move": 0, "sense": 1, "door": 0},
        ],
        "tokens": [{"name": "Runner", "x": 100, "y": 100, "width": 1, "height": 1, "img": "runner.png",
                    "disposition": 1, "hidden": False}],
        "lights": [{"x": 50, "y": 50, "dim": 6, "bright": 3, "tintColor": "#ffffff", "tintAlpha": 0.3}],
    }


def _write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_a_v10_scene_export_imports_walls_doors_tokens_lights_and_its_picture(tmp_path):
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps/room.png").write_bytes(png_bytes(10, 8))
    (tmp_path / "tokens").mkdir()
    (tmp_path / "tokens/guard.png").write_bytes(png_bytes(2, 2))
    path = _write(tmp_path / "fvtt-Scene-hall.json", v10_scene())
    enc, rep = import_foundry(path)
    cell = 5 * FT  # 1.524 m
    assert enc.map.grid == pytest.approx(cell)
    assert (enc.map.width, enc.map.height) == pytest.approx((10 * cell, 8 * cell))
    assert enc.map.background.image.startswith("data:image/png;base64,")
    ids = sorted(o.id for o in enc.obstacles)
    # The wall in the padding (x -3..-2 squares) is dropped; the rest: 1 wall, 2 doors, 1 window.
    assert ids == ["door-1", "door-2", "wall-1", "window-1"]
    wall = enc.obstacle("wall-1")
    assert _bounds(wall) == pytest.approx((0, -HALF, 10 * cell, HALF), abs=1e-6)
    open_door, secret = enc.obstacle("door-1"), enc.obstacle("door-2")
    assert open_door.door and open_door.open and not open_door.hidden
    # (500, 400)-(500, 500) px -> x = 2 squares, y 2..3 squares.
    assert _bounds(open_door) == pytest.approx((2 * cell - HALF, 2 * cell, 2 * cell + HALF, 3 * cell), abs=1e-6)
    assert secret.door and not secret.open and secret.hidden and secret.name == "Secret door (locked)"
    window = enc.obstacle("window-1")  # move-only wall: blocks movement, sight above the sill
    assert window.kind == "window" and window.height == 1.0
    assert _bounds(window) == pytest.approx((0, 5 * cell - HALF, 2 * cell, 5 * cell + HALF), abs=1e-6)
    assert enc.imported["sight_only_walls"] == [pytest.approx([5 * cell, 1 * cell, 5 * cell, 4 * cell], abs=1e-4)]
    assert enc.imported["foundry_version"] == "v10-v13" and enc.imported["core_version"] == "10.291"
    guard, ally = enc.token("guard"), enc.token("ally")
    # Guard: top-left (900, 500), 1 square: centre (950, 550) px = (6.5, 3.5) squares.
    assert (guard.x, guard.y) == pytest.approx((6.5 * cell, 3.5 * cell))
    assert guard.hidden and guard.side == "hostile" and guard.radius == pytest.approx(0.4)
    assert guard.portrait.startswith("data:image/png;base64,")
    # Ally: 2 x 2 squares at (400, 300): centre (500, 400) px = (2, 2) squares; radius 0.8.
    assert (ally.x, ally.y, ally.radius, ally.side) == pytest.approx((2 * cell, 2 * cell, 0.8, "friendly"))
    assert ally.portrait is None  # its image is not beside the file
    # The light: bright to 15 ft, dim beyond it to 30 ft -> two model lights.
    bright, dim = enc.lights
    assert (dim.x, dim.y) == (bright.x, bright.y) == pytest.approx((5 * cell, 4 * cell))
    assert (dim.radius, dim.level) == (pytest.approx(30 * FT), "dim")
    assert (bright.radius, bright.level) == (pytest.approx(15 * FT), "full")
    assert (dim.color, dim.alpha, bright.color) == ("#ff8800", 0.5, "#ff8800")
    text = "\n".join(rep.lines())
    assert "Foundry scene 'Hall' (v10-v13: Foundry 10-13 fields, core 10.291): 15.24 x 12.192 m (1000 x 800 px, grid 100 px; " \
           "5 ft a square = 1.524 m)" in text
    assert "2 doors (1 open, 1 secret: GM only, 1 locked)" in text
    assert "1 wall that blocks movement only (glass, railings): imported as windows" in text
    assert "1 wall that blocks sight only" in text
    assert "1 wall lying wholly in the scene's padding dropped" in text
    assert "2 tokens (1 hidden, 1 with their image found)" in text
    assert "drawings: 1" in text
    # import -> save -> reload: equal.
    (tmp_path / "out").mkdir()
    saved, _files = save_with_images(enc, tmp_path / "out/hall.json")
    assert load_encounter(tmp_path / "out/hall.json") == saved


def test_a_v9_scene_reads_the_old_field_names(tmp_path):
    (tmp_path / "cellar.png").write_bytes(png_bytes(6, 4))
    (tmp_path / "runner.png").write_bytes(png_bytes(2, 2))
    enc, rep = import_foundry(_write(tmp_path / "cellar.json", v9_scene()))
    k = 1.5 / 50  # metres a pixel
    assert (enc.map.width, enc.map.height, enc.map.grid) == pytest.approx((18.0, 12.0, 1.5))
    assert enc.imported["foundry_version"] == "v9"
    walls = sorted((o for o in enc.obstacles if o.id.startswith("wall")), key=lambda o: _bounds(o)[2] - _bounds(o)[0])
    # The limited-sight wall (sense 2) is a full wall: x = 300 px = 9 m, y 50..400 px = 1.5..12 m.
    assert _bounds(walls[0]) == pytest.approx((9 - HALF, 1.5, 9 + HALF, 12.0), abs=1e-6)
    assert _bounds(walls[1]) == pytest.approx((0, -HALF, 18, HALF), abs=1e-6)
    door = enc.obstacle("door-1")
    assert door.door and not door.open
    assert _bounds(door) == pytest.approx((100 * k, 200 * k - HALF, 150 * k, 200 * k + HALF), abs=1e-6)
    assert enc.imported["sight_only_walls"] == [pytest.approx([12, 9, 15, 9], abs=1e-4)]
    t = enc.token("runner")
    assert (t.x, t.y, t.side) == pytest.approx((3.75, 3.75, "friendly")) and t.portrait.startswith("data:")
    assert [(li.radius, li.level) for li in enc.lights] == [(pytest.approx(3.0), "full"), (pytest.approx(6.0), "dim")]
    assert enc.map.background is not None
    assert "1 wall of limited sight read as full walls" in "\n".join(rep.lines())


def test_a_scenes_db_imports_the_scene_asked_for(tmp_path):
    lines = [json.dumps(v9_scene()), json.dumps({"$$indexCreated": {"fieldName": "name"}}), json.dumps(v10_scene()),
             json.dumps(dict(v9_scene(), name="Gone", **{"$$deleted": True}))]
    db = _write(tmp_path / "worlds/w/data/scenes.db", "\n".join(lines) + "\n")
    assert sniff(db).kind == "foundry"
    enc, rep = import_foundry(db)
    assert enc.name == "Cellar"
    assert "this is a Foundry scene list of 2 scenes: 'Cellar', 'Hall'" in rep.summary
    enc, rep = import_foundry(db, scene="hall")
    assert enc.name == "Hall" and enc.imported["scene_place"] == "line 3"
    # The picture is found through the folders above the world (Foundry's data folder).
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps/room.png").write_bytes(png_bytes(10, 8))
    enc, _ = import_foundry(db, scene=1)
    assert enc.map.background is not None
    with pytest.raises(ImportFileError, match="no scene 'Attic'"):
        import_foundry(db, scene="Attic")


def test_unknown_units_take_the_chosen_cell_size_with_a_warning(tmp_path):
    scene = v10_scene()
    scene["grid"]["units"] = "squares"
    enc, rep = import_foundry(_write(tmp_path / "s.json", scene), cell_size=2.0)
    assert enc.map.grid == 2.0 and enc.map.width == pytest.approx(20.0)
    assert any(w.where == "$.grid.units" and "'squares'" in w.message for w in rep.warnings)


def test_broken_walls_are_reported_and_the_rest_imports(tmp_path):
    scene = v10_scene()
    scene["walls"] += [{"c": [1, 2, 3]}, {"c": [float("nan"), 0, 1, 1]}, "nonsense", {"c": [10 ** 400, 0, 1, 1]}]
    enc, rep = import_foundry(_write(tmp_path / "s.json", json.dumps(scene)))
    wheres = {w.where for w in rep.warnings}
    assert {"$.walls[6].c", "$.walls[7].c[0]", "$.walls[8]", "$.walls[9].c[0]"} <= wheres
    assert len([o for o in enc.obstacles if o.id.startswith("wall")]) == 1


def test_a_foundry_v11_world_says_to_export_the_scene(tmp_path):
    world = tmp_path / "worlds/w"
    scenes = world / "data/scenes"
    scenes.mkdir(parents=True)
    for n in ("CURRENT", "LOCK", "LOG", "MANIFEST-000002", "000005.ldb"):
        (scenes / n).write_bytes(b"\x00leveldb")
    (world / "world.json").write_text(json.dumps({"title": "W", "system": "sr5", "coreVersion": "11.315"}))
    for target in (scenes, scenes / "000005.ldb", scenes / "CURRENT"):
        with pytest.raises(ImportFileError, match="v11\\+ world database \\(LevelDB\\).*Export Data"):
            import_file(target)
    with pytest.raises(ImportFileError, match="Foundry world's world.json"):
        import_file(world / "world.json")


@pytest.mark.parametrize("content, name, says", [
    (json.dumps({"name": "Bob", "type": "character", "system": {}, "items": [], "prototypeToken": {}}), "bob.json",
     "this is a Foundry actor (a character sheet), not a scene or map"),
    (json.dumps({"walls": [{"c": [0, 0, 1, 1]}], "lights": []}), "walls.json",
     "this is a walls-only file (a Dungeon Alchemist walls file"),
    (json.dumps({"format": "coverfire.encounter", "version": 2, "map": {"width": 1, "height": 1}}), "e.json",
     "this is a Coverfire encounter already: open it with File > Open"),
    (json.dumps([{"name": "x"}]), "list.json", "this is a JSON list, not a map"),
    (json.dumps({"name": "Sword", "type": "weapon", "system": {}}) + "\n" + json.dumps({"name": "Axe", "type": "weapon",
     "system": {}}), "items.db", "this is a Foundry database of items, not scenes"),
    ("hello", "notes.txt", "it is not JSON or XML"),
])
def test_files_that_are_not_maps_say_what_they_look_like(tmp_path, content, name, says):
    p = _write(tmp_path / name, content)
    with pytest.raises(ImportFileError) as err:
        import_file(p)
    assert says in str(err.value)


def test_a_picture_or_a_chummer_save_given_as_a_map_says_so(tmp_path, samples_dir):
    png = tmp_path / "map.png"
    png.write_bytes(png_bytes(4, 4))
    with pytest.raises(ImportFileError, match="this is a picture, not a map with walls"):
        import_file(png, expect="map")
    with pytest.raises(ImportFileError, match="this is a Chummer5a character save, not a map: use Import Character"):
        import_file(samples_dir / "chummer/Wesson.chum5", expect="map")
    with pytest.raises(ImportFileError, match="not a character: use Import Map"):
        import_file(samples_dir / "uvtt/dd2vtt_importer-test.dd2vtt", expect="character")


def test_one_entry_point_imports_every_format(tmp_path, samples_dir):
    kinds = {}
    for p in (samples_dir / "uvtt/dd2vtt_importer-test.dd2vtt", _write(tmp_path / "s.json", v10_scene()),
              samples_dir / "chummer/Popstar.chum5"):
        r = import_file(p)
        kinds[p.name] = (r.kind.kind, r.encounter is not None, r.token is not None)
    assert kinds == {"dd2vtt_importer-test.dd2vtt": ("uvtt", True, False), "s.json": ("foundry", True, False),
                     "Popstar.chum5": ("chummer", False, True)}


def test_the_import_map_command_takes_a_foundry_scene(tmp_path):
    scene = _write(tmp_path / "hall.json", v10_scene())
    out = tmp_path / "hall-enc.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "gui.cli", "import-map", str(scene), "-o", str(out)],
                       capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Foundry scene 'Hall'" in r.stdout and load_encounter(out).name == "Hall"
    r = subprocess.run([sys.executable, "-m", "gui.cli", "import-map", str(tmp_path / "nope.json"), "-o", str(out)],
                       capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=60)
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr


def test_a_pipe_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "scene.json"
    os.mkfifo(fifo)
    with pytest.raises(ImportFileError, match="not a regular file"):
        import_file(fifo)


def test_a_hex_grid_is_read_as_squares_with_a_warning(tmp_path):
    scene = v10_scene()
    scene["grid"]["type"] = 2
    enc, rep = import_foundry(_write(tmp_path / "hex.json", scene))
    assert enc.map.grid == pytest.approx(5 * FT)
    assert any(w.where == "$.grid.type" and "hex grid" in w.message for w in rep.warnings)
