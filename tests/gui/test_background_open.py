"""A big encounter file opens without freezing the window (issue 14): it is read in a
process of its own and taken back, then indexed, a slice per event-loop turn; the result is
the very encounter a plain load gives, with its obstacles indexed once; a bad big file is
named in a message and the open encounter stays; Cancel keeps it too; when the process
cannot run the file is read in the window as before."""

from __future__ import annotations

import json
import sys

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox

from bench.scene import make_scene
from engine.files import load_encounter, save_encounter
from gui import opening


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "street.json"
    save_encounter(make_scene(5, tokens=60, obstacles=2000, size=200.0, doors=4), path)
    assert path.stat().st_size >= opening.BACKGROUND_FROM_BYTES  # (really the background path)
    return path


def _count_turns(qtbot):
    """Counts event-loop turns (a 0 ms timer firing again and again) while a test runs."""
    turns = []
    timer = QTimer()
    timer.setInterval(0)
    timer.timeout.connect(lambda: turns.append(1))
    timer.start()
    return timer, turns


def test_a_big_file_opens_in_the_background_as_a_plain_load_reads_it(window, big_file, qtbot, monkeypatch):
    slices, steps = [], []
    real, real_step = opening.BackgroundOpen._slice, opening.BackgroundOpen._step
    monkeypatch.setattr(opening.BackgroundOpen, "_slice", lambda self: (slices.append(1), real(self)))
    monkeypatch.setattr(opening.BackgroundOpen, "_step", lambda self: (steps.append(1), real_step(self))[1])
    timer, turns = _count_turns(qtbot)
    assert window.open_file(big_file, ask=False)
    timer.stop()
    doc = window.document
    want = load_encounter(big_file)
    assert doc.encounter == want and doc.path == big_file and not doc.dirty
    assert [o.id for o in doc.encounter.obstacles] == [o.id for o in want.obstacles]
    # the work came in small steps (frames of the file, then 800 obstacles indexed a step),
    # done in turns of their own with other events between them
    assert len(steps) >= 10 + 3 and len(slices) >= 2 and len(turns) >= 1
    # the obstacles were indexed once (in steps), not again by the document
    t = doc.tactics
    assert t.index_builds == 1 and t.obstacle_set.rebuilds == 1
    assert t.cover_index.n == sum(1 for o in want.obstacles if o.blocks)
    # the answers are those of a plain index
    from engine.analysis import Tactics

    a = want.tokens[0].id
    assert {k: v.fraction for k, v in t.cover(a).items()} == {k: v.fraction for k, v in Tactics(want).cover(a).items()}
    # and an edit after it is incremental
    door = next(o for o in doc.encounter.obstacles if o.door)
    from gui.edits import replace

    doc.commit(replace(doc.encounter, door.model_copy(update={"open": True})), "Open door")
    assert t.obstacle_set.rebuilds == 1 and t.index_builds == 2


def test_a_bad_big_file_is_named_and_the_encounter_stays(window, big_file, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append(text)))
    data = json.loads(big_file.read_text(encoding="utf-8"))
    data["obstacles"][1500]["height"] = -2
    bad = tmp_path / "bad street.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    before = window.document.encounter
    assert not window.open_file(bad, ask=False)
    assert len(shown) == 1 and "bad street.json" in shown[0] and "$.obstacles[1500].height" in shown[0]
    assert window.document.encounter is before
    bad.write_text("{" + " " * 300_000 + "oops", encoding="utf-8")
    assert not window.open_file(bad, ask=False)
    assert "malformed JSON" in shown[-1] and window.document.encounter is before


def test_cancel_keeps_the_encounter(window, big_file, monkeypatch):
    started = []
    real = opening.BackgroundOpen.start

    def start_then_cancel(self):
        started.append(self)
        real(self)
        QTimer.singleShot(0, self.cancel)  # the GM presses Cancel at once

    monkeypatch.setattr(opening.BackgroundOpen, "start", start_then_cancel)
    before = window.document.encounter
    assert not window.open_file(big_file, ask=False)
    assert started and started[0].cancelled and window.document.encounter is before


def test_without_the_process_the_file_is_read_here(window, big_file, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    assert window.open_file(big_file, ask=False)
    assert window.document.encounter == load_encounter(big_file)
    assert window.document.tactics.cover_index.n > 1000
