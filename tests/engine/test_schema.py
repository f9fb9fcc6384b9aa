"""The committed JSON Schema matches the model, and real encounters validate against it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.schema import DEFAULT_OUT, encounter_schema, schema_text

ROOT = Path(__file__).resolve().parents[2]


def test_committed_schema_is_up_to_date():
    # compared as JSON values: the oldest pydantic allowed writes `"minimum": 0` where the
    # newest writes `0.0` (.ci/check-lowest), the same schema
    assert json.loads(DEFAULT_OUT.read_text(encoding="utf-8")) == json.loads(schema_text()), (
        "docs/encounter.schema.json is stale: run `python -m engine.schema`"
    )


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "assets" / "encounters").glob("*.json")))
def test_bundled_encounters_validate_against_the_schema(name):
    jsonschema = pytest.importorskip("jsonschema")
    data = json.loads((ROOT / "assets" / "encounters" / name).read_text(encoding="utf-8"))
    jsonschema.validate(data, encounter_schema())


def test_schema_rejects_what_the_loader_rejects():
    jsonschema = pytest.importorskip("jsonschema")
    bad = {"format": "coverfire.encounter", "version": 1, "map": {"width": -1, "height": 10}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, encounter_schema())
