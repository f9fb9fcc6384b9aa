"""Issue 30 item 4, through the Action panel's pages as the GM clicks them (the door-driven
play of test_names_not_ids.py never opens a page): the SR5 attack rolled and applied, a
refused second attack, suppressive fire filled and its test rolled, End phase, and d100's and
Static Veil's pages opened on a target: what each step shows at the panel's top (the result,
why it cannot act), in the status bar, in the Initiative panel's message and in every label of
the window names tokens, zones and obstacles by name, never by id ("Sam fills sup-1")."""

from __future__ import annotations

from engine.sr5.changes import settings_of
from gui.main_window import demo_paths
from tests.gui.settle import settle
from tests.gui.test_names_not_ids import _widget_texts, ids_that_are_not_names, leaks
from tests.gui.test_sr5_gui import start_turn


def _shown(win, said) -> list[str]:
    panel = win.action_panel
    return [panel.result_text(), panel.blocked_text(), *said, *_widget_texts(win)]


def test_the_pages_name_what_they_act_on(window, qtbot):
    win = window
    said: list[str] = []
    win.statusBar().messageChanged.connect(said.append)
    ids = ids_that_are_not_names(win.document.committed)
    assert {"ganger-1", "sup-1", "nyx"} <= set(ids)
    steps = []

    def check(step):
        settle(qtbot, win)
        found = leaks(_shown(win, said), ids)
        steps.append(step)
        assert not found, (step, found)

    start_turn(win)
    win.selection.select(["sam"], win.document.encounter)
    supp = win.sr5.open_suppressive()
    check("suppressive page")
    supp.dice.faces.setText("6 6 5 1 2 2 3 3 4 4 2 2 3 3")
    supp.dice.enter_button.click()
    assert [s.zone for s in settings_of(win.document.committed).suppressions] == ["sup-1"]
    check("suppressive fire filled")
    test = win.sr5.open_next_test()
    assert test.plan.token == "ganger-4"  # Tusk must roll
    check("suppressive test page")
    test.roll_all()
    check("suppressive test rolled")
    test.apply()
    check("suppressive test applied")
    win.actions["sr5 end phase"].trigger()  # Sam -> Nyx
    check("end phase")
    page = win.sr5.open_attack(attacker="nyx", targets=["ganger-2"])  # Nyx acts now
    assert page.plan is not None and not page.plan.problems, page.plan.problems
    check("Nyx's attack page")
    page.roll_all()
    check("attack rolled")
    page.apply()
    check("attack applied")
    assert "Spike" in win.action_panel.result_text()
    # a second attack this phase: refused at the page's top, by name
    assert any("Nyx has already attacked" in t for t in _widget_texts(win) if t)
    for path in demo_paths()[1:]:
        win.open_demo(path)
        settle(qtbot, win)
        ids = ids_that_are_not_names(win.document.committed)
        enc = win.document.encounter
        win.selection.select([enc.tokens[0].id], enc)
        if enc.ruleset == "d100":
            win.d100.open_dialog()
        check(f"{enc.ruleset} page")
    assert len(steps) == 11
