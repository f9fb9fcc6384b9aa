"""An encounter's file text, made again after an edit without dumping what the edit kept.

Saving a 10,000-obstacle map (:func:`engine.files.dumps_encounter`: ``model_dump``, the
bounds check and the indenting writer) takes ~300 ms, and the window autosaves every minute:
a freeze the GM feels mid-fight. But an edit keeps every obstacle, token and zone value it
does not touch (the same objects), so :class:`EncounterText` keeps, per value, the text it
has in the file (and that its bounds were checked), and writes an encounter as its small
remainder (map, settings, rule data) dumped afresh plus the kept texts of its items: a few
milliseconds. The text is exactly :func:`engine.files.dumps_encounter`'s (a test compares
them); any value the bounds refuse sends the whole encounter down the ordinary path, so the
refusal and its JSON path are the ordinary ones.

:meth:`EncounterText.warm` makes the texts of a newly opened map a slice at a time (the
window runs it in idle turns), so that even the first save after an open is quick.
"""

from __future__ import annotations

import json
from typing import Any

from engine import clock, limits
from engine.files import dump_value, checked_data, dumps_data, encounter_to_data
from engine.model import Encounter

#: The encounter's long tuples whose items' texts are kept (``lights`` is left to the
#: ordinary dump: a file leaves it out when empty).
KEPT = ("obstacles", "tokens", "zones")
#: A rule system's tuple of values this long (its log) has its items' texts kept too.
KEEP_FROM = 8
#: The indentation of an item of one of those lists in a file.
_ITEM_INDENT = "    "


class _Text:
    """Text written as it is (a kept part of a file)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Items:
    """A list of item texts standing in for a long list while the remainder is written."""

    __slots__ = ("texts",)

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts


def _holds_kept(data: dict) -> bool:
    return any(isinstance(v, (_Items, _Text)) or (isinstance(v, dict) and _holds_kept(v)) for v in data.values())


def _dump_with(data: Any, indent: str) -> str:
    """:func:`engine.files.dump_value`, with :class:`_Items` written from their kept texts."""
    if isinstance(data, _Text):
        return data.text
    if isinstance(data, _Items):
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + t for t in data.texts) + "\n" + indent + "]"
    if isinstance(data, dict) and _holds_kept(data):
        inner = indent + "  "
        body = ",\n".join(f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {_dump_with(v, inner)}"
                          for k, v in data.items())
        return "{\n" + body + "\n" + indent + "}"
    return dump_value(data, indent)


class EncounterText:
    """Writes encounters' file texts, keeping each item value's text for the next time."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[object, str]] = {}  # id(value) -> (the value, its text)
        #: the texts of lists that grow (a log, a record's steps): key -> (the values, the text inside)
        self._runs: dict = {}
        self._next_runs: dict = {}
        self.reused = 0  # items of the last text taken from what was kept (for tests, benches)

    def _item(self, field: str, value, keep: dict | None = None) -> str:
        hit = self._kept.get(id(value))
        if hit is not None and hit[0] is value:
            self.reused += 1
            if keep is not None:
                keep[id(value)] = hit
            return hit[1]
        data = value.model_dump(mode="json", exclude_none=True)
        # checked where it stands in a file (its depth, a polygon's points); a refusal: the
        # caller writes the ordinary way, for the ordinary message and path
        limits.check_data({field: [data]})
        text = dump_value(data, _ITEM_INDENT)
        self._kept[id(value)] = (value, text)
        if keep is not None:
            keep[id(value)] = (value, text)
        return text

    def _kept_text(self, value, make, keep: dict) -> str:
        hit = self._kept.get(id(value))
        if hit is not None and hit[0] is value:
            self.reused += 1
        else:
            hit = (value, make())
        keep[id(value)] = hit
        return hit[1]

    def _rules(self, rules: dict, keep: dict) -> str:
        """The text of the encounter's rule data at its place in the file, each system's
        long tuples of values (its log) written from their items' kept texts: the log of a
        20-round fight is not dumped again at every save."""
        from pydantic import BaseModel

        out: dict = {}
        for name, model in rules.items():
            if not isinstance(model, BaseModel):
                out[name] = model
                continue
            fields: dict = {}
            for f in type(model).model_fields:
                v = getattr(model, f)
                if v is None:
                    continue
                if isinstance(v, tuple) and len(v) >= KEEP_FROM and all(isinstance(x, BaseModel) for x in v):
                    fields[f] = _Text(self._grown(("rules", name, f), v, "      ", keep,
                                                  lambda x: self._checked_text(x, "        ")))
                    continue
                part = model.model_dump(mode="json", include={f}, exclude_none=True)
                if f in part:
                    fields[f] = part[f]
            limits.check_data({"rules": {name: {k: v for k, v in fields.items() if not isinstance(v, _Text)}}})
            out[name] = fields
        return _dump_with(out, "  ")

    @staticmethod
    def _checked_text(value, indent: str) -> str:
        data = value.model_dump(mode="json", exclude_none=True)
        limits.check_data({"rules": {"log": [data]}})
        return dump_value(data, indent)

    def _record(self, record, keep: dict) -> str:
        """The text of a recorded fight at its place in the file (``"record"`` at the top
        level): its start and each step's text kept (a 20-round fight saved in milliseconds)."""
        head = record.model_dump(mode="json", exclude_none=True, exclude={"start", "steps"})

        def start_text() -> str:
            limits.check_data({"record": {"start": record.start}})
            return dump_value(record.start, "    ")

        start = self._kept_text(record.start, start_text, keep)
        steps = self._grown("steps", record.steps, "    ", keep,
                            lambda st: dump_value(st.model_dump(mode="json", exclude_none=True), "      ")) \
            if record.steps else "[]"
        return _dump_with({**head, "start": _Text(start), "steps": _Text(steps)}, "  ")

    def _grown(self, key, values: tuple, indent: str, keep: dict, make) -> str:
        """The file text of the list ``values`` (at ``indent``; its items made by ``make``):
        a list that only grew since the last text (the same values first: a log, a record's
        steps) is the last text with the new items' texts added, not joined again."""
        inner = indent + "  "
        last = self._runs.get(key)
        if last is not None and len(values) >= len(last[0]) and last[0] and \
                all(a is b for a, b in zip(values, last[0])):
            body = last[1]
            new = values[len(last[0]):]
            if new:
                body += ",\n" + ",\n".join(inner + self._kept_text(x, lambda x=x: make(x), keep) for x in new)
            self.reused += len(values) - len(new)
        else:
            body = ",\n".join(inner + self._kept_text(x, lambda x=x: make(x), keep) for x in values)
        self._next_runs[key] = (values, body)
        return "[\n" + body + "\n" + indent + "]"

    def text(self, encounter: Encounter) -> str:
        """The file text of ``encounter``: :func:`engine.files.dumps_encounter`'s. Raises
        what it raises (:class:`~engine.errors.EncounterFileError` for a value past the
        bounds, ``ValueError`` for NaN), with the ordinary messages and paths."""
        self.reused = 0
        self._next_runs = {}
        try:
            keep: dict[int, tuple[object, str]] = {}  # (what this encounter holds: kept for the next)
            items = {f: [self._item(f, v, keep) for v in getattr(encounter, f)] for f in KEPT if getattr(encounter, f)}
            rest = encounter.model_copy(update={**{f: () for f in items}, "record": None, "rules": {}})
            data = encounter_to_data(rest)
            if set(items) - set(data):  # (a field the file leaves out: never for these)
                raise ValueError("unexpected layout")
            limits.check_data(data)
            limits.check_counts({f: len(getattr(encounter, f)) for f in KEPT})
            total = sum(len(o.polygon) for o in encounter.obstacles)
            if total > limits.MAX_TOTAL_VERTICES:
                raise ValueError("too many points")
            for f, texts in items.items():
                data[f] = _Items(texts)
            if encounter.rules:
                data["rules"] = _Text(self._rules(encounter.rules, keep))
            if encounter.record is not None:
                data["record"] = _Text(self._record(encounter.record, keep))
            out = _dump_with(data, "") + "\n"
        except Exception:  # noqa: BLE001 - any doubt: the ordinary path, with its own message
            return dumps_data(checked_data(encounter))
        self._kept = keep  # (only what this encounter holds: the texts of values an edit replaced go)
        self._runs = self._next_runs
        return out

    def warm(self, encounter: Encounter, budget_s: float = 0.004) -> bool:
        """Make the texts of ``encounter``'s items not kept yet, for about ``budget_s``;
        True while some are left."""
        end = clock.now() + budget_s
        for f in KEPT:
            for v in getattr(encounter, f):
                hit = self._kept.get(id(v))
                if hit is not None and hit[0] is v:
                    continue
                try:
                    self._item(f, v)
                except Exception:  # noqa: BLE001 - refused: text() says so, the ordinary way
                    return False
                if clock.now() > end:
                    return True
        for v, make in self._other_parts(encounter):
            hit = self._kept.get(id(v))
            if hit is not None and hit[0] is v:
                continue
            try:
                self._kept[id(v)] = (v, make())
            except Exception:  # noqa: BLE001 - refused: text() says so, the ordinary way
                return False
            if clock.now() > end:
                return True
        return False

    def _other_parts(self, encounter: Encounter):
        """(value, make its text) of the long parts beside the items: a recorded fight's
        steps and a rule system's log entries (what :meth:`text` keeps of them)."""
        from pydantic import BaseModel

        for model in encounter.rules.values():
            if isinstance(model, BaseModel):
                for f in type(model).model_fields:
                    v = getattr(model, f)
                    if isinstance(v, tuple) and len(v) >= KEEP_FROM and all(isinstance(x, BaseModel) for x in v):
                        for x in v:
                            yield x, (lambda x=x: self._checked_text(x, "        "))
        if encounter.record is not None:
            for step in encounter.record.steps:
                yield step, (lambda st=step: dump_value(st.model_dump(mode="json", exclude_none=True), "      "))

