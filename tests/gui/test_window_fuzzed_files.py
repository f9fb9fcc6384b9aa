"""The window survives the fuzz campaign's inputs (issue 15): opening, importing or choosing
each bad file either works or shows a message naming the file, and the encounter that was
open stays as it was. How long each takes is measured in bench/bench_bounds.py (``--fuzz``),
not asserted here (DESIGN.md "Time in tests"); the work each importer may do is bounded by
counted tests beside it (tests/engine/importers/test_uvtt_bounds.py and others), and a file
that hangs the window fails this test by the suite's per-test timeout."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QMessageBox

from tests.fuzz.kinds import make_input

SEED = 15
CASES = 25  # at most, of each kind ...
REFUSALS = 3  # ... stopping once this many bad files were refused


def _ways(window):
    imp = window.importing
    return {
        "encounter": lambda p: window.open_file(p, ask=False),
        "uvtt": lambda p: imp.import_map(p, 1.5, 1.0),
        "foundry": lambda p: imp.import_map(p, 1.5, 1.0),
        "chummer": lambda p: imp.import_character(p),
        "image": lambda p: window.set_background_image(p),
    }


#: each test opens dozens of bad files in the real window: seconds of work even when quiet
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("kind", ["encounter", "uvtt", "foundry", "chummer", "image"])
def test_each_bad_file_shows_a_message_and_keeps_the_encounter(window, tmp_path, monkeypatch, kind):
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append(text)))
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda parent, title, text, *a: shown.append(text)))
    way = _ways(window)[kind]
    refused = accepted = 0
    for i in range(CASES):
        if refused >= REFUSALS:
            break
        path, detail = make_input(f"{SEED}:{kind}:{i}", tmp_path / f"case{i}")
        before, before_stack, n = window.document.encounter, window.document.undo_stack.count(), len(shown)
        ok = way(path)
        if ok:
            accepted += 1
            continue
        refused += 1
        assert len(shown) == n + 1, f"no message for {path.name} ({detail})"
        assert path.name in shown[-1] or str(path) in shown[-1], shown[-1]
        assert window.document.encounter is before and window.document.undo_stack.count() == before_stack
    assert refused > 0  # the budget does hold bad files of this kind


@pytest.mark.parametrize("kind", ["encounter", "uvtt", "foundry", "chummer", "image"])
def test_each_bad_file_dropped_shows_a_message_and_keeps_the_encounter(window, tmp_path, monkeypatch, kind):
    # the same inputs dropped on the map (gui/drop.py tells the kind by content, then name)
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append(text)))
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda parent, title, text, *a: shown.append(text)))
    refused = 0
    for i in range(CASES):
        if refused >= REFUSALS:
            break
        path, detail = make_input(f"{SEED + 1}:{kind}:{i}", tmp_path / f"case{i}")
        before, before_stack, n = window.document.encounter, window.document.undo_stack.count(), len(shown)
        ok = window.drops.drop([str(path)], (12.0, 30.0))
        if ok:
            continue
        refused += 1
        assert len(shown) == n + 1, f"no message for {path.name} ({detail})"
        assert path.name in shown[-1] or str(path) in shown[-1], shown[-1]
        assert window.document.encounter is before and window.document.undo_stack.count() == before_stack
    assert refused > 0


@pytest.mark.parametrize("kind", ["encounter", "uvtt", "foundry", "chummer", "image"])
def test_what_a_bad_file_let_in_saves_and_autosaves_or_says_why(window, tmp_path, monkeypatch, kind):
    # Save and autosave never fail silently: after each accepted input, Save As writes a file
    # that reopens as the document (or shows a message), and an autosave is written (or the
    # status bar says why)
    from engine.files import load_encounter

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda parent, title, text, *a: shown.append(text)))
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda parent, title, text, *a: shown.append(text)))
    way = _ways(window)[kind]
    saved = 0
    for i in range(CASES):
        if saved >= REFUSALS:
            break
        path, detail = make_input(f"{SEED + 2}:{kind}:{i}", tmp_path / f"case{i}")
        if not way(path):
            continue
        if not window.document.dirty:  # an opened file: make it unsaved work, as a GM would
            window.document.commit(window.document.encounter.model_copy(update={"name": f"edited {i}"}), "rename")
        n = len(shown)
        window.autosaver.tick()
        if window.autosaver.last_error is None:
            wrapper = json.loads(window.autosaver.file.read_text(encoding="utf-8"))
            assert wrapper["encounter"]["name"] == window.document.committed.name, detail
        else:
            assert window.statusBar().currentMessage() == window.autosaver.last_error, detail
        out = tmp_path / f"saved{i}.json"
        if window.save_as(out):
            saved += 1
            back, doc = load_encounter(out), window.document.committed  # reopens as the document
            assert (back.name, back.tokens, back.obstacles) == (doc.name, doc.tokens, doc.obstacles), detail
            assert not window.document.dirty
        else:
            assert len(shown) == n + 1 and str(out) in shown[-1], f"Save As failed silently ({detail})"
    assert saved > 0
