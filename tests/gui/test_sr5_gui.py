"""The SR5 rules in the map window, driven like a GM: initiative entered in the tracker's
dialog, attacker clicked and targets shift-clicked on the map, the attack dialog opened with
A, a modifier changed, dice typed in, damage applied to the monitor and undone.

Numbers are derived by hand from docs/sr5.md and the demo's sheets
(assets/encounters/demo.json, made by assets/encounters/make_sr5_demo_sheets.py) and checked against the
engine's own answers."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from engine.sr5 import suppressive
from engine.sr5 import actions as sr5_actions, economy as sr5_economy
from engine.sr5 import initiative as sr5_initiative, movement as sr5_movement
from engine.sr5.attack import AttackDeclaration, plan_attack
from engine.sr5.changes import settings_of
from engine.sr5.facts import facts_from_map
from engine.sr5.pools import divide
from tests.gui.conftest import vp_point
from tests.gui.settle import settle

# Initiative typed into the dialog: faces of the initiative dice, or "=score".
# base = Reaction + Intuition: Sam 6+4 = 10 (2D6), Nyx 4+5 = 9, Brick 4+3 = 7, gangers 3+3 = 6,
# Tusk, Mouse, Vex 4+3 = 7 (1D6 each).
ENTRIES = {"sam": "6 6", "nyx": "5", "brick": "=12", "ganger-1": "4", "ganger-2": "1", "ganger-3": "2",
           "ganger-4": "6", "ganger-5": "3", "ganger-6": "5"}
# -> Sam 22, Nyx 14, Brick 12, Razor 10, Spike 7, Lupe 8, Tusk 13, Mouse 10, Vex 12
SCORES = {"sam": 22, "nyx": 14, "brick": 12, "ganger-1": 10, "ganger-2": 7, "ganger-3": 8, "ganger-4": 13,
          "ganger-5": 10, "ganger-6": 12}


def click(view, x: float, y: float, shift: bool = False) -> None:
    mod = Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, mod, vp_point(view, x, y))


@pytest.fixture
def sr5(window, qtbot):
    """The main window on the sr5 demo, its SR5 docks laid out before the map is fitted."""
    assert window.document.encounter.ruleset == "sr5"
    settle(qtbot, window)
    window.map_view.fit_map()
    return window


def start_turn(window):
    """Roll initiative through the tracker's dialog with the ENTRIES typed in."""
    dlg = window.sr5.tracker.open_initiative()
    for tid, text in ENTRIES.items():
        dlg.edits[tid].setText(text)
    assert dlg.start_turn()
    return dlg


def part_values(pool):
    return [(p.key, p.value, p.source) for p in pool.parts], [(p.key, p.value) for p in pool.limit_parts]


# -- showing ------------------------------------------------------------------------------------
def test_docks_menu_and_marks_only_for_sr5_encounters(sr5, demo_path, qtbot):
    g = sr5.sr5
    assert g.controller.active and g.dock.isVisible() and g.menu.menuAction().isVisible()
    assert sr5.docks["combat_log"].isVisible()
    # every token of the demo has a sheet: two bars each (Physical 8 + ceil(BOD/2), Stun 8 + ceil(WIL/2))
    decs = sr5.map_view.tokens.decorations
    assert set(decs) == {t.id for t in sr5.document.encounter.tokens}
    assert [(b.fraction, b.cells) for b in decs["ganger-4"].bars] == [(1.0, 11), (1.0, 10)]  # Tusk BOD 6, WIL 3
    assert ("PRONE", "#bcaaa4") in decs["ganger-5"].tags  # Mouse lies prone in the demo
    from gui.rules.d100 import demo_path as d100_demo

    assert sr5.open_file(d100_demo())
    # the sr5 GUI is uninstalled: its dock, menu, actions and marks are gone, not hidden
    assert sr5.sr5 is None and sr5.rule_gui.ruleset == "d100"
    assert "sr5_initiative" not in sr5.docks and "SR5" not in sr5.menus
    assert not any(name.startswith("sr5 ") for name in sr5.actions)
    assert "SR5" not in [a.text() for a in sr5.menuBar().actions()]
    assert not any(len(d.bars) == 2 for d in sr5.map_view.tokens.decorations.values())
    assert sr5.open_file(demo_path)
    # (a dock added to a shown window becomes its tab on the next turn)
    qtbot.waitUntil(lambda: sr5.sr5 is not None and sr5.sr5.dock.isVisible())
    g = sr5.sr5
    assert g is not None and g.controller.active and g.dock.isVisible() and sr5.actions["sr5 attack"].isEnabled()
    assert sr5.rule_gui is g and [a.text() for a in sr5.menuBar().actions()].count("SR5") == 1


def test_token_decorations_are_drawn_under_the_name(sr5, qtbot):
    """The generic TokenLayer hook: a bar set on a token shows below its label (pixels in its
    colour appear there) and goes when cleared."""
    from gui.layers import TokenBar, TokenDecoration

    view = sr5.map_view
    sr5.sr5.controller.stateChanged.disconnect(sr5.sr5._update_marks)  # keep the sr5 marks out of the way
    view.tokens.set_decorations({})
    settle(qtbot, sr5)
    p = vp_point(view, 41.5, 15.5)  # Tusk

    def magenta() -> int:
        img = view.grab().toImage()
        n = 0
        for y in range(p.y(), min(img.height(), p.y() + 90)):
            for x in range(max(0, p.x() - 40), min(img.width(), p.x() + 40)):
                c = img.pixelColor(x, y)
                n += c.red() > 230 and c.green() < 30 and c.blue() > 230
        return n

    assert magenta() == 0
    view.tokens.set_decorations({"ganger-4": TokenDecoration((TokenBar(1.0, "#ff00ff", 4),))})
    qtbot.waitUntil(lambda: magenta() > 60)  # a bar at least 34 px wide and 3 px high, minus its cell marks
    view.tokens.set_decorations({})
    qtbot.waitUntil(lambda: magenta() == 0)


# -- initiative -----------------------------------------------------------------------------------
def test_initiative_entered_in_the_tracker_orders_the_pass_and_moves_on(sr5):
    g = sr5.sr5
    t = g.tracker
    assert t.turn.text() == "No Combat Turn yet"
    start_turn(sr5)
    enc = sr5.document.encounter
    assert {tk.id: tk.rules["sr5"].initiative for tk in enc.tokens} == SCORES
    # ties: Brick and Vex at 12 -> Edge 2 beats 1; Razor and Mouse at 10 -> Edge 1 each, Reaction 4 beats 3
    order = ["sam", "nyx", "ganger-4", "brick", "ganger-6", "ganger-5", "ganger-1", "ganger-3", "ganger-2"]
    assert list(sr5_initiative.initiative_order(enc)) == order
    rows = [(t.order.item(r, 0).text(), t.order.item(r, 1).text(), t.order.item(r, 2).text())
            for r in range(t.order.rowCount())]
    # passes: 22 -> 12 -> 2 is three; 14, 13, 12 two; 10, 8, 7 one
    assert rows[:4] == [("Sam", "22", "3"), ("Nyx", "14", "2"), ("Tusk", "13", "2"), ("Brick", "12", "2")]
    assert [r[0] for r in rows] == ["Sam", "Nyx", "Tusk", "Brick", "Vex", "Mouse", "Razor", "Lupe", "Spike"]
    assert t.turn.text() == "Combat Turn 1  \u00b7  Initiative Pass 1"
    assert t.acting.text() == "\u25b6 Sam acts (Initiative 22)"
    assert t.budget.text() == "Left this phase: 1 Complex or 2 Simple + 3 Free"
    assert t.order.item(0, 6).text() == "\u25b6 acting"
    assert ("\u25b6 ACTS", "#fff176") in sr5.map_view.tokens.decorations["sam"].tags
    # one undo step for the whole roll
    assert sr5.document.undo_stack.count() == 1
    t.end_button.click()
    assert settings_of(sr5.document.encounter).acting == "nyx"
    assert t.acting.text() == "\u25b6 Nyx acts (Initiative 14)"
    assert t.order.item(0, 6).text() == "acted"
    sr5.actions["undo"].trigger()
    assert settings_of(sr5.document.encounter).acting == "sam"


def test_bad_initiative_entries_are_named(sr5):
    dlg = sr5.sr5.tracker.open_initiative()
    dlg.edits["sam"].setText("6")  # Sam rolls 2D6
    assert not dlg.start_turn()
    assert dlg.error.text() == "Sam rolls 2D6 initiative: enter 2 dice, not 1"
    dlg.edits["sam"].setText("6 9")
    assert not dlg.start_turn()
    assert dlg.error.text() == "Sam: die 2: '9' is not a face from 1 to 6"
    assert settings_of(sr5.document.encounter).turn == 0 and sr5.document.undo_stack.count() == 0
    dlg.reject()


def test_actions_with_reasons_and_interrupts_from_the_tracker(sr5):
    g = sr5.sr5
    t = g.tracker
    start_turn(sr5)
    enc = sr5.document.encounter
    sr5.selection.select(["sam"], enc)
    # the list is the engine's available_actions, with the reason of every refusal
    engine = {spec.id: reason for spec, reason in sr5_actions.available_actions(enc, "sam", "Ingram Smartgun X")}
    shown = {}
    for i in range(t.actions.count()):
        it = t.actions.item(i)
        shown[it.data(Qt.ItemDataRole.UserRole)] = it.text()
    for aid in ("take_aim", "sprint", "insert_clip", "stand_up", "full_defense", "run"):
        assert t.reasons[aid] == engine[aid], aid
    assert shown["sprint"] == "Sprint  (Simple) \u2014 Sam must be running to sprint: Run first (Free Action)"
    assert shown["take_aim"] == "Take Aim  (Simple)" and t.reasons["take_aim"] is None
    assert shown["full_defense"] == "Full Defense  (Interrupt -10 Initiative)"
    # allowed actions come first
    allowed = [t.reasons[t.actions.item(i).data(Qt.ItemDataRole.UserRole)] is None for i in range(t.actions.count())]
    assert allowed == sorted(allowed, reverse=True)
    # Take Aim (Simple): Sam's budget drops to 1 Simple + 2 Free, the map shows AIM 1
    t.take_action("take_aim")
    enc = sr5.document.encounter
    assert enc.token("sam").rules["sr5"].aim == 1 and enc.token("sam").rules["sr5"].aim_weapon == "Ingram Smartgun X"
    assert t.budget.text() == "Left this phase: " + sr5_economy.phase_budget(enc, "sam").describe()
    assert t.budget.text() == "Left this phase: 1 Simple + 2 Free"
    assert ("AIM 1", "#a5d6a7") in sr5.map_view.tokens.decorations["sam"].tags
    # Razor (Initiative 10) goes on Full Defense out of turn: -10 Initiative, FD on the map
    sr5.selection.select(["ganger-1"], enc)
    assert t.who.text().startswith("Razor: 0 Free Actions (not its phase)")
    assert t.interrupt_buttons["full_defense"].isEnabled()
    t.interrupt_buttons["full_defense"].click()
    razor = sr5.document.encounter.token("ganger-1").rules.get("sr5")
    assert razor.initiative == 0 and razor.full_defense
    assert ("FD", "#ce93d8") in sr5.map_view.tokens.decorations["ganger-1"].tags
    # Hit the Dirt costs 5: with Initiative 0 the engine refuses and the button says why
    assert not t.interrupt_buttons["hit_the_dirt"].isEnabled()
    assert t.interrupt_buttons["hit_the_dirt"].toolTip() == \
        "Razor has Initiative 0, less than the 5 this interrupt costs"
    sr5.actions["undo"].trigger()
    assert sr5.document.encounter.token("ganger-1").rules["sr5"].initiative == 10


# -- the attack -------------------------------------------------------------------------------------
def test_attack_picked_on_the_map_with_typed_dice_damages_tusk_and_undo_reverts_it(sr5, qtbot):
    g = sr5.sr5
    start_turn(sr5)
    view = sr5.map_view
    click(view, 12.0, 20.0)  # Sam: the attacker
    click(view, 41.5, 15.5, shift=True)  # Tusk: a target
    assert sr5.selection.attacker == "sam" and sr5.selection.ids == ("sam", "ganger-4")
    QTest.keyClick(view, Qt.Key.Key_A)  # SR5 > Attack
    dlg = g.attack_dialog
    assert dlg is not None and dlg.isVisible()
    assert dlg.attacker == "sam" and dlg.targets == ["ganger-4"]
    enc = sr5.document.encounter
    # the dialog's plan is the engine's, facts measured on the map
    ref = plan_attack(enc, AttackDeclaration("sam", ("ganger-4",), "Ingram Smartgun X", "BF"),
                      facts_from_map(enc, "sam", ["ganger-4"], "Ingram Smartgun X"))
    tp, rtp = dlg.plan.targets[0], ref.targets[0]
    for pool in ("attack", "defense", "soak"):
        assert part_values(getattr(tp, pool)) == part_values(getattr(rtp, pool)), pool
    # Automatics 6 + Agility 6 + wireless smartlink implant +2, range 29.8 m (medium) -1 = 13;
    # limit accuracy 4 + smartgun 2 = 6; recoil: 3 rounds vs 1 + ceil(4/3) + RC 2 = 5 -> none
    assert tp.attack.total == 13 and tp.attack.limit == 6
    assert [p.label for p in tp.attack.parts][-1] == "range 30 m -> medium"
    # Reaction 4 + Intuition 3 + good cover +4 (84% hidden from Sam) + burst fire -2 = 9
    assert tp.facts.cover == "good" and tp.defense.total == 9
    assert tp.soak.total == 18  # Body 6 + armor 12, AP 0
    box = dlg.target_boxes["ganger-4"]
    assert box.defense.value_of("cover") == 4 and box.attack.value_of("limit:smartgun") == 2
    assert box.header.text() == "Tusk  \u2014  29.8 m, medium range, good cover (84% hidden)"
    assert dlg.recoil.text() == ("Recoil: 0 earlier + 3 now = 3 rounds vs compensation 5 "
                                 "(1 + ceil(STR 4/3) + RC 2) -> +0")
    # the GM says the cover is only partial: +2
    box.defense.spin("cover").setValue(2)
    tp = dlg.plan.targets[0]
    cover = tp.defense.part("cover")
    assert (cover.value, cover.original, tp.defense.total) == (2, 4, 7)
    assert box.defense.table.item(2, 2).text() == "GM (rules +4)"
    # attack: 13 dice, five 5s and 6s -> 5 hits (limit 6)
    assert dlg.dice.what.text() == "Next: Attack \u2014 Sam vs Tusk: 13 dice, limit 6"
    dlg.dice.faces.setText("6 6 5 5 5 1 2 2 3 3 4 4")  # one short
    dlg.dice.enter_button.click()
    assert dlg.dice.error.text() == "13 dice to enter: expected 13 faces, got 12"
    dlg.dice.faces.setText("6 6 5 5 5 1 2 2 3 3 4 4 2")
    dlg.dice.enter_button.click()
    assert dlg.resolution.rolls[-1][2].hits == 5
    # defense: 7 dice, one 5 -> 1 hit; net 4
    dlg.dice.faces.setText("5112234")
    dlg.dice.enter_button.click()
    # DV 8 + 4 = 12 against armor 12 + AP 0 = 12: not more, so it stays Physical
    # soak: 18 dice, three 5s -> 3 hits; 12 - 3 = 9 boxes
    dlg.dice.faces.setText("5 5 5 " + "2 " * 15)
    dlg.dice.enter_button.click()
    o = dlg.resolution.outcome("ganger-4")
    assert (o.result, o.net_hits, o.dv, o.armor, o.damage_type, o.boxes) == ("hit", 4, 12, 12, "P", 9)
    story = dlg.result.toPlainText()
    assert "Tusk: hit, 4 net: DV 8 + 4 = 12; armor 12 +0 AP = 12; 12P" in story
    assert dlg.outcome.text() == "Tusk: hit, 9 boxes Physical"
    assert dlg.apply_button.isEnabled()
    dlg.apply_button.click()
    enc = sr5.document.encounter
    tusk = enc.token("ganger-4").rules.get("sr5")
    # Physical monitor 8 + ceil(6/2) = 11 boxes, 9 marked: wound modifier -(9 // 3) = -3,
    # which also costs Initiative at once: 13 - 3 = 10
    assert (tusk.physical_damage, tusk.initiative) == (9, 10)
    assert enc.token("sam").weapon("Ingram Smartgun X").loaded == 29  # 32 - 3 rounds
    dec = sr5.map_view.tokens.decorations["ganger-4"]
    assert dec.bars[0].fraction == pytest.approx(2 / 11) and ("-3", "#ffb74d") in dec.tags
    t = g.tracker
    row = [t.order.item(r, 0).text() for r in range(t.order.rowCount())].index("Tusk")
    assert (t.order.item(row, 3).text(), t.order.item(row, 5).text()) == ("9/11", "-3")
    assert t.budget.text() == "Left this phase: 1 Simple + 2 Free (has attacked)"
    # the log: the attack line and its three rolls, with their pools
    lines = [ln.text for ln in sr5.combat_log.lines(include_undone=False)]
    assert "[T1.1] Sam -> Tusk with Ingram Smartgun X (BF): 5 vs 1: hit, 12P vs soak 3: 9 Physical; " \
           "wound modifier -3" in lines
    assert any(ln.startswith("    Tusk defends: Reaction +4, Intuition +3, good cover +2") for ln in lines)
    # one undo step reverts the attack
    assert sr5.document.undo_stack.undoText() == "SR5: Sam attacks: Tusk hit"
    sr5.actions["undo"].trigger()
    enc = sr5.document.encounter
    assert (enc.token("ganger-4").rules["sr5"].physical_damage, enc.token("ganger-4").rules["sr5"].initiative) == (0, 13)
    assert enc.token("sam").weapon("Ingram Smartgun X").loaded == 32
    assert sr5.map_view.tokens.decorations["ganger-4"].bars[0].fraction == 1.0
    assert all(ln.undone for ln in sr5.combat_log.lines() if "Tusk" in ln.text and "->" in ln.text)
    sr5.actions["redo"].trigger()
    assert sr5.document.encounter.token("ganger-4").rules["sr5"].physical_damage == 9


def test_shift_clicked_targets_split_the_pool(sr5):
    g = sr5.sr5
    start_turn(sr5)
    view = sr5.map_view
    click(view, 12.0, 20.0)
    click(view, 41.5, 15.5, shift=True)  # Tusk
    dlg = g.open_attack()
    assert dlg.targets == ["ganger-4"]
    click(view, 22.0, 8.0, shift=True)  # Vex joins while the dialog is open
    assert dlg.targets == ["ganger-4", "ganger-6"]
    plan = dlg.plan
    # 13 dice over 2 targets -> 7 and 6 (larger share first); both at medium range, so the
    # -1 is shared and comes before the division
    assert plan.common.total == 13 and plan.shares == divide(13, 2) == (7, 6)
    assert [tp.attack.total for tp in plan.targets] == [7, 6]
    assert [tp.attack.limit for tp in plan.targets] == [6, 6]
    assert dlg.shares.text() == "13 dice over 2 targets \u2192 Tusk 7, Vex 6"
    assert dlg.common.isVisibleTo(dlg) and dlg.target_boxes["ganger-6"].attack.value_of("share") == 6
    enc = sr5.document.encounter
    ref = plan_attack(enc, AttackDeclaration("sam", ("ganger-4", "ganger-6"), "Ingram Smartgun X", "BF"),
                      facts_from_map(enc, "sam", ["ganger-4", "ganger-6"], "Ingram Smartgun X"))
    assert part_values(plan.common) == part_values(ref.common) and plan.shares == ref.shares
    # the GM takes the smartlink away from the shared pool: 11 over 2 -> 6, 5
    dlg.common.spin("smartlink").setValue(0)
    assert dlg.plan.shares == (6, 5)
    # roll everything with the encounter's seeded dice and apply: both targets logged, one undo step
    dlg.roll_all()
    assert dlg.resolution.done
    before = sr5.document.undo_stack.count()
    dlg.apply()
    assert sr5.document.undo_stack.count() == before + 1
    log = settings_of(sr5.document.encounter).log
    assert [e.text.split(":")[0] for e in log if e.kind == "attack"] == [
        "Sam -> Tusk with Ingram Smartgun X (BF)", "Sam -> Vex with Ingram Smartgun X (BF)"]


def test_a_shotgun_spread_choke_is_shown_and_changed(sr5):
    """Nyx's Defiance fires a medium spread (her sheet): the choke's accuracy and DV at the
    target's band are in the plan; Change Choke is an action booked from the dialog."""
    g = sr5.sr5
    start_turn(sr5)
    dlg = g.open_attack("nyx", ["ganger-2"])  # Spike, 25.1 m from Nyx inside her spread
    tp = dlg.plan.targets[0]
    assert dlg.choke_combo.currentText() == "medium" and dlg.decl_form.isRowVisible(dlg.choke_row)
    enc = sr5.document.encounter
    ref = plan_attack(enc, AttackDeclaration("nyx", ("ganger-2",), "Defiance T-250"),
                      facts_from_map(enc, "nyx", ["ganger-2"], "Defiance T-250"))
    assert part_values(tp.attack) == part_values(ref.targets[0].attack)
    assert tp.damage == ref.targets[0].damage and tp.defense.part("choke").value == -3  # medium: -3 defense
    dlg.choke_combo.setCurrentText("wide")
    dlg.change_choke()  # not her phase: the engine refuses and the dialog says why
    assert dlg.dice.error.text().startswith("Nyx can take a simple action only in its own Action Phase")
    sr5.sr5.tracker.end_phase()  # Sam -> Nyx
    dlg.change_choke()
    assert sr5.document.encounter.token("nyx").rules["sr5"].chokes == {"Defiance T-250": "wide"}
    assert dlg.plan.targets[0].defense.part("choke").value == -5  # wide: -5


# -- suppressive fire ---------------------------------------------------------------------------------
def test_suppressive_fire_from_the_map_zone_then_tusk_tests(sr5):
    g = sr5.sr5
    start_turn(sr5)
    sr5.selection.select(["sam"], sr5.document.encounter)
    dlg = g.open_suppressive()
    assert dlg.zone.currentData() == "sup-1" and dlg.plan.legal
    # Automatics 6 + Agility 6 + wireless smartlink +2 = 14 [accuracy 4 + smartgun 2 = 6]
    assert dlg.plan.pool.total == 14 and dlg.plan.pool.limit == 6
    dlg.dice.faces.setText("6 6 5 1 2 2 3 3 4 4 2 2 3 3")  # 3 hits
    dlg.dice.enter_button.click()
    enc = sr5.document.encounter
    sup = settings_of(enc).suppressions
    assert [(s.zone, s.shooter, s.hits) for s in sup] == [("sup-1", "sam", 3)]
    status = suppressive.suppression_status(enc, facts_from_map(enc, "sam", []))
    # Tusk stands exposed inside the cone: must roll; Razor's disc is within 1 m of it: -3 dice only
    assert status["ganger-4"].must_test == ("sup-1",) and status["ganger-1"].must_test == ()
    assert status["ganger-1"].penalty == -3
    assert ("Tusk: must roll Reaction + Edge vs Sam's suppressive fire; -3 dice (Sam's suppressive fire)"
            in dlg.result.toPlainText())
    decs = sr5.map_view.tokens.decorations
    assert ("SUPP -3", "#ff8a65") in decs["ganger-4"].tags and ("SUPP -3", "#ff8a65") in decs["ganger-1"].tags
    t = g.tracker
    assert t.supp.isVisibleTo(t) and t.supp.topLevelItemCount() == 2
    # Tusk's test: Reaction 4 + Edge 2 = 6 dice, threshold 3; 1 hit fails; soak Body 6 + armor
    # 12 = 18 against the base 8P (no net hits): 2 hits -> 6 boxes, and Stun, since the
    # modified armor 12 + AP 0 exceeds the DV 8
    test = g.open_test("ganger-4", "sup-1")
    assert test.plan.test.total == 6 and test.plan.test.threshold == 3 and test.plan.soak.total == 18
    test.roll_next([5, 1, 2, 2, 3, 4])
    test.roll_next([5, 5] + [2] * 16)
    assert (test.resolution.boxes, test.resolution.damage_type) == (6, "S")
    test.apply()
    tusk = sr5.document.encounter.token("ganger-4").rules.get("sr5")
    assert (tusk.physical_damage, tusk.stun_damage) == (0, 6)
    # Stun monitor 8 + ceil(3/2) = 10 boxes, 6 marked; wound modifier -(6 // 3) = -2
    dec = sr5.map_view.tokens.decorations["ganger-4"]
    assert dec.bars[1].fraction == pytest.approx(4 / 10) and ("-2", "#ffb74d") in dec.tags
    sr5.actions["undo"].trigger()
    sr5.actions["undo"].trigger()
    enc = sr5.document.encounter
    assert enc.token("ganger-4").rules["sr5"].stun_damage == 0 and settings_of(enc).suppressions == ()


def test_the_log_exports_with_every_roll(sr5, tmp_path):
    start_turn(sr5)
    path = sr5.sr5.export_log(tmp_path / "fight.txt")
    text = path.read_text(encoding="utf-8")
    assert text == sr5_initiative.log_text(sr5.document.encounter)
    assert "[T1.1] Sam: Initiative 10 + 2D6 [6, 6] = 22 (dice entered)" in text


# -- movement -------------------------------------------------------------------------------------------
def test_a_drag_in_combat_counts_the_metres_in_the_same_undo_step(sr5, qtbot):
    from tests.gui.conftest import mouse_drag

    g = sr5.sr5
    start_turn(sr5)
    steps = sr5.document.undo_stack.count()
    # Sam (Agility 6) acts in 3 passes: walk 12 m / run 24 m a turn, a third of each by pass 1
    # (4 m walking, 8 m running). A 6 m drag east is past walking pace: he takes Run.
    mouse_drag(sr5.map_view, (12.0, 20.0), (18.0, 20.0))
    qtbot.waitUntil(lambda: sr5.document.encounter.token("sam").rules["sr5"].moved > 0, timeout=10_000)
    enc = sr5.document.encounter
    sam = enc.token("sam")
    assert sam.x == pytest.approx(18.0, abs=0.1) and sam.rules["sr5"].moved == pytest.approx(6.0, abs=0.1)
    assert sam.rules["sr5"].running and settings_of(enc).phase.free == 1
    assert sr5.document.undo_stack.count() == steps + 1  # the move and its count: one step
    assert sr5.document.undo_stack.undoText().endswith("(SR5: movement counted)")
    assert g.tracker.message.text().startswith("Sam moves 6.0 m (6.0 m this turn, running)")
    assert ("RUN", "#80deea") in sr5.map_view.tokens.decorations["sam"].tags
    mv = sr5_movement.movement(enc, "sam")
    assert (mv.walk_now, mv.run_now) == pytest.approx((4.0, 8.0))
    # 4 m more is past the 8 m open by this pass: the engine objects, the GM's move stands
    mouse_drag(sr5.map_view, (18.0, 20.0), (18.0, 24.0))
    qtbot.waitUntil(lambda: sr5.document.encounter.token("sam").rules["sr5"].moved > 6.5, timeout=10_000)
    assert "counted anyway: Sam may run 8.0 m by this pass and has moved 6.0 m" in g.tracker.message.text()
    sr5.actions["undo"].trigger()
    sr5.actions["undo"].trigger()
    sam = sr5.document.encounter.token("sam")
    assert (sam.x, sam.y, sam.rules["sr5"].moved, sam.rules["sr5"].running) == (12.0, 20.0, 0.0, False)


def test_melee_offers_the_melee_defenses_and_a_stale_roll_is_not_applied(sr5):
    g = sr5.sr5
    dlg = g.open_attack("brick", ["nyx"])
    dlg.weapon_combo.setCurrentIndex(dlg.weapon_combo.findData("Unarmed"))
    plan = dlg.plan
    assert plan.kind == "melee" and plan.weapon.name == "Unarmed"
    # 7.6 m between the discs; a troll's reach 1 + 1 m: out of reach, and the Roll greys out
    assert plan.problems == ("Nyx is out of melee reach (7.6 m between them; reach allows 2.0 m)",)
    assert not dlg.dice.roll_button.isEnabled()
    combo = dlg.defense_form.itemAt(0, dlg.defense_form.ItemRole.FieldRole).widget()
    assert [combo.itemData(i) for i in range(combo.count())] == ["normal", "full_defense", "block", "dodge", "parry"]
    dlg.set_defense("nyx", "dodge")  # Reaction 4 + Intuition 5 + Gymnastics 4
    assert dlg.plan.targets[0].defense.total == 13
    # an attack rolled on a map that changed before it was applied is refused
    dlg.open_for("sam", ["ganger-6"])
    dlg.roll_next()
    start_turn(sr5)
    dlg.roll_all()
    assert dlg.apply() is None and dlg.dice.error.text().startswith("The encounter changed since this attack")


def test_a_drag_past_an_enemy_offers_the_intercept_in_the_action_panel(sr5, qtbot):
    """Sam runs east past Ganger 1, Razor (27, 17): the path comes within 0.6 m of him (the line
    from (12, 20) to (34, 18) passes (27, 18.6)), so the engine offers the Intercept; the
    panel puts it to the GM; Intercept takes the move back and opens Razor's melee attack
    at Sam, declared as an Intercept."""
    from tests.gui.conftest import mouse_drag

    start_turn(sr5)
    steps = sr5.document.undo_stack.count()
    mouse_drag(sr5.map_view, (12.0, 20.0), (34.0, 18.0))
    qtbot.waitUntil(lambda: sr5.sr5.intercept_page is not None and sr5.sr5.intercept_page.isVisible(),
                    timeout=10_000)
    page = sr5.sr5.intercept_page
    assert [(c.interceptor, c.mover) for c in page.chances] == [("ganger-1", "sam")]
    assert page.buttons[0].text() == "Intercept with Razor" and sr5.document.undo_stack.count() == steps + 1
    attack = page.intercept(0)
    sam = sr5.document.encounter.token("sam")
    assert (sam.x, sam.y) == (12.0, 20.0) and sr5.document.undo_stack.index() == steps
    assert attack is sr5.action_panel.current and attack.attacker == "ganger-1"
    assert attack.targets == ["sam"] and attack.declaration().intercept


def test_suppressive_fire_tests_are_a_page_of_the_action_panel(sr5):
    """Issue 30 item 3: SR5 > Suppressive fire tests opens the Action panel's page on the
    first token that must roll (Tusk, exposed in Sam's cone), its "Test for" list names the
    tests by token and zone names; with no test to roll the page's top says why."""
    g = sr5.sr5
    start_turn(sr5)
    sr5.actions["sr5 suppression tests"].trigger()
    page = g.test_dialog
    assert page.isVisible() and page.plan is None
    assert page.blocked_reason() == "No suppressive fire is active"  # (its first line, in view)
    sr5.selection.select(["sam"], sr5.document.encounter)
    dlg = g.open_suppressive()
    dlg.dice.faces.setText("6 6 5 1 2 2 3 3 4 4 2 2 3 3")  # 3 hits (as above)
    dlg.dice.enter_button.click()
    sr5.actions["sr5 suppression tests"].trigger()
    assert page.isVisible() and page.plan.token == "ganger-4" and page.plan.zone == "sup-1"
    assert [page.who.itemText(i) for i in range(page.who.count())] == ["Tusk vs Sam's suppressive fire"]
    assert "sup-1" not in page.headline.text() and "Sam's suppressive fire" in page.headline.text()
    assert page.blocked_reason() == ""
