"""The window side of the proof (issue #12 item 7): the fourth rule system of tests/cover_only
opens in the main window with no GUI package of its own and no gui file naming it
(tests/test_fourth_system.py checks that); the targets table reads metres (it uses no range
bands) and the map's cover classes; Save writes it back."""

from __future__ import annotations

import json

from engine import rules
from tests.gui.target_table import table
from tests.test_fourth_system import FILE, cover_only  # noqa: F401 - (the fixture)


def test_the_window_opens_the_fourth_system_and_answers_in_metres(cover_only, window, tmp_path, qtbot):
    from engine.files import load_encounter

    path = tmp_path / "cover-only.json"
    path.write_text(json.dumps(FILE), encoding="utf-8")
    assert window.open_file(path, ask=False)
    enc = window.document.encounter
    assert enc.ruleset == "cover-only" and enc.system is cover_only
    window.selection.set_attacker("ana")
    window.targets.model.reload()
    rows = table(window)
    assert set(rows) == {"bo", "cy"}
    # Bo 11.0 m east behind the 3 m wall: full cover; Cy (8, 2): hypot(3, 8) = 8.5 m, open
    assert rows["bo"][1] == "11.0" and "full" in rows["bo"]
    assert rows["cy"][1] == "8.5" and "none" in rows["cy"]
    from gui.targets import COLUMNS

    for col in ("Band", "Mod"):  # no range bands in this system: the table shows metres only
        assert window.targets.table.isColumnHidden(COLUMNS.index(col))
    assert not window.targets.table.isColumnHidden(COLUMNS.index("Cover"))
    out = tmp_path / "saved.json"
    window.document.save(out)
    back = load_encounter(out)
    assert back.ruleset == "cover-only" and back.token("bo").rules["cover-only"].toughness == 1


def test_the_aimed_shot_runs_in_the_action_panel_through_the_door(cover_only, window, tmp_path, qtbot):
    """Issue 27 item 6: the fourth system's action with dice, in the window with no GUI code
    of its own: the door page lists it for the attacker and the target picked on the map,
    previews it (on the map too: what it needs, under the target), rolls the typed d6, applies it (one undo step, a log line) and undo takes it
    back (the line struck through). Ana's sling against Cy in the open needs 3 (see
    tests/test_fourth_system.py)."""
    from gui.rules.door import DoorGui

    data = json.loads(json.dumps(FILE))
    data["tokens"][0]["rules"] = {"cover-only": {"weapon": "sling"}}
    path = tmp_path / "aimed.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert window.open_file(path, ask=False)
    gui = window.rule_gui
    assert isinstance(gui, DoorGui) and gui.ruleset == "cover-only"
    page = gui.page
    window.selection.set_attacker("ana")
    window.selection.set_targets(["cy"])
    assert page.who.text() == "Ana \u2192 Cy"
    assert [page.action.itemText(i) for i in range(page.action.count())] == ["Aimed shot"]
    assert page.plan is not None and "needs 3+ on a d6" in page.plan_text.text()
    tags = lambda: {k: [t for t, _c in d.tags] for k, d in window.map_view.tokens.decorations.items()}  # noqa: E731
    assert tags() == {"cy": ["needs 3+ on a d6"]}  # the preview on the map, under the target
    steps = window.document.undo_stack.count()
    page.dice.setText("2")
    assert page.roll() and "rolls 2 (needs 3+): miss" in page.outcome_label.text()
    page.dice.setText("5")
    page.roll()
    assert tags() == {"cy": ["rolls 5 (needs 3+): hit"]}
    out = page.apply_default()
    cy = window.document.encounter.token("cy").rules["cover-only"]
    assert out is not None and cy.wounds == 1 and window.document.undo_stack.count() == steps + 1
    assert window.document.undo_stack.undoText() == "Aimed shot: Ana \u2192 Cy"
    log = [ln for ln in window.combat_log.lines() if ln.ruleset == "cover-only"]
    assert [ln.text for ln in log] == ["Ana shoots Cy: rolls 5, needs 3: hit (Cy has 1 wound)"] and not log[0].undone
    window.actions["undo"].trigger()
    assert window.document.encounter.token("cy").rules.get("cover-only") is None
    assert [ln.undone for ln in window.combat_log.lines() if ln.ruleset == "cover-only"] == [True]
    # Bo behind the wall (full 5 + toughness 1): the shot is offered greyed with the reason
    window.selection.set_targets(["bo"])
    assert page.action.itemText(0) == "Aimed shot \u2014 it cannot hit: it needs 9 on a d6"
    assert page.plan is None and not page.apply_button.isEnabled() and tags() == {}
