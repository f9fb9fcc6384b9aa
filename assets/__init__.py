"""Bundled data: the demo encounter and icons."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
ENCOUNTERS = HERE / "encounters"


def demo_encounter_path() -> Path:
    """The bundled demo encounter (a street with cars, low walls and a building corner)."""
    return ENCOUNTERS / "demo.json"
