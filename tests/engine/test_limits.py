"""What an encounter can hold (engine/limits.py): past each bound, a refusal naming the path."""

from __future__ import annotations

import copy
import json

import pytest

from engine import limits
from engine.errors import EncounterFileError, excerpt
from engine.files import loads_encounter
from engine.model import Encounter, MapSpec, Token

BASE = {"format": "coverfire.encounter", "version": 1, "name": "Limits",
        "map": {"width": 60.0, "height": 40.0},
        "obstacles": [{"id": "wall", "height": 2.0, "polygon": [[10, 10], [12, 10], [12, 11], [10, 11]]}],
        "tokens": [{"id": "a", "name": "Ann", "x": 3.0, "y": 6.0}, {"id": "b", "x": 30.0, "y": 16.0}],
        "zones": [{"id": "z", "kind": "blast", "x": 20.0, "y": 20.0, "radius": 5.0}]}


def _refused(mutate) -> EncounterFileError:
    data = copy.deepcopy(BASE)
    mutate(data)
    with pytest.raises(EncounterFileError) as err:
        loads_encounter(json.dumps(data), file="bad.json")
    assert str(err.value).startswith("bad.json: at ")
    return err.value


def test_the_base_file_loads():
    assert loads_encounter(json.dumps(BASE)).tokens[1].x == 30.0


@pytest.mark.parametrize("mutate, path, words", [
    (lambda d: d["tokens"][0].update(y=1e308), "$.tokens[0].y", "largest Coverfire reads"),
    (lambda d: d["tokens"][1].update(x=250_000.0), "$.tokens[1].x", "coordinate limit (\u00b1200,000 m)"),
    (lambda d: d["obstacles"][0]["polygon"].__setitem__(1, [1e308, 10]), "$.obstacles[0].polygon[1][0]",
     "largest Coverfire reads"),
    (lambda d: d["obstacles"][0]["polygon"].__setitem__(1, [300_000.0, 10]), "$.obstacles[0].polygon",
     "vertex 1 (300000, 10) is beyond the coordinate limit"),
    (lambda d: d["map"].update(width=100_000, height=100_000, grid=1e-6), "$.map.grid", "smaller than the smallest (0.01 m)"),
    (lambda d: d["map"].update(width=100_000, height=50_000, grid=0.5), "$.map.grid",
     "200,000 squares across this 100000 m map; at most 100,000 (a square of at least 1 m)"),
    (lambda d: d["zones"][0].update(radius=1e9), "$.zones[0].radius", "longer than the length limit"),
    (lambda d: d["tokens"][0].update(name="\ud83d"), "$.tokens[0].name", "lone UTF-16 surrogate \\ud83d"),
    (lambda d: d.update(other={"deep": "ok \udc00"}), "$.other.deep", "lone UTF-16 surrogate \\udc00 at character 3"),
    (lambda d: d["tokens"][0].update(name="n" * 1001), "$.tokens[0].name", "1,001 characters long; at most 1,000"),
    (lambda d: d["tokens"][0].update(notes="n" * 100_001), "$.tokens[0].notes", "at most 100,000"),
    (lambda d: d.update(tokens=[{"id": f"t{i}", "x": 1, "y": 1} for i in range(limits.MAX_TOKENS + 1)]),
     "$.tokens", "5,001 tokens; an encounter holds at most 5,000"),
    (lambda d: d["tokens"][0].update(facing=float("nan")), "$.tokens[0].facing", "NaN or infinite"),
])
def test_past_a_limit_the_file_is_refused_with_the_path(mutate, path, words):
    err = _refused(mutate)
    assert err.path == path
    assert words in err.reason


def test_a_refused_giant_value_is_quoted_as_a_short_excerpt():
    err = _refused(lambda d: d["tokens"][0].update(stance="s" * 6_000_000))
    assert len(str(err)) < 400
    assert "6,000,000 characters" in str(err)
    err = _refused(lambda d: d["tokens"][0].update(x="9" * 90_000))  # a string where a number goes
    assert len(str(err)) < 400 and err.path == "$.tokens[0].x"


def test_excerpt_never_raises_and_stays_short():
    assert excerpt("ab") == "'ab'"
    assert excerpt("x" * 1000).endswith("\u2026 (1,000 characters)")
    assert len(excerpt(10 ** 5000)) < 40  # past Python's 4,300-digit int-to-str limit
    assert len(excerpt(list(range(10_000)))) < 100


def test_an_encounter_built_in_code_is_held_to_the_same_bounds():
    with pytest.raises(ValueError, match="coordinate limit"):
        Encounter(map=MapSpec(width=10, height=10), tokens=(Token(id="a", x=0, y=3e5),))
    with pytest.raises(ValueError, match="surrogate"):
        Encounter(map=MapSpec(width=10, height=10), lights=[{"name": "lamp \ud83d"}])
    with pytest.raises(ValueError, match="grid"):
        Encounter(map=MapSpec(width=100_000, height=10, grid=0.5))
    assert Encounter(map=MapSpec(width=100_000, height=100_000)).map.grid == 1.0  # the default grid is fine


def test_deep_nesting_is_refused_without_recursion():
    deep: object = 1
    for _ in range(limits.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(EncounterFileError, match="nested too deeply"):
        limits.check_data({"x": deep})
