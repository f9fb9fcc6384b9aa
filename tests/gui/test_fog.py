"""Fog in the window (#18 items 2-3, 5-6, GUI side), driven through the real main window on
the demo, offscreen: the player view shows only what the party sees (an enemy behind the
warehouse corner is not there, the GM still has it), the fog's regions (dark, dim, clear)
as pixels, the GM's tint and its key, the brush and rectangle (one undo step each), the
drop of a drag growing the explored area in the same undo step, the lights and settings of
the Sight panel, and cover badges in the player view that ignore a hidden wall.

The demo (assets/encounters/demo.json): the warehouse is an L of 8 m walls over
x 0-18, y 0-8 and x 0-8, y 8-14; the runners (the players' side by default) stand at
Sam (12, 20), Nyx (10.5, 23.5), Brick (16, 30, crouched). Vex (``ganger-6``) moved to
(19.5, 2) is behind the warehouse's corner (18, 8): the line from Sam meets y = 8 at
x = 12 + 7.5 * 12 / 18 = 17.0 and Nyx's at x = 10.5 + 9 * 15.5 / 21.5 = 17.0, both inside
the 8 m block (x < 18); Brick's passes the corner (x = 18.75 at y = 8) but crosses the
burnt-out car (1.3 m) he crouches behind, 2 m in front of his eyes (about 1 m up), which
then hides a standing body from about 3.5 x 2 m on. The engine's "A sees B" agrees (checked
first in the test), so the check does not rest on this sketch alone.
"""

from __future__ import annotations

import pytest
import shapely
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest

from gui import edits
from gui.fog_tools import FogBrushTool, FogRectTool
from gui.layers.fog import FOG_DARK, FOG_DIM, GM_DARK
from gui.tools import Pointer, SelectTool
from tests.gui.settle import settle

BEHIND_CORNER = (19.5, 2.0)
INSIDE_WAREHOUSE = (4.0, 4.0)  # 4 m from every wall of the 8 m block: never in sight
OPEN_GROUND = (13.5, 17.5)  # between the warehouse and Sam, in the open


def _pixel(view, x: float, y: float) -> QColor:
    img = view.viewport().grab().toImage()
    p = view.map_to_viewport(x, y)
    dpr = img.devicePixelRatio()
    return img.pixelColor(round(p.x() * dpr), round(p.y() * dpr))


def _near(a: QColor, b: QColor, tol: int = 12) -> bool:
    return abs(a.red() - b.red()) <= tol and abs(a.green() - b.green()) <= tol and abs(a.blue() - b.blue()) <= tol


def _over(under: QColor, top: QColor) -> QColor:
    """``top`` (with its alpha) composed over the opaque ``under``."""
    a = top.alpha() / 255.0
    return QColor(round(top.red() * a + under.red() * (1 - a)), round(top.green() * a + under.green() * (1 - a)),
                  round(top.blue() * a + under.blue() * (1 - a)))


def _set_sight(window, **fields) -> None:
    enc = window.document.committed
    window.document.commit(enc.model_copy(update={"sight": enc.sight.model_copy(update=fields)}), "test sight")


def _move(window, ident: str, xy) -> None:
    window.document.commit(edits.move_tokens(window.document.committed, {ident: xy}), "test move")


@pytest.fixture
def player(window, qtbot):
    window.actions["player view"].trigger()
    p = window.player_view.player
    p.resize(960, 640)
    qtbot.waitExposed(p)
    p.set_following(False)
    p.view.fit_map()
    return p


def _layer_ids(view) -> set[str]:
    return set(view.tokens.ids)


def test_an_enemy_behind_the_warehouse_corner_is_absent_from_the_player_view_and_present_in_the_gms(window, player, qtbot):
    from engine import vision

    _move(window, "ganger-6", BEHIND_CORNER)
    enc = window.document.encounter
    assert not any(vision.token_sees(enc, r, "ganger-6") for r in ("sam", "nyx", "brick"))
    assert "ganger-1" in vision.party_view(enc).visible  # Razor at (27, 17), crouched by the sedan

    # fog off: the players are shown every token that is not hidden
    assert "ganger-6" in _layer_ids(player.view)
    _set_sight(window, fog=True)
    settle(qtbot)  # (the GM's window and the player's)
    assert "ganger-6" not in _layer_ids(player.view)
    assert "ganger-6" not in {t.id for t in player.players.encounter.tokens}
    assert {"sam", "nyx", "brick", "ganger-1"} <= _layer_ids(player.view)
    assert "ganger-6" in _layer_ids(window.map_view)  # the GM's window keeps it
    # Vex steps out past the corner (20, 12): seen again, shown again
    _move(window, "ganger-6", (22.0, 12.0))
    assert "ganger-6" in _layer_ids(player.view)
    # undo: behind the corner again, gone from the players' screen
    window.document.undo_stack.undo()
    assert "ganger-6" not in _layer_ids(player.view)


def test_the_fog_is_dark_where_never_seen_dim_where_explored_and_clear_in_sight(window, player, qtbot):
    # the same pixels with the fog off first
    before_inside = _pixel(player.view, *INSIDE_WAREHOUSE)
    before_open = _pixel(player.view, *OPEN_GROUND)
    _set_sight(window, fog=True)
    settle(qtbot)
    assert player.view.fog.shown
    assert _near(_pixel(player.view, *INSIDE_WAREHOUSE), FOG_DARK)  # never seen: dark
    assert _near(_pixel(player.view, *OPEN_GROUND), before_open)  # in sight: as without fog
    # the GM reveals a rectangle inside the warehouse: explored, out of sight: dimmed
    tool = window.sight_controls.use_fog_tool("rect", reveal=True)
    k = window.map_view.m_per_px()
    tool.press(Pointer(2.0, 2.0, m_per_px=k))
    tool.move(Pointer(6.0, 6.0, m_per_px=k))
    tool.release(Pointer(6.0, 6.0, m_per_px=k))
    settle(qtbot)
    assert _near(_pixel(player.view, *INSIDE_WAREHOUSE), _over(before_inside, FOG_DIM))
    assert _near(_pixel(player.view, 7.0, 7.0), FOG_DARK)  # outside the rectangle: still dark


def test_brush_and_rectangle_each_reveal_or_hide_in_one_undo_step(window, qtbot):
    _set_sight(window, fog=True)
    stack = window.document.undo_stack
    ctl = window.sight_controls
    k = window.map_view.m_per_px()

    def explored():
        from engine.vision import explored_geometry

        return explored_geometry(window.document.encounter)

    n = stack.count()
    rect = ctl.use_fog_tool("rect", reveal=True)
    assert isinstance(rect, FogRectTool) and window.map_view.tool is rect
    rect.press(Pointer(1.0, 1.0, m_per_px=k))
    for x in (2.0, 3.0, 5.0):
        rect.move(Pointer(x, x, m_per_px=k))
    rect.release(Pointer(5.0, 5.0, m_per_px=k))
    assert stack.count() == n + 1
    assert explored().contains(shapely.Point(3.0, 3.0)) and not explored().contains(shapely.Point(6.0, 6.0))
    assert explored().intersection(shapely.box(0, 0, 8, 8)).area == pytest.approx(16.0, abs=0.3)

    brush = ctl.use_fog_tool("brush", reveal=False)
    assert isinstance(brush, FogBrushTool)
    ctl.panel.brush_spin.setValue(1.0)
    brush.press(Pointer(1.0, 3.0, m_per_px=k))
    for x in (1.5, 2.5, 3.5, 4.5, 5.5):
        brush.move(Pointer(x, 3.0, m_per_px=k))
    brush.release(Pointer(5.5, 3.0, m_per_px=k))
    assert stack.count() == n + 2
    assert not explored().contains(shapely.Point(3.0, 3.0))  # hidden again by the stroke
    assert explored().contains(shapely.Point(3.0, 4.5))  # 1.5 m off the stroke: kept
    # 4 x 4 m revealed, less the stroke's band 2 m high across it (x 1-5 fully inside)
    assert explored().intersection(shapely.box(0, 0, 8, 8)).area == pytest.approx(16.0 - 8.0, abs=0.4)

    stack.undo()
    assert explored().contains(shapely.Point(3.0, 3.0))
    stack.undo()
    assert not explored().contains(shapely.Point(3.0, 3.0))


def test_the_drop_of_a_drag_adds_what_the_party_sees_to_explored_in_the_same_undo_step(window, qtbot):
    from engine.vision import explored_geometry, party_view

    _set_sight(window, fog=True)
    window.document.commit(window.document.committed.model_copy(update={"sight": window.document.committed.sight
                                                                        .model_copy(update={"explored": ()})}), "clean")
    stack = window.document.undo_stack
    n = stack.count()
    view = window.map_view
    tool = SelectTool(view)
    view.set_tool(tool)
    k = view.m_per_px()
    sam = window.document.encounter.token("sam")
    tool.press(Pointer(sam.x, sam.y, m_per_px=k))
    for i in range(1, 6):
        tool.move(Pointer(sam.x + i, sam.y, m_per_px=k))
    assert not window.document.committed.sight.explored  # nothing lands during the drag
    tool.release(Pointer(sam.x + 5, sam.y, m_per_px=k))
    assert stack.count() == n + 1
    enc = window.document.encounter
    assert enc.token("sam").x == pytest.approx(sam.x + 5)
    sight = party_view(enc).sight
    got = explored_geometry(enc)
    assert got.area > 100 and got.symmetric_difference(sight).area < 0.02 * sight.area
    stack.undo()
    assert not window.document.encounter.sight.explored and window.document.encounter.token("sam").x == sam.x


def test_the_key_v_toggles_the_players_fog_on_the_gms_map(window, qtbot):
    _set_sight(window, fog=True)
    ctl = window.sight_controls
    ctl.set_gm_fog(False)
    act = window.actions["gm fog"]
    assert act.shortcut().toString() == "V" and "fog" in act.text().replace("&", "").lower()
    assert act in window.menus["View"].actions()
    plain = _pixel(window.map_view, *INSIDE_WAREHOUSE)
    window.map_view.setFocus()
    QTest.keyClick(window.map_view, Qt.Key.Key_V)
    settle(qtbot, window)
    assert ctl.gm_fog and act.isChecked() and ctl.fog_layer.shown
    tinted = _pixel(window.map_view, *INSIDE_WAREHOUSE)
    assert not _near(tinted, plain, 4) and _near(tinted, _over(plain, GM_DARK))
    QTest.keyClick(window.map_view, Qt.Key.Key_V)
    settle(qtbot, window)
    assert not ctl.gm_fog and not ctl.fog_layer.shown
    assert _near(_pixel(window.map_view, *INSIDE_WAREHOUSE), plain, 4)


def test_cover_badges_in_the_player_view_ignore_a_hidden_wall(window, player, qtbot):
    """Spike (``ganger-2``, 36, 26) stands in the open from Sam (12, 20): cover none. A hidden
    3 m wall across the line between them (x 24-24.3, y 20-26; the line crosses x = 24 at
    y = 23, 3 m from either end of the wall, far more than Spike's 0.4 m) hides all of him
    from the GM's true answer; the players were never shown the wall."""
    from engine.model import Obstacle

    window.selection.select(["sam"], window.document.encounter)
    assert window.answers.targets["ganger-2"].cover.cls == "none"
    wall = Obstacle(id="secret-wall", name="Secret wall", height=3.0, hidden=True,
                    polygon=((24.0, 20.0), (24.3, 20.0), (24.3, 26.0), (24.0, 26.0)))
    window.document.commit(edits.add(window.document.committed, wall), "hidden wall")
    settle(qtbot)  # (the GM's answers and the players')
    assert window.answers.targets["ganger-2"].cover.cls == "full"  # the GM's: the true one
    assert player.player_answers.attacker == "sam"
    assert player.player_answers.targets["ganger-2"].cover.cls == "none"  # the players'
    badges = dict(zip(player.view.answer_layer._badge_ids, player.view.answer_layer._badges))
    gm_badges = dict(zip(window.map_view.answer_layer._badge_ids, window.map_view.answer_layer._badges))
    assert badges["ganger-2"][3] != gm_badges["ganger-2"][3]
    assert "secret-wall" not in {o.id for o in player.players.encounter.obstacles}
    # revealed to the players: their badge says full too
    window.document.commit(edits.apply_fields(window.document.committed, "secret-wall", {"hidden": False}), "reveal")
    assert player.player_answers.targets["ganger-2"].cover.cls == "full"


def test_the_sight_panel_sets_light_sides_fog_and_lights_one_undo_step_each(window, qtbot):
    from gui.context_menu import ground_entries

    ctl = window.sight_controls
    panel = ctl.panel
    doc = window.document
    stack = doc.undo_stack
    assert "sight" in window.docks
    n = stack.count()
    panel.fog_box.setChecked(True)
    assert doc.encounter.sight.fog and stack.count() == n + 1 and ctl.gm_fog
    # light level: for SR5 the environment's light column
    i = panel.light_combo.findData("dark")
    panel.light_combo.setCurrentIndex(i)
    panel.light_combo.activated.emit(i)
    assert doc.encounter.system.light_level(doc.encounter) == "dark" and stack.count() == n + 2
    # players' sides: the encounter's sides, runners ticked; tick the gangers too
    sides = [panel.sides_list.item(i).text() for i in range(panel.sides_list.count())]
    assert sides == ["runner", "ganger"]
    panel.sides_list.item(1).setCheckState(Qt.CheckState.Checked)
    assert set(doc.encounter.sight.player_sides) == {"runner", "ganger"} and stack.count() == n + 3
    # a light from the map's menu, edited in the panel, deleted
    labels = [e.label for e in ground_entries(window, 30.0, 35.0)]
    assert "Add a light here" in labels
    ident = ctl.add_light_at(30.0, 35.0)
    light = doc.encounter.light(ident)
    assert (light.x, light.y, light.radius, light.on) == (30.0, 35.0, 6.0, True) and stack.count() == n + 4
    assert panel.current_light() == ident and panel.lights_list.count() == 1
    panel.light_radius.setValue(9.5)
    assert doc.encounter.light(ident).radius == 9.5 and stack.count() == n + 5
    on_light = [e.label for e in ground_entries(window, 30.0, 35.0)]
    assert any(label.startswith("Turn ") and label.endswith(" off") for label in on_light)
    ctl.toggle_light(ident)
    assert not doc.encounter.light(ident).on
    ctl.delete_light(ident)
    assert not doc.encounter.lights
    stack.undo()
    assert doc.encounter.light(ident).radius == 9.5
    # reset explored: one step, nothing explored after it
    ctl.panel.reveal_radio.setChecked(True)
    from engine import vision

    doc.commit(vision.reveal(doc.committed, shapely.box(1, 1, 3, 3)), "reveal")
    m = stack.count()
    assert ctl.reset_explored() and stack.count() == m + 1 and not doc.encounter.sight.explored


def test_the_inspector_edits_a_tokens_vision_in_the_dark(window, qtbot):
    window.selection.select(["sam"], window.document.encounter)
    insp = window.inspector
    assert "vision_range" in insp.widgets
    assert insp.apply({"vision_range": 4.0})
    assert window.document.encounter.token("sam").vision_range == 4.0


def test_a_light_tool_click_places_a_light_and_a_drag_of_its_centre_moves_it(window, qtbot):
    ctl = window.sight_controls
    tool = ctl.use_light_tool()
    doc = window.document
    k = window.map_view.m_per_px()
    n = doc.undo_stack.count()
    tool.press(Pointer(30.0, 35.0, m_per_px=k))
    tool.release(Pointer(30.0, 35.0, m_per_px=k))
    assert len(doc.encounter.lights) == 1 and doc.undo_stack.count() == n + 1
    ident = doc.encounter.lights[0].id
    tool.press(Pointer(30.0, 35.0, m_per_px=k))
    for i in range(1, 5):
        tool.move(Pointer(30.0 + i, 35.0, m_per_px=k))
    tool.release(Pointer(34.0, 35.0, m_per_px=k))
    assert (doc.encounter.light(ident).x, doc.encounter.light(ident).y) == (34.0, 35.0)
    assert doc.undo_stack.count() == n + 2 and len(doc.encounter.lights) == 1
    assert ctl.light_layer._lights == doc.encounter.lights


def test_an_obstacle_drag_works_the_fog_out_when_it_rests_or_lands_not_every_step(window, qtbot):
    """Dragging a corner changes every party token's sight: during the drag the view is
    worked out at most every OBSTACLE_PREVIEW_MS, and at once when the drag lands."""
    _set_sight(window, fog=True)
    sight = window.party_sight
    doc = window.document
    n = sight.compute_count
    enc = doc.committed
    for i in range(1, 6):
        doc.preview(edits.set_vertex(enc, "car-1", 0, (21.0 - 0.2 * i, 16.0)))
    assert sight.compute_count == n  # none during the quick steps
    assert sight.encounter is doc.encounter  # (the player view still follows the edit itself)
    qtbot.waitUntil(lambda: sight.compute_count == n + 1, timeout=2000)  # once, when it rests
    doc.commit(edits.set_vertex(enc, "car-1", 0, (20.0, 16.0)), "corner")
    assert sight.compute_count >= n + 2 and sight.view is not None


def test_hiding_an_area_in_sight_by_hand_is_not_explored_again_by_the_same_edit(window):
    """The commit hook adds the party's sight to the explored area for edits of the map,
    not for the GM's own fog edits: hiding the open ground in front of Sam stays hidden
    (it shows clear anyway while in sight) until something else lands."""
    from engine import vision

    _set_sight(window, fog=True)
    doc = window.document
    doc.commit(edits.move_tokens(doc.committed, {"sam": (12.5, 20.0)}), "step")  # explores
    assert vision.explored_geometry(doc.encounter).contains(shapely.Point(*OPEN_GROUND))
    doc.commit(vision.conceal(doc.committed, shapely.Point(*OPEN_GROUND).buffer(1.0)), "hide")
    assert not vision.explored_geometry(doc.encounter).contains(shapely.Point(*OPEN_GROUND))
    doc.commit(edits.move_tokens(doc.committed, {"sam": (12.0, 20.0)}), "step back")  # explores again
    assert vision.explored_geometry(doc.encounter).contains(shapely.Point(*OPEN_GROUND))


def test_paint_fog_draws_vector_regions_into_an_svg(window, tmp_path):
    """For exports: the fog as shapes (the dark region's fill colour in the SVG, no image)."""
    from PySide6.QtCore import QRectF, QSize
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    from gui.layers.fog import paint_fog

    enc = window.document.encounter
    assert not paint_fog(QPainter(), enc)  # fog off: nothing painted
    enc = enc.model_copy(update={"sight": enc.sight.model_copy(update={"fog": True})})
    gen = QSvgGenerator()
    out = tmp_path / "fog.svg"
    gen.setFileName(str(out))
    gen.setSize(QSize(600, 400))
    gen.setViewBox(QRectF(0, 0, 600, 400))
    p = QPainter(gen)
    p.scale(10, 10)  # 10 px a metre: the 60 x 40 m demo
    assert paint_fog(p, enc)
    p.end()
    svg = out.read_text()
    assert "<image" not in svg
    assert FOG_DARK.name() in svg and "<path" in svg


def test_a_failing_sight_never_loses_the_gms_edit(window, monkeypatch):
    """If the engine cannot work the sight out (here: it raises), the move still lands as one
    undo step, the explored area is left as it was and the fog hides everything meanwhile."""
    from engine import vision

    _set_sight(window, fog=True)

    def broken(*a, **k):
        raise RuntimeError("GEOS said no")

    monkeypatch.setattr(vision, "explore", broken)
    monkeypatch.setattr(vision.SightCache, "view", broken)
    doc = window.document
    before = doc.committed.sight.explored
    n = doc.undo_stack.count()
    assert doc.commit(edits.move_tokens(doc.committed, {"sam": (13.0, 20.0)}), "move")
    assert doc.undo_stack.count() == n + 1 and doc.encounter.token("sam").x == 13.0
    assert doc.encounter.sight.explored == before
    assert window.party_sight.view is None and "GEOS said no" in window.party_sight.error


def test_when_the_sight_fails_the_player_view_shows_only_the_party_in_the_dark(window, player, qtbot, monkeypatch):
    from engine import vision

    def broken(*a, **k):
        raise RuntimeError("GEOS said no")

    monkeypatch.setattr(vision.SightCache, "view", broken)
    _set_sight(window, fog=True)
    settle(qtbot)
    assert _layer_ids(player.view) == {"sam", "nyx", "brick"}
    assert player.view.fog.shown
    # (open ground clear of the party's labels: on the players' 16:9 canvas, 0.75 of 1280 px
    # wide here, Sam's name sits above him, over OPEN_GROUND)
    assert _near(_pixel(player.view, 18.0, 13.0), FOG_DARK)
