"""Issue 25 item 8 (the file): an encounter file is read as written. A value the model
would silently change into another type (``1`` -> true, ``"10"`` -> 10.0, ``false`` -> 0,
``5.0`` -> 5) is refused with its JSON path; arrays for tuples and whole numbers for floats
stay valid, and every bundled demo and golden scenario still loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import EncounterFileError
from engine.files import load_encounter, loads_encounter

ROOT = Path(__file__).resolve().parents[2]
DEMO = json.loads((ROOT / "assets" / "encounters" / "demo.json").read_text(encoding="utf-8"))


def _with(path: tuple, value):
    d = json.loads(json.dumps(DEMO))
    o = d
    for k in path[:-1]:
        o = o[k]
    o[path[-1]] = value
    return json.dumps(d)


@pytest.mark.parametrize("path, value, where, words", [
    (("tokens", 0, "hidden"), 1, "$.tokens[0].hidden", "expected true or false, got 1"),
    (("tokens", 0, "hidden"), "true", "$.tokens[0].hidden", "expected true or false"),
    (("tokens", 0, "x"), "10", "$.tokens[0].x", "expected a number, got the text '10'"),
    (("tokens", 0, "x"), False, "$.tokens[0].x", "expected a number, got false"),
    (("map", "grid"), True, "$.map.grid", "expected a number, got true"),
    (("obstacles", 0, "polygon", 1, 0), "3", "$.obstacles[0].polygon[1][0]", "expected a number"),
    (("obstacles", 0, "door"), 0, "$.obstacles[0].door", "expected true or false, got 0"),
    (("tokens", 0, "rules", "sr5", "agility"), False, "$.tokens[0].rules.sr5.agility", "expected a whole number"),
    (("tokens", 0, "rules", "sr5", "agility"), 5.0, "$.tokens[0].rules.sr5.agility", "without the fraction"),
    (("tokens", 0, "weapons", 0, "ap"), "-1", "$.tokens[0].weapons[0].ap", "expected a whole number"),
])
def test_a_coerced_value_is_refused_with_its_path(path, value, where, words):
    with pytest.raises(EncounterFileError) as e:
        loads_encounter(_with(path, value), file="fight.json")
    msg = str(e.value)
    assert where in msg and words in msg and "fight.json" in msg


def test_json_without_tuples_and_whole_numbers_for_floats_stay_valid():
    enc = loads_encounter(_with(("tokens", 0, "x"), 10), file="fight.json")
    assert enc.tokens[0].x == 10.0


def test_a_version_1_sheet_is_walked_too():
    d = json.loads(json.dumps(DEMO))
    d["version"] = 1
    t = d["tokens"][0]
    t["sr5"] = dict(t.pop("rules")["sr5"], agility="4")
    with pytest.raises(EncounterFileError, match=r"\$\.tokens\[0\]\.sr5\.agility"):
        loads_encounter(json.dumps(d), file="old.json")


def test_every_bundled_and_golden_encounter_still_loads():
    found = 0
    for p in sorted([*(ROOT / "assets" / "encounters").glob("*.json"), *(ROOT / "tests").rglob("*.json")]):
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(d, dict) and d.get("format") == "coverfire.encounter":
            load_encounter(p)
            found += 1
    assert found >= 4
