"""d100 > Rules settings…: the encounter's d100 settings in a dialog, every value beside its
documented default; bad input shown inline with OK disabled; OK lands one undo step that the
next attack's result follows.

Numbers are derived by hand from docs/d100.md and the demo's sheets
(assets/encounters/demo-d100.json)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from engine.d100.dice import EnteredDice
from engine.d100.actions import Fire, TargetSpec
from engine.d100.sheet import Settings
from engine.rules import find_system
from gui.rules.d100.settings import SPECS, TABS, UNDO_TEXT, SettingsDialog

RULESET = find_system("d100")


@pytest.fixture
def d100(window, qtbot):
    """The main window on the d100 demo (File > Open the d100 demo)."""
    window.actions["open d100 demo"].trigger()
    assert window.document.encounter.ruleset == "d100"
    return window


def open_dialog(w) -> SettingsDialog:
    w.actions["d100 settings"].trigger()
    dlg = w.d100.settings_dialog
    assert isinstance(dlg, SettingsDialog) and dlg.isVisible()
    return dlg


def shoot_mouse_in_the_chest(w):
    """Sam fires the Ingram (d8) single at Mouse (ganger-5, prone, no armour): hit 40 (55%
    smg skill, 40 > 55 // 10 = 5: not placed), location 20 (chest, 11-30), damage 7."""
    return w.d100.controller.apply(
        Fire("sam", (TargetSpec("ganger-5"),)),
        EnteredDice({"hit": 40, "location": 20, "damage": 7}, fallback=RULESET.dice_for(w.document.committed)),
    )


def test_menu_entry_only_for_d100(window, qtbot):
    assert "d100 settings" not in window.actions  # the sr5 demo is open: no d100 GUI
    window.actions["open d100 demo"].trigger()
    assert window.actions["d100 settings"].isEnabled()
    assert window.actions["d100 settings"] in window.d100.menu.actions()


def test_dialog_shows_every_setting_with_the_documented_default(d100, qtbot):
    dlg = open_dialog(d100)
    # every Settings field but the fight's saved state has an editor
    state = {"rolls", "round", "order", "log"}
    grids = {"location_table", "thresholds", "location_thresholds"}
    assert set(Settings.model_fields) - state - grids == {s.name for s in SPECS}
    # the demo's values: the default table, thresholds 1, 6, 11, 16, 21, seed 3
    assert dlg.ranges()["head"] == (1, 10) and dlg.ranges()["right_leg"] == (86, 100)
    assert dlg.range_defaults["abdomen"].text() == "51-65"
    assert [s.value() for s in dlg.threshold_spins] == [1, 6, 11, 16, 21]
    assert dlg.threshold_default.text() == "1, 6, 11, 16, 21"
    assert dlg.default_labels["base_chance"].text() == "50 %"
    assert dlg.default_labels["cover_value"].text() == "5"
    assert dlg.default_labels["hidden_threshold"].text() == "75 %"
    assert dlg.editors["hidden_threshold"].widget.value() == 75.0
    assert dlg.default_labels["armour_wear"].text() == "rounded down"
    assert dlg.editors["seed"].widget.text() == "3" and dlg.default_labels["seed"].text() == "random"
    assert dlg.ok_button.isEnabled() and not dlg.summary.isVisible()
    # OK with nothing changed: no undo step
    steps = d100.document.undo_stack.index()
    dlg.ok_button.click()
    assert not dlg.isVisible() and d100.document.undo_stack.index() == steps


def test_new_thresholds_land_as_one_undo_step_and_the_next_hit_uses_them(d100, qtbot):
    w = d100
    # with the default thresholds 1/6/11/16/21, 7 damage on the chest is heavy (6-10)
    before = w.document.committed
    assert shoot_mouse_in_the_chest(w).shots[0].damage.severity_after == "heavy"
    w.document.undo_stack.undo()
    assert w.document.committed == before

    dlg = open_dialog(w)
    dlg.set_thresholds((1, 8, 14, 20, 26))
    dlg.editors["cover_value"].widget.setValue(3)
    assert dlg.ok_button.isEnabled()
    steps = w.document.undo_stack.index()
    dlg.ok_button.click()
    assert not dlg.isVisible()
    assert w.document.undo_stack.index() == steps + 1
    assert w.document.undo_stack.undoText() == UNDO_TEXT == "d100 rules settings"
    st = RULESET.settings(w.document.committed)
    assert st.thresholds == (1, 8, 14, 20, 26) and st.cover_value == 3
    assert st.seed == 3 and st.rolls == 0 and st.location_table == Settings().location_table
    # the same hit now: 7 is light (1-7)
    s = shoot_mouse_in_the_chest(w).shots[0]
    assert (s.location, s.damage.taken, s.damage.severity_after) == ("chest", 7, "light")
    # undo the shot, then the settings: back to the demo's settings
    w.document.undo_stack.undo()
    w.document.undo_stack.undo()
    assert RULESET.settings(w.document.committed) == RULESET.settings(before)
    assert w.document.committed == before
    assert shoot_mouse_in_the_chest(w).shots[0].damage.severity_after == "heavy"


def test_per_location_thresholds(d100, qtbot):
    dlg = open_dialog(d100)
    # the chest's own 1, 4, 7, 10, 13: 7 damage is serious there (7-9)
    dlg.set_thresholds((1, 4, 7, 10, 13), location="chest")
    # a location without its own shows the general ones
    assert [s.value() for s in dlg.own_spins["head"]] == [1, 6, 11, 16, 21]
    assert not dlg.own_spins["head"][0].isEnabled()
    dlg.ok_button.click()
    st = RULESET.settings(d100.document.committed)
    assert st.location_thresholds == {"chest": (1, 4, 7, 10, 13)} and st.thresholds == (1, 6, 11, 16, 21)
    assert shoot_mouse_in_the_chest(d100).shots[0].damage.severity_after == "serious"


def test_overlapping_locations_keep_ok_disabled_and_name_the_location(d100, qtbot):
    dlg = open_dialog(d100)
    dlg.set_range("left_arm", 25, 40)  # chest is 11-30
    assert not dlg.ok_button.isEnabled()
    said = dlg.tab_errors["Hit locations"]
    assert said.isVisible()
    assert "left arm 25-40 overlaps chest 11-30 (rolls 25-30 are in both)" in said.text()
    assert "left arm" in dlg.summary.text()
    assert dlg.bad_location == "left_arm"
    assert "\u26a0" in dlg.tabs.tabText(TABS.index("Hit locations"))
    # OK (or Enter) does nothing while it is wrong
    steps = d100.document.undo_stack.index()
    dlg.accept()
    assert dlg.isVisible() and d100.document.undo_stack.index() == steps
    # closing the gap the other way: 31-34 land nowhere
    dlg.set_range("left_arm", 35, 40)
    assert not dlg.ok_button.isEnabled()
    assert "rolls 31-34 land on no location: left arm 35-40" in said.text()
    # a valid new table: head 1-15, chest 16-30
    dlg.set_range("left_arm", 31, 40)
    dlg.set_range("head", 1, 15)
    assert not dlg.ok_button.isEnabled() and "chest 11-30 overlaps head 1-15" in said.text()
    dlg.set_range("chest", 16, 30)
    assert dlg.ok_button.isEnabled() and not said.text()
    dlg.ok_button.click()
    table = RULESET.settings(d100.document.committed).location_table
    assert table[:2] == (("head", 15), ("chest", 30))


def test_thresholds_that_do_not_rise_and_automatic_rolls_are_shown_inline(d100, qtbot):
    dlg = open_dialog(d100)
    dlg.set_thresholds((1, 8, 7, 16, 21))
    assert not dlg.ok_button.isEnabled()
    assert "serious starts at 7, not above heavy (8)" in dlg.tab_errors["Wounds"].text()
    dlg.set_thresholds((1, 8, 14, 20, 26))
    dlg.set_thresholds((1, 4, 4, 10, 13), location="groin")
    assert "Thresholds of the groin: serious starts at 4, not above heavy (4)" in dlg.tab_errors["Wounds"].text()
    dlg.own_checks["groin"].setChecked(False)
    assert dlg.ok_button.isEnabled()
    # the engine's model check: rolls 1-96 cannot all succeed when 96-100 fail
    dlg.editors["auto_success"].widget.setValue(96)
    assert not dlg.ok_button.isEnabled()
    assert "rolls 1-96 always succeed and 96-100 always fail" in dlg.tab_errors["Chances"].text()
    dlg.editors["auto_success"].widget.setValue(5)
    dlg.editors["seed"].widget.setText("three")
    assert not dlg.ok_button.isEnabled()
    assert "the dice seed 'three' is not a whole number" in dlg.tab_errors["Map, recovery, dice"].text()
    dlg.editors["seed"].widget.setText("")
    assert dlg.ok_button.isEnabled()


def test_reset_to_defaults_keeps_the_seed_and_a_new_seed_starts_its_sequence(d100, qtbot):
    w = d100
    shoot_mouse_in_the_chest(w)  # a fight in progress: every die entered, none drawn from seed 3
    # the same shot on seed 3's dice: hit 6, location 66 (groin), damage 1 -> 3 dice drawn
    w.d100.controller.apply(Fire("sam", (TargetSpec("ganger-5"),)))
    rolls = RULESET.settings(w.document.committed).rolls
    assert rolls == 3
    dlg = open_dialog(w)
    dlg.set_thresholds((2, 8, 14, 20, 26))
    dlg.editors["base_chance"].widget.setValue(30)
    dlg.editors["recover_wakes"].widget.setChecked(False)
    assert dlg.default_labels["base_chance"].styleSheet() != dlg.default_labels["aim_step"].styleSheet()
    dlg.reset_defaults()
    assert [s.value() for s in dlg.threshold_spins] == [1, 6, 11, 16, 21]
    assert dlg.editors["base_chance"].widget.value() == 50
    assert dlg.editors["recover_wakes"].widget.isChecked()
    assert dlg.editors["seed"].widget.text() == "3"
    new, problems = dlg.candidate()
    assert problems == {} and new.rolls == rolls and len(new.log) == len(RULESET.settings(w.document.committed).log)
    dlg.editors["seed"].widget.setText("11")
    new, _ = dlg.candidate()
    assert (new.seed, new.rolls) == (11, 0)
    dlg.ok_button.click()
    assert RULESET.settings(w.document.committed).seed == 11


def test_look(d100, qtbot, tmp_path):
    """The dialog renders offscreen with an error shown (no traceback, a picture)."""
    dlg = open_dialog(d100)
    dlg.set_range("groin", 60, 70)
    dlg.tabs.setCurrentIndex(0)
    img = dlg.grab()
    assert img.width() > 400 and img.height() > 300
    assert img.save(str(tmp_path / "d100-settings.png"))
    labels = [lb.text() for lb in dlg.findChildren(QLabel)]
    assert any("groin 60-70 overlaps abdomen 51-65" in t for t in labels)
