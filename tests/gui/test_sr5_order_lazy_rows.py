"""The SR5 initiative order works a row out again only when what it reads changed (its token,
the sr5 settings, whether it is still to act, the theme): after a fight's edits and undos
its rows show what a fresh window's order shows for the same encounter, text, colour and
weight, cell for cell."""

from __future__ import annotations

from bench.scene import make_scene
from gui import edits
from tests.gui.conftest import open_window


def cells(t):
    o = t.order
    out = []
    for r in range(o.rowCount()):
        row = []
        for c in range(o.columnCount()):
            it = o.item(r, c)
            row.append(None if it is None else (it.text(), it.foreground().color().name(), it.font().bold()))
        out.append(tuple(row))
    return out


def test_rows_after_edits_and_undos_are_a_fresh_windows(window, qtbot, demo_path, tmp_path):
    enc = make_scene(3, tokens=120, obstacles=40).model_copy(update={"ruleset": "sr5"})
    window.document.set_content(enc, None)
    t = window.sr5.tracker
    qtbot.waitUntil(lambda: t.order_pending == 0, timeout=5000)
    dlg = t.open_initiative()  # every score rolled: a Combat Turn under way
    assert dlg.start_turn()
    qtbot.waitUntil(lambda: t.order_pending == 0, timeout=5000)
    doc = window.document
    moved = doc.encounter.tokens[5]
    doc.commit(edits.replace(doc.encounter, moved.model_copy(update={"x": moved.x + 1.5})), "Move")
    renamed = doc.encounter.tokens[9]
    doc.commit(edits.replace(doc.encounter, renamed.model_copy(update={"name": "Renamed"})), "Rename")
    t.end_phase()  # the one acting has acted: two rows change (it, and who acts next)
    doc.undo_stack.undo()  # the phase back
    doc.undo_stack.undo()  # the name back
    t.end_phase()
    qtbot.waitUntil(lambda: t.order_pending == 0, timeout=5000)
    now = cells(t)
    assert len(now) == 120
    texts = [row[0][0] for row in now]
    assert "Renamed" not in texts and texts.count(renamed.name or renamed.id) == 1
    assert sum(1 for row in now if row[6][0].startswith("acted")) == 1
    assert sum(1 for row in now if row[6][0].startswith("\u25b6 acting")) == 1

    (tmp_path / "fresh").mkdir()
    fresh = open_window(qtbot, demo_path, tmp_path / "fresh")
    fresh.document.set_content(doc.encounter, None)
    ft = fresh.sr5.tracker
    qtbot.waitUntil(lambda: ft.order_pending == 0, timeout=5000)
    assert cells(ft) == now
