"""Encounter files: loading, the errors a bad file gets, atomic saving, round trips."""

from __future__ import annotations

import json
import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EncounterFileError
from engine.files import dumps_encounter, load_encounter, loads_encounter, save_encounter
from engine.model import Encounter, MapSpec, Obstacle

ISSUE_EXAMPLE = {
    "format": "coverfire.encounter", "version": 1, "name": "Alley ambush", "ruleset": "sr5",
    "map": {"width": 60.0, "height": 40.0},
    "obstacles": [{"id": "car-1", "name": "Sedan", "height": 1.4,
                   "polygon": [[10, 5], [14.5, 5], [14.5, 6.8], [10, 6.8]]}],
    "tokens": [{"id": "sam", "name": "Sam", "side": "runner", "x": 3.0, "y": 6.0,
                "radius": 0.4, "stance": "standing", "hidden": False,
                "weapons": [{"name": "Ares Predator V", "category": "heavy_pistol"}]}],
    "zones": [{"id": "sup-1", "kind": "suppressive", "owner": "sam",
               "direction": 0, "length": 30, "width": 10}],
}


def _write(tmp_path, data, name="enc.json"):
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def _bad(tmp_path, mutate) -> EncounterFileError:
    data = json.loads(json.dumps(ISSUE_EXAMPLE))
    mutate(data)
    p = _write(tmp_path, data)
    with pytest.raises(EncounterFileError) as info:
        load_encounter(p)
    assert str(p) in str(info.value)
    return info.value


def test_the_issue_example_loads_with_defaults(tmp_path):
    enc = load_encounter(_write(tmp_path, ISSUE_EXAMPLE))
    sam = enc.token("sam")
    assert (sam.x, sam.y, sam.radius, sam.stance) == (3.0, 6.0, 0.4, "standing")
    assert enc.obstacles[0].polygon == ((10, 5), (14.5, 5), (14.5, 6.8), (10, 6.8))
    assert enc.zones[0].effective_width == 10
    assert enc.zone_origin(enc.zones[0]) == (3.0, 6.0)


def test_radius_defaults_to_0_4(tmp_path):
    data = json.loads(json.dumps(ISSUE_EXAMPLE))
    del data["tokens"][0]["radius"]
    assert load_encounter(_write(tmp_path, data)).tokens[0].radius == 0.4


def test_suppressive_width_shrinks_with_rounds():
    enc = loads_encounter(json.dumps({**ISSUE_EXAMPLE, "zones": [
        {"id": "s", "kind": "suppressive", "owner": "sam", "length": 20, "rounds": 13}]}))
    assert enc.zones[0].effective_width == 7  # 13 rounds: 7 short of 20, 3 pairs -> 10 - 3


def test_malformed_json_names_line_and_column(tmp_path):
    p = _write(tmp_path, '{"format": "coverfire.encounter",\n "version": 1,,}')
    with pytest.raises(EncounterFileError, match=r"malformed JSON at line 2, column 15"):
        load_encounter(p)



@pytest.mark.parametrize("depth", [900, 100_000])
def test_json_nested_too_deeply_is_a_clear_error_not_a_recursion_traceback(tmp_path, depth):
    # 900 levels parse, but walking them for NaNs must not overflow the stack either
    extra = "[" * depth + "]" * depth
    p = _write(tmp_path, json.dumps(ISSUE_EXAMPLE)[:-1] + f', "deep": {extra}}}')
    with pytest.raises(EncounterFileError) as info:
        load_encounter(p)
    assert "nested too deeply" in str(info.value) and str(p) in str(info.value)


def test_unknown_version(tmp_path):
    err = _bad(tmp_path, lambda d: d.update(version=7))
    assert err.path == "$.version" and "unknown version 7" in str(err)


def test_not_an_encounter(tmp_path):
    err = _bad(tmp_path, lambda d: d.update(format="something.else"))
    assert err.path == "$.format"


def test_missing_field_names_its_parent_path(tmp_path):
    err = _bad(tmp_path, lambda d: d["tokens"][0].pop("x"))
    assert err.path == "$.tokens[0]" and "missing required field 'x'" in err.reason


def test_nan_and_infinity_are_refused_with_their_path(tmp_path):
    p = _write(tmp_path, json.dumps(ISSUE_EXAMPLE).replace('"x": 3.0', '"x": NaN'))
    with pytest.raises(EncounterFileError) as info:
        load_encounter(p)
    assert info.value.path == "$.tokens[0].x"
    p = _write(tmp_path, json.dumps(ISSUE_EXAMPLE).replace('"height": 1.4', '"height": Infinity'))
    with pytest.raises(EncounterFileError) as info:
        load_encounter(p)
    assert info.value.path == "$.obstacles[0].height"


def test_polygon_with_two_points(tmp_path):
    err = _bad(tmp_path, lambda d: d["obstacles"][0].update(polygon=[[0, 0], [1, 1]]))
    assert err.path == "$.obstacles[0].polygon" and "at least 3" in err.reason


def test_self_crossing_polygon_is_rejected_and_says_where(tmp_path):
    bowtie = [[0, 0], [2, 2], [2, 0], [0, 2]]
    err = _bad(tmp_path, lambda d: d["obstacles"][0].update(polygon=bowtie))
    assert err.path == "$.obstacles[0].polygon"
    assert "crosses itself" in err.reason and "[1 1]" in err.reason


def test_unknown_owner_id(tmp_path):
    err = _bad(tmp_path, lambda d: d["zones"][0].update(owner="nobody"))
    assert err.path == "$.zones[0].owner" and "'nobody'" in err.reason


def test_duplicate_ids_across_kinds(tmp_path):
    err = _bad(tmp_path, lambda d: d["zones"][0].update(id="car-1"))
    assert err.path == "$.zones[0].id" and "duplicate id 'car-1'" in err.reason
    assert "$.obstacles[0].id" in err.reason


def test_unknown_weapon_category(tmp_path):
    err = _bad(tmp_path, lambda d: d["tokens"][0]["weapons"][0].update(category="railgun"))
    assert err.path == "$.tokens[0].weapons[0].category" and "heavy_pistol" in err.reason


def test_bad_stance_and_ruleset(tmp_path):
    assert _bad(tmp_path, lambda d: d["tokens"][0].update(stance="kneeling")).path == "$.tokens[0].stance"
    assert _bad(tmp_path, lambda d: d.update(ruleset="dnd")).path == "$.ruleset"


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(EncounterFileError, match="no such file"):
        load_encounter(tmp_path / "nope.json")
    with pytest.raises(EncounterFileError, match="folder"):
        load_encounter(tmp_path)


def test_unknown_fields_are_kept_on_save(tmp_path):
    data = json.loads(json.dumps(ISSUE_EXAMPLE))
    data["tokens"][0]["player"] = "Alice"
    data["weather"] = [{"x": 1, "y": 2}]
    enc = load_encounter(_write(tmp_path, data))
    out = tmp_path / "out.json"
    save_encounter(enc, out)
    back = json.loads(out.read_text())
    assert back["tokens"][0]["player"] == "Alice" and back["weather"] == [{"x": 1, "y": 2}]


def test_save_is_atomic_when_writing_fails(tmp_path, monkeypatch):
    target = tmp_path / "enc.json"
    enc = loads_encounter(json.dumps(ISSUE_EXAMPLE))
    save_encounter(enc, target)
    before = target.read_bytes()

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(EncounterFileError, match="No space left"):
        save_encounter(enc.model_copy(update={"name": "changed"}), target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["enc.json"]  # no temp file left behind


def test_demo_loads_and_round_trips(demo_path, tmp_path):
    enc = load_encounter(demo_path)
    assert sum(t.side == "runner" for t in enc.tokens) == 3
    assert sum(t.side == "ganger" for t in enc.tokens) == 6
    assert {z.kind for z in enc.zones} >= {"suppressive", "shotgun"}
    out = tmp_path / "demo.json"
    save_encounter(enc, out)
    assert load_encounter(out) == enc
    assert out.read_text(encoding="utf-8") == demo_path.read_text(encoding="utf-8")


# -- property: any valid encounter saves and loads back equal --------------------------------
coord = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False, allow_infinity=False)
pos = st.floats(min_value=0.01, max_value=100, allow_nan=False, allow_infinity=False)
side = st.floats(min_value=0.1, max_value=100, allow_nan=False, allow_infinity=False)  # limits.MIN_MAP_SIZE
text = st.text(max_size=12)


@st.composite
def encounters(draw):
    n_obs = draw(st.integers(0, 4))
    obstacles = []
    for i in range(n_obs):
        x, y, w, h = draw(coord), draw(coord), draw(pos), draw(pos)
        obstacles.append({"id": f"o{i}", "name": draw(text), "height": draw(pos),
                          "polygon": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]})
    tokens = [{"id": f"t{i}", "name": draw(text), "side": draw(st.sampled_from(["runner", "ganger"])),
               "x": draw(coord), "y": draw(coord), "radius": draw(st.floats(0.05, 50)),
               "stance": draw(st.sampled_from(["standing", "crouched", "prone"])),
               "hidden": draw(st.booleans()), "facing": draw(coord),
               "weapons": [{"name": "gun", "category": draw(st.sampled_from(["heavy_pistol", "shotgun_flechette"]))}]}
              for i in range(draw(st.integers(1, 4)))]
    zones = []
    for i in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["suppressive", "shotgun", "blast", "cone", "line", "rect"]))
        z = {"id": f"z{i}", "kind": kind, "direction": draw(coord), "owner": "t0"}
        if kind in ("blast", "rect"):
            z.update(x=draw(coord), y=draw(coord))
        if kind == "blast":
            z["radius"] = draw(pos)
        if kind in ("suppressive", "cone", "line", "rect"):
            z["length"] = draw(pos)
        if kind in ("line", "rect"):
            z["width"] = draw(pos)
        if kind == "cone":
            z["angle"] = draw(st.floats(1, 359))
        if kind == "shotgun":
            z["choke"] = draw(st.sampled_from(["narrow", "medium", "wide"]))
        zones.append(z)
    return {"format": "coverfire.encounter", "version": 1, "name": draw(text),
            "ruleset": draw(st.sampled_from(["sr5", "d100", "static-veil"])),
            "map": {"width": draw(side), "height": draw(side)},
            "obstacles": obstacles, "tokens": tokens, "zones": zones}


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(encounters())
def test_any_valid_encounter_saves_and_loads_back_equal(data):
    enc = loads_encounter(json.dumps(data))
    again = loads_encounter(dumps_encounter(enc))
    assert again == enc
    assert isinstance(again, Encounter)


def test_save_gives_new_files_normal_permissions_and_keeps_existing_ones(tmp_path):
    enc = loads_encounter(json.dumps(ISSUE_EXAMPLE))
    old = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.json"
        save_encounter(enc, fresh)
        assert fresh.stat().st_mode & 0o777 == 0o644
        kept = tmp_path / "kept.json"
        kept.write_text("{}")
        kept.chmod(0o600)
        save_encounter(enc, kept)
        assert kept.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)


def test_a_file_writes_each_polygon_on_one_line_and_a_big_map_saves_fast(tmp_path, monkeypatch):
    # a coordinate a line made a 5,000-obstacle map 24 MB, written by Python's slow
    # indenting encoder in over a second (fuzz case 3002:uvtt:1542's import took > 10 s CPU)
    square = [[0.0, 0.0], [1.5, 0.0], [1.5, 1.0], [0.0, 1.0]]
    one = Encounter(name="one", map=MapSpec(width=10, height=10),
                    obstacles=(Obstacle(id="o", height=2.0, polygon=tuple(map(tuple, square))),))
    text = dumps_encounter(one)
    assert '      "polygon": [[0.0, 0.0], [1.5, 0.0], [1.5, 1.0], [0.0, 1.0]],\n' in text
    assert text.startswith('{\n  "format": "coverfire.encounter",\n  "version": 2,\n') and text.endswith("}\n")
    ring = [(50 + 10 * math.cos(k / 40 * math.tau), 50 + 10 * math.sin(k / 40 * math.tau)) for k in range(40)]
    big = Encounter(name="big", map=MapSpec(width=2000, height=2000), obstacles=tuple(
        Obstacle(id=f"o{i}", height=2.0, polygon=tuple((x + 20 * (i % 90), y + 20 * (i // 90)) for x, y in ring))
        for i in range(5000)))
    # counted, not timed (bench/bench_bounds.py times it): the C encoder writes each polygon
    # in one call, a handful of calls an obstacle; never Python's indenting encoder, never a
    # call a coordinate (200,000 points)
    calls, indented = [0], []
    dumps = json.dumps

    def counted(*a, **k):
        calls[0] += 1
        if k.get("indent") is not None:
            indented.append(k["indent"])
        return dumps(*a, **k)

    monkeypatch.setattr(json, "dumps", counted)
    save_encounter(big, tmp_path / "big.json")
    monkeypatch.setattr(json, "dumps", dumps)
    assert indented == [] and calls[0] <= 16 * len(big.obstacles), calls[0]
    size = (tmp_path / "big.json").stat().st_size
    assert size < 9_000_000  # 200,000 points of ~40 bytes each and the obstacles' fields
    assert load_encounter(tmp_path / "big.json") == big
