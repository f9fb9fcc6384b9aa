"""The d100 rule system's API around the rules: registry, undo/redo, dice sources, errors,
the file format. The rules' numbers are in the golden scenarios (tests/golden/d100)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engine.d100.actions import Aim, ChangeStance, EndTurn, Fire, StartRound, TargetSpec
from engine.d100.dice import EnteredDice, ScriptedDice
from engine.errors import EncounterFileError, IllegalActionError
from engine.files import dumps_encounter, encounter_from_data, loads_encounter
from engine.model import Encounter
from engine.rules import find_system

RULESET = find_system("d100")


def enc(settings=None):
    return Encounter.model_validate({
        "ruleset": "d100", "map": {"width": 30, "height": 30},
        "tokens": [
            {"id": "a", "name": "Ana", "x": 1, "y": 1, "d100": {
                "skills": {"pistol": 60},
                "weapons": [{"name": "P", "kind": "pistol", "skill": "pistol", "damage": "2d6+1"}],
                "weapon": "P"}},
            {"id": "b", "name": "Bo", "x": 8, "y": 1},
        ],
        "d100": settings or {},
    })


def test_registry_and_lazy_import():
    assert RULESET is find_system("d100") and not hasattr(RULESET, "native")  # the system is the rules
    # engine.model imports engine.d100.sheet while it is built: no cycle through the rules
    out = subprocess.run([sys.executable, "-c", "import engine.model; import engine.d100.sheet"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_damage_dice_expression_and_records():
    e = enc()
    ch = RULESET.apply(e, Fire("a", ("b",)), ScriptedDice([30, 20, 4, 5])).detail
    # 2d6+1 = 4 + 5 + 1 = 10 on the chest: light and heavy
    assert ch.shots[0].damage.rolled == 10
    assert [r.label for r in ch.rolls] == ["hit", "location", "damage", "damage"]
    assert ch.changed_ids == ("a", "b")  # the shooter has acted, the target is hurt
    assert ch.encounter.token("b").rules["d100"].wounds["chest"].severity == "heavy"
    assert ch.encounter.token("b").stance == "prone"  # the map body follows the fall


def test_the_change_holds_the_touched_tokens_before_and_after():
    e = enc()
    ch = RULESET.apply(e, Fire("a", ("b",)), ScriptedDice([30, 20, 4, 5])).detail
    b = next(c for c in ch.tokens if c.id == "b")
    assert b.sheet_before == e.token("b").rules.get("d100") and b.sheet_after == ch.encounter.token("b").rules["d100"]
    assert ch.settings_before == e.rules.get("d100")


def test_seeded_dice_replay_after_undo():
    e = enc({"seed": 42})
    ch1 = RULESET.apply(e, Fire("a", ("b",))).detail
    assert RULESET.settings(ch1.encounter).rolls == len(ch1.rolls)
    ch2 = RULESET.apply(e, Fire("a", ("b",))).detail  # the document's undo puts back e itself
    assert [r.value for r in ch2.rolls] == [r.value for r in ch1.rolls]
    ch3 = RULESET.apply(ch1.encounter, Fire("a", ("b",))).detail  # the next shot uses the next dice
    assert RULESET.settings(ch3.encounter).rolls == len(ch1.rolls) + len(ch3.rolls)


def test_entered_dice_first_then_fallback():
    e = enc()
    dice = EnteredDice({"hit": 12, "location": 5}, fallback=ScriptedDice([3, 3, 4]))
    ch = RULESET.apply(e, Fire("a", (TargetSpec("b", prefer="head"),)), dice).detail
    # 3 + 3 + 1 = 7 to the head: light and heavy (stunned by the steps, so no stun roll;
    # heavy's d6 comes from the fallback)
    assert [(r.label, r.value, r.entered) for r in ch.rolls] == [
        ("hit", 12, True), ("location", 5, True), ("damage", 3, False), ("damage", 3, False),
        ("extra", 4, False)]
    assert ch.shots[0].location == "head" and ch.encounter.token("b").rules["d100"].injury == 11


def test_entered_dice_out_of_range_is_named():
    with pytest.raises(ValueError, match="the hit roll must be a whole number from 1 to 100, got 0"):
        RULESET.apply(enc(), Fire("a", ("b",)), EnteredDice({"hit": 0})).detail
    with pytest.raises(ValueError, match="no die left for the location roll"):
        RULESET.apply(enc(), Fire("a", ("b",)), ScriptedDice([10])).detail


def test_illegal_apply_raises_with_reason():
    e = enc()
    with pytest.raises(IllegalActionError, match="cannot shoot itself"):
        RULESET.apply(e, Fire("a", ("a",)), ScriptedDice([])).detail
    p = RULESET.preview(e, Fire("a", ("nobody",)))
    assert not p.legal and "no token with id 'nobody'" in p.reason
    with pytest.raises(ValueError, match="preferred location 'neck' is not a location"):
        TargetSpec("b", prefer="neck")
    with pytest.raises(ValueError, match="firing mode 'burst'"):
        Fire("a", ("b",), mode="burst")


def test_preview_lists_modifiers_with_sources():
    e = enc()
    e = RULESET.apply(e, Aim("a", "b"), ScriptedDice([])).encounter
    p = RULESET.preview(e, Fire("a", ("b",), modifiers=(("long range", -10),)))
    ch = p.attacks[0].shots[0]
    assert [(m.label, m.value, m.source) for m in ch.modifiers] == [
        ("pistol skill", 60, "skill"), ("aim x1", 20, "aim"), ("long range", -10, "gm")]
    assert ch.value == 70 and ch.placed_max == 35 and ch.text() == "70% (60 pistol skill +20 aim x1 -10 long range)"


def test_file_round_trip_after_a_fight():
    e = enc({"seed": 3})
    for action in (StartRound(), Aim("a", "b"), Fire("a", ("b",)), EndTurn("a"), StartRound(),
                   ChangeStance("b", "crouched_cover")):
        if RULESET.is_legal(e, action):
            e = RULESET.apply(e, action).encounter
    text = dumps_encounter(e)
    assert loads_encounter(text) == e
    assert len(RULESET.settings(e).log) > 3


def test_bad_d100_data_in_a_file_names_the_path():
    data = enc().model_dump(mode="json")
    data["tokens"][0]["rules"]["d100"]["weapon"] = "Rifle"
    with pytest.raises(EncounterFileError, match=r"tokens\[0\]\.rules\.d100.*'Rifle' is not one of the weapons"):
        encounter_from_data(data)
    data = enc().model_dump(mode="json")
    data["rules"]["d100"]["location_table"] = [["head", 10], ["chest", 100]]
    with pytest.raises(EncounterFileError, match="must list each of head"):
        encounter_from_data(data)
    data = enc().model_dump(mode="json")
    data["tokens"][1]["rules"]["d100"] = {"wounds": {"tail": {"damage": 3}}}
    with pytest.raises(EncounterFileError, match="tail"):
        encounter_from_data(data)


def test_old_files_without_d100_data_still_work():
    e = Encounter.model_validate({"ruleset": "d100", "map": {"width": 10, "height": 10},
                                  "tokens": [{"id": "x", "x": 1, "y": 1}, {"id": "y", "x": 2, "y": 1}]})
    s = RULESET.status(e, "x")
    assert s.actions_per_round == 2 and s.hidden == () and s.can_act
    ch = RULESET.apply(e, StartRound(), ScriptedDice([])).detail
    assert ch.encounter.token("x").rules["d100"].actions_left == 2
    assert RULESET.round_order(ch.encounter) == [("x", 2, 2), ("y", 2, 2)]
