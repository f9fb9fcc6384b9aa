"""What an import may write: only what the encounter loader reads back equal.

Importers copy some of a file as given (a UVTT map's unknown fields, a light's extra keys, a
Foundry scene's flags) so that nothing is lost. Such copies can hold what an encounter file
cannot keep: ``NaN`` and ``Infinity`` (Python's JSON reader accepts them; the writer would
put ``null``), strings with a lone surrogate (``"\\ud83d"``: valid JSON, not UTF-8), nesting
deeper than the loader reads. :func:`storable` cleans a copied value and says what it
changed; :func:`storable_encounter` proves the encounter survives save and reload unchanged.
"""

from __future__ import annotations

import math
from typing import Any

from engine import limits, unknown_fields
from engine.errors import CoverfireError, ImportFileError
from engine.importers.report import ReportBuilder
from engine.model import Encounter

#: Nesting kept below the point where a copied value starts (the loader reads 100 levels in all).
MAX_KEPT_DEPTH = 20
#: Warnings about cleaned values at most; the rest are counted in one line.
MAX_WARNINGS = 5
#: Values (numbers, texts, arrays, objects) one copied value may hold: another tool's data
#: kept as given is a few hundred values; 775,000 pairs under an unknown key were cleaned,
#: saved and reloaded in every import (seconds, hundreds of MB).
#: (The encounter file holds what it keeps unread to the same bound: engine/unknown_fields.py.)
MAX_KEPT_VALUES = unknown_fields.MAX_KEPT_VALUES


class _TooMany(Exception):
    pass


class _Cleaner:
    def __init__(self, rep: ReportBuilder | None, max_depth: int) -> None:
        self.rep = rep
        self.max_depth = max_depth
        self.told = 0
        self.untold = 0
        self.values = 0

    def warn(self, message: str, where: str) -> None:
        if self.rep is None:
            return
        if self.told < MAX_WARNINGS:
            self.rep.warn(message, where)
            self.told += 1
        else:
            self.untold += 1

    def text(self, s: str, where: str, key: str | None = None) -> str:
        limit = limits.MAX_NAME_CHARS if key in limits.NAME_KEYS else limits.MAX_TEXT_CHARS
        if key in limits.IMAGE_KEYS:
            limit = limits.MAX_IMAGE_CHARS
        if len(s) > limit:
            self.warn(f"the text is {len(s):,} characters long, more than an encounter keeps here ({limit:,}); "
                      "cut short", where)
            s = s[: limit - 1] + "\u2026"
        try:
            s.encode("utf-8")
            return s
        except UnicodeEncodeError:
            self.warn("the text holds a lone surrogate (half an emoji), which cannot be saved; "
                      "it is replaced by \ufffd", where)
            return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)

    def clean(self, value: Any, where: str, depth: int, key: str | None = None) -> tuple[bool, Any]:
        """(keep, cleaned value)."""
        self.values += 1
        if self.values > MAX_KEPT_VALUES:
            raise _TooMany
        if isinstance(value, bool) or value is None:
            return True, value
        if isinstance(value, float):
            if not math.isfinite(value):
                self.warn(f"{value!r} is not a finite number and cannot be saved; left out", where)
                return False, None
            if abs(value) > limits.MAX_NUMBER:
                self.warn(f"{value:g} is beyond what an encounter keeps ({limits.MAX_NUMBER:g}); left out", where)
                return False, None
            return True, value
        if isinstance(value, int) and abs(value) > limits.MAX_NUMBER:
            self.warn(f"a number of {len(str(abs(value)))} digits is beyond what an encounter keeps "
                      f"({limits.MAX_NUMBER:g}); left out", where)
            return False, None
        if isinstance(value, int):
            return True, value
        if isinstance(value, str):
            return True, self.text(value, where, key)
        if isinstance(value, (list, tuple, dict)):
            if depth >= self.max_depth:
                self.warn(f"nested more than {self.max_depth} levels deep; left out", where)
                return False, None
            if isinstance(value, dict):
                out = {}
                for k, v in value.items():
                    name = self.text(str(k)[:200], where)
                    at = f"{where}.{name}" if len(where) < 200 else where
                    if depth == 0:  # (each member of the copied object has its own budget of values)
                        self.values = 1
                        try:
                            keep, c = self.clean(v, at, depth + 1, name)
                        except _TooMany:
                            self.too_many(at)
                            continue
                    else:
                        keep, c = self.clean(v, at, depth + 1, name)
                    if keep:
                        out[name] = c
                return True, out
            items = []
            for i, v in enumerate(value):
                keep, c = self.clean(v, f"{where}[{i}]" if len(where) < 200 else where, depth + 1, key)
                if keep:
                    items.append(c)
            return True, items
        self.warn(f"a {type(value).__name__} cannot be saved; left out", where)
        return False, None

    def too_many(self, where: str) -> None:
        if self.rep is not None:
            self.rep.warn(f"holds more than {MAX_KEPT_VALUES:,} values, more than Coverfire keeps of data it does "
                          "not read; left out", where)

    def finish(self, where: str) -> None:
        if self.untold and self.rep is not None:
            self.rep.warn(f"{self.untold} more values could not be saved as given (as above); left out or replaced", where)


def storable(value: Any, where: str, rep: ReportBuilder | None = None, *, max_depth: int = MAX_KEPT_DEPTH) -> Any:
    """``value`` (parsed JSON) cleaned so that an encounter file keeps it exactly: non-finite
    numbers and what lies deeper than ``max_depth`` left out, lone surrogates replaced by
    U+FFFD; a value holding more than :data:`MAX_KEPT_VALUES` values is left out (of an
    object, each member has that budget: the big member alone is left out).
    Each change is a warning at its JSON path (``where`` is the value's own)."""
    c = _Cleaner(rep, max_depth)
    try:
        keep, out = c.clean(value, where, 0)
    except _TooMany:
        c.too_many(where)
        return None
    c.finish(where)
    return out if keep else None


def clean_text(s: str, limit: int = limits.MAX_NAME_CHARS) -> str:
    """A name or short text an encounter can keep: lone surrogates replaced by U+FFFD, cut to
    ``limit`` characters."""
    s = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s[:limit])
    return s


def storable_encounter(encounter: Encounter, rep: ReportBuilder, *, file: str) -> Encounter:
    """``encounter`` once it is shown to load back equal from the text it saves to. When it
    does not, the copied extras (``imported.unknown_fields``, ``imported.flags``, then the
    lights' own) are dropped with a warning and it is tried again; :class:`ImportFileError`
    if it still fails."""
    from engine.files import dumps_encounter, loads_encounter

    problem = _round_trip_problem(encounter, dumps_encounter, loads_encounter)
    if problem is None:
        return encounter
    imported = dict(getattr(encounter, "imported", None) or {})
    dropped = [k for k in ("unknown_fields", "flags") if k in imported]
    trimmed = encounter
    if dropped:
        for k in dropped:
            imported.pop(k)
        trimmed = encounter.model_copy(update={"imported": imported})
        if _round_trip_problem(trimmed, dumps_encounter, loads_encounter) is None:
            rep.warn(f"the fields copied as given ({', '.join(dropped)}) would not load back from the saved "
                     f"encounter ({problem}); left out", "$")
            return trimmed
    if any(light.model_extra for light in trimmed.lights):  # (a light's fields copied as given: 12 lights of
        # 99,000 values each pass what an encounter file keeps unread, engine/unknown_fields.py)
        plain = tuple(type(light)(**{k: getattr(light, k) for k in type(light).model_fields}) for light in trimmed.lights)
        bare = trimmed.model_copy(update={"lights": plain})
        if _round_trip_problem(bare, dumps_encounter, loads_encounter) is None:
            rep.warn(f"the fields copied as given ({', '.join(dropped + ['those of the lights'])}) would not load "
                     f"back from the saved encounter ({problem}); left out", "$")
            return bare
    raise ImportFileError(f"the imported encounter would not load back as saved: {problem}", file=file)


def _round_trip_problem(encounter: Encounter, dumps, loads) -> str | None:
    try:
        back = loads(dumps(encounter))
    except (CoverfireError, ValueError, RecursionError, UnicodeError) as exc:
        text = str(exc)
        return text if len(text) < 200 else text[:197] + "..."
    if back != encounter:
        return "it reads back different"
    return None
