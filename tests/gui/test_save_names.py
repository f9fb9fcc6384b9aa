"""Save As proposes and keeps ``NAME.coverfire.json``, the type the desktop entry registers,
and offers the rename when the GM types a plain ``.json`` (issue 28 item 10; gui/saving.py).

The file dialog and the question are monkeypatched: no real modal dialog opens.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.files import load_encounter, save_encounter
from gui import saving
from gui.desktop_entry import ENCOUNTER_SUFFIX, MIME_TYPES


def _rename(window, name):
    window.document.commit(window.document.encounter.model_copy(update={"name": name}), "rename")


def _dialog(monkeypatch, answer: Path | str):
    """The Save dialog answers ``answer``; returns the list of what it was asked with."""
    asked = []

    def fake(parent, caption, start, filt, *a, **k):
        asked.append((start, filt))
        return str(answer), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake))
    return asked


def _no_question(monkeypatch):
    monkeypatch.setattr(saving, "ask_rename", lambda *a: pytest.fail("no rename offer expected"))


def test_the_ending_is_the_one_the_desktop_entry_registers():
    encounter = next(m for m in MIME_TYPES if m.name == "application/x-coverfire-encounter")
    assert encounter.globs == (f"*{ENCOUNTER_SUFFIX}",) and ENCOUNTER_SUFFIX == ".coverfire.json"


def test_the_save_dialog_proposes_name_coverfire_json_for_a_new_encounter(window, monkeypatch, tmp_path):
    window.actions["open static-veil demo"].trigger()  # untitled
    _rename(window, "Warehouse: night raid")
    asked = _dialog(monkeypatch, tmp_path / "Warehouse- night raid.coverfire.json")
    _no_question(monkeypatch)
    assert window.save()
    start, filt = asked[0]
    assert Path(start) == Path.home() / "Warehouse- night raid.coverfire.json"  # ":" is no file name character
    assert filt.startswith("Coverfire encounters (*.coverfire.json)")
    assert window.document.path == tmp_path / "Warehouse- night raid.coverfire.json"


def test_save_as_on_an_encounter_file_proposes_and_keeps_its_name(window, monkeypatch, tmp_path):
    own = tmp_path / "fight.coverfire.json"
    save_encounter(window.document.encounter, own)
    assert window.open_file(own, ask=False)
    asked = _dialog(monkeypatch, own)
    _no_question(monkeypatch)
    _rename(window, "again")
    assert window.save_as()
    assert Path(asked[0][0]) == own and window.document.path == own
    assert load_encounter(own).name == "again"
    # Save (not Save As) keeps writing it.
    _rename(window, "once more")
    assert window.save() and load_encounter(own).name == "once more"


def test_save_as_on_a_plain_json_proposes_the_encounter_ending_beside_it(window, monkeypatch, tmp_path):
    old = tmp_path / "fight.json"
    save_encounter(window.document.encounter, old)
    assert window.open_file(old, ask=False)
    asked = _dialog(monkeypatch, tmp_path / "fight.coverfire.json")
    _no_question(monkeypatch)
    assert window.save_as()
    assert Path(asked[0][0]) == tmp_path / "fight.coverfire.json"


def test_a_name_typed_without_an_ending_gets_coverfire_json(window, monkeypatch, tmp_path):
    _dialog(monkeypatch, tmp_path / "Warehouse 1.5")
    _no_question(monkeypatch)
    assert window.save_as()
    assert window.document.path == tmp_path / "Warehouse 1.5.coverfire.json"
    assert load_encounter(tmp_path / "Warehouse 1.5.coverfire.json")


@pytest.mark.parametrize(("choice", "saved"), [(saving.RENAME, "mine.coverfire.json"), (saving.KEEP, "mine.json")])
def test_a_plain_json_typed_in_the_dialog_is_offered_the_rename(window, monkeypatch, tmp_path, choice, saved):
    _dialog(monkeypatch, tmp_path / "mine.json")
    offered = []
    monkeypatch.setattr(saving, "ask_rename", lambda w, typed, renamed: offered.append((typed, renamed)) or choice)
    assert window.save_as()
    assert offered == [(tmp_path / "mine.json", tmp_path / "mine.coverfire.json")]
    assert window.document.path == tmp_path / saved and (tmp_path / saved).exists()
    other = "mine.json" if saved != "mine.json" else "mine.coverfire.json"
    assert not (tmp_path / other).exists()


def test_cancel_in_the_rename_offer_saves_nothing(window, monkeypatch, tmp_path):
    _dialog(monkeypatch, tmp_path / "mine.json")
    monkeypatch.setattr(saving, "ask_rename", lambda *a: saving.CANCEL)
    path_before = window.document.path
    assert not window.save_as()
    assert list(tmp_path.iterdir()) == [] and window.document.path == path_before


def test_the_rename_offer_names_both_files_and_its_buttons_answer(window, monkeypatch, tmp_path):
    typed, renamed = tmp_path / "mine.json", tmp_path / "mine.coverfire.json"
    renamed.write_text("{}")  # already there: the offer says it would be replaced
    seen = []

    def click(label_start):
        def exec_(box):
            seen.append((box.text(), [b.text() for b in box.buttons()]))
            next(b for b in box.buttons() if b.text().startswith(label_start)).click()
            return 0
        return exec_

    monkeypatch.setattr(QMessageBox, "exec", click("Rename"))
    assert saving.ask_rename(window, typed, renamed) == saving.RENAME
    text, buttons = seen[0]
    assert "mine.json" in text and "text editor" in text and "mine.coverfire.json" in text
    assert "already exists" in text
    assert "Rename to mine.coverfire.json" in buttons and "Keep mine.json" in buttons
    monkeypatch.setattr(QMessageBox, "exec", click("Keep"))
    assert saving.ask_rename(window, typed, renamed) == saving.KEEP
    monkeypatch.setattr(QMessageBox, "exec", click("Cancel"))
    assert saving.ask_rename(window, typed, renamed) == saving.CANCEL


def test_file_names_from_encounter_names():
    assert saving.file_stem("Docks / Pier 9: *night*") == "Docks - Pier 9- -night"
    assert saving.file_stem("") == "encounter" and saving.file_stem(" .. ") == "encounter"
    assert len(saving.file_stem("x" * 500)) == saving.MAX_STEM
    assert saving.typed_path(Path("/d/a.coverfire")) == Path("/d/a.coverfire.json")
    assert saving.encounter_name_for(Path("/d/a.JSON")) == Path("/d/a.coverfire.json")
