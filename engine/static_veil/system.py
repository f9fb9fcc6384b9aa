"""Static Veil behind the one :class:`~engine.rules.RuleSystem` interface
(``"static-veil"``); the rules themselves are :class:`engine.static_veil.rules.StaticVeil`."""

from __future__ import annotations

from engine import rules
from engine.static_veil.sheet import Settings, Sheet


class StaticVeilSystem(rules.RuleSystem):
    name = "static-veil"
    label = "Static Veil"
    Sheet = Sheet
    Settings = Settings
    legacy_key = "static_veil"
    uses_range_bands = False

    @property
    def native(self):
        """The rules themselves (:data:`engine.static_veil.RULESET`)."""
        from engine.static_veil import RULESET

        return RULESET

    def movement(self, encounter, token_id):
        """The token's Movement per turn (its sheet's ``movement``), None without a sheet."""
        s = encounter.token(token_id).rules.get(self.name)
        if s is None:
            return None
        return rules.Movement(walk=float(s.movement), run=float(s.movement), left=float(s.movement))


SYSTEM = rules.register(StaticVeilSystem())
