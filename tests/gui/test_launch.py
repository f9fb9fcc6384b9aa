"""``coverfire FILE`` as the desktop entry runs it: a map is imported, a Chummer save waits
for its click, an encounter opens, and the window has Coverfire's icon."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from gui.launch import open_target

ROOT = Path(__file__).resolve().parents[2]


def test_a_uvtt_map_opens_as_a_new_unsaved_encounter(window, samples_dir, tmp_path, demo_path):
    src = samples_dir / "uvtt" / "foundry_to_uvtt-prismatic_ballroom_main.uvtt"
    shutil.copy(src, tmp_path / "ballroom.uvtt")
    open_target(window, tmp_path / "ballroom.uvtt", demo_path)
    doc = window.document
    assert doc.path is None and doc.dirty
    assert doc.encounter.obstacles and doc.encounter.name != "Alley ambush on Halsey Street"
    assert "Imported ballroom.uvtt" in window.statusBar().currentMessage()


def test_a_chummer_save_opens_the_demo_and_waits_for_a_click(window, samples_dir, demo_path):
    open_target(window, samples_dir / "chummer" / "Wesson.chum5", demo_path)
    assert window.document.path == demo_path
    assert window.importing.placing is not None
    assert window.map_view.tool is window.importing.placing


def test_a_broken_map_keeps_the_demo_and_says_why(window, tmp_path, demo_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    said = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a, **k: said.append(a[2])))
    bad = tmp_path / "broken.dd2vtt"
    bad.write_text("{not json")
    open_target(window, bad, demo_path)
    assert window.document.path == demo_path and len(window.document.encounter.tokens) == 9
    assert said and "broken.dd2vtt" in said[0]


def test_an_encounter_opens_as_it_is(window, tmp_path, demo_path):
    mine = tmp_path / "ambush.coverfire.json"
    shutil.copy(demo_path, mine)
    open_target(window, mine, demo_path)
    assert window.document.path == mine and not window.document.dirty


def test_the_application_has_the_coverfire_icon_in_every_size(tmp_path):
    child = ("from gui.app import make_app; app = make_app();"
             "print(sorted(s.width() for s in app.windowIcon().availableSizes()), app.desktopFileName())")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=60)
    assert res.stdout.strip() == "[16, 22, 24, 32, 48, 64, 128, 256] coverfire", res.stderr
