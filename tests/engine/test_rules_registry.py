import pytest

from engine.errors import CoverfireError
from engine.rules import find_system, names, systems


def test_the_three_built_in_systems_are_found_by_their_file_names():
    assert names() == ("d100", "sr5", "static-veil")
    assert [s.name for s in systems()] == ["d100", "sr5", "static-veil"]
    sv = find_system("static-veil")
    assert (sv.label, sv.legacy_key, sv.uses_range_bands) == ("Static Veil", "static_veil", False)
    assert find_system("sr5").uses_range_bands and not find_system("d100").uses_range_bands


def test_unknown_ruleset_is_a_clear_error():
    with pytest.raises(CoverfireError, match="unknown ruleset 'dnd5e'; known: d100, sr5, static-veil"):
        find_system("dnd5e")
    with pytest.raises(CoverfireError, match="unknown ruleset '../x'"):
        find_system("../x")
