"""Golden scenarios of the Static Veil maneuvers (one JSON file each, see runner.py)."""

from __future__ import annotations

import importlib.util

import pytest

from tests.engine.static_veil.runner import SCENARIOS, load, run

FILES = sorted(SCENARIOS.glob("*.json"))
HAVE_PATHS = importlib.util.find_spec("geometry.nav") is not None


def test_there_are_golden_scenarios():
    assert len(FILES) >= 1


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path):
    if "paths" in load(path).get("requires", ()) and not HAVE_PATHS:
        pytest.skip("geometry.nav is not there yet")
    run(path)
