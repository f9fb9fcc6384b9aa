"""The "cover-only" rule system behind the one RuleSystem interface (test-only).

Its one action with dice, the Aimed shot: a d6 against the target's cover number (the map's
cover class as this system's number, plus the target's toughness). The shot needs
``2 + cover number - the weapon's aim`` or more; a hit gives the target a wound. Its weapons
are its own (:data:`WEAPONS`, on the sheet), not the tokens' Shadowrun categories. The typed
phases: ``AimedShot`` -> ``preview`` -> :class:`AimedPlan` -> ``resolve(plan, d6)`` ->
:class:`AimedResult` -> ``apply`` -> ``Outcome``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine import rules
from engine.errors import IllegalActionError
from engine.names import name_of

#: This system's weapons and their aim (subtracted from the number a shot needs).
WEAPONS = {"sling": -1, "bow": 0, "crossbow": 1}


class Sheet(BaseModel):
    """A token's data: ``toughness`` is added to the cover number it gets."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    toughness: int = Field(default=0, ge=0, le=10)
    wounds: int | None = Field(default=None, ge=0, le=99)  # None: none yet (not written)
    weapon: Literal["sling", "bow", "crossbow"] | None = None


class Settings(BaseModel):
    """The encounter's data: the number each cover class is worth."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    values: dict[str, int] = Field(default_factory=lambda: {"none": 0, "partial": 1, "good": 2, "full": 4})


@dataclass(frozen=True)
class AimedShot:
    """``actor`` shoots ``target`` with the weapon on its sheet."""

    actor: str
    target: str


@dataclass(frozen=True)
class AimedPlan:
    """What the shot needs: ``needed`` or more on a d6 (7 or more: it cannot hit)."""

    action: AimedShot
    cover: str
    cover_number: int
    aim: int
    needed: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class AimedResult:
    """The die rolled for a plan, and whether it hit."""

    plan: AimedPlan
    roll: int
    hit: bool
    lines: tuple[str, ...]


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
        out = [rules.Option("move", "Move", None)]
        if target is None:
            return out + [rules.Option("aimed_shot", "Aimed shot", "pick a target on the map")]
        action = AimedShot(actor, target)
        return out + [rules.Option("aimed_shot", "Aimed shot", self.why_not(encounter, action), action)]

    def why_not(self, encounter, action):
        if not isinstance(action, AimedShot):
            return "Cover only has no actions but Move (drag the token) and the Aimed shot"
        if self.sheet(encounter.token(action.actor)).weapon is None:
            return f"{name_of(encounter, action.actor)} has no weapon of this system (sling, bow, crossbow)"
        if action.target == action.actor or encounter.find(action.target) is None:
            return "pick another token as the target"
        needed = self._plan(encounter, action).needed
        return f"it cannot hit: it needs {needed} on a d6" if needed > 6 else None

    def _plan(self, encounter, action: AimedShot) -> AimedPlan:
        from engine.analysis import Tactics

        weapon = self.sheet(encounter.token(action.actor)).weapon
        cls = Tactics(encounter).cover(action.actor, [action.target])[action.target].cls
        number = self.cover_number(encounter, action.actor, action.target)
        aim = WEAPONS.get(weapon, 0)
        needed = 2 + number - aim
        who, whom = name_of(encounter, action.actor), name_of(encounter, action.target)
        lines = (f"{who} aims a {weapon} at {whom}", f"cover {cls}: {number}", f"aim {aim:+d}",
                 f"needs {needed}+ on a d6")
        return AimedPlan(action, cls, number, aim, needed, lines)

    def preview(self, encounter, action):
        reason = self.why_not(encounter, action)
        if reason is not None:
            raise IllegalActionError(reason)
        return self._plan(encounter, action)

    def dice_from_data(self, data):
        try:
            roll = int(str(data).strip())
        except ValueError:
            roll = 0
        if not 1 <= roll <= 6:
            raise IllegalActionError(f"a d6 shows 1 to 6, not {data!r}")
        return roll

    def resolve(self, plan, dice=None):
        roll = random.randint(1, 6) if dice is None else self.dice_from_data(dice)
        hit = roll >= plan.needed
        return AimedResult(plan, roll, hit, (f"rolls {roll} (needs {plan.needed}+): {'hit' if hit else 'miss'}",))

    def apply(self, encounter, action, dice=None):
        result = action if isinstance(action, AimedResult) else self.resolve(self.preview(encounter, action), dice)
        shot = result.plan.action
        who, whom = name_of(encounter, shot.actor), name_of(encounter, shot.target)
        after = encounter
        if result.hit:
            t = encounter.token(shot.target)
            after = encounter.model_copy(update={"tokens": tuple(
                x.with_rules(self.name, self.sheet(x).model_copy(update={"wounds": (self.sheet(x).wounds or 0) + 1}))
                if x.id == t.id else x for x in encounter.tokens)})
        wounds = self.sheet(after.token(shot.target)).wounds or 0
        line = (f"{who} shoots {whom}: rolls {result.roll}, needs {result.plan.needed}: "
                + (f"hit ({whom} has {wounds} wound{'s' if wounds != 1 else ''})" if result.hit else "miss"))
        return rules.Outcome.of(encounter, after, f"Aimed shot: {who} \u2192 {whom}", log=[line], detail=result)

    def token_status(self, encounter, token_id):
        s = self.sheet(encounter.token(token_id))
        return ((f"Toughness {s.toughness}",) if s.toughness else ()) + ((f"Wounds {s.wounds}",) if s.wounds else ())


SYSTEM = CoverOnly()
