"""The live answers in the real window: every number shown is the engine's (a fresh
``Tactics`` on the encounter as it stands), and follows mouse drags and drawings."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolTip

from engine.analysis import Tactics
from geometry.cover import cover_percent
from gui.style import PLAYER_VIEW
from gui.targets import charge_refusal
from tests.gui.conftest import mouse_click, mouse_drag, vp_point
from tests.gui.settle import settle
from tests.gui.target_table import table


def expected(window, attacker: str) -> dict[str, list[str]]:
    """The same rows from a fresh engine on the window's encounter (charge column aside)."""
    enc = window.document.encounter
    names = {t.id: t.name for t in enc.tokens}
    zones = {z.id: z.name or z.id for z in enc.zones}
    out = {}
    for r in Tactics(enc).targets(attacker):
        band = r.range.band if r.range else "out of range"
        mod = "" if r.range is None else (f"{r.range.modifier:+d}" if r.range.modifier else "0")
        out[r.id] = [names[r.id], f"{r.distance:.1f}", band, mod, str(cover_percent(r.cover.fraction, r.cover.cls)),
                     r.cover.cls, ", ".join(zones[z] for z in r.zones)]
    return out


def shown(window) -> dict[str, list[str]]:
    return {k: v[:6] + v[7:] for k, v in table(window).items()}  # without the charge column


def test_clicking_a_token_fills_the_targets_table_with_the_engines_numbers(window):
    mouse_click(window.map_view, 12.0, 20.0)  # Sam
    assert window.selection.attacker == "sam"
    assert window.targets.attacker_label.text() == "Attacker: Sam"
    assert shown(window) == expected(window, "sam")
    # spot-check one row against the demo's geometry: Razor at (27, 17), Sam at (12, 20):
    # distance sqrt(15^2 + 3^2) = 15.30 m; the Ingram (submachine gun) is medium from 10 to 40 m
    razor = table(window)["ganger-1"]
    assert razor[1:4] == ["15.3", "medium", "-1"]
    # every other token shows a badge on the map
    assert len(window.map_view.answer_layer._badges) == len(window.document.encounter.tokens) - 1


def test_dragging_the_attacker_with_the_mouse_updates_the_table_to_the_engine(window):
    v = window.map_view
    mouse_click(v, 12.0, 20.0)
    before = shown(window)
    mouse_drag(v, (12.0, 20.0), (30.0, 12.0), steps=12)
    sam = window.document.encounter.token("sam")
    assert (sam.x, sam.y) == pytest.approx((30.0, 12.0), abs=2 * v.m_per_px())
    assert window.document.undo_stack.count() == 1  # the whole drag is one step
    after = shown(window)
    assert after != before
    assert after == expected(window, "sam")
    # the attacker's new neighbourhood: Razor at (27, 17) is now about 5.8 m away, short range
    assert after["ganger-1"][2] == "short"


def test_the_table_follows_the_drag_while_the_mouse_moves(window, qtbot):
    v = window.map_view
    mouse_click(v, 12.0, 20.0)
    vp = v.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, vp_point(v, 12.0, 20.0))
    for x in (14.0, 17.0, 20.0):
        QTest.mouseMove(vp, vp_point(v, x, 20.0))
    assert window.document.in_preview
    # the table refreshes at most ~8 times a second during a drag, with the engine's numbers
    # for the previewed position
    qtbot.waitUntil(lambda: shown(window) == expected(window, "sam"), timeout=10_000)
    assert window.document.in_preview and window.document.encounter.token("sam").x == pytest.approx(20.0, abs=0.1)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, vp_point(v, 20.0, 20.0))


def test_drawing_an_obstacle_with_the_mouse_changes_the_targets_cover(window):
    v = window.map_view
    mouse_click(v, 12.0, 20.0)  # Sam attacks
    # Spike at (36, 26) is in the open from Sam: no cover
    assert table(window)["ganger-2"][5] == "none"
    window.set_tool("Polygon")
    window.height_spin.setValue(3.0)  # a 3 m wall segment just in front of Spike
    for x, y in ((34.5, 24.5), (35.0, 24.5), (35.0, 27.5), (34.5, 27.5), (34.5, 24.5)):
        mouse_click(v, x, y)
    enc = window.document.encounter
    assert len(enc.obstacles) == 11 and enc.obstacles[-1].height == 3.0
    assert window.document.undo_stack.count() == 1
    window.selection.set_attacker("sam")
    row = table(window)["ganger-2"]
    assert shown(window) == expected(window, "sam")
    # Sam's eye (1.6 m) looks across the 3 m wall at all of Spike: fully hidden
    assert row[5] == "full" and row[4] == "100"
    window.actions["undo"].trigger()
    assert table(window)["ganger-2"][5] == "none"
    window.actions["redo"].trigger()
    assert table(window)["ganger-2"][5] == "full"


def test_hover_draws_sight_hidden_silhouette_and_charge_from_the_engine(window, qtbot):
    v = window.map_view
    mouse_click(v, 12.0, 20.0)
    settle(qtbot, window)  # (Sam's answers and the legend's refit land before the mouse points again)
    assert window.selection.attacker == "sam"
    # the move sent to the map itself: offscreen, a window an earlier test left showing (a
    # tooltip) can take a move routed by the window system, and the map then "leaves" it
    QToolTip.hideText()
    at = QPointF(vp_point(v, 22.0, 8.0))  # over Vex
    QApplication.sendEvent(v.viewport(), QMouseEvent(QEvent.Type.MouseMove, at, v.viewport().mapToGlobal(at),
                                                     Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                                                     Qt.KeyboardModifier.NoModifier))
    assert v.focus_target() == "ganger-6"
    s = v.answer_layer._sight
    sight = Tactics(window.document.encounter).line_of_sight("sam", "ganger-6")
    assert s["fraction"] == pytest.approx(sight.fraction) and s["cls"] == sight.cls
    assert s["profile"][1].tolist() == pytest.approx(list(sight.hidden))
    c = v.answer_layer._charge
    plan = Tactics(window.document.encounter).charge("sam", "ganger-6")
    assert plan.possible and c["text"] == f"charge {plan.movement:.1f} m"
    assert c["path"] == [tuple(p) for p in plan.path]
    assert c["runup"] is not None  # the run-up leg is drawn on its own


def test_tokens_in_a_zone_are_ringed_in_its_colour_with_a_tooltip(window):
    from gui.style import zone_colour

    v = window.map_view
    hits = Tactics(window.document.encounter).zone_hits()
    inside = {h.id for h in hits["sup-1"]}
    assert inside  # the demo's suppressive fire touches someone
    colour = zone_colour(window.document.encounter.zone("sup-1"))
    rings = v.tokens._rings
    for tid in inside:
        assert colour in rings[tid]
    tid = sorted(inside)[0]
    text = v.token_tooltip(tid)
    assert "Sam's suppressive fire" in text and "% of its footprint" in text


def test_clicking_a_row_selects_that_token_and_keeps_the_attacker(window):
    mouse_click(window.map_view, 12.0, 20.0)
    panel = window.targets
    idx = panel.row_index("ganger-4")
    panel.table.clicked.emit(idx)
    assert window.selection.ids == ("ganger-4",)
    assert window.selection.attacker == "sam" and window.selection.focus == "ganger-4"
    assert window.map_view.focus_target() == "ganger-4"
    assert window.inspector.heading.text() == "Token: Tusk"


def test_the_table_sorts_by_cover_and_fills_charges_from_the_engine(window):
    mouse_click(window.map_view, 12.0, 20.0)
    m = window.targets.model
    m.sort(5, Qt.SortOrder.DescendingOrder)  # cover class, full first
    classes = [m.data(m.index(r, 5)) for r in range(m.rowCount())]
    order = {"full": 3, "good": 2, "partial": 1, "none": 0}
    assert [order[c] for c in classes] == sorted((order[c] for c in classes), reverse=True)
    window.answers.finish_charges()
    m.update_charges()
    engine = Tactics(window.document.encounter)
    rows = table(window)
    for tid, row in rows.items():
        plan = engine.charge("sam", tid)
        assert row[6] == (f"{plan.movement:.1f}" if plan.possible else charge_refusal(plan.reason))
    # Sam runs 24 m a turn (Agility 6 x 4): Tusk (32.3 m of movement) and Mouse are too far,
    # and the cell's tooltip gives the engine's whole sentence
    assert rows["ganger-4"][6] == "too far" and rows["ganger-5"][6] == "too far"
    r = m.row_of("ganger-4")
    tip = m.data(m.index(r, 6), Qt.ItemDataRole.ToolTipRole)
    assert tip == engine.charge("sam", "ganger-4").reason and "too far" in tip


def test_a_zone_dragged_from_a_token_with_the_mouse(window):
    v = window.map_view
    window.set_tool("Suppressive")
    mouse_drag(v, (16.0, 30.0), (36.0, 30.0), steps=10)  # from Brick, 20 m east
    z = window.document.encounter.zones[-1]
    assert z.kind == "suppressive" and z.owner == "brick"
    assert z.length == pytest.approx(20.0, abs=0.15)
    assert min(z.direction, 360 - z.direction) < 0.5  # east, give or take a pixel
    assert window.document.undo_stack.count() == 1
    assert z.id in v.zones.drawings()  # drawn from the engine's clipped shape


def test_a_second_view_draws_for_players_and_renders_offscreen(window, qtbot):
    from gui.map_view import MapView

    enc = window.document.encounter
    hidden = enc.model_copy(update={"tokens": tuple(
        t.model_copy(update={"hidden": True}) if t.id == "ganger-5" else t for t in enc.tokens)})
    window.document.commit(hidden, "hide Mouse")
    pv = MapView(window.document, window.selection, window.answers, PLAYER_VIEW, interactive=False)
    qtbot.addWidget(pv)
    assert "ganger-5" not in pv.tokens.ids and "ganger-5" in window.map_view.tokens.ids
    assert pv.options.label_px > window.map_view.options.label_px
    img = pv.render_image(800, 600)
    assert (img.width(), img.height()) == (800, 600)
    # the map ground is drawn where the map is, the backdrop outside it
    from gui import style

    centre = img.pixelColor(pv.map_to_viewport(30.0, 35.0))
    assert centre != style.MAP_BACKDROP


def test_slow_charge_plans_wait_for_the_mouse_to_rest(window, qtbot):
    ans = window.answers
    window.selection.select(["sam"], window.document.encounter)
    ans._last_charge_ms = 50.0  # as if plans took 50 ms on this map
    assert ans.live_charge("ganger-3") is None
    with qtbot.waitSignal(ans.focusUpdated, timeout=10_000):
        pass
    plan = Tactics(window.document.encounter).charge("sam", "ganger-3")
    assert ans.charges["ganger-3"].movement == pytest.approx(plan.movement)
    assert ans.live_charge("ganger-3") is ans.charges["ganger-3"]


def test_hovering_a_token_in_a_zone_shows_the_tooltip(window):
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    v = window.map_view
    p = vp_point(v, 41.5, 15.5)  # Tusk, inside Sam's suppressive fire
    QTest.mouseMove(v.viewport(), p)
    QApplication.sendEvent(v.viewport(), QHelpEvent(QEvent.Type.ToolTip, p, v.viewport().mapToGlobal(p)))
    hit = [h for h in Tactics(window.document.encounter).zone_hits()["sup-1"] if h.id == "ganger-4"][0]
    assert QToolTip.text() == f"Tusk (ganger, crouched)\nin Sam's suppressive fire: {hit.fraction * 100:.0f}% of its footprint"
    QToolTip.hideText()


def test_without_shadowrun_the_table_and_badges_show_metres_not_range_bands(window):
    """d100 and Static Veil have no range bands: the Band and Mod columns hide and a badge
    reads the distance (Vex is 15.6 m from Sam: "16 m") beside the cover class."""
    from gui.layers import badge_for

    t = window.targets.table
    band, mod = 2, 3
    assert not t.isColumnHidden(band) and not t.isColumnHidden(mod)
    enc = window.document.encounter
    window.document.commit(enc.model_copy(update={"ruleset": "d100"}), "ruleset")
    mouse_click(window.map_view, 12.0, 20.0)
    assert t.isColumnHidden(band) and t.isColumnHidden(mod)
    rep = window.answers.targets["ganger-6"]
    assert badge_for(rep, ranged=False).text == "16 m" and badge_for(rep, ranged=False).cover == "good"
    assert badge_for(rep).text == "M \u22121"
    texts = {b[3].text for b in window.map_view.answer_layer._badges}
    assert "16 m" in texts and not any(x.startswith("M ") for x in texts)
    window.actions["undo"].trigger()
    assert not t.isColumnHidden(band)


def test_picking_an_obstacle_shows_the_same_answers_without_working_them_out_again(window):
    # (on a 10,000-obstacle map a new wall's selection redid the badges, the legend and the
    # targets table in the wall's own turn); a new looked-at target still shows at once
    mouse_click(window.map_view, 12.0, 20.0)  # Sam
    ans, view = window.answers, window.map_view
    before = (shown(window), list(view.answer_layer._badges), view.answer_layer.build_count)
    emitted = []
    ans.updated.connect(lambda: emitted.append(1))
    obstacle = window.document.encounter.obstacles[0].id
    window.selection.select([obstacle], window.document.encounter)
    assert window.selection.ids == (obstacle,) and window.selection.attacker == "sam"
    assert emitted == []
    assert (shown(window), list(view.answer_layer._badges), view.answer_layer.build_count) == before
    assert shown(window) == expected(window, "sam")
    window.targets.table.clicked.emit(window.targets.row_index("ganger-4"))
    assert window.selection.focus == "ganger-4" and emitted == [1]
    assert view.answer_layer.build_count == before[2] + 1
