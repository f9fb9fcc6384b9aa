"""Issue 25 item 5: what an encounter file keeps unread (fields Coverfire does not know) is
bounded, and a file past the bound is refused cheaply, before any other walk of it: the
bound named with the field's JSON path. Work is counted (values counted, checks that ran,
garbage collections during the parse), not timed."""

from __future__ import annotations

import gc
import json

import pytest

import engine.files as files
from assets import demo_encounter_path
from engine import limits, unknown_fields
from engine.errors import EncounterFileError
from engine.files import dumps_encounter, loads_encounter
from engine.unknown_fields import MAX_KEPT_VALUES, check_unknown_fields

DEMO = demo_encounter_path().read_text(encoding="utf-8")


def _with(**fields) -> str:
    """The demo's text with ``fields`` added at the top (spliced as text, as a bomb is)."""
    body = DEMO.rstrip()
    return body[:-1] + "".join(f', "{k}": {v}' for k, v in fields.items()) + "}"


@pytest.fixture
def work(monkeypatch):
    """What ran: the values the unknown-field check counted, and the later checks called."""
    did = {"counted": [], "check_data": 0, "model": 0}
    real_check = check_unknown_fields

    def counted(data, **kw):
        n = real_check(data, **kw)
        did["counted"].append(n)
        return n

    def check_data(*a, **kw):
        did["check_data"] += 1

    def model(*a, **kw):
        did["model"] += 1

    monkeypatch.setattr(files, "check_unknown_fields", counted)
    monkeypatch.setattr(files.limits, "check_data", check_data)
    monkeypatch.setattr(files, "encounter_from_data", model)
    return did


@pytest.mark.parametrize("pairs", [150_000])
def test_an_encounter_of_pairs_is_refused_after_counting_one_field_s_bound(work, pairs):
    # (2606:bomb:286 of the campaign: 15 MB, 1,250,000 pairs, 3,750,000 values, under the
    # file's 5,000,000: opened, saved and reopened in 5-7 s of CPU, 1 GiB of a worker's memory;
    # the bound is in values, so 150,000 pairs show it at an eighth of the parse)
    text = _with(fuzz_other_tool="[" + "[1.5,-2.25]," * (pairs - 1) + "[1.5,-2.25]]")
    assert limits.json_items(text) < limits.MAX_JSON_ITEMS
    steps = []
    real = unknown_fields._Counter._count

    def count(self, value, loc):
        try:
            real(self, value, loc)
        finally:
            steps.append(self.steps)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(unknown_fields._Counter, "_count", count)
        with pytest.raises(EncounterFileError) as e:
            loads_encounter(text, file="pairs.json")
    msg = str(e.value)
    assert "pairs.json" in msg and "$.fuzz_other_tool" in msg and f"at most {MAX_KEPT_VALUES:,}" in msg
    assert steps[-1] <= MAX_KEPT_VALUES + 1  # (stopped at the bound, not after 3,750,000)
    assert work["check_data"] == 0 and work["model"] == 0  # (nothing else walked it)


def test_many_fields_each_under_the_bound_are_refused_together(work, monkeypatch):
    monkeypatch.setattr(unknown_fields, "MAX_UNKNOWN_VALUES", 10 * 9_000)  # (the rule, at a tenth of its size)
    fields = {f"tool_{i}": "[" + ",".join(["0"] * 8_999) + "]" for i in range(11)}
    with pytest.raises(EncounterFileError) as e:
        loads_encounter(_with(**fields), file="many.json")
    msg = str(e.value)
    assert "$.tool_10" in msg and "90,000 values together" in msg
    assert work["model"] == 0


def test_a_field_of_a_token_is_bounded_too_and_named_where_it_is():
    d = json.loads(DEMO)
    d["tokens"][1]["their_tool"] = {"fine": [1, 2], "notes": [[0, 0]] * 40_000}  # 120,001 values in one member
    with pytest.raises(EncounterFileError) as e:
        loads_encounter(json.dumps(d), file="t.json")
    assert "$.tokens[1].their_tool.notes" in str(e.value)


def test_what_the_model_reads_is_not_counted_and_each_member_of_a_kept_object_has_its_budget():
    d = json.loads(DEMO)
    n_demo = check_unknown_fields(d)
    assert n_demo == 0  # (the demo holds only fields Coverfire reads: its tokens, rules, map, ...)
    d["their_tool"] = {"a": list(range(60_000)), "b": list(range(60_000))}  # each member under the bound
    assert check_unknown_fields(d) == 1 + 2 * 60_001
    enc = loads_encounter(json.dumps(d), file="kept.json")
    assert loads_encounter(dumps_encounter(enc)) == enc and len(enc.model_extra["their_tool"]["b"]) == 60_000


def test_what_an_import_keeps_of_another_tool_s_data_loads_back():
    # (the importers' copy, engine/importers/storable.py, keeps to the same bound)
    from engine.importers.storable import storable

    kept = storable({"small": list(range(99_990)), "big": list(range(100_001))}, "$")
    assert sorted(kept) == ["small"]
    d = json.loads(DEMO)
    d["imported"] = {"unknown_fields": kept}
    enc = loads_encounter(json.dumps(d), file="imported.json")
    assert loads_encounter(dumps_encounter(enc)) == enc


def test_the_parse_runs_no_garbage_collection():
    # (1,250,000 pairs: 1.0-1.8 s of CPU with the collector running every 700 containers, 0.27 s without)
    text = "[" + "[1,2]," * 20_000 + "[1,2]]"

    def collections(parse) -> int:
        gc.collect()
        before = sum(s["collections"] for s in gc.get_stats())
        parse(text)
        return sum(s["collections"] for s in gc.get_stats()) - before

    assert gc.isenabled()
    assert collections(json.loads) > 10  # (what the plain parse costs)
    assert collections(limits.parse_json) == 0 and gc.isenabled()
    assert limits.parse_json(text)[-1] == [1, 2]
    with pytest.raises(json.JSONDecodeError):
        limits.parse_json("[1,")
    assert gc.isenabled()


def test_an_import_whose_lights_keep_too_much_is_imported_without_their_copied_fields(tmp_path, monkeypatch):
    # (each light's other fields are copied as given, each under the bound: together past what
    # an encounter file keeps unread, the whole map was refused as "would not load back")
    from engine.importers.uvtt import import_uvtt

    monkeypatch.setattr(unknown_fields, "MAX_UNKNOWN_VALUES", 50_000)  # (the rule at a twentieth of its size)
    lights = [{"position": {"x": 1 + i, "y": 1}, "range": 2, "intensity": 1, "color": "ffffffff",
               "junk": list(range(9_000))} for i in range(12)]
    d = {"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 20, "y": 20},
                                       "pixels_per_grid": 70},
         "line_of_sight": [[{"x": 2, "y": 2}, {"x": 8, "y": 2}]], "lights": lights}
    p = tmp_path / "lit.dd2vtt"
    p.write_text(json.dumps(d), encoding="utf-8")
    enc, rep = import_uvtt(p)
    assert len(enc.lights) == 12 and not any(light.model_extra for light in enc.lights)
    assert any("those of the lights" in w.message and "50,000 values together" in w.message for w in rep.warnings)
    assert loads_encounter(dumps_encounter(enc)) == enc
