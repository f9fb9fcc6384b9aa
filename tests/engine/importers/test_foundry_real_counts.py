"""Every Foundry scene in ``../shared/outside`` (real files of published modules; MANIFEST.txt
names their sources) imports with Foundry's own walls, doors and lights (issue #28).

The expected numbers are worked out here from the raw JSON / NeDB lines, apart from the
importer: a scenes.db holds the last line of each ``_id`` (a ``$$deleted`` line removes it),
and each Foundry wall is looked for on the map at its own place. Skips without the files.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import shapely

from engine.importers.foundry import import_every_scene

OUTSIDE = Path(__file__).resolve().parents[3].parent / "shared" / "outside"


def _files() -> list[Path]:
    if not OUTSIDE.is_dir():
        return []
    return sorted({*OUTSIDE.glob("*.db"), *(OUTSIDE / "foundry").rglob("*.db"), *(OUTSIDE / "foundry").glob("*.json")})


def raw_scenes(path: Path) -> list[dict]:
    """The scenes of a file as Foundry has them: one exported JSON document, or a NeDB file's
    documents by ``_id``, each its last line, deleted ones gone, in NeDB's order."""
    text = path.read_text(encoding="utf-8-sig")
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        pass
    by_id: dict = {}
    for line in text.splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if not isinstance(doc, dict) or "_id" not in doc:
            continue
        if doc.get("$$deleted") is True:
            by_id.pop(doc["_id"], None)
        else:
            by_id[doc["_id"]] = doc
    return [d for d in by_id.values() if "walls" in d and "width" in d]


def _kind(wall: dict) -> str:
    if wall.get("door") in (1, 2):
        return "door"
    move = wall.get("move", 1) > 0
    sight = (wall["sight"] if "sight" in wall else wall.get("sense", 1)) > 0
    return {(True, True): "wall", (True, False): "move_only", (False, True): "sight_only"}.get((move, sight), "none")


def _light_parts(light: dict, m_per_unit: float) -> list[tuple[str, float]]:
    cfg = light.get("config") if isinstance(light.get("config"), dict) else light
    if cfg.get("negative"):
        return []
    dim, bright = (max(float(cfg.get(k) or 0), 0.0) for k in ("dim", "bright"))
    return ([("full", bright * m_per_unit)] if bright > 0 else []) + (
        [("dim", dim * m_per_unit)] if dim > bright else [])


def _offsets(doc: dict) -> tuple[float, float]:
    if isinstance(doc.get("background"), dict):
        bg = doc["background"]
        return float(bg.get("offsetX") or 0), float(bg.get("offsetY") or 0)
    return float(doc.get("shiftX") or 0), float(doc.get("shiftY") or 0)


SEEN: dict[str, list] = {}


@pytest.mark.parametrize("path", _files() or [None], ids=lambda p: p.name if p else "absent")
def test_every_real_foundry_scene_keeps_foundry_s_walls_doors_and_lights(path):
    if path is None:
        pytest.skip("../shared/outside is not beside this checkout")
    raws = raw_scenes(path)
    imported = import_every_scene(path)
    assert [s.name for s in imported] == [str(d.get("name")) for d in raws]
    for raw, one in zip(raws, imported):
        what = f"{path.name}: {raw.get('name')!r}"
        if one.error is not None:  # only a world map (a square of 10 km) is refused
            assert "not a battle map" in str(one.error), what
            SEEN.setdefault(path.name, []).append((raw.get("name"), "refused"))
            continue
        enc = one.encounter
        grid = raw["grid"]["size"] if isinstance(raw["grid"], dict) else raw["grid"]
        distance = raw["grid"]["distance"] if isinstance(raw["grid"], dict) else raw.get("gridDistance", 5)
        cell = enc.map.grid
        k = cell / grid
        ox, oy = _offsets(raw)
        pad_x = math.ceil(raw.get("padding", 0.25) * raw["width"] / grid) * grid - ox
        pad_y = math.ceil(raw.get("padding", 0.25) * raw["height"] / grid) * grid - oy
        assert (enc.map.width, enc.map.height) == pytest.approx((raw["width"] * k, raw["height"] * k)), what
        box = shapely.box(-cell, -cell, enc.map.width + cell, enc.map.height + cell)

        walls = [w for w in raw.get("walls") or []]
        by_kind: dict[str, list] = {"door": [], "wall": [], "move_only": [], "sight_only": [], "none": []}
        for w in walls:
            x0, y0, x1, y1 = w["c"]
            seg = shapely.LineString([((x0 - pad_x) * k, (y0 - pad_y) * k), ((x1 - pad_x) * k, (y1 - pad_y) * k)])
            if seg.length < 1e-4:
                continue
            by_kind[_kind(w)].append((w, seg))
        inside = {kind: [(w, seg) for w, seg in items if seg.intersects(box)] for kind, items in by_kind.items()}

        doors = [o for o in enc.obstacles if o.door]
        assert len(doors) == len(inside["door"]), what
        assert sum("(locked)" in o.name for o in doors) == sum(w.get("ds") == 2 for w, _ in inside["door"]), what
        assert sum(o.hidden for o in doors) == sum(w["door"] == 2 for w, _ in inside["door"]), what
        assert sum(o.open for o in doors) == sum(w.get("ds") == 1 for w, _ in inside["door"]), what
        windows = [o for o in enc.obstacles if o.kind == "window"]
        assert len(windows) == len(inside["move_only"]), what
        assert len(enc.imported.get("sight_only_walls", [])) == len(by_kind["sight_only"]), what
        # Every Foundry wall that blocks both lies in a wall obstacle (walls are merged end to
        # end and simplified within 2 cm, so the obstacles do not number as the walls do).
        solid = shapely.union_all([shapely.Polygon(o.polygon) for o in enc.obstacles if o.id.startswith("wall")])
        for kind, target in (("wall", solid), ("door", shapely.union_all([shapely.Polygon(o.polygon) for o in doors])),
                             ("move_only", shapely.union_all([shapely.Polygon(o.polygon) for o in windows]))):
            for w, seg in inside[kind]:
                mid = seg.intersection(box).interpolate(0.5, normalized=True)
                assert target.distance(mid) < 0.03, f"{what}: wall {w.get('_id')} {w['c']} is not on the map"

        m_per_unit = cell / distance
        lights = raw.get("lights") or []
        expect = {i: parts for i, light in enumerate(lights) if (parts := _light_parts(light, m_per_unit))}
        got: dict[int, list] = {}
        for li in enc.lights:
            got.setdefault(li.foundry_light, []).append((li.level, li.radius))
        assert got.keys() == expect.keys(), what
        for i, parts in expect.items():
            assert got[i] == [(lv, pytest.approx(r)) for lv, r in parts], f"{what}: light {i}"
        assert {li.on for li in enc.lights if lights[li.foundry_light].get("hidden")} <= {False}, what

        counts = enc.imported["foundry_counts"]
        assert (counts["walls"], counts["doors"], counts["lights"]) == (
            len(walls), sum(w.get("door") in (1, 2) for w in walls), len(lights)), what
        SEEN.setdefault(path.name, []).append((raw.get("name"), len(walls), len(by_kind["door"]), len(lights),
                                               len(doors), len(got), len(enc.lights)))


def test_the_underground_stream_is_the_scene_foundry_shows():
    """The issue's example: in Foundry 'OotA - Underground Stream' has 255 walls and 60 lights;
    its first line in the file has none."""
    db = OUTSIDE / "foundry/zahi-cartography-maps.db"
    if not db.is_file():
        pytest.skip("../shared/outside is not beside this checkout")
    scenes = import_every_scene(db)
    assert len(scenes) == 13
    (one,) = [s for s in scenes if "Underground Stream" in s.name]
    enc, rep = one.encounter, one.report
    assert enc.imported["foundry_counts"]["walls"] == 255 and enc.imported["foundry_counts"]["lights"] == 60
    assert len({li.foundry_light for li in enc.lights}) == 60
    assert "37 lines, 13 scenes as they are now (24 earlier versions left out)" in rep.summary[0]


@pytest.mark.parametrize("db, scene, picture", [
    ("foundry/coppertop/Data/modules/pla01-tmacm/packs/maps.db", "Coppertop Manor", "Mansion 1st floor.webp"),
    ("foundry/delian/Data/modules/aep/content/the-delian-tomb/data/scenes.db", 1, "tomb.webp"),
    ("foundry/esp/Data/modules/example-scene-packer/packs/maps.db", "Simple", "lumber-camp.webp"),
])
def test_the_real_pictures_beside_the_worlds_are_found(db, scene, picture):
    from engine.importers.foundry import import_foundry
    path = OUTSIDE / db
    if not path.is_file():
        pytest.skip("../shared/outside is not beside this checkout")
    enc, rep = import_foundry(path, scene=scene)
    assert enc.map.background is not None, rep
    assert any(line.startswith("background: ") and picture in line for line in rep.summary)


@pytest.mark.parametrize("db, scene", [
    ("foundry/zahi-cartography-maps.db", "OotA - Underground Stream"),
    ("foundry/coppertop/Data/modules/pla01-tmacm/packs/maps.db", "Coppertop Manor"),
    ("foundry/fa-tomb-of-horrors-v14.json", None),
])
def test_import_map_then_analyze_say_foundry_s_counts(tmp_path, capsys, db, scene):
    from gui.cli import main

    path = OUTSIDE / db
    if not path.is_file():
        pytest.skip("../shared/outside is not beside this checkout")
    raw = next(d for d in raw_scenes(path) if scene is None or d["name"] == scene)
    walls, lights = raw["walls"], raw["lights"]
    doors = sum(w.get("door") in (1, 2) for w in walls)
    kept = sum(not (li.get("config") or li).get("negative") and bool((li.get("config") or li).get("dim") or
                                                                      (li.get("config") or li).get("bright"))
               for li in lights)
    out = tmp_path / "scene.json"
    assert main(["import-map", str(path), "-o", str(out)] + (["--scene", scene] if scene else [])) == 0
    printed = capsys.readouterr().out
    assert f"the scene in Foundry: {len(walls)} walls ({doors} door" in printed
    assert main(["analyze", str(out)]) == 0
    said = capsys.readouterr().out.splitlines()[1]
    assert said.startswith(f"imported from Foundry ({path.name}): the scene has {len(walls)} walls ({doors} doors), "
                           f"{len(lights)} lights as Foundry counts them; on the map {doors} doors, ")
    assert f"other obstacles, {kept} lights (" in said


def test_a_foundry_9_ship_deck_finds_its_picture_placed_beside_the_world(tmp_path):
    """Chariot of the Gods' 'Cronus Deck B' (49 doors; Foundry 9: ``img`` and walls with
    ``sight``) names ``cronusBV2.jpg``: placed beside the scenes.db, it is the map's picture."""
    from engine.importers.foundry import import_foundry
    from tests.engine.importers._helpers import png_bytes

    db = OUTSIDE / "foundry/chariot-of-the-gods-scenes.db"
    if not db.is_file():
        pytest.skip("../shared/outside is not beside this checkout")
    (tmp_path / "scenes.db").symlink_to(db)  # (the real file, read where it is)
    (tmp_path / "cronusBV2.jpg").write_bytes(png_bytes(8, 4))  # a stand-in picture of our own
    enc, rep = import_foundry(tmp_path / "scenes.db", scene="Cronus Deck B")
    assert enc.imported["foundry_version"] == "v9" and enc.map.background is not None
    assert sum(o.door for o in enc.obstacles) == 49
    assert any(line.startswith("background: ") and "cronusBV2.jpg (the scene names 'cronusBV2.jpg')" in line
               for line in rep.summary)
    assert not any("no background image" in w.message for w in rep.warnings)
