"""The window's Save and autosave on a real full disk and a real read-only folder (a small
tmpfs, when the tests run as root; issue 15): a message naming the file and why, the file on
disk unchanged, the work still open and unsaved; autosave says it failed, keeps trying, and
says when it works again."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from engine.files import load_encounter, save_encounter
from tests.engine.test_save_under_stress import _mount_tmpfs, _umount


@pytest.fixture
def disk(tmp_path):
    where = tmp_path / "disk"
    if not _mount_tmpfs(where, "512k"):
        pytest.skip("cannot mount a small tmpfs here (not root, or not allowed)")
    yield where
    _umount(where)


def _warnings(monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append(text)))
    return shown


def _edit(window, name: str, notes: int) -> None:
    """Rename the encounter and give each token ``notes`` characters of notes."""
    enc = window.document.encounter
    tokens = tuple(t.model_copy(update={"notes": "n" * notes}) for t in enc.tokens)
    window.document.commit(enc.model_copy(update={"name": name, "tokens": tokens}), "notes")


def test_save_and_autosave_on_a_full_disk_say_so_and_lose_nothing(window, disk, monkeypatch):
    shown = _warnings(monkeypatch)
    own = disk / "fight.json"
    save_encounter(window.document.encounter, own)
    assert window.open_file(own, ask=False)
    window.autosaver.folder = disk / "autosave"
    window.autosaver.file = window.autosaver.folder / "autosave-test.json"
    before = own.read_bytes()
    _edit(window, "x", 90_000)  # 9 tokens: 810 KB on a 512 KB disk
    assert len(window.document.encounter.tokens) * 90_000 > 512 * 1024
    assert not window.save()
    assert len(shown) == 1 and str(own) in shown[0] and "the disk is full" in shown[0]
    assert "nothing was lost" in shown[0]
    assert own.read_bytes() == before and window.document.dirty and window.document.encounter.name == "x"
    assert sorted(p.name for p in disk.iterdir()) == ["fight.json"]  # no temp file left
    window.autosaver.tick()
    assert window.statusBar().currentMessage().startswith("Autosave failed: cannot write")
    assert "tries again" in window.statusBar().currentMessage() and window.autosaver.timer.isActive()
    # once the work fits again (the notes cut), autosave and Save work, and autosave says so
    _edit(window, "y", 0)
    window.autosaver.tick()
    assert window.autosaver.last_error is None
    assert window.statusBar().currentMessage().startswith("Autosave works again")
    assert json.loads(window.autosaver.file.read_text(encoding="utf-8"))["encounter"]["name"] == "y"
    assert window.save() and load_encounter(own).name == "y"


def test_save_and_autosave_in_a_read_only_folder_say_so_and_lose_nothing(window, disk, monkeypatch):
    shown = _warnings(monkeypatch)
    own = disk / "fight.json"
    save_encounter(window.document.encounter, own)
    (disk / "autosave").mkdir()
    assert window.open_file(own, ask=False)
    window.autosaver.folder = disk / "autosave"
    window.autosaver.file = window.autosaver.folder / "autosave-test.json"
    before = own.read_bytes()
    assert subprocess.run(["mount", "-o", "remount,ro", str(disk)], capture_output=True).returncode == 0
    window.document.commit(window.document.encounter.model_copy(update={"name": "my work"}), "rename")
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        staticmethod(lambda p, t, text, *a: asked.append(text) or QMessageBox.StandardButton.Cancel))
    assert not window.save()
    said = shown + asked
    assert len(said) == 1 and str(own) in said[0]
    assert "cannot be written" in said[0] or "read-only" in said[0]
    assert own.read_bytes() == before and window.document.dirty
    window.autosaver.tick()
    msg = window.statusBar().currentMessage()
    assert msg.startswith("Autosave failed") and str(Path(window.autosaver.file)) in msg
