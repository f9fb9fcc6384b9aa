"""One rule system's GUI at a time (issue 12 item 3): the window installs only the open
encounter's RuleGui, uninstalls it cleanly when an encounter of another system opens, works
with a system that has none, and asks the installed one for a token's right-click actions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

from engine.rules import find_system
from gui.rules.base import RULE_GUIS, RuleGui, find_rule_gui
from tests.gui.settle import settle as settle_window

ROOT = Path(__file__).resolve().parents[2]
ENCOUNTERS = ROOT / "assets" / "encounters"
DEMOS = {"sr5": ENCOUNTERS / "demo.json", "d100": ENCOUNTERS / "demo-d100.json",
         "static-veil": ENCOUNTERS / "demo-static-veil.json"}


def settle(qtbot) -> None:
    """Let the docks' tab layout and every deferred refit run, then deleteLater."""
    settle_window(qtbot)
    QApplication.sendPostedEvents(None, 0)
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


def installed(window) -> list[RuleGui]:
    return [g for g in window.findChildren(RuleGui) if g.installed]


def test_only_the_open_encounters_rule_gui_is_installed(window, qtbot):
    w = window
    base_layers = None
    for ruleset in ("sr5", "d100", "static-veil", "sr5", "static-veil", "d100"):
        assert w.open_file(DEMOS[ruleset])
        settle(qtbot)
        guis = installed(w)
        assert [g.ruleset for g in guis] == [ruleset] and w.rule_gui is guis[0]
        assert type(w.rule_gui) is find_rule_gui(ruleset)
        # the others left nothing behind: docks, menus, actions, attributes
        for other, cls in RULE_GUIS.items():
            if other == ruleset:
                continue
            assert getattr(w, cls.window_attribute) is None
        menus = [a.text() for a in w.menuBar().actions()]
        assert len(menus) == len(set(menus)), menus  # no menu twice
        if ruleset == "sr5":
            assert "sr5_initiative" in w.docks and "SR5" in menus
            assert not {"d100_round", "d100_body"} & set(w.docks) and "Static Veil" not in menus
        if ruleset == "d100":
            assert {"d100_round", "d100_body"} <= set(w.docks) and "sr5_initiative" not in w.docks
        if ruleset == "static-veil":
            assert "Static Veil" in menus and "SR5" not in menus and "d100" not in menus
            assert w.static_veil.layer in w.map_view.layers
        else:
            assert not any(type(layer).__name__ == "StaticVeilLayer" for layer in w.map_view.layers)
        layers = len(w.map_view.layers) - (1 if ruleset == "static-veil" else 0)
        assert base_layers is None or layers == base_layers  # nothing piles up
        base_layers = layers
    # the old GUIs are deleted, not just hidden
    assert len(w.findChildren(RuleGui)) == 1


def test_the_installed_system_alone_owns_the_token_decorations(window, qtbot):
    w = window
    decs = w.map_view.tokens.decorations
    assert decs and all(len(d.bars) == 2 for d in decs.values())  # SR5: Physical and Stun
    assert w.open_file(DEMOS["d100"])
    assert w.map_view.tokens.decorations == {}  # d100 marks only the hurt, nothing of sr5's stays
    from engine.d100.dice import EnteredDice
    from engine.d100.actions import Fire

    w.d100.controller.apply(Fire("brick", ("ganger-2",)), EnteredDice({"hit": 30, "location": 60, "damage": 3}))
    decs = w.map_view.tokens.decorations
    assert list(decs) == ["ganger-2"] and len(decs["ganger-2"].bars) == 1  # d100: the injury bar
    assert w.open_file(DEMOS["static-veil"])
    assert w.map_view.tokens.decorations == {}  # Static Veil marks its own layer
    assert w.open_file(DEMOS["sr5"])
    assert all(len(d.bars) == 2 for d in w.map_view.tokens.decorations.values())


def test_a_system_without_a_rule_gui_opens_and_the_next_one_installs(window, qtbot, monkeypatch):
    w = window
    monkeypatch.delitem(RULE_GUIS, "d100")
    monkeypatch.setattr("gui.rules.base._DISCOVERED", True)
    assert w.open_file(DEMOS["d100"])
    settle(qtbot)
    from gui.rules.door import DoorGui  # (no GUI of its own: the door page alone, issue 27)

    assert isinstance(w.rule_gui, DoorGui) and installed(w) == [w.rule_gui] and w.sr5 is None
    assert w.rule_gui.ruleset == "d100" and w.rule_gui.page in w.action_panel.pages()
    assert w.map_view.tokens.decorations == {} and "SR5" not in w.menus
    w.selection.set_attacker("sam")  # the map still answers
    assert w.targets.table.model().rowCount() == len(w.document.encounter.tokens) - 1
    monkeypatch.undo()
    assert w.open_file(DEMOS["sr5"])
    assert w.rule_gui is w.sr5 and w.sr5.ruleset == "sr5"


def _by_label(actions, start: str):
    return next(a for a in actions if a.label.startswith(start))


def test_right_click_actions_of_sr5_allowed_and_greyed_with_the_engines_reason(window):
    from tests.gui.test_sr5_gui import start_turn

    w = window
    start_turn(w)  # Sam acts first (initiative 22)
    acts = w.rule_gui.context_actions("sam")
    attack = _by_label(acts, "Attack")
    assert attack.enabled and attack.reason == ""
    sprint = _by_label(acts, "Sprint")
    assert not sprint.enabled and sprint.reason == "Sam must be running to sprint: Run first (Free Action)"
    # a token whose phase it is not: everything but the interrupts is greyed, with why
    tusk = w.rule_gui.context_actions("ganger-4")
    assert not _by_label(tusk, "Attack").enabled
    assert _by_label(tusk, "Attack").reason == ("Tusk can take a simple action only in its own Action Phase "
                                                 "(now it is Sam's)")
    w.selection.set_targets(["ganger-4"])
    page = attack.callback()
    assert page is w.sr5.attack_dialog and page.isVisible() and page.attacker == "sam"
    assert page.targets == ["ganger-4"]


def test_right_click_actions_of_d100_apply_or_open_the_panel(window):
    RULESET = find_system("d100")

    w = window
    w.actions["open d100 demo"].trigger()
    acts = w.rule_gui.context_actions("sam")
    start = _by_label(acts, "Start")
    assert start.enabled
    steps = w.document.undo_stack.count()
    start.callback()  # applied at once, one undo step, logged
    assert RULESET.settings(w.document.encounter).round == 1 and w.document.undo_stack.count() == steps + 1
    aim = next(a for a in w.rule_gui.context_actions("sam") if a.label.lower().startswith("aim"))
    assert not aim.enabled and aim.reason == "choose a target on the map"
    w.selection.set_targets(["ganger-3"])
    fire = next(a for a in w.rule_gui.context_actions("sam") if a.label.lower().startswith("fire")
                and "two" not in a.label.lower())
    assert fire.enabled
    page = fire.callback()
    # (a Fire with everything chosen is applied; the page then shows what happened)
    assert page is not None


def test_right_click_actions_of_static_veil_set_up_the_maneuver(window):
    w = window
    assert w.open_file(DEMOS["static-veil"])
    acts = w.rule_gui.context_actions("kit")
    shove = _by_label(acts, "Shove")
    assert not shove.enabled and shove.reason == "choose a target on the map"
    w.selection.set_targets(["jay"])  # T on Jay
    shove = _by_label(w.rule_gui.context_actions("kit"), "Shove")
    assert shove.enabled
    shove.callback()
    ctl = w.static_veil
    assert ctl.actor == "kit" and ctl.key == "shove" and ctl.target == "jay" and ctl.page.isVisible()
    assert ctl.preview is not None and ctl.preview.shove_ends
    charge = _by_label(w.rule_gui.context_actions("moss"), "Charge")
    assert not charge.enabled and charge.reason


@pytest.mark.parametrize("ruleset", ["sr5", "d100"])
def test_player_view_condition_bars_come_from_the_systems_gui(ruleset):
    from engine.files import load_encounter
    from gui.player_view import condition_tracks

    enc = load_encounter(DEMOS[ruleset])
    tracks = condition_tracks(enc, enc.token("sam"))
    assert [t.label for t in tracks] == (["Physical", "Stun"] if ruleset == "sr5" else ["Injury"])
    sv = load_encounter(DEMOS["static-veil"])
    assert condition_tracks(sv, sv.tokens[0]) == ()


def _system_packages() -> list[str]:
    engine = ROOT / "engine"
    return sorted(p.parent.name for p in engine.glob("*/system.py"))


def test_the_gui_outside_its_rule_packages_imports_no_rule_system():
    """gui/ outside gui/rules/<name>/ imports no engine.<system> and no gui.rules.<name>;
    the rule packages do not import each other (issue 12 item 6, GUI side)."""
    from tests.test_layers import _imports

    systems = _system_packages()
    assert {"sr5", "d100", "static_veil"} <= set(systems)
    gui = ROOT / "gui"
    offenders = []
    for f in sorted(gui.rglob("*.py")):
        rel = f.relative_to(gui).parts
        own = rel[1] if len(rel) > 2 and rel[0] == "rules" else None
        for line, mod in _imports(f):
            parts = mod.split(".")
            for name in systems:
                if name == own:
                    continue
                if parts[:2] == ["engine", name] or parts[:3] == ["gui", "rules", name]:
                    offenders.append(f"gui/{'/'.join(rel)}:{line} imports {mod}")
    assert offenders == []


def _landings(window) -> list:
    """Collect the document's non-preview publications from now on."""
    out: list = []
    window.document.changed.connect(lambda ch: None if ch.preview else out.append(ch))
    return out


def test_an_x_typed_in_the_inspector_during_a_round_is_a_placement_not_movement(window, qtbot):
    """Issue 27: only a drag is movement; the Inspector's x/y places the token (Sam at
    (12, 20) typed to x = 18 would be a 6 m run if it were charged)."""
    from engine.sr5.changes import settings_of
    from tests.gui.test_sr5_gui import start_turn

    w = window
    start_turn(w)
    log = settings_of(w.document.encounter).log
    steps = w.document.undo_stack.count()
    w.selection.select(["sam"], w.document.encounter)
    field = w.inspector.widgets["x"]
    field.setText("18")
    field.editingFinished.emit()
    sam = w.document.encounter.token("sam")
    assert sam.x == 18.0 and w.document.undo_stack.count() == steps + 1
    assert sam.rules["sr5"].moved == 0.0 and not sam.rules["sr5"].running
    assert not w.document.undo_stack.undoText().endswith("(SR5: movement counted)")
    assert settings_of(w.document.encounter).log == log  # no movement line either


def test_a_drag_lands_as_moves_with_the_path_it_walked(window, qtbot):
    """The drag's intent is kept (issue 27): the tool hands the document MoveTo values with
    the corners its walk turned at, not a moved encounter to diff."""
    from engine.rules import MoveTo
    from gui.tools import drag_moves

    enc = w_enc = window.document.encounter
    sam = w_enc.token("sam")  # at (12, 20)
    # east 4 m, then south 3 m, with a 0.1 m wobble on the way (dropped: under 0.25 m)
    trail = [(1.0, 0.0), (2.0, 0.1), (3.0, 0.0), (4.0, 0.0), (4.0, 1.5), (4.0, 3.0)]
    (m,) = drag_moves(enc, ("sam",), trail)
    assert m == MoveTo("sam", (16.0, 23.0), ((16.0, 20.0),))
    assert m.length_from((sam.x, sam.y)) == pytest.approx(7.0)  # 4 + 3, not the 5 m straight line
    assert drag_moves(enc, ("sam",), [(1.0, 0.0), (2.0, 0.0)]) == [MoveTo("sam", (14.0, 20.0))]  # straight
    assert drag_moves(enc, ("sam", "crate-1"), trail) is None  # an obstacle too: a plain edit
    seen = []
    window.document.moves_hook = lambda before, moves, text: seen.append(moves)
    assert window.document.commit_moves([m], "Move Sam")
    assert seen == [(m,)] and window.document.encounter.token("sam").x == 16.0


def test_an_sr5_drag_in_combat_is_one_commit_one_undo_step_one_publication(window, qtbot):
    from engine.sr5.changes import settings_of
    from tests.gui.conftest import mouse_drag
    from tests.gui.test_sr5_gui import start_turn

    w = window
    start_turn(w)
    steps = w.document.undo_stack.count()
    landed = _landings(w)
    mouse_drag(w.map_view, (12.0, 20.0), (18.0, 20.0))  # Sam, 6 m east: past his 4 m walk, he runs
    settle_window(qtbot, w)  # (nothing deferred may land a second time)
    assert len(landed) == 1 and not landed[0].reset
    sam = w.document.encounter.token("sam")
    assert sam.x == pytest.approx(18.0, abs=0.1) and sam.rules["sr5"].moved == pytest.approx(6.0, abs=0.1)
    assert sam.rules["sr5"].running and w.document.undo_stack.count() == steps + 1
    assert w.document.undo_stack.undoText().endswith("(SR5: movement counted)")
    # the engine's on_moves made the same encounter from the state before the drag
    from engine.rules import MoveTo, find_system

    before = w.document.undo_stack.command(steps).step.before
    assert find_system("sr5").on_moves(before, [MoveTo("sam", (sam.x, sam.y))]).encounter == \
        w.document.encounter.model_copy(update={"record": before.record})  # (the window adds the fight's record)
    w.actions["undo"].trigger()
    assert w.document.encounter.token("sam").x == 12.0 and settings_of(w.document.encounter).log == settings_of(before).log


def test_a_static_veil_drag_in_a_turn_is_one_commit_one_undo_step_one_publication(window, qtbot):
    RULESET = find_system("static-veil")
    from tests.gui.conftest import mouse_drag

    w = window
    assert w.open_file(DEMOS["static-veil"])
    settle_window(qtbot, w)
    w.map_view.fit_map()
    ctl = w.static_veil
    w.selection.set_attacker("vex")
    assert ctl.actor == "vex" and ctl.start_turn(False)
    steps = w.document.undo_stack.count()
    landed = _landings(w)
    # Vex (16, 10) 3 m east: the engine's way is the straight segment (tests/gui/test_static_veil_gui.py)
    mouse_drag(w.map_view, (16.0, 10.0), (19.0, 10.0))
    settle_window(qtbot, w)  # (nothing deferred may land a second time)
    assert len(landed) == 1 and w.document.undo_stack.count() == steps + 1
    assert w.document.undo_stack.undoText().endswith("(Static Veil: Movement spent)")
    vex = w.document.encounter.token("vex")
    used = RULESET.sheet(w.document.encounter.token("vex")).movement_used
    assert used == pytest.approx(3.0, abs=0.1) and used == pytest.approx(vex.x - 16.0, abs=1e-6)
