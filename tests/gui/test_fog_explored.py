"""What the players saw is explored (issue 26 item 1), through the real main window offscreen.

The map (40 x 20 m, everything 3 m tall, so taller than a standing body: each obstacle
hides its whole shadow from eyes 1.6 m up): a long wall at x 20..20.2 from y = 0 to 14
(a 6 m gap at the south, y 14..20) and a crate at x 4..6, y 8..10. One runner (the
players' side) starts at (10, 5) and is dragged (10, 5) -> (10, 11) -> (10, 17) ->
(20, 17) -> (30, 17) -> (30, 5). Hand-derived sight lines:

* (5, 5), west of the wall: in sight from the start (open ground between); from the end
  (30, 5) the line runs along y = 5 and meets the wall (y 0..14): hidden.
* (2, 12): from the start the line (10, 5) -> (2, 12) is at x = 6 when t = 0.5, y = 8.5,
  inside the crate (y 8..10): hidden; from (10, 17) it crosses x 4..6 at y 13.25..14.5,
  clear of the crate (y 8..10): in sight; from the end (30, 5) it meets x = 20.1 at
  y = 5 + 7 * 9.9 / 28 = 7.5, inside the wall (y < 14): hidden. Only a drag step saw it.
* (35, 10): east of the wall, open ground from the end: in sight there.
"""

from __future__ import annotations

import pytest
import shapely
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from engine import vision
from engine.files import load_encounter, save_encounter
from engine.model import Encounter, MapSpec, Obstacle, Sight, Token
from gui.tools import Pointer, SelectTool

START, PATH = (10.0, 5.0), [(10.0, 11.0), (10.0, 17.0), (20.0, 17.0), (30.0, 17.0), (30.0, 5.0)]
OPENING_ONLY, STEP_ONLY, END = (5.0, 5.0), (2.0, 12.0), (35.0, 10.0)


def _box(ident, x0, y0, x1, y1):
    return Obstacle(id=ident, height=3.0, polygon=((x0, y0), (x1, y0), (x1, y1), (x0, y1)))


def _encounter(fog: bool) -> Encounter:
    return Encounter(ruleset="d100", map=MapSpec(width=40, height=20),
                     obstacles=(_box("wall", 20, 0, 20.2, 14), _box("crate", 4, 8, 6, 10)),
                     tokens=(Token(id="sam", x=START[0], y=START[1], side="runner"),),
                     sight=Sight(fog=fog))


@pytest.fixture
def open_window(qtbot, tmp_path, monkeypatch):
    from gui.main_window import MainWindow

    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard))
    windows = []

    def make(path):
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        win = MainWindow(load_encounter(path), path, settings=settings, autosave_folder=tmp_path / "autosave",
                         autosave_interval_ms=10_000_000)
        qtbot.addWidget(win)
        win.resize(1200, 800)
        win.show()
        qtbot.waitExposed(win)
        win.map_view.fit_map()
        windows.append(win)
        return win

    return make


def _explored(enc) -> shapely.Geometry:
    return vision.explored_geometry(enc)


def _has(geom, xy) -> bool:
    return bool(shapely.contains_xy(geom, *xy))


def _drag(win) -> None:
    view = win.map_view
    tool = SelectTool(view)
    view.set_tool(tool)
    k = view.m_per_px()
    tool.press(Pointer(*START, m_per_px=k))
    for xy in PATH:
        tool.move(Pointer(*xy, m_per_px=k))
    tool.release(Pointer(*PATH[-1], m_per_px=k))


def test_the_sight_lines_of_the_layout():
    # the engine agrees with the sketch above (so the window checks rest on more than it)
    enc = _encounter(True)
    at = lambda xy: vision.SightCache().view(enc.model_copy(update={"tokens": (enc.tokens[0].model_copy(  # noqa: E731
        update={"x": xy[0], "y": xy[1]}),)})).sight
    assert _has(at(START), OPENING_ONLY) and not _has(at(START), STEP_ONLY)
    assert _has(at((10.0, 17.0)), STEP_ONLY)
    assert not _has(at(PATH[-1]), OPENING_ONLY) and not _has(at(PATH[-1]), STEP_ONLY) and _has(at(PATH[-1]), END)


def test_what_they_saw_at_opening_and_on_the_way_is_explored_and_saved(open_window, tmp_path):
    path = tmp_path / "fight.json"
    save_encounter(_encounter(fog=True), path)  # nothing explored in the file
    win = open_window(path)
    doc = win.document
    assert not doc.encounter.sight.explored and not doc.dirty  # opening changes nothing by itself
    shown = win.party_sight.view.explored  # what the players are shown: the sight now
    assert _has(shown, OPENING_ONLY) and not _has(shown, STEP_ONLY)
    n = doc.undo_stack.count()
    _drag(win)
    assert doc.undo_stack.count() == n + 1  # the move and the explored area: one undo step
    enc = doc.encounter
    assert (enc.token("sam").x, enc.token("sam").y) == PATH[-1]
    got = _explored(enc)
    assert _has(got, OPENING_ONLY)  # seen before the first move: dimmed, not black
    assert _has(got, STEP_ONLY)  # seen only from a step of the drag
    assert _has(got, END)
    assert _has(win.party_sight.view.explored, OPENING_ONLY)  # the players' fog: explored there
    assert win.save()
    again = load_encounter(path)
    assert _has(_explored(again), OPENING_ONLY) and _has(_explored(again), STEP_ONLY)
    assert _has(vision.SightCache().view(again).explored, OPENING_ONLY)
    doc.undo_stack.undo()  # undo takes the move and what it explored back together
    assert doc.encounter.token("sam").x == START[0] and not doc.encounter.sight.explored


def test_switching_the_fog_on_explores_what_the_party_sees_then(open_window, tmp_path):
    path = tmp_path / "fight.json"
    save_encounter(_encounter(fog=False), path)
    win = open_window(path)
    doc = win.document
    n = doc.undo_stack.count()
    win.sight_controls.panel.fog_box.setChecked(True)  # the Sight panel's box
    assert doc.undo_stack.count() == n + 1 and doc.encounter.sight.fog
    got = _explored(doc.encounter)
    assert _has(got, OPENING_ONLY) and not _has(got, STEP_ONLY)  # explored in the same undo step
    _drag(win)
    got = _explored(doc.encounter)
    assert _has(got, OPENING_ONLY) and _has(got, STEP_ONLY) and _has(got, END)
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert not doc.encounter.sight.fog and not doc.encounter.sight.explored


def test_a_long_drag_keeps_the_view_before_it_first(open_window, tmp_path, monkeypatch):
    # With room for one place only (PartySight.MAX_SHOWN = 1) the one kept is the view
    # before the drag began (here: on opening the file), so (5, 5) is still explored.
    from gui.party_sight import PartySight

    monkeypatch.setattr(PartySight, "MAX_SHOWN", 1)
    path = tmp_path / "fight.json"
    save_encounter(_encounter(fog=True), path)
    win = open_window(path)
    _drag(win)
    got = _explored(win.document.encounter)
    assert _has(got, OPENING_ONLY) and _has(got, END)
