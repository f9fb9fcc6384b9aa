"""engine.encounter_text.EncounterText writes exactly dumps_encounter's text, reusing the
texts of the values an edit kept, and refuses what the ordinary save refuses, with its
message."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench.scene import make_scene
from engine.encounter_text import EncounterText
from engine.errors import EncounterFileError
from engine.files import dumps_encounter, load_encounter

ENCOUNTERS = Path(__file__).resolve().parents[2] / "assets" / "encounters"


@pytest.mark.parametrize("name", sorted(p.name for p in ENCOUNTERS.glob("*.json")))
def test_the_bundled_encounters_are_written_exactly_as_dumps_encounter(name):
    enc = load_encounter(ENCOUNTERS / name)
    assert EncounterText().text(enc) == dumps_encounter(enc)


def test_a_big_scene_and_its_edits_reuse_every_kept_value():
    enc = make_scene(2, tokens=120, obstacles=600, doors=5)
    w = EncounterText()
    assert w.text(enc) == dumps_encounter(enc)
    assert w.reused == 0
    # a corner moved: one obstacle value new, every other text kept
    o = enc.obstacles[17]
    pts = list(o.polygon)
    pts[0] = (pts[0][0] + 0.25, pts[0][1])
    moved = enc.model_copy(update={"obstacles": enc.obstacles[:17] + (o.model_copy(update={"polygon": tuple(pts)}),)
                                   + enc.obstacles[18:]})
    text = w.text(moved)
    assert text == dumps_encounter(moved)
    n = len(enc.obstacles) + len(enc.tokens) + len(enc.zones)
    assert w.reused == n - 1
    assert json.loads(text)["obstacles"][17]["polygon"][0] == [pts[0][0], pts[0][1]]
    # only the values of the last encounter written are kept
    assert len(w._kept) == n


def test_warm_makes_the_texts_ahead_a_slice_at_a_time(manual_clock, monkeypatch):
    enc = make_scene(3, tokens=60, obstacles=300)
    n = len(enc.obstacles) + len(enc.tokens) + len(enc.zones)
    made = []

    def slow(w):  # (each item's text takes 1 ms of the test's clock)
        real = w._item

        def item(*a, **k):
            manual_clock.advance(0.001)
            made.append(1)
            return real(*a, **k)

        monkeypatch.setattr(w, "_item", item)
        return w

    w = slow(EncounterText())
    per_slice = []
    while True:
        before = len(made)
        more = w.warm(enc, budget_s=0.0045)
        per_slice.append(len(made) - before)
        if not more:
            break
    # 5 items a slice (past the budget after the fifth), the last slice the rest
    assert per_slice == [5] * (n // 5) + [n % 5]
    monkeypatch.undo()
    assert w.text(enc) == dumps_encounter(enc)
    assert w.reused == n
    # at least one item a slice, however short the budget
    w = slow(EncounterText())
    made.clear()
    slices = 0
    while w.warm(enc, budget_s=0.0):
        slices += 1
    assert slices == len(made) == n  # (the last item's slice says so: it is past the budget too)


def _outcome(write, enc):
    try:
        return ("text", write(enc))
    except (EncounterFileError, ValueError) as exc:
        return (type(exc).__name__, str(exc))


def test_what_the_bounds_refuse_is_refused_with_the_ordinary_message():
    enc = load_encounter(ENCOUNTERS / "demo.json")
    t = enc.tokens[2]
    long_name = enc.model_copy(update={"tokens": enc.tokens[:2] + (t.model_copy(update={"name": "x" * 100_000}),)
                                       + enc.tokens[3:]})
    huge = enc.model_copy(update={"tokens": (enc.tokens[0].model_copy(update={"x": 1e300}),) + enc.tokens[1:]})
    nan = enc.model_copy(update={"tokens": (enc.tokens[0].model_copy(update={"x": math.nan}),) + enc.tokens[1:]})
    w = EncounterText()
    w.text(enc)  # (the kept texts of the good values must not hide the bad one)
    for bad in (long_name, huge, nan):
        ours, ordinary = _outcome(w.text, bad), _outcome(dumps_encounter_checked, bad)
        assert ours == ordinary
    assert _outcome(w.text, long_name)[0] == "EncounterFileError"
    assert "tokens[2].name" in _outcome(w.text, long_name)[1]


def dumps_encounter_checked(enc):
    """What the ordinary save writes (or refuses): the bounds check, then the text."""
    from engine import limits
    from engine.files import dumps_data, encounter_to_data

    data = encounter_to_data(enc)
    limits.check_data(data)
    return dumps_data(data)
