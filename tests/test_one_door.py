"""One door per rule system (issue 27): the window plans, rolls and applies rule actions through
the ``engine.rules.RuleSystem`` of the encounter, never through a system's own functions.

A script, as import-linter checks the layers: it reads every module under ``gui/`` and finds
the uses of a system's action-flow functions (planning, checking, rolling, applying an action
or a turn step: a call, or the function handed on to be called) on a name imported from a
system package (``engine.sr5``, ``engine.d100``, ``engine.static_veil``: a function, a module
alias such as ``combat``, the native ``RULESET``) or on ``_ruleset()``. Reads of a system's
sheets, settings, tables and map facts may stay. There are none left: a new one fails."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = ("engine.sr5", "engine.d100", "engine.static_veil")

#: The action flow: what plans, checks, rolls or applies an action or a step of the turn.
ACTION_FLOW = frozenset({
    "plan_attack", "resolve_attack", "apply_attack", "check_attack",
    "start_blast", "plan_blast", "apply_blast",
    "plan_suppressive", "apply_suppressive", "plan_suppression_test", "resolve_suppression_test",
    "apply_suppression_test",
    "apply_action", "check_action", "plan_action", "apply_move", "check_move",
    "start_turn", "end_turn", "end_phase", "start_round", "end_round", "next_phase",
    "apply", "preview", "check", "why_not", "move", "plan_move", "available_maneuvers",
    "available_actions", "start_resolution", "plan_blast_on_map", "resolve_blast", "landing_facts",
    "apply_damage", "roll_through", "SuppressionTestResolution", "AttackResolution", "BlastResolution",
    "action_cost",
})


def _system_names(tree: ast.Module) -> set[str]:
    """Names bound in the module to something of a system package (functions, modules,
    ``RULESET``), by ``import`` or ``from ... import``, anywhere in the module."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith(SYSTEMS) or node.module == "engine" and any(
                    a.name in ("sr5", "d100", "static_veil") for a in node.names):
                out |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith(SYSTEMS):
                    out.add(a.asname or a.name.split(".")[0])
    return out


def _base_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_ruleset":
        return "_ruleset()"
    if isinstance(node, ast.Attribute):
        return _base_name(node.value)
    return None


def past_the_door(path: Path) -> list[tuple[int, str]]:
    """(line, call) of every action-flow call into a system's own functions in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = _system_names(tree) | {"_ruleset()"}
    for node in ast.walk(tree):  # ``R = _ruleset()``, ``rules = RULESET``: aliases of the same
        if isinstance(node, ast.Assign) and _base_name(node.value) in names:
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    out = []
    for node in ast.walk(tree):  # every use, called or handed on (``self.apply(combat.end_phase)``)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in ACTION_FLOW \
                and node.id in names:
            out.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute) and node.attr in ACTION_FLOW and _base_name(node.value) in names:
            out.append((node.lineno, f"{ast.unparse(node.value)}.{node.attr}"))
    return sorted(out)


def found() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for path in sorted((ROOT / "gui").rglob("*.py")):
        calls = past_the_door(path)
        if calls:
            out[path.relative_to(ROOT).as_posix()] = calls
    return out


def test_no_action_flow_call_from_the_gui_past_the_rule_system():
    assert found() == {}, "call the RuleSystem (find_system / encounter.system) instead"


def test_the_script_finds_a_call_past_the_door(tmp_path):
    src = tmp_path / "page.py"
    src.write_text(
        "from engine.sr5 import combat\n"
        "from engine.sr5.attack import plan_attack, weapon_bands\n"
        "from engine.d100 import RULESET\n"
        "def f(enc, a):\n"
        "    plan_attack(enc, a)\n"          # a system's own planner
        "    combat.apply_action(enc, a)\n"  # through a module alias
        "    RULESET.apply(enc, a)\n"        # the native facade
        "    weapon_bands(a, None)\n"        # a read: allowed
        "    R = RULESET\n"
        "    R.preview(enc, a)\n"             # an alias of the facade
        "    enc.system.apply(enc, a)\n"     # the door: allowed
        "    run(combat.end_phase)\n",       # handed on to be called
        encoding="utf-8")
    assert past_the_door(src) == [(5, "plan_attack"), (6, "combat.apply_action"), (7, "RULESET.apply"),
                                  (10, "R.preview"), (12, "combat.end_phase")]
