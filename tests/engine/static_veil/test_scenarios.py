"""Golden scenarios of the Static Veil maneuvers (one JSON file each, see runner.py)."""

from __future__ import annotations

import pytest

from tests.engine.static_veil.runner import SCENARIOS, run

FILES = sorted(SCENARIOS.glob("*.json"))


def test_there_are_golden_scenarios():
    assert len(FILES) >= 1


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path):
    run(path)  # (scenarios that need paths once skipped without geometry.nav, which is always there)
