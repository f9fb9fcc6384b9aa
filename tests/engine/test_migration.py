"""Version-1 files (one field per rule system: ``"sr5": {...}`` beside ``x``) load into the
version-2 form (``"rules": {"sr5": {...}}``) and save as version 2, loading back equal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import EncounterFileError
from engine.files import dumps_encounter, encounter_from_data, load_encounter, loads_encounter, save_encounter
from engine.model import VERSION, Encounter, Token
from engine.rules import find_system

ROOT = Path(__file__).resolve().parents[2]
V1 = Path(__file__).parent / "data" / "v1"
DEMOS = sorted(p.name for p in (ROOT / "assets" / "encounters").glob("demo*.json"))  # (not the recorded fight)
LEGACY = {"sr5": "sr5", "d100": "d100", "static_veil": "static-veil"}


def _legacy_sheets(data: dict) -> dict[str, dict[str, dict]]:
    """{token id: {ruleset: sheet data}} as a version-1 file spells them."""
    return {t["id"]: {LEGACY[k]: v for k, v in t.items() if k in LEGACY} for t in data["tokens"]}


def test_every_bundled_demo_has_a_version_1_copy_here():
    assert DEMOS == ["demo-d100.json", "demo-static-veil.json", "demo.json"]
    assert sorted(p.name for p in V1.glob("*.json")) == DEMOS


@pytest.mark.parametrize("name", DEMOS)
def test_a_version_1_demo_loads_as_the_bundled_version_2_demo(name, tmp_path):
    old_path = V1 / name
    old = json.loads(old_path.read_text(encoding="utf-8"))
    assert old["version"] == 1 and "rules" not in old
    enc = load_encounter(old_path)
    assert enc.version == VERSION == 2
    # every sheet and setting of the old file is under rules now, by ruleset name
    sheets = _legacy_sheets(old)
    assert sum(len(v) for v in sheets.values()) > 0
    for t in enc.tokens:
        assert set(t.rules) == set(sheets[t.id])
        for ruleset, data in sheets[t.id].items():
            assert t.rules[ruleset] == find_system(ruleset).Sheet.model_validate(data)
    assert set(enc.rules) == {LEGACY[k] for k in old if k in LEGACY}
    for k in set(old) & set(LEGACY):
        assert enc.rules[LEGACY[k]] == find_system(LEGACY[k]).Settings.model_validate(old[k])
    # the bundled demo is the same encounter, saved in the new form
    assert enc == load_encounter(ROOT / "assets" / "encounters" / name)
    out = tmp_path / name
    save_encounter(enc, out)
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["version"] == 2 and not (set(saved) & set(LEGACY))
    assert all(not (set(t) & set(LEGACY)) and set(t.get("rules", {})) == set(sheets[t["id"]]) for t in saved["tokens"])
    assert load_encounter(out) == enc
    assert out.read_text(encoding="utf-8") == (ROOT / "assets" / "encounters" / name).read_text(encoding="utf-8")


def test_a_version_1_error_is_located_at_the_old_field_name():
    data = json.loads((V1 / "demo-static-veil.json").read_text(encoding="utf-8"))
    data["tokens"][0]["static_veil"]["ap_per_turn"] = -1
    with pytest.raises(EncounterFileError) as exc:
        encounter_from_data(data)
    assert exc.value.path == "$.tokens[0].static_veil.ap_per_turn"
    data = json.loads((ROOT / "assets" / "encounters" / "demo-static-veil.json").read_text(encoding="utf-8"))
    data["tokens"][0]["rules"]["static-veil"]["ap_per_turn"] = -1
    with pytest.raises(EncounterFileError) as exc:
        encounter_from_data(data)
    assert exc.value.path == "$.tokens[0].rules.static-veil.ap_per_turn"


def test_the_same_data_twice_and_unknown_systems_are_refused_with_the_place():
    base = {"format": "coverfire.encounter", "version": 2, "map": {"width": 10, "height": 10}}
    twice = {**base, "tokens": [{"id": "a", "x": 1, "y": 1, "sr5": {}, "rules": {"sr5": {}}}]}
    with pytest.raises(EncounterFileError, match="'sr5' and rules.sr5 both give") as exc:
        encounter_from_data(twice)
    assert exc.value.path == "$.tokens[0]"
    unknown = {**base, "tokens": [{"id": "a", "x": 1, "y": 1, "rules": {"dnd5e": {}}}]}
    with pytest.raises(EncounterFileError, match="unknown ruleset 'dnd5e'; known: d100, sr5, static-veil") as exc:
        encounter_from_data(unknown)
    assert exc.value.path == "$.tokens[0].rules"
    with pytest.raises(EncounterFileError, match="unknown ruleset 'gurps'") as exc:
        encounter_from_data({**base, "ruleset": "gurps"})
    assert exc.value.path == "$.ruleset"
    with pytest.raises(EncounterFileError, match="reads versions 1, 2"):
        encounter_from_data({**base, "version": 3})


def test_code_may_still_say_sr5_but_the_value_holds_rules():
    t = Token(id="a", x=1, y=1, sr5={"agility": 5})
    assert t.rules["sr5"].agility == 5 and "sr5" not in (t.model_extra or {})
    assert t.with_rules("sr5", None).rules == {} and t.rules["sr5"].agility == 5
    e = Encounter(map={"width": 5, "height": 5}, tokens=(t,))
    assert e.ruleset == "sr5" and e.system.name == "sr5"
    assert loads_encounter(dumps_encounter(e)) == e


def _sample_encounters(samples_dir):
    from engine.importers.chummer import add_character, import_chummer
    from engine.importers.uvtt import import_uvtt

    maps = sorted((samples_dir / "uvtt").iterdir())
    chars = sorted((samples_dir / "chummer").glob("*.chum5"))
    assert maps and chars
    for m in maps:
        enc, _ = import_uvtt(m)
        yield m.name, enc
    host = Encounter(map={"width": 30, "height": 20})
    for c in chars:
        token, _ = import_chummer(c)
        host, _ = add_character(host, token)
    yield "chummer", host


def test_every_sample_that_converts_to_an_encounter_saves_as_version_2_and_loads_back(samples_dir, tmp_path):
    seen = []
    for name, enc in _sample_encounters(samples_dir):
        out = tmp_path / f"{name}.json"
        save_encounter(enc, out)
        data = json.loads(out.read_text(encoding="utf-8"))
        assert data["version"] == 2 and not (set(data) & set(LEGACY)), name
        assert all(not (set(t) & set(LEGACY)) for t in data.get("tokens", [])), name
        assert load_encounter(out) == enc, name
        seen.append(name)
    # UVTT maps carry sr5 light under rules; Chummer characters their sr5 sheets
    assert len(seen) == 4
    chummer = load_encounter(tmp_path / "chummer.json")
    assert len(chummer.tokens) == 2 and all(set(t.rules) == {"sr5"} for t in chummer.tokens)
