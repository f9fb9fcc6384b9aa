"""Issue 30 item 8: no text in the side column is cut, at 1366x768 and at 1920x1080: every
panel (each dock tab in front in turn), the Action panel's pages, the Inspector's weapon
table, the toolbar's options, for the three systems' demos (tests/gui/text_fit.py)."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget

from gui.main_window import demo_paths
from tests.gui.settle import settle
from tests.gui.test_sr5_gui import start_turn
from tests.gui.text_fit import cut_texts


def _walk(qtbot, win, tag: str, skip=frozenset()) -> list[str]:
    """Every dock (but ``skip``) in front in turn, then the Wall tool's options: the cut
    texts seen."""
    out = []
    for name, dock in list(win.docks.items()):
        if dock.isHidden() or name in skip:
            continue
        dock.raise_()
        settle(qtbot, win)
        out += [f"{tag}/{name}: {c}" for c in cut_texts(win)]
    win.set_tool("Wall")
    settle(qtbot, win)
    out += [f"{tag}/wall tool: {c}" for c in cut_texts(win)]
    win.set_tool("Select")
    return out


def test_no_text_is_cut_in_the_side_column(screen_window, qtbot):
    win = screen_window
    cut = []
    start_turn(win)
    enc = win.document.encounter
    win.selection.select(["sam"], enc)
    cut += _walk(qtbot, win, "sr5")
    shared = {"targets", "inspector", "combat_log", "sight", "players_see"}  # (the same panels in every system)
    page = win.sr5.open_attack(targets=["ganger-1"])
    page.roll_all()
    settle(qtbot, win)
    cut += [f"sr5 attack rolled: {c}" for c in cut_texts(win)]
    win.sr5.open_suppressive()
    settle(qtbot, win)
    cut += [f"sr5 suppressive: {c}" for c in cut_texts(win)]
    if win.screen_name == "laptop":  # (the other systems' panels on the laptop only: cheaper)
        for path in demo_paths()[1:]:
            win.open_demo(path)
            settle(qtbot, win)
            first = win.document.encounter.tokens[0].id
            win.selection.select([first], win.document.encounter)
            cut += _walk(qtbot, win, win.document.encounter.ruleset, skip=shared)
    assert cut == []


def test_the_inspector_weapon_table_is_readable(screen_window, qtbot):
    """Sam's two weapons, whole names and range tables, no sideways scroll (at 1366 the
    form scrolled sideways and the table showed "Ingr" and "Range tab")."""
    win = screen_window
    win.selection.select(["sam"], win.document.encounter)
    win.docks["inspector"].raise_()
    settle(qtbot, win)
    table = win.inspector.widgets["weapons"].findChild(QTableWidget)
    assert not win.inspector.scroll.horizontalScrollBar().isVisible()
    assert not table.horizontalScrollBar().isVisible()
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert names == ["Ingram Smartgun X", "Ares Predator V"]
    fm = table.fontMetrics()
    for r, name in enumerate(names):
        assert table.visualItemRect(table.item(r, 0)).width() >= fm.horizontalAdvance(name)
        assert table.cellWidget(r, 1).width() >= table.cellWidget(r, 1).sizeHint().width() - 1
    assert [c for c in cut_texts(win.inspector)] == []


def test_every_dock_tab_is_in_view_on_a_short_window(qtbot, tmp_path, monkeypatch):
    """d100's seven panels down the column's edge of a 1366x768 laptop at 125 % (1093x614
    logical px): the tabs' font steps down until every tab is in view (none behind the
    bar's scroll arrows), and stays put while the window idles."""
    from PySide6.QtWidgets import QTabBar

    from tests.gui.conftest import discard_on_close, open_window

    discard_on_close(monkeypatch)
    win = open_window(qtbot, demo_paths()[1], tmp_path, size=(1093, 614), active=False)
    assert win.document.encounter.ruleset == "d100"
    win.selection.select([win.document.encounter.tokens[0].id], win.document.encounter)
    win.d100.open_dialog()
    settle(qtbot, win)
    bars = [b for b in win.findChildren(QTabBar) if b.parent() is win and b.isVisible() and b.count() > 5]
    assert bars
    bar = bars[0]
    assert all(bar.rect().contains(bar.tabRect(i)) for i in range(bar.count())), [bar.tabText(i) for i in range(bar.count())]
    assert bar.font().pointSizeF() < win.font().pointSizeF()  # (it did step down)
    size = bar.font().pointSizeF()
    settle(qtbot, win)
    assert bar.font().pointSizeF() == size
