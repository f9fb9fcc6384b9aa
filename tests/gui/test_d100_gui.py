"""The d100 rules in the map window: the demo, the action dialog driven with real clicks on
the map, the body diagram, the round tracker, map marks, the combat log, undo.

Numbers are derived by hand from docs/d100.md and the demo's sheets
(assets/encounters/demo-d100.json) and checked against the engine's own answer."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from engine.d100.dice import EnteredDice
from engine.d100.actions import Fire, TargetSpec
from engine.d100.mapcover import map_cover
from engine.files import load_encounter
from engine.rules import find_system
from tests.gui.conftest import vp_point
from tests.gui.settle import settle

RULESET = find_system("d100")



def demo_d100():
    from gui.rules.d100 import demo_path

    return demo_path()


def click(view, x: float, y: float, shift: bool = False) -> None:
    mod = Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, mod, vp_point(view, x, y))


@pytest.fixture
def d100(window, qtbot):
    """The main window with the d100 demo opened through File > Open the d100 demo (its
    docks laid out before the map is fitted, so map points stay where the clicks go)."""
    window.actions["open d100 demo"].trigger()
    assert window.document.encounter.ruleset == "d100"
    settle(qtbot, window)
    window.map_view.fit_map()
    return window


# -- the demo ----------------------------------------------------------------------------------
def test_the_d100_demo_loads_with_a_sheet_on_every_token_and_the_street_map():
    enc = load_encounter(demo_d100())
    street = load_encounter(demo_d100().with_name("demo.json"))
    assert enc.ruleset == "d100" and enc.map == street.map and enc.obstacles == street.obstacles
    assert [t.id for t in enc.tokens] == [t.id for t in street.tokens]
    for t in enc.tokens:
        s = t.rules.get("d100")
        assert s is not None and s.weapons and s.skills, t.id
        assert s.weapon_named(s.weapon) is not None, t.id
    nyx = enc.token("nyx").rules.get("d100")
    assert nyx.primary_hand == "left" and nyx.offhand is not None  # two pistols to show
    assert any(t.rules["d100"].armour for t in enc.tokens)
    # Lupe stands behind the 1 m wall (y 30.0-30.3) at y 31.2: the map hides what the
    # "standing behind cover" row hides, from Sam (10 m north), so the demo shows agreement
    mc = map_cover(enc, "sam", "ganger-3")
    assert mc.stance == "standing_cover" and mc.agrees
    assert mc.table_hidden == ("groin", "left_leg", "right_leg")


# -- showing only for d100 ------------------------------------------------------------------------
def test_docks_and_menu_show_only_for_d100_encounters(window, demo_path, qtbot):
    assert window.document.encounter.ruleset == "sr5"
    assert window.d100 is None  # not installed for an sr5 file
    assert "d100 action" not in window.actions and "d100" not in window.menus
    window.actions["open d100 demo"].trigger()
    # (a dock added to a shown window becomes its tab on the next turn)
    qtbot.waitUntil(lambda: window.d100 is not None and window.d100.rounds_dock.isVisible())
    g = window.d100
    assert window.rule_gui is g and window.sr5 is None  # only the open encounter's system
    assert g.menu.menuAction().isVisible() and g.rounds_dock.isVisible()  # its tab in front
    assert {"d100_body", "d100_round"} <= set(window.docks) and "sr5_initiative" not in window.docks
    assert window.docks["combat_log"].isVisible()
    assert window.document.path is None  # Save asks where: the bundled demo is never overwritten
    # A opens the d100 action (the sr5 GUI, whose A attacks, is not installed)
    window.selection.select(["sam"], window.document.encounter)
    QTest.keyClick(window.map_view, Qt.Key.Key_A)
    assert g.dialog is not None and g.dialog.isVisible() and g.dialog.shooter_id() == "sam"
    g.dialog.close()
    assert not window.selection.attacker_locked  # the panel gives the attacker back
    window.actions["d100 start round"].trigger()
    assert any(ln.ruleset == "d100" for ln in window.combat_log.lines())
    assert window.open_file(demo_path)
    assert window.d100 is None and "d100_round" not in window.docks and "d100" not in window.menus
    assert not any(ln.ruleset == "d100" for ln in window.combat_log.lines())
    assert all("BLEED" not in t for d in window.map_view.tokens.decorations.values() for t, _ in d.tags)


# -- the aimed shot through the dialog -------------------------------------------------------------
def test_aimed_single_shot_with_entered_dice_lands_on_the_chest_and_undo_reverts_it(d100, tmp_path):
    w, view = d100, d100.map_view
    click(view, 12.0, 20.0)  # Sam
    assert w.selection.attacker == "sam"
    w.actions["d100 action"].trigger()
    dlg = w.d100.dialog
    assert dlg.isVisible() and dlg.shooter_id() == "sam"
    click(view, 31.0, 31.2)  # Lupe, behind the low wall
    assert dlg.targets == ["ganger-3"] and w.selection.attacker == "sam"  # the shooter stays
    dlg.set_action("aim")
    assert dlg.apply() is not None
    assert RULESET.sheet(w.document.encounter.token("sam")).aim_level == 1

    dlg.set_action("single")
    # 55 smg skill + 20 aim x1 = 75%; aimed, so placed at <= 75 // 2 = 37
    ch = dlg.preview.attacks[0].shots[0]
    assert ch.value == 75 and ch.placed_max == 37
    assert [(m.value, m.source) for m in ch.modifiers] == [(55, "skill"), (20, "aim")]
    assert dlg.preview.attacks[0].hidden == ("groin", "left_leg", "right_leg")
    before = w.document.committed
    steps = w.document.undo_stack.count()
    dlg.enter_mode.setChecked(True)
    dlg.hit_die.setValue(20)
    dlg.loc_die.setValue(45)
    dlg.dmg_dice.setText("7")
    change = dlg.apply()
    assert change is not None and w.document.undo_stack.count() == steps + 1
    s = change.shots[0]
    # 20 <= 37: placed; location 45 (right arm, 41-50) moves 15 to 30, the top of the chest
    # (11-30); 7 damage, chest not hidden; lined jacket 2 pierced (7 > 2), wears 7 // 2 = 3
    # (8 -> 5); 7 - 2 = 5 to the chest: light (1-5), which makes Lupe fall prone
    assert (s.hit, s.placed, s.location_roll, s.placed_roll, s.location) == (True, True, 45, 30, "chest")
    d = s.damage
    assert (d.rolled, d.hidden, d.armour, d.pierced, d.durability_after, d.taken) == (7, False, 2, True, 5, 5)
    lupe = RULESET.sheet(w.document.encounter.token("ganger-3"))
    assert lupe.wounds["chest"].damage == 5 and lupe.wounds["chest"].severity == "light"
    assert lupe.injury == 5 and lupe.armour["chest"].durability == 5 and lupe.stance == "prone"
    assert w.document.encounter.token("ganger-3").stance == "prone"
    # the same as the engine answers on its own
    own = RULESET.apply(before, Fire("sam", (TargetSpec("ganger-3"),), weapon="Ingram Smartgun X"),
                        EnteredDice({"hit": 20, "location": 45, "damage": 7}, fallback=RULESET.dice_for(before))).detail
    assert own.encounter == w.document.encounter.model_copy(update={"record": own.encounter.record})  # (+ a step)
    assert "placed shot" in dlg.result.toPlainText() and "chest: none \u2192 light" in dlg.result.toPlainText()

    # the body diagram shows it when Lupe is selected
    click(view, 31.0, 31.2)
    body = w.d100.body
    assert body.token_id == "ganger-3"
    assert body.cell("chest", "Severity") == "light" and body.cell("chest", "Dmg") == "5"
    assert body.cell("chest", "Armour") == "2  (5/8)"
    assert "5</b> / 45" in body.injury.text() and "PRONE" in body.marks.text()
    assert body.diagram._sheet.wound("chest").severity == "light"
    dec = w.map_view.tokens.decorations["ganger-3"]  # injury bar under Lupe's name
    assert dec.bars[0].fraction == pytest.approx(5 / 45) and dec.bars[0].colour == "#81c784"

    # the log, then undo: Lupe is whole again, the lines are struck through and not exported
    log = w.combat_log
    hit_line = "placed: location roll 45 moved to 30 toward chest: chest"
    assert any(hit_line in ln.text and not ln.undone for ln in log.lines())
    w.actions["undo"].trigger()
    assert w.document.encounter == before
    lupe = RULESET.sheet(w.document.encounter.token("ganger-3"))
    assert lupe.wounds == {} and lupe.injury == 0 and lupe.stance == "standing_cover"
    assert body.cell("chest", "Severity") == "\u2014" and body.cell("chest", "Armour") == "2  (8/8)"
    assert all(ln.undone for ln in log.lines() if hit_line in ln.text)
    out = log.export(tmp_path / "log.txt").read_text()
    assert hit_line not in out and "Sam aims at Lupe (+20%)" in out
    w.actions["redo"].trigger()
    assert RULESET.sheet(w.document.encounter.token("ganger-3")).wounds["chest"].damage == 5
    assert any(hit_line in ln.text and not ln.undone for ln in log.lines())


def test_full_auto_takes_shift_clicked_targets_and_the_gm_picks_the_map(d100):
    w, view = d100, d100.map_view
    click(view, 12.0, 20.0)
    dlg = w.d100.open_dialog()
    dlg.set_action("auto")
    click(view, 16.0, 30.0)  # Brick
    click(view, 27.0, 17.0, shift=True)  # Razor
    assert dlg.targets == ["brick", "ganger-1"]
    pre = dlg.preview
    # 10 shots over 2 targets: 5 each; 55 // 5 = 11% each, placed at <= 11 // 10 = 1
    assert [len(a.shots) for a in pre.attacks] == [5, 5]
    assert {c.value for a in pre.attacks for c in a.shots} == {11}
    assert pre.attacks[0].shots[0].placed_max == 1
    # Brick stands behind the 1.3 m car: the map also hides his abdomen (0.90-1.25 m), the
    # "standing behind cover" row does not; the GM picks the map for Brick
    mc = dlg.covers["brick"]
    assert "abdomen" in mc.only_map and mc.table_hidden == ("groin", "left_leg", "right_leg")
    assert pre.attacks[0].hidden_source == "stance"
    dlg.set_target_choice("brick", use="map", prefer="head", cover=3)
    atk = dlg.preview.attacks[0]
    assert atk.hidden == mc.map_hidden and atk.hidden_source == "given" and atk.cover == 3 and atk.prefer == "head"
    assert dlg.preview.attacks[1].hidden_source == "stance"
    # a GM modifier reaches every shot before the division: (55 - 15) // 5 = 8
    dlg.add_modifier_row("smoke", -15)
    assert {c.value for a in dlg.preview.attacks for c in a.shots} == {8}
    assert ("smoke", -15) in dlg.build_action().modifiers


def test_illegal_actions_say_why_and_cannot_be_applied(d100):
    w, view = d100, d100.map_view
    click(view, 12.0, 20.0)
    dlg = w.d100.open_dialog()
    dlg.set_action("aim")
    click(view, 49.0, 25.8)  # Mouse, prone behind the 0.9 m crates: the map hides all of it
    assert dlg.covers["ganger-5"].map_full
    assert dlg.apply_button.isEnabled()  # the stance table ("firing prone") does not
    dlg.set_target_choice("ganger-5", use="map")
    assert not dlg.apply_button.isEnabled() and "full cover" in dlg.reason.text()
    steps = w.document.undo_stack.count()
    assert dlg.apply() is None and w.document.undo_stack.count() == steps
    dlg.set_action("two")
    assert "needs a pistol in each hand" in dlg.reason.text()
    dlg.enter_mode.setChecked(True)
    dlg.set_action("single")
    dlg.other_dice.setText("hit#2 forty")
    assert dlg.apply() is None and "cannot read" in dlg.message.text()


def test_round_tracker_orders_by_speed_and_ends_turns(d100):
    w = d100
    rt = w.d100.rounds
    assert rt.current() is None and "Free play" in rt.round_label.text()
    rt.start_button.click()
    # actions per round = speed (no wounds): Sam 3, Nyx 3, then the 2s in file order, Mouse 1
    assert [r[0] for r in rt.order()] == ["sam", "nyx", "brick", "ganger-1", "ganger-2", "ganger-3",
                                          "ganger-4", "ganger-6", "ganger-5"]
    assert rt.order()[0] == ("sam", 3, 3) and rt.order()[-1] == ("ganger-5", 1, 1)
    assert rt.current() == "sam" and rt.round_label.text() == "Round 1"
    assert rt.table.item(0, 0).text() == "\u25b6" and rt.table.item(0, 2).text() == "3 of 3"
    rt.end_button.click()
    assert rt.current() == "nyx" and RULESET.sheet(w.document.encounter.token("sam")).turn_done
    assert rt.table.item(0, 3).text() == "turn ended"
    # clicking a row selects the token for the body dock
    rt._clicked(2, 1)
    assert w.d100.body.token_id == "brick"
    w.actions["undo"].trigger()
    w.actions["undo"].trigger()
    assert RULESET.settings(w.document.encounter).round == 0 and rt.current() is None


# -- pieces ------------------------------------------------------------------------------------------
def test_combat_log_batches_undone_export_and_dock_wish(qtbot, tmp_path):
    from gui.combat_log import CombatLog, CombatLogPanel

    log = CombatLog()
    panel = CombatLogPanel(log)
    qtbot.addWidget(panel)
    b1 = log.add(["Sam fires", ("  hit", "hit")], "d100", round=2)
    b2 = log.add(["Brick ducks"], "sr5", timestamp=None)
    assert [ln.batch for ln in log.lines()] == [b1, b1, b2] and panel.list.count() == 3
    log.set_undone(b1, True)
    assert log.text().splitlines()[0].endswith("sr5 | Brick ducks") and "--:--:--" in log.text()
    assert panel.list.item(0).font().strikeOut()
    panel.show_undone.setChecked(False)
    assert panel.list.count() == 1
    log.set_undone(b1, False)
    text = log.export(tmp_path / "x.txt").read_text()
    assert " d100 R2 | Sam fires" in text and text.count("\n") == 3
    log.clear("d100")
    assert [ln.ruleset for ln in log.lines()] == ["sr5"]
    seen = []
    log.visibilityWanted.connect(seen.append)
    log.want("d100", True)
    log.want("sr5", True)
    log.want("d100", False)
    assert seen == [True] and log.wanted
    log.want("sr5", False)
    assert seen == [True, False] and not log.wanted
    # the panel follows the log: the cleared d100 lines are gone, the sr5 line is left
    assert panel.list.count() == 1 and "Brick ducks" in panel.list.item(0).text()
    assert not panel.list.item(0).font().strikeOut()


def test_other_dice_entries_parse_or_name_the_bad_part():
    from gui.rules.d100.attack import parse_other_dice

    assert parse_other_dice("hit#2=40, stun=30; pass out = 12") == {"hit#2": 40, "stun": 30, "pass out": 12}
    assert parse_other_dice("  ") == {}
    with pytest.raises(ValueError, match="'hit#2 forty'"):
        parse_other_dice("hit#2 forty")


def test_a_stunning_head_shot_shows_on_the_map_the_body_and_the_tracker(d100):
    w = d100
    w.d100.rounds.start_button.click()
    # Nyx (pistol 65) hits Vex on the head (location 5) for 3: light, stunned before acting
    # (loses this round's turn); Vex has no helmet
    ch = w.d100.controller.apply(Fire("nyx", ("ganger-6",)), EnteredDice({"hit": 30, "location": 5, "damage": 3}))
    assert ch.shots[0].location == "head" and ch.shots[0].damage.taken == 3
    assert RULESET.status(w.document.encounter, "ganger-6").stunned
    assert w.map_view.tokens.decorations["ganger-6"].tags == (("STUN", "#ffca28"),)
    w.selection.select(["ganger-6"], w.document.encounter)
    assert "STUNNED: loses this turn" in w.d100.body.marks.text()
    rt = w.d100.rounds
    row = [r[0] for r in rt.order()].index("ganger-6")
    assert rt.table.item(row, 3).text() == "stunned"


def test_injury_bars_and_tags_come_from_the_sheets_and_leave_with_the_file(d100, demo_path, qtbot):
    w = d100
    layer = w.map_view.tokens
    assert layer.decorations == {}  # nobody is hurt yet
    # Brick's AK (2d6) rolls 6 + 6 = 12 on Spike's abdomen (no armour): light, heavy and
    # serious (11-15) - d3 more three times (1 each) and a bleeding wound: injury 15
    ch = w.d100.controller.apply(Fire("brick", ("ganger-2",)),
                                 EnteredDice({"hit": 30, "location": 60, "damage": 6, "damage#2": 6,
                                              "extra": 1, "extra#2": 1, "extra#3": 1}))
    assert ch.encounter.token("ganger-2").rules["d100"].injury == 15
    dec = layer.decorations["ganger-2"]
    # 15 / 50 = 0.3: under half, green
    assert dec.bars[0].fraction == pytest.approx(0.3) and dec.bars[0].colour == "#81c784"
    assert dec.tags == (("BLEED 1", "#ff6b6b"),)
    w.actions["undo"].trigger()
    assert layer.decorations == {}
    w.actions["redo"].trigger()
    assert "ganger-2" in layer.decorations
    assert w.open_file(demo_path)  # an sr5 file: its rule system may decorate, d100's marks go
    settle(qtbot, w)
    assert layer.decorations.get("ganger-2") != dec
    assert all("BLEED" not in t for d in layer.decorations.values() for t, _ in d.tags)
