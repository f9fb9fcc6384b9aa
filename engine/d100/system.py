"""The d100 hit-location system behind the one :class:`~engine.rules.RuleSystem` interface
(``"d100"``); the rules themselves are :class:`engine.d100.rules.D100Rules`."""

from __future__ import annotations

from engine import rules
from engine.d100.sheet import Settings, Sheet


class D100(rules.RuleSystem):
    name = "d100"
    label = "d100 hit locations"
    Sheet = Sheet
    Settings = Settings
    legacy_key = "d100"
    uses_range_bands = False

    @property
    def native(self):
        """The rules themselves (:data:`engine.d100.RULESET`)."""
        from engine.d100.rules import RULES

        return RULES


SYSTEM = rules.register(D100())
