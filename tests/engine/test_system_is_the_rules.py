"""The system is the RuleSystem (issue 27 item 1): each built-in system's registered object is
its rules, with no native facade (``native``, ``RULES``, a ``rules.py``) beside it; Shadowrun's
phases dispatch on the type of the value, and a value of no type it knows is refused by each
phase in its words, never with a traceback."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

from engine.errors import IllegalActionError
from engine.model import Encounter
from engine.rules import find_system


@pytest.mark.parametrize("name", ["sr5", "d100", "static-veil"])
def test_the_registered_object_is_the_rules_with_nothing_beside_it(name):
    system = find_system(name)
    package = f"engine.{name.replace('-', '_')}"
    assert not hasattr(system, "native")
    assert importlib.util.find_spec(f"{package}.rules") is None
    assert not hasattr(importlib.import_module(f"{package}.system"), "RULES")
    assert type(system).__module__ == f"{package}.system"


def test_shadowrun_refuses_a_value_of_no_known_type_in_every_phase():
    sr5 = find_system("sr5")
    enc = Encounter.model_validate({"ruleset": "sr5", "map": {"width": 10, "height": 10},
                                    "tokens": [{"id": "a", "x": 1, "y": 1}]})
    assert sr5.why_not(enc, 3) == "Shadowrun has no action int"
    with pytest.raises(IllegalActionError, match="^Shadowrun has no action int$"):
        sr5.preview(enc, 3)
    with pytest.raises(IllegalActionError, match="^Shadowrun has no action int$"):
        sr5.apply(enc, 3)
    assert sr5.resolve(3) == 3  # not a plan it rolls: its own result, as an action's cost is
