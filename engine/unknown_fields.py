"""What an encounter file may keep of fields Coverfire does not read, bounded before any other
check (issue 25 item 5).

The model keeps a field it does not know as written and saves it back (``extra="allow"``:
another tool's data, an import's provenance under ``imported``). Such a field is bounded as
an import's copy of another tool's data is (:data:`engine.importers.storable.MAX_KEPT_VALUES`):
each one holds at most :data:`MAX_KEPT_VALUES` values (numbers, texts, arrays, objects,
true/false/null; an object's members each have that budget, as an import keeps them), and
all of them together at most :data:`MAX_UNKNOWN_VALUES`.

:func:`check_unknown_fields` runs on the parsed JSON, first: it visits only the objects the
models describe (an encounter, its tokens, weapons, obstacles, zones, lights, ...) and counts
each unknown field's values until a bound is passed, so a file is refused after at most
:data:`MAX_UNKNOWN_VALUES` steps, whatever it holds. Without it, a 15 MB encounter listing
1,250,000 pairs under a field of its own (3,750,000 values: under the file's
:data:`engine.limits.MAX_JSON_ITEMS`) was checked, validated, copied and written back by every
open and save: 5-7 s of CPU for one open, save and reopen.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from engine.errors import EncounterFileError
from engine.limits import json_path

#: Values one field Coverfire does not read may hold (each member of an object apart): the
#: same bound as an import's copy of another tool's data.
MAX_KEPT_VALUES = 100_000
#: Values all the fields Coverfire does not read may hold together, in one file.
MAX_UNKNOWN_VALUES = 1_000_000

_NONE = type(None)


class _Counter:
    """Counts the values of unknown fields (:attr:`steps`: every value counted, the work done)."""

    def __init__(self, file: str | None) -> None:
        self.file = file
        self.total = 0
        self.steps = 0

    def field(self, value: Any, loc: tuple) -> None:
        """Count the unknown field at ``loc`` (an object: each member on its own budget)."""
        if isinstance(value, dict):
            self.total += 1
            self.steps += 1
            for k, v in value.items():
                self._count(v, loc + (k,))
        else:
            self._count(value, loc)

    def _count(self, value: Any, loc: tuple) -> None:
        n = 0
        stack = [value]
        while stack:
            v = stack.pop()
            n += 1
            self.steps += 1
            if n > MAX_KEPT_VALUES:
                raise EncounterFileError(
                    f"this field, which Coverfire does not read and would keep as written, holds more than "
                    f"{MAX_KEPT_VALUES:,} values (numbers, texts, arrays, objects); at most {MAX_KEPT_VALUES:,} "
                    f"are kept in one field", file=self.file, path=json_path(loc))
            if self.total + n > MAX_UNKNOWN_VALUES:
                raise EncounterFileError(
                    f"the fields Coverfire does not read and would keep as written hold more than "
                    f"{MAX_UNKNOWN_VALUES:,} values together (numbers, texts, arrays, objects; this one "
                    f"passed the bound); at most {MAX_UNKNOWN_VALUES:,} are kept", file=self.file, path=json_path(loc))
            if isinstance(v, dict):
                stack.extend(v.values())
            elif isinstance(v, list):
                stack.extend(v)
        self.total += n


def _models(tp: Any) -> tuple[type[BaseModel] | None, bool]:
    """(the model a field of type ``tp`` holds, whether as a list of them), or (None, False)."""
    origin = get_origin(tp)
    if origin is typing.Annotated:
        return _models(get_args(tp)[0])
    if origin is Union or origin is types.UnionType:
        for a in get_args(tp):
            if a is not _NONE:
                found = _models(a)
                if found[0] is not None:
                    return found
        return None, False
    if isinstance(tp, type) and origin is None and issubclass(tp, BaseModel):
        return tp, False
    if origin in (tuple, list):
        args = [a for a in get_args(tp) if a is not Ellipsis]
        if len(args) == 1:
            inner, many = _models(args[0])
            return (inner, True) if inner is not None and not many else (None, False)
    return None, False


def _rules_models(model: type[BaseModel], name: str) -> dict[str, type[BaseModel]] | None:
    """For a ``rules`` field: ruleset name -> that system's sheet (a token) or settings
    model (an encounter); None for any other field."""
    from engine import registry
    from engine.model import Encounter, Token

    if name != "rules" or not issubclass(model, (Token, Encounter)):
        return None
    sheet = issubclass(model, Token)
    return {s.name: (s.Sheet if sheet else s.Settings) for s in registry.systems()}


def _walk(model: type[BaseModel], data: dict, loc: tuple, counter: _Counter) -> None:
    from engine import registry

    fields = {(f.alias or name): name for name, f in model.model_fields.items()}
    keeps = model.model_config.get("extra") == "allow"
    legacy = registry.legacy_keys() if _rules_models(model, "rules") is not None else {}
    for key, value in data.items():
        name = fields.get(key)
        if name is None:
            if key in legacy and isinstance(value, dict):  # (version 1: a system's data beside the fields)
                sub = _rules_models(model, "rules").get(legacy[key])
                if sub is not None:
                    _walk(sub, value, loc + (key,), counter)
                continue
            if keeps:
                counter.field(value, loc + (key,))
            continue  # (a model that keeps none refuses it)
        systems = _rules_models(model, name)
        if systems is not None:
            if isinstance(value, dict):
                for ruleset, sheet in value.items():
                    if ruleset in systems and isinstance(sheet, dict):
                        _walk(systems[ruleset], sheet, loc + (key, ruleset), counter)
            continue
        sub, many = _models(model.model_fields[name].annotation)
        if sub is None:
            continue
        if many and isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    _walk(sub, item, loc + (key, i), counter)
        elif not many and isinstance(value, dict):
            _walk(sub, value, loc + (key,), counter)


def check_unknown_fields(data: Any, *, file: str | None = None) -> int:
    """Refuse an encounter file's parsed JSON whose fields Coverfire does not read hold more
    than the bounds (see the module's text): an :class:`~engine.errors.EncounterFileError`
    naming the field's JSON path and the bound. Returns the values counted (the work done)."""
    from engine.model import Encounter

    counter = _Counter(file)
    if isinstance(data, dict):
        _walk(Encounter, data, (), counter)
    return counter.steps


__all__ = ["MAX_KEPT_VALUES", "MAX_UNKNOWN_VALUES", "check_unknown_fields"]
