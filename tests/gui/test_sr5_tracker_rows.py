"""The SR5 initiative order on a big fight: at most ORDER_ROWS_PER_TURN rows are written in one
event-loop turn, those on screen first, the rest in the turns after; once written, every row
shows what a full fill shows; an edit writes only the rows it changed."""

from __future__ import annotations

import pytest

from bench.scene import make_scene
from engine.sr5 import initiative as sr5_initiative
from gui.rules import widgets
from gui.rules.sr5.tracker import ORDER_ROWS_PER_TURN


@pytest.fixture
def big_fight(window):
    """The window, to open a 300-token SR5 fight in (in the test itself: the turns between a
    fixture and its test would write the rest)."""
    return window


def open_fight(window):
    enc = make_scene(3, tokens=300, obstacles=40).model_copy(update={"ruleset": "sr5"})
    window.document.set_content(enc, None)
    return window.sr5.tracker


def rows(t):
    return [tuple(t.order.item(r, c).text() if t.order.item(r, c) else None for c in range(t.order.columnCount()))
            for r in range(t.order.rowCount())]


def test_a_big_order_is_written_a_part_a_turn_on_screen_rows_first(big_fight, qtbot):
    t = open_fight(big_fight)
    enc = big_fight.document.encounter
    ids = list(sr5_initiative.participants(enc))
    assert t.order.rowCount() == len(ids) == 300
    # in the open's own turn: at most ORDER_ROWS_PER_TURN rows, from the top (the table is
    # scrolled to the top); fewer when rows written just before share the turn's budget (the
    # demo's, when the event loop has not come round since)
    done = 300 - t.order_pending
    assert 24 <= done <= ORDER_ROWS_PER_TURN
    now = rows(t)
    assert all(r[0] is not None for r in now[:done])
    assert all(r[0] is None for r in now[done:])
    qtbot.waitUntil(lambda: t.order_pending == 0, timeout=5000)
    names = {tk.id: tk.name or tk.id for tk in enc.tokens}
    assert [r[0] for r in rows(t)] == [names[i] for i in ids]
    # every row's ids are the token's (a click on a row picks that token)
    from PySide6.QtCore import Qt
    assert [t.order.item(r, 0).data(Qt.ItemDataRole.UserRole) for r in range(300)] == ids


def test_scrolled_down_the_rows_on_screen_are_written_first(big_fight, qtbot):
    t = open_fight(big_fight)
    qtbot.waitUntil(lambda: t.order_pending == 0, timeout=5000)
    t.order.scrollToBottom()
    # a change of every row: the names
    enc = big_fight.document.encounter
    renamed = enc.model_copy(update={"tokens": tuple(tk.model_copy(update={"name": f"N{i}"})
                                                     for i, tk in enumerate(enc.tokens))})
    big_fight.document.set_content(renamed, None)
    assert 300 - ORDER_ROWS_PER_TURN <= t.order_pending < 300
    top = t.order.rowAt(0)
    assert top > ORDER_ROWS_PER_TURN  # (scrolled past the first part)
    ids = list(sr5_initiative.participants(renamed))
    names = {tk.id: tk.name for tk in renamed.tokens}
    for r in range(top, min(300, top + 12)):
        assert t.order.item(r, 0).text() == names[ids[r]]
    qtbot.waitUntil(lambda: t.order_pending == 0, timeout=5000)
    assert [r[0] for r in rows(t)] == [names[i] for i in ids]


def _count_writes(t, monkeypatch) -> list[int]:
    """The rows of ``t``'s order written from now on (one entry a cell)."""
    written: list[int] = []
    real = widgets.write_cell

    def counting(table, row, column, cell):
        if table is t.order:
            written.append(row)
        return real(table, row, column, cell)

    monkeypatch.setattr(widgets, "write_cell", counting)
    return written


def test_an_edit_writes_only_the_rows_it_changed(big_fight, qtbot, monkeypatch):
    t = open_fight(big_fight)
    qtbot.waitUntil(lambda: t.order_pending == 0, timeout=5000)
    written = _count_writes(t, monkeypatch)
    doc = big_fight.document
    enc = doc.encounter
    tok = enc.tokens[5]
    from gui import edits

    doc.commit(edits.replace(enc, tok.model_copy(update={"name": "Renamed"})), "Rename")
    row = list(sr5_initiative.participants(doc.encounter)).index(tok.id)
    assert sorted(set(written)) == [row]
    assert t.order.item(row, 0).text() == "Renamed"
    written.clear()
    ob = doc.encounter.obstacles[0]
    doc.commit(edits.replace(doc.encounter, ob.model_copy(update={"height": ob.height + 1.0})), "Raise")
    assert written == []


def test_picking_another_token_moves_the_highlight_and_writes_no_row(big_fight, qtbot, monkeypatch):
    t = open_fight(big_fight)
    qtbot.waitUntil(lambda: t.order_pending == 0, timeout=5000)
    written = _count_writes(t, monkeypatch)
    enc = big_fight.document.encounter
    ids = list(sr5_initiative.participants(enc))
    for k in (7, 250):
        big_fight.selection.select([ids[k]], enc)
        assert [i.row() for i in t.order.selectionModel().selectedRows()] == [k]
        assert t.who.text().startswith(enc.token(ids[k]).name or ids[k])
    assert written == []
