"""The window side of the proof (issue #12 item 7): the fourth rule system of tests/cover_only
opens in the main window with no GUI package of its own and no gui file naming it
(tests/test_fourth_system.py checks that); the targets table reads metres (it uses no range
bands) and the map's cover classes; Save writes it back."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from engine import rules
from tests.test_fourth_system import FILE


@pytest.fixture
def cover_only():
    from tests.cover_only.system import SYSTEM

    rules.register(SYSTEM)
    yield SYSTEM
    rules.unregister(SYSTEM.name)


def _rows(window) -> dict[str, list[str]]:
    m = window.targets.model
    out = {}
    for r in range(m.rowCount()):
        tid = m.data(m.index(r, 0), Qt.ItemDataRole.UserRole + 1)
        out[tid] = [m.data(m.index(r, c)) for c in range(m.columnCount())]
    return out


def test_the_window_opens_the_fourth_system_and_answers_in_metres(cover_only, window, tmp_path, qtbot):
    from engine.files import load_encounter

    path = tmp_path / "cover-only.json"
    path.write_text(json.dumps(FILE), encoding="utf-8")
    assert window.open_file(path, ask=False)
    enc = window.document.encounter
    assert enc.ruleset == "cover-only" and enc.system is cover_only
    window.selection.set_attacker("ana")
    window.targets.model.reload()
    rows = _rows(window)
    assert set(rows) == {"bo", "cy"}
    # Bo 11.0 m east behind the 3 m wall: full cover; Cy (8, 2): hypot(3, 8) = 8.5 m, open
    assert rows["bo"][1] == "11.0" and "full" in rows["bo"]
    assert rows["cy"][1] == "8.5" and "none" in rows["cy"]
    from gui.targets import COLUMNS

    for col in ("Band", "Mod"):  # no range bands in this system: the table shows metres only
        assert window.targets.table.isColumnHidden(COLUMNS.index(col))
    assert not window.targets.table.isColumnHidden(COLUMNS.index("Cover"))
    out = tmp_path / "saved.json"
    window.document.save(out)
    back = load_encounter(out)
    assert back.ruleset == "cover-only" and back.token("bo").rules["cover-only"].toughness == 1
