"""Chummer5a import: the two shared sample saves, checked against their XML, and broken or
older saves made here.

Expected numbers are read off the sample XML by hand (the tests also re-read the XML where
that is the check): attribute ``totalvalue`` = ``metatypemin + base + karma`` in these saves;
skill rating = base points (+ skill group base, + SkillBase improvements) + karma.
"""

from __future__ import annotations

import base64
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import shapely

from engine.errors import IllegalActionError, ImportFileError
from engine.files import load_encounter, save_encounter
from engine.importers import images
from engine.importers.chummer import (
    add_character,
    free_spot,
    import_chummer,
    parse_chummer,
)
from engine.importers.detect import run_import_character
from engine.importers.chummer_data import SKILLS
from engine.model import Encounter, MapSpec, Obstacle
from tests.engine.importers._helpers import png_bytes

POPSTAR = "chummer/Popstar.chum5"
WESSON = "chummer/Wesson.chum5"
FIELDS = {"BOD": "body", "AGI": "agility", "REA": "reaction", "STR": "strength", "WIL": "willpower",
          "LOG": "logic", "INT": "intuition", "CHA": "charisma", "EDG": "edge"}


@pytest.mark.parametrize("name", [POPSTAR, WESSON])
def test_attributes_are_the_saves_final_values(samples_dir, name):
    token, report = import_chummer(samples_dir / name)
    root = ET.parse(samples_dir / name).getroot()
    for a in root.findall("attributes/attribute"):
        abbr = a.findtext("name")
        if abbr not in FIELDS:
            continue
        total = int(a.findtext("totalvalue"))
        # In these saves nothing augments an attribute: the total is min + base + karma.
        assert total == sum(int(a.findtext(t)) for t in ("metatypemin", "base", "karma"))
        assert getattr(token.rules.get("sr5"), FIELDS[abbr]) == total, abbr
    assert not [w for w in report.warnings if "attribute" in (w.where or "")]


def test_wesson_numbers(samples_dir):
    token, report = import_chummer(samples_dir / WESSON, side="runner", at=(3.0, 4.0))
    s = token.rules.get("sr5")
    assert (token.name, token.side, token.x, token.y, token.id) == ("Wesson", "runner", 3.0, 4.0, "wesson")
    # BOD 1+2, AGI 1+5, REA 1+4, STR 1+1, WIL 1+2, LOG 1+3, INT 1+3, CHA 1+4, EDG 2+1+1.
    assert (s.body, s.agility, s.reaction, s.strength, s.willpower) == (3, 6, 5, 2, 3)
    assert (s.logic, s.intuition, s.charisma, s.edge) == (4, 4, 5, 4)
    # Pistols: base 4 + SkillBase (Heritage) 2 = 6, + Improved Ability (skill) 1 = 7.
    # Gymnastics, Running: Athletics group base 2. Perception: base 6.
    assert s.skills == {"pistols": 7, "gymnastics": 2, "running": 2, "perception": 6}
    # Cavalier Deputy: Heavy Pistols, 7P, AP -1, SA, 7(cy), accuracy 6 + 1 (Enhanced
    # Accuracy (skill) Pistols); its internal smartgun's +2 is left to the rules.
    deputy = token.weapon("Cavalier Deputy")
    assert deputy.category == "heavy_pistol" and deputy.skill == "pistols"
    assert (deputy.damage, deputy.ap, deputy.modes, deputy.rc) == ("7P", -1, ("SA",), 0)
    assert (deputy.ammo, deputy.reload, deputy.accuracy, deputy.smartgun) == (7, "cy", 7, True)
    assert token.weapon("Cavalier Deputy (2)") is not None  # the second one, renamed
    knife = token.weapon("Survival Knife")
    assert (knife.damage, knife.ap, knife.accuracy, knife.category, knife.skill) == ("(STR+2)P", -1, 5, None, "blades")
    # Unarmed: accuracy "Physical" = ceil((2*2 + 3 + 5) / 3) = 4.
    assert token.weapon("Unarmed Attack").accuracy == 4
    # Lined Coat 9; the Hat (0 + (Synth)Leather 4) does not stack.
    assert s.armor == 9
    assert (s.physical_damage, s.stun_damage) == (0, 0)
    # walk "2/1/0", run "4/0/0": 6 x 2 and 6 x 4 metres.
    assert (s.walk_rate, s.run_rate) == (12.0, 24.0)
    assert s.smartlink == "gear"  # Smartlink in his contacts
    assert set(s.qualities) == {"ambidextrous", "quick_draw_holster"}
    assert set(s.vision) == {"low_light", "image_magnification", "flare_compensation"}
    assert any(u.startswith("qualities: Adept") for u in report.unsupported)


def test_popstar_numbers(samples_dir):
    token, report = import_chummer(samples_dir / POPSTAR)
    s = token.rules.get("sr5")
    assert token.name == "Elizabeth Vepar (Dj3VI)"
    # Automatics base 6; Perception base 3. Leadership 6 is no combat skill: reported.
    assert s.skills == {"automatics": 6, "perception": 3}
    assert any("Leadership 6" in u for u in report.unsupported)
    # Ingram Smartgun X: SMG, 8P, AP "-", BF/FA, 32(c); accuracy 4 + Personalized Grip 1 +
    # Enhanced Accuracy (skill) Automatics 1 = 6; RC 0 + Gas-Vent 2 System 2 = 2.
    ingram = token.weapon("Ingram Smartgun X")
    assert (ingram.category, ingram.damage, ingram.ap, ingram.modes) == ("submachine_gun", "8P", 0, ("BF", "FA"))
    assert (ingram.ammo, ingram.reload, ingram.accuracy, ingram.rc, ingram.smartgun) == (32, "c", 6, 2, True)
    # The smoke grenade: range "Standard Grenade", Throwing Weapons; "(10m Radius)" is its
    # blast: smoke (by its name) filling 10 m, no damage of its own; one carried (qty 1).
    smoke = token.weapon("Grenade: Thermal Smoke")
    assert (smoke.category, smoke.skill, smoke.damage) == ("standard_grenade", "throwing_weapons", None)
    assert (smoke.blast, smoke.blast_radius, smoke.blast_falloff, smoke.loaded, smoke.ammo) == ("smoke", 10.0, 0, 1, None)
    assert "Grenade: Thermal Smoke carries smoke, no damage of its own, 10 m radius" in report.summary
    assert report.ok
    # Every firearm starts with a full clip; the ready weapon is the best ranged one.
    assert ingram.loaded == 32
    assert s.in_hand == ("Ingram Smartgun X",)
    # Armour: Argentum Coat 12 + Custom Ballistic Mask +2 + Forearm Guards +1, but "+N"
    # accessories add at most Strength (2), as Chummer totals it by default (SR5 p. 169):
    # 12 + 2 = 14 (the Berwick Suit's 9 does not stack: no Custom Fit (Stack) names it).
    assert s.armor == 14
    assert any("capped at Strength 2" in line for line in report.summary)
    # Report lines name the improvement's source.
    assert "improvement SkillCategory Social Active +2 from Quality Fame: National (not applied)" in report.unsupported
    assert (s.walk_rate, s.run_rate) == (10.0, 20.0)
    assert "too_pretty_to_hit" in s.qualities
    assert "improved_rangefinder" in s.vision and "thermographic" in s.vision


def test_skill_table_has_the_combat_skills():
    names = {info.name for info in SKILLS.values()}
    for n in ("Pistols", "Automatics", "Longarms", "Heavy Weapons", "Blades", "Clubs", "Unarmed Combat",
              "Throwing Weapons", "Gymnastics", "Running", "Exotic Melee Weapon", "Exotic Ranged Weapon"):
        assert n in names
    assert SKILLS["adf31a50-b228-4e09-a09c-46ab9f5e59a1"].name == "Pistols"


# -- fixtures made here -------------------------------------------------------------------------


def _with_portrait(samples_dir: Path, tmp_path: Path, payload: str) -> Path:
    text = (samples_dir / WESSON).read_text(encoding="utf-8")
    text = text.replace("<mainmugshotindex>-1</mainmugshotindex>", "<mainmugshotindex>0</mainmugshotindex>", 1)
    text = text.replace("<mugshots />", f"<mugshots><mugshot>{payload}</mugshot></mugshots>", 1)
    p = tmp_path / "wesson-portrait.chum5"
    p.write_text(text, encoding="utf-8")
    return p


def test_portrait_is_imported_and_written_beside_the_encounter(samples_dir, tmp_path):
    p = _with_portrait(samples_dir, tmp_path, base64.b64encode(png_bytes(6, 8)).decode())
    token, report = import_chummer(p)
    assert token.portrait.startswith("data:image/png;base64,")
    enc = Encounter(map=MapSpec(width=10, height=10))
    enc, placed = add_character(enc, token)
    saved, written = images.save_with_images(enc, tmp_path / "fight.json")
    assert written == ["fight.wesson.portrait.png"]
    assert (tmp_path / "fight.wesson.portrait.png").read_bytes() == png_bytes(6, 8)
    assert load_encounter(tmp_path / "fight.json").token("wesson").portrait == "fight.wesson.portrait.png"


def test_truncated_portrait_is_reported(samples_dir, tmp_path):
    full = base64.b64encode(png_bytes(60, 80)).decode()
    token, report = import_chummer(_with_portrait(samples_dir, tmp_path, full[: len(full) // 2]))
    assert getattr(token, "portrait", None) is None
    assert [w.where for w in report.warnings] == ["character/mugshots"]


OLD_SAVE = """<?xml version="1.0" encoding="utf-8"?>
<character>
  <appversion>5.0.0</appversion>
  <metatype>Ork</metatype>
  <alias>Old Timer</alias>
  <walk>2/1/0</walk><run>4/0/0</run>
  <attributes>
    <attribute><name>BOD</name><metatypemin>4</metatypemin><base>2</base><karma>1</karma></attribute>
    <attribute><name>AGI</name><metatypemin>1</metatypemin><base>3</base><karma>0</karma></attribute>
    <attribute><name>STR</name><metatypemin>3</metatypemin><base>1</base><karma>0</karma></attribute>
  </attributes>
  <skills>
    <skill><name>Longarms</name><rating>5</rating></skill>
    <skill><name>Cooking</name><rating>2</rating></skill>
  </skills>
  <physicalcmfilled>3</physicalcmfilled><stuncmfilled>2</stuncmfilled>
  <weapons>
    <weapon><name>Remington Roomsweeper</name><category>Shotguns</category><type>Ranged</type>
      <damage>9P</damage><ap>-1</ap><mode>SA</mode><rc>0</rc><ammo>8(m)</ammo><accuracy>4</accuracy>
      <equipped>True</equipped><range /></weapon>
    <weapon><name>Spare Pistol</name><category>Light Pistols</category><type>Ranged</type>
      <damage>6P</damage><ap>-</ap><mode>SA</mode><rc>0</rc><ammo>12(c)</ammo><accuracy>5</accuracy>
      <equipped>False</equipped></weapon>
  </weapons>
  <armors><armor><name>Armor Jacket</name><armor>12</armor><equipped>True</equipped></armor></armors>
</character>
"""


def test_older_layout_imports_what_it_can(tmp_path):
    p = tmp_path / "old.chum5"
    p.write_text(OLD_SAVE, encoding="utf-8")
    token, report = import_chummer(p, side="ganger")
    s = token.rules.get("sr5")
    # No totalvalue: BOD 4+2+1, AGI 1+3+0, STR 3+1+0; the rest stay at 3.
    assert (s.body, s.agility, s.strength, s.reaction) == (7, 4, 4, 3)
    assert s.metatype == "ork" and "low_light" in s.vision
    assert s.skills == {"longarms": 5}
    assert (s.physical_damage, s.stun_damage, s.armor) == (3, 2, 12)
    assert (s.walk_rate, s.run_rate) == (8.0, 16.0)
    (gun,) = token.weapons
    assert (gun.category, gun.skill, gun.ammo, gun.reload) == ("shotgun_slug", "longarms", 8, "m")
    wheres = [w.where for w in report.warnings]
    assert "character/attributes" in wheres and "character/skills" in wheres
    assert "weapons not equipped: Spare Pistol" in report.unsupported
    assert any("Cooking 2" in u for u in report.unsupported)


def test_bad_xml_and_wrong_root(tmp_path):
    p = tmp_path / "broken.chum5"
    p.write_text("<character><name>x</name>", encoding="utf-8")
    with pytest.raises(ImportFileError) as err:
        import_chummer(p)
    assert str(p) in str(err.value) and "line" in str(err.value)
    p.write_text("<vehicle><name>x</name></vehicle>", encoding="utf-8")
    with pytest.raises(ImportFileError, match="<vehicle>"):
        import_chummer(p)
    with pytest.raises(ImportFileError, match="no such file"):
        parse_chummer(tmp_path / "absent.chum5")


def test_entity_declarations_are_refused(tmp_path):
    p = tmp_path / "lol.chum5"
    p.write_text('<?xml version="1.0"?><!DOCTYPE c [<!ENTITY a "aaaa">]><character>&a;</character>')
    with pytest.raises(ImportFileError, match="entities"):
        import_chummer(p)


# -- placing the token --------------------------------------------------------------------------


def test_add_character_gives_fresh_ids_and_free_spots(samples_dir):
    wall = Obstacle(id="wall-1", height=3, polygon=((4.5, 0), (5.5, 0), (5.5, 10), (4.5, 10)))
    enc = Encounter(map=MapSpec(width=10, height=10), obstacles=(wall,))
    token, _ = import_chummer(samples_dir / WESSON)
    enc, a = add_character(enc, token)
    enc, b = add_character(enc, token)
    assert (a.id, b.id) == ("wesson", "wesson-1")
    # The centre (5, 5) is inside the wall; the nearest free points clear it by the radius.
    for t in (a, b):
        assert shapely.Point(t.x, t.y).buffer(t.radius).disjoint(shapely.Polygon(wall.polygon))
    assert (a.x - b.x) ** 2 + (a.y - b.y) ** 2 >= (a.radius + b.radius) ** 2
    with pytest.raises(IllegalActionError, match="outside"):
        add_character(enc, token, at=(11.0, 2.0))
    assert free_spot(Encounter(map=MapSpec(width=4, height=4)), 0.4) == (2.0, 2.0)


def test_cli_adds_the_token_and_saves(samples_dir, tmp_path, capsys):
    target = tmp_path / "fight.json"
    save_encounter(Encounter(map=MapSpec(width=20, height=20)), target)

    class Args:
        file = str(samples_dir / POPSTAR)
        into = str(target)
        side = "runner"
        at = [2.0, 3.0]

    assert run_import_character(Args()) == 0
    enc = load_encounter(target)
    (t,) = enc.tokens
    assert (t.x, t.y, t.side) == (2.0, 3.0, "runner")
    assert t.rules["sr5"].skills["automatics"] == 6
    assert "Added" in capsys.readouterr().out


@pytest.mark.parametrize("cmd", [["import-character", "X.chum5", "--into"], ["import-map", "X.dd2vtt", "-o"]])
def test_cli_refuses_to_write_into_a_bundled_demo(cmd, capsys):
    from assets import ENCOUNTERS, demo_encounter_path
    from gui.cli import main

    before = demo_encounter_path().read_bytes()
    code = main([*cmd, str(ENCOUNTERS / "demo.json")])
    assert code == 2
    err = capsys.readouterr().err
    assert "bundled demo" in err and "demo.json" in err
    assert demo_encounter_path().read_bytes() == before
