"""Panels refresh from what a landed outcome says it changed (issue 27 item 2, Anki's
``OpChanges``): the window tells them the ``Outcome.changes`` of a rule action landed, undone
or redone, and each refreshes what it names and nothing else; a fresh window on the same
file then shows the same.

The fourth system's Aimed shot (tests/cover_only): Ana's sling at Cy in the open needs 3 on
a d6; a 5 hits and gives Cy a wound, and that is all it changes: Cy's sheet (not its body on
the map), one log line, no settings."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QLineEdit

from engine import rules
from tests.gui.conftest import open_window
from tests.gui.target_table import table
from tests.test_fourth_system import FILE, cover_only  # noqa: F401 - (the fixture)


def _inspector(win) -> tuple:
    insp = win.inspector
    fields = {w.objectName(): w.text() for w in insp.findChildren(QLineEdit) if w.objectName().startswith("field_")}
    return insp.heading.text(), fields, insp.json_edit.toPlainText()


def _counting(win, monkeypatch) -> list[int]:
    """Count the Inspector's refreshes (the answers count theirs: compute_count)."""
    calls = [0]
    real = win.inspector._refresh

    def counted():
        calls[0] += 1
        real()

    monkeypatch.setattr(win.inspector, "_refresh", counted)
    return calls


def _shoot(win, faces="5"):
    page = win.rule_gui.page
    page.dice.setText(faces)
    return page.apply_default()


def test_a_landed_outcome_refreshes_exactly_what_it_names(cover_only, window, tmp_path, qtbot, monkeypatch):
    data = json.loads(json.dumps(FILE))
    data["tokens"][0]["rules"] = {"cover-only": {"weapon": "sling"}}
    path = tmp_path / "aimed.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert window.open_file(path, ask=False)
    window.inspector.json_box.setChecked(True)
    window.selection.select(["bo"], window.document.encounter)  # the Inspector shows Bo
    window.selection.set_attacker("ana")
    window.selection.set_targets(["cy"])
    answers, refreshed = window.answers, _counting(window, monkeypatch)
    computed, rows = answers.compute_count, table(window)

    out = _shoot(window)
    assert out.changes.tokens == {"cy"} and out.changes.bodies == frozenset() and not out.changes.settings
    told = []
    window.document.changed.connect(lambda ch: told.append(ch.changes))
    # Cy's sheet only: the targets' answers (bodies, cover, charges) are not asked again, and
    # the Inspector showing Bo is not refreshed
    assert answers.compute_count == computed and refreshed[0] == 0 and table(window) == rows

    window.selection.select(["cy"], window.document.encounter, keep_attacker=True)
    assert '"wounds": 1' in window.inspector.json_edit.toPlainText()
    refreshed[0] = 0
    computed = answers.compute_count
    window.actions["undo"].trigger()  # the undo tells the same changes: Cy's Inspector refreshes
    assert told[-1] == out.changes and refreshed[0] == 1 and answers.compute_count == computed
    assert '"wounds"' not in window.inspector.json_edit.toPlainText()
    window.actions["redo"].trigger()
    assert told[-1] == out.changes and refreshed[0] == 2 and answers.compute_count == computed
    assert '"wounds": 1' in window.inspector.json_edit.toPlainText()

    # a plain edit (Cy dragged by the GM's hand) tells no outcome's changes: everything looks
    cy = window.document.committed.token("cy")
    window.document.commit(window.document.committed.model_copy(update={"tokens": tuple(
        t.model_copy(update={"x": 4.0}) if t.id == "cy" else t for t in window.document.committed.tokens)}), "Move Cy")
    assert told[-1] is None and answers.compute_count == computed + 1 and refreshed[0] == 3
    window.actions["undo"].trigger()
    assert window.document.committed.token("cy") == cy

    # a fresh window on the same file shows what the refreshed panels show
    saved = tmp_path / "after.json"
    window.document.save(saved)
    fresh = open_window(qtbot, saved, tmp_path / "fresh")
    fresh.inspector.json_box.setChecked(True)
    fresh.selection.select(["cy"], fresh.document.encounter)
    fresh.selection.set_attacker("ana")
    for w in (fresh, window):
        w.answers.finish_charges()
        w.targets.model.reload()
    assert table(fresh) == table(window) and _inspector(fresh) == _inspector(window)
    fresh.close()


def _tracker(win) -> tuple:
    t = win.sr5.tracker
    rows = [[t.order.item(r, c).text() if t.order.item(r, c) else "" for c in range(t.order.columnCount())]
            for r in range(t.order.rowCount())]
    return t.turn.text(), t.acting.text(), t.budget.text(), rows


def test_the_initiative_order_refills_from_what_the_outcome_names(window, tmp_path, qtbot, monkeypatch):
    """Shadowrun's start of a Combat Turn names the sr5 settings (initiative, the pass) and
    every participant's sheet: the tracker fills its order from that, told, and a fresh window
    shows the same order; an outcome that names none of it (a light's change told as one)
    (a lamp put down) leaves the order unfilled."""
    from engine.rules import Outcome

    t = window.sr5.tracker
    filled = []
    real = t._fill_order
    monkeypatch.setattr(t, "_fill_order", lambda: (filled.append(window.sr5.controller.changes), real())[1])
    told = []
    window.document.changed.connect(lambda ch: told.append(ch.changes))
    window.sr5.controller.start_turn()
    qtbot.waitUntil(lambda: t.order_pending == 0, timeout=5000)
    assert told[-1] is not None and told[-1].settings and filled and filled[-1] is told[-1]
    from engine.model import Light
    from gui.rules.base import land

    enc = window.document.committed  # a lamp put down: an outcome naming only that light
    lit = enc.model_copy(update={"lights": (*enc.lights, Light(id="lamp", x=5.0, y=5.0, radius=4.0))})
    filled.clear()
    assert land(window, Outcome.of(enc, lit, "A lamp"))
    assert told[-1].lights == {"lamp"} and not told[-1].settings and filled == []
    window.actions["undo"].trigger()
    assert told[-1].lights == {"lamp"} and filled == []
    saved = tmp_path / "fight.json"
    window.document.save(saved)
    fresh = open_window(qtbot, saved, tmp_path / "fresh")
    qtbot.waitUntil(lambda: fresh.sr5.tracker.order_pending == 0, timeout=5000)
    assert _tracker(fresh) == _tracker(window)
    fresh.close()
