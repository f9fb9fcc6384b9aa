"""The window's Save and autosave against files shaped or changed unexpectedly (issue 15):
never silent, nothing lost (gui/saving.py, gui/document.py, gui/autosave.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.files import load_encounter, save_encounter
from gui import saving


@pytest.fixture
def own_file(window, tmp_path):
    """The window on a copy of the demo it may save over."""
    p = tmp_path / "fight.json"
    save_encounter(window.document.encounter, p)
    assert window.open_file(p, ask=False)
    return p


def _rename(window, name):
    window.document.commit(window.document.encounter.model_copy(update={"name": name}), "rename")


def _record_warnings(monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append((title, text))))
    return shown


def test_a_file_changed_on_disk_is_detected_on_save_and_the_gm_is_asked(window, own_file, monkeypatch):
    # another program (coverfire import-character --into) writes the file while it is open
    other = load_encounter(own_file).model_copy(update={"name": "written by the CLI"})
    save_encounter(other, own_file)
    _rename(window, "my work")
    asked = []
    monkeypatch.setattr(saving, "ask_changed_on_disk", lambda w, exc: asked.append(str(exc)) or saving.CANCEL)
    assert not window.save()
    assert "another program changed this file" in asked[0] and str(own_file) in asked[0]
    assert load_encounter(own_file).name == "written by the CLI"  # not overwritten
    assert window.document.dirty and window.document.encounter.name == "my work"
    # Save As... keeps both
    copy = own_file.with_name("mine.coverfire.json")
    monkeypatch.setattr(saving, "ask_changed_on_disk", lambda w, exc: saving.SAVE_AS)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(copy), "")))
    assert window.save()
    assert load_encounter(copy).name == "my work" and load_encounter(own_file).name == "written by the CLI"


def test_overwrite_after_the_question_writes_and_is_not_asked_again(window, own_file, monkeypatch):
    save_encounter(load_encounter(own_file).model_copy(update={"name": "cli"}), own_file)
    _rename(window, "my work")
    monkeypatch.setattr(saving, "ask_changed_on_disk", lambda w, exc: saving.OVERWRITE)
    assert window.save() and load_encounter(own_file).name == "my work"
    _rename(window, "again")
    monkeypatch.setattr(saving, "ask_changed_on_disk", lambda w, exc: pytest.fail("nothing changed on disk"))
    assert window.save() and load_encounter(own_file).name == "again"


def test_a_read_only_file_is_refused_with_a_message_offering_save_as(window, own_file, monkeypatch):
    own_file.chmod(0o444)
    before = own_file.read_bytes()
    _rename(window, "my work")
    offered = []
    monkeypatch.setattr(QMessageBox, "question",
                        staticmethod(lambda p, title, text, *a: offered.append(text) or QMessageBox.StandardButton.Cancel))
    assert not window.save()
    assert "read-only" in offered[0] and "Save As" in offered[0]
    assert own_file.read_bytes() == before and window.document.dirty
    elsewhere = own_file.with_name("writable.coverfire.json")
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a: QMessageBox.StandardButton.Save))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(elsewhere), "")))
    assert window.save()
    assert load_encounter(elsewhere).name == "my work" and own_file.read_bytes() == before


def test_saving_through_a_symlink_updates_the_real_file(window, tmp_path, own_file):
    link = tmp_path / "link.json"
    link.symlink_to(own_file)
    assert window.open_file(link, ask=False)
    _rename(window, "through the link")
    assert window.save()
    assert link.is_symlink() and load_encounter(own_file).name == "through the link"


def test_a_save_that_fails_for_any_reason_says_so(window, own_file, monkeypatch):
    shown = _record_warnings(monkeypatch)
    # text the model was told to hold without checks: a lone surrogate
    window.document.commit(window.document.encounter.model_copy(update={"name": "half \ud83d"}), "rename")
    before = own_file.read_bytes()
    assert not window.save()
    assert shown and "broken character" in shown[-1][1] and "nothing was lost" in shown[-1][1]
    assert own_file.read_bytes() == before
    # and a failure that is not Coverfire's own kind (a bug) is shown too, never silent
    _rename(window, "fine")

    def boom(*a, **k):
        raise RuntimeError("unexpected")

    monkeypatch.setattr(window.document, "save", boom)
    assert not window.save()
    assert "RuntimeError: unexpected" in shown[-1][1]


def test_a_full_disk_on_save_says_so_and_keeps_the_file(window, own_file, monkeypatch):
    shown = _record_warnings(monkeypatch)
    before = own_file.read_bytes()
    _rename(window, "my work")

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(os, "fsync", full)
        assert not window.save()
    assert "the disk is full" in shown[-1][1] and str(own_file) in shown[-1][1]
    assert own_file.read_bytes() == before and window.document.dirty


def test_autosave_failing_says_so_keeps_trying_and_says_when_it_works_again(window, monkeypatch):
    _rename(window, "half \ud83d")  # cannot be written as UTF-8
    window.autosaver.tick()
    msg = window.statusBar().currentMessage()
    assert msg.startswith("Autosave failed") and "tries again" in msg
    assert window.autosaver.timer.isActive()
    _rename(window, "fine now")
    window.autosaver.tick()
    assert window.autosaver.last_error is None
    assert window.statusBar().currentMessage().startswith("Autosave works again")
    wrapper = json.loads(window.autosaver.file.read_text(encoding="utf-8"))
    assert wrapper["encounter"]["name"] == "fine now"


def test_an_autosave_whose_pid_was_reused_by_another_process_is_offered(window, monkeypatch):
    from engine.files import encounter_to_data
    from gui.autosave import process_start

    # a live process (not Coverfire) now has the pid the crashed session had
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        started = process_start(other.pid)
        assert started is not None
        folder = window.autosaver.folder
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "autosave-reused.json").write_text(json.dumps({
            "format": "coverfire.autosave", "pid": other.pid, "started": started - 1, "saved": 0,
            "source": None, "encounter": encounter_to_data(window.document.encounter.model_copy(
                update={"name": "Crashed before the pid was reused"}))}), encoding="utf-8")
        monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes))
        assert window.offer_recovery()
        assert window.document.encounter.name == "Crashed before the pid was reused"
        # the same pid with its real start time is a running session: not offered
        (folder / "autosave-live.json").write_text(json.dumps({
            "format": "coverfire.autosave", "pid": other.pid, "started": started, "saved": 0,
            "source": None, "encounter": encounter_to_data(window.document.encounter)}), encoding="utf-8")
        from gui.autosave import scan_autosaves

        found, damaged = scan_autosaves(folder)
        assert [r.file.name for r in found] == [] and damaged == []
    finally:
        other.kill()
        other.wait()


def test_a_background_that_is_a_fifo_does_not_block_the_window(window, tmp_path, monkeypatch):
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    shown = _record_warnings(monkeypatch)
    done = threading.Event()
    timer = threading.Timer(5.0, lambda: None if done.is_set() else os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)))
    timer.start()  # (should it block, a writer would free it after 5 s; the assert below then fails)
    from tests.opens import OpenWatch

    with OpenWatch(fifo) as watch:
        assert not window.set_background_image(fifo)
        done.set()
        timer.cancel()
        assert watch.opens() == 0  # refused from its type, never opened (by Python or Qt)
    assert "not a regular file" in shown[-1][1]
    from gui.map_view import load_background_image
    from engine.model import Background

    enc = window.document.encounter
    enc = enc.model_copy(update={"map": enc.map.model_copy(update={"background": Background(
        image=str(fifo), width=10, height=10)})})
    with OpenWatch(fifo) as watch:
        img, why = load_background_image(enc, None)
        assert watch.opens() == 0
    assert img is None and "not a regular file" in why


def test_autosave_says_so_when_even_making_the_autosave_fails(window, monkeypatch):
    # a bug while turning the encounter into data (before any file is touched) is a failed
    # autosave said in the status bar, not an exception lost in a timer slot
    _rename(window, "my work")

    def boom(enc):
        raise RuntimeError("cannot dump")

    monkeypatch.setattr(window.document.file_text, "text", boom)
    window.autosaver.tick()
    assert window.autosaver.last_error is not None and "cannot dump" in window.autosaver.last_error
    assert window.statusBar().currentMessage() == window.autosaver.last_error
    assert window.autosaver.timer.isActive()
