"""Right-click on the map (issue 13 item 4): a menu for what is under the mouse, the rule
system's actions allowed now and the refused ones greyed with the engine's reason; a right
drag still pans."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMenu

from gui.context_menu import entries_for
from tests.gui.conftest import vp_point
from tests.gui.menus import all_actions, submenu


@pytest.fixture
def popped(monkeypatch):
    """Menus the map opened (popup is recorded, not shown)."""
    seen: list[QMenu] = []
    monkeypatch.setattr(QMenu, "popup", lambda self, *a, **k: seen.append(self))
    return seen


def right_click(view, x, y):
    vp = view.viewport()
    QTest.mouseClick(vp, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, vp_point(view, x, y))


def texts(menu: QMenu) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]


def entry(entries, label):
    return next(e for e in entries if e.label == label)


def sub_named(menu, label):
    """The submenu of ``menu`` whose entry ends with ``label`` (tests/gui/menus.py: no
    ``QAction.menu()``)."""
    return next(m for a in menu.actions() if a.text().endswith(label) and (m := submenu(a)) is not None)


def test_a_right_click_on_a_token_opens_its_menu(window, popped):
    right_click(window.map_view, 12.0, 20.0)  # Sam
    assert len(popped) == 1
    menu = popped[0]
    t = texts(menu)
    assert t[0] == "Token: Sam"
    for want in ("Attack from here", "Target", "Stance", "Hide from players", "Duplicate", "Delete", "Edit in Inspector"):
        assert want in t, (want, t)
    # the rule system's actions: allowed ones enabled, refused ones greyed with the engine's reason
    rules = sub_named(menu, "actions")
    acts = {a.text().split("  \u2014  ")[0]: a for a in all_actions(rules)}
    assert acts["Attack"].isEnabled()
    stand = acts["Stand Up"]
    assert not stand.isEnabled() and stand.toolTip() == "Sam is already standing"
    assert stand.text() == "Stand Up  \u2014  Sam is already standing"
    assert acts["Quick Draw"].toolTip() == "only pistols can be quick-drawn; Ingram Smartgun X is not one"


def test_the_token_entries_do_what_they_say(window):
    enc = window.document.encounter
    _, es = entries_for(window, 36.0, 26.0)  # Spike
    entry(es, "Attack from here").callback()
    assert window.selection.attacker == "ganger-2"
    _, es = entries_for(window, 36.0, 26.0)
    a = entry(es, "Attack from here")
    assert not a.enabled and a.reason == "Spike is the attacker already"
    assert not entry(es, "Target").enabled  # the attacker cannot target itself
    _, es = entries_for(window, 12.0, 20.0)
    entry(es, "Target").callback()
    assert window.selection.targets == ("sam",)
    stance = entry(es, "Stance")
    assert [(c.label, c.checked) for c in stance.children] == [("Standing", True), ("Crouched", False), ("Prone", False)]
    stance.children[2].callback()
    assert window.document.encounter.token("sam").stance == "prone"
    entry(es, "Hide from players").callback()
    assert window.document.encounter.token("sam").hidden
    n = len(enc.tokens)
    entry(es, "Duplicate").callback()
    assert len(window.document.encounter.tokens) == n + 1
    _, es = entries_for(window, 36.0, 26.0)
    entry(es, "Delete").callback()
    assert "ganger-2" not in {t.id for t in window.document.encounter.tokens}
    assert window.document.undo_stack.count() == 4  # stance, hide, duplicate, delete


def test_an_obstacle_menu_sets_height_hides_and_refuses_a_door(window):
    # car-2 spans (33, 22.5)-(38.5, 24.6), 2.2 m high
    target, es = entries_for(window, 35.0, 23.5)
    assert (target.kind, target.id) == ("obstacle", "car-2")
    heights = entry(es, "Height").children
    assert [h.label for h in heights] == ["0.9 m (low)", "1.5 m (waist-high)", "2.5 m (full)", "Other\u2026 (now 2.2 m)"]
    door = entry(es, "Open the door")
    assert not door.enabled and door.reason == "Van is not a door"
    heights[1].callback()
    assert window.document.encounter.obstacle("car-2").height == 1.5
    entry(es, "Hide from players").callback()
    assert window.document.encounter.obstacle("car-2").hidden


def test_a_door_opens_and_closes_from_its_menu(window):
    enc = window.document.committed
    o = enc.obstacle("wall-2").model_copy(update={"door": True})
    from gui import edits

    window.document.commit(edits.replace(enc, o), "door")
    _, es = entries_for(window, 40.15, 15.0)
    entry(es, "Open the door").callback()
    assert window.document.encounter.obstacle("wall-2").open
    _, es = entries_for(window, 40.15, 15.0)
    entry(es, "Close the door").callback()
    assert not window.document.encounter.obstacle("wall-2").open


def test_a_zone_menu_aims_sets_the_owner_and_deletes(window):
    enc = window.document.encounter
    sup = next(z for z in enc.zones if z.kind == "suppressive")
    target, es = entries_for(window, 30.0, 20.0)  # inside Sam's cone, clear of tokens
    assert (target.kind, target.id) == ("zone", sup.id)
    entry(es, "Aim").callback()
    assert window.selection.ids == (sup.id,) and window.actions["tool:Select"].isChecked()
    owners = entry(es, "Owner").children
    assert owners[0].label == "No owner" and [o.label for o in owners if o.checked] == ["Sam"]
    nyx = next(o for o in owners if o.label == "Nyx")
    nyx.callback()
    assert window.document.encounter.zone(sup.id).owner == "nyx"
    # the fire now comes from Nyx (10.5, 23.5) eastwards: (30, 23.5) is inside it
    target, es = entries_for(window, 30.0, 23.5)
    assert (target.kind, target.id) == ("zone", sup.id)
    entry(es, "Delete").callback()
    assert sup.id not in {z.id for z in window.document.encounter.zones}


def test_empty_ground_offers_a_token_and_fit(window):
    target, es = entries_for(window, 30.0, 36.0)
    assert target.kind == "ground"
    assert [e.label for e in es] == ["Add a token here", "Add a light here", "Fit map"]
    es[0].callback()
    t = window.document.encounter.tokens[-1]
    assert (t.x, t.y) == pytest.approx((30.0, 36.0))


def test_a_right_drag_pans_and_opens_no_menu(window, popped):
    view = window.map_view
    vp = view.viewport()
    before = view.viewport_to_map(QPoint(100, 100))
    a = vp_point(view, 30.0, 36.0)
    QTest.mousePress(vp, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, a)
    for i in range(1, 6):
        QTest.mouseMove(vp, QPoint(a.x() + 12 * i, a.y()), -1)
    QTest.mouseRelease(vp, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, QPoint(a.x() + 60, a.y()))
    after = view.viewport_to_map(QPoint(100, 100))
    assert popped == []
    assert after[0] < before[0] - 0.5  # dragged right: the map moved right under the mouse
    assert after[1] == pytest.approx(before[1], abs=0.2)


def test_greyed_menu_entries_say_why_in_the_status_bar(window, popped):
    right_click(window.map_view, 12.0, 20.0)
    menu = popped[0]
    rules = sub_named(menu, "actions")
    move = next(submenu(a) for a in rules.actions() if a.text() == "Move")
    stand = next(a for a in move.actions() if a.text().startswith("Stand Up"))
    move.hovered.emit(stand)
    assert window.statusBar().currentMessage() == "Stand Up is greyed: Sam is already standing"


def test_the_rule_guis_hook_is_used_when_it_exists(window):
    from dataclasses import dataclass

    calls = []

    @dataclass(frozen=True)
    class CA:
        label: str
        enabled: bool
        reason: str
        callback: object

    class FakeGui:
        def context_actions(self, token_id):
            return [CA("Shove", False, "no one in reach", None), CA("Fire", True, "", lambda: calls.append(token_id))]

    window.rule_gui = FakeGui()
    _, es = entries_for(window, 12.0, 20.0)
    rules = next(e for e in es if e.label.endswith("actions"))
    assert [(c.label, c.enabled, c.reason) for c in rules.children] == [("Shove", False, "no one in reach"), ("Fire", True, "")]
    rules.children[1].callback()
    assert calls == ["sam"]


def test_a_long_list_of_rule_actions_is_grouped_most_likely_first(window):
    """Sam's 32 SR5 actions: no level holds more than 12 entries; the attacks come first
    without a submenu, then Move, Ready / hand, Edge and Other, each group's allowed
    actions before its greyed ones; every action is still there once."""
    from engine.rules import find_system

    enc = window.document.committed
    n = len(find_system("sr5").actions(enc, "sam", None))
    _, es = entries_for(window, 12.0, 20.0)
    rules = next(e for e in es if e.label.endswith("actions"))
    top = [e.label for e in rules.children]
    assert top == ["Attack", "Call a Shot", "Take Aim", "Move", "Ready / hand", "Edge", "Other"]
    assert len(es) <= 12

    def walk(entries):
        assert len(entries) <= 12, [e.label for e in entries]
        out = []
        for e in entries:
            out += walk(e.children) if e.children else [e]
        return out

    leaves = walk(rules.children)
    assert len(leaves) == n == 32 and len({e.label for e in leaves}) == n
    move = next(e for e in rules.children if e.label == "Move")
    assert [e.label for e in move.children] == ["Drop Prone", "Run", "Sprint", "Hit the Dirt", "Stand Up"]
    assert not move.children[-1].enabled  # (Sam is already standing: greyed, last)
    ready = next(e for e in rules.children if e.label == "Ready / hand")
    assert "Reload Firearm" in [e.label for e in ready.children]
    edge = next(e for e in rules.children if e.label == "Edge")
    assert all("Edge" in e.label for e in edge.children) and len(edge.children) == 6
