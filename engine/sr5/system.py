"""Shadowrun 5e behind the one :class:`~engine.rules.RuleSystem` interface (``"sr5"``)."""

from __future__ import annotations

from engine import rules
from engine.sr5.sheet import Settings, Sheet


class SR5(rules.RuleSystem):
    name = "sr5"
    label = "Shadowrun 5th edition"
    Sheet = Sheet
    Settings = Settings
    legacy_key = "sr5"
    uses_range_bands = True
    default = True  # a file that names no ruleset is a Shadowrun one (format version 1)

    def movement(self, encounter, token_id):
        """Walking and Running rates this Combat Turn (``combat.movement``: the sheet's
        ``walk_rate``/``run_rate``, else Agility x 2 / x 4, plus Sprint metres); None for a
        token without an sr5 sheet."""
        if encounter.token(token_id).rules.get(self.name) is None:
            return None
        from engine.sr5.combat import movement

        b = movement(encounter, token_id)
        return rules.Movement(walk=float(b.walk), run=float(b.run), left=float(b.left))

    def strength(self, token) -> int | None:
        s = token.rules.get(self.name)
        return None if s is None else s.strength


SYSTEM = rules.register(SR5())
