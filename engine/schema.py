"""Write the JSON Schema of the encounter file, generated from the model.

    python -m engine.schema [OUT]   (default: docs/encounter.schema.json)

The schema is the machine-readable half of ``docs/encounter-format.md``; a test checks that
the committed copy matches the model, so the two cannot drift apart.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engine.files import atomic_write_bytes
from engine.model import Encounter

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "encounter.schema.json"


def encounter_schema() -> dict:
    """The JSON Schema (draft 2020-12) of an encounter file, as a dict."""
    schema = Encounter.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "coverfire.encounter.v1"
    return schema


def schema_text() -> str:
    return json.dumps(encounter_schema(), indent=2, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else DEFAULT_OUT
    atomic_write_bytes(out, schema_text().encode("utf-8"))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
