"""Per-token and per-encounter data of the `static_veil` rule system, as stored in the encounter file.

Kept in its own module (pydantic only, no engine imports) so that `engine.model` can embed it
under `rules["static-veil"]` of a token and of the encounter without import cycles.

Every field is optional with a default, so ``{"rules": {"static-veil": {}}}`` is a valid character and a
valid encounter set-up. Numbers the seed text (``shared/seeds/004``) leaves open are defaults
documented in ``docs/static-veil.md``. Units: metres, action points (AP), Success Target points
(a d100-style percentage; modifiers such as the Charge's +10 are added to it).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: Skills the maneuvers test, lower-case keys of :attr:`Sheet.skills`.
#: athletics (shove, grapple and its actions, throwing debris), melee (charge attack, feint),
#: grip (resisting a Disarm), vigor (resisting a Knockdown), insight and perception (resisting a
#: Distraction), wit and composure (taunts), passive defense is its own field.
SKILL_NAMES = ("athletics", "melee", "grip", "vigor", "insight", "perception", "wit", "composure")

#: Default Success Target of a skill a sheet does not list (documented in docs/static-veil.md).
DEFAULT_SKILL = 30


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)


class GrappleLink(_Value):
    """One side of a grapple: who the other participant is and whether this character
    initiated (controls) it. Both tokens carry a link naming each other."""

    other: str = Field(min_length=1)
    initiator: bool = False


class Sheet(_Value):
    """A token's Static Veil character data and its turn state.

    ``ap_left`` None means a full turn's worth (``ap_per_turn``); ``movement_used`` is metres
    of this turn's Movement already spent. ``distracted`` is the n of Distracted (n), lasting
    ``distracted_turns`` more of the character's own turns. ``tricks_used`` maps a target's
    token id to the distraction tricks this character has already used on it (for the
    repeated-distraction rule)."""

    # -- economy -------------------------------------------------------------------------------
    ap_per_turn: int = Field(default=3, ge=0, le=100)
    ap_left: int | None = Field(default=None, ge=0, le=100)
    movement: float = Field(default=10.0, ge=0, le=1000)  # metres per turn
    movement_used: float = Field(default=0.0, ge=0, le=1000)
    # -- numbers the maneuvers test ---------------------------------------------------------------
    skills: dict[str, int] = Field(default_factory=dict)  # lower-case skill -> Success Target
    damage_modifier: int = 0
    passive_defense: int = 0  # Success Target of the Passive Defense roll (dice model)
    damage_taken: int = Field(default=0, ge=0)
    # -- states ----------------------------------------------------------------------------------
    prone: bool = False
    grapple: GrappleLink | None = None
    distracted: int = Field(default=0, ge=0)
    distracted_turns: int = Field(default=0, ge=0)
    incapacitated: bool = False
    charged_this_turn: bool = False
    # the way it walked this turn (metres, its corners from the turn's first step, drags joined
    # end to start): a straight approach made earlier counts for a Charge or Shove run-up
    turn_path: tuple[tuple[float, float], ...] = ()
    tricks_used: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    @field_validator("skills")
    @classmethod
    def _lower_keys(cls, v: dict[str, int]) -> dict[str, int]:
        out: dict[str, int] = {}
        for k, val in v.items():
            key = k.strip().lower()
            if not key:
                raise ValueError("a skill name is empty")
            if key in out:
                raise ValueError(f"skill {key!r} is listed twice (names ignore case)")
            out[key] = int(val)
        return out

    @property
    def ap(self) -> int:
        """Action points left this turn."""
        return self.ap_per_turn if self.ap_left is None else self.ap_left

    @property
    def movement_left(self) -> float:
        """Metres of Movement left this turn (never negative)."""
        return max(0.0, self.movement - self.movement_used)

    def skill(self, name: str, default: int = DEFAULT_SKILL) -> int:
        """The Success Target of a skill (lower-case name), or ``default`` if not listed."""
        return self.skills.get(name.strip().lower(), default)


class LogEntry(_Value):
    """One line of the Static Veil combat log."""

    round: int = 1
    actor: str | None = None
    target: str | None = None
    maneuver: str = ""
    text: str = ""


class DroppedItem(_Value):
    """An item knocked out of a hand (Disarm), lying on the map at (``x``, ``y``) metres."""

    name: str
    owner: str
    x: float
    y: float


DiceModel = Literal["gm", "d100"]


class Settings(_Value):
    """The encounter's Static Veil settings and saved combat state.

    ``dice`` chooses who decides tests: ``"gm"`` (default) means the GM enters every test's
    outcome (winner and net hits); ``"d100"`` rolls d100 under the Success Target with a
    seeded generator (``seed``, advanced by ``rolls``) so results replay exactly. See
    docs/static-veil.md for every default."""

    # -- dice --------------------------------------------------------------------------------------
    dice: DiceModel = "gm"
    seed: int = 0
    rolls: int = Field(default=0, ge=0)  # dice rolled so far (the generator's position)
    hit_step: int = Field(default=10, ge=1, le=100)  # Success Target points per extra hit
    # -- map numbers -------------------------------------------------------------------------------
    runup: float = Field(default=4.0, gt=0, le=100)  # metres straight at the target (Charge, Shove)
    reach: float = Field(default=1.0, ge=0, le=20)  # metres edge to edge to push, seize, strike
    # an earlier straight approach counts when its direction is within this of the target
    approach_degrees: float = Field(default=10.0, ge=0, le=90)
    # a Shove of a target held in a grapple (the seed does not forbid it): allowed, both move
    # as the shove says ("allow"), or refused ("refuse")
    shove_grappled: Literal["allow", "refuse"] = "allow"
    # -- costs the seed leaves open ----------------------------------------------------------------
    attack_ap: int = Field(default=2, ge=0, le=100)  # a melee or called-shot attack
    stand_ap: int = Field(default=1, ge=0, le=100)  # standing up from Prone
    # -- bonuses and penalties ---------------------------------------------------------------------
    charge_bonus: int = 10
    shove_runup_bonus: int = 10
    repeat_distraction: Literal["penalty", "no_effect"] = "penalty"
    repeat_penalty: int = -10
    distracted_penalty: int = -10  # per level of Distracted (n), to the character's own tests
    distracted_duration: int = Field(default=1, ge=1, le=100)  # own turns
    # -- saved turn state and log ------------------------------------------------------------------
    round: int = Field(default=1, ge=1)
    active: str | None = None  # token id whose turn it is
    dropped: tuple[DroppedItem, ...] = ()
    log: tuple[LogEntry, ...] = ()
