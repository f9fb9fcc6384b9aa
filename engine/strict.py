"""The encounter file is read as written: no value is changed into another type behind the
GM's back (issue 25 item 8).

Pydantic's lax mode, which the model uses so that code can build values from lists and
numbers, turns ``1`` into ``true``, ``"10"`` into ``10.0`` and ``false`` into ``0``. Pydantic's
own strict mode cannot be used on parsed JSON (it refuses a list for a tuple). So
:func:`check_strict` walks a file's parsed JSON beside the models' field types before the
model sees it, and refuses, with the JSON path, each value a lax model would coerce:

* a ``bool`` field holding a number or a string (``1``, ``"yes"``);
* an ``int`` field holding ``true``/``false``, a string or a number with a fraction part
  written as a float (``10.0``);
* a ``float`` field holding ``true``/``false`` or a string (``"10"``);
* a ``str`` field holding anything but text is refused by the model itself.

What JSON cannot say otherwise stays valid: arrays for tuples, whole numbers for floats.
Each system's data under ``rules`` is walked beside that system's ``Sheet`` or ``Settings``.
"""

from __future__ import annotations

import types
import typing
from itertools import chain
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from engine.errors import EncounterFileError, excerpt
from engine.limits import json_path

_NONE = type(None)


def _describe(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f"the text {excerpt(v)}"
    return excerpt(v)


def _problem(tp: Any, v: Any) -> str | None:
    """Why value ``v`` of parsed JSON would be coerced to fit type ``tp`` (None: it fits as
    written, or it is not a scalar question: the model answers that)."""
    origin = get_origin(tp)
    if origin is typing.Annotated:
        return _problem(get_args(tp)[0], v)
    if origin is Union or origin is types.UnionType:
        args = [a for a in get_args(tp) if a is not _NONE]
        if v is None:
            return None
        problems = [_problem(a, v) for a in args]
        return None if any(p is None for p in problems) else problems[0]
    if origin is Literal:
        return None  # (the model refuses what is not one of the values)
    if tp is bool:
        if isinstance(v, (int, float, str)) and not isinstance(v, bool):
            return f"expected true or false, got {_describe(v)}"
        return None
    if tp is int:
        if isinstance(v, bool) or isinstance(v, str):
            return f"expected a whole number, got {_describe(v)}"
        if isinstance(v, float):
            return f"expected a whole number, got {v!r} (write it without the fraction)"
        return None
    if tp is float:
        if isinstance(v, bool) or isinstance(v, str):
            return f"expected a number, got {_describe(v)}"
        return None
    return None


def _walk(tp: Any, v: Any, loc: tuple, kind: str | None = None) -> tuple[tuple, str] | None:
    """The first (location, problem) under value ``v`` of type ``tp``; ``kind`` is the
    ``rules`` kind (``sheet``/``settings``) when ``v`` is a rules mapping."""
    origin = get_origin(tp)
    if origin is typing.Annotated:
        return _walk(get_args(tp)[0], v, loc, kind)
    if origin is Union or origin is types.UnionType:
        if v is None:
            return None
        args = [a for a in get_args(tp) if a is not _NONE]
        found = [_walk(a, v, loc, kind) for a in args]
        return None if any(f is None for f in found) else found[0]
    if isinstance(tp, type) and origin is None and issubclass(tp, BaseModel):  # (3.10: list[int] is a type)
        return _walk_model(tp, v, loc) if isinstance(v, dict) else None
    if origin in (tuple, list) and isinstance(v, list):
        args = get_args(tp)
        if not args:
            return None
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            for i, (a, item) in enumerate(zip(args, v)):
                hit = _walk(a, item, loc + (i,))
                if hit:
                    return hit
            return None
        inner = args[0]
        if inner is float or get_origin(inner) is tuple and all(a is float for a in get_args(inner)):
            return _points(v, loc)
        for i, item in enumerate(v):
            hit = _walk(inner, item, loc + (i,))
            if hit:
                return hit
        return None
    if origin is dict and isinstance(v, dict):
        if kind is not None:
            return _walk_rules(v, loc, kind)
        args = get_args(tp)
        if len(args) == 2:
            for k, item in v.items():
                hit = _walk(args[1], item, loc + (k,))
                if hit:
                    return hit
        return None
    why = _problem(tp, v)
    return (loc, why) if why else None


def _points(v: list, loc: tuple) -> tuple[tuple, str] | None:
    """Points (``[[x, y], ...]``) or numbers: a quick look at every value's type (a map of
    1,000,000 vertices), then the first bad one located."""
    rows = [p for p in v if isinstance(p, list)]
    flat = set(map(type, chain.from_iterable(rows))) | set(map(type, (p for p in v if not isinstance(p, list))))
    if not flat & {bool, str}:
        return None
    for i, p in enumerate(v):
        for j, c in enumerate(p if isinstance(p, list) else [p]):
            if isinstance(c, (bool, str)):
                return (loc + ((i, j) if isinstance(p, list) else (i,))), f"expected a number, got {_describe(c)}"
    return None


def _walk_rules(v: dict, loc: tuple, kind: str) -> tuple[tuple, str] | None:
    from engine import registry as _rules

    for name, data in v.items():
        if not isinstance(data, dict):
            continue
        try:
            system = _rules.find_system(name)
        except Exception:  # noqa: BLE001 - an unknown ruleset is the model's to refuse
            continue
        hit = _walk_model(system.Sheet if kind == "sheet" else system.Settings, data, loc + (name,))
        if hit:
            return hit
    return None


def _rules_kind(model: type[BaseModel]) -> str | None:
    from engine.model import Encounter, Token

    return "sheet" if issubclass(model, Token) else "settings" if issubclass(model, Encounter) else None


def _walk_model(model: type[BaseModel], data: dict, loc: tuple) -> tuple[tuple, str] | None:
    from engine import registry as _rules

    kind = _rules_kind(model)
    for name, field in model.model_fields.items():
        key = field.alias or name
        if key not in data:
            continue
        hit = _walk(field.annotation, data[key], loc + (key,), kind if name == "rules" else None)
        if hit:
            return hit
    if kind is not None:  # version 1: a system's data beside the common fields ("sr5": {...})
        legacy = {k: n for k, n in _rules.legacy_keys().items() if k in data and isinstance(data[k], dict)}
        for key, ruleset in legacy.items():
            hit = _walk_rules({ruleset: data[key]}, loc, kind)
            if hit:
                return (loc + (key,) + hit[0][len(loc) + 1:], hit[1])
    return None


def check_strict(data: Any, *, file: str | None = None) -> None:
    """Refuse an encounter file's parsed JSON when a value in it would be changed into
    another type by the model (see the module docstring): an
    :class:`~engine.errors.EncounterFileError` with the JSON path and what was expected."""
    from engine.model import Encounter

    if not isinstance(data, dict):
        return
    hit = _walk_model(Encounter, data, ())
    if hit:
        loc, why = hit
        raise EncounterFileError(f"{why}; Coverfire reads the file as written and does not change a value's type",
                                 file=file, path=json_path(loc))


__all__ = ["check_strict"]
