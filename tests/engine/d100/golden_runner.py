"""Runs a d100 golden scenario: a JSON file of tokens, settings and steps, each step an
action with the exact dice it rolls and the numbers expected afterwards.

File layout (see tests/engine/d100/golden/README.md)::

    {"name": ..., "settings": {...}, "tokens": [{"id", "x", "y", "d100": {...}}, ...],
     "steps": [{"do": {"type": "fire", "actor": "ana", "targets": ["bo"]},
                "dice": [12, 40, 6], "expect": {"bo.injury": 6, "shots.0.placed": false}},
               {"do": {...}, "illegal": "full cover"},
               {"undo": true, "expect": {...}}]}

Expect paths start at a token id (its d100 sheet, plus ``map_stance``), ``status.<id>``,
``settings``, ``preview`` (computed before the step's action), or the change record
(``shots``, ``recover``, ``events``, ``rolls``); ``event_kinds`` is the list of event kinds
and ``log`` must contain each given text; a path ending in ``|len`` compares a length. Every die given must be used, and no more.
"""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from engine.d100 import RULESET
from engine.d100.actions import ACTIONS, TargetSpec
from engine.d100.dice import ScriptedDice
from engine.model import Encounter

GOLDEN = Path(__file__).parent / "golden"
_BY_KEY = {cls.key: cls for cls in ACTIONS}


def build_encounter(data: dict) -> Encounter:
    tokens = []
    for t in data["tokens"]:
        tok = {"x": 0.0, "y": 0.0, **t}
        tok.setdefault("d100", {})
        tokens.append(tok)
    return Encounter.model_validate({
        "ruleset": "d100",
        "map": {"width": 50, "height": 50},
        "obstacles": data.get("obstacles", []),
        "tokens": tokens,
        "d100": data.get("settings", {}),
    })


def _target(v: Any) -> TargetSpec | None:
    if v is None or isinstance(v, str):
        return TargetSpec(v) if v else None
    v = dict(v)
    for k in ("hidden", "modifiers"):
        if k in v and v[k] is not None:
            v[k] = tuple(tuple(m) if isinstance(m, list) else m for m in v[k])
    return TargetSpec(**v)


def build_action(spec: dict):
    spec = dict(spec)
    cls = _BY_KEY[spec.pop("type")]
    if "targets" in spec:
        spec["targets"] = tuple(_target(t) for t in spec["targets"])
    for k in ("target", "off_target"):
        if k in spec and cls.__name__ in ("Melee", "FireTwoPistols"):
            spec[k] = _target(spec[k])
    if "modifiers" in spec:
        spec["modifiers"] = tuple(tuple(m) for m in spec["modifiers"])
    return cls(**spec)


def _get(obj: Any, part: str) -> Any:
    if isinstance(obj, dict):
        if part in obj:
            return obj[part]
        raise KeyError(part)
    if isinstance(obj, (list, tuple)):
        return obj[int(part)]
    return getattr(obj, part)


def resolve(path: str, enc: Encounter, change, preview) -> Any:
    head, *rest = path.split(".")
    if head == "status":
        obj: Any = RULESET.status(enc, rest[0])
        rest = rest[1:]
    elif head == "settings":
        obj = RULESET.settings(enc)
    elif head == "preview":
        obj = preview
    elif head == "event_kinds":
        obj = [e.kind for e in change.events]
    elif head in ("shots", "recover", "events", "rolls"):
        obj = getattr(change, head)
    elif head == "order":
        obj = [r[0] for r in RULESET.round_order(enc)]
    else:
        tok = enc.token(head)
        if rest and rest[0] == "map_stance":
            return tok.stance
        obj = RULESET.sheet(enc, head)
    for part in rest:
        if part == "severity" and hasattr(obj, "wound"):
            raise AssertionError("use wounds.<location>.severity")
        if isinstance(obj, dict) and part not in obj and path.split(".")[-2:-1] == ["wounds"]:
            obj = {}
        if hasattr(obj, "wound") and part == "wounds":
            obj = {loc: obj.wound(loc) for loc in RULESET.locations}
            continue
        obj = _get(obj, part)
    return obj


def _plain(v: Any) -> Any:
    if is_dataclass(v):
        return {f.name: _plain(getattr(v, f.name)) for f in fields(v)}
    if hasattr(v, "model_dump"):
        return v.model_dump(mode="json")
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return v


def run_scenario(path: Path) -> None:
    data = json.loads(path.read_text())
    enc = build_encounter(data)
    history = []
    for n, step in enumerate(data["steps"], 1):
        where = f"{path.name} step {n}" + (f" ({step['note']})" if "note" in step else "")
        change = None
        preview = None
        if step.get("undo"):
            enc = RULESET.undo(enc, history.pop())
        else:
            action = build_action(step["do"])
            preview = RULESET.preview(enc, action)
            if "illegal" in step:
                reason = RULESET.why_not(enc, action)
                assert reason is not None, f"{where}: expected illegal ({step['illegal']}), was legal"
                assert step["illegal"] in reason, f"{where}: reason {reason!r} lacks {step['illegal']!r}"
                assert not preview.legal
                continue
            assert preview.legal, f"{where}: illegal: {preview.reason}"
            values = step.get("dice", [])
            dice = ScriptedDice(values)
            change = RULESET.apply(enc, action, dice)
            assert dice.used == len(values), (
                f"{where}: {len(values)} dice given, {dice.used} used: "
                f"{[r.text() for r in change.rolls]}")
            enc = change.encounter
            history.append(change)
        for key, want in step.get("expect", {}).items():
            if key == "log":
                texts = "\n".join(e.text for e in change.log)
                for piece in want:
                    assert piece in texts, f"{where}: log lacks {piece!r}:\n{texts}"
                continue
            if key.endswith("|len"):
                got = len(resolve(key[:-4], enc, change, preview))
            else:
                got = _plain(resolve(key, enc, change, preview))
            assert got == want, f"{where}: {key} = {got!r}, expected {want!r}"
        # the saved file must still load back equal after every step
        again = Encounter.model_validate_json(enc.model_dump_json())
        assert again == Encounter.model_validate(enc.model_dump()), f"{where}: file round trip"
