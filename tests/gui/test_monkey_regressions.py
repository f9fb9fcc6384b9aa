"""Exceptions the random-input test (tests/gui/test_monkey.py) and a new user found, each
kept as the few steps that raised it. Every test fails on the exception (pytest-qt's capture
of exceptions in Qt handlers) before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

ENCOUNTERS = Path(__file__).resolve().parents[2] / "assets" / "encounters"
SR5, D100, SV = ENCOUNTERS / "demo.json", ENCOUNTERS / "demo-d100.json", ENCOUNTERS / "demo-static-veil.json"


def settle() -> None:
    """Run what is posted, deferred deletes included (as the event loop would)."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()


def deferred_done(qtbot, window) -> None:
    """The window's deferred work (a refit asked for the next turn ...) has run."""
    from tests.gui.settle import settle as settle_window

    settle_window(qtbot, window)


def test_map_only_after_another_rule_system_opened(window):
    """F10 (map only) hid the SR5 docks; the d100 demo opened (the SR5 docks deleted);
    F10 again showed the hidden docks: "Internal C++ object (QDockWidget) already deleted"."""
    window.actions["map only"].trigger()
    assert window.map_only
    assert window.open_demo(D100)
    settle()
    window.actions["map only"].trigger()
    assert not window.map_only
    assert window.docks["targets"].isVisible()  # (the panels that were shown are back)


def test_sr5_attack_page_after_its_attacker_was_deleted(window):
    """The attack page open for Sam, Sam deleted: the page asked the encounter for Sam's
    weapons (``_fill_modes``: "UnknownIdError: no token with id 'sam'"). It drops him now
    and shows that there is no attacker; undo brings him back to the map, not to the page."""
    g = window.sr5
    page = g.open_attack("sam", ["ganger-1"])
    assert page.isVisible() and page.attacker == "sam"
    window.selection.select(["sam"], window.document.encounter)
    window.delete_selection()
    settle()
    assert "sam" not in {t.id for t in window.document.encounter.tokens}
    assert page.attacker != "sam"
    assert page.attacker_combo.findData("sam") < 0
    window.document.undo_stack.undo()
    settle()
    window.selection.select(["ganger-2"], window.document.encounter)  # a click on another token
    settle()
    assert page.attacker == "ganger-2"


def test_sr5_attack_page_after_a_target_was_deleted(window):
    """The attack page's target deleted: the plan is made without it (no "no token" error)."""
    g = window.sr5
    page = g.open_attack("sam", ["ganger-1", "ganger-2"])
    page.follow.setChecked(False)  # (the page's own targets, not the map's)
    from gui import edits

    window.document.commit(edits.delete(window.document.committed, ["ganger-1"]), "Delete Razor")
    settle()
    assert page.targets == ["ganger-2"]
    assert "ganger-1" not in page.problems.text()


def test_delete_while_a_blast_zone_is_dragged_out(window):
    """Blast tool (B), a drag from Sam started, Delete pressed before the release: the new
    zone was selected but only in the drag's preview ("no object with id 'blast-1'")."""
    from tests.gui.conftest import vp_point

    view = window.map_view
    sam = window.document.encounter.token("sam")
    vp = view.viewport()
    QTest.keyClick(view, Qt.Key.Key_B)
    a = vp_point(view, sam.x, sam.y)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for i in range(1, 5):
        QTest.mouseMove(vp, a + QPoint(12 * i, 8 * i))
    zones = {z.id for z in window.document.committed.zones}
    QTest.keyClick(view, Qt.Key.Key_Delete)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a + QPoint(48, 32))
    settle()
    assert zones <= {z.id for z in window.document.committed.zones}  # nothing that was there is gone


@pytest.mark.parametrize("to", [SR5, D100])
def test_static_veil_panel_when_another_system_opens(window, qtbot, to):
    """The Static Veil demo, then another system's demo opened in the same turn: the
    maneuver panel's scroll area had asked for a refit on the next turn and was deleted by
    then ("Internal C++ object (_WrapScroll) already deleted" on stderr)."""
    assert window.open_demo(SV)
    deferred_done(qtbot, window)
    window.selection.select(["rook"], window.document.encounter)
    assert window.open_demo(to)
    deferred_done(qtbot, window)
    settle()
    assert window.static_veil is None


def test_an_undo_during_a_zone_drag(window):
    """Suppressive tool (Z), a drag from Sam, and Ctrl+Z (an earlier step undone) before the
    release: the preview with the new zone was dropped, and the release asked for it ("no
    zone with id 'sup-3'"). The drag is dropped now, as by Escape."""
    from gui import edits
    from tests.gui.conftest import vp_point

    view = window.map_view
    doc = window.document
    doc.commit(edits.delete(doc.committed, ["ganger-6"]), "Delete Vex")  # (something to undo)
    window.selection.select(["ganger-1"], doc.encounter)
    before = doc.committed
    sam = doc.encounter.token("sam")
    vp = view.viewport()
    QTest.keyClick(view, Qt.Key.Key_Z)
    a = vp_point(view, sam.x, sam.y)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for i in range(1, 5):
        QTest.mouseMove(vp, a + QPoint(15 * i, 5 * i))
    assert doc.in_preview
    QTest.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    edited = doc.committed
    assert edited is not before
    QTest.mouseMove(vp, a + QPoint(90, 30))
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a + QPoint(90, 30))
    settle()
    assert doc.committed is edited and not doc.in_preview  # the key's edit stands, the drag left nothing


def test_an_undo_during_a_token_drag_is_not_reverted_by_the_release(window):
    """Select tool, Brick dragged, Ctrl+Z pressed mid-drag: the release landed the move made
    on the encounter from before the undo, so the undone edit came back with it."""
    from gui import edits
    from tests.gui.conftest import vp_point

    view = window.map_view
    doc = window.document
    doc.commit(edits.delete(doc.committed, ["ganger-6"]), "Delete Vex")
    brick = doc.encounter.token("brick")
    vp = view.viewport()
    a = vp_point(view, brick.x, brick.y)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for i in range(1, 5):
        QTest.mouseMove(vp, a + QPoint(10 * i, 0))
    QTest.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert "ganger-6" in {t.id for t in doc.committed.tokens}
    QTest.mouseMove(vp, a + QPoint(60, 0))
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a + QPoint(60, 0))
    settle()
    assert "ganger-6" in {t.id for t in doc.committed.tokens}  # the undo stands


def test_leftover_sr5_attack_page_after_another_encounter_opened(window, qtbot):
    """A character imported (Barrett) and attacking from the attack page, then the SR5 demo
    opened again (the same system: its GUI stays): the page kept Barrett as its attacker and
    the first click on the new map asked for him ("no token with id 'barrett'")."""
    from gui import edits

    doc = window.document
    sam = doc.committed.token("sam")
    barrett = sam.model_copy(update={"id": "barrett", "name": "Barrett", "x": sam.x + 2.0})
    doc.commit(edits.add(doc.committed, barrett), "Import Barrett")
    window.selection.select(["barrett"], doc.encounter)
    page = window.sr5.open_attack("barrett", ["ganger-1"])
    assert page.attacker == "barrett"
    assert window.open_demo(SR5)
    deferred_done(qtbot, window)
    window.selection.select(["sam"], doc.encounter)
    settle()
    window.sr5.open_attack(None, None)
    settle()
    assert page.attacker == "sam"


def test_sr5_grenade_page_keeps_its_damage_over_an_edit(window):
    """The grenade page's DV typed by the GM stays when an unrelated token is deleted (the
    page forgets only ids the encounter lost, and its damage is keyed by DV and AP)."""
    from gui import edits

    g = window.sr5
    page = g.open_blast("sam")
    page.damage["dv"] = 9
    doc = window.document
    doc.commit(edits.delete(doc.committed, ["ganger-6"]), "Delete Vex")
    settle()
    assert page.damage.get("dv") == 9
