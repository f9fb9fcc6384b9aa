"""Runs a Static Veil golden scenario: an encounter, then steps, each with expected numbers.

A scenario file (``scenarios/*.json``) holds ``name``, ``about`` (the hand derivation of its
numbers), optional ``tol`` (metres / points, default 1e-6), ``encounter`` (an encounter object;
``ruleset`` defaults to static-veil) and ``steps`` (a step may carry its own ``tol``). A step is one of

* ``{"do": KEY, ...fields, "expect": {...}}``: apply the maneuver (``KEY`` of
  ``ACTION_BY_KEY``); ``outcome`` {won, net_hits}, ``attack`` {hit, net_hits, damage},
  ``resist`` {passed} are the GM's entries;
* ``{"refuse": KEY, ...fields, "reason": "text"}``: check, preview and apply all refuse with
  a reason containing the text, and nothing changes;
* ``{"needs": KEY, ...fields, "test": "text"}``: apply asks for a test outcome first;
* ``{"preview": KEY, ...fields, "expect": {...}}``: the preview's fields (dotted paths);
* ``{"picker": ACTOR, "target": ID|null, "expect": {KEY: [allowed, "reason text"|null, ap]}}``;
* ``{"start_turn": ID, "new_round": bool}``, ``{"end_turn": ID}``: turn bookkeeping;
* ``{"move": ID, "to": [x, y], "length": m, "why": "text"|null}``: a normal move check
  (refused with a reason containing the text, or allowed for null);
* ``{"undo": N}``: undo the last N applied steps.

``expect`` after an applied step: ``tokens`` {id: {dotted.path: value}}, ``log`` [texts the
new log lines contain, in order], ``success``, ``settings`` {dotted.path: value},
``moves`` {id: [[x, y], ...]}, ``rolls`` [[roll, hits], ...].
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from engine.errors import IllegalActionError
from engine.model import Encounter
from engine.static_veil import RULESET
from engine.static_veil.actions import ACTION_BY_KEY
from engine.static_veil.dice import Attack, Check, Opposed
from engine.static_veil.rules import OutcomeNeededError
from engine.static_veil.sheet import Sheet

SCENARIOS = Path(__file__).with_name("scenarios")
STEP_KINDS = ("do", "refuse", "needs", "preview", "picker", "start_turn", "end_turn", "move", "undo")


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def make_encounter(data: dict[str, Any]) -> Encounter:
    data = dict(data)
    data.setdefault("ruleset", "static-veil")
    return Encounter.model_validate(data)


def make_action(key: str, fields: dict[str, Any]) -> Any:
    cls = ACTION_BY_KEY[key]
    kw: dict[str, Any] = {}
    for k, v in fields.items():
        if k in ("expect", "reason", "test", "tol", *STEP_KINDS):
            continue
        if k == "outcome":
            v = Opposed(**v)
        elif k == "attack":
            v = Attack(**v)
        elif k == "resist":
            v = Check(**v)
        elif k == "to":
            v = (float(v[0]), float(v[1]))
        elif k == "modifiers":
            v = tuple((str(a), int(b)) for a, b in v)
        kw[k] = v
    return cls(**kw)


def get(obj: Any, path: str) -> Any:
    """Follow a dotted path through attributes, dict keys and list indices."""
    for part in path.split("."):
        if obj is None and part != "static_veil":
            raise AssertionError(f"{path}: reached None before {part!r}")
        if isinstance(obj, dict):
            obj = obj[part]
        elif isinstance(obj, (list, tuple)) and part.lstrip("-").isdigit():
            obj = obj[int(part)]
        elif part == "static_veil" and hasattr(obj, "rules"):
            nxt = obj.rules.get("static-veil")
            if nxt is None and hasattr(obj, "stance"):
                nxt = Sheet()  # a token without a sheet has the default one
            obj = nxt
        else:
            obj = getattr(obj, part)
    return obj


def same(actual: Any, expected: Any, tol: float) -> bool:
    if isinstance(expected, bool) or expected is None or isinstance(expected, str):
        return actual == expected
    if isinstance(expected, (int, float)):
        return isinstance(actual, (int, float)) and not isinstance(actual, bool) and math.isclose(
            float(actual), float(expected), abs_tol=tol
        )
    if isinstance(expected, list):
        actual = list(actual)
        return len(actual) == len(expected) and all(same(a, e, tol) for a, e in zip(actual, expected))
    if isinstance(expected, dict):
        return all(same(get(actual, k), v, tol) for k, v in expected.items())
    return actual == expected


def check_values(where: str, obj: Any, expected: dict[str, Any], tol: float) -> None:
    for path, want in expected.items():
        got = get(obj, path)
        assert same(got, want, tol), f"{where}: {path} is {got!r}, expected {want!r}"


def run(path: Path) -> None:
    sc = load(path)
    tol = float(sc.get("tol", 1e-6))
    enc = make_encounter(sc["encounter"])
    changes: list[Any] = []
    for i, step in enumerate(sc["steps"]):
        tol = float(step.get("tol", sc.get("tol", 1e-6)))
        kinds = [k for k in STEP_KINDS if k in step]
        assert len(kinds) == 1, f"{path.name} step {i}: one of {STEP_KINDS}, got {kinds}"
        where = f"{path.name} step {i} ({kinds[0]})"
        if "do" in step:
            action = make_action(step["do"], step)
            res = RULESET.apply(enc, action)
            enc = res.encounter
            changes.append(res.change)
            _expect_change(where, enc, res.change, step.get("expect", {}), tol)
        elif "refuse" in step:
            action = make_action(step["refuse"], step)
            text = step["reason"]
            assert RULESET.is_legal(enc, action) is False, f"{where}: expected a refusal"
            why = RULESET.why_not(enc, action)
            assert why is not None and text in why, f"{where}: reason {why!r} lacks {text!r}"
            pv = RULESET.preview(enc, action)
            assert pv.allowed is False and pv.reason == why, f"{where}: preview {pv.reason!r}"
            try:
                RULESET.apply(enc, action)
            except IllegalActionError as exc:
                assert exc.reason == why
            else:
                raise AssertionError(f"{where}: apply did not refuse")
            if "expect" in step:
                check_values(where, pv, step["expect"], tol)
        elif "needs" in step:
            action = make_action(step["needs"], step)
            try:
                RULESET.apply(enc, action)
            except OutcomeNeededError as exc:
                assert step["test"] in str(exc), f"{where}: {exc} lacks {step['test']!r}"
                assert exc.tests, f"{where}: no test listed"
            else:
                raise AssertionError(f"{where}: apply did not ask for an outcome")
        elif "preview" in step:
            action = make_action(step["preview"], step)
            before = enc
            pv = RULESET.preview(enc, action)
            assert enc == before
            check_values(where, pv, step.get("expect", {}), tol)
        elif "picker" in step:
            opts = {o.key: o for o in RULESET.available_maneuvers(enc, step["picker"], step.get("target"))}
            for key, (allowed, reason, ap) in step["expect"].items():
                o = opts[key]
                assert o.allowed is allowed, f"{where}: {key} allowed={o.allowed} ({o.reason})"
                if reason is None:
                    assert o.reason is None, f"{where}: {key} reason {o.reason!r}"
                else:
                    assert o.reason is not None and reason in o.reason, f"{where}: {key} reason {o.reason!r}"
                assert o.ap_cost == ap, f"{where}: {key} costs {o.ap_cost}"
        elif "start_turn" in step:
            res = RULESET.start_turn(enc, step["start_turn"], new_round=step.get("new_round", False))
            enc = res.encounter
            changes.append(res.change)
            _expect_change(where, enc, res.change, step.get("expect", {}), tol)
        elif "end_turn" in step:
            res = RULESET.end_turn(enc, step["end_turn"])
            enc = res.encounter
            changes.append(res.change)
            _expect_change(where, enc, res.change, step.get("expect", {}), tol)
        elif "move" in step:
            to = tuple(step["to"])
            want = step.get("why")
            try:
                RULESET.check_move(enc, step["move"], to, step.get("length"))
            except IllegalActionError as exc:
                assert want is not None and want in exc.reason, f"{where}: refused: {exc.reason}"
            else:
                assert want is None, f"{where}: move was allowed, expected {want!r}"
        elif "undo" in step:
            for _ in range(int(step["undo"])):
                enc = RULESET.undo(enc, changes.pop())
            _expect_state(where, enc, step.get("expect", {}), tol)
        else:
            raise AssertionError(f"{where}: unknown step {step}")


def _expect_state(where: str, enc: Encounter, exp: dict[str, Any], tol: float) -> None:
    for tid, fields in exp.get("tokens", {}).items():
        check_values(f"{where} token {tid}", enc.token(tid), fields, tol)
    if "settings" in exp:
        check_values(f"{where} settings", RULESET.settings(enc), exp["settings"], tol)


def _expect_change(where: str, enc: Encounter, change: Any, exp: dict[str, Any], tol: float) -> None:
    _expect_state(where, enc, exp, tol)
    if "success" in exp:
        assert change.success is exp["success"], f"{where}: success {change.success}"
    if "log" in exp:
        lines = [e.text for e in change.log]
        text = "\n".join(lines)
        pos = 0
        for want in exp["log"]:
            at = text.find(want, pos)
            assert at >= 0, f"{where}: log lacks {want!r} (in order) in:\n{text}"
            pos = at + len(want)
    if "moves" in exp:
        got = {m.token: [list(p) for p in m.path] for m in change.moves}
        for tid, pts in exp["moves"].items():
            assert tid in got, f"{where}: {tid} did not move"
            assert same(got[tid], pts, tol), f"{where}: {tid} moved along {got[tid]}, expected {pts}"
    if "rolls" in exp:
        got_rolls = [[r.roll, r.hits] for r in change.rolls]
        assert got_rolls == exp["rolls"], f"{where}: rolls {got_rolls}"
