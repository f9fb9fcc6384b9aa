"""Grenades in the map window, driven like a GM on the demo: Brick readies his fragmentation
grenade, a blast circle is drawn with the Blast tool, SR5 > Throw/Fire grenade opens the
dialog on the selected zone, dice are typed step by step, the blast is applied as one undo
step (the zone moving when it scatters) and undone.

Numbers are derived by hand from docs/sr5.md and the demo (assets/encounters/demo.json:
Brick (16,30) STR 8, AGI 4, Throwing Weapons 3, Reaction 4, Body 9; the gangers Reaction 3,
Intuition 3, armor 9; Spike Body 5, Lupe Body 4; partial light; wall-1 1 m tall from x 26 to
36 along y 30..30.3) and checked against the engine's own answers."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

import tests.gui.test_sr5_gui as base
from engine.names import name_of
from engine.sr5 import blast as sr5_blast
from engine.sr5.changes import settings_of
from tests.gui.conftest import mouse_drag
from tests.gui.settle import settle

AIM = (31.0, 29.0)  # 2.2 m north of Lupe (31, 31.2), the 1 m wall between them
EDGE = (37.5, 29.0)  # the radius handle dragged 6.5 m east


@pytest.fixture
def sr5(window, qtbot):
    """The main window on the sr5 demo in Combat Turn 1, Brick acting with his grenade ready
    (Ready Weapon taken from the tracker)."""
    settle(qtbot, window)
    window.map_view.fit_map()
    base.start_turn(window)
    t = window.sr5.tracker
    for _ in range(3):  # Sam 22 -> Nyx 14 -> Tusk 13 -> Brick 12
        t.end_phase()
    assert settings_of(window.document.encounter).acting == "brick"
    base.click(window.map_view, 16.0, 30.0)  # Brick: the attacker
    t.weapon.setCurrentIndex(t.weapon.findData("Frag grenade"))
    t.take_action("ready_weapon")
    assert window.document.encounter.token("brick").rules["sr5"].in_hand[0] == "Frag grenade"
    return window


def draw_blast(window) -> str:
    """The Blast tool: press at the aim point, drag out the radius; returns the zone's id
    (the new zone is selected, Brick stays the attacker)."""
    if not window.actions["snap"].isChecked():
        window.actions["snap"].trigger()  # Map > Snap to grid: the centre lands on (31, 29)
    window.actions["tool:Blast"].trigger()
    mouse_drag(window.map_view, AIM, EDGE)
    window.actions["tool:Select"].trigger()
    enc = window.document.encounter
    z = enc.zones[-1]
    assert z.kind == "blast" and (z.x, z.y) == AIM and z.radius == pytest.approx(6.5, abs=0.1)
    assert window.selection.ids == (z.id,) and window.selection.attacker == "brick"
    return z.id


def open_dialog(window, zone: str):
    window.actions["sr5 blast"].trigger()  # SR5 > Throw/Fire grenade on the selected zone
    dlg = window.sr5.blast_dialog
    assert dlg is not None and dlg.isVisible()
    assert (dlg.attacker, dlg.zone_combo.currentData(), dlg.weapon_combo.currentData()) == ("brick", zone, "Frag grenade")
    # the fragmentation grenade would fill 18 m (and catch Brick himself, 15 m away): the GM
    # keeps the circle drawn
    assert dlg.plan.radius == 18.0 and "brick" in [t.target for t in dlg.plan.targets]
    dlg.fit.setChecked(False)
    return dlg


def type_dice(dlg, faces: str) -> None:
    dlg.dice.faces.setText(faces)
    QTest.keyClick(dlg.dice.faces, Qt.Key.Key_Return)


def test_a_grenade_on_the_aim_point_catches_two_at_different_distances(sr5, qtbot):
    zid = draw_blast(sr5)
    dlg = open_dialog(sr5, zid)
    plan = dlg.plan
    # the dialog's plan is the engine's, measured on the map
    enc = sr5.document.encounter
    ref = sr5_blast.plan_blast_on_map(enc, sr5_blast.BlastDeclaration("brick", zid, "Frag grenade", fit_radius=False))
    assert base.part_values(plan.attack) == base.part_values(ref.attack)
    assert [(t.target, t.dv) for t in plan.targets] == [(t.target, t.dv) for t in ref.targets]
    # Throwing Weapons 3 + Agility 4, partial light -1 (15.03 m is short at STR 8: 16 m) = 6;
    # Physical limit ceil((2 x 8 + 9 + 4) / 3) = 10; threshold 3
    assert (plan.attack.total, plan.attack.limit, plan.attack.threshold, plan.band) == (6, 10, 3, "short")
    assert plan.radius == pytest.approx(6.5, abs=0.1) and plan.scatter_dice == 1
    # Spike (36,26): hypot(5, 3) = 5.83 m -> 5 -> DV 18 - 5 = 13, in the open: 3 + 3 - 2 = 4;
    # Lupe (31,31.2): 2.2 m -> 2 -> DV 16, the 1 m wall hides 1.0 of her 1.8 m from the
    # blast 1 m up (55 %): good cover +4: 3 + 3 - 2 + 4 = 8. Soak Body + armor 9 + AP 5.
    assert [(t.target, t.metres, t.dv, t.facts.cover, t.defense.total, t.soak.total) for t in plan.targets] == [
        ("ganger-2", 5, 13, "none", 4, 19), ("ganger-3", 2, 16, "good", 8, 18)]
    box = dlg.boxes["ganger-3"]
    assert box.header.text() == ("Lupe  \u2014  2.2 m from the centre (2 m), DV 16P here, good cover from the "
                                 "blast (55% hidden)")
    assert box.defense.value_of("cover") == 4 and box.defense.value_of("area") == -2
    assert dlg.caught_title.text() == "Caught at the aim point: 2"
    # the GM edits Spike's defense: a crate he ducks behind, +1
    box = dlg.boxes["ganger-2"]
    dlg.add_modifier("ducks behind a crate", 1, target="ganger-2", pool="defense")
    assert dlg.plan.target("ganger-2").defense.total == 5 and box.defense.value_of("gm1") == 1
    # attack: 3 hits: on target
    assert dlg.dice.what.text() == "Next: Attack \u2014 Brick: 6 dice, limit 10, threshold 3"
    type_dice(dlg, "6 5 5 1 2 3")
    assert dlg.landing.text() == "on target (31.0, 29.0)"
    # Spike: 5 dice, 1 hit -> DV 12; armor 9 + 5 = 14 > 12: Stun; 19 dice, 3 hits -> 9 Stun
    assert dlg.dice.what.text() == "Next: Defense \u2014 Spike: 5 dice"
    type_dice(dlg, "5 1 2 3 4")
    type_dice(dlg, "5 5 5 " + "2 " * 16)
    # Lupe: 8 dice, 3 hits -> DV 13 < armor 14: Stun; 18 dice, 4 hits -> 9 Stun
    type_dice(dlg, "5 5 5 1 2 2 3 4")
    type_dice(dlg, "6 6 5 5 " + "2 " * 14)
    r = dlg.resolution
    assert r.done
    assert [(o.result, o.dv, o.armor, o.damage_type, o.boxes) for o in (r.outcome("ganger-2"), r.outcome("ganger-3"))] \
        == [("hit", 12, 14, "S", 9), ("hit", 13, 14, "S", 9)]
    assert dlg.outcome.text() == "Spike: 9 boxes Stun; Lupe: 9 boxes Stun"
    story = dlg.result.toPlainText()
    assert "Lupe: hit: DV 16 - 3 = 13; armor 9 +5 AP = 14 > DV: Stun; 13S" in story
    steps = sr5.document.undo_stack.count()
    dlg.apply_button.click()
    assert sr5.document.undo_stack.count() == steps + 1
    assert sr5.document.undo_stack.undoText() == "SR5: Brick throws Frag grenade: Spike 9S, Lupe 9S"
    enc = sr5.document.encounter
    spike, lupe = enc.token("ganger-2").rules.get("sr5"), enc.token("ganger-3").rules.get("sr5")
    # Stun monitor 8 + ceil(3/2) = 10; 9 boxes: wound modifier -3, off their Initiative at once
    assert (spike.stun_damage, spike.initiative, lupe.stun_damage, lupe.initiative) == (9, 7 - 3, 9, 8 - 3)
    assert enc.token("brick").weapon("Frag grenade").loaded == 1
    assert (enc.zone(zid).x, enc.zone(zid).y) == AIM  # on target: the zone stays
    assert settings_of(enc).phase.actions[-1] == "throw_weapon"
    dec = sr5.map_view.tokens.decorations["ganger-3"]
    assert dec.bars[1].fraction == pytest.approx(1 / 10) and ("-3", "#ffb74d") in dec.tags
    lines = [ln.text for ln in sr5.combat_log.lines(include_undone=False)]
    assert f"[T1.1] Brick throws Frag grenade (fragmentation) at {name_of(enc, zid)}: 3 hits vs 3: on target (31.0, 29.0)" in lines
    assert "[T1.1] Spike in the blast of Frag grenade: 5.8 m (5 m), DV 13, defense 1: 12S vs soak 3: 9 Stun; " \
           "wound modifier -3" in lines
    assert any(ln.startswith("    Spike dives from the blast: Reaction +3, Intuition +3, area-effect attack -2, "
                             "ducks behind a crate +1 = 5") for ln in lines)
    # one undo takes it all back
    sr5.actions["undo"].trigger()
    enc = sr5.document.encounter
    assert enc.token("ganger-2").rules["sr5"].stun_damage == 0 and enc.token("brick").weapon("Frag grenade").loaded == 2
    struck = [ln for ln in sr5.combat_log.lines() if "throws Frag grenade" in ln.text or "in the blast of" in ln.text]
    assert len(struck) == 4 and all(ln.undone for ln in struck)  # the throw, its pool, Spike, Lupe


def test_a_miss_scatters_the_blast_and_the_zone_moves_where_it_lands(sr5, qtbot):
    zid = draw_blast(sr5)
    dlg = open_dialog(sr5, zid)
    type_dice(dlg, "5 1 2 3 4 2")  # 1 hit: a miss
    assert dlg.dice.what.text() == "Next: Scatter: 1D6 metres, minus 1 hit"
    type_dice(dlg, "5")  # 5 - 1 = 4 m
    assert dlg.dice.what.text().startswith("Next: Scatter direction: 1 die (1D6: 1 straight on past the aim point")
    type_dice(dlg, "4")  # back toward Brick: the throw's bearing + 180
    r = dlg.resolution
    # the throw from (16,30) to (31,29) bears atan2(-1, 15) = -3.81 deg; +180 = 176.19 deg;
    # 4 m that way: (31 - 3.991, 29 + 0.266) = (27.009, 29.266)
    throw = math.degrees(math.atan2(-1.0, 15.0)) % 360
    assert r.bearing == pytest.approx((throw + 180) % 360)
    assert r.landing == pytest.approx((31 + 4 * math.cos(math.radians(throw + 180)),
                                       29 + 4 * math.sin(math.radians(throw + 180))))
    assert dlg.landing.text() == "scatters 4 m (1D6 [5] - 1 hits) toward 176\u00b0 (face 4) to 27.0, 29.3"
    # measured again where it landed: Lupe 4.43 m -> DV 14, still behind the wall (good);
    # Spike, 9.57 m away, is out of the 6.5 m circle now
    assert [(t.target, t.metres, t.dv, t.facts.cover) for t in r.targets] == [("ganger-3", 4, 14, "good")]
    assert dlg.caught_title.text() == "Caught where it landed: 1" and list(dlg.boxes) == ["ganger-3"]
    # the landing is drawn on the map: its circle, the scatter line, a label
    sketch = sr5.map_view.overlay._tool
    assert sketch.handles == [pytest.approx(r.landing)] and sketch.labels[0][2] == "lands 4 m off, 176\u00b0"
    type_dice(dlg, "5 1 2 2 3 3 4 4")  # 1 hit: DV 13, armor 14: Stun
    type_dice(dlg, "5 5 5 5 5 " + "2 " * 13)  # 5 hits -> 8 Stun
    assert dlg.outcome.text() == "Lupe: 8 boxes Stun"
    dlg.apply()
    enc = sr5.document.encounter
    z = enc.zone(zid)
    assert (z.x, z.y) == pytest.approx(r.landing) and z.radius == pytest.approx(6.5, abs=0.1)
    assert enc.token("ganger-3").rules["sr5"].stun_damage == 8 and enc.token("ganger-2").rules["sr5"].stun_damage == 0
    assert not sr5.map_view.overlay._tool.handles  # the landing sketch is taken down: the zone itself moved
    assert "The blast zone now stands where it went off: 27.0, 29.3." in dlg.result.toPlainText()
    # the zone layer draws it there: Spike (out of it now) and Lupe (in it) by the map's own answers
    hits = sr5.document.tactics.zone_hits()[zid]
    assert [h.id for h in hits] == ["ganger-3"]
    sr5.actions["undo"].trigger()
    z = sr5.document.encounter.zone(zid)
    assert (z.x, z.y) == AIM and sr5.document.encounter.token("ganger-3").rules["sr5"].stun_damage == 0


def test_the_attack_dialog_sends_a_grenade_to_the_blast_dialog(sr5):
    zid = draw_blast(sr5)
    g = sr5.sr5
    dlg = g.open_attack("brick", ["ganger-3"])
    dlg.weapon_combo.setCurrentIndex(dlg.weapon_combo.findData("Frag grenade"))
    # a grenade is not thrown at a token: no plan, the way to the blast dialog instead
    assert dlg.plan is None and dlg.problems.text().startswith("Frag grenade explodes: it is aimed at a blast zone")
    assert dlg.decl_form.isRowVisible(dlg.blast_button)
    dlg.blast_button.click()
    b = g.blast_dialog
    assert b.isVisible() and (b.attacker, b.weapon_combo.currentData(), b.zone_combo.currentData()) == (
        "brick", "Frag grenade", zid)
    dlg.weapon_combo.setCurrentIndex(dlg.weapon_combo.findData("AK-97"))
    assert not dlg.decl_form.isRowVisible(dlg.blast_button) and dlg.plan is not None


def test_refusals_grey_out_the_roll_and_the_gm_may_allow_it(sr5):
    zid = draw_blast(sr5)
    dlg = open_dialog(sr5, zid)
    dlg.attacker_combo.setCurrentIndex(dlg.attacker_combo.findData("sam"))  # Sam has no grenade
    assert dlg.weapon_combo.currentData() == "Ingram Smartgun X"
    assert "Not allowed: Ingram Smartgun X is no grenade or launcher" in dlg.problems.text()
    dlg.attacker_combo.setCurrentIndex(dlg.attacker_combo.findData("brick"))
    sr5.sr5.tracker.end_phase()  # Brick's phase is over: the throw must wait
    plan = dlg.plan
    assert any("only in its own Action Phase" in p for p in plan.problems)
    assert not dlg.dice.roll_button.isEnabled()
    dlg.force.setChecked(True)
    assert dlg.dice.roll_button.isEnabled()
    dlg.roll_all()
    assert dlg.resolution.done and dlg.apply() is not None
