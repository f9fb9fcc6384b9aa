"""Encounter edits behind the map tools and the inspector (pure functions, no window)."""

from __future__ import annotations

import math

import pytest

from engine.errors import EncounterFileError, GeometryError
from engine.files import load_encounter
from gui import edits


@pytest.fixture
def demo(demo_path):
    return load_encounter(demo_path)


def test_diff_sees_only_the_moved_token_and_keeps_the_rest_identical(demo):
    moved = edits.move_tokens(demo, {"sam": (13.0, 21.0)})
    assert moved.token("sam").x == 13.0 and moved.token("sam").y == 21.0
    assert moved.obstacles is demo.obstacles and moved.zones is demo.zones
    assert moved.token("nyx") is demo.token("nyx")
    d = edits.diff(demo, moved)
    assert d.tokens == {"sam"} and d.only_token_positions
    assert not d.obstacles and not d.zones and not d.map


def test_diff_flags_a_change_of_looks_and_of_obstacles(demo):
    crouched = edits.apply_fields(demo, "sam", {"stance": "prone"})
    d = edits.diff(demo, crouched)
    assert d.tokens == {"sam"} and d.token_looks and not d.only_token_positions
    taller = edits.apply_fields(demo, "car-1", {"height": 2.5})
    assert edits.diff(demo, taller).obstacles


def test_translate_moves_tokens_polygons_and_free_zones_but_not_owned_zones(demo):
    out = edits.translate(demo, ["sam", "car-1", "sup-1"], 2.0, -1.0)
    assert (out.token("sam").x, out.token("sam").y) == (14.0, 19.0)
    # car-1 was [[21,16],[25.5,16],[25.5,17.8],[21,17.8]]
    assert out.obstacle("car-1").polygon[0] == (23.0, 15.0)
    assert out.obstacle("car-1").polygon[2] == (27.5, 16.8)
    # sup-1 follows its owner Sam (no x, y of its own): unchanged as a value
    assert out.zone("sup-1") == demo.zone("sup-1")


def test_a_self_crossing_vertex_move_is_refused_by_the_engine_check(demo):
    # car-1 corners (21,16) (25.5,16) (25.5,17.8) (21,17.8): dragging corner 0 to (21,19)
    # makes edge 0-1 run from (21,19) to (25.5,16); at y 17.8 it is at x 22.8, inside edge
    # 2-3 (x 21..25.5): the outline crosses itself (a bow tie).
    pts = list(demo.obstacle("car-1").polygon)
    pts[0] = (21.0, 19.0)
    assert "crosses itself" in edits.polygon_ok(pts)
    pts[0] = (20.0, 15.0)
    assert edits.polygon_ok(pts) is None


def test_aim_zone_points_from_the_owner_at_the_mouse(demo):
    # Sam stands at (12, 20); aiming at (15, 24) is 3-4-5: length 5 m, direction atan2(4, 3)
    out = edits.aim_zone(demo, "sup-1", (15.0, 24.0))
    z = out.zone("sup-1")
    assert z.length == pytest.approx(5.0)
    assert z.direction == pytest.approx(math.degrees(math.atan2(4, 3)), abs=0.01)  # 53.13 deg


def test_resize_zone_sets_the_radius_to_the_mouse(demo):
    blast = edits.default_zone(demo, "blast", None, (30.0, 20.0))
    enc = edits.add(demo, blast)
    out = edits.resize_zone(enc, blast.id, (33.0, 24.0))  # 3-4-5 again
    assert out.zone(blast.id).radius == pytest.approx(5.0)


def test_wall_outline_is_the_line_grown_by_half_the_thickness():
    # a straight 4 m wall 0.4 m thick: the rectangle x 0..4, y -0.2..0.2
    ring = edits.wall_outline([(0.0, 0.0), (4.0, 0.0)], 0.4)
    xs, ys = sorted({p[0] for p in ring}), sorted({p[1] for p in ring})
    assert xs == [0.0, 4.0] and ys == [-0.2, 0.2]
    # an L: (0,0)-(4,0)-(4,3), 0.2 thick, mitred: outer corner at (4.1, -0.1)
    ring = edits.wall_outline([(0.0, 0.0), (4.0, 0.0), (4.0, 3.0)], 0.2)
    assert (4.1, -0.1) in ring and (3.9, 0.1) in ring
    with pytest.raises(GeometryError):
        edits.wall_outline([(1.0, 1.0)], 0.2)


def test_delete_takes_the_zones_of_a_deleted_token_along(demo):
    out = edits.delete(demo, ["sam"])
    assert "sam" not in {t.id for t in out.tokens}
    assert [z.id for z in out.zones] == ["spread-1"]  # sup-1 belonged to Sam
    edits.checked(out)  # still a valid encounter


def test_duplicate_gives_fresh_ids_and_owned_zones_follow_the_copy(demo):
    out, new_ids = edits.duplicate(demo, ["sam", "sup-1", "car-1"])
    assert new_ids == ["sam-1", "sup-2", "car-4"]
    copy = out.token("sam-1")
    assert (copy.x, copy.y) == (13.0, 21.0)
    assert out.zone("sup-2").owner == "sam-1"
    assert out.obstacle("car-4").polygon[0] == (22.0, 17.0)


def test_apply_fields_reports_the_engines_refusal_with_the_field(demo):
    with pytest.raises(EncounterFileError) as e:
        edits.apply_fields(demo, "sam", {"radius": -1})
    assert e.value.path == "$.radius" and "greater than 0" in str(e.value)
    with pytest.raises(EncounterFileError) as e:
        edits.apply_fields(demo, "sup-1", {"owner": "nobody"})
    assert "no token" in str(e.value)
    with pytest.raises(EncounterFileError):
        edits.apply_fields(demo, "sam", {"id": "nyx"})  # taken
    with pytest.raises(EncounterFileError) as e:
        edits.apply_encounter_fields(demo, {"map.grid": 0})
    assert e.value.path == "$.map.grid"


def test_renaming_a_token_renames_it_as_zone_owner(demo):
    out = edits.apply_fields(demo, "sam", {"id": "samuel"})
    assert out.zone("sup-1").owner == "samuel"


def test_snap_rounds_to_the_grid_and_offsets():
    assert edits.snap(3.26, 0.5) == 3.5
    assert edits.snap(3.26, 1.0, 0.5) == 3.5
    assert edits.snap(2.9, 1.0, 0.5) == 2.5


def test_rebase_background_follows_the_file_to_another_folder(demo, tmp_path):
    from engine.model import Background

    def with_image(image):
        bg = Background(image=image, width=60.0, height=40.0)
        return demo.model_copy(update={"map": demo.map.model_copy(update={"background": bg})})

    old = tmp_path / "maps" / "fight.json"
    # maps/street.png seen from tmp/out/deeper: up two, then maps/street.png
    moved = edits.rebase_background(with_image("street.png"), old, tmp_path / "out" / "deeper")
    assert moved.map.background.image == "../../maps/street.png"
    assert moved.obstacles is demo.obstacles  # only the map changes
    same = with_image("street.png")
    assert edits.rebase_background(same, old, tmp_path / "maps") is same  # same folder: the same value
    for kept in (str(tmp_path / "abs.png"), "data:image/png;base64,AAAA"):
        enc = with_image(kept)
        assert edits.rebase_background(enc, old, tmp_path / "out") is enc
    assert edits.rebase_background(demo, old, tmp_path / "out") is demo  # no background


def test_translating_only_tokens_keeps_the_obstacle_and_zone_tuples(demo):
    # (a token drag step: the obstacles are not looked at, the tuples stay the same objects)
    t = demo.tokens[0]
    out = edits.translate(demo, [t.id], 1.5, -0.5)
    assert out.obstacles is demo.obstacles and out.zones is demo.zones
    moved = out.token(t.id)
    assert (moved.x, moved.y) == pytest.approx((t.x + 1.5, t.y - 0.5))
    # with an obstacle among the ids, the obstacle moves too
    o = demo.obstacles[0]
    both = edits.translate(demo, [t.id, o.id], 1.0, 0.0)
    assert both.obstacle(o.id).polygon[0] == pytest.approx((o.polygon[0][0] + 1.0, o.polygon[0][1]))


def test_an_edit_replaces_the_object_where_it_stands():
    from bench.scene import make_scene
    from gui import edits

    enc = make_scene(2, tokens=10, obstacles=60, size=40.0)
    o = enc.obstacles[37]
    moved = o.model_copy(update={"polygon": tuple((x + 1.0, y) for x, y in o.polygon)})
    after = edits.replace(enc, moved)
    assert after.obstacles == enc.obstacles[:37] + (moved,) + enc.obstacles[38:]
    t = enc.tokens[4].model_copy(update={"x": enc.tokens[4].x + 0.5})
    assert edits.replace(enc, t).tokens == enc.tokens[:4] + (t,) + enc.tokens[5:]
