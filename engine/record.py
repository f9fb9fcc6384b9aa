"""The fight as a story: every applied rule action and every move in a round, kept in order
with its round, its log lines and what it changed, inside the encounter (issue 31).

The record is a field of the encounter value (``Encounter.record``), so it is saved with the
file and the autosave, and an undo takes an undone action out of it with everything else (an
undo swaps the whole value back). :func:`extend` is what the window passes every commit
through; an action that wrote log lines is an ``"action"`` step, a move during a round a
``"move"`` step, and (once recording has begun) any other change of tokens, zones, the rule
data or the sight settings an ``"edit"`` step, so that the replay is always true (edit steps
are no stops of the timeline).

What a step changed is a patch of JSON operations (RFC 6902's ``add``, ``remove`` and
``replace``, JSON Pointer paths) on the *replay state*: the encounter's tokens and zones by
id, its rule data and its sight settings (fog, sides, light; the explored areas only at the
first step of each round). Obstacles, lights and the map are not recorded: the replay draws
today's. :func:`state_at` gives the state after any step; :func:`encounter_at` the encounter
as it was then. See docs/encounter-format.md, "The recorded fight".

Every step carries ``check``, a digest chained over the start and every step before it, so a
record edited by hand, truncated or cut out of another file is refused when it is read
(:func:`attach`: the encounter still opens, without it, and the message names the step).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

from engine.errors import excerpt

FORMAT = "coverfire.record"
VERSION = 1
#: Steps a record keeps; past it recording stops (and says so once, in the last step's label).
MAX_STEPS = 20_000
#: Of every this many steps :func:`state_at` keeps the state, so a timeline jumps quickly.
CHECKPOINT_EVERY = 64

StepKind = Literal["action", "move", "edit"]
#: A JSON object of any fields (its schema spelled out: pydantic versions write it differently).
_Object = Annotated[dict[str, Any], WithJsonSchema({"type": "object", "additionalProperties": True})]


class Step(BaseModel):
    """One step of the fight. ``kind``: an ``"action"`` (it wrote log lines), a ``"move"``
    during a round, or an ``"edit"`` (anything else the GM changed meanwhile: no stop of the
    timeline). ``round``: the system's round number (SR5: the Combat Turn; 0 before the
    first); ``turn``: its round line ("Combat Turn 1, pass 2"). ``label``: the undo step's
    text. ``actor``/``targets``: token ids (who acted, on whom) when known. ``log``: the
    lines the step wrote. ``patch``: what it changed (module docstring). ``check``: the
    chained digest."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    kind: StepKind
    round: int = Field(ge=0)
    turn: str = ""
    #: the system's words for the moment it was taken in (``RuleSystem.current_turn`` before
    #: it: "pass 1, phase 3", "round 2"); "" outside a turn
    phase: str = ""
    label: str = ""
    actor: str | None = None
    targets: tuple[str, ...] = ()
    log: tuple[str, ...] = ()
    patch: tuple[_Object, ...] = ()
    check: str


class Record(BaseModel):
    """A recorded fight: the replay state when it began (``start``) and the ``steps`` since,
    for the rule system ``ruleset`` on a map of ``map`` = (width, height) metres."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    format: Literal["coverfire.record"] = FORMAT
    version: int = VERSION
    ruleset: str
    map: tuple[float, float]
    #: the last step's ``check`` (the start's when there is none): a record cut short is told
    end: str = ""
    start: _Object
    steps: tuple[Step, ...] = ()

    @property
    def stops(self) -> list[int]:
        """The indices of the steps a timeline stops at (actions and moves)."""
        return [i for i, s in enumerate(self.steps) if s.kind != "edit"]


class RecordError(ValueError):
    """A record that does not belong with its encounter, or is damaged (the message says
    what and where)."""


# -- the replay state -------------------------------------------------------------------------
def _dump(value) -> Any:
    return value.model_dump(mode="json", exclude_none=True)


def _sight_state(sight, explored: bool) -> dict:
    data = _dump(sight)
    if not explored:
        data.pop("explored", None)
    return data


class _Kept:
    """The replay state after a record's last step, with the encounter values it was dumped
    from (so the next step dumps only what changed: the same objects mean the same data)."""

    __slots__ = ("state", "objects")

    def __init__(self, state: dict, objects: dict):
        self.state, self.objects = state, objects


_LAST: dict[int, tuple[Record, _Kept]] = {}  # id(record) -> (record, its last state); a few kept
_KEEP = 16


def _remember(record: Record, kept: _Kept) -> None:
    _LAST[id(record)] = (record, kept)
    while len(_LAST) > _KEEP:
        _LAST.pop(next(iter(_LAST)))


_MISSING = object()


def _model_data(model, old_data: dict | None, old_model) -> Any:
    """``model``'s JSON data (as ``model_dump(mode="json", exclude_none=True)``), reusing
    ``old_data`` (the data of ``old_model``) for the fields holding the same values, and for
    a tuple of values that only grew (a rule system's log) dumping only the new items: an
    action in a long fight dumps its own entry, not the whole log again."""
    from pydantic import BaseModel

    if not isinstance(model, BaseModel):
        return model
    if old_model is model and old_data is not None:
        return old_data
    if old_data is None or type(old_model) is not type(model):
        return _dump(model)
    data: dict = {}
    for name in type(model).model_fields:
        v = getattr(model, name)
        was = getattr(old_model, name, _MISSING)
        if v is None:
            continue
        if v is was and name in old_data:
            data[name] = old_data[name]
        elif (isinstance(v, tuple) and isinstance(was, tuple) and name in old_data and len(v) > len(was)
              and all(a is b for a, b in zip(v, was)) and all(isinstance(x, BaseModel) for x in v[len(was):])):
            data[name] = old_data[name] + [_dump(x) for x in v[len(was):]]
        else:
            part = model.model_dump(mode="json", include={name}, exclude_none=True)
            if name in part:
                data[name] = part[name]
    return data


def _state_of(encounter, kept: _Kept | None, *, explored: bool) -> _Kept:
    """The replay state of ``encounter`` (reusing ``kept``'s data of the values it shares);
    the explored areas are ``kept``'s unless ``explored``."""
    old_state = kept.state if kept is not None else {}
    old_obj = kept.objects if kept is not None else {}
    objects: dict = {}
    state: dict = {}
    for field in ("tokens", "zones"):
        out = {}
        prev = old_state.get(field, {})
        for v in getattr(encounter, field):
            key = (field, v.id)
            out[v.id] = prev[v.id] if old_obj.get(key) is v and v.id in prev else _dump(v)
            objects[key] = v
        state[field] = out
    rules = encounter.rules
    if old_obj.get("rules") is rules and "rules" in old_state:
        state["rules"] = old_state["rules"]
    else:
        old_rules = old_state.get("rules", {})
        state["rules"] = {name: _model_data(model, old_rules.get(name), old_obj.get(("rules", name)))
                          for name, model in rules.items() if model is not None}
    objects["rules"] = rules
    for name, model in rules.items():
        objects[("rules", name)] = model
    sight = encounter.sight
    if old_obj.get("sight") is sight and "sight" in old_state:
        state["sight"] = old_state["sight"]
    else:
        state["sight"] = _sight_state(sight, explored=True)
    if not explored:
        # the explored areas change at every step with the fog on; kept once a round
        s = dict(state["sight"])
        s.pop("explored", None)
        if "explored" in old_state.get("sight", {}):
            s["explored"] = old_state["sight"]["explored"]
        state["sight"] = s
    objects["sight"] = sight
    return _Kept(state, objects)


# -- patches (RFC 6902 add/remove/replace, computed and applied without copying what stays) --------
def _pointer(parts: Sequence[str]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _unpointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise RecordError(f"a patch path must start with '/': {excerpt(path)}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def diff(a: Any, b: Any, at: tuple = ()) -> list[dict]:
    """The operations that turn ``a`` into ``b`` (JSON values): per key of objects, lists
    grown at their end as ``add`` at ``-``, anything else replaced."""
    if a is b:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        ops: list[dict] = []
        for k, v in a.items():
            if k not in b:
                ops.append({"op": "remove", "path": _pointer(at + (k,))})
            elif v is not b[k] and v != b[k]:
                ops.extend(diff(v, b[k], at + (k,)))
        for k, v in b.items():
            if k not in a:
                ops.append({"op": "add", "path": _pointer(at + (k,)), "value": v})
        return ops
    if isinstance(a, list) and isinstance(b, list) and len(b) > len(a) and \
            (all(x is y for x, y in zip(a, b)) or b[:len(a)] == a):
        return [{"op": "add", "path": _pointer(at + ("-",)), "value": v} for v in b[len(a):]]
    if a == b and type(a) is type(b):
        return []
    return [{"op": "replace", "path": _pointer(at), "value": b}]


def apply(state: Any, ops: Sequence[dict]) -> Any:
    """``state`` with the operations applied; the parts they do not touch are shared, the
    parts they do are copied (``state`` itself is left as it was)."""
    for i, op in enumerate(ops):
        try:
            state = _apply_one(state, op)
        except RecordError as exc:
            raise RecordError(f"operation {i + 1}: {exc}") from None
    return state


def _apply_one(state: Any, op: dict) -> Any:
    if not isinstance(op, dict) or op.get("op") not in ("add", "remove", "replace") or \
            not isinstance(op.get("path"), str):
        raise RecordError(f"not an add, remove or replace operation: {excerpt(op)}")
    parts = _unpointer(op["path"])
    if not parts:
        if op["op"] == "remove":
            raise RecordError("cannot remove the whole state")
        return op["value"]

    def at(node: Any, rest: list[str]) -> Any:
        key = rest[0]
        if isinstance(node, dict):
            node = dict(node)
            if len(rest) == 1:
                if op["op"] == "add":
                    node[key] = op["value"]
                elif key not in node:
                    raise RecordError(f"{op['path']}: no such key {excerpt(key)}")
                elif op["op"] == "remove":
                    del node[key]
                else:
                    node[key] = op["value"]
                return node
            if key not in node:
                raise RecordError(f"{op['path']}: no such key {excerpt(key)}")
            node[key] = at(node[key], rest[1:])
            return node
        if isinstance(node, list):
            node = list(node)
            if key == "-" and len(rest) == 1 and op["op"] == "add":
                node.append(op["value"])
                return node
            if not key.isdigit() or int(key) >= len(node) + (op["op"] == "add"):
                raise RecordError(f"{op['path']}: no item {excerpt(key)} in a list of {len(node)}")
            k = int(key)
            if len(rest) == 1:
                if op["op"] == "add":
                    node.insert(k, op["value"])
                elif op["op"] == "remove":
                    del node[k]
                else:
                    node[k] = op["value"]
                return node
            node[k] = at(node[k], rest[1:])
            return node
        raise RecordError(f"{op['path']}: {excerpt(key)} is inside a value, not an object or list")

    return at(state, parts)


# -- the chained check ------------------------------------------------------------------------------
def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _start_check(ruleset: str, map_size: tuple[float, float], start: dict) -> str:
    return hashlib.sha256(_canonical([FORMAT, VERSION, ruleset, list(map_size), start])).hexdigest()[:16]


def _step_check(previous: str, step_data: dict) -> str:
    body = {k: v for k, v in step_data.items() if k != "check"}
    return hashlib.sha256(previous.encode() + _canonical(body)).hexdigest()[:16]


def _step_data(step: Step) -> dict:
    return step.model_dump(mode="json")


# -- recording ---------------------------------------------------------------------------------
def _new_lines(system, before, after) -> tuple[str, ...]:
    old, new = system.log_entries(before), system.log_entries(after)
    if len(new) <= len(old) or tuple(new[:len(old)]) != tuple(old):
        return ()
    return tuple(ln for e in new[len(old):] for ln in system.entry_lines(e))


def _moved(before, after) -> list[str]:
    if before.tokens is after.tokens:
        return []
    was = {t.id: t for t in before.tokens}
    out = []
    for t in after.tokens:
        b = was.get(t.id)
        if b is not None and b is not t and (b.x, b.y) != (t.x, t.y):
            out.append(t.id)
    return out


def _changed_tokens(before, after) -> set[str]:
    was = {t.id: t for t in before.tokens}
    return {t.id for t in after.tokens if was.get(t.id) is not t} | (was.keys() - {t.id for t in after.tokens})


def _last_kept(record: Record) -> _Kept:
    hit = _LAST.get(id(record))
    if hit is not None and hit[0] is record:
        return hit[1]
    kept = _Kept(state_at(record, len(record.steps)), {})
    _remember(record, kept)
    return kept


def extend(before, after, *, label: str = "", actor: str | None = None,
           targets: Sequence[str] = ()):
    """``after`` with the step from ``before`` to it added to its record (a record begun
    when the first action or move in a round lands); ``after`` itself when this change is no
    step (nothing recorded yet and no action, or nothing the replay shows changed)."""
    record = after.record
    system = after.system
    lines = _new_lines(system, before, after)
    moved = _moved(before, after)
    rnd = system.round_number(after)
    if moved and rnd > 0 and before.zones is after.zones and _changed_tokens(before, after) <= set(moved):
        kind = "move"  # (what changed is the movers: where they stand, what the move cost them)
    elif lines:
        kind = "action"
    elif record is not None:
        kind = "edit"
    else:
        return after
    if record is None or record.ruleset != after.ruleset:
        start = _state_of(before, None, explored=True)
        map_size = (float(before.map.width), float(before.map.height))
        record = Record(ruleset=after.ruleset, map=map_size, start=start.state,
                        end=_start_check(after.ruleset, map_size, start.state))
        _remember(record, start)
    if len(record.steps) >= MAX_STEPS:
        return after.model_copy(update={"record": record})
    kept = _last_kept(record)
    last_round = record.steps[-1].round if record.steps else -1
    new = _state_of(after, kept, explored=kind != "edit" and rnd != last_round)
    ops = diff(kept.state, new.state)
    if kind == "edit" and not ops:
        return after.model_copy(update={"record": record}) if after.record is not record else after
    if kind == "move" and actor is None and len(moved) == 1:
        actor = moved[0]
    targets = tuple(t for t in targets if t != actor)
    previous = record.steps[-1].check if record.steps else _start_check(record.ruleset, record.map, record.start)
    now = system.current_turn(before)
    data = {"kind": kind, "round": rnd, "turn": system.round_status(after), "phase": now.where if now else "",
            "label": label, "actor": actor, "targets": list(targets), "log": list(lines), "patch": ops}
    step = Step(kind=kind, round=rnd, turn=data["turn"], phase=data["phase"], label=label, actor=actor,
                targets=targets, log=lines, patch=tuple(ops), check=_step_check(previous, data))
    grown = record.model_copy(update={"steps": record.steps + (step,), "end": step.check})
    _remember(grown, new)
    return after.model_copy(update={"record": grown})


def prepare(encounter) -> None:
    """Work out ahead what the next :func:`extend` of ``encounter`` needs: its record's last
    state, with the encounter's values it holds the data of (a file just read, in another
    process or thread: otherwise the first action after opening a long fight replays it
    all). Safe to run in a worker thread; does nothing without a record."""
    rec = encounter.record
    if rec is None:
        return
    hit = _LAST.get(id(rec))
    if hit is not None and hit[0] is rec and hit[1].objects:
        return
    state = state_at(rec, len(rec.steps))
    objects: dict = {}
    for field in ("tokens", "zones"):
        held = state.get(field, {})
        for v in getattr(encounter, field):
            if held.get(v.id) == _dump(v):
                objects[(field, v.id)] = v
    rules = state.get("rules", {})
    for name, model in encounter.rules.items():
        if model is not None and rules.get(name) == _model_data(model, None, None):
            objects[("rules", name)] = model
    _remember(rec, _Kept(state, objects))


# -- replay ------------------------------------------------------------------------------------------
_CHECKPOINTS: dict[int, tuple[Record, dict[int, dict]]] = {}


def state_at(record: Record, n: int) -> dict:
    """The replay state after the first ``n`` steps (0: the start)."""
    if not 0 <= n <= len(record.steps):
        raise RecordError(f"step {n} of a record of {len(record.steps)}")
    hit = _CHECKPOINTS.get(id(record))
    marks = hit[1] if hit is not None and hit[0] is record else {0: record.start}
    if hit is None or hit[0] is not record:
        _CHECKPOINTS[id(record)] = (record, marks)
        while len(_CHECKPOINTS) > _KEEP:
            _CHECKPOINTS.pop(next(iter(_CHECKPOINTS)))
    base = max(k for k in marks if k <= n)
    state = marks[base]
    for i in range(base, n):
        state = apply(state, record.steps[i].patch)
        if (i + 1) % CHECKPOINT_EVERY == 0:
            marks[i + 1] = state
    return state


def encounter_at(encounter, n: int):
    """``encounter`` as it was after the first ``n`` steps of its record: its tokens, zones,
    rule data and sight settings then (its obstacles, lights and map as now), without the
    record. Raises :class:`RecordError` when there is no such step."""
    from typing import get_args

    from engine.registry import validate_rules

    # the model's own field types (the model imports this module: no import back)
    fields = type(encounter).model_fields
    Token, Zone = get_args(fields["tokens"].annotation)[0], get_args(fields["zones"].annotation)[0]  # noqa: N806
    Sight = fields["sight"].annotation  # noqa: N806
    record = encounter.record
    if record is None:
        raise RecordError("this encounter has no recorded fight")
    state = state_at(record, n)
    try:
        tokens = tuple(Token.model_validate(v) for v in state["tokens"].values())
        zones = tuple(Zone.model_validate(v) for v in state["zones"].values())
        rules = validate_rules(state.get("rules", {}), "settings")
        sight_value = Sight.model_validate(state.get("sight", {}))
    except (ValidationError, KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"step {n} does not make an encounter: {excerpt(str(exc), 200)}") from None
    return encounter.model_copy(update={"tokens": tokens, "zones": zones, "rules": rules, "sight": sight_value,
                                        "record": None})


# -- reading -----------------------------------------------------------------------------------
def attach(encounter, data: Any):
    """``encounter`` with the record read from ``data`` (a file's ``"record"``), checked
    against it: ``(encounter, None)``, or ``(encounter without it, message)`` for a record
    that does not belong with it or is damaged (the message says what and where)."""
    if data is None:
        return encounter, None
    try:
        record = read(data, encounter)
    except RecordError as exc:
        return encounter, f"the recorded fight was left out: {exc}"
    return encounter.model_copy(update={"record": record}), None


def read(data: Any, encounter) -> Record:
    """The record in ``data``, checked step by step and against ``encounter``; raises
    :class:`RecordError` saying what does not match."""
    if not isinstance(data, dict):
        raise RecordError("it is not a JSON object")
    if data.get("format") != FORMAT:
        raise RecordError(f"\"format\" is {excerpt(data.get('format'))}, expected {FORMAT!r}")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise RecordError(f"unknown version {excerpt(version)}")
    if version > VERSION:
        raise RecordError(f"it was written by a newer Coverfire (record version {version}; this one reads "
                          f"{VERSION})")
    raw = dict(data)
    if isinstance(raw.get("map"), list):
        raw["map"] = tuple(raw["map"])
    steps = raw.get("steps", [])
    if not isinstance(steps, list):
        raise RecordError("\"steps\" is not a list")
    if len(steps) > MAX_STEPS:
        raise RecordError(f"{len(steps):,} steps; a record holds at most {MAX_STEPS:,}")
    parsed = []
    for i, s in enumerate(steps):
        if isinstance(s, dict):
            s = {**s, **{k: tuple(s[k]) for k in ("targets", "log", "patch") if isinstance(s.get(k), list)}}
        try:
            parsed.append(Step.model_validate(s))
        except ValidationError as exc:
            e = exc.errors()[0]
            where = ".".join(str(p) for p in e["loc"])
            raise RecordError(f"step {i + 1} is damaged ({where}: {e['msg']})") from None
    raw["steps"] = tuple(parsed)
    try:
        record = Record.model_validate(raw)
    except ValidationError as exc:
        e = exc.errors()[0]
        where = ".".join(str(p) for p in e["loc"])
        raise RecordError(f"{where}: {e['msg']}") from None
    if record.ruleset != encounter.ruleset:
        raise RecordError(f"it is a {record.ruleset!r} fight and this encounter is run by {encounter.ruleset!r}")
    size = (float(encounter.map.width), float(encounter.map.height))
    if tuple(record.map) != size:
        raise RecordError(f"it was recorded on a {record.map[0]:g} x {record.map[1]:g} m map; this one is "
                          f"{size[0]:g} x {size[1]:g} m")
    check = _start_check(record.ruleset, record.map, record.start)
    state = record.start
    for i, step in enumerate(record.steps):
        data_i = _step_data(step)
        check = _step_check(check, data_i)
        if check != step.check:
            raise RecordError(f"step {i + 1} ({step.label or step.kind}) does not match what was recorded "
                              "(the record was changed or cut after it was written)")
        try:
            state = apply(state, step.patch)
        except RecordError as exc:
            raise RecordError(f"step {i + 1} ({step.label or step.kind}) does not apply: {exc}") from None
    if check != record.end:
        raise RecordError(f"it ends after step {len(record.steps)} but was recorded longer (cut short)"
                          if record.steps else "its steps are missing (cut short)")
    for field in ("tokens", "zones"):
        if not isinstance(state.get(field), dict):
            raise RecordError(f"its state has no {field}")
    _remember(record, _Kept(state, {}))
    return record


__all__ = ["FORMAT", "MAX_STEPS", "VERSION", "Record", "RecordError", "Step", "apply", "attach", "diff",
           "encounter_at", "extend", "prepare", "read", "state_at"]
