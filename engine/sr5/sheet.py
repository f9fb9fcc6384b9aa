"""Per-token and per-encounter data of the `sr5` rule system, as stored in the encounter file.

Kept in its own module (pydantic only, no engine imports) so that `engine.model` can embed it
under `rules["sr5"]` of a token and of the encounter without import cycles.

Every field is optional with a default, so ``{"sr5": {}}`` is a valid character (all
attributes 3, no skills) and a valid encounter set-up. Field names are plain words so an
importer (Chummer) can fill them; ``docs/sr5.md`` lists each field, its unit and its default.
Units: metres for movement, boxes for damage, dice for pools.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: Attribute field names of :class:`Sheet`, in Shadowrun's order, with their abbreviations.
ATTRIBUTES = {
    "BOD": "body",
    "AGI": "agility",
    "REA": "reaction",
    "STR": "strength",
    "WIL": "willpower",
    "LOG": "logic",
    "INT": "intuition",
    "CHA": "charisma",
    "EDG": "edge",
}

Smartlink = Literal["none", "gear", "implant"]
AimBonus = Literal["pool", "limit"]
Metatype = Literal["human", "elf", "dwarf", "ork", "troll"]


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)


def _lower_keys(v: dict, what: str) -> dict:
    out: dict = {}
    for k, val in v.items():
        key = str(k).strip().lower().replace(" ", "_").replace("-", "_")
        if not key:
            raise ValueError(f"a {what} name is empty")
        if key in out:
            raise ValueError(f"{what} {key!r} is listed twice (names ignore case, spaces and dashes)")
        out[key] = val
    return out


class Sheet(_Value):
    """A token's Shadowrun 5e character and its combat state.

    Attributes are the nine of SR5 under plain names (``body`` ... ``edge``). ``skills`` maps
    a lower-case skill key (``"automatics"``, ``"heavy_weapons"``) to its rating; a skill not
    listed is untrained (rating 0, defaulting at -1 is left to the GM). Damage is in boxes
    (``physical_damage`` may run past the monitor into overflow). State fields describe this
    moment of the fight and are changed by the rules: ``initiative`` is the current Initiative
    Score (None before it is rolled), ``moved`` is metres moved this Combat Turn, ``recoil``
    the rounds fired since the last reset (progressive recoil), ``aim`` the Take Aim actions
    stacked on ``aim_weapon``."""

    # -- who ------------------------------------------------------------------------------------
    metatype: Metatype = "human"
    # -- attributes -----------------------------------------------------------------------------
    body: int = Field(default=3, ge=0, le=50)
    agility: int = Field(default=3, ge=0, le=50)
    reaction: int = Field(default=3, ge=0, le=50)
    strength: int = Field(default=3, ge=0, le=50)
    willpower: int = Field(default=3, ge=0, le=50)
    logic: int = Field(default=3, ge=0, le=50)
    intuition: int = Field(default=3, ge=0, le=50)
    charisma: int = Field(default=3, ge=0, le=50)
    edge: int = Field(default=3, ge=0, le=50)
    edge_points: int | None = Field(default=None, ge=0, le=50)  # Edge left now; None = all
    # -- skills, qualities, gear ----------------------------------------------------------------
    skills: dict[str, int] = Field(default_factory=dict)
    qualities: tuple[str, ...] = ()
    armor: int = Field(default=0, ge=0, le=100)
    smartlink: Smartlink = "none"  # where the user's smartlink sits (gear: goggles; implant: eye)
    wireless: bool = True  # smartlink and smartguns in wireless mode
    vision: tuple[str, ...] = ()
    walk_rate: float | None = Field(default=None, ge=0, le=1000)  # metres per Combat Turn; None = Agility x 2
    run_rate: float | None = Field(default=None, ge=0, le=1000)  # metres per Combat Turn; None = Agility x 4
    # -- initiative -----------------------------------------------------------------------------
    initiative_dice: int = Field(default=1, ge=1, le=5)
    initiative_bonus: int = Field(default=0, ge=-50, le=50)  # added to Reaction + Intuition
    # -- condition monitors (boxes) -------------------------------------------------------------
    physical_bonus_boxes: int = Field(default=0, ge=-20, le=50)
    stun_bonus_boxes: int = Field(default=0, ge=-20, le=50)
    physical_damage: int = Field(default=0, ge=0, le=500)
    stun_damage: int = Field(default=0, ge=0, le=500)
    pain_tolerance: int = Field(default=0, ge=0, le=50)  # boxes ignored for wound modifiers
    # -- state in the fight ---------------------------------------------------------------------
    initiative: int | None = Field(default=None, ge=-200, le=200)  # current Initiative Score
    moved: float = Field(default=0.0, ge=0, le=10_000)  # metres this Combat Turn
    sprint_metres: float = Field(default=0.0, ge=0, le=1_000)  # extra running metres from Sprint
    running: bool = False
    sprinting: bool = False
    aim: int = Field(default=0, ge=0, le=50)  # Take Aim actions stacked
    aim_weapon: str | None = None
    aim_bonus: AimBonus = "pool"  # what each Take Aim raises (a wireless smartlink gives both)
    aim_magnified: bool = False  # the first Take Aim was spent lining up an image magnifier
    recoil: int = Field(default=0, ge=0, le=1_000)  # rounds fired since recoil was reset
    full_defense: bool = False  # until the end of the Combat Turn
    lucky_cover: bool = False  # went prone with the Lucky Cover Edge action this Combat Turn
    called_shot: bool = False  # a Call a Shot is pending: the next action must aim or attack
    seized_turn: int | None = Field(default=None, ge=0)  # Seize the Initiative: acts first in this Combat Turn
    blitz_turn: int | None = Field(default=None, ge=0)  # Blitz: 5D6 initiative in this Combat Turn
    last_action: bool = False  # Dead Man's Trigger succeeded: one Simple Action though down
    defended: int = Field(default=0, ge=0, le=100)  # defense tests since its own last action
    in_hand: tuple[str, ...] | None = None  # ready weapons, main hand first; None = first weapon
    dropped: tuple[str, ...] = ()  # weapons on the ground (Drop Object); Ready Weapon picks one up
    readied: dict[str, int] = Field(default_factory=dict)  # small throwing weapons readied, by weapon
    modes: dict[str, str] = Field(default_factory=dict)  # weapon name -> firing mode selected
    chokes: dict[str, str] = Field(default_factory=dict)  # weapon name -> narrow/medium/wide
    conditions: tuple[str, ...] = ()

    @field_validator("skills")
    @classmethod
    def _skill_keys(cls, v: dict[str, int]) -> dict[str, int]:
        out = _lower_keys(v, "skill")
        for k, r in out.items():
            if not (0 <= int(r) <= 20):
                raise ValueError(f"skill {k!r} has rating {r}; ratings run 0 to 20")
        return {k: int(r) for k, r in out.items()}

    @field_validator("chokes")
    @classmethod
    def _choke_names(cls, v: dict[str, str]) -> dict[str, str]:
        for w, c in v.items():
            if c not in ("narrow", "medium", "wide"):
                raise ValueError(f"choke {c!r} of {w!r} is not narrow, medium or wide")
        return v

    @field_validator("qualities", "vision", "conditions")
    @classmethod
    def _plain_words(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(s.strip().lower().replace(" ", "_").replace("-", "_") for s in v)

    # -- read-only helpers (no rules beyond reading the sheet) ----------------------------------
    def attribute(self, name: str) -> int:
        """An attribute by SR5 abbreviation (``"AGI"``) or field name (``"agility"``)."""
        key = ATTRIBUTES.get(name.upper(), name.lower())
        if key not in ATTRIBUTES.values():
            raise KeyError(f"no attribute {name!r}; known: {', '.join(ATTRIBUTES)}")
        return int(getattr(self, key))

    def skill(self, name: str) -> int:
        """A skill rating by key (case, spaces and dashes ignored); 0 when not listed."""
        return self.skills.get(name.strip().lower().replace(" ", "_").replace("-", "_"), 0)

    @property
    def edge_left(self) -> int:
        """Edge points left to spend (the Edge attribute when ``edge_points`` is None)."""
        return self.edge if self.edge_points is None else self.edge_points

    def has(self, word: str) -> bool:
        """Whether a quality, vision aid or condition of that name is on the sheet."""
        return word in self.qualities or word in self.vision or word in self.conditions


# ---------------------------------------------------------------------------------------------
# Encounter settings
# ---------------------------------------------------------------------------------------------

Visibility = Literal["clear", "light", "moderate", "heavy"]  # rain / fog / smoke
Light = Literal["full", "partial", "dim", "dark"]
Glare = Literal["none", "weak", "moderate", "blinding"]
Wind = Literal["none", "light", "moderate", "strong"]


class Environment(_Value):
    """The encounter's conditions, one row per column of the environment table (sr5-facts)."""

    visibility: Visibility = "clear"
    light: Light = "full"
    glare: Glare = "none"
    wind: Wind = "none"
    thermal_smoke: bool = False  # the smoke is thermal: thermographic vision does not help


class Options(_Value):
    """Numbers and choices the rule texts leave open; each documented in docs/sr5.md."""

    aim_cap: Literal["half_willpower_up", "half_skill_down"] = "half_willpower_up"
    sprint_action: Literal["simple", "complex"] = "simple"
    charge_attack_bonus: int = Field(default=2, ge=0, le=10)
    charge_defense_bonus: int = Field(default=1, ge=0, le=10)
    runner_defense_bonus: int = Field(default=2, ge=0, le=10)
    sprinter_defense_bonus: int = Field(default=4, ge=0, le=10)
    runner_attack_penalty: int = Field(default=-2, ge=-10, le=0)
    sprinter_attack_penalty: int = Field(default=-4, ge=-10, le=0)
    movement_split: Literal["per_pass", "per_turn"] = "per_pass"
    adjacent_metres: float = Field(default=1.0, ge=0, le=20)  # "right next to" a suppressive zone
    # the suppression penalty is on every test of an action (seed 001 "on all their actions");
    # whether it also lowers defense tests and damage resistance (neither is an action)
    suppression_on_defense: bool = True
    suppression_on_soak: bool = False
    melee_metres: float = Field(default=1.0, ge=0, le=20)  # edge-to-edge gap a Reach 0 blow spans
    intercept_on_approach: bool = False  # a move that ends within an enemy's reach may be intercepted too
    shotgun_split_pool: bool = True  # medium/wide spread divides the pool like multiple targets
    interrupt_needs_score: bool = True  # an interrupt needs Initiative Score >= its cost
    wounded_means: Literal["any_damage", "wound_modifier"] = "any_damage"  # for Stand Up
    wound_boxes: int = Field(default=3, ge=1, le=10)  # boxes per -1 wound modifier
    stun_overflow_ratio: int = Field(default=2, ge=1, le=10)  # excess Stun boxes per Physical box
    recoil_reset_by_free: bool = False  # a Free Action (other than firing) also resets recoil
    recoil_reset_by_idle_phase: bool = True  # a whole Action Phase without firing resets recoil
    # a tie of 0 attack hits against 0 defense hits: "graze" (seed 001: "If its a tie, its a
    # grazing hit") or "miss" (the SR5 core reading: an attack with no hits misses)
    zero_hit_tie: Literal["graze", "miss"] = "graze"
    # flechette suppressive fire (seed 001's chart is missing): the shotgun spread table's
    # defense modifiers on the Reaction + Edge test, by choke (narrow: exactly enhanced fire)
    # a suppressive zone longer than the weapon's maximum (extreme) range (seed 001: "to a
    # distance of their choosing (up to the maximum range of the weapon)"): refused with the
    # reason, or fired clipped to that range
    suppressive_beyond_range: Literal["refuse", "clip"] = "refuse"
    flechette_suppressive_defense: dict[str, int] = Field(
        default_factory=lambda: {"narrow": 0, "medium": -3, "wide": -5})
    # grenades and blasts (engine/sr5/blast.py; docs/sr5.md "Grenades and blasts")
    scatter_direction: Literal["d6", "d12"] = "d6"  # d6: face x 60 deg; d12 (2 dice): a clock face x 30 deg
    blast_metres: Literal["floor", "round", "ceil"] = "floor"  # whole metres of a target's distance from a blast
    blast_defense: Literal["dodge", "none"] = "dodge"  # dodge: each defense hit takes 1 off the DV there
    blast_radius: Literal["weapon", "drawn"] = "weapon"  # the blast circle: the grenade's reach, or as drawn


class RollRecord(_Value):
    """One dice roll as logged: the pool and where each part came from, the dice, the result."""

    label: str
    pool: int
    parts: tuple[tuple[str, int], ...] = ()  # (label, dice) of each base value and modifier
    limit: int | None = None
    limit_parts: tuple[tuple[str, int], ...] = ()
    dice: tuple[int, ...] = ()
    hits: int = 0
    threshold: int | None = None
    glitch: bool = False
    critical_glitch: bool = False
    edge: bool = False
    entered: bool = False  # the GM typed the dice in (physical dice)


class LogEntry(_Value):
    """One line of the sr5 combat log."""

    turn: int = 0
    initiative_pass: int = 0
    actor: str | None = None
    kind: str = ""
    text: str = ""
    rolls: tuple[RollRecord, ...] = ()


class Suppression(_Value):
    """A suppressive fire zone in force: the map zone ``zone`` fired by ``shooter``.

    ``hits`` is the threshold of everyone's Reaction + Edge test and the dice penalty near it;
    ``dv``/``damage_type``/``ap`` the weapon's base damage; ``turn`` the Combat Turn it ends
    with."""

    zone: str
    shooter: str
    weapon: str
    hits: int = Field(ge=0)
    dv: int = 0
    damage_type: Literal["P", "S"] = "P"
    ap: int = 0
    turn: int = 0
    enhanced: bool = False  # enhanced or flechette suppressive fire: prone does not spare
    fire: Literal["standard", "enhanced", "flechette"] = "standard"  # how the zone was fired
    choke: Literal["narrow", "medium", "wide"] | None = None  # flechette fire: the shotgun's choke


class PhaseUse(_Value):
    """What the acting token has spent in its current Action Phase."""

    simple: int = Field(default=0, ge=0)
    complex: int = Field(default=0, ge=0)
    free: int = Field(default=0, ge=0)
    attacked: bool = False
    quick_draw_fire: bool = False  # a successful Quick Draw: the next Fire Weapon costs nothing
    # the pistols whose Quick Draw test succeeded (one test a pistol): those the free fire takes;
    # empty with quick_draw_fire set: any (files from before the field)
    quick_draw_guns: tuple[str, ...] = ()
    actions: tuple[str, ...] = ()  # action ids taken this phase, in order


class Settings(_Value):
    """The encounter's sr5 settings and saved combat state.

    ``turn`` is the Combat Turn (0 = no combat running), ``initiative_pass`` the pass within
    it, ``acting`` the token whose Action Phase it is, ``acted`` who has had a phase this pass,
    ``order`` the GM's tie-break order after Edge, Reaction and Intuition (ids, first = wins),
    ``free_spent`` tokens that have used this pass's Free Action (in or out of their phase)."""

    environment: Environment = Environment()
    options: Options = Options()
    seed: int | None = None  # dice seed; None = fresh randomness each session
    # -- combat state ---------------------------------------------------------------------------
    turn: int = Field(default=0, ge=0)
    initiative_pass: int = Field(default=0, ge=0)
    acting: str | None = None
    acted: tuple[str, ...] = ()
    order: tuple[str, ...] = ()
    phase: PhaseUse = PhaseUse()
    free_spent: tuple[str, ...] = ()
    suppressions: tuple[Suppression, ...] = ()
    log: tuple[LogEntry, ...] = ()
