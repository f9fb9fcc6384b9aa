"""The d100 and Static Veil panels redo only what an edit touched (issue 14: no GUI-thread turn
over 50 ms on a 500-token, 10,000-obstacle map): an edit of the obstacles rewrites no row of
the round tracker or the body table and asks the rules nothing for the map marks; one
token's change rewrites that token's row alone; and what the panels show after any run of
edits is what a panel filled from scratch shows (same texts, colours, weights, order).

The shared pieces: :class:`gui.rules.widgets.TableRows` (a table written row by row, only
the rows that changed) and :func:`gui.rules.base.same_inputs` / :class:`gui.rules.base.Kept`
(a value kept while what it was worked out from is the same objects)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHeaderView

from engine.d100.dice import EnteredDice
from engine.d100.actions import Fire, StartRound, TargetSpec
from engine.rules import find_system
from gui import edits, idle
from gui.rules import widgets
from gui.rules.base import Kept, same_inputs
from gui.rules.widgets import Cell, TableRows, read_only_table

RULESET = find_system("d100")


def cells(table) -> list[tuple]:
    """Every cell of ``table`` as (text, foreground colour, bold, background, tooltip), row by
    row."""
    out = []
    for r in range(table.rowCount()):
        row = []
        for c in range(table.columnCount()):
            it = table.item(r, c)
            bg = it.data(Qt.ItemDataRole.BackgroundRole)
            row.append((it.text(), it.foreground().color().name(QColor.NameFormat.HexArgb), it.font().bold(),
                        None if bg is None else bg.color().name(QColor.NameFormat.HexArgb), it.toolTip()))
        out.append(tuple(row))
    return out


@pytest.fixture
def written(monkeypatch):
    """The (row, column) of every cell :class:`TableRows` writes from now on."""
    seen: list[tuple[int, int]] = []
    real = widgets.write_cell

    def spy(table, row, column, cell):
        seen.append((row, column))
        return real(table, row, column, cell)

    monkeypatch.setattr(widgets, "write_cell", spy)
    return seen


def rows_of(seen) -> list[int]:
    return sorted({r for r, _ in seen})


def nudge_an_obstacle(doc) -> None:
    """Commit a 0.5 m move of the first obstacle (an edit of the map alone)."""
    enc = doc.committed
    doc.commit(edits.translate(enc, [enc.obstacles[0].id], 0.5, 0.0), "Move an obstacle")


def rename(doc, token_id: str, name: str) -> None:
    enc = doc.committed
    tok = enc.token(token_id)
    doc.commit(enc.model_copy(update={"tokens": tuple(t.model_copy(update={"name": name}) if t is tok else t
                                                      for t in enc.tokens)}), "Rename")


# -- the shared pieces ------------------------------------------------------------------------------
def test_same_inputs_means_the_very_same_objects_or_equal_plain_values():
    a, b = {"x": 1}, {"x": 1}
    assert same_inputs((a, 3, "s", None, True), (a, 3, "s", None, True))
    assert not same_inputs((a,), (b,))  # equal but another object: read again
    assert not same_inputs((1,), (True,))  # (1 == True, but not the same kind of value)
    assert not same_inputs(None, (a,)) and not same_inputs((a,), (a, a))


def test_kept_works_a_value_out_again_only_when_its_inputs_changed():
    made = []
    kept = Kept()
    tok1, tok2 = object(), object()

    def make(v):
        made.append(v)
        return v

    assert kept.get("t1", (tok1, 2), lambda: make("a")) == "a"
    assert kept.get("t1", (tok1, 2), lambda: make("b")) == "a"  # same inputs: kept
    assert kept.get("t1", (tok2, 2), lambda: make("c")) == "c"  # the token is another value
    assert kept.get("t1", (tok2, 3), lambda: make("d")) == "d"
    assert made == ["a", "c", "d"] and len(kept) == 1


def test_table_rows_write_only_the_rows_that_changed_and_keep_the_columns_modes(qtbot, written):
    t = read_only_table(["Name", "State"], stretch=0)
    qtbot.addWidget(t)
    red = QColor("#ff5252")
    rows = TableRows(t)
    first = [(Cell("Sam"), Cell("ready", red)), (Cell("Nyx", bold=True), Cell("acting")),
             (Cell("Brick"), Cell("", tip="why"))]
    assert rows.show(first) == [0, 1, 2] and len(written) == 6
    written.clear()
    assert rows.show(list(first)) == [] and written == []  # nothing changed: nothing written
    second = [first[0], (Cell("Nyx"), Cell("done")), first[2]]
    assert rows.show(second) == [1] and rows_of(written) == [1]
    assert t.item(1, 0).text() == "Nyx" and not t.item(1, 0).font().bold()
    assert t.item(0, 1).foreground().color() == red and t.item(2, 1).toolTip() == "why"
    hh = t.horizontalHeader()
    assert hh.sectionResizeMode(0) == QHeaderView.ResizeMode.Stretch
    assert hh.sectionResizeMode(1) == QHeaderView.ResizeMode.ResizeToContents
    written.clear()
    assert rows.show(second[:2]) == [] and t.rowCount() == 2  # a row gone
    assert rows.show(second) == [2] and t.item(2, 0).text() == "Brick"  # and back: written again


def test_table_rows_with_a_turn_budget_write_the_rows_on_screen_first_then_the_rest(qtbot, manual_clock, written):
    # (on the test's clock no turn of the idle scheduler is left to a busy thread: each turn
    # after a show is the rows' next turn, whatever the machine's load)
    sched = idle.scheduler()
    qtbot.waitUntil(lambda: not sched.jobs, timeout=10_000)
    t = read_only_table(["Name", "Actions"], stretch=0)
    qtbot.addWidget(t)
    t.resize(300, 200)
    t.show()
    rows = TableRows(t, per_turn=50)
    want = [(Cell(f"token {i}"), Cell(f"{i % 3} of 3")) for i in range(300)]
    assert len(rows.show(want[:10])) == 10
    # several shows in one turn share its budget: 40 more now
    assert len(rows.show(want[:60])) == 40 and rows.pending == 10
    turns = sched.turns
    t.setRowCount(300)
    qtbot.waitUntil(lambda: not sched.jobs, timeout=5000)  # (the next turn: the 10 left are written)
    assert rows.pending == 0 and sched.turns == turns + 1
    t.scrollToBottom()  # the last rows are on screen
    qtbot.waitUntil(lambda: t.rowAt(t.viewport().height() - 1) == 299, timeout=5000)  # (once laid out)
    written.clear()
    now = rows.show(want)
    # the rows on screen (the last ones of a 200 px table scrolled to the bottom) first, then
    # the others in order
    first, last = t.rowAt(0), t.rowAt(t.viewport().height() - 1)
    assert last == 299 and 0 < last - first < 20
    seen = list(range(first, last + 1))
    assert now == list(range(60, 60 + 50 - len(seen))) + seen
    assert rows.pending == 300 - 60 - 50
    turns = sched.turns
    qtbot.waitUntil(lambda: rows.pending == 0 and not sched.jobs, timeout=5000)
    assert sched.turns == turns + 4  # 50 rows a turn: 50, 50, 50, 40
    assert [t.item(r, 0).text() for r in range(300)] == [f"token {i}" for i in range(300)]
    assert len(written) == 2 * 240  # every row but the 60 already right, once
    # a new show before the rest is written: the newest values win
    rows.show([(Cell(f"other {i}"), Cell("")) for i in range(300)])
    rows.show(want)
    qtbot.waitUntil(lambda: rows.pending == 0, timeout=5000)
    assert [t.item(r, 0).text() for r in range(300)] == [f"token {i}" for i in range(300)]


def test_lazy_table_rows_work_out_only_rows_whose_inputs_changed_when_they_are_written(qtbot, written):
    t = read_only_table(["Name"], stretch=0)
    qtbot.addWidget(t)
    toks = [object() for _ in range(200)]
    made: list[int] = []

    def make(names):
        def row(r):
            made.append(r)
            return (Cell(names[r]),)
        return row

    names = [f"t{i}" for i in range(200)]
    rows = TableRows(t, per_turn=80)
    assert len(rows.show_lazy([(tk, 1) for tk in toks], make(names))) == 80
    assert sorted(made) == list(range(80))  # the others are not worked out yet
    qtbot.waitUntil(lambda: rows.pending == 0, timeout=5000)
    assert sorted(made) == list(range(200)) and [t.item(r, 0).text() for r in range(200)] == names
    made.clear()
    written.clear()
    toks[7] = object()  # one token is a new value
    names[7] = "renamed"
    assert rows.show_lazy([(tk, 1) for tk in toks], make(names)) == [7]
    assert made == [7] and rows_of(written) == [7] and t.item(7, 0).text() == "renamed"
    made.clear()
    # every row's inputs changed, not its cells: worked out again (79 this turn, the row above
    # took one of its 80), nothing written
    assert rows.show_lazy([(tk, 2) for tk in toks], make(names)) == []
    assert len(made) == 79 and rows.pending == 121
    qtbot.waitUntil(lambda: rows.pending == 0, timeout=5000)
    assert rows_of(written) == [7] and len(made) == 200


# -- d100 ---------------------------------------------------------------------------------------------
@pytest.fixture
def d100(window, qtbot):
    window.actions["open d100 demo"].trigger()
    assert window.document.encounter.ruleset == "d100"
    sched = idle.scheduler()
    qtbot.waitUntil(lambda: not sched.jobs, timeout=10_000)  # (the panels' deferred rows and pages)
    return window


def fresh_tracker(window):
    """A round tracker filled from scratch on the same controller (what a full refill shows)."""
    from gui.rules.d100.rounds import RoundTracker

    return RoundTracker(window.d100.controller)


def fresh_body(window):
    from gui.rules.d100.body import BodyPanel

    return BodyPanel(window.d100.controller)


def test_d100_tracker_rewrites_no_row_on_an_obstacle_edit_and_one_row_for_one_token(d100, written, qtbot):
    w = d100
    rt = w.d100.rounds
    doc = w.document
    rt.start_button.click()  # round 1: every row shows actions left
    before = cells(rt.table)
    assert before[0][0][0] == "\u25b6" and before[0][1][0] == "Sam" and before[0][2][0] == "3 of 3"
    written.clear()
    nudge_an_obstacle(doc)
    assert written == [] and cells(rt.table) == before
    w.actions["undo"].trigger()  # (its undo too)
    assert written == [] and cells(rt.table) == before
    # one token renamed: only its row (Brick is third: 2 actions, the first of the 2s)
    rename(doc, "brick", "Brick the Wall")
    assert rows_of(written) == [2]
    after = cells(rt.table)
    assert after[2][1][0] == "Brick the Wall" and after[:2] == before[:2] and after[3:] == before[3:]
    # the same as a tracker filled from scratch
    other = fresh_tracker(w)
    qtbot.addWidget(other)
    assert cells(other.table) == after


def test_d100_tracker_after_a_run_of_edits_shows_what_a_full_refill_shows(d100, qtbot):
    w = d100
    rt = w.d100.rounds
    doc = w.document
    c = w.d100.controller
    rt.start_button.click()
    # Sam fires at Lupe (ganger-3) with a hit on the chest, then ends the turn
    c.apply(Fire("sam", (TargetSpec("ganger-3"),)), EnteredDice({"hit": 20, "location": 25, "damage": 7}))
    rt.end_button.click()
    nudge_an_obstacle(doc)
    tok = doc.committed.token("nyx")
    doc.commit(edits.translate(doc.committed, ["nyx"], 1.0, 0.0), "Move Nyx")
    w.actions["undo"].trigger()
    w.actions["undo"].trigger()
    assert doc.committed.token("nyx") == tok
    other = fresh_tracker(w)
    qtbot.addWidget(other)
    got = cells(rt.table)
    assert got == cells(other.table)
    assert [r[1][0] for r in got][:2] == ["Sam", "Nyx"] and got[0][3][0] == "turn ended"
    assert got[1][0][0] == "\u25b6" and got[1][3][0] == "acting" and got[1][0][2]  # Nyx acts, bold
    assert rt.now_label.text() == other.now_label.text() and rt.end_button.text() == other.end_button.text()


def test_d100_body_table_rewrites_nothing_on_an_obstacle_edit_and_matches_a_full_refill(d100, written, qtbot):
    w = d100
    doc = w.document
    c = w.d100.controller
    w.selection.select(["ganger-3"], doc.committed)
    body = w.d100.body
    assert body.token_id == "ganger-3"
    c.apply(Fire("sam", (TargetSpec("ganger-3"),)), EnteredDice({"hit": 20, "location": 25, "damage": 7}))
    hurt = cells(body.table)
    chest = hurt[1]
    sheet = RULESET.sheet(doc.committed.token("ganger-3"))
    assert chest[0][0] == "Chest" and chest[2][0] == str(sheet.wound("chest").damage) != ""
    written.clear()
    nudge_an_obstacle(doc)
    assert written == [] and cells(body.table) == hurt
    other = fresh_body(w)
    qtbot.addWidget(other)
    assert cells(other.table) == hurt
    w.actions["undo"].trigger()  # the obstacle
    w.actions["undo"].trigger()  # the shot: the chest is unhurt again, its row rewritten
    assert cells(body.table)[1][2][0] == "" and cells(fresh_body(w).table) == cells(body.table)


def test_d100_round_order_and_status_of_answer_as_before(d100):
    enc = d100.document.encounter
    st = RULESET.settings(enc)
    for t in enc.tokens:
        assert RULESET.status_of(t.id, RULESET.sheet(enc.token(t.id)), st) == RULESET.status(enc, t.id)
    assert [r[0] for r in RULESET.round_order(enc)] == ["sam", "nyx", "brick", "ganger-1", "ganger-2",
                                                        "ganger-3", "ganger-4", "ganger-6", "ganger-5"]
    started = RULESET.apply(enc, StartRound()).encounter
    order = RULESET.settings(started).order
    assert order and [r[0] for r in RULESET.round_order(started)] == list(order)


# -- Static Veil ----------------------------------------------------------------------------------------
@pytest.fixture
def sv(qtbot, tmp_path, monkeypatch):
    from tests.gui.test_static_veil_gui import sv as make  # the same window on the demo

    return make.__wrapped__(qtbot, tmp_path, monkeypatch)


def test_static_veil_marks_ask_nothing_on_an_obstacle_edit_and_one_token_on_its_move(sv, monkeypatch):
    SV = find_system("static-veil")
    from gui.rules.static_veil.layer import marks_for

    win, ctl = sv
    doc = win.document
    asked: list[str] = []
    real = type(SV).token_states

    def token_states(self, encounter, token):
        asked.append(token.id)
        return real(self, encounter, token)

    monkeypatch.setattr(type(SV), "token_states", token_states)
    nudge_an_obstacle(doc)
    assert asked == []
    assert (ctl.layer.marks, ctl.layer.links) == marks_for(doc.committed, SV)  # as if asked afresh
    asked.clear()
    doc.commit(edits.translate(doc.committed, ["lou"], 1.0, 0.0), "Move Lou")
    assert asked == ["lou"]
    marks = {m.id: m for m in ctl.layer.marks}
    assert (marks["lou"].x, "Prone" in marks["lou"].states) == (doc.committed.token("lou").x, True)
    assert (ctl.layer.marks, ctl.layer.links) == marks_for(doc.committed, SV)
    # Nix (6, 4.5) is held by Bolt (5, 4.5): Nix moved 2 m west of Bolt moves Bolt's AP badge
    # to its east rim (clear of the link), so both are asked again
    asked.clear()
    assert {m.id: m.badge_side for m in ctl.layer.marks}["bolt"] == -1
    doc.commit(edits.translate(doc.committed, ["nix"], -3.0, 0.0), "Move Nix")
    assert sorted(asked) == ["bolt", "nix"]
    assert {m.id: m.badge_side for m in ctl.layer.marks}["bolt"] == 1
    assert (ctl.layer.marks, ctl.layer.links) == marks_for(doc.committed, SV)


def test_static_veil_picker_keeps_its_buttons_when_an_edit_changes_no_option(sv, qtbot):
    win, ctl = sv
    doc = win.document
    from tests.gui.test_static_veil_gui import _select

    _select(win, "kit")
    panel = ctl.panel
    buttons = dict(panel.buttons)
    assert buttons and ctl.options
    nudge_an_obstacle(doc)  # far from Kit: the same options
    assert panel.buttons == buttons and all(panel.buttons[k] is b for k, b in buttons.items())
    # a click on a refused maneuver checks its button: it is unchecked again, the rows kept
    refused = next(o.key for o in ctl.options if not o.allowed and o.key in buttons)
    buttons[refused].setEnabled(True)
    buttons[refused].setChecked(True)
    ctl.choose(refused)
    assert not buttons[refused].isChecked() and panel.buttons[refused] is buttons[refused]
    assert panel.message.text() == panel.options[refused].reason  # the engine's reason
    # other options: the rows are made again, one fewer
    panel.set_options(ctl.options[:-1], None)
    assert len(panel.options) == len(ctl.options) - 1
    assert all(panel.buttons[k] is not buttons[k] for k in panel.buttons)
