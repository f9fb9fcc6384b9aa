"""Per-token and per-encounter data of the `d100` rule system, as stored in the encounter file.

Kept in its own module (pydantic only, no engine imports) so that `engine.model` can embed it
under `rules["d100"]` of a token and of the encounter without import cycles.

Every field is optional with a default, so ``{"d100": {}}`` is a valid character (speed 2,
maximum injury 50, no wounds, no armour) and a valid encounter set-up. Chances are percent
(a d100 roll at or under the chance succeeds), damage and injury are points, distances metres.
``docs/d100.md`` lists every field, its unit and the default chosen where seed 003 leaves a
number open.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# ---------------------------------------------------------------------------------------------
# Names the whole rule system shares
# ---------------------------------------------------------------------------------------------

Location = Literal[
    "head", "chest", "abdomen", "groin", "left_arm", "right_arm", "left_leg", "right_leg"
]
#: The seed's hit locations, head to foot (arms and legs tracked separately).
LOCATIONS: tuple[str, ...] = (
    "head",
    "chest",
    "abdomen",
    "groin",
    "left_arm",
    "right_arm",
    "left_leg",
    "right_leg",
)

Severity = Literal["none", "light", "heavy", "serious", "acute", "crippled"]
#: Severity steps in order; a location's step index is its position here (0 = no injury).
SEVERITIES: tuple[str, ...] = ("none", "light", "heavy", "serious", "acute", "crippled")

D100Stance = Literal[
    "normal",
    "hiding",
    "standing_cover",
    "crouched_cover",
    "corner",
    "standing_window",
    "crouched_window",
    "prone",
]
#: The seed's stances, in its order.
STANCES: tuple[str, ...] = (
    "normal",
    "hiding",
    "standing_cover",
    "crouched_cover",
    "corner",
    "standing_window",
    "crouched_window",
    "prone",
)

Hand = Literal["right", "left"]
WeaponKind = Literal["pistol", "smg", "rifle", "shotgun", "heavy", "melee", "thrown", "other"]
FireMode = Literal["single", "semi", "auto"]

_DICE = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$|^\s*(\d+)\s*$")


def parse_dice(expr: str) -> tuple[int, int, int]:
    """``"2d6+1"`` -> (2, 6, 1); ``"d3"`` -> (1, 3, 0); ``"4"`` -> (0, 0, 4).

    Raises ``ValueError`` naming the expression when it is not ``NdM[+-K]`` or a number."""
    m = _DICE.match(expr or "")
    if not m:
        raise ValueError(f"damage {expr!r} is not dice like '2d6+1', 'd10' or a number")
    if m.group(5) is not None:
        return (0, 0, int(m.group(5)))
    n = int(m.group(1)) if m.group(1) else 1
    sides = int(m.group(2))
    k = int(m.group(4)) if m.group(4) else 0
    if m.group(3) == "-":
        k = -k
    if not (1 <= n <= 50) or not (2 <= sides <= 1000):
        raise ValueError(f"damage {expr!r}: 1-50 dice of 2-1000 sides")
    return (n, sides, k)


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)


# ---------------------------------------------------------------------------------------------
# A character
# ---------------------------------------------------------------------------------------------


class D100Weapon(_Value):
    """A weapon as the d100 rules see it.

    ``skill`` names the entry of :attr:`Sheet.skills` giving the base chance (the encounter's
    ``base_chance`` when absent). ``damage`` is a dice expression rolled per hit. ``shots`` is
    how many rounds one semi-automatic Fire action fires, ``auto_shots`` one full-auto action.
    ``modifier`` is the weapon's own to-hit modifier in percent. Pistols (``kind="pistol"``)
    may be fired two at once; ``melee`` weapons are for Melee Attack and parries."""

    name: str = Field(min_length=1)
    kind: WeaponKind = "other"
    skill: str | None = None
    damage: str = "1d6"
    modes: tuple[FireMode, ...] = ("single",)
    shots: int = Field(default=3, ge=1, le=100)
    auto_shots: int = Field(default=10, ge=1, le=1000)
    modifier: int = Field(default=0, ge=-100, le=100)
    two_handed: bool = False

    @field_validator("damage")
    @classmethod
    def _dice(cls, v: str) -> str:
        parse_dice(v)
        return v.strip()

    @property
    def melee(self) -> bool:
        return self.kind == "melee"


class Wound(_Value):
    """One location's injury: ``damage`` points taken there, the ``severity`` step reached
    (stored, because Recover drops it a step without healing all the damage), and the number
    of ``bleeding`` wounds open there (each adds d3 to the injury total at the end of turn)."""

    damage: int = Field(default=0, ge=0, le=10_000)
    severity: Severity = "none"
    bleeding: int = Field(default=0, ge=0, le=100)

    @property
    def step(self) -> int:
        """The severity as a number, 0 (none) to 5 (crippled)."""
        return SEVERITIES.index(self.severity)


class Armour(_Value):
    """Armour on one location: subtracts ``value`` from each hit's damage while
    ``durability`` is above 0. ``max_durability`` (optional) is for display only."""

    name: str = ""
    value: int = Field(default=0, ge=0, le=1000)
    durability: int = Field(default=0, ge=0, le=100_000)
    max_durability: int | None = Field(default=None, ge=0, le=100_000)

    @property
    def protects(self) -> bool:
        """Whether it still subtracts its value (durability above 0)."""
        return self.durability > 0 and self.value > 0


class Sheet(_Value):
    """A token's d100 character and its state in the fight.

    ``speed`` is actions per round before penalties; ``skills`` maps a skill name to its base
    chance in percent; ``max_injury`` is the injury total the character survives (death when
    ``injury`` exceeds it). ``wounds`` and ``armour`` are keyed by location (see
    :data:`LOCATIONS`); a location absent has no wound / no armour. ``weapon`` names the
    weapon held (in the primary hand, or both hands for a two-handed one); ``offhand`` a
    second pistol in the other hand. ``aim_level`` counts Aim actions (0-3 by default) spent
    on ``aim_target``. ``cover`` is the protective value of the cover this character uses
    (None: the encounter's ``cover_value``). ``stunned`` counts turns to lose; ``actions_left``
    is None outside tracked rounds."""

    # -- who ------------------------------------------------------------------------------------
    speed: int = Field(default=2, ge=0, le=20)
    skills: dict[str, int] = Field(default_factory=dict)
    primary_hand: Hand = "right"
    # traits gained apart (seed 003: "it is not possible to be ambidextrous. This trait that
    # must be gained seperately"): "ambidextrous" takes away the off-hand penalty
    traits: tuple[str, ...] = ()
    max_injury: int = Field(default=50, ge=1, le=10_000)
    weapons: tuple[D100Weapon, ...] = ()
    # -- health ---------------------------------------------------------------------------------
    injury: int = Field(default=0, ge=0, le=100_000)
    wounds: dict[Location, Wound] = Field(default_factory=dict)
    armour: dict[Location, Armour] = Field(default_factory=dict)
    # -- state in the fight ---------------------------------------------------------------------
    stance: D100Stance = "normal"
    cover: int | None = Field(default=None, ge=0, le=1000)
    weapon: str | None = None
    offhand: str | None = None
    dropped: tuple[str, ...] = ()
    rested: bool = False
    aim_target: str | None = None
    aim_level: int = Field(default=0, ge=0, le=20)
    stunned: int = Field(default=0, ge=0, le=100)
    unconscious: bool = False
    dead: bool = False
    actions_left: int | None = Field(default=None, ge=0, le=100)
    acted: bool = False  # has taken an action this round
    turn_done: bool = False
    moved: float = Field(default=0.0, ge=0, le=100_000)  # metres moved this round (crawl limit)

    @field_validator("skills")
    @classmethod
    def _chances(cls, v: dict[str, int]) -> dict[str, int]:
        out: dict[str, int] = {}
        for k, c in v.items():
            key = str(k).strip().lower()
            if not key:
                raise ValueError("a skill name is empty")
            if not (0 <= int(c) <= 300):
                raise ValueError(f"skill {key!r} has chance {c}%; chances run 0 to 300")
            out[key] = int(c)
        return out

    @model_validator(mode="after")
    def _weapons_known(self):
        names = [w.name for w in self.weapons]
        if len(set(names)) != len(names):
            raise ValueError(f"weapon names repeat: {names}")
        for field in ("weapon", "offhand"):
            held = getattr(self, field)
            if held is not None and held not in names:
                raise ValueError(f"{field} {held!r} is not one of the weapons {names}")
        return self

    # -- read-only helpers ----------------------------------------------------------------------
    def wound(self, location: str) -> Wound:
        """The wound at a location (an unhurt ``Wound()`` when none is recorded)."""
        return self.wounds.get(location, Wound())  # type: ignore[call-overload]

    def armour_at(self, location: str) -> Armour | None:
        return self.armour.get(location)  # type: ignore[call-overload]

    def weapon_named(self, name: str | None) -> D100Weapon | None:
        for w in self.weapons:
            if w.name == name:
                return w
        return None

    @property
    def off_hand(self) -> str:
        """The hand that is not primary (``"left"`` or ``"right"``)."""
        return "left" if self.primary_hand == "right" else "right"


# ---------------------------------------------------------------------------------------------
# An encounter's settings and saved state
# ---------------------------------------------------------------------------------------------

#: Default location table: (location, highest d100 roll landing there), head to foot, so that
#: "moving the roll toward the preferred location" moves along the body.
DEFAULT_LOCATION_TABLE: tuple[tuple[str, int], ...] = (
    ("head", 10),
    ("chest", 30),
    ("left_arm", 40),
    ("right_arm", 50),
    ("abdomen", 65),
    ("groin", 70),
    ("left_leg", 85),
    ("right_leg", 100),
)

#: Default damage at which each severity starts on a location (light ... crippled).
DEFAULT_THRESHOLDS: tuple[int, int, int, int, int] = (1, 6, 11, 16, 21)


def _loc(location: str) -> str:
    return str(location).replace("_", " ")


class LocationTableError(ValueError):
    """A location table that does not give every d100 roll (1-100) exactly one location.
    ``location`` names the location at fault (the one that overlaps, leaves a gap before it,
    runs backwards, leaves 1-100 or is missing); its ``str`` is a sentence for the GM."""

    def __init__(self, message: str, location: str | None = None) -> None:
        self.location = location
        super().__init__(message)


def location_ranges(table: Iterable[tuple[str, int]]) -> dict[str, tuple[int, int]]:
    """Each location's d100 range (lowest, highest roll, both inclusive) in a location table
    of (location, highest roll) pairs listed in roll order, in the table's order:
    the default table gives ``{"head": (1, 10), "chest": (11, 30), ...}``."""
    out: dict[str, tuple[int, int]] = {}
    low = 1
    for loc, top in table:
        out[loc] = (low, int(top))
        low = int(top) + 1
    return out


def table_from_ranges(ranges: Mapping[str, tuple[int, int]]) -> tuple[tuple[str, int], ...]:
    """The location table, (location, highest roll) pairs in roll order, for d100 ranges
    given per location (lowest, highest roll, inclusive), e.g. ``{"head": (1, 10), ...}``.

    Raises :class:`LocationTableError` naming the location when a location is unknown or
    missing, a range runs backwards or leaves 1-100, two ranges overlap or a roll lands on no
    location: every roll 1-100 must land on exactly one of the eight locations."""
    for loc in ranges:
        if loc not in LOCATIONS:
            raise LocationTableError(
                f"{loc!r} is not a location; the locations are {', '.join(map(_loc, LOCATIONS))}", loc
            )
    for loc in LOCATIONS:
        if loc not in ranges:
            raise LocationTableError(f"{_loc(loc)} has no range of rolls", loc)
    spans: list[tuple[int, int, str]] = []
    for loc in LOCATIONS:
        low, high = (int(x) for x in ranges[loc])
        if low > high:
            raise LocationTableError(
                f"{_loc(loc)} {low}-{high} runs backwards (the lowest roll comes first)", loc
            )
        if low < 1 or high > 100:
            raise LocationTableError(f"{_loc(loc)} {low}-{high} goes outside the rolls 1-100", loc)
        spans.append((low, high, loc))
    spans.sort()
    nxt, prev = 1, None  # the first roll not covered yet; the span before
    for low, high, loc in spans:
        if low > nxt:
            after = f", after {_loc(prev[2])} {prev[0]}-{prev[1]}" if prev else ""
            raise LocationTableError(
                f"{_nowhere(nxt, low - 1)}: {_loc(loc)} {low}-{high} "
                f"starts at {low}{after}", loc
            )
        if low < nxt:
            assert prev is not None
            raise LocationTableError(
                f"{_loc(loc)} {low}-{high} overlaps {_loc(prev[2])} {prev[0]}-{prev[1]} "
                f"(rolls {_span(low, min(high, prev[1]))} are in both)", loc
            )
        nxt, prev = high + 1, (low, high, loc)
    if nxt <= 100:
        assert prev is not None
        raise LocationTableError(
            f"{_nowhere(nxt, 100)}: {_loc(prev[2])} {prev[0]}-{prev[1]} "
            "is the last range and ends before 100", prev[2]
        )
    return tuple((loc, high) for _, high, loc in spans)


def threshold_fault(thresholds: Iterable[int]) -> str | None:
    """None when severity thresholds (the damage at which light, heavy, serious, acute,
    crippled start) rise strictly from at least 1; else what is wrong, naming the step:
    ``(1, 8, 7, 16, 21)`` -> ``"serious starts at 7, not above heavy (8)"``."""
    t = [int(x) for x in thresholds]
    steps = SEVERITIES[1:]
    if len(t) != len(steps):
        return f"give {len(steps)} thresholds ({', '.join(steps)}), not {len(t)}"
    if t[0] < 1:
        return f"light starts at {t[0]}; it must start at 1 damage or more"
    for i in range(1, len(t)):
        if t[i] <= t[i - 1]:
            return f"{steps[i]} starts at {t[i]}, not above {steps[i - 1]} ({t[i - 1]})"
    return None


def _nowhere(a: int, b: int) -> str:
    return f"roll {a} lands on no location" if a == b else f"rolls {a}-{b} land on no location"


def _span(a: int, b: int) -> str:
    return str(a) if a == b else f"{a}-{b}"


class LogEntry(_Value):
    """One line of the combat log: the round, who acted, and what happened in words."""

    round: int = 0
    actor: str | None = None
    target: str | None = None
    kind: str = ""
    text: str


class Settings(_Value):
    """The encounter's d100 settings (numbers the seed leaves open; docs/d100.md) and the
    saved combat state (round, order, log)."""

    # -- numbers the seed leaves open -----------------------------------------------------------
    location_table: tuple[tuple[Location, int], ...] = DEFAULT_LOCATION_TABLE
    thresholds: tuple[int, int, int, int, int] = DEFAULT_THRESHOLDS
    location_thresholds: dict[Location, tuple[int, int, int, int, int]] = Field(
        default_factory=dict
    )
    base_chance: int = Field(default=50, ge=0, le=300)  # a skill not on the sheet
    cover_value: int = Field(default=5, ge=0, le=1000)  # protection of a hidden location
    head_stun_chance: int = Field(default=50, ge=0, le=100)  # a head hit that crosses nothing
    pass_out_chance: int = Field(default=50, ge=0, le=100)  # "may pass out from system shock"
    drop_chance: int = Field(default=50, ge=0, le=100)  # "may drop their weapon"
    crossing_effects: Literal["each", "highest"] = "each"
    armour_wear: Literal["half_down", "half_up"] = "half_down"
    # what the wear is half of (seed 003: "equal to half the damage of the shot"): the shot's
    # damage before cover and armour ("shot"), or what is left of it after cover ("after_cover")
    armour_wear_of: Literal["shot", "after_cover"] = "shot"
    recover_by: Literal["actor", "patient"] = "actor"  # whose maximum the Recover roll uses
    recover_heals_total: bool = True  # healing a location also lowers the injury total
    recover_stops_bleeding: bool = True  # Recover on a location closes its bleeding wounds
    recover_wakes: bool = True  # Recover on an unconscious character wakes them
    melee_reach: float = Field(default=1.0, ge=0, le=100)  # metres between body edges
    hidden_threshold: float = Field(default=0.75, gt=0, le=1)  # map: fraction that hides
    aim_step: int = Field(default=20, ge=0, le=100)
    aim_max: int = Field(default=60, ge=0, le=300)
    rest_bonus: int = Field(default=10, ge=0, le=100)
    semi_penalty: int = Field(default=10, ge=0, le=100)  # per shot fired, on each shot
    auto_divisor: int = Field(default=5, ge=1, le=100)
    auto_targets: int = Field(default=3, ge=1, le=10)
    two_pistol_penalty: int = Field(default=20, ge=0, le=100)
    off_hand_penalty: int = Field(default=20, ge=0, le=100)  # attacking with the off hand (not ambidextrous)
    crawl_metres: float = Field(default=2.0, ge=0, le=1000)  # "may only crawl": metres per round
    crawl_refuses: bool = True  # a drag past the crawl distance during a round is refused (else noted)
    placed_shift: int = Field(default=20, ge=0, le=100)
    auto_success: int = Field(default=5, ge=0, le=100)  # rolls 1..this always succeed
    auto_failure: int = Field(default=96, ge=1, le=101)  # rolls this..100 always fail
    # -- saved combat state ---------------------------------------------------------------------
    seed: int | None = None  # dice sequence (engine.d100.dice.SeededDice); None: fresh random
    rolls: int = Field(default=0, ge=0)  # dice rolled so far from ``seed``
    round: int = Field(default=0, ge=0, le=100_000)  # 0: no round started, actions not counted
    order: tuple[str, ...] = ()  # token ids in this round's order (by speed)
    log: tuple[LogEntry, ...] = ()

    @field_validator("location_table")
    @classmethod
    def _table(cls, v):
        locs = [loc for loc, _ in v]
        missing = [loc for loc in LOCATIONS if loc not in locs]
        if missing or len(set(locs)) != len(locs):
            raise ValueError(
                f"the location table must list each of {', '.join(LOCATIONS)} once; got {locs}"
            )
        low = 1
        for loc, top in v:  # each location's highest roll, in roll order: name the one at fault
            if top < low:
                after = f"after {_loc(prev)}, which ends at {low - 1}" if low > 1 else "before 1"
                raise ValueError(
                    f"location table: {_loc(loc)} ends at roll {top}, {after}; the highest "
                    "rolls must rise from 1 to end at 100"
                )
            low, prev = top + 1, loc
        if low != 101:
            raise ValueError(
                f"location table: the last location, {_loc(prev)}, ends at roll {low - 1}, not 100"
            )
        return v

    @field_validator("thresholds")
    @classmethod
    def _rising(cls, v):
        fault = threshold_fault(v)
        if fault:
            raise ValueError(f"severity thresholds {', '.join(map(str, v))}: {fault}")
        return v

    @field_validator("location_thresholds")
    @classmethod
    def _rising_each(cls, v):
        for loc, t in v.items():
            fault = threshold_fault(t)
            if fault:
                raise ValueError(f"severity thresholds of {_loc(loc)} {', '.join(map(str, t))}: {fault}")
        return v

    @model_validator(mode="after")
    def _automatic(self):
        if self.auto_success >= self.auto_failure:
            raise ValueError(
                f"rolls 1-{self.auto_success} always succeed and {self.auto_failure}-100 always "
                "fail: the always-succeed range must end below the always-fail one"
            )
        return self

    def thresholds_for(self, location: str) -> tuple[int, int, int, int, int]:
        """Damage (points on that location) at which light, heavy, serious, acute, crippled start."""
        return self.location_thresholds.get(location, self.thresholds)  # type: ignore[call-overload]
