"""The document: previews vs. undo steps, dirty state, files; and autosave/recovery."""

from __future__ import annotations

import json

import pytest

from engine.errors import EncounterFileError
from engine.files import load_encounter
from gui import edits
from gui.autosave import Autosaver, find_recoverable
from gui.document import EncounterDocument


@pytest.fixture
def doc(qapp, demo_path):
    return EncounterDocument(load_encounter(demo_path), demo_path)


def test_a_drag_of_many_previews_is_one_undo_step(doc):
    seen = []
    doc.changed.connect(lambda c: seen.append(c))
    base = doc.encounter
    for i in range(1, 21):
        doc.preview(edits.move_tokens(base, {"sam": (12.0 + 0.1 * i, 20.0)}))
    assert doc.in_preview and doc.undo_stack.count() == 0
    assert doc.committed is base  # nothing landed yet
    doc.commit(doc.encounter, "Move Sam")
    assert doc.undo_stack.count() == 1 and not doc.in_preview
    assert doc.encounter.token("sam").x == pytest.approx(14.0)
    assert sum(c.preview for c in seen) == 20 and not seen[-1].preview
    assert seen[-1].diff.tokens == {"sam"}  # the landing reports the whole drag's change
    doc.undo_stack.undo()
    assert doc.encounter == base
    doc.undo_stack.redo()
    assert doc.encounter.token("sam").x == pytest.approx(14.0)


def test_a_cancelled_drag_leaves_no_trace(doc):
    base = doc.encounter
    doc.preview(edits.move_tokens(base, {"sam": (30.0, 30.0)}))
    doc.cancel_preview()
    assert doc.encounter is base and doc.undo_stack.count() == 0 and not doc.dirty


def test_dirty_follows_the_undo_stack_and_saving(doc, tmp_path):
    states = []
    doc.cleanChanged.connect(states.append)
    assert not doc.dirty
    doc.commit(edits.move_tokens(doc.encounter, {"sam": (1.0, 1.0)}), "Move")
    assert doc.dirty and states[-1] is False
    out = tmp_path / "saved.json"
    doc.save(out)
    assert not doc.dirty and doc.path == out and states[-1] is True
    assert load_encounter(out) == doc.encounter
    doc.undo_stack.undo()
    assert doc.dirty


def test_opening_a_bad_file_keeps_the_document(doc, tmp_path):
    before, path = doc.encounter, doc.path
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "coverfire.encounter", "version": 1, "map": {"width": 10}}', encoding="utf-8")
    with pytest.raises(EncounterFileError) as e:
        doc.open(bad)
    assert "height" in str(e.value) and "bad.json" in str(e.value)
    assert doc.encounter is before and doc.path == path


def test_autosave_writes_unsaved_work_and_a_dead_session_is_offered(doc, tmp_path, dead_pid):
    saver = Autosaver(doc, tmp_path, interval_ms=10_000_000)
    saver.tick()
    assert not saver.file.exists()  # nothing unsaved
    doc.commit(edits.move_tokens(doc.encounter, {"sam": (5.0, 5.0)}), "Move")
    saver.tick()
    assert saver.file.exists()
    assert find_recoverable(tmp_path) == []  # this process is alive: not a crash
    # the same file left by a process that has exited is a crash to recover from
    wrapper = json.loads(saver.file.read_text(encoding="utf-8"))
    wrapper["pid"] = dead_pid
    (tmp_path / "autosave-crashed.json").write_text(json.dumps(wrapper), encoding="utf-8")
    found = find_recoverable(tmp_path)
    assert len(found) == 1
    assert found[0].encounter().token("sam").x == 5.0
    assert found[0].source == str(doc.path)
    doc.save(tmp_path / "x.json")  # saving drops this session's autosave
    assert not saver.file.exists()


@pytest.mark.parametrize("fields", [
    {"pid": "abc"}, {"pid": None}, {"pid": 1e30}, {"pid": -1}, {"pid": True},
    {"saved": "yesterday"}, {"saved": 1e400}, {"saved": 1e300},
    {"source": 5}, {"encounter": [1, 2]},
])
def test_a_damaged_autosave_is_reported_not_a_crash(tmp_path, fields, dead_pid):
    from gui.autosave import scan_autosaves

    good = {"format": "coverfire.autosave", "pid": dead_pid, "saved": 0, "source": None,
            "encounter": {"name": "x"}}
    (tmp_path / "autosave-bad.json").write_text(json.dumps(good | fields), encoding="utf-8")
    (tmp_path / "autosave-garbage.json").write_bytes(b"\xff\xfe{ not json")
    (tmp_path / "autosave-deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert find_recoverable(tmp_path) == []
    found, damaged = scan_autosaves(tmp_path)
    assert found == []
    assert sorted(p.name for p in damaged) == ["autosave-bad.json", "autosave-deep.json", "autosave-garbage.json"]
