"""The main window's files, title, undo/redo and inspector, driven like a user would."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from engine.files import load_encounter, save_encounter
from tests.gui.conftest import mouse_drag


def test_title_marks_unsaved_work_and_undo_redo_work_from_the_edit_menu(window):
    v = window.map_view
    assert not window.isWindowModified()
    assert "demo.json" in window.windowTitle() and "Coverfire" in window.windowTitle()
    start = window.document.encounter.token("sam")
    mouse_drag(v, (12.0, 20.0), (16.0, 20.0))
    moved = window.document.encounter.token("sam")
    assert moved.x == pytest.approx(16.0, abs=0.1) and window.document.undo_stack.count() == 1
    assert window.isWindowModified()
    window.actions["undo"].trigger()
    assert window.document.encounter.token("sam") == start and not window.isWindowModified()
    window.actions["redo"].trigger()
    assert window.document.encounter.token("sam") == moved
    # and the standard shortcuts
    QTest.keyClick(v, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.document.encounter.token("sam") == start
    QTest.keyClick(v, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.document.encounter.token("sam") == moved


def test_save_as_then_reload_gives_the_same_encounter(window, tmp_path):
    mouse_drag(window.map_view, (12.0, 20.0), (14.0, 25.0))
    out = tmp_path / "ambush.json"
    assert window.save_as(out)
    assert not window.isWindowModified() and window.document.path == out
    assert load_encounter(out) == window.document.encounter
    assert window.recent_files()[0] == str(out.resolve())
    window.document.commit(window.document.encounter.model_copy(update={"name": "changed"}), "rename")
    assert window.open_file(out)  # unsaved change discarded (the fixture answers Discard)
    assert window.document.encounter == load_encounter(out)


def test_the_bundled_demo_is_never_overwritten_by_save(window, tmp_path, monkeypatch, demo_path):
    before = demo_path.read_bytes()
    target = tmp_path / "mine.coverfire.json"
    from PySide6.QtWidgets import QFileDialog

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    mouse_drag(window.map_view, (12.0, 20.0), (14.0, 20.0))
    assert window.save()
    assert demo_path.read_bytes() == before and target.exists()


@pytest.mark.parametrize("name", ["demo-d100.json", "demo-static-veil.json"])
def test_no_bundled_encounter_is_overwritten_by_save(window, tmp_path, monkeypatch, name):
    from PySide6.QtWidgets import QFileDialog

    from assets import ENCOUNTERS

    bundled = ENCOUNTERS / name
    before = bundled.read_bytes()
    target = tmp_path / "mine.coverfire.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    assert window.open_file(bundled, ask=False)
    enc = window.document.encounter
    window.document.commit(enc.model_copy(update={"name": "my copy"}), "rename")
    assert window.save()
    assert bundled.read_bytes() == before
    assert load_encounter(target).name == "my copy" and window.document.path == target


def test_a_broken_file_shows_a_clear_message_and_nothing_is_lost(window, tmp_path, monkeypatch):
    mouse_drag(window.map_view, (12.0, 20.0), (18.0, 20.0))
    before = window.document.encounter
    stack = window.document.undo_stack.count()
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append((title, text))))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: pytest.fail("must not ask: nothing opened")))
    bad = tmp_path / "broken.json"
    data = json.loads((window.document.path).read_text(encoding="utf-8"))
    data["tokens"][0]["x"] = "twelve"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert not window.open_file(bad, ask=False)
    assert len(shown) == 1
    title, text = shown[0]
    assert "Cannot open" in title
    assert "broken.json" in text and "$.tokens[0].x" in text and "unchanged" in text
    assert window.document.encounter is before and window.document.undo_stack.count() == stack
    assert window.isWindowModified()
    # malformed JSON too
    bad.write_text("{ not json", encoding="utf-8")
    assert not window.open_file(bad, ask=False)
    assert "malformed JSON" in shown[-1][1]
    assert window.document.encounter is before
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard))


def test_closing_with_unsaved_work_asks_and_cancel_keeps_the_window(window, monkeypatch):
    mouse_drag(window.map_view, (12.0, 20.0), (18.0, 20.0))
    asked = []

    def cancel(*a, **k):
        asked.append(a[2] if len(a) > 2 else "")
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", staticmethod(cancel))
    assert not window.close()
    assert asked and "Save the changes" in asked[0]
    assert window.isVisible()


def test_inspector_edits_land_as_undo_steps_and_refusals_show_inline(window, qtbot):
    sel = window.selection
    sel.select(["car-1"], window.document.encounter)
    insp = window.inspector
    height = insp.widgets["height"]
    height.setText("2.5")
    height.editingFinished.emit()
    assert window.document.encounter.obstacle("car-1").height == 2.5
    assert insp.error is None
    height.setText("-3")
    height.editingFinished.emit()
    assert window.document.encounter.obstacle("car-1").height == 2.5  # refused
    assert insp.error and "$.height" in insp.error and insp.error_label.isVisibleTo(insp)
    # a token: stance through its combo box, id rename follows into the selection
    sel.select(["nyx"], window.document.encounter)
    combo = insp.widgets["stance"]
    combo.activated.emit(combo.findText("prone"))
    assert window.document.encounter.token("nyx").stance == "prone"
    ident = insp.widgets["id"]
    ident.setText("nyx-2")
    ident.editingFinished.emit()
    assert window.document.encounter.token("nyx-2").name == "Nyx"
    assert window.document.encounter.zone("spread-1").owner == "nyx-2"
    assert sel.ids == ("nyx-2",)
    n = window.document.undo_stack.count()
    window.actions["undo"].trigger()
    assert window.document.undo_stack.index() == n - 1
    assert window.document.encounter.token("nyx").stance == "prone"


def test_inspector_json_editor_changes_any_field_and_names_bad_ones(window):
    window.selection.select(["ganger-2"], window.document.encounter)
    insp = window.inspector
    insp.json_box.setChecked(True)
    data = json.loads(insp.json_edit.toPlainText())
    assert data["id"] == "ganger-2"
    data["weapons"][0]["loaded"] = 3
    data["notes"] = "wounded"
    insp.json_edit.setPlainText(json.dumps(data))
    insp.json_apply.click()
    t = window.document.encounter.token("ganger-2")
    assert t.notes == "wounded" and t.weapons[0].loaded == 3
    data["stance"] = "kneeling"
    insp.json_edit.setPlainText(json.dumps(data))
    insp.json_apply.click()
    assert insp.error and "$.stance" in insp.error
    assert window.document.encounter.token("ganger-2").stance == "standing"
    insp.json_edit.setPlainText('{"id": "ganger-2", "notes": ' + "[" * 5_000 + "]" * 5_000 + "}")
    insp.json_apply.click()  # nested past the parser's recursion limit: a message, no traceback
    assert insp.error.startswith("not valid JSON") and "nested too deeply" in insp.error


def test_delete_and_duplicate_from_the_edit_menu(window):
    window.selection.select(["sam"], window.document.encounter)
    window.actions["duplicate"].trigger()
    assert window.document.encounter.token("sam-1").x == 13.0
    assert window.selection.ids == ("sam-1",)
    window.actions["delete"].trigger()
    assert "sam-1" not in {t.id for t in window.document.encounter.tokens}
    window.selection.select(["sam"], window.document.encounter)
    window.actions["delete"].trigger()
    assert "sup-1" not in {z.id for z in window.document.encounter.zones}
    window.actions["undo"].trigger()
    assert window.document.encounter.zone("sup-1").owner == "sam"


def test_recovery_after_a_crash_is_offered_and_restores_the_work(window, tmp_path, monkeypatch, demo_path,
                                                                 dead_pid):
    from engine.files import encounter_to_data

    enc = load_encounter(demo_path)
    moved = enc.model_copy(update={"name": "Crashed session"})
    dead = dead_pid
    folder = window.autosaver.folder
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "autosave-1-dead.json").write_text(json.dumps({
        "format": "coverfire.autosave", "pid": dead, "saved": 0, "source": str(tmp_path / "fight.json"),
        "encounter": encounter_to_data(moved)}), encoding="utf-8")
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        staticmethod(lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Yes))
    assert window.offer_recovery()
    assert "Crashed session" in asked[0]
    assert window.document.encounter.name == "Crashed session"
    assert window.document.path == tmp_path / "fight.json" and window.isWindowModified()
    assert not (folder / "autosave-1-dead.json").exists()


def test_background_image_placed_and_scaled_by_two_points(window, tmp_path):
    from PySide6.QtGui import QColor, QImage

    img = QImage(600, 400, QImage.Format.Format_RGB32)
    img.fill(QColor("#406040"))
    path = tmp_path / "map.png"
    img.save(str(path))
    out = tmp_path / "with-bg.json"
    save_encounter(window.document.encounter, out)
    window.open_file(out)
    assert window.set_background_image(path)
    bg = window.document.encounter.map.background
    assert bg.image == "map.png" and (bg.width, bg.height) == (60.0, 40.0)  # as wide as the map
    assert window.map_view.ground.has_image
    # clicked points 10 m apart on the image are really 20 m apart: twice as large
    assert window.apply_calibration((0.0, 0.0), (10.0, 0.0), 20.0)
    bg = window.document.encounter.map.background
    assert (bg.width, bg.height) == pytest.approx((120.0, 80.0))
    window.save()
    assert load_encounter(out).map.background == bg


def test_tool_keys_zoom_keys_wheel_and_fit(window):
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    from gui.tools import PolygonTool, SelectTool

    v = window.map_view
    v.setFocus()
    QTest.keyClick(v, Qt.Key.Key_P)
    assert isinstance(v.tool, PolygonTool) and window.actions["tool:Polygon"].isChecked()
    QTest.keyClick(v, Qt.Key.Key_S)
    assert isinstance(v.tool, SelectTool)
    fit = v.m_per_px()
    QTest.keyClick(v, Qt.Key.Key_Plus)
    assert v.m_per_px() == pytest.approx(fit / 1.25, rel=1e-3)
    QTest.keyClick(v, Qt.Key.Key_Minus)
    QTest.keyClick(v, Qt.Key.Key_Minus)
    assert v.m_per_px() == pytest.approx(fit * 1.25, rel=1e-3)
    QTest.keyClick(v, Qt.Key.Key_F)
    assert v.m_per_px() == pytest.approx(fit, rel=1e-3)
    # the wheel zooms in around the mouse: the map point under it stays put
    at = v.map_to_viewport(30.0, 20.0)
    ev = QWheelEvent(QPointF(at), QPointF(v.viewport().mapToGlobal(at)), QPoint(0, 0), QPoint(0, 240),
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(v.viewport(), ev)
    assert v.m_per_px() < fit * 0.9
    x, y = v.viewport_to_map(at)
    assert (x, y) == pytest.approx((30.0, 20.0), abs=3 * v.m_per_px())
    # arrows pan
    QTest.keyClick(v, Qt.Key.Key_Right)
    assert v.viewport_to_map(at)[0] > x + 1e-6


def test_inspector_edits_zones_and_the_map(window):
    insp = window.inspector
    window.selection.select(["spread-1"], window.document.encounter)
    choke = insp.widgets["choke"]
    choke.activated.emit(choke.findText("wide"))
    assert window.document.encounter.zone("spread-1").choke == "wide"
    length = insp.widgets["length"]
    length.setText("12")
    length.editingFinished.emit()
    assert window.document.encounter.zone("spread-1").length == 12.0
    length.setText("")  # optional numbers may be cleared
    length.editingFinished.emit()
    assert window.document.encounter.zone("spread-1").length is None
    owner = insp.widgets["owner"]
    owner.activated.emit(owner.findData("brick"))
    assert window.document.encounter.zone("spread-1").owner == "brick"
    # nothing selected: the encounter and its map
    window.selection.clear()
    assert insp.heading.text() == "Encounter and map"
    width = insp.widgets["map.width"]
    width.setText("80")
    width.editingFinished.emit()
    assert window.document.encounter.map.width == 80.0
    assert window.map_view.ground._mw == 80.0  # the map view follows
    width.setText("abc")
    width.editingFinished.emit()
    assert insp.error == "map.width: 'abc' is not a number"
    assert window.document.encounter.map.width == 80.0


def test_a_damaged_autosave_at_start_up_is_named_and_kept_aside(window, monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append((title, text))))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: pytest.fail("nothing to offer")))
    folder = window.autosaver.folder
    folder.mkdir(parents=True, exist_ok=True)
    bad = folder / "autosave-1-bad.json"
    bad.write_text('{"format": "coverfire.autosave", "pid": "abc", "saved": "yesterday"}', encoding="utf-8")
    before = window.document.encounter
    assert not window.offer_recovery()
    assert window.document.encounter is before
    assert len(shown) == 1
    title, text = shown[0]
    kept = folder / "autosave-1-bad.json.damaged"
    assert "autosave" in title.lower() and str(bad) in text and str(kept) in text
    assert not bad.exists() and "yesterday" in kept.read_text(encoding="utf-8")  # nothing lost
    assert not window.offer_recovery() and len(shown) == 1  # not asked about again


def test_an_autosave_whose_encounter_is_damaged_says_so_and_is_kept_aside(window, monkeypatch, dead_pid):
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append((title, text))))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes))
    folder = window.autosaver.folder
    folder.mkdir(parents=True, exist_ok=True)
    f = folder / "autosave-2-dead.json"
    f.write_text(json.dumps({"format": "coverfire.autosave", "pid": dead_pid, "saved": 0, "source": None,
                             "encounter": {"format": "coverfire.encounter", "version": 1, "name": "x"}}),
                 encoding="utf-8")
    assert not window.offer_recovery()
    assert len(shown) == 1 and shown[0][0] == "Cannot recover"
    assert "missing required field 'map'" in shown[0][1] and f"{f}.damaged" in shown[0][1]
    assert not f.exists() and (folder / "autosave-2-dead.json.damaged").exists()


def test_an_autosave_that_cannot_be_written_says_so_in_the_status_bar(window, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the autosave folder should be", encoding="utf-8")
    window.autosaver.folder = blocker
    window.autosaver.file = blocker / "autosave-x.json"
    window.document.commit(window.document.encounter.model_copy(update={"name": "unsaved work"}), "rename")
    window.autosaver.tick()
    msg = window.statusBar().currentMessage()
    assert msg.startswith("Autosave failed") and str(blocker / "autosave-x.json") in msg
    assert window.autosaver.last_error == msg
    assert window.document.encounter.name == "unsaved work" and window.document.dirty  # nothing lost


def test_a_failed_save_as_leaves_the_background_image_path_as_it_was(window, tmp_path, monkeypatch):
    from PySide6.QtGui import QColor, QImage

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append((title, text))))
    here = tmp_path / "fight"
    here.mkdir()
    img = QImage(60, 40, QImage.Format.Format_RGB32)
    img.fill(QColor("#406040"))
    img.save(str(here / "map.png"))
    assert window.save_as(here / "fight.json") and window.set_background_image(here / "map.png")
    assert window.save()
    steps = window.document.undo_stack.count()
    # a folder that cannot be written (a file stands where a folder should), three levels down:
    # the background would be rebased to "../../../fight/map.png" for it
    blocker = tmp_path / "a" / "b" / "c"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("not a folder", encoding="utf-8")
    assert not window.save_as(blocker / "elsewhere.json")
    assert shown and shown[-1][0] == "Cannot save" and "elsewhere.json" in shown[-1][1]
    assert window.document.path == here / "fight.json" and not window.isWindowModified()
    assert window.document.encounter.map.background.image == "map.png"
    assert window.document.undo_stack.count() == steps  # no stray "Keep background image path" step
    # and a Save As that works stores the path as seen from the new folder, as before, and
    # the map keeps showing the image (looked for from the new folder, not the old one)
    other = tmp_path / "other" / "deeper"
    other.mkdir(parents=True)
    assert window.save_as(other / "copy.json")
    saved = load_encounter(other / "copy.json").map.background.image
    assert saved == "../../fight/map.png" and window.document.encounter.map.background.image == saved
    assert window.map_view.ground.has_image
    assert "Background image" not in window.statusBar().currentMessage()


@pytest.mark.parametrize("make, words", [
    (lambda folder: None, ["missing"]),
    (lambda folder: (folder / "street.png").write_text("not a picture", encoding="utf-8"), ["not a PNG or JPEG image"]),
    (lambda folder: (folder / "street.png").mkdir(), ["folder"]),
])
def test_a_background_image_that_cannot_be_shown_is_named_with_where_it_was_looked_for(
        window, qtbot, tmp_path, demo_path, make, words):
    data = json.loads(demo_path.read_text(encoding="utf-8"))
    data["map"]["background"] = {"image": "street.png", "width": 60, "height": 40}
    path = tmp_path / "fight.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    make(tmp_path)
    assert window.open_file(path, ask=False)  # the encounter opens all the same
    qtbot.waitUntil(lambda: not window.map_view.pictures_pending)  # (decoded off the GUI thread)
    msg = window.statusBar().currentMessage()
    assert str(tmp_path / "street.png") in msg and all(w in msg for w in words), msg
    assert not window.map_view.ground.has_image
    assert window.document.encounter.map.background.image == "street.png"  # kept: Save loses nothing


def test_choosing_a_background_that_is_no_image_says_why_and_changes_nothing(window, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append((title, text))))
    before = window.document.encounter
    (tmp_path / "notes.png").write_text("not a picture", encoding="utf-8")
    assert not window.set_background_image(tmp_path / "notes.png")
    assert not window.set_background_image(tmp_path / "gone.png")
    assert shown == [("Cannot use this image", f"{tmp_path / 'notes.png'} is not a PNG or JPEG image Coverfire can read"),
                     ("Cannot use this image", f"{tmp_path / 'gone.png'} is missing")]
    assert window.document.encounter is before and window.document.undo_stack.count() == 0


def test_save_as_into_another_folder_is_not_an_edit_and_undo_keeps_the_image_found(window, tmp_path):
    """Issue 27: a Save As that rewrites the background path for the new folder adds no undo
    step; a Ctrl+Z after it undoes the edit before (the name), with the path still the one
    that reaches the image from the new folder, and the file is unsaved only by that."""
    from PySide6.QtGui import QColor, QImage

    here = tmp_path / "fight"
    here.mkdir()
    img = QImage(60, 40, QImage.Format.Format_RGB32)
    img.fill(QColor("#406040"))
    img.save(str(here / "map.png"))
    assert window.save_as(here / "fight.json") and window.set_background_image(here / "map.png")
    doc = window.document
    doc.commit(doc.encounter.model_copy(update={"name": "renamed"}), "Rename")
    steps = doc.undo_stack.count()
    other = tmp_path / "other"
    other.mkdir()
    assert window.save_as(other / "copy.json")
    assert doc.undo_stack.count() == steps and doc.undo_stack.undoText() == "Rename"  # no "Keep background image path"
    assert doc.encounter.map.background.image == "../fight/map.png" and not doc.dirty
    window.actions["undo"].trigger()
    assert doc.encounter.name != "renamed" and doc.dirty  # the rename undone, nothing else
    assert doc.encounter.map.background.image == "../fight/map.png"  # still reaches the image from other/
    assert (other / doc.encounter.map.background.image).resolve() == (here / "map.png").resolve()
    assert window.map_view.ground.has_image
