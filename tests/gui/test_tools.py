"""Map tools driven with plain pointer values (map metres), through a real map view."""

from __future__ import annotations

import pytest

from engine.files import load_encounter
from gui.answers import LiveAnswers
from gui.document import EncounterDocument
from gui.map_view import MapView
from gui.selection import Selection
from gui.tools import PolygonTool, Pointer, RectTool, SelectTool, TokenTool, WallTool, ZoneTool, background_from_calibration

PX = 0.05  # metres per pixel in these tests


@pytest.fixture
def view(qtbot, demo_path):
    doc = EncounterDocument(load_encounter(demo_path), demo_path)
    sel = Selection()
    ans = LiveAnswers(doc, sel)
    v = MapView(doc, sel, ans)
    qtbot.addWidget(v)
    v._keep = (sel, ans)
    return v


def P(x, y, **kw):
    return Pointer(x, y, m_per_px=PX, **kw)


def test_dragging_a_token_moves_it_live_and_lands_as_one_step(view):
    doc, tool = view.document, SelectTool(view)
    tool.press(P(12.0, 20.0))  # Sam's centre
    # selected, but not the attacker: a drag moves, only a click picks the attacker (issue 13)
    assert view.selection.ids == ("sam",) and view.selection.attacker is None
    for i in range(1, 11):
        tool.move(P(12.0 + 0.3 * i, 20.0 + 0.1 * i))
        assert doc.encounter.token("sam").x == pytest.approx(12.0 + 0.3 * i)
    assert doc.undo_stack.count() == 0
    tool.release(P(15.0, 21.0))
    assert doc.undo_stack.count() == 1 and doc.undo_stack.text(0) == "Move Sam"
    assert (doc.encounter.token("sam").x, doc.encounter.token("sam").y) == pytest.approx((15.0, 21.0))
    # the token layer draws the new place
    assert view.tokens.token_at(15.0, 21.0) == "sam"


def test_snapping_puts_a_dragged_token_on_a_cell_centre(view):
    view.snapping = True
    tool = SelectTool(view)
    tool.press(P(12.0, 20.0))
    tool.move(P(13.8, 21.3))
    tool.release(P(13.8, 21.3))
    t = view.document.encounter.token("sam")
    # grid 1 m, centres at k + 0.5: 12 + 1.8 = 13.8 -> 13.5; 20 + 1.3 = 21.3 -> 21.5
    assert (t.x, t.y) == (13.5, 21.5)


def test_a_click_without_moving_selects_but_does_not_edit(view):
    tool = SelectTool(view)
    tool.press(P(27.0, 17.0))
    tool.release(P(27.0 + PX, 17.0))  # one pixel: still a click
    assert view.selection.ids == ("ganger-1",)
    assert view.document.undo_stack.count() == 0
    tool.press(P(5.0, 30.0))  # empty ground clears the selection, and the attacker
    tool.release(P(5.0, 30.0))
    assert view.selection.ids == () and view.selection.attacker is None
    view.selection.attacker_locked = True  # a locked attacker stays
    tool.press(P(12.0, 20.0))
    tool.release(P(12.0, 20.0))
    assert view.selection.attacker is None  # locked on nobody: Sam is selected, not the attacker
    view.selection.attacker_locked = False
    tool.press(P(12.0, 20.0))
    tool.release(P(12.0, 20.0))
    view.selection.attacker_locked = True
    tool.press(P(5.0, 30.0))
    tool.release(P(5.0, 30.0))
    assert view.selection.ids == () and view.selection.attacker == "sam"


def test_dragging_a_vertex_of_the_selected_obstacle(view):
    doc, tool = view.document, SelectTool(view)
    tool.press(P(23.0, 17.0))  # inside the sedan: selects it
    tool.release(P(23.0, 17.0))
    assert view.selection.ids == ("car-1",)
    tool.press(P(21.0 + 2 * PX, 16.0))  # two pixels from its corner (21, 16)
    tool.move(P(20.0, 15.0))
    tool.release(P(20.0, 15.0))
    assert doc.encounter.obstacle("car-1").polygon[0] == (20.0, 15.0)
    assert doc.undo_stack.text(doc.undo_stack.count() - 1) == "Move a corner of Sedan"
    # a move that would make the outline cross itself is refused (the last valid one stays)
    tool.press(P(20.0, 15.0))
    tool.move(P(21.0, 19.0))
    tool.release(P(21.0, 19.0))
    assert doc.encounter.obstacle("car-1").polygon[0] == (20.0, 15.0)


def test_polygon_tool_closes_on_the_first_corner(view):
    doc = view.document
    view.new_obstacle_height = 1.1
    tool = PolygonTool(view)
    for x, y in ((40.0, 30.0), (44.0, 30.0), (44.0, 33.0)):
        tool.release(P(x, y))
    assert len(doc.encounter.obstacles) == 10  # not yet
    tool.release(P(40.0 + 3 * PX, 30.0 - 2 * PX))  # near the first corner: closes
    assert len(doc.encounter.obstacles) == 11
    o = doc.encounter.obstacles[-1]
    assert o.polygon == ((40.0, 30.0), (44.0, 30.0), (44.0, 33.0)) and o.height == 1.1
    assert view.selection.ids == (o.id,)
    assert doc.undo_stack.count() == 1


def test_rectangle_and_wall_tools(view):
    doc = view.document
    rt = RectTool(view)
    rt.press(P(50.0, 30.0))
    rt.move(P(52.0, 31.0))
    rt.release(P(53.0, 32.5))
    o = doc.encounter.obstacles[-1]
    assert o.polygon == ((50.0, 30.0), (53.0, 30.0), (53.0, 32.5), (50.0, 32.5))
    view.wall_thickness = 0.4
    wt = WallTool(view)
    wt.release(P(30.0, 35.0))
    wt.release(P(36.0, 35.0))
    wt.finish()
    w = doc.encounter.obstacles[-1]
    assert w.id.startswith("wall") and sorted({p[1] for p in w.polygon}) == [34.8, 35.2]
    assert doc.undo_stack.count() == 2


def test_the_wall_tool_draws_full_height_walls_by_default(view):
    """Issue 30 item 8: a wall is usually full height, not 1 m of low cover: the Wall tool's
    default stands above a standing body, so it hides one whole; polygons and rectangles
    (crates, cars) keep their low default, and each height follows its own setting."""
    from engine.obstacles import WALL_HEIGHT
    from geometry.bodies import body_height

    assert view.new_wall_height == WALL_HEIGHT >= 3.0 > body_height("standing")
    assert view.new_obstacle_height == 1.0
    doc = view.document
    wt = WallTool(view)
    wt.release(P(30.0, 35.0))
    wt.release(P(36.0, 35.0))
    wt.finish()
    assert doc.encounter.obstacles[-1].height == WALL_HEIGHT
    view.new_wall_height = 2.5
    wt = WallTool(view)
    wt.release(P(30.0, 38.0))
    wt.release(P(36.0, 38.0))
    wt.finish()
    assert doc.encounter.obstacles[-1].height == 2.5
    rt = RectTool(view)
    rt.press(P(50.0, 30.0))
    rt.release(P(53.0, 32.5))
    assert doc.encounter.obstacles[-1].height == 1.0


def test_the_options_bar_shows_and_sets_the_wall_height(window):
    from engine.obstacles import WALL_HEIGHT

    assert window.wall_height_spin.value() == WALL_HEIGHT == window.map_view.new_wall_height
    window.wall_height_spin.setValue(4.0)
    assert window.map_view.new_wall_height == 4.0
    assert window.map_view.new_obstacle_height == window.height_spin.value() == 1.0


def test_too_few_points_are_refused_with_each_tools_own_message(view):
    said = []
    view.statusMessage.connect(said.append)
    for cls, points, words in ((PolygonTool, 2, "at least three corners"), (WallTool, 1, "at least two points")):
        tool = cls(view)
        for i in range(points):
            tool.release(P(30.0 + 3 * i, 35.0))
        tool.finish()
        assert words in said[-1] and tool.points  # kept: the GM may go on clicking
    assert len(view.document.encounter.obstacles) == 10 and view.document.undo_stack.count() == 0


def test_token_tool_adds_a_token_of_the_chosen_side(view):
    view.new_token_side = "security"
    TokenTool(view).release(P(30.2, 10.7))
    t = view.document.encounter.tokens[-1]
    assert (t.x, t.y, t.side) == (30.2, 10.7, "security")
    assert view.selection.ids == (t.id,)


def test_zone_tool_drags_a_suppressive_zone_from_its_shooter(view):
    doc = view.document
    tool = ZoneTool(view, "suppressive")
    tool.press(P(40.0, 35.0))  # not on a token: refused
    assert len(doc.encounter.zones) == 2
    tool.press(P(16.0, 30.0))  # Brick
    tool.move(P(22.0, 30.0))
    tool.move(P(36.0, 30.0))  # 20 m east of Brick
    assert doc.undo_stack.count() == 0
    tool.release(P(36.0, 30.0))
    z = doc.encounter.zones[-1]
    assert (z.kind, z.owner, z.length, z.direction) == ("suppressive", "brick", 20.0, 0.0)
    assert doc.undo_stack.count() == 1


def test_escape_drops_a_drawing_in_progress(view):
    tool = PolygonTool(view)
    tool.release(P(40.0, 30.0))
    tool.release(P(44.0, 30.0))
    tool.cancel()
    assert tool.points == [] and view.document.undo_stack.count() == 0


def test_background_calibration_keeps_the_first_point_and_scales():
    from engine.model import Background

    bg = Background(image="x.png", x=0.0, y=0.0, width=60.0, height=40.0)
    # two clicks 10 m apart on the image as placed; they are really 15 m apart: 1.5x
    out = background_from_calibration(bg, (10.0, 10.0), (20.0, 10.0), 15.0)
    assert (out.width, out.height) == pytest.approx((90.0, 60.0))
    # the first point stays at (10, 10): x' = 10 - (10 - 0) * 1.5 = -5
    assert (out.x, out.y) == pytest.approx((-5.0, -5.0))


def test_a_zone_is_picked_by_its_area_and_aimed_by_its_handle(view):
    import math

    doc, tool = view.document, SelectTool(view)
    # Sam's suppressive fire: apex at Sam (12, 20), 30 m east, 10 m wide at the far end
    tool.press(P(30.0, 20.0))
    tool.release(P(30.0, 20.0))
    assert view.selection.ids == ("sup-1",)
    # its aim handle sits at the far end (42, 20); drag it to (42, 30)
    tool.press(P(42.0 + 3 * PX, 20.0))
    tool.move(P(42.0, 25.0))
    tool.move(P(42.0, 30.0))
    tool.release(P(42.0, 30.0))
    z = doc.encounter.zone("sup-1")
    assert z.length == pytest.approx(math.hypot(30, 10), abs=0.01)  # 31.62 m
    assert z.direction == pytest.approx(math.degrees(math.atan2(10, 30)), abs=0.01)  # 18.43 deg
    assert doc.undo_stack.count() == 1 and doc.undo_stack.text(0) == "Adjust Sam's suppressive fire"


def test_grid_thins_out_and_scale_bar_picks_round_lengths(view):
    g = view.ground
    # grid 1 m, lines at least 9 px apart: 1 m at 20 px/m, 2 m at 5 px/m, 5 m at 2 px/m, 10 m at 1 px/m
    assert [g.grid_step(p) for p in (20.0, 5.0, 2.0, 1.0, 0.5)] == [1.0, 2.0, 5.0, 10.0, 20.0]
    view.resize(1000, 700)
    view.fit_map()
    m = view.scale_bar_metres()
    assert m in (1, 2, 5, 10, 20, 50) and 180 >= m / view.m_per_px() > 70
    before = view.m_per_px()
    view.zoom_by(0.5)  # zoom in: half as many metres per pixel
    assert view.m_per_px() == pytest.approx(before / 2, rel=1e-3)
    view.fit_map()
    assert view.m_per_px() == pytest.approx(before, rel=1e-3)


def test_the_grid_draws_only_the_lines_in_view_on_a_huge_map(qtbot):
    """A 100 km map with the 1 m grid, zoomed in to 20 px/m in an 800 x 600 view: 40 m x
    30 m show, so about 41 + 31 lines, not the 2 x 99,999 of the whole map."""
    from PySide6.QtGui import QColor, QImage, QPainter, QTransform

    from gui import style
    from gui.layers import GroundLayer
    from gui.style import ViewOptions

    g = GroundLayer(ViewOptions())
    g.set_map(100_000.0, 100_000.0, 1.0)
    img = QImage(800, 600, QImage.Format.Format_ARGB32)
    img.fill(QColor("black"))
    p = QPainter(img)
    p.setTransform(QTransform().scale(20.0, 20.0).translate(-50_000.25, -50_000.25))
    g.paint(p)
    p.end()
    assert 0 < g.grid_lines <= 41 + 31 + 2
    # a line at x = 50,001 m lands at (50,001 - 50,000.25) * 20 = 15 px: the ground lightened
    # by the translucent white grid there; 10 px left of it, the plain ground
    line, ground = img.pixelColor(15, 300), img.pixelColor(5, 301)
    assert ground.name() == style.MAP_GROUND.name()
    assert line.red() > ground.red() and line.green() > ground.green()
