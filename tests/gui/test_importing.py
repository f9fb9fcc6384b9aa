"""File > Import Map, File > Import Character and doors, through the real main window.

The small map these tests write (``little.dd2vtt``), in cells of ``cell`` metres, origin (0, 0),
10 x 8 cells:

    walls  (5,0)-(5,3)   (5,5)-(5,8)   (1,1)-(3,1)
    door   (5,3)-(5,5), closed

so a partition runs down x = 5 cells with a door in it from y = 3 to 5 cells. With 1.5 m
cells: the partition is at x = 7.5 m, the door covers y = 4.5 .. 7.5 m, 0.15 m thick, 3 m tall.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from engine.files import load_encounter
from engine.importers.uvtt import import_uvtt
from gui import edits
from gui.importing import KEY_CELL, KEY_OBJECT_HEIGHT, MapImportDialog, door_at
from tests import dialog_guard
from tests.engine.importers._helpers import png_bytes
from tests.gui.conftest import mouse_click, vp_point

PNG = png_bytes(80, 64, (90, 120, 60))  # 10 x 8 cells at 8 px a cell


def write_little_map(folder: Path, name: str = "little.dd2vtt") -> Path:
    def pts(*xy):
        return [{"x": x, "y": y} for x, y in xy]

    data = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 10, "y": 8}, "pixels_per_grid": 8},
        "line_of_sight": [pts((5, 0), (5, 3)), pts((5, 5), (5, 8)), pts((1, 1), (3, 1))],
        "objects_line_of_sight": [],
        "portals": [{"position": {"x": 5, "y": 4}, "bounds": pts((5, 3), (5, 5)), "rotation": 1.570796,
                     "closed": True, "freestanding": False}],
        "environment": {"baked_lighting": True, "ambient_light": "ffffffff"},
        "lights": [],
        "image": base64.b64encode(PNG).decode("ascii"),
    }
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def answer_map_dialog(cell: float | None = None, height: float | None = None, *, accept: bool = True,
                      seen: list | None = None) -> None:
    """When the map import dialog opens (modal), note its values, type these and press Import
    (at once, with no modal event loop: tests/dialog_guard.py)."""

    def answer(dlg: MapImportDialog) -> None:
        if seen is not None:
            seen.append(dlg.values())
        if cell is not None:
            dlg.cell_spin.setValue(cell)
        if height is not None:
            dlg.object_spin.setValue(height)
        dlg.accept() if accept else dlg.reject()

    dialog_guard.expect(MapImportDialog, answer)


def pick_file(monkeypatch, path: Path | str) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))


def import_through_menu(window, monkeypatch, path, cell=None, height=None, seen=None) -> None:
    pick_file(monkeypatch, path)
    answer_map_dialog(cell, height, seen=seen)
    window.actions["import map"].trigger()


def shows_its_picture(window) -> bool:
    """Whether the map view draws its background, once it is decoded (gui.picture_loader:
    off the GUI thread, each picture within its budget)."""
    from gui.picture_loader import loader

    loader().wait()
    return window.map_view.ground.has_image


def kinds(enc):
    walls = [o for o in enc.obstacles if o.id.startswith("wall-")]
    doors = [o for o in enc.obstacles if o.door]
    return walls, doors


# -- maps ------------------------------------------------------------------------------------------------
def test_import_map_through_the_menu_opens_a_new_unsaved_encounter(window, monkeypatch, tmp_path):
    path = write_little_map(tmp_path)
    seen: list = []
    import_through_menu(window, monkeypatch, path, cell=2.0, height=0.8, seen=seen)
    assert seen == [(1.5, 1.0)]  # the defaults, before anything was remembered
    doc = window.document
    enc = doc.encounter
    # 10 x 8 cells of 2 m
    assert (enc.map.width, enc.map.height, enc.map.grid) == (20.0, 16.0, 2.0)
    walls, doors = kinds(enc)
    assert len(walls) == 3 and len(doors) == 1
    assert not doors[0].open and doors[0].blocks
    # the door from (5,3) to (5,5) cells: x = 10 m +- 0.075, y = 6 .. 10 m
    xs, ys = zip(*doors[0].polygon)
    assert (min(xs), max(xs), min(ys), max(ys)) == pytest.approx((9.925, 10.075, 6.0, 10.0), abs=1e-6)
    assert doc.path is None and doc.dirty and doc.undo_stack.count() == 0
    assert shows_its_picture(window)
    assert window.settings.value(KEY_CELL) is not None and float(window.settings.value(KEY_CELL)) == 2.0
    assert float(window.settings.value(KEY_OBJECT_HEIGHT)) == 0.8
    rep = window.importing.report_dialog
    assert rep is not None and rep.isVisible()
    text = rep.text.toPlainText()
    assert "3 wall obstacles" in text and "1 door" in text
    rep.close()
    assert not rep.isVisible()

    # the next import offers the remembered values
    seen.clear()
    import_through_menu(window, monkeypatch, path, seen=seen)
    assert seen == [(2.0, 0.8)]
    assert window.document.encounter.map.width == 20.0


def test_broken_map_shows_the_engine_message_and_keeps_the_encounter(window, monkeypatch, tmp_path):
    before = window.document.encounter
    path_before = window.document.path
    bad = tmp_path / "broken.dd2vtt"
    bad.write_text('{"format": 0.3, "resolution": ', encoding="utf-8")
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append((title, text))))
    import_through_menu(window, monkeypatch, bad)
    assert len(shown) == 1
    title, text = shown[0]
    assert title == "Cannot import this map"
    assert "broken.dd2vtt" in text and "unchanged" in text
    assert window.document.encounter is before and window.document.path == path_before
    assert not window.document.dirty

    # a map without a resolution: ImportFileError at $.resolution
    nores = tmp_path / "nores.uvtt"
    nores.write_text('{"format": 0.3, "line_of_sight": []}', encoding="utf-8")
    import_through_menu(window, monkeypatch, nores)
    assert len(shown) == 2 and "resolution" in shown[1][1]
    assert window.document.encounter is before

    # cancelling the scale dialog imports nothing
    pick_file(monkeypatch, write_little_map(tmp_path))
    answer_map_dialog(accept=False)
    window.actions["import map"].trigger()
    assert window.document.encounter is before


def test_saving_an_imported_map_writes_the_image_beside_the_file(window, tmp_path):
    path = write_little_map(tmp_path)
    assert window.importing.import_map(path, 1.5, 1.0)
    enc = window.document.encounter
    assert enc.map.background.image.startswith("data:image/png;base64,")
    out = tmp_path / "saved" / "fight.json"
    out.parent.mkdir()
    assert window.save_as(out)
    raw = out.read_text(encoding="utf-8")
    assert "data:" not in raw and len(raw) < 20_000
    assert json.loads(raw)["map"]["background"]["image"] == "fight.map.png"
    assert (out.parent / "fight.map.png").read_bytes() == PNG
    assert not window.document.dirty
    # it reloads equal to what was imported, with the image's name in place of its bytes
    expected = enc.model_copy(update={"map": enc.map.model_copy(
        update={"background": enc.map.background.model_copy(update={"image": "fight.map.png"})})})
    assert load_encounter(out) == expected
    # and the window shows the picture again from the file beside it
    assert window.open_file(out)
    assert window.document.encounter == expected
    assert shows_its_picture(window)


@pytest.fixture
def door_fight(window, tmp_path):
    """The little map at 1.5 m a cell, a shooter west of the door and a target east of it.

    Shooter at (3, 6) m, target at (12, 6) m, both standing, radius 0.4 m. The door spans
    x = 7.425 .. 7.575 m, y = 4.5 .. 7.5 m, 3 m tall. Every line from the shooter's eye to the
    target's disc crosses x = 7.5 at y = 6 +- 0.4 * (7.5 - 3) / (12 - 3) = 6 +- 0.2 m, well
    inside the door, and the door stands above any standing body: closed, the target is hidden
    entirely (full cover); open, nothing else lies between them (the wall (1,1)-(3,1) cells is
    at y = 1.5 m): no cover."""
    assert window.importing.import_map(write_little_map(tmp_path), 1.5, 1.0)
    window.importing.report_dialog.close()
    doc = window.document
    enc = doc.committed
    shooter = edits.new_token(enc, (3.0, 6.0), side="runner", name="Shooter")
    enc = edits.add(enc, shooter)
    target = edits.new_token(enc, (12.0, 6.0), side="ganger", name="Target")
    enc = edits.add(enc, target)
    doc.commit(enc, "tokens")
    window.selection.select([shooter.id], doc.encounter)
    assert window.answers.attacker == shooter.id
    return shooter.id, target.id


def cover_of(window, tid: str) -> str:
    return window.answers.targets[tid].cover.cls


def the_door(window):
    return [o for o in window.document.encounter.obstacles if o.door][0]


def test_door_tool_click_opens_the_door_and_cover_follows(window, door_fight):
    _, target = door_fight
    assert cover_of(window, target) == "full"
    steps = window.document.undo_stack.count()
    window.actions["tool:Door"].trigger()
    assert window.map_view.tool.name == "Door"
    mouse_click(window.map_view, 7.5, 5.0)  # on the door, away from the sight line
    assert the_door(window).open
    assert cover_of(window, target) == "none"
    assert window.document.undo_stack.count() == steps + 1
    assert window.document.undo_stack.undoText().startswith("Open")
    # undo closes it again, cover comes back
    window.actions["undo"].trigger()
    assert not the_door(window).open and cover_of(window, target) == "full"
    # a click beside the door (within a few pixels) still hits the thin bar; far away does not
    k = window.map_view.m_per_px()
    mouse_click(window.map_view, 7.5 + 0.075 + 4 * k, 6.5)
    assert the_door(window).open
    mouse_click(window.map_view, 7.5 + 2.0, 6.5)
    assert the_door(window).open  # nothing there: unchanged
    mouse_click(window.map_view, 7.5, 7.0)
    assert not the_door(window).open and cover_of(window, target) == "full"


def test_double_click_a_door_with_select_opens_it(window, door_fight):
    shooter, target = door_fight
    assert type(window.map_view.tool).__name__ == "SelectTool"
    vp = window.map_view.viewport()
    steps = window.document.undo_stack.count()
    QTest.mouseDClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, vp_point(window.map_view, 7.5, 5.0))
    assert the_door(window).open
    assert window.document.undo_stack.count() == steps + 1
    assert window.answers.attacker == shooter  # selecting the door kept the attacker
    assert cover_of(window, target) == "none"
    # an open door is drawn hollow (dashed outline); a closed one filled, apart from the walls
    assert "open" in window.map_view.obstacles._paths and "door" not in window.map_view.obstacles._paths
    QTest.mouseDClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, vp_point(window.map_view, 7.5, 5.0))
    assert not the_door(window).open and cover_of(window, target) == "full"
    assert "open" not in window.map_view.obstacles._paths and "door" in window.map_view.obstacles._paths


def test_door_at_picks_the_nearest_door_within_the_slack(tmp_path):
    enc, _ = import_uvtt(write_little_map(tmp_path), 1.5)
    door = [o for o in enc.obstacles if o.door][0].id
    assert door_at(enc, 7.5, 6.0) == door  # inside
    assert door_at(enc, 7.7, 6.0, 0.1) is None  # 0.125 m from its face (7.575)
    assert door_at(enc, 7.7, 6.0, 0.13) == door
    assert door_at(enc, 7.5, 4.0, 0.4) is None  # 0.5 m above its end (y = 4.5)


# -- the shared samples -------------------------------------------------------------------------------------
def test_sample_map_imports_as_the_engine_does(window, monkeypatch, samples_dir):
    path = samples_dir / "uvtt" / "dd2vtt_importer-test.dd2vtt"
    import_through_menu(window, monkeypatch, path, cell=1.5, height=1.0)
    enc = window.document.encounter
    engine_enc, report = import_uvtt(path, 1.5)
    assert enc == engine_enc
    walls, doors = kinds(enc)
    ewalls, edoors = kinds(engine_enc)
    assert len(walls) == len(ewalls) == 9 and len(doors) == len(edoors) == 3
    assert shows_its_picture(window)
    assert window.importing.report_dialog.isVisible()


def test_import_character_placed_by_a_click(window, monkeypatch, samples_dir):
    pick_file(monkeypatch, samples_dir / "chummer" / "Wesson.chum5")
    asked: list = []

    def get_item(parent, title, label, items, current=0, editable=True, *a, **k):
        asked.append((list(items), current))
        return "security", True

    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(get_item))
    doc = window.document
    steps, n_tokens = doc.undo_stack.count(), len(doc.encounter.tokens)
    window.actions["import character"].trigger()
    assert asked and asked[0][0][asked[0][1]] == "runner"  # runner offered first
    assert window.map_view.tool.name == "Place character"
    assert len(doc.encounter.tokens) == n_tokens  # nothing yet: waits for the click
    # (45, 35) m on the 60 x 40 m demo: open ground; snapping is off, so the token lands
    # where the click's pixel maps to, within a pixel's width of the point asked for
    k = window.map_view.m_per_px()
    # a click just off the map's west edge (the view leaves a 16 px margin, ~1 m here) is
    # refused by the engine: nothing added, still placing
    assert 0.5 < 16 * k
    mouse_click(window.map_view, -0.5, 20.0)
    assert len(doc.encounter.tokens) == n_tokens and window.map_view.tool.name == "Place character"
    mouse_click(window.map_view, 45.0, 35.0)
    assert len(doc.encounter.tokens) == n_tokens + 1
    t = doc.encounter.token("wesson")
    assert (t.x, t.y) == pytest.approx((45.0, 35.0), abs=1.5 * k)
    assert t.side == "security" and t.name == "Wesson" and t.rules.get("sr5") is not None
    assert doc.undo_stack.count() == steps + 1 and doc.undo_stack.undoText() == "Import Wesson"
    assert type(window.map_view.tool).__name__ == "SelectTool"
    assert window.selection.ids == ("wesson",)
    assert window.importing.report_dialog is None  # Wesson's save imports cleanly: no report to read
    window.actions["undo"].trigger()
    assert len(doc.encounter.tokens) == n_tokens


def test_import_character_enter_puts_it_on_the_free_spot(window, monkeypatch, samples_dir):
    from engine.importers.chummer import free_spot

    pick_file(monkeypatch, samples_dir / "chummer" / "Wesson.chum5")
    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(lambda *a, **k: ("runner", True)))
    before = window.document.committed
    window.actions["import character"].trigger()
    window.map_view.setFocus()
    QTest.keyClick(window.map_view, Qt.Key.Key_Return)
    t = window.document.encounter.token("wesson")
    assert (t.x, t.y) == free_spot(before, t.radius)
    assert window.document.undo_stack.count() >= 1 and len(window.document.encounter.tokens) == len(before.tokens) + 1
    # a second Wesson gets a fresh id; Esc also places it
    window.actions["import character"].trigger()
    QTest.keyClick(window.map_view, Qt.Key.Key_Escape)
    assert window.document.encounter.token("wesson-1").side == "runner"


def test_import_map_stops_when_the_gm_cancels_saving_the_current_encounter(window, monkeypatch, tmp_path):
    doc = window.document
    enc = doc.committed
    moved = edits.translate(enc, [enc.tokens[0].id], 1.0, 0.0)
    doc.commit(moved, "move")
    assert doc.dirty
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Cancel))
    import_through_menu(window, monkeypatch, write_little_map(tmp_path))
    assert doc.encounter is moved and doc.dirty
    assert window.importing.report_dialog is None


def test_a_drop_opens_a_foundry_scene_and_adds_a_compressed_character(window, monkeypatch, tmp_path, samples_dir):
    """A file dropped on the window: a Foundry scene opens as a new encounter, a
    .chum5lz save is added on the free spot, a file that is neither says what it is."""
    import lzma

    from tests.engine.importers.test_foundry import v10_scene

    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append((title, text))))
    window.document.set_content(window.document.encounter, None, dirty=False)
    scene = tmp_path / "hall.json"
    scene.write_text(json.dumps(v10_scene()), encoding="utf-8")
    assert window.drops.drop([scene])
    enc = window.document.encounter
    assert enc.name == "Hall" and enc.obstacle("window-1").kind == "window" and window.document.dirty
    assert window.importing.report_dialog is not None
    assert "Foundry scene 'Hall'" in window.importing.report_dialog.text.toPlainText()
    packed = tmp_path / "wesson.chum5lz"
    packed.write_bytes(lzma.compress((samples_dir / "chummer/Wesson.chum5").read_bytes(), format=lzma.FORMAT_ALONE))
    assert window.drops.drop([packed])
    assert window.document.encounter.token("wesson").name == "Wesson"
    before = window.document.encounter
    actor = tmp_path / "actor.json"
    actor.write_text(json.dumps({"name": "Bob", "type": "npc", "system": {}, "items": [], "prototypeToken": {}}))
    assert not window.drops.drop([actor])
    assert shown and "this is a Foundry actor (a character sheet), not a scene or map" in shown[-1][1]
    assert window.document.encounter is before


def test_windows_are_drawn_apart_from_walls_and_doors(window, tmp_path):
    """The obstacle layer puts windows (Obstacle.kind "window") in their own glass-coloured path."""
    from tests.engine.importers.test_foundry import v10_scene

    scene = tmp_path / "hall.json"
    scene.write_text(json.dumps(v10_scene()), encoding="utf-8")
    window.document.set_content(window.document.encounter, None, dirty=False)
    assert window.drops.drop([scene])
    layer = next(item for item in window.map_view.scene().items() if type(item).__name__ == "ObstacleLayer")
    assert {"window", "open", "hidden", "full"} <= set(layer._paths)  # open door, secret door, wall
    w = window.document.encounter.obstacle("window-1")
    xs = [x for x, _ in w.polygon]
    ys = [y for _, y in w.polygon]
    rects = [t.paths["window"].boundingRect() for t in layer._tiles.values() if "window" in t.paths]
    left, right = min(r.left() for r in rects), max(r.right() for r in rects)
    top, bottom = min(r.top() for r in rects), max(r.bottom() for r in rects)
    assert (left, right, top, bottom) == pytest.approx((min(xs), max(xs), min(ys), max(ys)), abs=1e-6)


def test_a_character_placed_inside_a_wall_warns_in_the_status_line(window, samples_dir):
    from engine.model import Encounter, MapSpec, Obstacle

    wall = Obstacle(id="w", name="Wall", height=3.0, polygon=((4, 4), (6, 4), (6, 6), (4, 6)))
    window.document.set_content(Encounter(map=MapSpec(width=10, height=10), obstacles=(wall,)), None, dirty=False)
    assert window.importing.import_character(samples_dir / "chummer" / "Wesson.chum5", at=(5.0, 5.0))
    msg = window.statusBar().currentMessage()
    assert "Warning: (5, 5) is inside Wall: the token cannot move from there" in msg
    assert window.importing.import_character(samples_dir / "chummer" / "Wesson.chum5", at=(2.0, 2.0))
    assert "Warning" not in window.statusBar().currentMessage()


def test_import_map_asks_which_scene_of_a_scenes_db(window, monkeypatch, tmp_path):
    from tests.engine.importers.test_foundry import v9_scene, v10_scene

    db = tmp_path / "scenes.db"
    db.write_text(json.dumps(v9_scene()) + "\n" + json.dumps(v10_scene()) + "\n", encoding="utf-8")
    asked: list = []

    def get_item(parent, title, label, items, current=0, editable=False):
        asked.append((title, label, list(items)))
        return items[1], True

    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(get_item))
    window.document.set_content(window.document.encounter, None, dirty=False)
    pick_file(monkeypatch, db)
    answer_map_dialog()
    window.actions["import map"].trigger()
    assert asked == [("Import Foundry scene", "scenes.db holds 2 scenes. Import which one?", ["1. Cellar", "2. Hall"])]
    assert window.document.encounter.name == "Hall"
