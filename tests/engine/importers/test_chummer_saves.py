"""Chummer saves shaped as real ones are (issue #17 items 4-9, #15 item 5), made here.

Each save is a small ``<character>`` with only what the test needs; the expected numbers are
worked out by hand in the comments (Chummer's rules: docs/importing.md).
"""

from __future__ import annotations

import lzma

import pytest

from engine.errors import CoverfireError, ImportFileError
from engine.files import load_encounter, save_encounter
from engine.importers.chummer import import_chummer
from engine.model import Encounter, MapSpec

AUTOMATICS = "788b387b-ee41-4e6a-bf22-481a8cc4cf9f"
PISTOLS = "adf31a50-b228-4e09-a09c-46ab9f5e59a1"
HEAVY = "64841e6e-9487-4b63-80a1-dcad6eb78179"
THROWING = "867a6fa0-7d98-4cde-83a4-b33dd39de08e"
GYMNASTICS = "a9fa961d-07e5-46da-8edc-403ae3e6cc75"

G_QUALITY = "11111111-1111-1111-1111-111111111111"
G_QUALITY2 = "11111111-1111-1111-1111-222222222222"
G_ORTHO = "22222222-2222-2222-2222-222222222222"
G_LACING = "33333333-3333-3333-3333-333333333333"
G_ARM = "44444444-4444-4444-4444-444444444444"
G_COAT = "55555555-5555-5555-5555-555555555555"
G_HE = "66666666-6666-6666-6666-666666666666"
G_MINI_FRAG = "77777777-7777-7777-7777-777777777777"
G_MINI_HE = "88888888-8888-8888-8888-888888888888"


def _attrs(bod=4, agi=5, rea=4, str_=4, cat="Standard"):
    rows = [("BOD", bod), ("AGI", agi), ("REA", rea), ("STR", str_), ("CHA", 3), ("INT", 4), ("LOG", 3),
            ("WIL", 3), ("EDG", 2)]
    return "".join(f"<attribute><name>{n}</name><metatypecategory>{cat}</metatypecategory>"
                   f"<totalvalue>{v}</totalvalue></attribute>" for n, v in rows)


def _skill(suid, base):
    return f"<skill><suid>{suid}</suid><base>{base}</base><karma>0</karma></skill>"


def _imp(kind, val, source, sourcename, name="", unique="", condition=""):
    return (f"<improvement><unique>{unique}</unique><improvedname>{name}</improvedname>"
            f"<sourcename>{sourcename}</sourcename><val>{val}</val><rating>1</rating>"
            f"<condition>{condition}</condition><improvementttype>{kind}</improvementttype>"
            f"<improvementsource>{source}</improvementsource><enabled>True</enabled></improvement>")


def _weapon(name, category, damage, *, ap="-", acc="5", ammo="15(c)", mode="SA", useskill="", rng="",
            wtype="Ranged", parentid="", equipped="True", rangemultiply="1"):
    return (f"<weapon><name>{name}</name><category>{category}</category><type>{wtype}</type>"
            f"<damage>{damage}</damage><ap>{ap}</ap><accuracy>{acc}</accuracy><mode>{mode}</mode><rc>0</rc>"
            f"<ammo>{ammo}</ammo><useskill>{useskill}</useskill><range>{rng}</range>"
            f"<rangemultiply>{rangemultiply}</rangemultiply><parentid>{parentid}</parentid>"
            f"<equipped>{equipped}</equipped></weapon>")


def _save(*, weapons="", armors="", improvements="", cyberware="", qualities="", gears="", attrs=None,
          metatype="Human", metacat="Metahuman", walk="2/1/0", run="4/0/0", skills="", extra=""):
    return f"""<?xml version="1.0" encoding="utf-8"?>
<character>
  <gameedition>SR5</gameedition><appversion>5.225.0</appversion><created>True</created>
  <name>Test Runner</name><alias>Tess</alias>
  <metatype>{metatype}</metatype><metatypecategory>{metacat}</metatypecategory>
  <walk>{walk}</walk><run>{run}</run><sprint>2/1/0</sprint>
  <attributes>{attrs if attrs is not None else _attrs()}</attributes>
  <newskills><skills>{skills}</skills></newskills>
  <qualities>{qualities}</qualities>
  <cyberwares>{cyberware}</cyberwares>
  <gears>{gears}</gears>
  <armors>{armors}</armors>
  <weapons>
    <weapon><name>Unarmed Attack</name><category>Unarmed</category><type>Melee</type>
      <damage>(STR)P</damage><ap>-</ap><accuracy>Physical</accuracy><reach>0</reach>
      <useskill>Unarmed Combat</useskill><equipped>True</equipped></weapon>
    {weapons}
  </weapons>
  <improvements>{improvements}</improvements>
  <physicalcmfilled>0</physicalcmfilled><stuncmfilled>0</stuncmfilled>
  {extra}
</character>
"""


def _write(tmp_path, text, name="c.chum5", encoding="utf-8"):
    p = tmp_path / name
    p.write_bytes(text.encode(encoding))
    return p


# -- item 6: armour from cyberware and bioware ---------------------------------------------------
def test_armour_adds_every_armor_improvement_as_chummer_does(tmp_path):
    armors = (f"<armor><guid>{G_COAT}</guid><name>Armor Jacket</name><armor>12</armor><equipped>True</equipped>"
              "<armormods /></armor>")
    cyber = (f"<cyberware><guid>{G_ORTHO}</guid><name>Orthoskin</name><rating>2</rating></cyberware>"
             f"<cyberware><guid>{G_LACING}</guid><name>Bone Lacing</name><extra>Aluminum</extra></cyberware>"
             f"<cyberware><guid>{G_ARM}</guid><name>Cyberarm armour</name><rating>1</rating></cyberware>")
    imps = (_imp("Armor", 2, "Bioware", G_ORTHO)             # Orthoskin 2: +2
            + _imp("Armor", 2, "Cyberware", G_LACING, unique="bonelacing")  # Aluminum lacing +2
            + _imp("Armor", 1, "Cyberware", G_LACING, unique="bonelacing")  # a weaker lacing: same group
            + _imp("Armor", 1, "Cyberware", G_ARM)               # cyberlimb armour +1
            + _imp("Armor", 4, "Quality", G_QUALITY, condition="in water"))  # conditional: left out
    p = _write(tmp_path, _save(armors=armors, cyberware=cyber, improvements=imps))
    token, rep = import_chummer(p)
    # Armor Jacket 12 + Orthoskin 2 + Bone Lacing 2 (best of its unique group) + arm 1 = 17.
    assert token.rules["sr5"].armor == 17
    line = next(x for x in rep.summary if x.startswith("armour "))
    assert line == ("armour 17 (Armor Jacket 12 + Bioware Orthoskin 2 +2 + Cyberware Bone Lacing (Aluminum) +2"
                    " + Cyberware Cyberarm armour 1 +1)")
    assert any("only when in water" in u for u in rep.unsupported)


def test_armour_improvements_without_armour_worn_still_count(tmp_path):
    p = _write(tmp_path, _save(improvements=_imp("Armor", 3, "Bioware", G_ORTHO),
                               cyberware=f"<cyberware><guid>{G_ORTHO}</guid><name>Orthoskin</name></cyberware>"))
    token, _ = import_chummer(p)
    assert token.rules["sr5"].armor == 3


# -- item 8: report lines name their source ------------------------------------------------------
def test_skill_bonuses_name_the_quality_they_come_from(tmp_path):
    quals = (f"<quality><guid>{G_QUALITY}</guid><name>Catlike</name></quality>"
             f"<quality><guid>{G_QUALITY2}</guid><name>Natural Athlete</name></quality>")
    imps = (_imp("Skill", 1, "Quality", G_QUALITY, name="Gymnastics")
            + _imp("Skill", 1, "Quality", G_QUALITY2, name="Gymnastics"))
    p = _write(tmp_path, _save(qualities=quals, improvements=imps, skills=_skill(GYMNASTICS, 3)))
    token, rep = import_chummer(p)
    assert token.rules["sr5"].skills["gymnastics"] == 5  # 3 + 1 + 1
    assert "Gymnastics includes +1 from Quality Catlike" in rep.summary
    assert "Gymnastics includes +1 from Quality Natural Athlete" in rep.summary


# -- item 4: the ready weapon and full clips ------------------------------------------------------
def test_the_ready_weapon_is_the_best_ranged_weapon_and_clips_are_full(tmp_path):
    weapons = (_weapon("Knife", "Blades", "(STR+1)P", wtype="Melee", ammo="0", acc="Physical")
               + _weapon("Ares Predator V", "Heavy Pistols", "8P", ap="-1", ammo="15(c)")
               + _weapon("AK-97", "Assault Rifles", "10P", ap="-2", ammo="38(c)", mode="SA/BF/FA"))
    skills = _skill(PISTOLS, 6) + _skill(AUTOMATICS, 3)
    p = _write(tmp_path, _save(weapons=weapons, skills=skills))
    token, rep = import_chummer(p)
    s = token.rules["sr5"]
    # Pistols 6 beats Automatics 3 (more dice), whatever the DV: the Predator is in hand.
    assert s.in_hand == ("Ares Predator V",)
    assert token.weapon("Ares Predator V").loaded == 15 and token.weapon("AK-97").loaded == 38
    assert token.weapon("Knife").loaded is None
    assert "ready weapon: Ares Predator V (best ranged weapon: skill 6, DV 8, accuracy 5)" in rep.summary
    # With equal skills the higher DV wins: the AK.
    p = _write(tmp_path, _save(weapons=weapons, skills=_skill(PISTOLS, 4) + _skill(AUTOMATICS, 4)))
    token, _ = import_chummer(p)
    assert token.rules["sr5"].in_hand == ("AK-97",)


def test_without_a_ranged_weapon_the_best_melee_one_is_ready_never_the_fist(tmp_path):
    p = _write(tmp_path, _save(weapons=_weapon("Katana", "Blades", "(STR+3)P", wtype="Melee", ammo="0")))
    token, _ = import_chummer(p)
    assert token.rules["sr5"].in_hand == ("Katana",)
    assert token.weapons[0].name == "Unarmed Attack"


# -- item 5: grenades and minigrenades ------------------------------------------------------------
def test_grenades_carry_their_blast_and_minigrenades_load_into_the_launcher(tmp_path):
    gears = (f"<gear><guid>{G_HE}</guid><name>Grenade: High Explosive</name><category>Ammunition</category>"
             "<qty>3.0</qty></gear>"
             f"<gear><guid>{G_MINI_FRAG}</guid><name>Minigrenade: Fragmentation</name><category>Ammunition</category>"
             "<qty>12.0</qty></gear>"
             f"<gear><guid>{G_MINI_HE}</guid><name>Minigrenade: High Explosive</name><category>Ammunition</category>"
             "<qty>6.0</qty></gear>")
    weapons = (_weapon("Grenade: High Explosive", "Gear", "16P (-2/m)", ap="-2", acc="Physical", ammo="1",
                       mode="0", useskill="Throwing Weapons", rng="Standard Grenade", parentid=G_HE)
               + _weapon("Grenade: Flash-Bang", "Gear", "10S (10m Radius)", ap="-4", acc="Physical", ammo="1",
                         mode="0", useskill="Throwing Weapons", rng="Standard Grenade")
               + _weapon("ArmTech MGL-12", "Grenade Launchers", "Grenade", acc="4", ammo="12(c)", mode="SA")
               + _weapon("Minigrenade: Fragmentation", "Gear", "18P(f) (-1/m)", ap="+5", acc="0", ammo="0",
                         mode="0", useskill="Heavy Weapons", rng="Grenade Launchers", parentid=G_MINI_FRAG)
               + _weapon("Minigrenade: High Explosive", "Gear", "16P (-2/m)", ap="-2", acc="0", ammo="0",
                         mode="0", useskill="Heavy Weapons", rng="Grenade Launchers", parentid=G_MINI_HE))
    p = _write(tmp_path, _save(weapons=weapons, gears=gears, skills=_skill(HEAVY, 4) + _skill(THROWING, 3)))
    token, rep = import_chummer(p)
    names = [w.name for w in token.weapons]
    # Minigrenades are no weapons of their own any more.
    assert names == ["Unarmed Attack", "Grenade: High Explosive", "Grenade: Flash-Bang", "ArmTech MGL-12"]
    he = token.weapon("Grenade: High Explosive")
    assert (he.blast, he.damage, he.ap, he.blast_falloff, he.loaded, he.ammo) == ("high_explosive", "16P", -2, 2, 3, None)
    fb = token.weapon("Grenade: Flash-Bang")
    assert (fb.blast, fb.damage, fb.ap, fb.blast_falloff, fb.blast_radius, fb.loaded) == ("flash_bang", "10S", -4, 0, 10.0, 1)
    mgl = token.weapon("ArmTech MGL-12")
    # Loaded with the first kind listed, a full clip of the launcher's 12.
    assert (mgl.blast, mgl.damage, mgl.ap, mgl.blast_falloff, mgl.loaded, mgl.ammo) == ("fragmentation", "18P(f)", 5, 1, 12, 12)
    assert (mgl.accuracy, mgl.category, mgl.skill) == (4, "grenade_launcher", "heavy_weapons")
    assert mgl.loaded_with == "Minigrenade: Fragmentation"
    assert ("ArmTech MGL-12 loaded with Minigrenade: Fragmentation (fragmentation, 18P(f), -1/m): 12 rounds in, "
            "12 carried") in rep.summary
    assert "minigrenades also carried (switch rounds on the sheet): 6 x Minigrenade: High Explosive" in rep.summary
    assert not any("damage" in w.message and "not a damage code" in w.message for w in rep.warnings)
    # The sr5 blast rules read what each carries (no more "does not say what it carries").
    from engine.sr5.blast import blast_spec

    assert blast_spec(he).kind == "high_explosive" and blast_spec(mgl).falloff == 1


def test_minigrenades_without_a_launcher_are_reported(tmp_path):
    weapons = _weapon("Minigrenade: Fragmentation", "Gear", "18P(f) (-1/m)", ap="+5", acc="0", ammo="0",
                      mode="0", useskill="Heavy Weapons", rng="Grenade Launchers")
    token, rep = import_chummer(_write(tmp_path, _save(weapons=weapons)))
    assert [w.name for w in token.weapons] == ["Unarmed Attack"]
    assert any("carried without a grenade launcher" in w.message for w in rep.warnings)


# -- item 7: an A.I. -------------------------------------------------------------------------------
def test_an_ai_is_refused_naming_what_is_missing(tmp_path):
    p = _write(tmp_path, _save(metatype="Protosapient", metacat="A.I.",
                               attrs=_attrs(bod=0, agi=0, rea=0, str_=0, cat="A.I.")))
    with pytest.raises(ImportFileError) as err:
        import_chummer(p)
    msg = str(err.value)
    assert msg.startswith(f"{p}: at character/metatypecategory: ")  # the file named, as every refusal
    assert "Tess is an A.I. (metatype Protosapient, category A.I.)" in msg
    assert "Body 0, Agility 0, Reaction 0, Strength 0" in msg and "drone" in msg


def test_a_character_with_agility_0_is_refused_never_a_token_that_cannot_move(tmp_path):
    p = _write(tmp_path, _save(attrs=_attrs(agi=0)))
    with pytest.raises(ImportFileError, match="Agility 0: the token could not move") as err:
        import_chummer(p)
    # the file is named (fuzz case 4016:chummer:4459: the window's message said only "at ...")
    assert err.value.file == str(p) and str(err.value).startswith(f"{p}: at character/attributes: ")


def test_a_weapon_name_of_100000_characters_is_cut_so_the_encounter_saves(tmp_path):
    # fuzz case 4016:chummer:1600: imported, placed, then "cannot save: the text is 100,000
    # characters long" at $.tokens[9].weapons[0].name
    from engine.importers.chummer import add_character
    from engine.limits import MAX_NAME_CHARS

    weapons = _weapon("x" * 100_000, "Heavy Pistols", "8P")
    token, _ = import_chummer(_write(tmp_path, _save(weapons=weapons)))
    long = [w.name for w in token.weapons if w.name.startswith("x")]
    assert [len(n) for n in long] == [MAX_NAME_CHARS] and long[0].endswith("x\u2026")
    enc, placed = add_character(Encounter(name="e", map=MapSpec(width=20, height=20)), token)
    save_encounter(enc, tmp_path / "e.json")
    assert load_encounter(tmp_path / "e.json") == enc


# -- item 9: .chum5lz -----------------------------------------------------------------------------
def test_a_chum5lz_opens_like_a_chum5(tmp_path):
    text = _save(weapons=_weapon("Ares Predator V", "Heavy Pistols", "8P"), skills=_skill(PISTOLS, 5))
    plain, _ = import_chummer(_write(tmp_path, text))
    # Chummer's LzmaHelper: the LZMA "alone" layout with an end marker (size -1).
    packed = lzma.compress(text.encode("utf-8"), format=lzma.FORMAT_ALONE)
    assert packed[5:13] == b"\xff" * 8
    p = tmp_path / "c.chum5lz"
    p.write_bytes(packed)
    token, rep = import_chummer(p)
    assert token == plain and rep.ok
    # Chummer's "None" preset writes the XML as it is: read as XML.
    (tmp_path / "s.chum5lz").write_text(text, encoding="utf-8")
    assert import_chummer(tmp_path / "s.chum5lz")[0] == plain
    # Cut short, or not LZMA at all: one clear line.
    p.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(ImportFileError, match="cut short"):
        import_chummer(p)
    p.write_bytes(b"PK\x03\x04 zip, not lzma")
    with pytest.raises(ImportFileError, match="neither XML nor Chummer's compressed"):
        import_chummer(p)


# -- #15 item 5: faults found by fuzzing ------------------------------------------------------------
def test_a_broken_range_multiplier_is_1_with_a_warning(tmp_path):
    weapons = _weapon("AK-97", "Assault Rifles", "10P", rangemultiply="1.5.2")
    token, rep = import_chummer(_write(tmp_path, _save(weapons=weapons)))
    assert token.weapon("AK-97").ranges is None  # the table's own bands, unscaled
    assert any(w.where.endswith("/rangemultiply") and "'1.5.2'" in w.message for w in rep.warnings)


@pytest.mark.parametrize("walk", ["NaN/1/0", "inf/1/0", "2000/1/0", "-1/1/0", "1e400/1/0"])
def test_impossible_walk_rates_fall_back_to_agility_x_2(tmp_path, walk):
    token, rep = import_chummer(_write(tmp_path, _save(walk=walk)))
    assert token.rules["sr5"].walk_rate == 10.0  # Agility 5 x 2
    assert any(w.where == "character/walk" for w in rep.warnings)


def test_gear_nested_500_deep_is_refused_quickly(tmp_path, monkeypatch):
    import engine.importers.chummer as chummer
    import engine.importers.chummer_file as chummer_file

    # counted, not timed: the elements the XML reader opened, and whether the save was read
    opened = [0]
    iterparse = chummer_file.iterparse

    def counted(*a, **k):
        for event, elem in iterparse(*a, **k):
            opened[0] += event == "start"
            yield event, elem

    monkeypatch.setattr(chummer_file, "iterparse", counted)
    import_chummer(_write(tmp_path, _save(gears="")))
    plain = opened[0]
    opened[0] = 0
    parse = chummer._parse
    monkeypatch.setattr(chummer, "_parse", lambda *a, **k: pytest.fail("the save was read") or parse(*a, **k))
    deep = "<gear><name>box</name><children>" * 500 + "</children></gear>" * 500
    with pytest.raises(ImportFileError, match="nests elements more than 64 deep"):
        import_chummer(_write(tmp_path, _save(gears=deep)))
    # refused at the 65th level: the save's own elements and the first levels, not 1,500
    assert opened[0] <= plain + 2 * chummer_file.MAX_DEPTH, opened[0]
    monkeypatch.setattr(chummer, "_parse", parse)
    # 20 deep (deeper than any real save) still imports, its vision gear found at the bottom.
    deep = ("<gear><name>box</name><equipped>True</equipped><children>" * 20
            + "<gear><name>Thermographic Vision</name><equipped>True</equipped></gear>"
            + "</children></gear>" * 20)
    token, _ = import_chummer(_write(tmp_path, _save(gears=deep)))
    assert "thermographic" in token.rules["sr5"].vision


def test_entities_are_refused_wherever_they_are_declared(tmp_path):
    bomb = '<!DOCTYPE character [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>'
    body = _save(extra="<notes>&b;</notes>")
    head, rest = body.split("\n", 1)
    # A declaration after the first 64 KiB (a long comment first) ...
    late = head + "\n<!--" + "x" * 70_000 + "-->\n" + bomb + rest
    with pytest.raises(ImportFileError, match="DTD"):
        import_chummer(_write(tmp_path, late))
    # ... and a UTF-16 save.
    utf16 = body.replace('encoding="utf-8"', 'encoding="utf-16"').replace("\n<character>", "\n" + bomb + "<character>", 1)
    with pytest.raises(ImportFileError, match="DTD"):
        import_chummer(_write(tmp_path, utf16, encoding="utf-16"))
    # A UTF-16 save without one imports.
    clean16 = _save().replace('encoding="utf-8"', 'encoding="utf-16"')
    assert import_chummer(_write(tmp_path, clean16, encoding="utf-16"))[0].name == "Tess"


def test_any_other_failure_is_a_coverfire_error(tmp_path, monkeypatch):
    import engine.importers.chummer as ch

    def boom(*a, **k):
        raise KeyError("surprise")

    monkeypatch.setattr(ch, "_qualities", boom)
    with pytest.raises(CoverfireError, match=r"could not be imported \(KeyError: 'surprise'\)"):
        import_chummer(_write(tmp_path, _save()))


def test_the_blast_rules_take_the_falloff_and_radius_the_save_gives():
    from engine.model import Weapon
    from engine.sr5.blast import blast_spec

    # "12P (-3/m)" on a high-explosive grenade: 3 DV a metre, so it reaches 12 / 3 = 4 m.
    w = Weapon(name="Grenade: Custom HE", damage="12P", blast="high_explosive", blast_falloff=3)
    spec = blast_spec(w)
    assert spec.falloff == 3 and spec.reach(12) == pytest.approx(4.0)
    # "(6m Radius)" smoke fills 6 m, not the table's 10.
    assert blast_spec(Weapon(name="Smoke", blast="smoke", blast_falloff=0, blast_radius=6.0)).radius == 6.0
    # Nothing given: the table's row.
    assert blast_spec(Weapon(name="HE", blast="high_explosive")).falloff == 2


# -- issue 28 item 6: an armour whose value is its rating ------------------------------------------
def _rated_armour(name, value, rating, mods=""):
    return (f"<armor><guid>{G_COAT}</guid><name>{name}</name><category>Specialty Armor</category>"
            f"<armor>{value}</armor><armoroverride /><equipped>True</equipped><damage>0</damage>"
            f"<rating>{rating}</rating><armormods>{mods}</armormods></armor>")


def test_an_armour_rated_by_its_rating_counts_its_rating_as_chummer_shows_it(tmp_path):
    # Critter Body Armor (armor.xml: <armor>Rating</armor>) at rating 6: Chummer shows 6.
    mod = ("<armormod><name>Chemical Protection</name><armor>0</armor><rating>6</rating>"
           "<equipped>True</equipped></armormod>")
    token, rep = import_chummer(_write(tmp_path, _save(armors=_rated_armour("Critter Body Armor", "Rating", 6, mod))))
    assert token.rules["sr5"].armor == 6
    assert "armour 6 (Critter Body Armor 6)" in rep.summary
    assert not any("not a number" in w.message for w in rep.warnings)


@pytest.mark.parametrize(("value", "rating", "expected"), [
    ("{Rating}", 4, 4),
    ("Rating * 2", 3, 6),
    ("FixedValues([2],[4],[6])", 2, 4),
    ("FixedValues(2,4,6)", 9, 6),       # past the end: the last entry
    ("Rating div 2", 3, 2),             # 1.5 rounded up, as Chummer's StandardRound does
    ("{STR} + Rating", 2, 6),           # Strength 4 (the helper's) + 2
])
def test_rating_expressions_are_worked_out_as_chummer_does(tmp_path, value, rating, expected):
    token, _ = import_chummer(_write(tmp_path, _save(armors=_rated_armour("Rated Suit", value, rating))))
    assert token.rules["sr5"].armor == expected


def test_an_armour_value_that_is_no_expression_is_left_out_with_a_warning(tmp_path):
    token, rep = import_chummer(_write(tmp_path, _save(armors=_rated_armour("Odd Suit", "__import__('os')", 3))))
    assert token.rules["sr5"].armor == 0
    assert any("Odd Suit left out" in w.message for w in rep.warnings)


# -- issue 28 item 7: a Flash-Pak is a flash device, never a smoke grenade ---------------------------
def test_a_flash_pak_is_reported_as_a_flash_device_the_rules_do_not_model_never_as_smoke(tmp_path):
    # As Chummer writes it (SR5 p. 435): category Gear, damage "Special", thrown.
    gears = (f"<gear><guid>{G_HE}</guid><name>Grenade: Flash-Pak</name><category>Ammunition</category>"
             "<qty>2</qty></gear>")
    weapons = (_weapon("Grenade: Flash-Pak", "Gear", "Special", acc="Physical", ammo="1", mode="0",
                       useskill="Throwing Weapons", rng="Standard Grenade", parentid=G_HE)
               + _weapon("Grenade: Smoke", "Gear", "(10m Radius)", acc="Physical", ammo="1", mode="0",
                         useskill="Throwing Weapons", rng="Standard Grenade"))
    token, rep = import_chummer(_write(tmp_path, _save(weapons=weapons, gears=gears, skills=_skill(THROWING, 3))))
    assert token.weapon("Grenade: Flash-Pak") is None
    assert all(w.blast != "smoke" or w.name == "Grenade: Smoke" for w in token.weapons)
    assert token.rules["sr5"].in_hand == ("Grenade: Smoke",)
    warning = next(w for w in rep.warnings if "Flash-Pak" in w.message)
    assert "2 x Grenade: Flash-Pak" in warning.message and "flash-pak" in warning.message
    assert "glare" in warning.message and "not imported as a weapon" in warning.message
    assert not any("Flash-Pak carries" in line for line in rep.summary)


def test_a_grenade_whose_damage_names_no_blast_is_not_guessed_to_be_smoke(tmp_path):
    weapons = _weapon("Grenade: Mystery", "Gear", "Special", acc="Physical", ammo="1", mode="0",
                      useskill="Throwing Weapons", rng="Standard Grenade")
    token, rep = import_chummer(_write(tmp_path, _save(weapons=weapons)))
    assert [w.name for w in token.weapons] == ["Unarmed Attack"]
    assert any("Grenade: Mystery" in w.message and "names no blast" in w.message for w in rep.warnings)


# -- issue 28 item 8: a Chummer 4 (Shadowrun 4th edition) save says what it is ----------------------
def _sr4_save(edition=""):
    """A save shaped as ChummerGen SR4 writes one (UTF-16, armour as <b>/<i>, <movement> in
    metres, skills by name, no <gameedition> in its older releases)."""
    attrs = "".join(f"<attribute><name>{n}</name><metatypemin>1</metatypemin><value>{v}</value>"
                     f"<totalvalue>{v}</totalvalue></attribute>"
                     for n, v in (("BOD", 4), ("AGI", 5), ("REA", 4), ("STR", 3), ("CHA", 2), ("INT", 3),
                                  ("LOG", 3), ("WIL", 3), ("EDG", 2)))
    imp = ("<improvement><unique>{u}</unique><improvedname /><sourcename>{s}</sourcename><val>{v}</val>"
           "<improvementttype>{k}</improvementttype><improvementsource>Cyberware</improvementsource>"
           "<enabled>True</enabled></improvement>")
    imps = (imp.format(u="cearmor", s=G_ARM, v=2, k="BallisticArmor")
            + imp.format(u="cearmor", s=G_LACING, v=2, k="BallisticArmor")   # a second cyberarm: counts once
            + imp.format(u="cearmor", s=G_ARM, v=2, k="ImpactArmor")
            + imp.format(u="", s=G_ORTHO, v=2, k="InitiativePass"))          # Wired Reflexes 2
    return f"""<?xml version="1.0" encoding="utf-16"?>
<character>
  <settings>default.xml</settings>{edition}
  <metatype>Human</metatype><metatypecategory /><movement>10/25, Swim 5</movement>
  <name>Old Sam</name><alias /><created>True</created><bp>400</bp><buildmethod>BP</buildmethod>
  <attributes>{attrs}</attributes>
  <physicalcmfilled>2</physicalcmfilled><stuncmfilled>0</stuncmfilled>
  <skills>
    <skill><name>Pistols</name><rating>4</rating><attribute>AGI</attribute><totalvalue>9</totalvalue></skill>
    <skill><name>Dodge</name><rating>3</rating><attribute>REA</attribute><totalvalue>7</totalvalue></skill>
  </skills>
  <armors>
    <armor><name>Armor Vest</name><category>Armor</category><b>6</b><i>4</i><source>SR4</source>
      <equipped>True</equipped><armormods /></armor>
    <armor><name>Lined Coat</name><category>Armor</category><b>6</b><i>4</i><source>SR4</source>
      <equipped>False</equipped><armormods /></armor>
  </armors>
  <weapons>
    <weapon><name>Ares Predator IV</name><category>Heavy Pistols</category><type>Ranged</type>
      <damage>5P</damage><ap>-1</ap><mode>SA</mode><rc>0</rc><ammo>15(c)</ammo><source>SR4</source>
      <useskill /><equipped>True</equipped></weapon>
  </weapons>
  <cyberwares>
    <cyberware><guid>{G_ARM}</guid><name>Armor</name><rating>2</rating></cyberware>
    <cyberware><guid>{G_LACING}</guid><name>Armor</name><rating>2</rating></cyberware>
  </cyberwares>
  <improvements>{imps}</improvements>
</character>
"""


def test_a_chummer_4_save_says_it_is_sr4_and_imports_what_maps_across(tmp_path):
    from engine.importers.detect import import_file

    p = _write(tmp_path, _sr4_save(), name="Old Sam.chum", encoding="utf-16")
    res = import_file(p, expect="character")
    sheet, rep = res.token.rules["sr5"], res.report
    # The edition, and why Coverfire thinks so (this save names none).
    assert "Old Sam: human, a Chummer 4 save for Shadowrun 4th edition" in rep.summary
    edition = next(w for w in rep.warnings if w.where == "character/gameedition")
    assert "Shadowrun 4th edition" in edition.message and "Ballistic/Impact" in edition.message
    for difference in ("Ballistic", "Initiative Dice", "no Accuracy", "weapon damage"):
        assert difference in edition.message
    # What means the same in both editions.
    assert (sheet.body, sheet.agility, sheet.strength, sheet.skills["pistols"]) == (4, 5, 3, 4)
    assert (sheet.walk_rate, sheet.run_rate, sheet.physical_damage) == (10.0, 25.0, 2)
    # Armour: the Ballistic rating as Chummer 4 totals it, the two arms' armour once: 6 + 2.
    assert sheet.armor == 8
    assert "armour 8 (Armor Vest 6 + Cyberware Armor 2 +2)" in rep.summary
    assert any("Impact 6 is not used" in line for line in rep.summary)
    # Wired Reflexes' two extra passes are two extra Initiative Dice.
    assert sheet.initiative_dice == 3
    # The weapon keeps SR4's numbers; it has no Accuracy.
    gun = res.token.weapon("Ares Predator IV")
    assert (gun.damage, gun.ap, gun.accuracy) == ("5P", -1, None)
    assert not any("walk rate" in w.message for w in rep.warnings)


def test_a_save_that_names_sr4_is_read_as_sr4(tmp_path):
    text = _sr4_save(edition="<gameedition>SR4</gameedition>").replace("<b>6</b><i>4</i>", "<b>7</b><i>5</i>", 1)
    token, rep = import_chummer(_write(tmp_path, text, name="named.chum", encoding="utf-16"))
    assert token.rules["sr5"].armor == 9
    assert any("<gameedition>SR4</gameedition>" in w.message for w in rep.warnings)


def test_a_chummer_5_save_without_an_edition_is_still_sr5(tmp_path):
    text = _save().replace("<gameedition>SR5</gameedition>", "")
    _token, rep = import_chummer(_write(tmp_path, text))
    assert not any("edition" in w.message for w in rep.warnings)
    assert not any("Chummer 4" in line for line in rep.summary)
