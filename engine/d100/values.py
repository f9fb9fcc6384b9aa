"""The d100 rules' tables and the values they answer (seed 003): the stance table, chances
with their modifiers, shot and damage results, the change record, previews, a token's status;
and the pure helpers that read the sheet and the location table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.d100 import effects as fx
from engine.d100.dice import Recorder, Roll, SeededDice
from engine.d100.sheet import LOCATIONS, LogEntry, Settings, Sheet, parse_dice
from engine.model import Encounter, Token

LEGS = ("left_leg", "right_leg")

#: The seed's stance table: locations each stance hides. ``"off_arm"`` / ``"off_leg"`` stand
#: for the arm / leg on the side that is not the primary hand (the weapon side stays out).
STANCE_HIDDEN: dict[str, tuple[str, ...]] = {
    "normal": (),
    "hiding": LOCATIONS,
    "standing_cover": ("groin", *LEGS),
    "crouched_cover": ("abdomen", "groin", *LEGS),
    "corner": ("abdomen", "groin", *LEGS),
    "standing_window": ("off_arm", "groin", *LEGS),
    "crouched_window": ("abdomen", "groin", *LEGS),
    "prone": ("off_leg", "groin"),
}

STANCE_LABELS: dict[str, str] = {
    "normal": "Normal (in the open)",
    "hiding": "Hiding behind cover",
    "standing_cover": "Standing behind cover",
    "crouched_cover": "Crouched behind cover",
    "corner": "Firing around corner",
    "standing_window": "Standing in window",
    "crouched_window": "Crouched in window",
    "prone": "Firing prone",
}

#: The map stance (geometry.bodies) a d100 stance puts the token's body in.
MAP_STANCE: dict[str, str] = {
    "normal": "standing",
    "hiding": "crouched",
    "standing_cover": "standing",
    "crouched_cover": "crouched",
    "corner": "standing",
    "standing_window": "standing",
    "crouched_window": "crouched",
    "prone": "prone",
}


@dataclass(frozen=True)
class Modifier:
    """One term of a chance: ``value`` percent, a ``label`` for the GM, and its ``source``
    (``skill``, ``base``, ``wound``, ``weapon``, ``aim``, ``rest``, ``semi``, ``two pistols``,
    ``off hand``, ``gm``, ``full auto``, ``max injury``)."""

    label: str
    value: int
    source: str


@dataclass(frozen=True)
class Chance:
    """A d100 chance: ``value`` percent (the sum of ``modifiers``; may be below 1 or above
    100). A roll succeeds at 1..``auto_success`` always, at ``auto_failure``..100 never, else
    when at most ``value``. ``placed_max``: rolls at or under it are placed shots (0: none
    can be); ``aimed`` whether aiming bonus applied (placed at half rather than a tenth)."""

    value: int
    modifiers: tuple[Modifier, ...]
    aimed: bool = False
    placed_max: int = 0
    auto_success: int = 5
    auto_failure: int = 96

    def succeeds(self, roll: int) -> bool:
        if roll <= self.auto_success:
            return True
        if roll >= self.auto_failure:
            return False
        return roll <= self.value

    def automatic(self, roll: int) -> str | None:
        """``"success"`` / ``"failure"`` when the roll's result did not depend on the chance."""
        if roll <= self.auto_success and roll > self.value:
            return "success"
        if roll >= self.auto_failure and roll <= self.value:
            return "failure"
        return None

    def placed(self, roll: int) -> bool:
        """A placed shot: a real success (not only the 1-5 auto-success) at or under
        ``placed_max``."""
        return roll <= self.placed_max and roll <= self.value and roll < self.auto_failure

    def text(self) -> str:
        parts = " ".join(f"{m.value:+d} {m.label}" if i else f"{m.value} {m.label}"
                         for i, m in enumerate(self.modifiers))
        return f"{self.value}% ({parts})"


def hit_chance(mods: list[Modifier], settings: Settings, aimed: bool = False,
            placed: bool = True) -> Chance:
    value = sum(m.value for m in mods)
    placed_max = 0
    if placed and value > 0:
        placed_max = value // 2 if aimed else value // 10
    return Chance(value, tuple(mods), aimed, placed_max, settings.auto_success, settings.auto_failure)


@dataclass(frozen=True)
class Event:
    """Something that happened to a token: ``kind`` (``stun``, ``prone``, ``speed``,
    ``extra``, ``bleed``, ``bleeding``, ``drop``, ``pass_out``, ``dead``, ``armour``,
    ``aim_lost``, ``heal``, ``wake``, ``lost_turn``, ``severity``, ``head_stun``), the GM's
    words, and where it applies (``location``) and how much (``amount``)."""

    token: str
    kind: str
    text: str
    location: str | None = None
    amount: int | None = None


@dataclass(frozen=True)
class DamageResult:
    """One hit's damage on a location, step by step (all points)."""

    target: str
    location: str
    rolled: int
    hidden: bool
    cover: int  # cover value subtracted (0 when the location is not hidden)
    after_cover: int
    armour: int  # armour value that applied (0: none, or worn out)
    pierced: bool
    wear: int
    durability_before: int | None
    durability_after: int | None
    taken: int  # added to the location and to the injury total
    severity_before: str
    severity_after: str
    injury_before: int
    injury_after: int  # after extra damage of the effects too
    events: tuple[Event, ...] = ()


@dataclass(frozen=True)
class ShotResult:
    """One shot (or melee blow): the chance and roll, hit or not, the location (with the raw
    and the placed location roll), a parry, and the damage."""

    attacker: str
    target: str
    weapon: str
    index: int  # 1-based within this target
    chance: Chance
    roll: int
    hit: bool
    automatic: str | None = None
    placed: bool = False
    prefer: str | None = None
    location_roll: int | None = None
    placed_roll: int | None = None  # the location roll after moving toward ``prefer``
    location: str | None = None
    parry_chance: Chance | None = None
    parry_roll: int | None = None
    parried: bool = False
    damage: DamageResult | None = None


@dataclass(frozen=True)
class RecoverResult:
    actor: str
    patient: str
    location: str | None
    chance: Chance
    roll: int
    success: bool
    healed: int = 0
    severity_before: str | None = None
    severity_after: str | None = None
    injury_before: int = 0
    injury_after: int = 0


@dataclass(frozen=True)
class TokenChange:
    """What the rules changed on one token: its d100 sheet and its map stance."""

    id: str
    sheet_before: Sheet | None
    sheet_after: Sheet
    stance_before: str
    stance_after: str


@dataclass(frozen=True)
class Change:
    """The record of one applied action: the new ``encounter``; the changed tokens and
    settings (before and after); every die; the shots / recovery;
    every event; the log lines added."""

    action: object
    encounter: Encounter
    tokens: tuple[TokenChange, ...]
    settings_before: Settings | None
    settings_after: Settings
    rolls: tuple[Roll, ...] = ()
    shots: tuple[ShotResult, ...] = ()
    recover: RecoverResult | None = None
    events: tuple[Event, ...] = ()
    log: tuple[LogEntry, ...] = ()

    @property
    def changed_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.tokens)


@dataclass(frozen=True)
class AttackPreview:
    """Before rolling: one target of an attack, the chance of each shot at it (in order), the
    preferred location, the hidden locations and where that list came from (``"stance"``
    or ``"given"``), the cover value hidden locations get, and the parry chance (melee)."""

    attacker: str
    target: str
    weapon: str
    shots: tuple[Chance, ...]
    prefer: str
    hidden: tuple[str, ...]
    hidden_source: str
    cover: int
    parry: Chance | None = None


@dataclass(frozen=True)
class Preview:
    """What an action would do before any die: legal or why not, its cost in actions, the
    attacks (per target) or the Recover chance and heal dice."""

    action: object
    legal: bool
    reason: str | None
    cost: int
    attacks: tuple[AttackPreview, ...] = ()
    recover: Chance | None = None
    heal: str | None = None  # e.g. "d3+1"


@dataclass(frozen=True)
class Status:
    """A token's derived state for the body diagram and the round tracker."""

    id: str
    actions_per_round: int
    speed_penalty: int
    stay_prone: bool
    crawl: bool
    useless_arms: tuple[str, ...]
    halved_arms: tuple[str, ...]
    bleeding: int  # open bleeding wounds
    hidden: tuple[str, ...]  # by the stance table
    map_stance: str
    aim_bonus: int
    can_act: bool
    reason: str | None  # why it cannot act, when it cannot
    stunned: bool = False  # loses this round's turn (stunned before acting) or the next one


def sheet_of(token: Token) -> Sheet:
    """The token's d100 sheet (a default :class:`Sheet` when it has none)."""
    s = token.rules.get("d100")
    return s if s is not None else Sheet()


def settings_of(encounter: Encounter) -> Settings:
    """The encounter's d100 settings (defaults when it has none)."""
    s = encounter.rules.get("d100")
    return s if s is not None else Settings()


def location_for(roll: int, settings: Settings) -> str:
    """The location a d100 location roll (1..100) lands on by the location table."""
    for loc, top in settings.location_table:
        if roll <= top:
            return loc
    return settings.location_table[-1][0]


def location_range(location: str, settings: Settings) -> tuple[int, int]:
    """The lowest and highest location roll of ``location`` in the table."""
    lo = 1
    for loc, top in settings.location_table:
        if loc == location:
            return (lo, top)
        lo = top + 1
    raise ValueError(f"{location!r} is not in the location table")


def place_roll(roll: int, prefer: str, settings: Settings) -> int:
    """A placed shot's location roll: ``roll`` moved up to ``placed_shift`` points toward
    the preferred location's range (unchanged when already inside it)."""
    lo, hi = location_range(prefer, settings)
    if roll < lo:
        return roll + min(settings.placed_shift, lo - roll)
    if roll > hi:
        return roll - min(settings.placed_shift, roll - hi)
    return roll


def step_for(damage: int, thresholds: tuple[int, ...]) -> int:
    """Severity step (0 none .. 5 crippled) of ``damage`` points on a location."""
    return sum(1 for t in thresholds if damage >= t)


def stance_hidden(stance: str, sheet: Sheet) -> tuple[str, ...]:
    """The locations the stance table hides for this character (off arm/leg resolved)."""
    off = sheet.off_hand
    out = []
    for loc in STANCE_HIDDEN[stance]:
        if loc == "off_arm":
            loc = f"{off}_arm"
        elif loc == "off_leg":
            loc = f"{off}_leg"
        out.append(loc)
    return tuple(loc for loc in LOCATIONS if loc in out)


def lasting_of(sheet: Sheet, settings: Settings) -> fx.Lasting:
    return fx.lasting({loc: w.step for loc, w in sheet.wounds.items()}, settings.crossing_effects)


def actions_per_round(sheet: Sheet, settings: Settings) -> int:
    """Actions a character gets at the start of a round: speed minus penalties, at least 1."""
    return max(1, sheet.speed - lasting_of(sheet, settings).speed_penalty)


def arms_of(sheet: Sheet, slot: str) -> tuple[str, ...]:
    """The arms holding the weapon in ``slot`` (``"main"``: the primary hand, both arms for a
    two-handed weapon; ``"off"``: the other hand)."""
    primary = f"{sheet.primary_hand}_arm"
    off = f"{sheet.off_hand}_arm"
    if slot == "off":
        return (off,)
    w = sheet.weapon_named(sheet.weapon)
    if w is not None and w.two_handed:
        return (primary, off)
    return (primary,)


def distance_between(a: Token, b: Token) -> float:
    """Metres between the two bodies' edges (0 when touching or overlapping)."""
    return max(0.0, math.hypot(a.x - b.x, a.y - b.y) - a.radius - b.radius)


def heal_bonus(maximum: int) -> int:
    return max(0, (maximum - 50) // 10)


def seeded_source(dice) -> SeededDice | None:
    """The encounter's seeded sequence behind a dice source: ``dice`` itself, or the
    ``fallback`` of the GM's :class:`~engine.d100.dice.EnteredDice` (so dice the GM typed in
    do not use up the sequence and the ones rolled still advance ``Settings.rolls``)."""
    if isinstance(dice, SeededDice):
        return dice
    fallback = getattr(dice, "fallback", None)
    return fallback if isinstance(fallback, SeededDice) else None


def roll_dice(rec: Recorder, expr: str, label: str, who: str | None) -> int:
    n, sides, k = parse_dice(expr)
    return max(0, sum(rec.dice(n, sides, label, who)) + k) if n else max(0, k)
