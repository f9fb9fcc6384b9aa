import pytest

from engine.errors import CoverfireError
from engine.rules import RULESETS, get_ruleset


def test_every_ruleset_name_of_the_file_format_is_registered():
    from typing import get_args

    from engine.model import Ruleset

    assert set(get_args(Ruleset)) == set(RULESETS)


def test_unknown_ruleset_is_a_clear_error():
    with pytest.raises(CoverfireError, match="unknown ruleset 'dnd5e'"):
        get_ruleset("dnd5e")
