"""The Qt-free session under the window's document (issue 27 item 3): the committed and the
previewed values, a landing through the hooks, the steps' values undone and redone, the
Tactics following; tested without a window (and it imports no Qt)."""

from __future__ import annotations

import ast
from pathlib import Path

from engine.rules import MoveTo
from gui.session import Session
from tests.engine.sr5.helpers import encounter, token


def _two():
    return encounter(token("sam", 0, 0, side="runner"), token("a", 10, 0))


def test_the_session_imports_no_qt():
    tree = ast.parse((Path(__file__).resolve().parents[1] / "gui" / "session.py").read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not any(m.startswith(("PySide6", "pyqtgraph", "gui.")) for m in imported)


def test_a_preview_shows_without_committing_and_the_tactics_follow():
    s = Session(_two())
    moved = s.committed.model_copy(update={"tokens": (s.committed.tokens[0].model_copy(update={"x": 4.0}),
                                                      s.committed.tokens[1])})
    before = s.committed
    assert s.show(moved, preview=True) is before
    assert s.in_preview and s.committed is before and s.encounter is moved
    assert s.tactics.targets("sam")[0].distance == 6.0  # 10 - 4, the previewed value
    s.show(before)
    assert not s.in_preview and s.tactics.targets("sam")[0].distance == 10.0


def test_a_landing_runs_the_hooks_in_order_and_the_recorder_last():
    s = Session(_two())
    seen = []
    s.commit_hooks.append(lambda b, a, t: seen.append(("sight", t)) or a.model_copy(update={"name": "seen"}))
    s.record_hook = lambda b, a, t: seen.append(("record", a.name)) or a
    after = s.committed.model_copy(update={"name": "edited"})
    step = s.land(after, "Rename")
    assert seen == [("sight", "Rename"), ("record", "seen")]
    assert (step.before, step.after.name, step.text) == (s.committed, "seen", "Rename")
    assert s.land(s.committed, "nothing") is None and seen == [("sight", "Rename"), ("record", "seen")]


def test_a_drag_is_charged_by_the_moves_hook_a_placement_is_not():
    s = Session(_two())
    asked = []

    def charge(before, moves, text):
        asked.append(moves)
        return before.model_copy(update={"name": "charged"}), text + " (counted)"

    s.moves_hook = charge
    walk = MoveTo("sam", (3.0, 4.0), path=((3.0, 0.0),))
    step = s.land_moves([walk], "Move Sam")
    assert asked == [(walk,)] and step.after.name == "charged" and step.text == "Move Sam (counted)"
    placed = s.committed.model_copy(update={"tokens": (s.committed.tokens[0].model_copy(update={"x": 3.0}),
                                                       s.committed.tokens[1])})
    assert s.land(placed, "Edit x").after is placed and len(asked) == 1  # an x typed in: not movement


def test_a_step_undone_and_redone_shows_its_values():
    s = Session(_two())
    step = s.land(s.committed.model_copy(update={"name": "b"}), "Rename")
    first = s.committed
    assert s.redo(step) is first and s.committed is step.after
    assert s.undo(step) is step.after and s.committed is first
    Session.rebase([step], lambda e: e.model_copy(update={"name": e.name + "!"}))
    assert (step.before.name, step.after.name) == (first.name + "!", "b!")
