"""A big map import and a big autosave recovery run in the loader process, as a big File >
Open does (issue 14: no GUI-thread turn over 50 ms): the window goes on painting, and the
result is exactly what the import (or the autosave's reading) gives in-process: the same
obstacles, doors, lights and import report. Cancel changes nothing; a refused map shows the
importer's own message naming the file and keeps the encounter; a process that cannot start,
dies or writes garbage gives the in-process import instead."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import sys

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox

from bench.bench_stalls import write_uvtt
from bench.scene import make_scene
from engine.errors import CoverfireError
from engine.files import encounter_to_data
from engine.importers.detect import import_file
from gui import opening

CELL, HEIGHT, SILL = 1.5, 0.9, 1.1
#: Two UVTT lights: 6 cells (9 m) at full intensity, 4 cells (6 m) dim.
LIGHTS = ({"position": {"x": 10, "y": 12}, "range": 6, "intensity": 1.0, "color": "ffffcc88", "shadows": True},
          {"position": {"x": 40, "y": 30}, "range": 4, "intensity": 0.3, "color": "ff8888ff", "shadows": False})


@pytest.fixture(scope="module")
def big_map(tmp_path_factory):
    """A 300-obstacle street (4 doors, one of them written open: a window, in UVTT) as a
    Universal VTT map."""
    enc = make_scene(5, tokens=10, obstacles=300, size=80.0, doors=4)
    first = next(o for o in enc.obstacles if o.door)
    enc = enc.model_copy(update={"obstacles": tuple(o.model_copy(update={"open": True}) if o.id == first.id else o
                                                    for o in enc.obstacles)})
    path = write_uvtt(enc, tmp_path_factory.mktemp("maps") / "street.uvtt", cell=CELL, lights=LIGHTS)
    assert path.stat().st_size >= opening.DIRECT_BELOW["import"]  # (really the process's route)
    return path


def _in_process(path):
    r = import_file(path, cell_size=CELL, object_height=HEIGHT, window_sill=SILL, expect="map")
    return r.encounter, r.report


def _same_report(a, b):
    """Reports equal but for the wall time they took."""
    return dataclasses.replace(a, seconds=0.0) == dataclasses.replace(b, seconds=0.0)


def _warnings(monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append((title, text))))
    return shown


def test_a_big_uvtt_map_is_imported_in_the_process_as_in_the_window(window, big_map, monkeypatch):
    jobs, steps = [], []
    real_start, real_step = opening.BackgroundOpen.start, opening.BackgroundOpen._step
    monkeypatch.setattr(opening.BackgroundOpen, "start", lambda self: (jobs.append(self), real_start(self))[1])
    monkeypatch.setattr(opening.BackgroundOpen, "_step", lambda self: (steps.append(1), real_step(self))[1])
    assert window.importing.import_map(big_map, CELL, HEIGHT, window_sill=SILL)
    # it went through the loader process, as an import with the GM's values
    assert [j.request.kind for j in jobs] == ["import"]
    assert jobs[0].request.options == {"cell_size": CELL, "object_height": HEIGHT, "window_sill": SILL, "scene": None}
    # taken back in steps: the header, the obstacles' frames, the report, the rest, the indexing
    assert window.importing.last_load.route == "process" and len(steps) >= 6
    want, want_report = _in_process(big_map)
    doc = window.document
    got = doc.encounter
    assert got == want and got.model_fields_set == want.model_fields_set
    assert [o.id for o in got.obstacles] == [o.id for o in want.obstacles]
    doors = [o for o in got.obstacles if o.door]
    windows = [o for o in got.obstacles if o.kind == "window"]
    assert len(doors) == 3 and not any(o.open for o in doors) and len(windows) == 1 and windows[0].height == SILL
    # the lights: 6 cells of 1.5 m = 9 m full, 4 cells = 6 m dim
    assert [(li.x, li.y, li.radius, li.level) for li in got.lights] == [
        (15.0, 18.0, 9.0, "full"), (60.0, 45.0, 6.0, "dim")]
    assert _same_report(window.importing.report_dialog.report, want_report)
    assert "lights kept" in window.importing.report_dialog.text.toPlainText()
    # a new unsaved encounter, its obstacles indexed once (in slices, not again by the document)
    assert doc.path is None and doc.dirty and doc.undo_stack.count() == 0
    assert doc.tactics.obstacle_set.rebuilds == 1 and doc.tactics.cover_index.n == sum(1 for o in want.obstacles if o.blocks)


def test_cancel_leaves_the_open_encounter(window, big_map, monkeypatch):
    real = opening.BackgroundOpen.start

    def start_then_cancel(self):
        real(self)
        QTimer.singleShot(0, self.cancel)  # the GM presses Cancel at once

    monkeypatch.setattr(opening.BackgroundOpen, "start", start_then_cancel)
    before, path = window.document.encounter, window.document.path
    shown = _warnings(monkeypatch)
    assert not window.importing.import_map(big_map, CELL, HEIGHT)
    assert window.importing.last_load is None and not shown
    assert window.document.encounter is before and window.document.path == path and not window.document.dirty


def test_a_refused_big_map_shows_the_importers_message_and_keeps_the_encounter(window, big_map, tmp_path, monkeypatch):
    data = json.loads(big_map.read_text(encoding="utf-8"))
    del data["resolution"]
    bad = tmp_path / "no scale.uvtt"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert bad.stat().st_size >= opening.DIRECT_BELOW["import"]
    with pytest.raises(CoverfireError) as here:
        _in_process(bad)
    jobs = []
    real = opening.BackgroundOpen.start
    monkeypatch.setattr(opening.BackgroundOpen, "start", lambda self: (jobs.append(self), real(self))[1])
    shown = _warnings(monkeypatch)
    before = window.document.encounter
    assert not window.importing.import_map(bad, CELL, HEIGHT, window_sill=SILL)
    assert jobs and jobs[0].error is not None and not jobs[0].fallback  # (the process's answer, not a fallback)
    assert type(jobs[0].error) is type(here.value)
    assert shown == [("Cannot import this map", f"{here.value}\n\nThe encounter you had open is unchanged.")]
    assert "no scale.uvtt" in shown[0][1] and "resolution" in shown[0][1]
    assert window.document.encounter is before and not window.document.dirty


def _fake_python(tmp_path, output: bytes, code: int = 0):
    """An "interpreter" that writes ``output`` and exits with ``code``."""
    out = tmp_path / "out.bin"
    out.write_bytes(output)
    exe = tmp_path / "python-fake"
    exe.write_text(f"#!/bin/sh\ncat '{out}'\nexit {code}\n", encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


@pytest.mark.skipif(os.name != "posix", reason="a shell script as the interpreter")
@pytest.mark.parametrize("output,code", [
    (b"garbage that is no frame at all", 0),
    (b"\x05\x00\x00\x00\x00\x00\x00\x00abcde" * 3, 0),  # frames, but not pickles
    (b"\x10\x00\x00\x00\x00\x00\x00\x00half a frame", 0),  # cut short
    (b"", 3),  # died with an error
])
def test_a_process_that_writes_garbage_or_dies_gives_the_in_process_import(window, big_map, tmp_path, monkeypatch,
                                                                           output, code):
    monkeypatch.setattr(sys, "executable", str(_fake_python(tmp_path, output, code)))
    shown = _warnings(monkeypatch)
    assert window.importing.import_map(big_map, CELL, HEIGHT, window_sill=SILL)
    assert window.importing.last_load.route == "fallback" and not shown
    want, want_report = _in_process(big_map)
    assert window.document.encounter == want
    assert _same_report(window.importing.report_dialog.report, want_report)


def test_a_process_killed_half_way_gives_the_in_process_import(window, big_map, monkeypatch):
    real = opening.BackgroundOpen.start
    killed = []

    def start_then_kill(self):
        real(self)
        QTimer.singleShot(0, lambda: (killed.append(1), self._proc.kill()))

    monkeypatch.setattr(opening.BackgroundOpen, "start", start_then_kill)
    assert window.importing.import_map(big_map, CELL, HEIGHT, window_sill=SILL)
    assert killed and window.importing.last_load.route == "fallback"
    assert window.document.encounter == _in_process(big_map)[0]


def test_without_the_process_a_map_is_imported_here(window, big_map, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    assert window.importing.import_map(big_map, CELL, HEIGHT, window_sill=SILL)
    assert window.importing.last_load.route == "fallback"
    assert window.document.encounter == _in_process(big_map)[0]


def test_the_bundle_reads_a_big_map_in_its_own_process_too(window, big_map, monkeypatch, tmp_path):
    """Frozen (PyInstaller's ``sys.frozen``), the reader is the bundle's own executable with
    the child argument (engine.child): here a stand-in executable that runs the bundle's
    entry script, as the bundle's bootloader does."""
    from tests.engine.test_child import frozen_executable

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(frozen_executable(tmp_path)))
    assert window.importing.import_map(big_map, CELL, HEIGHT, window_sill=SILL)
    assert window.importing.last_load.route == "process"
    assert window.document.encounter == _in_process(big_map)[0]


def test_a_small_map_is_imported_directly(window, tmp_path):
    from tests.gui.test_importing import write_little_map

    path = write_little_map(tmp_path)
    assert path.stat().st_size < opening.DIRECT_BELOW["import"]
    assert window.importing.import_map(path, CELL, HEIGHT)
    assert window.importing.last_load.route == "direct"
    assert window.document.encounter == import_file(path, cell_size=CELL, object_height=HEIGHT, expect="map").encounter


def test_a_dropped_big_map_goes_through_the_process(window, big_map, monkeypatch):
    from tests.gui.test_drop_files import drop

    shown = _warnings(monkeypatch)
    window.settings.setValue("import/object_height", HEIGHT)
    window.settings.setValue("import/window_sill", SILL)
    m = window.document.encounter.map
    assert drop(window, [big_map], m.width / 2, m.height / 2)  # (a real drop event on the map)
    assert not shown and window.importing.last_load.route == "process"
    assert window.document.encounter == _in_process(big_map)[0]


# -- autosave recovery -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def big_encounter():
    return make_scene(7, tokens=40, obstacles=1500, size=180.0, doors=3).model_copy(update={"name": "Big crash"})


def _autosave(folder, enc, pid, name="autosave-1-big.json", source=None):
    folder.mkdir(parents=True, exist_ok=True)
    f = folder / name
    wrapper = {"format": "coverfire.autosave", "pid": pid, "started": None, "saved": 1_700_000_000.0,
               "source": source, "encounter": encounter_to_data(enc)}
    f.write_text(json.dumps(wrapper, ensure_ascii=False), encoding="utf-8")
    return f


def test_a_big_autosave_is_recovered_through_the_process(window, big_encounter, dead_pid, tmp_path, monkeypatch):
    from engine.files import encounter_from_data
    from gui.autosave import scan_autosaves

    f = _autosave(window.autosaver.folder, big_encounter, dead_pid, source=str(tmp_path / "fight.json"))
    assert f.stat().st_size >= opening.BACKGROUND_FROM_BYTES
    # the start-up scan reads its leading fields only: the encounter is read when recovered
    (rec,), damaged = scan_autosaves(window.autosaver.folder)
    assert not damaged and rec.name == "Big crash" and rec.data is None and rec.saved == 1_700_000_000.0
    assert rec.source == str(tmp_path / "fight.json")
    jobs = []
    real = opening.BackgroundOpen.start
    monkeypatch.setattr(opening.BackgroundOpen, "start", lambda self: (jobs.append(self), real(self))[1])
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        staticmethod(lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Yes))
    text = f.read_text(encoding="utf-8")
    assert window.offer_recovery()
    assert "Big crash" in asked[0]
    assert [j.request.kind for j in jobs] == ["autosave"] and jobs[0].encounter is not None
    want = encounter_from_data(json.loads(text)["encounter"], file=str(f))
    doc = window.document
    assert doc.encounter == want and doc.path == tmp_path / "fight.json" and window.isWindowModified()
    assert doc.tactics.obstacle_set.rebuilds == 1
    assert not f.exists()
    # this session's autosave holds the recovered work at once (the file's text kept, not dumped again)
    mine = json.loads(window.autosaver.file.read_text(encoding="utf-8"))
    assert mine["pid"] == os.getpid() and mine["source"] == str(tmp_path / "fight.json")
    assert mine["encounter"] == json.loads(text)["encounter"]
    from gui.autosave import scan_autosaves

    assert scan_autosaves(window.autosaver.folder) == ([], [])  # (ours, running: not offered)


def test_cancelling_a_big_recovery_keeps_the_encounter_and_the_autosave(window, big_encounter, dead_pid, monkeypatch):
    f = _autosave(window.autosaver.folder, big_encounter, dead_pid)
    real = opening.BackgroundOpen.start

    def start_then_cancel(self):
        real(self)
        QTimer.singleShot(0, self.cancel)

    monkeypatch.setattr(opening.BackgroundOpen, "start", start_then_cancel)
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes))
    before = window.document.encounter
    assert not window.offer_recovery()
    assert window.document.encounter is before and f.exists()


def test_a_damaged_big_autosave_is_named_and_kept_aside(window, big_encounter, dead_pid, monkeypatch):
    folder = window.autosaver.folder
    data = encounter_to_data(big_encounter)
    data["obstacles"][700]["height"] = "tall"
    folder.mkdir(parents=True, exist_ok=True)
    f = folder / "autosave-2-bad.json"
    f.write_text(json.dumps({"format": "coverfire.autosave", "pid": dead_pid, "saved": 0, "source": None,
                             "encounter": data}), encoding="utf-8")
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes))
    shown = _warnings(monkeypatch)
    before = window.document.encounter
    assert not window.offer_recovery()
    assert len(shown) == 1 and shown[0][0] == "Cannot recover"
    assert "autosave-2-bad.json" in shown[0][1] and "$.obstacles[700].height" in shown[0][1]
    assert window.document.encounter is before
    assert not f.exists() and (folder / "autosave-2-bad.json.damaged").exists()


def test_a_big_autosave_without_the_process_is_read_here(window, big_encounter, dead_pid, monkeypatch, tmp_path):
    f = _autosave(window.autosaver.folder, big_encounter, dead_pid)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes))
    assert window.offer_recovery()
    assert window.document.encounter == big_encounter and not f.exists()


def test_leading_fields_reads_an_objects_first_keys():
    from gui.autosave import leading_fields

    text = '{"format": "m", "pid": 7, "note": "a \\"encounter\\": b", "encounter": {"name": "X", "map": {}}}'
    head, at = leading_fields(text, 0, stop="encounter")
    assert head == {"format": "m", "pid": 7, "note": 'a "encounter": b'}
    assert text[at:].startswith('{"name": "X"')
    assert leading_fields(text, at, stop="map") == ({"name": "X"}, text.index("{}", at))
    assert leading_fields(' { } ', 0) == ({}, None)
    assert leading_fields('{"a": [1, 2]}', 0, stop="b") == ({"a": [1, 2]}, None)
    for bad in ('[1]', '{"a" 1}', '{"a": 1 "b": 2}', '{"a": tru}', '{1: 2}'):
        with pytest.raises(ValueError):
            leading_fields(bad, 0, stop="b")


# -- big Foundry files: what they are, and their scene list, told in the process too ----------------
def _big_scenes_db(folder, n_walls=400):
    """A scenes.db of three scenes past 1 MB (the third's walls, and a long journal note)."""
    from bench.bench_stalls import write_foundry
    from tests.engine.importers.test_foundry import v9_scene, v10_scene

    third = json.loads(write_foundry(n_walls, folder / "walls.json").read_text(encoding="utf-8"))
    third["name"] = "Warehouse"
    third["navName"] = "x" * 1_100_000  # (a scene name this long is cut: the file is past 1 MB)
    db = folder / "scenes.db"
    db.write_text("\n".join(json.dumps(d) for d in (v9_scene(), v10_scene(), third)) + "\n", encoding="utf-8")
    assert db.stat().st_size >= opening.DIRECT_BELOW["scenes"]
    return db


def test_a_big_scenes_db_is_listed_and_imported_through_the_process(window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    from tests.gui.test_importing import answer_map_dialog, pick_file

    db = _big_scenes_db(tmp_path)
    jobs = []
    real = opening.BackgroundOpen.start
    monkeypatch.setattr(opening.BackgroundOpen, "start", lambda self: (jobs.append(self), real(self))[1])
    asked = []

    def get_item(parent, title, label, items, current=0, editable=False):
        asked.append((label, list(items)))
        return items[2], True

    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(get_item))
    shown = _warnings(monkeypatch)
    pick_file(monkeypatch, db)
    answer_map_dialog(CELL, HEIGHT)
    window.actions["import map"].trigger()
    assert asked == [("scenes.db holds 3 scenes. Import which one?", ["1. Cellar", "2. Hall", "3. Warehouse"])]
    assert [j.request.kind for j in jobs] == ["scenes", "import"] and jobs[1].request.options["scene"] == 2
    assert not shown and window.importing.last_load.route == "process"
    want = import_file(db, cell_size=CELL, object_height=HEIGHT, scene=2, expect="map").encounter
    assert window.document.encounter == want and want.name == "Warehouse"


def test_a_big_foundry_file_dropped_is_told_and_imported_through_the_process(window, tmp_path, monkeypatch):
    from tests.gui.test_drop_files import drop

    db = _big_scenes_db(tmp_path)
    jobs = []
    real = opening.BackgroundOpen.start
    monkeypatch.setattr(opening.BackgroundOpen, "start", lambda self: (jobs.append(self), real(self))[1])
    shown = _warnings(monkeypatch)
    m = window.document.encounter.map
    assert drop(window, [db], m.width / 2, m.height / 2)
    assert [j.request.kind for j in jobs] == ["sniff", "import"] and not shown
    # (a dropped scenes.db imports its first scene, as before)
    assert window.document.encounter == import_file(db, cell_size=window.importing.cell_size(), expect="map").encounter
    assert window.document.encounter.name == "Cellar"


def test_cancelling_the_telling_of_a_dropped_file_changes_nothing(window, tmp_path, monkeypatch):
    from tests.gui.test_drop_files import drop

    db = _big_scenes_db(tmp_path)
    real = opening.BackgroundOpen.start

    def start_then_cancel(self):
        real(self)
        QTimer.singleShot(0, self.cancel)

    monkeypatch.setattr(opening.BackgroundOpen, "start", start_then_cancel)
    shown = _warnings(monkeypatch)
    before = window.document.encounter
    m = before.map
    drop(window, [db], m.width / 2, m.height / 2)
    assert not shown and window.document.encounter is before and not window.document.dirty



def test_import_map_through_the_menu_starts_one_process_for_a_big_uvtt_map(window, big_map, monkeypatch):
    from tests.gui.test_importing import answer_map_dialog, pick_file

    jobs = []
    real = opening.BackgroundOpen.start
    monkeypatch.setattr(opening.BackgroundOpen, "start", lambda self: (jobs.append(self), real(self))[1])
    shown = _warnings(monkeypatch)
    pick_file(monkeypatch, big_map)
    answer_map_dialog(CELL, HEIGHT)
    window.actions["import map"].trigger()
    # (a .uvtt is one scene: no scene list asked of a process first)
    assert [j.request.kind for j in jobs] == ["import"] and not shown
    assert window.document.encounter == import_file(big_map, cell_size=CELL, object_height=HEIGHT,
                                                    expect="map").encounter


# -- the frames themselves -------------------------------------------------------------------------
def test_an_error_comes_back_as_itself_or_as_its_message():
    import pickle

    from engine.errors import ImportFileError, UnknownIdError
    from gui.load_process import error_frame, rebuilt_error

    exc = ImportFileError("the map has no resolution", file="/maps/a.uvtt", path="$.resolution")
    kind, pickled, message = pickle.loads(error_frame(exc))
    back = rebuilt_error(pickled, message)
    assert kind == "exception" and type(back) is ImportFileError
    assert str(back) == str(exc) == "/maps/a.uvtt: at $.resolution: the map has no resolution"
    assert (back.file, back.path, back.reason) == ("/maps/a.uvtt", "$.resolution", "the map has no resolution")
    # an error whose class will not rebuild from its message (two arguments): its message, as a CoverfireError
    odd = UnknownIdError("obstacle", "w-3")
    _, pickled, message = pickle.loads(error_frame(odd))
    back = rebuilt_error(pickled, message)
    assert type(back) is CoverfireError and str(back) == "no obstacle with id 'w-3' in this encounter"
    assert str(rebuilt_error(b"not a pickle", "the words")) == "the words"


def test_frames_carry_the_extras_and_no_encounter():
    import pickle

    from gui.load_process import frames, split_frames

    data = b"".join(len(f).to_bytes(8, "little") + f for f in frames(None, {"scenes": ["Cellar", "Hall"]}))
    got = [pickle.loads(f) for f in split_frames(data + b"\x09\x00")]  # (a cut-short tail is left out)
    assert got == [("header", 2, None), ("extra", "scenes", ["Cellar", "Hall"]), ("rest", None)]
