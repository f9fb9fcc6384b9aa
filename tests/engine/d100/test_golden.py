"""Golden scenarios of the d100 rules (tests/engine/d100/golden/*.json)."""

from __future__ import annotations

import pytest

from tests.engine.d100.golden_runner import GOLDEN, run_scenario

SCENARIOS = sorted(GOLDEN.glob("*.json"))


def test_there_are_scenarios():
    assert len(SCENARIOS) >= 10


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_golden(path):
    run_scenario(path)
