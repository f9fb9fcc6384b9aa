"""Bundled data: the demo encounter and icons."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
ENCOUNTERS = HERE / "encounters"
ICONS = HERE / "icons"  # coverfire.svg and coverfire-<N>.png (packaging/render_icons.py)


def demo_encounter_path() -> Path:
    """The bundled demo encounter (a street with cars, low walls and a building corner)."""
    return ENCOUNTERS / "demo.json"


def recorded_fight_path() -> Path:
    """The demo with a recorded fight of three Combat Turns (replay, after-action report:
    assets/encounters/make_recorded_fight.py wrote it)."""
    return ENCOUNTERS / "recorded-fight.json"
