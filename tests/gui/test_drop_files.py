"""Drag and drop onto the window (issue 13 item 7): an encounter opens, a Universal VTT map
or a Chummer save is imported, a picture becomes the background or the art of the token it
lands on; a bad file gives a message and keeps the encounter. Real drop events on the map."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from gui.drop import kind_of_file, what_is
from tests.gui.test_importing import write_little_map
from tests.gui.test_token_art import MAGENTA, png_bytes


@pytest.fixture
def warnings(monkeypatch):
    seen: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a, **k: seen.append((title, text))))
    return seen


def drop(window, paths, x: float, y: float) -> bool:
    """Drag ``paths`` onto the map and drop them at map point (x, y): real events."""
    view = window.map_view
    vp = view.viewport()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPointF(view.map_to_viewport(x, y))
    enter = QDragEnterEvent(pos.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(vp, enter)
    assert enter.isAccepted()
    ev = QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(vp, ev)
    return ev.isAccepted()


def test_kinds_by_name_and_content(tmp_path):
    scene = tmp_path / "scene.json"
    scene.write_text('{"name": "Dock", "walls": [], "img": "dock.webp"}')
    enc = tmp_path / "fight.json"
    enc.write_text('{"version": 2, "map": {"width": 10, "height": 10}, "tokens": []}')
    assert [kind_of_file(Path(n)) for n in ("a.dd2vtt", "a.UVTT", "a.df2vtt", "b.chum5", "b.chum5lz", "c.PNG",
                                             "c.jpeg", "d.txt")] == ["map", "map", "map", "character", "character",
                                                                     "image", "image", None]
    assert kind_of_file(enc) == "encounter"
    # a walls-only export is said to be one (the encounter loader would only say "no format")
    kind, what = what_is(scene)
    assert kind is None and "walls-only file" in what
    # by content, whatever the name: a map saved as .json, a Chummer save as .xml, a PNG as .dat
    uvtt = tmp_path / "map.json"
    uvtt.write_text('{"format": 0.3, "resolution": {"map_size": {"x": 4, "y": 4}}, "line_of_sight": []}')
    chum = tmp_path / "wesson.xml"
    chum.write_text('<?xml version="1.0"?><character><name>W</name></character>')
    pic = tmp_path / "street.dat"
    pic.write_bytes(png_bytes(MAGENTA))
    assert [kind_of_file(p) for p in (uvtt, chum, pic)] == ["map", "character", "image"]


def test_a_fifo_dropped_is_refused_at_once(window, warnings, tmp_path):
    import os

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)  # opening it to look inside would block the window for good
    before = window.document.encounter
    drop(window, [fifo], 30.0, 36.0)
    assert window.document.encounter is before
    assert len(warnings) == 1 and "pipe.json: this is not a regular file" in warnings[0][1]


def test_an_encounter_dropped_opens(window, warnings):
    from assets import ENCOUNTERS

    assert drop(window, [ENCOUNTERS / "demo-d100.json"], 30.0, 36.0)
    assert window.document.path == ENCOUNTERS / "demo-d100.json"
    assert window.document.encounter.ruleset == "d100" and warnings == []


def test_a_broken_encounter_gives_a_message_and_keeps_the_open_one(window, warnings, tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{"version": 2, "map": {"width": -5}')
    before = window.document.encounter
    drop(window, [bad], 30.0, 36.0)
    assert window.document.encounter is before
    assert len(warnings) == 1 and "broken.json" in warnings[0][1] and "unchanged" in warnings[0][1]


def test_a_file_of_another_kind_is_named(window, warnings, tmp_path):
    txt = tmp_path / "notes.txt"
    txt.write_text("hello")
    before = window.document.encounter
    drop(window, [txt], 30.0, 36.0)
    assert window.document.encounter is before
    assert warnings and "notes.txt" in warnings[0][1] and "Universal VTT map" in warnings[0][1]


def test_a_uvtt_map_dropped_is_imported(window, warnings, tmp_path):
    path = write_little_map(tmp_path)
    drop(window, [path], 30.0, 36.0)
    enc = window.document.encounter
    assert warnings == []
    assert enc.map.width == pytest.approx(10 * window.importing.cell_size())  # 10 cells
    assert window.document.path is None and window.document.dirty
    assert any(o.door for o in enc.obstacles)


def test_a_chummer_save_dropped_adds_the_character_where_it_fell(window, warnings, samples_dir):
    n = len(window.document.encounter.tokens)
    drop(window, [samples_dir / "chummer" / "Wesson.chum5"], 30.0, 36.0)
    enc = window.document.encounter
    assert warnings == [] and len(enc.tokens) == n + 1
    t = enc.tokens[-1]
    assert t.name and (t.x, t.y) == pytest.approx((30.0, 36.0), abs=1.0)


def test_a_picture_on_a_token_becomes_its_art(window, warnings, tmp_path, qtbot):
    pic = tmp_path / "spike.png"
    pic.write_bytes(png_bytes(MAGENTA))
    drop(window, [pic], 36.0, 26.0)  # Spike
    t = window.document.encounter.token("ganger-2")
    assert t.portrait and Path(t.portrait).name == "spike.png"
    assert window.document.undo_stack.text(window.document.undo_stack.count() - 1) == "Picture for Spike"
    qtbot.waitUntil(lambda: set(window.map_view.tokens.portraits) == {"ganger-2"})
    assert window.map_view.background_problem is None and window.document.encounter.map.background is None


def test_a_picture_on_the_ground_becomes_the_background(window, warnings, tmp_path):
    pic = tmp_path / "street.png"
    pic.write_bytes(png_bytes(MAGENTA, 120))
    drop(window, [pic], 30.0, 36.0)
    bg = window.document.encounter.map.background
    assert bg is not None and Path(bg.image).name == "street.png"
    assert bg.width == pytest.approx(60.0) and bg.height == pytest.approx(60.0)  # as wide as the map, square
    assert all(t.portrait is None for t in window.document.encounter.tokens)


def test_a_broken_picture_on_a_token_changes_nothing(window, warnings, tmp_path):
    pic = tmp_path / "fake.png"
    pic.write_text("not a picture")
    before = window.document.encounter
    drop(window, [pic], 36.0, 26.0)
    assert window.document.encounter is before
    assert warnings and "fake.png" in warnings[0][1] and "unchanged" in warnings[0][1]


def test_save_as_elsewhere_keeps_a_relative_portrait_reachable(window, tmp_path):
    from engine.files import load_encounter

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "spike.png").write_bytes(png_bytes())
    window.save_as(a / "fight.json")
    window.drops.set_portrait("ganger-2", a / "spike.png")
    assert window.document.encounter.token("ganger-2").portrait == "spike.png"
    window.save_as(b / "moved.json")
    ref = load_encounter(b / "moved.json").token("ganger-2").portrait
    assert ref == "../a/spike.png" and (b / ref).resolve() == (a / "spike.png").resolve()
