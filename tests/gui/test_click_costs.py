"""What a click costs on a big map is not made again when it need not be: the picker keeps
the obstacles' part while the obstacles are the same values and reuses the footprints an
edit did not touch; the inspector keeps one page of fields per kind of object. Each is
checked for giving the same answers as a fresh build."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QApplication

from gui import edits
from gui.tools import Picker
from tests.gui.conftest import mouse_click


def _same_hits(a: Picker, b: Picker, enc) -> None:
    rng = np.random.default_rng(7)
    pts = rng.uniform(0.0, [enc.map.width, enc.map.height], size=(300, 2))
    assert [a.obstacle_at(x, y) for x, y in pts] == [b.obstacle_at(x, y) for x, y in pts]
    assert [a.obstacle_at(x, y, 0.5) for x, y in pts] == [b.obstacle_at(x, y, 0.5) for x, y in pts]
    assert [a.token_at(x, y, 0.3) for x, y in pts] == [b.token_at(x, y, 0.3) for x, y in pts]


def test_a_token_move_keeps_the_pickers_obstacles_and_an_edit_reuses_the_rest(window):
    view, doc = window.map_view, window.document
    first = view.picker()
    enc = doc.encounter
    sam = enc.token("sam")
    doc.commit(edits.replace(enc, sam.model_copy(update={"x": 13.0})), "Move Sam")
    moved = view.picker()
    assert moved is not first
    assert moved._tree is first._tree  # (the obstacles are the same values)
    assert moved.token_at(13.0, 20.0) == "sam" and moved.token_at(12.0 - 0.45, 20.0) is None
    # a wall drawn across the street: found, and every old obstacle still found
    enc = doc.encounter
    wall = edits.new_obstacle(enc, [(28.0, 10.0), (29.0, 10.0), (29.0, 14.0), (28.0, 14.0)], height=2.5)
    doc.commit(enc.model_copy(update={"obstacles": enc.obstacles + (wall,)}), "Draw wall")
    after = view.picker()
    assert after._tree is not first._tree
    # the untouched obstacles' footprints are the very objects of before
    assert all(a is b for a, b in zip(after._obs[:-1], first._obs))
    assert after.obstacle_at(28.5, 12.0) == wall.id
    assert after.obstacle_at(10.0, 4.0) == "building-1"
    _same_hits(after, Picker(doc.encounter, doc.tactics, view.options.shows), doc.encounter)
    # and undone: the wall is gone from the picker
    doc.undo_stack.undo()
    back = view.picker()
    assert back.obstacle_at(28.5, 12.0) is None
    _same_hits(back, Picker(doc.encounter, None, view.options.shows), doc.encounter)


def test_a_corner_moved_is_found_where_it_now_is(window):
    view, doc = window.map_view, window.document
    view.picker()
    enc = doc.encounter
    # the dumpster's corner (21, 11) pulled out to (23, 13)
    doc.commit(edits.set_vertex(enc, "dumpster-1", 2, (23.0, 13.0)), "Move a corner")
    p = view.picker()
    assert p.obstacle_at(22.0, 11.9) == "dumpster-1"
    _same_hits(p, Picker(doc.encounter, None, view.options.shows), doc.encounter)


def test_the_inspector_keeps_a_page_per_kind_and_shows_each_objects_values(window, qtbot):
    ins = window.inspector
    mouse_click(window.map_view, 12.0, 20.0)  # Sam
    assert ins.target() == ("token", "sam")
    name = ins.widgets["name"]
    assert name.text() == "Sam"
    mouse_click(window.map_view, 10.0, 4.0)  # the warehouse
    assert ins.target() == ("obstacle", "building-1")
    assert ins.widgets["name"] is not name and ins.widgets["name"].text() == "Warehouse corner"
    assert ins.widgets["height"].text() == "8"
    mouse_click(window.map_view, 10.5, 23.5)  # Nyx: the token page again, with her values
    assert ins.target() == ("token", "nyx")
    assert ins.widgets["name"] is name and name.text() == "Nyx"
    assert ins.scroll.widget().isAncestorOf(name)


def test_a_name_being_typed_goes_to_the_object_it_was_typed_for(window, qtbot):
    ins = window.inspector
    window.selection.select(["sam"], window.document.encounter)
    window.docks["inspector"].raise_()
    # (the inspector on screen, showing Sam's page)
    qtbot.waitUntil(lambda: ins.target() == ("token", "sam") and ins.widgets["name"].isVisible()
                    and ins.widgets["name"].text() == "Sam", timeout=5000)
    name = ins.widgets["name"]
    name.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is name, timeout=2000)
    name.setText("Sammy")
    window.selection.select(["building-1"], window.document.encounter)
    enc = window.document.encounter
    assert enc.token("sam").name == "Sammy"
    assert enc.obstacle("building-1").name == "Warehouse corner"
    assert ins.widgets["name"].text() == "Warehouse corner"
