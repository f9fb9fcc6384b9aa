"""The "cover-only" rule system behind the one RuleSystem interface (test-only)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from engine import rules


class Sheet(BaseModel):
    """A token's data: ``toughness`` is added to the cover number it gets."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    toughness: int = Field(default=0, ge=0, le=10)


class Settings(BaseModel):
    """The encounter's data: the number each cover class is worth."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    values: dict[str, int] = Field(default_factory=lambda: {"none": 0, "partial": 1, "good": 2, "full": 4})


class CoverOnly(rules.RuleSystem):
    name = "cover-only"
    label = "Cover only"
    Sheet = Sheet
    Settings = Settings
    uses_range_bands = False

    def cover_number(self, encounter, attacker: str, target: str, tactics=None) -> int:
        """The target's cover class from the attacker as this system's number, plus its
        toughness (the map's answer: ``engine.analysis.Tactics.cover``)."""
        from engine.analysis import Tactics

        tac = tactics if tactics is not None else Tactics(encounter)
        cls = tac.cover(attacker, [target])[target].cls
        return self.settings(encounter).values[cls] + self.sheet(encounter.token(target)).toughness

    def actions(self, encounter, actor, target=None):
        encounter.token(actor)
        return [rules.Option("move", "Move", None)]

    def why_not(self, encounter, action):
        return "Cover only has no actions but Move (drag the token)"

    def token_status(self, encounter, token_id):
        t = self.sheet(encounter.token(token_id)).toughness
        return (f"Toughness {t}",) if t else ()


SYSTEM = CoverOnly()
