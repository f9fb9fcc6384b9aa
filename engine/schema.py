"""Write the JSON Schema of the encounter file, generated from the model.

    python -m engine.schema [OUT]   (default: docs/encounter.schema.json)

The schema is the machine-readable half of ``docs/encounter-format.md``; a test checks that
the committed copy matches the model, so the two cannot drift apart. Each registered rule
system (:func:`engine.rules.systems`) adds its ``Sheet`` under ``Token.rules.<name>`` and its
``Settings`` under ``Encounter.rules.<name>``; nothing here names a system.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic.json_schema import models_json_schema

from engine import rules
from engine.files import atomic_write_bytes
from engine.model import VERSION, Encounter

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "encounter.schema.json"


def encounter_schema() -> dict:
    """The JSON Schema (draft 2020-12) of an encounter file, as a dict."""
    systems = rules.systems()
    models = [(Encounter, "validation")]
    for s in systems:
        models += [(s.Sheet, "validation"), (s.Settings, "validation")]
    refs, top = models_json_schema(models, ref_template="#/$defs/{model}")
    defs = top["$defs"]
    root = defs.pop(Encounter.__name__)
    for where, kind in (("Token", "Sheet"), (None, "Settings")):
        props = {s.name: refs[(getattr(s, kind), "validation")] for s in systems}
        what = "The token's data" if kind == "Sheet" else "The encounter's data"
        target = defs[where]["properties"] if where else root["properties"]
        target["rules"] = {
            "title": "Rules",
            "description": f"{what} for each rule system (its {kind}), keyed by ruleset name.",
            "type": "object",
            "properties": props,
            "additionalProperties": False,
        }
    root["properties"]["ruleset"] = {"title": "Ruleset", "enum": [s.name for s in systems],
                                     "default": rules.default_name(), "type": "string"}
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
              "$id": f"coverfire.encounter.v{VERSION}", **root, "$defs": defs}
    return _readable_names(schema, systems)


def _readable_names(schema: dict, systems) -> dict:
    """Definitions pydantic had to qualify by module (three systems each have a ``Sheet``:
    ``engine__sr5__sheet__Sheet``) renamed by ruleset (``sr5.Sheet``), references too."""
    renames = {}
    for s in systems:
        for model in (s.Sheet, s.Settings):
            prefix = model.__module__.replace(".", "__") + "__"
            for key in schema["$defs"]:
                if key.startswith(prefix):
                    renames[key] = f"{s.name}.{key[len(prefix):]}"
    if not renames:
        return schema
    text = json.dumps(schema)
    for old, new in renames.items():
        text = text.replace(f'"#/$defs/{old}"', f'"#/$defs/{new}"')
    out = json.loads(text)
    out["$defs"] = {renames.get(k, k): v for k, v in out["$defs"].items()}
    return out


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
