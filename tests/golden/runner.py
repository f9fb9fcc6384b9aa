"""The one runner of golden scenarios, for every rule system (tests/golden/README.md).

A scenario is an encounter, a list of steps (actions with their dice, moves, refusals,
previews, undo) and the numbers expected after each; every action goes through the
registered :class:`engine.rules.RuleSystem` (``action_from_data``, ``why_not``, ``preview``,
``apply``, ``on_moves``, ``actions``), as python-chess runs every variant's perft file with
one runner. After every step the encounter must save and load back equal.
"""

from __future__ import annotations

import functools
import json
import math
import re
import types
from pathlib import Path
from typing import Any

from engine.errors import CoverfireError, IllegalActionError
from engine.files import dumps_encounter, encounter_from_data, encounter_to_data, loads_encounter
from engine.model import Encounter
from engine.rules import MoveTo, Outcome, RuleSystem, find_system

GOLDEN = Path(__file__).parent
STEP_KINDS = ("do", "refuse", "fails", "preview", "moves", "actions", "call", "patch", "check", "undo")


# -- the encounter -----------------------------------------------------------------------------
def load_scenario(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def make_encounter(sc: dict[str, Any], base: Path) -> Encounter:
    """The scenario's encounter: inline, or a file beside it; its ``ruleset`` is the
    scenario's; then ``patch`` merged in."""
    spec = sc["encounter"]
    data = json.loads((base / spec).read_text(encoding="utf-8")) if isinstance(spec, str) else dict(spec)
    data.setdefault("format", "coverfire.encounter")
    data.setdefault("version", 2)
    data["ruleset"] = sc["ruleset"]
    enc = encounter_from_data(data)
    return patch(enc, sc["patch"]) if "patch" in sc else enc


def _merge(into: dict, upd: dict) -> None:
    for k, v in upd.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = v


def patch(enc: Encounter, spec: dict[str, Any]) -> Encounter:
    """Merge ``{"tokens": {id: {fields, "rules": {...}}}, "obstacles": [...], "zones": [...],
    "rules": {...}}`` into the encounter, through the file layer (so it validates). Token
    fields and rules merge key by key; obstacles and zones are replaced."""
    data = encounter_to_data(enc)
    for tid, upd in spec.get("tokens", {}).items():
        _merge(next(t for t in data["tokens"] if t["id"] == tid), upd)
    for group in ("obstacles", "zones"):
        if group in spec:
            data[group] = spec[group]
    if "rules" in spec:
        _merge(data.setdefault("rules", {}), spec["rules"])
    return encounter_from_data(data)


# -- paths into what a step answers --------------------------------------------------------------
class _Bound:
    """An object whose callables are called with the encounter first (``system.status(bo)``
    means ``system.status(encounter, "bo")``)."""

    def __init__(self, obj: Any, enc: Encounter) -> None:
        self.obj, self.enc = obj, enc

    def __getattr__(self, name: str) -> Any:
        v = getattr(self.obj, name)
        if isinstance(v, (types.ModuleType,)) or (not callable(v) and hasattr(v, "__dict__") and not isinstance(v, type)):
            return _Bound(v, self.enc)
        if callable(v) and not isinstance(v, type):
            return functools.partial(v, self.enc)
        return v


_CALL = re.compile(r"^(\w+)\((.*)\)$")
_PICK = re.compile(r"^(\w+)\[(\w+)=(.+)\]$")


def _arg(s: str) -> Any:
    s = s.strip()
    try:
        return json.loads(s)
    except ValueError:
        return s


def _split(path: str) -> list[str]:
    """Dots outside parentheses and brackets separate the parts."""
    out, depth, cur = [], 0, ""
    for c in path:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "." and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    out.append(cur)
    return out


def _step_into(obj: Any, part: str) -> Any:
    m = _CALL.match(part)
    if m:
        args = [_arg(a) for a in m.group(2).split(",")] if m.group(2).strip() else []
        return getattr(obj, m.group(1))(*args)
    m = _PICK.match(part)
    if m:
        seq = _step_into(obj, m.group(1))
        want = _arg(m.group(3))
        for item in seq:
            if getattr(item, m.group(2), None) == want or (isinstance(item, dict) and item.get(m.group(2)) == want):
                return item
        raise AssertionError(f"no item with {m.group(2)} = {want!r} in {m.group(1)}")
    if isinstance(obj, dict):
        if part in obj:
            return obj[part]
        raise AssertionError(f"no key {part!r} (keys: {sorted(obj)})")
    if isinstance(obj, (list, tuple)) and part.lstrip("-").isdigit():
        return obj[int(part)]
    return getattr(obj, part)


def _filter(value: Any, f: str) -> Any:
    name, _, arg = f.partition(":")
    if name == "len":
        return len(value)
    if name == "map":
        return [x[int(arg)] if arg.isdigit() else (x[arg] if isinstance(x, dict) else getattr(x, arg)) for x in value]
    if name == "dict":
        k, v = arg.split(":")
        return {getattr(x, k): getattr(x, v) for x in value}
    if name == "keys":
        return sorted(value)
    if name == "str":
        return str(value)
    raise AssertionError(f"unknown filter {f!r}")


class View:
    """What a step's expectations read: the encounter after the step and what the step
    answered (outcome, preview, options)."""

    def __init__(self, system: RuleSystem, enc: Encounter, outcome: Outcome | None = None, preview: Any = None,
                 options: Any = None, result: Any = None) -> None:
        self.system, self.enc, self.outcome, self.preview = system, enc, outcome, preview
        self.options, self.result = options, result

    def root(self, head: str) -> Any:
        enc, s = self.enc, self.system
        if head == "tokens":
            return {t.id: _Token(t, s) for t in enc.tokens}
        if head == "zones":
            return {z.id: z for z in enc.zones}
        if head == "obstacles":
            return {o.id: o for o in enc.obstacles}
        if head == "settings":
            return s.settings(enc)
        if head == "outcome":
            return self.outcome
        if head == "detail":
            return self.outcome.detail
        if head == "preview":
            return self.preview
        if head == "options":
            return self.options
        if head == "result":
            return self.result
        if head == "status":
            return {t.id: s.token_status(enc, t.id) for t in enc.tokens}
        if head == "round":
            return s.round_status(enc)
        if head == "system":
            return _Bound(s, enc)
        if head == "encounter":
            return enc
        raise AssertionError(f"unknown root {head!r}")

    def get(self, path: str) -> Any:
        path, *filters = path.split("|")
        head, *rest = _split(path)
        obj = self.root(head)
        for part in rest:
            obj = _step_into(obj, part)
        for f in filters:
            obj = _filter(obj, f)
        return obj


class _Token:
    """A token for paths: its fields, and ``sheet`` = its data for the scenario's system
    (with the system's defaults when it has none)."""

    def __init__(self, token, system: RuleSystem) -> None:
        self._t, self._s = token, system

    def __getattr__(self, name: str) -> Any:
        if name == "sheet":
            return self._s.sheet(self._t)
        return getattr(self._t, name)


# -- comparing ---------------------------------------------------------------------------------
def _plain(v: Any) -> Any:
    if hasattr(v, "model_dump"):
        return v.model_dump(mode="json")
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return v


def same(actual: Any, expected: Any, tol: float) -> bool:
    if isinstance(expected, dict) and set(expected) == {"has"}:
        text = "\n".join(map(str, actual)) if isinstance(actual, (list, tuple)) else str(actual)
        return all(piece in text for piece in expected["has"])
    if isinstance(expected, bool) or expected is None or isinstance(expected, str):
        return actual == expected
    if isinstance(expected, (int, float)):
        return isinstance(actual, (int, float)) and not isinstance(actual, bool) and math.isclose(
            float(actual), float(expected), abs_tol=tol)
    if isinstance(expected, list):
        actual = list(_plain(actual)) if isinstance(actual, (list, tuple)) else actual
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            same(a, e, tol) for a, e in zip(actual, expected))
    if isinstance(expected, dict):
        if isinstance(actual, dict):
            return set(actual) >= set(expected) and all(same(actual[k], v, tol) for k, v in expected.items())
        return all(same(getattr(actual, k), v, tol) for k, v in expected.items())
    return actual == expected


def check(where: str, view: View, expected: dict[str, Any], tol: float) -> None:
    for path, want in expected.items():
        if path == "log":  # the new log lines contain each text, in this order
            lines = "\n".join(view.outcome.changes.log)
            pos = 0
            for piece in want:
                at = lines.find(piece, pos)
                assert at >= 0, f"{where}: the log lacks {piece!r} (in order) in:\n{lines}"
                pos = at + len(piece)
            continue
        try:
            got = view.get(path)
        except (AttributeError, KeyError, IndexError, TypeError) as exc:
            raise AssertionError(f"{where}: {path}: {type(exc).__name__}: {exc}") from None
        assert same(got, want, tol), f"{where}: {path} is {_plain(got)!r}, expected {want!r}"


# -- running -----------------------------------------------------------------------------------
def run(path: Path) -> None:
    sc = load_scenario(path)
    system = find_system(sc["ruleset"])
    enc = make_encounter(sc, path.parent)
    history: list[Encounter] = []
    for n, step in enumerate(sc["steps"], 1):
        kinds = [k for k in STEP_KINDS if k in step]
        assert len(kinds) == 1, f"{path.name} step {n}: give one of {STEP_KINDS}, got {kinds}"
        kind = kinds[0]
        where = f"{path.name} step {n} ({kind})" + (f": {step['note']}" if "note" in step else "")
        tol = float(step.get("tol", sc.get("tol", 1e-6)))
        exp = step.get("expect", {})
        if kind in ("do", "refuse", "fails", "preview"):
            action = system.action_from_data(step[kind])
        if kind == "do":
            preview = _preview(system, enc, action)
            reason = system.why_not(enc, action)
            assert reason is None, f"{where}: refused: {reason}"
            dice = system.dice_from_data(step["dice"]) if "dice" in step else None
            out = system.apply(enc, action, dice)
            if isinstance(step.get("dice"), list) and hasattr(dice, "used"):
                assert dice.used == len(step["dice"]), f"{where}: {len(step['dice'])} dice given, {dice.used} used"
            check(where, View(system, out.encounter, out, preview), exp, tol)
            if step.get("keep", True):
                history.append(enc)
                enc = out.encounter
        elif kind == "refuse":
            reason = system.why_not(enc, action)
            assert reason is not None and step["reason"] in reason, f"{where}: reason {reason!r} lacks {step['reason']!r}"
            try:
                system.apply(enc, action, system.dice_from_data(step["dice"]) if "dice" in step else None)
            except IllegalActionError as exc:
                assert exc.reason == reason, f"{where}: apply refused with {exc.reason!r}, why_not said {reason!r}"
            else:
                raise AssertionError(f"{where}: apply did not refuse")
            check(where, View(system, enc, None, _preview(system, enc, action)), exp, tol)
        elif kind == "fails":
            before = enc
            try:
                system.apply(enc, action, system.dice_from_data(step["dice"]) if "dice" in step else None)
            except (CoverfireError, ValueError) as exc:
                assert step["error"] in str(exc), f"{where}: error {exc!s} lacks {step['error']!r}"
            else:
                raise AssertionError(f"{where}: apply did not fail")
            assert enc == before
        elif kind == "preview":
            before = enc
            pv = system.preview(enc, action)
            assert enc == before, f"{where}: a preview changed the encounter"
            check(where, View(system, enc, None, pv), exp, tol)
        elif kind == "moves":
            moves = [MoveTo(m["token"], (float(m["to"][0]), float(m["to"][1])),
                            tuple(map(tuple, m["path"])) if m.get("path") else None) for m in step["moves"]]
            out = system.on_moves(enc, moves)
            check(where, View(system, out.encounter, out), exp, tol)
            history.append(enc)
            enc = out.encounter
        elif kind == "actions":
            body = step["actions"]
            opts = {o.key: o for o in system.actions(enc, body["actor"], body.get("target"))}
            check(where, View(system, enc, options=opts), exp, tol)
        elif kind == "call":  # a system's own question: {"call": "system.check_move", "args": [...]}
            body = step["call"]
            fn = View(system, enc).get(body["name"])
            try:
                result = fn(*body.get("args", []))
            except IllegalActionError as exc:
                assert body.get("raises") and body["raises"] in exc.reason, f"{where}: raised {exc.reason!r}"
            else:
                assert not body.get("raises"), f"{where}: did not raise {body['raises']!r}"
                check(where, View(system, enc, result=result), exp, tol)
        elif kind == "patch":
            history.append(enc)
            enc = patch(enc, step["patch"])
        elif kind == "check":
            check(where, View(system, enc), step["check"], tol)
        elif kind == "undo":
            for _ in range(int(step["undo"])):
                enc = history.pop()
            check(where, View(system, enc), exp, tol)
        again = loads_encounter(dumps_encounter(enc))
        assert again == enc, f"{where}: the encounter does not save and load back equal"


def _preview(system: RuleSystem, enc: Encounter, action: Any) -> Any:
    try:
        return system.preview(enc, action)
    except IllegalActionError:
        return None


def scenarios() -> list[Path]:
    """Every scenario file: ``tests/golden/<ruleset>/*.json`` (other JSON files there, such
    as a shared encounter, are named ``_*.json``)."""
    return sorted(p for p in GOLDEN.glob("*/*.json") if not p.name.startswith("_"))


__all__ = ["View", "patch", "run", "same", "scenarios"]
