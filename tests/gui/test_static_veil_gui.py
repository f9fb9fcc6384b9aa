"""The Static Veil maneuvers in the real main window, offscreen, driven by real mouse clicks
on the map and on the panel's buttons (issue 7, map-window half).

The demo (assets/encounters/demo-static-veil.json), in metres, radii 0.4, reach 1 m:
* Kit (16.5, 15) stands 1.5 - 0.8 = 0.7 m edge to edge from Jay (18, 15): within reach.
  A shove pushes Jay east (0 deg). The brick wall's west face is x = 20, so Jay's centre
  stops at 20 - 0.4 = 19.6 after 1.6 m: 0 net hits (1 m) -> (19.0, 15), not stopped;
  1+ net hits (2 m or more) -> (19.6, 15), stopped by wall 'Brick wall'.
* Rook (4, 10) charges Vex (16, 10) around the crate x 8..10, y 7..12 (the geometry of
  tests/golden/static-veil/charge.json): path (4,10) -> (7.83431, 12.4) ->
  (10.16569, 12.4) -> contact (14.33534, 10.68477); the straight leg is 6.30866 - 1.8 =
  4.50866 m; Movement 11.36352 of Rook's 12.
* Moss (26, 1.5) and Ash (27.5, 2.5) are shut in the 5 x 5 m back office (walls at x 24.7..25,
  y 5..5.3, and the map edge): no straight 5.8 m lane at Ash exists, so no charge.
* Bolt holds Nix in a grapple; Lou is Prone and Distracted (1).
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import discard_on_close, mouse_click, open_window, vp_point
from tests.gui.settle import settle
from engine.rules import find_system

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "assets" / "encounters" / "demo-static-veil.json"


@pytest.fixture
def sv(qtbot, tmp_path, monkeypatch):
    """The main window on the Static Veil demo; returns (window, controller)."""
    import gui.rules.static_veil  # noqa: F401 - registers the extension (also a built-in)

    discard_on_close(monkeypatch)
    win = open_window(qtbot, DEMO, tmp_path, active=False)
    return win, win.static_veil


def _token(win, ident):
    return win.document.encounter.token(ident)


def _click_button(qtbot, button):
    QApplication.processEvents()  # widgets added to a shown layout appear on the next turn
    assert button.isVisible() and button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def _log(win, *, undone: bool | None = False) -> list[str]:
    """The shared combat log's Static Veil lines (live ones; ``undone=True``: struck ones)."""
    return [ln.text for ln in win.combat_log.lines() if ln.ruleset == "static-veil"
            and (undone is None or ln.undone == undone)]


def _select(win, ident):
    t = _token(win, ident)
    mouse_click(win.map_view, t.x, t.y)
    assert win.static_veil.actor == ident


def _pick(win, ident):
    t = _token(win, ident)
    mouse_click(win.map_view, t.x, t.y)


# ---------------------------------------------------------------------------------------------
def test_demo_loads_with_sheets_and_the_map_the_tests_need():
    from engine.files import load_encounter
    RULESET = find_system("static-veil")
    from engine.static_veil.actions import Charge, Shove

    enc = load_encounter(DEMO)
    assert enc.ruleset == "static-veil"
    assert all(t.rules.get("static-veil") is not None for t in enc.tokens)
    assert {o.id for o in enc.obstacles} >= {"crate", "brick-wall", "office-w", "office-s"}
    ends = RULESET.preview(enc, Shove("kit", "jay")).shove_ends
    assert ends[0].end == pytest.approx((19.0, 15.0)) and ends[0].stopped_by is None
    assert ends[1].end == pytest.approx((19.6, 15.0)) and ends[1].travelled == pytest.approx(1.6)
    assert ends[1].stopped_by == "wall 'Brick wall'"
    charge = RULESET.preview(enc, Charge("rook", "vex"))
    assert charge.allowed and charge.movement_cost == pytest.approx(11.36352, abs=1e-4)
    assert not RULESET.preview(enc, Charge("moss", "ash")).allowed
    assert RULESET.grapple_links(enc) == (("bolt", "nix"),)


def test_shown_only_for_static_veil_encounters(sv, demo_path):
    win, ctl = sv
    assert ctl.active and ctl.page.isVisible() and win.docks["combat_log"].isVisible()
    assert ctl.menu.menuAction().isVisible() and win.rule_gui is ctl
    layers = len(win.map_view.layers)
    assert win.open_file(demo_path)  # the sr5 demo: the Static Veil GUI is uninstalled
    assert win.static_veil is None and win.rule_gui.ruleset == "sr5"
    assert "Static Veil" not in win.menus and not any(n.startswith("sv ") for n in win.actions)
    assert ctl.page not in win.action_panel.pages() and not win.action_panel.dock.isVisible()
    assert ctl.layer not in win.map_view.layers and len(win.map_view.layers) == layers - 1
    assert _log(win, undone=None) == []
    assert win.open_file(DEMO)
    ctl = win.static_veil
    assert ctl.active and ctl.page.isVisible() and ctl.menu.menuAction().isVisible()
    assert win.docks["combat_log"].isVisible() and len(win.map_view.layers) == layers


def test_shove_into_the_wall_previewed_applied_logged_and_undone(sv, qtbot):
    RULESET = find_system("static-veil")
    from engine.static_veil.actions import Shove

    win, ctl = sv
    panel = ctl.panel
    _select(win, "kit")
    assert panel.option_state("shove") == (True, "choose a target on the map")
    _click_button(qtbot, panel.buttons["shove"])
    assert ctl.picking == "token"
    _pick(win, "jay")
    assert ctl.target == "jay" and ctl.picking is None
    assert win.map_view.tool.name == "Select"  # back to the normal tool

    # the previewed ends are the engine's, and the map draws them before confirming
    engine = RULESET.preview(win.document.encounter, Shove("kit", "jay"))
    assert [e.end for e in ctl.preview.shove_ends] == [e.end for e in engine.shove_ends]
    ghosts = {g.tag: (g.x, g.y) for g in ctl.layer.drawing.ghosts if g.tag}
    assert ghosts == {"0": pytest.approx((19.0, 15.0)), "1+": pytest.approx((19.6, 15.0))}
    assert _token(win, "jay").x == 18.0  # nothing moved yet

    assert not panel.confirm_btn.isEnabled()  # nobody has said who won
    panel.outcome.enter(True, 2)
    strong = [g for g in ctl.layer.drawing.ghosts if g.strong]
    assert [(g.x, g.y) for g in strong] == [pytest.approx((19.6, 15.0))]
    steps = win.document.undo_stack.count()
    _click_button(qtbot, panel.confirm_btn)

    jay = _token(win, "jay")
    assert (jay.x, jay.y) == pytest.approx((19.6, 15.0))
    assert win.document.undo_stack.count() == steps + 1
    assert RULESET.sheet(win.document.encounter.token("kit")).ap == 1
    assert {m.id: m.ap for m in ctl.layer.marks}["kit"] == 1
    last = _log(win)[-1]
    assert "Kit shoves Jay (Kit wins by 2 net hits)" in last and "stopped by wall 'Brick wall'" in last
    assert ctl.key is None and ctl.layer.drawing is None

    win.actions["undo"].trigger()
    jay = _token(win, "jay")
    assert (jay.x, jay.y) == (18.0, 15.0)
    assert RULESET.sheet(win.document.encounter.token("kit")).ap == 3
    assert _log(win) == [] and _log(win, undone=True) == [last]  # struck through, not gone
    assert {m.id: m.ap for m in ctl.layer.marks}["kit"] == 3
    win.actions["redo"].trigger()
    assert _log(win) == [last] and (_token(win, "jay").x, _token(win, "jay").y) == pytest.approx((19.6, 15.0))


def test_charge_refused_for_lack_of_run_up_shows_the_engines_reason(sv, qtbot):
    RULESET = find_system("static-veil")
    from engine.static_veil.actions import Charge

    win, ctl = sv
    panel = ctl.panel
    _select(win, "moss")
    _click_button(qtbot, panel.buttons["charge"])
    _pick(win, "ash")
    why = RULESET.why_not(win.document.encounter, Charge("moss", "ash"))
    assert "no straight 4 m run-up" in why
    enabled, shown = panel.option_state("charge")
    assert not enabled and shown == why
    assert panel.buttons["charge"].toolTip() == why
    assert why in panel.reasons["charge"].text()
    assert not ctl.preview.allowed
    assert html.escape(why) in panel.preview_label.text()
    assert not panel.confirm_btn.isEnabled()
    assert ctl.layer.drawing is not None and not ctl.layer.drawing.allowed
    shown = ctl.layer.drawing.labels[0][2].split("\n")
    assert shown[0] == "Charge refused:" and " ".join(shown[1:]).startswith("no straight 4 m run-up")
    steps = win.document.undo_stack.count()
    assert not ctl.confirm()
    assert win.document.undo_stack.count() == steps


def test_charge_path_and_run_up_leg_are_drawn_with_metres(sv, qtbot):
    win, ctl = sv
    _select(win, "rook")
    _click_button(qtbot, ctl.panel.buttons["charge"])
    _pick(win, "vex")
    d = ctl.layer.drawing
    assert d.allowed
    assert d.path == ctl.preview.path and len(d.path) == 4
    assert d.path[-1] == pytest.approx((14.33534, 10.68477), abs=1e-4)
    assert d.runup == (ctl.preview.runup_start, ctl.preview.end)
    assert d.runup_label == "run-up 4.5 m"  # 4.50866 m
    assert d.labels[0][2] == "Charge Vex: 11.4 m, 2 AP"
    # the attack's Success Target with the charge bonus is in the panel
    assert "Rook 60 (charge +10) vs Vex defense 40" in ctl.panel.preview_label.text()
    ctl.panel.outcome.enter(True, 1)
    _click_button(qtbot, ctl.panel.confirm_btn)
    rook = _token(win, "rook")
    assert (rook.x, rook.y) == pytest.approx((14.33534, 10.68477), abs=1e-4)
    assert "Charged" in [s for m in ctl.layer.marks if m.id == "rook" for s in m.states]


def test_hovering_while_picking_previews_that_target(sv, qtbot):
    win, ctl = sv
    _select(win, "kit")
    _click_button(qtbot, ctl.panel.buttons["grapple"])
    vex = _token(win, "vex")
    vp = win.map_view.viewport()
    pos = QPointF(vp_point(win.map_view, vex.x, vex.y))
    # a plain mouse move (no button), sent straight to the map's viewport
    ev = QMouseEvent(QEvent.Type.MouseMove, pos, vp.mapToGlobal(pos), Qt.MouseButton.NoButton,
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(vp, ev)
    d = ctl.layer.drawing
    assert d is not None and d.hover and not d.allowed  # Vex is 4.2 m away: out of reach
    assert "within reach" in ctl.hover_preview.reason
    QTest.keyClick(win.map_view, Qt.Key.Key_Escape)
    assert ctl.picking is None and ctl.key is None and ctl.layer.drawing is None


def test_grapple_link_states_turns_and_one_undo_step_each(sv, qtbot):
    RULESET = find_system("static-veil")

    win, ctl = sv
    marks = {m.id: m for m in ctl.layer.marks}
    assert marks["lou"].states == ("Prone", "Distracted (1)")
    assert marks["bolt"].states == ("Grappling",) and marks["nix"].states == ("Grappled",)
    assert [(ln.a[:2], ln.b[:2]) for ln in ctl.layer.links] == [((5.0, 4.5), (6.0, 4.5))]

    _select(win, "kit")
    steps = win.document.undo_stack.count()
    _click_button(qtbot, ctl.panel.start_btn)
    assert win.document.undo_stack.count() == steps + 1
    assert {m.id: m.active for m in ctl.layer.marks}["kit"]
    assert _log(win)[-1] == "Round 1: Kit's turn (3 AP, 10.0 m)."

    _click_button(qtbot, ctl.panel.buttons["grapple"])
    _pick(win, "jay")
    ctl.panel.outcome.enter(True, 0)
    _click_button(qtbot, ctl.panel.confirm_btn)
    assert win.document.undo_stack.count() == steps + 2
    links = [(ln.a[:2], ln.b[:2]) for ln in ctl.layer.links]
    assert ((16.5, 15.0), (18.0, 15.0)) in links
    assert ctl.panel.economy_label.text().count("1 of 3 AP") == 1

    _click_button(qtbot, ctl.panel.end_btn)
    assert ctl.layer.marks and not any(m.active for m in ctl.layer.marks)
    win.actions["undo"].trigger()  # the end of the turn
    win.actions["undo"].trigger()  # the grapple
    assert ((16.5, 15.0), (18.0, 15.0)) not in [(ln.a[:2], ln.b[:2]) for ln in ctl.layer.links]
    assert win.document.undo_stack.index() == steps + 1  # back to just after the turn began
    assert RULESET.sheet(win.document.encounter.token("kit")).ap == 3


def test_d100_model_rolls_from_the_menu_and_logs_the_dice(sv, qtbot):
    win, ctl = sv
    _select(win, "kit")
    _click_button(qtbot, ctl.panel.buttons["shove"])
    _pick(win, "jay")
    assert not ctl.panel.roll_btn.isEnabled()  # the GM enters outcomes by default
    win.actions["sv dice d100"].trigger()
    assert win.document.encounter.rules["static-veil"].dice == "d100"
    _click_button(qtbot, ctl.panel.roll_btn)
    lines = _log(win)
    assert any(line.startswith("Dice: Kit athletics: rolled") for line in lines)
    assert win.document.encounter.rules["static-veil"].rolls == 2
    win.actions["undo"].trigger()
    assert win.document.encounter.rules["static-veil"].rolls == 0 and _log(win) == []


def test_called_shot_offers_the_engines_locations_and_an_attack_outcome(sv, qtbot):
    win, ctl = sv
    _select(win, "kit")
    _click_button(qtbot, ctl.panel.buttons["called_shot"])
    _pick(win, "jay")
    combo = ctl.panel.location_combo
    keys = [combo.itemData(i) for i in range(combo.count())]
    assert keys == ["head", "vital", "hand", "arm", "leg", "item"]
    combo.setCurrentIndex(keys.index("leg"))
    assert ctl.action().location == "leg"
    form = ctl.panel.outcome
    assert form.hit_yes is not None and form.check_pass is not None and not form.check_pass.isEnabled()
    form.enter(True, 1, check=False)
    _click_button(qtbot, ctl.panel.confirm_btn)
    assert _token(win, "jay").stance == "prone"
    assert "Prone" in {m.id: m.states for m in ctl.layer.marks}["jay"]


def test_move_the_grapple_to_a_clicked_place_drags_the_partner(sv, qtbot):
    RULESET = find_system("static-veil")
    from engine.static_veil.actions import MoveGrapple

    win, ctl = sv
    _select(win, "bolt")
    _click_button(qtbot, ctl.panel.buttons["move_grapple"])
    assert ctl.picking == "point"
    mouse_click(win.map_view, 5.0, 7.0)  # 2.5 m south: within half of Bolt's 10 m Movement
    assert ctl.dest == pytest.approx((5.0, 7.0), abs=0.05)  # a click lands on a pixel
    engine = RULESET.preview(win.document.encounter, MoveGrapple("bolt", ctl.dest))
    d = ctl.layer.drawing
    assert d.allowed and d.path == engine.path and d.partner_path == engine.partner_path
    ctl.panel.willing_check.setChecked(True)  # Nix goes along: no test
    assert not ctl.panel.outcome_box.isVisible() and ctl.panel.confirm_btn.isEnabled()
    _click_button(qtbot, ctl.panel.confirm_btn)
    bolt, nix = _token(win, "bolt"), _token(win, "nix")
    assert (bolt.x, bolt.y) == pytest.approx(engine.path[-1])
    assert (nix.x, nix.y) == pytest.approx(engine.partner_path[-1])
    assert [(ln.a[:2], ln.b[:2]) for ln in ctl.layer.links] == [((bolt.x, bolt.y), (nix.x, nix.y))]


def test_a_saved_log_comes_back_with_the_file(sv, qtbot, tmp_path):
    win, ctl = sv
    _select(win, "kit")
    _click_button(qtbot, ctl.panel.start_btn)
    _click_button(qtbot, ctl.panel.buttons["shove"])
    _pick(win, "jay")
    ctl.panel.outcome.enter(False, 1)
    _click_button(qtbot, ctl.panel.confirm_btn)
    lines = _log(win)
    assert lines[-1] == "Kit tries to shove Jay: Jay wins by 1 net hit; Jay holds their ground."
    path = tmp_path / "fight.json"
    assert win.save_as(path)
    assert win.open_file(path, ask=False)
    assert _log(win) == lines
    assert all(ln.timestamp is None for ln in win.combat_log.lines() if ln.ruleset == "static-veil")


def test_move_walks_the_engines_way_and_counts_movement(sv, qtbot):
    RULESET = find_system("static-veil")

    win, ctl = sv
    _select(win, "rook")
    _click_button(qtbot, ctl.panel.move_btn)
    assert ctl.picking == "point"
    mouse_click(win.map_view, 12.0, 10.0)  # behind the crate: the way goes round its south end
    pv = RULESET.plan_move(win.document.encounter, "rook", ctl.dest)
    assert ctl.preview == pv and pv.allowed
    assert pv.path[1] == pytest.approx((7.83431, 12.4), abs=1e-4)  # round the crate's south-west corner
    assert ctl.layer.drawing.path == pv.path
    _click_button(qtbot, ctl.panel.confirm_btn)
    rook = _token(win, "rook")
    assert (rook.x, rook.y) == pytest.approx(pv.path[-1])
    left = RULESET.sheet(win.document.encounter.token("rook")).movement_left
    assert left == pytest.approx(12.0 - pv.movement_cost)
    assert f"({left:.1f} m of Movement left)" in _log(win)[-1]
    # further than the Movement left: drawn, refused, with the engine's words
    _click_button(qtbot, ctl.panel.move_btn)
    mouse_click(win.map_view, 2.0, 2.0)
    assert not ctl.preview.allowed and "of Movement left" in ctl.preview.reason
    assert not ctl.panel.confirm_btn.isEnabled() and ctl.layer.drawing.path == ctl.preview.path


def test_marks_and_links_follow_a_token_being_dragged(sv):
    from gui import edits

    win, ctl = sv
    doc = win.document
    doc.preview(edits.translate(doc.committed, ["nix"], 0.0, 2.0))  # a drag in progress
    assert {m.id: (m.x, m.y) for m in ctl.layer.marks}["nix"] == (6.0, 6.5)
    assert [(ln.a[:2], ln.b[:2]) for ln in ctl.layer.links] == [((5.0, 4.5), (6.0, 6.5))]
    doc.cancel_preview()
    assert {m.id: (m.x, m.y) for m in ctl.layer.marks}["nix"] == (6.0, 4.5)


# -- Movement spent by dragging ------------------------------------------------------------------
def _drag_and_settle(win, qtbot, a, b, steps_before):
    """Drag the token at ``a`` with the mouse from map point ``a`` to ``b`` and wait until the drag
    (and any Movement folded into it) is on the undo stack."""
    from tests.gui.conftest import mouse_drag

    settle(qtbot, win)  # the docks' first sizing re-fits the map on the event loop: settle first
    mouse_drag(win.map_view, a, b)
    qtbot.waitUntil(lambda: win.document.undo_stack.count() == steps_before + 1, timeout=10_000)
    settle(qtbot, win)  # (nothing deferred may land a second time)


def test_a_drag_during_a_turn_spends_the_engines_path_in_one_undo_step(sv, qtbot):
    RULESET = find_system("static-veil")

    win, ctl = sv
    _select(win, "vex")
    assert ctl.start_turn()
    steps = win.document.undo_stack.count()
    # Vex stands at (16, 10), radius 0.4; 3 m east ends at (19, 10): its edge at 19.4 m stays
    # short of the brick wall (x 20 .. 20.5) and nobody stands within 4 m of that line (Kit
    # and Jay are at y = 15), so the engine's way is the straight 3.0 m segment.
    _drag_and_settle(win, qtbot, (16.0, 10.0), (19.0, 10.0), steps)
    enc = win.document.encounter
    vex = enc.token("vex")
    assert (vex.x, vex.y) == pytest.approx((19.0, 10.0), abs=0.1)
    used = RULESET.sheet(enc.token("vex")).movement_used
    assert used == pytest.approx(3.0, abs=0.1)  # mouse pixels: a few cm either way
    assert used == pytest.approx(math.hypot(vex.x - 16.0, vex.y - 10.0), abs=1e-6)  # straight line
    assert win.document.undo_stack.count() == steps + 1  # the drag and its Movement: one step
    assert win.document.undo_stack.undoText().endswith("(Static Veil: Movement spent)")
    assert _log(win)[-1] == f"Vex moves {used:.1f} m ({10.0 - used:.1f} m of Movement left)."
    assert "Vex moves" in win.statusBar().currentMessage()
    win.actions["undo"].trigger()
    enc = win.document.encounter
    assert (enc.token("vex").x, enc.token("vex").y) == (16.0, 10.0)
    assert RULESET.sheet(enc.token("vex")).movement_used == 0.0
    assert RULESET.settings(enc).active == "vex"  # only the drag was undone, not the turn
    assert _log(win, undone=True)[-1].startswith("Vex moves")


def test_a_drag_with_no_turn_running_or_counting_off_spends_nothing(sv, qtbot):
    RULESET = find_system("static-veil")

    win, ctl = sv
    assert RULESET.settings(win.document.encounter).active is None
    steps = win.document.undo_stack.count()
    _drag_and_settle(win, qtbot, (16.0, 10.0), (19.0, 10.0), steps)
    enc = win.document.encounter
    assert enc.token("vex").x == pytest.approx(19.0, abs=0.1)
    assert RULESET.sheet(enc.token("vex")).movement_used == 0.0
    assert not win.document.undo_stack.undoText().endswith("(Static Veil: Movement spent)")
    # a turn running but the controller's count_moves switched off: still a free edit
    _select(win, "vex")
    ctl.start_turn()
    ctl.count_moves = False
    steps = win.document.undo_stack.count()
    x = enc.token("vex").x
    _drag_and_settle(win, qtbot, (x, 10.0), (x - 2.0, 10.0), steps)
    enc = win.document.encounter
    assert enc.token("vex").x == pytest.approx(x - 2.0, abs=0.1)
    assert RULESET.sheet(enc.token("vex")).movement_used == 0.0


def test_a_refused_drag_lands_with_the_engines_reason_and_spends_nothing(sv, qtbot):
    RULESET = find_system("static-veil")

    win, ctl = sv
    _select(win, "bolt")
    ctl.start_turn()
    steps = win.document.undo_stack.count()
    # Bolt (5, 4.5) grapples Nix (6, 4.5). Dragged 3 m west to (2, 4.5) the gap to Nix is
    # 4 - 0.4 - 0.4 = 3.2 m > the 1 m reach: the engine refuses normal Movement.
    _drag_and_settle(win, qtbot, (5.0, 4.5), (2.0, 4.5), steps)
    enc = win.document.encounter
    assert enc.token("bolt").x == pytest.approx(2.0, abs=0.1)  # the GM's drag stands
    assert RULESET.sheet(enc.token("bolt")).movement_used == 0.0
    assert not win.document.undo_stack.undoText().endswith("(Static Veil: Movement spent)")
    msg = win.statusBar().currentMessage()
    assert msg.startswith("Bolt: no Movement spent")
    assert "is in a grapple with Nix and cannot use normal Movement to move away" in msg


def test_every_static_veil_landing_goes_through_the_one_commit_path(sv, qtbot, monkeypatch):
    """A turn, a maneuver and the end of the turn land through RuleController.land, as sr5's
    and d100's do: one undo step named for it, its lines as one batch with the round and the
    result's colour, struck through on undo and back on redo."""
    from gui.rules.base import RuleController

    win, ctl = sv
    landed = []
    real = RuleController.land
    monkeypatch.setattr(RuleController, "land", lambda self, outcome, text=None: (
        landed.append((self.ruleset, text)), real(self, outcome, text))[1])
    _select(win, "kit")
    steps = win.document.undo_stack.count()
    _click_button(qtbot, ctl.panel.start_btn)
    _click_button(qtbot, ctl.panel.buttons["shove"])
    _pick(win, "jay")
    ctl.panel.outcome.enter(True, 2)
    _click_button(qtbot, ctl.panel.confirm_btn)
    _click_button(qtbot, ctl.panel.end_btn)
    assert landed == [("static-veil", "Start Kit's turn"), ("static-veil", "Shove: Kit \u2192 Jay"),
                      ("static-veil", "End Kit's turn")]
    stack = win.document.undo_stack
    assert stack.count() == steps + 3 and [stack.text(steps + i) for i in range(3)] == [t for _, t in landed]
    lines = [ln for ln in win.combat_log.lines() if ln.ruleset == "static-veil"]
    assert [(ln.round, ln.kind) for ln in lines] == [(1, "round"), (1, "hit"), (1, "miss")]
    assert len({ln.batch for ln in lines}) == 3  # one batch a landing
    win.actions["undo"].trigger()
    win.actions["undo"].trigger()
    assert [ln.undone for ln in win.combat_log.lines() if ln.ruleset == "static-veil"] == [False, True, True]
    assert (_token(win, "jay").x, _token(win, "jay").y) == (18.0, 15.0)
    win.actions["redo"].trigger()
    assert [ln.undone for ln in win.combat_log.lines() if ln.ruleset == "static-veil"] == [False, False, True]
    assert (_token(win, "jay").x, _token(win, "jay").y) == pytest.approx((19.6, 15.0))
