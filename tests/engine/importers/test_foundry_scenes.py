"""Foundry scenes as Foundry itself sees them (issue #28 items 1-5, 9), on small files made
here: a NeDB scenes.db with history and deletions, a Foundry 9 scene whose walls carry
``sight``, bright and dim lights in both orders, a v14 scene with levels, URL-encoded paths.

A canvas point (x, y) px becomes ((x - pad_x) / grid * cell, (y - pad_y) / grid * cell)
metres, pad = ceil(padding * size / grid) * grid; with padding 0 the pad is 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import vision
from engine.files import loads_encounter
from engine.importers.detect import import_file
from engine.importers.foundry import find_beside, import_foundry, read_scene_file, scene_names
from tests.engine.importers._helpers import png_bytes

FT = 0.3048


def _write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _scene(ident: str, name: str, walls=(), lights=(), **more) -> dict:
    """A Foundry 9 scene document: 1000 x 1000 px, grid 100 px = 5 ft, no padding."""
    return {"_id": ident, "name": name, "img": f"maps/{name}.png", "width": 1000, "height": 1000, "padding": 0,
            "grid": 100, "gridDistance": 5, "gridUnits": "ft", "walls": list(walls), "lights": list(lights),
            "tokens": [], **more}


def _wall(i: int, **fields) -> dict:
    return {"_id": f"w{i}", "c": [100, 100 + 50 * i, 300, 100 + 50 * i], "move": 20, "sight": 20, "light": 20,
            "door": 0, "ds": 0, **fields}


# -- 1. NeDB history --------------------------------------------------------------------------


def _history_db(tmp_path: Path) -> Path:
    """A scenes.db as Foundry leaves it after editing: 'Stream' saved three times (first empty,
    then 2 walls, last 3 walls, a locked secret door and 2 lights, its picture renamed), 'Gone'
    created and deleted, an index line, 'Cave' once, a line cut short, and 'Back' deleted and
    created again under the same _id (NeDB puts it last)."""
    lines = [
        _scene("s1", "Stream", img="worlds/old/stream-old.png"),
        {"$$indexCreated": {"fieldName": "name", "unique": False, "sparse": False}},
        _scene("g1", "Gone", walls=[_wall(0)]),
        _scene("b1", "Back"),
        _scene("c1", "Cave", walls=[_wall(0)]),
        _scene("s1", "Stream", walls=[_wall(0), _wall(1)], img="worlds/old/stream-old.png"),
        {"_id": "g1", "$$deleted": True},
        {"_id": "b1", "$$deleted": True},
        _scene("b1", "Back", walls=[_wall(0), _wall(1)]),
        _scene("s1", "Stream", walls=[_wall(0), _wall(1), _wall(2, door=2, ds=2)],
               lights=[{"_id": "l1", "x": 500, "y": 500, "dim": 20, "bright": 10},
                       {"_id": "l2", "x": 800, "y": 800, "dim": 0, "bright": 5}]),
    ]
    text = "\n".join(json.dumps(x) for x in lines[:5]) + '\n{"_id": "x", "name": "cut sho\n' + \
        "\n".join(json.dumps(x) for x in lines[5:]) + "\n"
    return _write(tmp_path / "worlds/w/data/scenes.db", text)


def test_a_scenes_db_holds_each_scene_as_its_last_line_and_no_deleted_one(tmp_path):
    db = _history_db(tmp_path)
    sf = read_scene_file(db)
    # NeDB's order: an _id keeps the place of its first line; one deleted and created again goes last.
    assert [d["name"] for d, _w in sf.scenes] == ["Stream", "Cave", "Back"]
    assert scene_names(db) == ["Stream", "Cave", "Back"]
    # 10 document lines (the cut line is none): Stream's 2 earlier versions replaced, Gone and the
    # first Back deleted.
    assert (sf.lines, sf.history, sf.deleted, sf.unreadable) == (10, 2, 2, 1)
    enc, rep = import_foundry(db)
    assert enc.name == "Stream" and enc.imported["scene_place"] == "line 11"
    doors = [o for o in enc.obstacles if o.door]
    assert [(d.name, d.hidden, d.open) for d in doors] == [("Secret door (locked)", True, False)]
    assert len({li.foundry_light for li in enc.lights}) == 2
    assert enc.imported["image_path"] == "maps/Stream.png"  # the picture named now, not the stale one
    assert enc.imported["foundry_counts"] == {"walls": 3, "doors": 1, "secret_doors": 1, "locked_doors": 1,
                                              "lights": 2, "tokens": 0}
    text = "\n".join(rep.lines())
    assert "a Foundry NeDB database: 10 lines, 3 scenes as they are now (2 earlier versions and 2 deleted " \
           "scenes left out)" in text
    assert "this is a Foundry scene list of 3 scenes: 'Stream', 'Cave', 'Back'" in text
    assert "the scene in Foundry: 3 walls (1 door among them: 1 secret, 1 locked), 2 lights, 0 tokens" in text
    assert any("1 line of the database are not JSON documents" in w.message for w in rep.warnings)
    back, _ = import_foundry(db, scene="back")
    assert back.imported["foundry_counts"]["walls"] == 2
    with pytest.raises(Exception, match="no scene 'Gone'"):
        import_foundry(db, scene="Gone")


def test_a_scenes_db_whose_every_scene_was_deleted_has_no_scene(tmp_path):
    db = _write(tmp_path / "scenes.db", json.dumps(_scene("a", "A")) + "\n" + json.dumps(
        {"_id": "a", "$$deleted": True}) + "\n")
    with pytest.raises(Exception, match="not a Foundry scene"):
        read_scene_file(db)


# -- 2. Foundry 9 scenes whose walls carry sight ---------------------------------------------


def test_a_foundry_9_scene_with_sight_walls_is_v9_and_its_picture_is_found(tmp_path):
    """Foundry 9's walls already have ``sight``/``light``/``move`` 20; the scene keeps its
    picture in the top-level ``img``: that, not the walls, makes it v9."""
    doc = _scene("d1", "Deck", walls=[_wall(0), _wall(1, door=1, ds=2), _wall(2, sight=0), _wall(3, move=0)])
    doc["img"] = "modules/ship/images/deckA.png"
    db = _write(tmp_path / "scenes.db", json.dumps(doc) + "\n")
    (tmp_path / "deckA.png").write_bytes(png_bytes(10, 10))  # placed beside the file
    enc, rep = import_foundry(db)
    assert enc.imported["foundry_version"] == "v9"
    assert enc.map.background is not None and enc.imported["image_path"] == "modules/ship/images/deckA.png"
    assert sorted(o.id for o in enc.obstacles) == ["door-1", "wall-1", "window-1"]
    assert enc.obstacle("door-1").name == "Door (locked)"
    assert enc.imported["sight_only_walls"] == [pytest.approx([1.524, 3.81, 4.572, 3.81])]
    text = "\n".join(rep.lines())
    assert "Foundry scene 'Deck' (v9: Foundry 9 or older fields): 15.24 x 15.24 m" in text
    assert f"background: {(tmp_path / 'deckA.png').resolve()} (the scene names 'modules/ship/images/deckA.png')" in text
    assert not any("no background image" in w.message for w in rep.warnings)


@pytest.mark.parametrize("fields, version", [
    ({"img": "a.png"}, "v9"),
    ({"img": None}, "v9"),
    ({"background": {"src": "a.png"}, "grid": {"size": 100, "distance": 5, "units": "ft"}}, "v10-v13"),
    ({"background": {"src": None}}, "v10-v13"),
    ({"levels": [{"_id": "l0", "background": {"src": "a.png"}}], "grid": {"size": 100, "distance": 5}}, "v14"),
    ({"grid": {"size": 100, "distance": 5, "units": "ft"}}, "v10-v13"),
    ({}, "v9"),
])
def test_the_generation_comes_from_the_scene_s_own_fields(tmp_path, fields, version):
    from engine.importers.foundry import version_of
    doc = {"name": "s", "width": 100, "height": 100, "grid": 100, "walls": [{"c": [0, 0, 1, 1], "sight": 20}]}
    doc.update(fields)
    assert version_of(doc) == version
    enc, rep = import_foundry(_write(tmp_path / "s.json", doc))  # whichever fields it lacks
    assert enc.imported["foundry_version"] == version and enc.map.background is None


# -- 3. lights --------------------------------------------------------------------------------


def test_lights_are_bright_to_the_bright_radius_and_dim_beyond_it_to_the_dim_radius(tmp_path):
    """Radii in feet (5 ft squares); each light alone in its corner of a 100 x 100 square map."""
    lights = [
        {"x": 1000, "y": 1000, "config": {"dim": 20, "bright": 0}},        # dim only
        {"x": 4000, "y": 1000, "config": {"dim": 0, "bright": 10}},        # bright only
        {"x": 7000, "y": 1000, "config": {"dim": 10, "bright": 20}},       # bright beyond dim
        {"x": 1000, "y": 4000, "config": {"dim": 20, "bright": 10}},       # dim beyond bright
        {"x": 4000, "y": 4000, "config": {"dim": 15, "bright": 15}},       # the same
        {"x": 7000, "y": 4000, "config": {"dim": 0, "bright": 0}},         # lights nothing
        {"x": 1000, "y": 7000, "config": {"dim": 20, "bright": 10, "negative": True}},  # darkness
        {"x": 4000, "y": 7000, "hidden": True, "config": {"dim": 20, "bright": 10, "angle": 90}},
    ]
    doc = {"name": "Lit", "width": 10000, "height": 10000, "padding": 0, "background": {"src": None},
           "grid": {"size": 100, "distance": 5, "units": "ft"}, "walls": [], "lights": lights}
    enc, rep = import_foundry(_write(tmp_path / "lit.json", doc))
    parts = [(li.foundry_light, li.level, round(li.radius / FT, 6), li.on) for li in enc.lights]
    assert parts == [(0, "dim", 20, True), (1, "full", 10, True), (2, "full", 20, True),
                     (3, "full", 10, True), (3, "dim", 20, True), (4, "full", 15, True),
                     (7, "full", 10, False), (7, "dim", 20, False)]
    assert len({li.id for li in enc.lights}) == 8
    # The light at a target, in the dark: as Foundry draws it.
    dark = enc.system.with_light_level(enc, "dark")
    sq = 5 * FT  # metres a square; light n at (x/100, y/100) squares

    def at(cx, cy, dx):
        return vision.light_at(dark, cx * sq + dx * FT, cy * sq)

    assert [at(10, 10, 5), at(10, 10, 15), at(10, 10, 25)] == ["dim", "dim", "dark"]  # dim only: no full light
    assert [at(40, 10, 5), at(40, 10, 15)] == ["full", "dark"]
    assert [at(70, 10, 5), at(70, 10, 15), at(70, 10, 25)] == ["full", "full", "dark"]  # not cut at dim 10
    assert [at(10, 40, 5), at(10, 40, 15), at(10, 40, 25)] == ["full", "dim", "dark"]
    assert [at(40, 40, 10), at(40, 40, 20)] == ["full", "dark"]
    assert [at(70, 40, 1), at(10, 70, 5), at(40, 70, 5)] == ["dark", "dark", "dark"]  # none, darkness, off
    text = "\n".join(rep.lines())
    assert "6 lights of the scene's 8 kept as 8 model lights: 2 bright to the bright radius with a dim ring to " \
           "the dim radius, 3 bright only (bright radius at or beyond the dim), 1 dim only; 1 hidden" in text
    assert "1 light with no bright or dim radius (they light nothing)" in rep.unsupported
    assert "1 darkness source (negative lights)" in rep.unsupported
    assert "1 light shining in a cone (angle under 360°): imported as full circles" in rep.unsupported


def test_a_foundry_9_light_reads_its_top_level_radii(tmp_path):
    doc = _scene("v", "Old", lights=[{"x": 500, "y": 500, "dim": 0, "bright": 30, "tintColor": "#FFAA00"},
                                     {"x": 200, "y": 200, "dim": 10, "bright": 0}])
    enc, _ = import_foundry(_write(tmp_path / "old.json", doc))
    assert [(li.level, li.radius, li.color) for li in enc.lights] == [
        ("full", pytest.approx(30 * FT), "#ffaa00"), ("dim", pytest.approx(10 * FT), None)]


@pytest.mark.parametrize("rng, bright, expect", [
    (6.0, 0, [("dim", 6.0)]),
    (6.0, 3.0, [("dim", 6.0), ("full", 3.0)]),
    (3.0, 6.0, [("full", 6.0)]),
    (0, 6.0, [("full", 6.0)]),
])
def test_lights_saved_by_the_old_foundry_import_load_as_foundry_draws_them(rng, bright, expect):
    """Files saved before this fix hold Foundry lights as ``{"range": dim, "bright": ...}``."""
    text = json.dumps({"format": "coverfire.encounter", "version": 2, "map": {"width": 20, "height": 20},
                       "lights": [{"x": 5, "y": 5, "range": rng, "bright": bright}]})
    enc = loads_encounter(text)
    assert [(li.level, li.radius) for li in enc.lights] == [(lv, pytest.approx(r)) for lv, r in expect]


# -- 4. Foundry 14: pictures in levels --------------------------------------------------------


def test_a_v14_scene_takes_its_picture_from_its_initial_level(tmp_path):
    doc = {"name": "Tower", "width": 1000, "height": 800, "padding": 0,
           "grid": {"type": 1, "size": 100, "distance": 5, "units": "ft"},
           "initialLevel": "upper",
           "levels": [{"_id": "ground", "background": {"src": "maps/ground.png"}, "textures": {"offsetX": 0}},
                      {"_id": "upper", "background": {"src": "maps/upper.png"},
                       "textures": {"offsetX": 0, "offsetY": 0}}],
           "walls": [{"c": [0, 0, 500, 0], "move": 20, "sight": 20, "door": 0, "levels": []}],
           "lights": [{"x": 100, "y": 100, "config": {"dim": 10, "bright": 5}, "levels": []}],
           "_stats": {"coreVersion": "14.364"}}
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps/upper.png").write_bytes(png_bytes(10, 8))
    enc, rep = import_foundry(_write(tmp_path / "tower.json", doc))
    assert enc.imported["foundry_version"] == "v14" and enc.imported["image_path"] == "maps/upper.png"
    assert enc.map.background is not None
    assert len(enc.obstacles) == 1 and len(enc.lights) == 2
    assert "Foundry scene 'Tower' (v14: Foundry 14 fields, core 14.364): 15.24 x 12.192 m" in "\n".join(rep.lines())
    # Without initialLevel the first level; its picture missing: the path is kept and said.
    del doc["initialLevel"]
    enc, rep = import_foundry(_write(tmp_path / "tower.json", doc))
    assert enc.map.background is None and enc.imported["image_path"] == "maps/ground.png"
    assert any(w.where == "$.levels[0].background.src" and "'maps/ground.png' is not beside the file" in w.message
               for w in rep.warnings)
    assert "background: none; the scene names 'maps/ground.png'" in "\n".join(rep.lines())


# -- 5. URL-encoded paths ---------------------------------------------------------------------


def test_url_encoded_picture_and_token_paths_are_decoded(tmp_path):
    data = tmp_path / "Data"
    (data / "modules/m/scenes/maps").mkdir(parents=True)
    (data / "modules/m/scenes/maps/Mansion 1st floor.png").write_bytes(png_bytes(10, 10))
    (data / "modules/m/tokens").mkdir(parents=True)
    (data / "modules/m/tokens/Café.png").write_bytes(png_bytes(2, 2))
    doc = _scene("m", "Manor", img="modules/m/scenes/maps/Mansion%201st%20floor.png")
    doc["tokens"] = [{"name": "Cook", "x": 100, "y": 100, "width": 1, "height": 1, "img": "modules/m/tokens/Caf%C3%A9.png"}]
    db = _write(data / "modules/m/packs/maps.db", json.dumps(doc) + "\n")
    r = import_file(db)
    enc = r.encounter
    assert enc.map.background is not None and enc.token("cook").portrait.startswith("data:image/png")
    assert enc.imported["image_path"] == "modules/m/scenes/maps/Mansion%201st%20floor.png"
    assert "Mansion 1st floor.png (the scene names 'modules/m/scenes/maps/Mansion%201st%20floor.png')" in \
        "\n".join(r.report.lines())


def test_decoded_paths_stay_inside_the_file_s_folders(tmp_path):
    base = tmp_path / "Data/worlds/w/data"
    base.mkdir(parents=True)
    (tmp_path / "secret.png").write_bytes(png_bytes())
    (tmp_path / "Data/in tree.png").write_bytes(png_bytes())
    outside = tmp_path.parent / f"{tmp_path.name}-outside.png"
    outside.write_bytes(png_bytes())
    try:
        assert find_beside("in%20tree.png", base) == (tmp_path / "Data/in tree.png").resolve()
        assert find_beside("%2E%2E/secret.png", base) is None  # ".." after decoding
        assert find_beside("worlds/..%2f..%2F..%2fsecret.png", base) is None
        assert find_beside("..%5C..%5Csecret.png", base) is None  # backslashes are separators
        assert find_beside(str(outside), base) is None  # absolute, outside Data/: read as relative, not there
        assert find_beside("secret.png", base) is None  # above Foundry's data folder: not looked in
        assert find_beside(str(tmp_path / "Data/in tree.png"), base) == (tmp_path / "Data/in tree.png").resolve()
        assert find_beside("file:///etc/passwd", base) is None and find_beside("https://x.org/a.png", base) is None
        assert find_beside("a%00b.png", base) is None
        (base / "link.png").symlink_to(outside)  # a link the GM made is followed
        assert find_beside("link.png", base) == outside.resolve()
    finally:
        outside.unlink()


def test_a_scenes_db_that_starts_with_an_index_line_or_a_deletion_is_a_scenes_db(tmp_path):
    from engine.importers.detect import sniff

    lines = [{"$$indexCreated": {"fieldName": "name"}}, {"_id": "x", "$$deleted": True}, _scene("a", "A"),
             _scene("a", "A", walls=[_wall(0)])]
    db = _write(tmp_path / "scenes.db", "\n".join(json.dumps(x) for x in lines) + "\n")
    assert sniff(db).kind == "foundry"
    assert import_file(db).encounter.imported["foundry_counts"]["walls"] == 1
