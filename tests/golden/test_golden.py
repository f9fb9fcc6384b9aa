"""Every rule system's golden scenarios, run by the one runner (tests/golden/README.md)."""

from __future__ import annotations

import pytest

from engine.rules import systems
from tests.golden.runner import load_scenario, run, scenarios

FILES = scenarios()


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_golden_scenario(path):
    run(path)


def test_every_built_in_system_has_golden_scenarios_in_its_folder():
    by_system = {}
    for p in FILES:
        sc = load_scenario(p)
        assert sc["ruleset"] == p.parent.name, f"{p}: ruleset {sc['ruleset']!r} in folder {p.parent.name!r}"
        by_system[p.parent.name] = by_system.get(p.parent.name, 0) + 1
    assert {s.name for s in systems()} <= set(by_system), by_system


def test_the_sr5_topics_the_seed_needs_have_scenarios():
    names = {p.stem for p in FILES if p.parent.name == "sr5"}
    assert {"firing_modes", "recoil_across_phases", "multiple_targets", "cover_classes", "suppressive_fire",
            "shotgun_chokes", "blast_on_target", "blast_scatter", "blast_full_cover", "blast_flash_bang"} <= names
