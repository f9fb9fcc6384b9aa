"""One truth for the weapon a token has ready (issue 24): ``RuleSystem.ready_weapon``.

A Chummer import lists "Unarmed Attack" first and puts the gun it fights with in hand
(``Sheet.in_hand``). Every answer -- ``coverfire analyze``, the map's badges and the Targets
panel (``Tactics.targets``), a zone without a named weapon -- measures with the weapon in
hand, the one the attack page takes, never the first in the list.

Numbers by hand from shared/reference/sr5-facts.md, "Range bands": assault rifle
25 / 150 / 350 / 550 m, heavy pistol 5 / 20 / 40 / 60 m, submachine gun 10 / 40 / 80 / 150 m;
modifiers 0 / -1 / -3 / -6. Unarmed Attack has no range table: out of range at any distance.
"""

from __future__ import annotations

import json

import pytest

from engine.analysis import Tactics
from engine.files import dumps_encounter, load_encounter
from engine.model import Encounter, Token, Weapon, Zone, zone_weapon
from engine.report import analyze
from engine.sr5.sheet import Sheet
from gui.cli import main

FIST = Weapon(name="Unarmed Attack", damage="(STR)S", accuracy=4, skill="unarmed_combat")
RIFLE = Weapon(name="Ares Alpha", category="assault_rifle", damage="11P", ap=-2, accuracy=5,
               modes=("SA", "BF", "FA"), ammo=42, loaded=42, skill="automatics")


def runner(**sheet) -> Token:
    """A token as the Chummer importer makes it: the fist first, the rifle in hand."""
    return Token(id="wesson", name="Wesson", side="runner", x=10.0, y=50.0, weapons=(FIST, RIFLE),
                 rules={"sr5": Sheet(in_hand=("Ares Alpha",), **sheet)})


def encounter(*tokens: Token, ruleset: str = "sr5", zones=()) -> Encounter:
    ganger = Token(id="ganger", name="Ganger", side="ganger", x=110.0, y=50.0)  # 100 m east
    return Encounter(name="Ready weapon", ruleset=ruleset, map={"width": 200.0, "height": 100.0},
                     tokens=(*tokens, ganger), zones=tuple(zones))


def test_analyze_measures_with_the_rifle_in_hand_not_the_fist_listed_first():
    # 100 m: 25 < 100 <= 150 -> the assault rifle's Medium band, -1 (the fist: out of range)
    [rep] = analyze(encounter(runner()), "wesson")
    assert rep["weapon"] == "Ares Alpha"
    assert rep["targets"][0]["range"] == {"band": "medium", "modifier": -1}
    t = Tactics(encounter(runner()))
    assert t.weapon_of("wesson") == RIFLE
    [report] = t.targets("wesson")
    assert (report.range.band, report.range.modifier, report.range.max) == ("medium", -1, 150.0)
    # the fist is still there when the GM names it: no range table, out of range
    assert t.targets("wesson", "Unarmed Attack")[0].range is None


def test_coverfire_analyze_on_a_file_gives_the_ready_weapons_range(tmp_path, capsys):
    path = tmp_path / "ready.json"
    path.write_text(dumps_encounter(encounter(runner())), encoding="utf-8")
    assert main(["analyze", str(path), "--attacker", "wesson", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["weapon"] == "Ares Alpha"
    assert data["targets"][0]["distance"] == 100.0
    assert data["targets"][0]["range"] == {"band": "medium", "modifier": -1}
    assert main(["analyze", str(path), "--attacker", "wesson"]) == 0
    out = capsys.readouterr().out
    assert "with Ares Alpha" in out and "medium -1" in out


def test_the_rule_system_answers_from_the_sheet_and_others_take_the_first_weapon():
    enc = encounter(runner())
    assert enc.system.ready_weapon(enc, enc.token("wesson")) == RIFLE
    # a sheet that says nothing: the first weapon (docs/sr5.md); empty hands: the first weapon
    # not on the ground (what the attack page offers, "not ready")
    plain = runner().model_copy(update={"rules": {"sr5": Sheet()}})
    assert encounter(plain).system.ready_weapon(encounter(plain), plain) == FIST
    empty = runner().model_copy(update={"rules": {"sr5": Sheet(in_hand=(), dropped=("Unarmed Attack",))}})
    assert encounter(empty).system.ready_weapon(encounter(empty), empty) == RIFLE
    # a system without a notion of hands: the first weapon
    other = Token(id="wesson", side="runner", x=10.0, y=50.0, weapons=(FIST, RIFLE))
    enc = encounter(other, ruleset="static-veil")
    assert enc.system.ready_weapon(enc, other) == FIST
    assert Tactics(enc).weapon_of("wesson") == FIST
    # no weapons: none, and no range
    bare = Token(id="wesson", x=10.0, y=50.0)
    assert encounter(bare).system.ready_weapon(encounter(bare), bare) is None
    assert Tactics(encounter(bare)).targets("wesson")[0].range is None


def test_a_zone_without_a_named_weapon_fires_the_ready_one():
    sup = Zone(id="sup-1", kind="suppressive", owner="wesson", direction=0.0, length=120.0, width=10.0)
    enc = encounter(runner(), zones=[sup])
    assert zone_weapon(enc, sup) == RIFLE


def test_token_weapon_looks_up_names_only():
    t = runner()
    assert t.weapon("Ares Alpha") == RIFLE and t.weapon("Unarmed Attack") == FIST
    assert t.weapon(None) is None and t.weapon("Predator") is None


# -- real Chummer saves, through the command a GM types --------------------------------------------
# Wesson has the Cavalier Deputy (heavy pistol) in hand, Popstar the Ingram Smartgun X
# (submachine gun); both list Unarmed Attack first. A ganger 12 m away: heavy pistol
# 5 < 12 <= 20 -> Medium -1; submachine gun 10 < 12 <= 40 -> Medium, and Popstar's smartlink
# with her improved rangefinder takes the range column one row better (the attack's modifier):
# 0; the fist: out.
SAVES = {"Wesson.chum5": ("Cavalier Deputy", -1), "Popstar.chum5": ("Ingram Smartgun X", 0)}


@pytest.mark.parametrize("save", sorted(SAVES))
def test_coverfire_analyze_after_import_character_uses_the_ready_weapon(save, samples_dir, tmp_path, capsys):
    path = tmp_path / "street.json"
    enc = Encounter(name="Street", ruleset="sr5", map={"width": 60.0, "height": 40.0},
                    tokens=(Token(id="ganger", name="Ganger", side="ganger", x=22.0, y=20.0),))
    path.write_text(dumps_encounter(enc), encoding="utf-8")
    assert main(["import-character", str(samples_dir / "chummer" / save), "--into", str(path),
                 "--at", "10", "20"]) == 0
    capsys.readouterr()
    runner_id = next(t.id for t in load_encounter(path).tokens if t.id != "ganger")
    assert load_encounter(path).token(runner_id).weapons[0].name == "Unarmed Attack"
    assert main(["analyze", str(path), "--attacker", runner_id, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["weapon"] == SAVES[save][0]
    assert len(data["targets"]) == 1
    assert data["targets"][0]["distance"] == 12.0
    assert data["targets"][0]["range"] == {"band": "medium", "modifier": SAVES[save][1]}


def test_d100_answers_with_the_weapon_in_hand():
    # the d100 demo: Nyx carries the Defiance T-250 first but holds the Colt America L36 (and a
    # second one in the off hand); Sam holds the Ingram, the first of his
    from assets import demo_encounter_path

    enc = load_encounter(demo_encounter_path().with_name("demo-d100.json"))
    nyx = enc.token("nyx")
    assert [w.name for w in nyx.weapons][0] == "Defiance T-250" and nyx.rules["d100"].weapon == "Colt America L36"
    t = Tactics(enc)
    assert t.weapon_of("nyx").name == "Colt America L36"
    assert t.weapon_of("sam").name == "Ingram Smartgun X"
    # nothing held: the first weapon
    empty = nyx.model_copy(update={"rules": {"d100": nyx.rules["d100"].model_copy(update={"weapon": None, "offhand": None})}})
    assert enc.system.ready_weapon(enc, empty).name == "Defiance T-250"
