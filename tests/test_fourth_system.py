"""The proof of the one rule-system interface (issue #12 item 7): a fourth system that lives
only in the test folder (tests/cover_only: cover class as a number, Move and an Aimed shot)
loads, is analysed, exported headless, saved and loaded back, and no file outside tests/
names it. (The window side waits for gui/rules/base.py's RuleGui registry.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import rules
from engine.errors import EncounterFileError

ROOT = Path(__file__).resolve().parents[1]

#: A 3 m wall (taller than any eye) from y = 5 to 15 at x = 10..11 between Ana (5, 10) and
#: Bo (16, 10): full cover; Cy (8, 2) stands west of the wall, so nothing lies between: no cover.
FILE = {
    "format": "coverfire.encounter", "version": 2, "name": "Cover only", "ruleset": "cover-only",
    "map": {"width": 30, "height": 20},
    "obstacles": [{"id": "wall", "name": "Wall", "height": 3, "polygon": [[10, 5], [11, 5], [11, 15], [10, 15]]}],
    "tokens": [
        {"id": "ana", "name": "Ana", "x": 5, "y": 10, "weapons": [{"name": "Pistol", "category": "heavy_pistol"}]},
        {"id": "bo", "name": "Bo", "x": 16, "y": 10, "rules": {"cover-only": {"toughness": 1}}},
        {"id": "cy", "name": "Cy", "x": 8, "y": 2},
    ],
    "rules": {"cover-only": {"values": {"none": 0, "partial": 1, "good": 3, "full": 5}}},
}


@pytest.fixture
def cover_only():
    from tests.cover_only.system import SYSTEM

    rules.register(SYSTEM)
    yield SYSTEM
    rules.unregister(SYSTEM.name)


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "cover-only.json"
    p.write_text(json.dumps(FILE), encoding="utf-8")
    return p


def test_without_the_system_the_file_is_refused_by_name(path):
    from engine.files import load_encounter

    with pytest.raises(EncounterFileError, match="unknown ruleset 'cover-only'; known: d100, sr5, static-veil"):
        load_encounter(path)


def test_the_fourth_system_loads_analyses_moves_and_round_trips(cover_only, path, tmp_path):
    from engine.analysis import DEFAULT_CHARGE_MOVEMENT, Tactics
    from engine.files import load_encounter, save_encounter

    enc = load_encounter(path)
    assert enc.system is cover_only and rules.find_system("cover-only") is cover_only
    assert enc.token("bo").rules["cover-only"] == cover_only.Sheet(toughness=1)
    assert cover_only.settings(enc).values["full"] == 5
    tac = Tactics(enc)
    assert tac.cover("ana")["bo"].cls == "full" and tac.cover("ana")["cy"].cls == "none"
    assert cover_only.cover_number(enc, "ana", "bo", tac) == 6  # full 5 + toughness 1
    assert cover_only.cover_number(enc, "ana", "cy", tac) == 0
    assert tac.charge_movement("ana") == DEFAULT_CHARGE_MOVEMENT  # no movement rule of its own
    assert [o.key for o in cover_only.actions(enc, "ana")] == ["move", "aimed_shot"]
    assert cover_only.why_not(enc, object()) == "Cover only has no actions but Move (drag the token) and the Aimed shot"
    out = cover_only.on_moves(enc, [rules.MoveTo("bo", (16.0, 18.0))])
    assert out.encounter.token("bo").y == 18.0 and out.changes.tokens == {"bo"} and out.label == "Move Bo"
    # Bo at (16, 18): the line from (5, 10) crosses x = 10..11 at y = 13.6..14.4, inside the wall's span
    assert cover_only.cover_number(out.encounter, "ana", "bo") == 6
    saved = tmp_path / "again.json"
    save_encounter(out.encounter, saved)
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert data["ruleset"] == "cover-only" and data["rules"] == FILE["rules"]
    assert data["tokens"][1]["rules"] == {"cover-only": {"toughness": 1}}
    assert load_encounter(saved) == out.encounter
    bad = dict(FILE, tokens=[dict(FILE["tokens"][1], rules={"cover-only": {"toughness": 99}})])
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(EncounterFileError) as exc:
        load_encounter(p)
    assert exc.value.path == "$.tokens[0].rules.cover-only.toughness"


def test_the_aimed_shot_runs_its_typed_phases_with_its_own_weapons(cover_only):
    """Issue 27 item 6: an action with dice. Ana's sling aims -1: against Cy in the open
    (cover number 0) a shot needs 2 + 0 + 1 = 3 on a d6; against Bo (full 5 + toughness 1 = 6)
    it would need 9: refused. A hit gives the target a wound."""
    from engine.errors import IllegalActionError
    from engine.files import encounter_from_data
    from tests.cover_only.system import AimedResult, AimedShot

    data = json.loads(json.dumps(FILE))
    data["tokens"][0]["rules"] = {"cover-only": {"weapon": "sling"}}
    enc = encounter_from_data(data)
    opts = {o.key: o for o in cover_only.actions(enc, "ana", "cy")}
    assert opts["aimed_shot"].allowed and opts["aimed_shot"].action == AimedShot("ana", "cy")
    assert cover_only.why_not(enc, AimedShot("ana", "bo")) == "it cannot hit: it needs 9 on a d6"
    assert cover_only.why_not(encounter_from_data(FILE), AimedShot("ana", "cy")).startswith("Ana has no weapon")
    plan = cover_only.preview(enc, AimedShot("ana", "cy"))
    assert (plan.cover, plan.cover_number, plan.aim, plan.needed) == ("none", 0, -1, 3)
    assert cover_only.describe(plan)[-1] == "needs 3+ on a d6"
    miss = cover_only.resolve(plan, cover_only.dice_from_data("2"))
    assert isinstance(miss, AimedResult) and (miss.roll, miss.hit) == (2, False)
    out = cover_only.apply(enc, miss)
    assert out.encounter == enc and out.changes.log == ("Ana shoots Cy: rolls 2, needs 3: miss",)
    out = cover_only.apply(enc, cover_only.resolve(plan, 3))
    assert out.encounter.token("cy").rules["cover-only"].wounds == 1 and out.changes.tokens == {"cy"}
    assert out.changes.log == ("Ana shoots Cy: rolls 3, needs 3: hit (Cy has 1 wound)",)
    assert out.label == "Aimed shot: Ana \u2192 Cy"
    with pytest.raises(IllegalActionError, match="a d6 shows 1 to 6, not '7'"):
        cover_only.dice_from_data("7")
    with pytest.raises(IllegalActionError, match="needs 9"):
        cover_only.preview(enc, AimedShot("ana", "bo"))


def test_the_schema_lists_the_fourth_system(cover_only):
    from engine.schema import encounter_schema

    s = encounter_schema()
    assert "cover-only" in s["properties"]["ruleset"]["enum"]
    ref = s["$defs"]["Token"]["properties"]["rules"]["properties"]["cover-only"]["$ref"]
    assert s["$defs"][ref.split("/")[-1]]["properties"]["toughness"]["maximum"] == 10


def test_the_cli_analyses_and_exports_it_headless(cover_only, path, tmp_path, capsys):
    from gui.cli import main

    assert main(["analyze", str(path), "--attacker", "ana", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["attacker"] == "ana" and report["weapon"] == "Pistol"
    rows = {r["id"]: r for r in report["targets"]}
    assert rows["bo"]["cover"]["class"] == "full" and rows["cy"]["cover"]["class"] == "none"
    out = tmp_path / "map.png"
    assert main(["export", str(path), "-o", str(out), "--view", "gm"]) == 0
    from gui import style
    from tests.gui.test_export import Png, _near

    png = Png(out)
    for x, y in ((5, 10), (16, 10), (8, 2)):  # each token's disc, in its side's colour
        assert _near(png.at(x - 0.2, y - 0.2), style.side_colour("neutral"), 25), (x, y, png.at(x, y))
    assert _near(png.at(23.5, 17.5), style.MAP_GROUND, 10)  # open ground between grid lines
    assert _near(png.at(10.5, 12.5), style.HEIGHT_FILL["full"], 8)  # the 3 m wall


def test_no_file_outside_tests_names_the_fourth_system():
    hits = [p for d in ("engine", "gui", "geometry", "docs", "assets") for p in (ROOT / d).rglob("*")
            if p.is_file() and p.suffix in (".py", ".json", ".md") and "cover-only" in p.read_text(encoding="utf-8")]
    assert [h for h in hits if h.name != "rule-systems.md"] == []

