"""The d100 hit-location rules of seed 003: check an action, preview its chances, apply it.

Check, then apply (as python-chess separates ``is_legal`` from ``push``):

* :meth:`D100Rules.why_not` answers None or the reason an action is refused;
  :meth:`D100Rules.check` raises :class:`~engine.errors.IllegalActionError` with it.
* :meth:`D100Rules.preview` gives, before any die is rolled, every chance with each modifier
  and its source, the placed-shot threshold, the hidden locations and the cover value.
* :meth:`D100Rules.apply` resolves the action with a dice source and returns a
  :class:`Change`: the new encounter, every die, every shot (roll, location placed or not,
  damage through cover and armour, severity steps and their effects), the log lines, and the
  before/after values :meth:`D100Rules.undo` restores.

Percentages are whole percent; damage and injury whole points. Numbers the seed leaves open
come from the encounter's :class:`~engine.d100.sheet.Settings` (docs/d100.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.d100 import effects as fx
from engine.d100.actions import (
    Aim,
    ChangeStance,
    EndTurn,
    Fire,
    FireTwoPistols,
    Melee,
    Recover,
    RestWeapon,
    StartRound,
    SwitchWeapon,
    TargetSpec,
)
from engine.d100.dice import Dice, RandomDice, Recorder, Roll, SeededDice
from engine.d100.sheet import (
    LOCATIONS,
    SEVERITIES,
    STANCES,
    D100Weapon,
    LogEntry,
    Settings,
    Sheet,
    Wound,
    parse_dice,
)
from engine.errors import IllegalActionError, UnknownIdError
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


# =============================================================================================
# Values the rules answer
# =============================================================================================


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


def _chance(mods: list[Modifier], settings: Settings, aimed: bool = False,
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
    settings (before and after, for undo and redo); every die; the shots / recovery;
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


# =============================================================================================
# Pure helpers
# =============================================================================================


def sheet_of(token: Token) -> Sheet:
    """The token's d100 sheet (a default :class:`Sheet` when it has none)."""
    return token.d100 if token.d100 is not None else Sheet()


def settings_of(encounter: Encounter) -> Settings:
    """The encounter's d100 settings (defaults when it has none)."""
    return encounter.d100 if encounter.d100 is not None else Settings()


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


def _distance_between(a: Token, b: Token) -> float:
    """Metres between the two bodies' edges (0 when touching or overlapping)."""
    return max(0.0, math.hypot(a.x - b.x, a.y - b.y) - a.radius - b.radius)


def _heal_bonus(maximum: int) -> int:
    return max(0, (maximum - 50) // 10)


def seeded_source(dice) -> SeededDice | None:
    """The encounter's seeded sequence behind a dice source: ``dice`` itself, or the
    ``fallback`` of the GM's :class:`~engine.d100.dice.EnteredDice` (so dice the GM typed in
    do not use up the sequence and the ones rolled still advance ``Settings.rolls``)."""
    if isinstance(dice, SeededDice):
        return dice
    fallback = getattr(dice, "fallback", None)
    return fallback if isinstance(fallback, SeededDice) else None


def _roll_dice(rec: Recorder, expr: str, label: str, who: str | None) -> int:
    n, sides, k = parse_dice(expr)
    return max(0, sum(rec.dice(n, sides, label, who)) + k) if n else max(0, k)


# =============================================================================================
# The working state of one application
# =============================================================================================


class _Work:
    """Sheets and stances being changed while one action resolves, plus log and events."""

    def __init__(self, encounter: Encounter, rec: Recorder) -> None:
        self.enc = encounter
        self.settings = settings_of(encounter)
        self.rec = rec
        self.sheets: dict[str, Sheet] = {}
        self.stances: dict[str, str] = {}
        self.events: list[Event] = []
        self.log: list[LogEntry] = []

    def token(self, ident: str) -> Token:
        return self.enc.token(ident)

    def sheet(self, ident: str) -> Sheet:
        if ident not in self.sheets:
            self.sheets[ident] = sheet_of(self.token(ident))
        return self.sheets[ident]

    def put(self, ident: str, **update) -> Sheet:
        s = self.sheet(ident).model_copy(update=update)
        self.sheets[ident] = s
        return s

    def map_stance(self, ident: str) -> str:
        return self.stances.get(ident, self.token(ident).stance)

    def set_stance(self, ident: str, stance: str) -> None:
        self.put(ident, stance=stance)
        self.stances[ident] = MAP_STANCE[stance]

    def event(self, token: str, kind: str, text: str, location: str | None = None,
              amount: int | None = None) -> Event:
        e = Event(token, kind, text, location, amount)
        self.events.append(e)
        if kind != "severity":
            self.log.append(LogEntry(round=self.settings.round, actor=None, target=token,
                                     kind=kind, text="    " + text))
        return e

    def say(self, text: str, kind: str, actor: str | None = None, target: str | None = None) -> None:
        self.log.append(LogEntry(round=self.settings.round, actor=actor, target=target,
                                 kind=kind, text=text))

    def name(self, ident: str) -> str:
        t = self.token(ident)
        return t.name or t.id

    # -- state changes with their seed meaning ------------------------------------------------
    def add_injury(self, ident: str, points: int, why: str) -> list[Event]:
        if points <= 0:
            return []
        s = self.sheet(ident)
        self.put(ident, injury=s.injury + points)
        return self.check_death(ident, why)

    def check_death(self, ident: str, why: str) -> list[Event]:
        s = self.sheet(ident)
        if not s.dead and s.injury > s.max_injury:
            self.put(ident, dead=True, actions_left=0 if s.actions_left is not None else None)
            return [self.event(ident, "dead", f"{self.name(ident)} dies: injury {s.injury} exceeds "
                               f"the maximum {s.max_injury} ({why})", amount=s.injury)]
        return []

    def stun(self, ident: str, why: str) -> list[Event]:
        s = self.sheet(ident)
        if s.dead:
            return []
        if self.settings.round > 0 and not s.acted and not s.turn_done:
            self.put(ident, actions_left=0, turn_done=False)
            return [self.event(ident, "stun", f"{self.name(ident)} is stunned ({why}) and loses "
                               "this round's turn")]
        self.put(ident, stunned=max(s.stunned, 1))
        return [self.event(ident, "stun", f"{self.name(ident)} is stunned ({why}): loses the next turn")]

    def fall_prone(self, ident: str, why: str) -> list[Event]:
        if self.sheet(ident).stance == "prone":
            return []
        self.set_stance(ident, "prone")
        return [self.event(ident, "prone", f"{self.name(ident)} falls prone ({why})")]

    def lose_aim(self, ident: str, why: str) -> list[Event]:
        s = self.sheet(ident)
        if s.aim_level == 0 and s.aim_target is None:
            return []
        self.put(ident, aim_level=0, aim_target=None)
        return [self.event(ident, "aim_lost", f"{self.name(ident)} loses aim ({why})")]

    def drop(self, ident: str, arm: str, why: str) -> list[Event]:
        """Drop whatever ``arm`` holds."""
        s = self.sheet(ident)
        out = []
        if s.weapon is not None and arm in arms_of(s, "main"):
            self.put(ident, weapon=None, dropped=(*s.dropped, s.weapon), rested=False)
            out.append(self.event(ident, "drop", f"{self.name(ident)} drops {s.weapon} ({why})", arm))
            out += self.lose_aim(ident, "dropped the weapon")
        s = self.sheet(ident)
        if s.offhand is not None and arm in arms_of(s, "off"):
            self.put(ident, offhand=None, dropped=(*s.dropped, s.offhand))
            out.append(self.event(ident, "drop", f"{self.name(ident)} drops {s.offhand} ({why})", arm))
        return out

    def holds_with(self, ident: str, arm: str) -> bool:
        s = self.sheet(ident)
        return (s.weapon is not None and arm in arms_of(s, "main")) or (
            s.offhand is not None and arm in arms_of(s, "off"))

    def pass_out_check(self, ident: str, why: str) -> list[Event]:
        s = self.sheet(ident)
        if s.dead or s.unconscious:
            return []
        chance = self.settings.pass_out_chance
        roll = self.rec.d100("pass out", ident)
        if roll > chance:
            return [self.event(ident, "pass_out", f"{self.name(ident)} stays conscious ({why}): "
                               f"rolled {roll} against {chance}%", amount=0)]
        self.put(ident, unconscious=True, actions_left=0 if s.actions_left is not None else None)
        out = [self.event(ident, "pass_out", f"{self.name(ident)} passes out from system shock ({why}): "
                          f"rolled {roll} against {chance}%", amount=1)]
        out += self.fall_prone(ident, "passed out")
        return out


# =============================================================================================
# The rule system
# =============================================================================================


@dataclass(frozen=True)
class D100Rules:
    """The ``d100`` rule system (seed 003). Stateless: every call takes the encounter."""

    name: str = "d100"
    label: str = "d100 hit locations (seed 003)"
    stances: tuple[str, ...] = STANCES
    locations: tuple[str, ...] = LOCATIONS
    severities: tuple[str, ...] = SEVERITIES

    # -- reading --------------------------------------------------------------------------------
    def sheet(self, encounter: Encounter, token_id: str) -> Sheet:
        return sheet_of(encounter.token(token_id))

    def settings(self, encounter: Encounter) -> Settings:
        return settings_of(encounter)

    def status(self, encounter: Encounter, token_id: str) -> Status:
        """Derived state of one token: actions per round, penalties, hidden locations."""
        tok = encounter.token(token_id)
        s = sheet_of(tok)
        st = settings_of(encounter)
        last = lasting_of(s, st)
        why = self._cannot_act(s, st)
        return Status(
            id=token_id,
            actions_per_round=max(1, s.speed - last.speed_penalty),
            speed_penalty=last.speed_penalty,
            stay_prone=last.stay_prone,
            crawl=last.crawl,
            useless_arms=last.useless_arms,
            halved_arms=last.halved_arms,
            bleeding=sum(w.bleeding for w in s.wounds.values()),
            hidden=stance_hidden(s.stance, s),
            map_stance=MAP_STANCE[s.stance],
            aim_bonus=min(st.aim_max, st.aim_step * s.aim_level),
            can_act=why is None,
            reason=why,
            stunned=not s.dead and (s.stunned > 0 or (
                st.round > 0 and s.actions_left == 0 and not s.acted and not s.turn_done
                and not s.unconscious)),
        )

    def round_order(self, encounter: Encounter) -> list[tuple[str, int | None, int]]:
        """The round tracker: (token id, actions left or None outside rounds, actions per
        round), in the round's order (by actions, then speed, then file order)."""
        st = settings_of(encounter)
        ids = [t.id for t in encounter.tokens]
        order = [i for i in st.order if i in ids] + [i for i in ids if i not in st.order]
        out = []
        for i in order:
            s = sheet_of(encounter.token(i))
            out.append((i, s.actions_left, actions_per_round(s, st)))
        if not st.order:
            idx = {i: n for n, i in enumerate(ids)}
            out.sort(key=lambda r: (-r[2], -sheet_of(encounter.token(r[0])).speed, idx[r[0]]))
        return out

    def stance_hidden(self, encounter: Encounter, token_id: str) -> tuple[str, ...]:
        s = sheet_of(encounter.token(token_id))
        return stance_hidden(s.stance, s)

    # -- legality -------------------------------------------------------------------------------
    def _cannot_act(self, s: Sheet, st: Settings) -> str | None:
        if s.dead:
            return "is dead"
        if s.unconscious:
            return "is unconscious"
        if st.round > 0:
            if s.turn_done:
                return "has ended its turn this round"
            if s.actions_left is not None and s.actions_left < 1:
                return "has no actions left this round" + (" (stunned)" if not s.acted else "")
        return None

    def why_not(self, encounter: Encounter, action) -> str | None:
        """None when ``action`` is legal now, else the reason in the GM's words."""
        try:
            return self._why_not(encounter, action)
        except UnknownIdError as e:
            return str(e)

    def check(self, encounter: Encounter, action) -> None:
        """Raise :class:`IllegalActionError` when ``action`` is not legal now."""
        reason = self.why_not(encounter, action)
        if reason is not None:
            raise IllegalActionError(reason)

    def is_legal(self, encounter: Encounter, action) -> bool:
        return self.why_not(encounter, action) is None

    def _why_not(self, enc: Encounter, a) -> str | None:
        st = settings_of(enc)
        if isinstance(a, StartRound):
            return None
        actor = enc.token(a.actor)
        s = sheet_of(actor)
        who = actor.name or actor.id
        if isinstance(a, EndTurn):
            if st.round > 0 and s.turn_done:
                return f"{who} has already ended its turn this round"
            return None
        if isinstance(a, RestWeapon) and not a.rest:
            return None if s.rested else f"{who}'s weapon is not rested"
        why = self._cannot_act(s, st)
        if why:
            return f"{who} {why}"
        last = lasting_of(s, st)
        if isinstance(a, Aim):
            tgt = enc.token(a.target)
            w = s.weapon_named(s.weapon) or s.weapon_named(s.offhand)
            if w is None or w.melee:
                return f"{who} holds no ranged weapon to aim"
            if a.target == a.actor:
                return f"{who} cannot aim at itself"
            full = a.full_cover if a.full_cover is not None else sheet_of(tgt).stance == "hiding"
            if full:
                return f"{tgt.name or tgt.id} has full cover: aiming is not possible"
            if (s.aim_target == a.target and
                    st.aim_step * (s.aim_level + 1) > st.aim_max):
                return f"{who} already aims at the maximum +{st.aim_max}%"
            return None
        if isinstance(a, ChangeStance):
            if a.stance not in STANCES:
                return f"unknown stance {a.stance!r}; stances: {', '.join(STANCES)}"
            if a.stance == s.stance:
                return f"{who} is already in the stance {STANCE_LABELS[a.stance]}"
            if last.stay_prone and a.stance != "prone":
                return f"{who} must remain prone (wounds)"
            return None
        if isinstance(a, Fire):
            return self._why_not_fire(enc, a, s, who)
        if isinstance(a, FireTwoPistols):
            return self._why_not_two(enc, a, s, who)
        if isinstance(a, Melee):
            if s.stance == "hiding":
                return f"{who} is hiding behind cover and cannot attack"
            w = s.weapon_named(s.weapon)
            slot = "main"
            if w is None or not w.melee:
                w = s.weapon_named(s.offhand)
                slot = "off"
            if w is None or not w.melee:
                return f"{who} holds no melee weapon"
            if any(arm in last.useless_arms for arm in arms_of(s, slot)):
                return f"{who} cannot use that arm"
            tgt = enc.token(a.target.id)
            if tgt.id == actor.id:
                return f"{who} cannot attack itself"
            if sheet_of(tgt).dead:
                return f"{tgt.name or tgt.id} is already dead"
            gap = _distance_between(actor, tgt)
            if gap > st.melee_reach + 1e-9:
                return (f"{tgt.name or tgt.id} is {gap:.1f} m away, beyond melee reach "
                        f"({st.melee_reach:g} m)")
            return None
        if isinstance(a, Recover):
            pid = a.patient or a.actor
            pat = enc.token(pid)
            ps = sheet_of(pat)
            pname = pat.name or pat.id
            if ps.dead:
                return f"{pname} is dead"
            if pid != a.actor:
                gap = _distance_between(actor, pat)
                if gap > st.melee_reach + 1e-9:
                    return f"{pname} is {gap:.1f} m away, out of reach to help ({st.melee_reach:g} m)"
            if a.location is None:
                if ps.injury <= 0:
                    return f"{pname} has no injury to heal"
            else:
                wnd = ps.wound(a.location)
                if wnd.damage <= 0 and wnd.step == 0 and wnd.bleeding == 0:
                    return f"{pname}'s {a.location.replace('_', ' ')} is not wounded"
            return None
        if isinstance(a, RestWeapon):
            if s.rested:
                return f"{who}'s weapon is already rested"
            w = s.weapon_named(s.weapon) or s.weapon_named(s.offhand)
            if w is None or w.melee:
                return f"{who} holds no ranged weapon to rest"
            return None
        if isinstance(a, SwitchWeapon):
            return self._why_not_switch(a, s, who, last)
        return f"unknown action {type(a).__name__}"

    def _held(self, s: Sheet, name: str | None) -> tuple[D100Weapon | None, str | None]:
        """(weapon, slot) for a held weapon by name (None: the main-hand weapon, else the
        off-hand one)."""
        if name is None:
            if s.weapon is not None:
                return s.weapon_named(s.weapon), "main"
            if s.offhand is not None:
                return s.weapon_named(s.offhand), "off"
            return None, None
        if name == s.weapon:
            return s.weapon_named(name), "main"
        if name == s.offhand:
            return s.weapon_named(name), "off"
        return None, None

    def _why_not_fire(self, enc: Encounter, a: Fire, s: Sheet, who: str) -> str | None:
        st = settings_of(enc)
        if s.stance == "hiding":
            return f"{who} is hiding behind cover and cannot attack"
        w, slot = self._held(s, a.weapon)
        if w is None:
            return f"{who} does not hold {a.weapon}" if a.weapon else f"{who} holds no weapon"
        if w.melee:
            return f"{w.name} is a melee weapon: use Melee attack"
        if a.mode not in w.modes:
            return f"{w.name} cannot fire {a.mode} (modes: {', '.join(w.modes)})"
        last = lasting_of(s, st)
        if any(arm in last.useless_arms for arm in arms_of(s, slot)):
            return f"{who} cannot use the arm holding {w.name}"
        n = len(a.targets)
        if n == 0:
            return "name a target"
        if a.mode != "auto" and n != 1:
            return f"{a.mode} fire takes one target, got {n}"
        if a.mode == "auto" and n > st.auto_targets:
            return f"full auto takes at most {st.auto_targets} targets, got {n}"
        ids = [t.id for t in a.targets]
        if len(set(ids)) != n:
            return "a target is named twice"
        if a.mode == "auto" and n > w.auto_shots:
            return f"{w.name} fires {w.auto_shots} shots, fewer than {n} targets"
        for t in a.targets:
            why = self._why_not_target(enc, a.actor, t)
            if why:
                return why
        return None

    def _why_not_target(self, enc: Encounter, actor: str, t: TargetSpec) -> str | None:
        tgt = enc.token(t.id)
        if t.id == actor:
            return "a character cannot shoot itself"
        if sheet_of(tgt).dead:
            return f"{tgt.name or tgt.id} is already dead"
        return None

    def _why_not_two(self, enc: Encounter, a: FireTwoPistols, s: Sheet, who: str) -> str | None:
        st = settings_of(enc)
        if s.stance == "hiding":
            return f"{who} is hiding behind cover and cannot attack"
        main, off = s.weapon_named(s.weapon), s.weapon_named(s.offhand)
        if main is None or off is None or main.kind != "pistol" or off.kind != "pistol":
            return f"{who} needs a pistol in each hand"
        for w in (main, off):
            if a.mode not in w.modes:
                return f"{w.name} cannot fire {a.mode}"
        last = lasting_of(s, st)
        if last.useless_arms:
            return f"{who} cannot use the {last.useless_arms[0].replace('_', ' ')}"
        for t in (a.target, a.off_target or a.target):
            why = self._why_not_target(enc, a.actor, t)
            if why:
                return why
        return None

    def _why_not_switch(self, a: SwitchWeapon, s: Sheet, who: str, last: fx.Lasting) -> str | None:
        if a.weapon is None:
            held = s.weapon if a.hand == "main" else s.offhand
            return None if held is not None else f"{who}'s {a.hand} hand is already empty"
        w = s.weapon_named(a.weapon)
        if w is None:
            names = ", ".join(x.name for x in s.weapons) or "none"
            return f"{who} has no weapon {a.weapon!r} (weapons: {names})"
        if a.weapon == (s.weapon if a.hand == "main" else s.offhand):
            return f"{who} already holds {a.weapon}"
        primary, off = f"{s.primary_hand}_arm", f"{s.off_hand}_arm"
        if a.hand == "main":
            if primary in last.useless_arms:
                return f"{who}'s {primary.replace('_', ' ')} is useless: take it in the off hand"
            if w.two_handed and off in last.useless_arms:
                return f"{w.name} needs two hands and the {off.replace('_', ' ')} is useless"
            if w.two_handed and s.offhand is not None and s.offhand != a.weapon:
                return f"{w.name} needs two hands: the off hand holds {s.offhand}"
        else:
            if off in last.useless_arms:
                return f"{who}'s {off.replace('_', ' ')} is useless"
            if w.two_handed:
                return f"{w.name} needs two hands"
            cur = s.weapon_named(s.weapon)
            if cur is not None and cur.two_handed and s.weapon != a.weapon:
                return f"both hands hold {cur.name}"
        return None

    # -- chances --------------------------------------------------------------------------------
    def _base(self, s: Sheet, st: Settings, w: D100Weapon, slot: str) -> list[Modifier]:
        skill = (w.skill or "").lower()
        if skill and skill in s.skills:
            base = s.skills[skill]
            mods = [Modifier(f"{skill} skill", base, "skill")]
        else:
            base = st.base_chance
            mods = [Modifier("base chance" + (f" (no {skill} skill)" if skill else ""), base, "base")]
        last = lasting_of(s, st)
        halved = [arm for arm in arms_of(s, slot) if arm in last.halved_arms]
        if halved:
            cut = base - base // 2
            mods.append(Modifier(f"{halved[0].replace('_', ' ')} seriously wounded: base halved",
                                 -cut, "wound"))
        if w.modifier:
            mods.append(Modifier(w.name, w.modifier, "weapon"))
        if slot == "off" and st.off_hand_penalty:
            mods.append(Modifier("off hand", -st.off_hand_penalty, "off hand"))
        return mods

    def shot_chances(self, enc: Encounter, actor: str, w: D100Weapon, slot: str, mode: str,
                     target: TargetSpec, n_shots: int, extra: tuple[tuple[str, int], ...] = (),
                     two_pistols: bool = False) -> tuple[Chance, ...]:
        """The chance of each of ``n_shots`` shots at one target (in order)."""
        st = settings_of(enc)
        s = sheet_of(enc.token(actor))
        base = self._base(s, st, w, slot)
        common: list[Modifier] = []
        if s.rested and slot == "main":
            common.append(Modifier("rested weapon", st.rest_bonus, "rest"))
        if two_pistols:
            common.append(Modifier("two pistols", -st.two_pistol_penalty, "two pistols"))
        if mode == "semi":
            common.append(Modifier(f"semi-auto, {n_shots} shots", -st.semi_penalty * n_shots, "semi"))
        for label, v in (*extra, *target.modifiers):
            common.append(Modifier(label, int(v), "gm"))
        aim = min(st.aim_max, st.aim_step * s.aim_level) if s.aim_target == target.id else 0
        out = []
        for i in range(n_shots):
            mods = list(base) + list(common)
            aimed = False
            if mode == "auto":
                total = sum(m.value for m in mods)
                if total > 0:
                    divided = total // st.auto_divisor
                    mods.append(Modifier(f"full auto: chance / {st.auto_divisor}", divided - total,
                                         "full auto"))
            elif aim and (mode == "single" or i == 0):
                mods.insert(len(base), Modifier(f"aim x{s.aim_level}", aim, "aim"))
                aimed = True
            out.append(_chance(mods, st, aimed))
        return tuple(out)

    def _hidden_for(self, enc: Encounter, t: TargetSpec) -> tuple[tuple[str, ...], str, int]:
        st = settings_of(enc)
        ts = sheet_of(enc.token(t.id))
        if t.hidden is not None:
            hidden, src = tuple(loc for loc in LOCATIONS if loc in t.hidden), "given"
        else:
            hidden, src = stance_hidden(ts.stance, ts), "stance"
        cover = t.cover if t.cover is not None else (ts.cover if ts.cover is not None else st.cover_value)
        return hidden, src, cover

    def _plan(self, enc: Encounter, a) -> list[tuple[D100Weapon, str, str, TargetSpec, int, bool]]:
        """(weapon, slot, mode, target, shots, two_pistols) groups an attack fires."""
        s = sheet_of(enc.token(a.actor))
        if isinstance(a, Fire):
            w, slot = self._held(s, a.weapon)
            assert w is not None and slot is not None
            if a.mode == "single":
                return [(w, slot, "single", a.targets[0], 1, False)]
            if a.mode == "semi":
                return [(w, slot, "semi", a.targets[0], w.shots, False)]
            k = len(a.targets)
            per, extra = divmod(w.auto_shots, k)
            return [(w, slot, "auto", t, per + (1 if i < extra else 0), False)
                    for i, t in enumerate(a.targets)]
        if isinstance(a, FireTwoPistols):
            main, off = s.weapon_named(s.weapon), s.weapon_named(s.offhand)
            assert main is not None and off is not None
            n_main = 1 if a.mode == "single" else main.shots
            n_off = 1 if a.mode == "single" else off.shots
            return [(main, "main", a.mode, a.target, n_main, True),
                    (off, "off", a.mode, a.off_target or a.target, n_off, True)]
        return []

    def preview(self, encounter: Encounter, action) -> Preview:
        """The action's chances before any roll (an illegal action previews with its reason
        and whatever chances can still be computed)."""
        reason = self.why_not(encounter, action)
        cost = 0 if (isinstance(action, (StartRound, EndTurn)) or
                     (isinstance(action, RestWeapon) and not action.rest)) else 1
        attacks: list[AttackPreview] = []
        rec_chance = None
        heal = None
        try:
            if isinstance(action, (Fire, FireTwoPistols)) and reason is None:
                extra = action.modifiers
                for w, slot, mode, t, n, two in self._plan(encounter, action):
                    hidden, src, cover = self._hidden_for(encounter, t)
                    ch = self.shot_chances(encounter, action.actor, w, slot, mode, t, n, extra, two)
                    attacks.append(AttackPreview(action.actor, t.id, w.name, ch, t.prefer, hidden,
                                                 src, cover))
            elif isinstance(action, Melee) and reason is None:
                attacks.append(self._melee_preview(encounter, action))
            elif isinstance(action, Recover):
                rec_chance, heal = self._recover_chance(encounter, action)
        except UnknownIdError:
            pass
        return Preview(action, reason is None, reason, cost, tuple(attacks), rec_chance, heal)

    def _melee_weapon(self, s: Sheet) -> tuple[D100Weapon | None, str]:
        w = s.weapon_named(s.weapon)
        if w is not None and w.melee:
            return w, "main"
        w = s.weapon_named(s.offhand)
        if w is not None and w.melee:
            return w, "off"
        return None, "main"

    def _melee_preview(self, enc: Encounter, a: Melee) -> AttackPreview:
        st = settings_of(enc)
        s = sheet_of(enc.token(a.actor))
        w, slot = self._melee_weapon(s)
        assert w is not None
        mods = self._base(s, st, w, slot)
        for label, v in (*a.modifiers, *a.target.modifiers):
            mods.append(Modifier(label, int(v), "gm"))
        chance = _chance(mods, st, aimed=False)
        hidden, src, cover = self._hidden_for(enc, a.target)
        return AttackPreview(a.actor, a.target.id, w.name, (chance,), a.target.prefer, hidden, src,
                             cover, self._parry_chance(enc, a))

    def _parry_chance(self, enc: Encounter, a: Melee) -> Chance | None:
        if a.parry is False:
            return None
        st = settings_of(enc)
        ts = sheet_of(enc.token(a.target.id))
        if ts.dead or ts.unconscious:
            return None
        w, slot = self._melee_weapon(ts)
        if w is None:
            return None
        if any(arm in lasting_of(ts, st).useless_arms for arm in arms_of(ts, slot)):
            return None
        mods = self._base(ts, st, w, slot)
        return _chance(mods, st, placed=False)

    def _recover_chance(self, enc: Encounter, a: Recover) -> tuple[Chance, str]:
        st = settings_of(enc)
        who = a.actor if st.recover_by == "actor" else (a.patient or a.actor)
        s = sheet_of(enc.token(who))
        mods = [Modifier(f"maximum injury of {enc.token(who).name or who}", s.max_injury, "max injury")]
        for label, v in a.modifiers:
            mods.append(Modifier(label, int(v), "gm"))
        bonus = _heal_bonus(s.max_injury)
        return _chance(mods, st, placed=False), "d3" + (f"+{bonus}" if bonus else "")

    # -- applying -------------------------------------------------------------------------------
    def dice_for(self, encounter: Encounter) -> Dice:
        """The encounter's default dice: its seeded sequence if ``Settings.seed`` is set, else
        fresh random dice."""
        st = settings_of(encounter)
        if st.seed is not None:
            return SeededDice(st.seed, st.rolls)
        return RandomDice()

    def apply(self, encounter: Encounter, action, dice: Dice | None = None) -> Change:
        """Resolve a legal ``action`` with ``dice`` (default :meth:`dice_for`); raises
        :class:`IllegalActionError` when it is not legal. Returns the :class:`Change`."""
        self.check(encounter, action)
        rec = Recorder(dice if dice is not None else self.dice_for(encounter))
        w = _Work(encounter, rec)
        shots: list[ShotResult] = []
        recover: RecoverResult | None = None
        a = action
        if isinstance(a, StartRound):
            self._start_round(w)
        elif isinstance(a, EndTurn):
            self._end_turn(w, a.actor)
        else:
            if not (isinstance(a, RestWeapon) and not a.rest):
                self._spend(w, a.actor)
            if isinstance(a, Aim):
                self._aim(w, a)
            elif isinstance(a, ChangeStance):
                w.lose_aim(a.actor, "changed stance")
                w.set_stance(a.actor, a.stance)
                w.say(f"{w.name(a.actor)} takes the stance {STANCE_LABELS[a.stance]}", "stance", a.actor)
            elif isinstance(a, (Fire, FireTwoPistols)):
                shots = self._fire(w, a)
            elif isinstance(a, Melee):
                w.lose_aim(a.actor, "melee attack")
                shots = [self._melee(w, a)]
            elif isinstance(a, Recover):
                w.lose_aim(a.actor, "recover")
                recover = self._recover(w, a)
            elif isinstance(a, RestWeapon):
                if a.rest:
                    w.lose_aim(a.actor, "rested the weapon")
                    w.put(a.actor, rested=True)
                    w.say(f"{w.name(a.actor)} rests the weapon (+{w.settings.rest_bonus}%)", "rest", a.actor)
                else:
                    w.put(a.actor, rested=False)
                    w.say(f"{w.name(a.actor)} unrests the weapon", "rest", a.actor)
            elif isinstance(a, SwitchWeapon):
                self._switch(w, a)
        return self._finish(encounter, a, w, tuple(shots), recover)

    def _finish(self, enc: Encounter, action, w: _Work, shots, recover) -> Change:
        st_before = enc.d100
        st = w.settings
        seeded = seeded_source(w.rec.source)
        if seeded is not None and st.seed is not None:
            st = st.model_copy(update={"rolls": seeded.position})
        st = st.model_copy(update={"log": (*st.log, *w.log)})
        changes = []
        new_tokens = []
        for tok in enc.tokens:
            if tok.id in w.sheets or tok.id in w.stances:
                sheet = w.sheets.get(tok.id, sheet_of(tok))
                stance = w.stances.get(tok.id, tok.stance)
                changes.append(TokenChange(tok.id, tok.d100, sheet, tok.stance, stance))
                tok = tok.model_copy(update={"d100": sheet, "stance": stance})
            new_tokens.append(tok)
        new = enc.model_copy(update={"tokens": tuple(new_tokens), "d100": st})
        return Change(action, new, tuple(changes), st_before, st, tuple(w.rec.rolls), shots,
                      recover, tuple(w.events), tuple(w.log))

    def undo(self, encounter: Encounter, change: Change) -> Encounter:
        """The encounter with ``change``'s token sheets, stances and settings put back
        (other edits made since, such as moved tokens, are kept)."""
        before = {c.id: c for c in change.tokens}
        tokens = tuple(
            t.model_copy(update={"d100": before[t.id].sheet_before, "stance": before[t.id].stance_before})
            if t.id in before else t
            for t in encounter.tokens
        )
        return encounter.model_copy(update={"tokens": tokens, "d100": change.settings_before})

    def redo(self, encounter: Encounter, change: Change) -> Encounter:
        """The encounter with ``change``'s results put back after an :meth:`undo`."""
        after = {c.id: c for c in change.tokens}
        tokens = tuple(
            t.model_copy(update={"d100": after[t.id].sheet_after, "stance": after[t.id].stance_after})
            if t.id in after else t
            for t in encounter.tokens
        )
        return encounter.model_copy(update={"tokens": tokens, "d100": change.settings_after})

    # -- the actions ----------------------------------------------------------------------------
    def _spend(self, w: _Work, actor: str) -> None:
        s = w.sheet(actor)
        if w.settings.round > 0 and s.actions_left is not None:
            w.put(actor, actions_left=s.actions_left - 1, acted=True)
        else:
            w.put(actor, acted=True)

    def _start_round(self, w: _Work) -> None:
        st = w.settings
        if st.round > 0:
            for tok in w.enc.tokens:
                if not w.sheet(tok.id).turn_done:
                    self._end_turn(w, tok.id, quiet=True)
        rnd = st.round + 1
        w.settings = st.model_copy(update={"round": rnd})
        w.say(f"Round {rnd} begins", "round")
        rows = []
        for n, tok in enumerate(w.enc.tokens):
            s = w.sheet(tok.id)
            if s.dead or s.unconscious:
                acts = 0
            elif s.stunned > 0:
                acts = 0
                w.put(tok.id, stunned=s.stunned - 1)
                w.event(tok.id, "lost_turn", f"{w.name(tok.id)} is stunned and loses this turn")
            else:
                acts = actions_per_round(s, st)
            w.put(tok.id, actions_left=acts, turn_done=False, acted=False)
            rows.append((-acts, -s.speed, n, tok.id))
        order = tuple(r[3] for r in sorted(rows))
        w.settings = w.settings.model_copy(update={"order": order})

    def _end_turn(self, w: _Work, actor: str, quiet: bool = False) -> None:
        s = w.sheet(actor)
        total = 0
        if not s.dead:
            for loc in LOCATIONS:
                n = s.wound(loc).bleeding
                if n:
                    rolls = w.rec.dice(n, 3, "bleed", actor)
                    total += sum(rolls)
                    w.event(actor, "bleeding", f"{w.name(actor)} bleeds from the "
                            f"{loc.replace('_', ' ')}: {'+'.join(map(str, rolls))} = {sum(rolls)}",
                            loc, sum(rolls))
            if total:
                w.add_injury(actor, total, "bleeding")
        upd = {"turn_done": True}
        if w.settings.round > 0:
            upd["actions_left"] = 0
        w.put(actor, **upd)
        if not quiet or total:
            w.say(f"{w.name(actor)} ends the turn" + (f", bleeding {total}" if total else ""),
                  "end_turn", actor)

    def _aim(self, w: _Work, a: Aim) -> None:
        s = w.sheet(a.actor)
        st = w.settings
        if s.aim_target != a.target:
            if s.aim_target is not None:
                w.lose_aim(a.actor, "changed target")
            level = 1
        else:
            level = s.aim_level + 1
        w.put(a.actor, aim_target=a.target, aim_level=level)
        bonus = min(st.aim_max, st.aim_step * level)
        w.say(f"{w.name(a.actor)} aims at {w.name(a.target)} (+{bonus}%)", "aim", a.actor, a.target)

    def _fire(self, w: _Work, a) -> list[ShotResult]:
        enc, st = w.enc, w.settings
        s0 = w.sheet(a.actor)
        plan = self._plan(enc, a)
        aim_target = s0.aim_target
        results: list[ShotResult] = []
        label = {"single": "fires", "semi": "fires semi-automatic", "auto": "fires full auto"}
        for wpn, slot, mode, t, n, two in plan:
            chances = self.shot_chances(enc, a.actor, wpn, slot, mode, t, n, a.modifiers, two)
            w.say(f"{w.name(a.actor)} {label[mode]} {wpn.name} at {w.name(t.id)} "
                  f"({n} shot{'s' if n != 1 else ''}, {chances[0].text()})", "fire", a.actor, t.id)
            for i, ch in enumerate(chances):
                if w.sheet(t.id).dead:
                    w.say(f"  {n - i} more shot{'s' if n - i != 1 else ''} at {w.name(t.id)} "
                          "not rolled: already dead", "miss", a.actor, t.id)
                    break
                results.append(self._shot(w, a.actor, t, wpn, ch, i + 1, melee=False))
        # aim: kept only by single shots at the aimed target
        keep = all(mode == "single" and t.id == aim_target for _, _, mode, t, _, _ in plan)
        if not keep:
            why = "fired at another target" if all(m == "single" for _, _, m, _, _, _ in plan) else (
                "semi-automatic fire" if plan[0][2] == "semi" else "full-auto fire")
            w.lose_aim(a.actor, why)
        return results

    def _shot(self, w: _Work, actor: str, t: TargetSpec, wpn: D100Weapon, ch: Chance, index: int,
              melee: bool, parry: Chance | None = None) -> ShotResult:
        roll = w.rec.d100("hit", actor)
        hit = ch.succeeds(roll)
        auto = ch.automatic(roll)
        verb = "blow" if melee else "shot"
        if not hit:
            w.say(f"  {verb} {index}: rolled {roll} vs {ch.value}% - miss"
                  + (" (96-100 always fails)" if auto == "failure" else ""), "miss", actor, t.id)
            return ShotResult(actor, t.id, wpn.name, index, ch, roll, False, auto, prefer=t.prefer)
        prow = None
        parried = False
        if parry is not None:
            prow = w.rec.d100("parry", t.id)
            parried = parry.succeeds(prow)
            if parried:
                w.say(f"  {verb} {index}: rolled {roll} vs {ch.value}% - hit, parried by "
                      f"{w.name(t.id)} ({prow} vs {parry.value}%)", "parry", actor, t.id)
                return ShotResult(actor, t.id, wpn.name, index, ch, roll, True, auto, prefer=t.prefer,
                                  parry_chance=parry, parry_roll=prow, parried=True)
        placed = ch.placed(roll)
        lroll = w.rec.d100("location", actor)
        proll = place_roll(lroll, t.prefer, w.settings) if placed else lroll
        loc = location_for(proll, w.settings)
        hidden, _, cover = self._hidden_for(w.enc, t)
        loc_text = (f"placed: location roll {lroll} moved to {proll} toward {t.prefer.replace('_', ' ')}"
                    if placed else f"location roll {lroll}")
        w.say(f"  {verb} {index}: rolled {roll} vs {ch.value}% - hit"
              + (" (1-5 always succeeds)" if auto == "success" else "")
              + (f", parry failed ({prow} vs {parry.value}%)" if parry is not None else "")
              + f"; {loc_text}: {loc.replace('_', ' ')}"
              + (" (hidden behind cover)" if loc in hidden else ""), "hit", actor, t.id)
        raw = _roll_dice(w.rec, wpn.damage, "damage", actor)
        dmg = self._damage(w, t.id, loc, raw, loc in hidden, cover)
        w.lose_aim(t.id, "was hit")
        return ShotResult(actor, t.id, wpn.name, index, ch, roll, True, auto, placed, t.prefer, lroll,
                          proll, loc, parry, prow, False, dmg)

    def _damage(self, w: _Work, target: str, loc: str, raw: int, hidden: bool, cover: int) -> DamageResult:
        """Damage ``raw`` points at ``loc``: cover (if hidden), then armour (wear when pierced),
        then location and injury total, severity steps and their effects."""
        st = w.settings
        s = w.sheet(target)
        injury_before = s.injury
        cov = cover if hidden else 0
        after_cover = max(0, raw - cov)
        arm = s.armour_at(loc)
        armour_val = arm.value if (arm is not None and arm.protects) else 0
        pierced = False
        wear = 0
        dur_before = arm.durability if arm is not None else None
        dur_after = dur_before
        events: list[Event] = []
        if armour_val:
            if after_cover > armour_val:
                pierced = True
                wear = after_cover // 2 if st.armour_wear == "half_down" else -(-after_cover // 2)
                dur_after = max(0, arm.durability - wear)
                new_armour = {**s.armour, loc: arm.model_copy(update={"durability": dur_after})}
                s = w.put(target, armour=new_armour)
                events.append(w.event(target, "armour", f"{arm.name or 'armour'} on the "
                                      f"{loc.replace('_', ' ')} is pierced and wears {wear} "
                                      f"(durability {dur_before} -> {dur_after})"
                                      + (": it no longer protects" if dur_after == 0 else ""),
                                      loc, wear))
            taken = max(0, after_cover - armour_val)
        else:
            taken = after_cover
        wound = s.wound(loc)
        sev_before = wound.severity
        parts = [f"damage {raw}"]
        if hidden:
            parts.append(f"- cover {cov}")
        if armour_val:
            parts.append(f"- armour {armour_val}")
        w.say(f"    {' '.join(parts)} = {taken} to the {loc.replace('_', ' ')}", "damage", None, target)
        if taken > 0:
            dmg = wound.damage + taken
            old_step = wound.step
            new_step = max(old_step, step_for(dmg, st.thresholds_for(loc)))
            new_wound = wound.model_copy(update={"damage": dmg, "severity": SEVERITIES[new_step]})
            s = w.put(target, wounds={**s.wounds, loc: new_wound}, injury=s.injury + taken)
            if new_step > old_step:
                events.append(w.event(target, "severity", f"{w.name(target)}'s "
                                      f"{loc.replace('_', ' ')}: {SEVERITIES[new_step]} injury", loc,
                                      new_step))
                w.say(f"    {w.name(target)}'s {loc.replace('_', ' ')} is now {SEVERITIES[new_step]} "
                      f"({dmg} points)", "severity", None, target)
            # "If your injury total ever exceeds the given value ... you die immediately":
            # before the location's effects, which then no longer apply (_effect checks).
            events += w.check_death(target, f"{loc.replace('_', ' ')} wound")
            stunned_by_step = False
            for step, eff in fx.crossed(loc, old_step, new_step, st.crossing_effects):
                evs, stun = self._effect(w, target, loc, step, eff)
                events += evs
                stunned_by_step = stunned_by_step or stun
        else:
            stunned_by_step = False
        if loc == "head" and not stunned_by_step and not w.sheet(target).dead:
            roll = w.rec.d100("stun", target)
            if roll <= st.head_stun_chance:
                events += w.stun(target, f"head shot, rolled {roll} against {st.head_stun_chance}%")
            else:
                events.append(w.event(target, "head_stun", f"{w.name(target)} shrugs off the head shot "
                                      f"(rolled {roll} against {st.head_stun_chance}%)", loc, 0))
        return DamageResult(target, loc, raw, hidden, cov, after_cover, armour_val, pierced, wear,
                            dur_before, dur_after, taken, sev_before, w.sheet(target).wounds.get(
                                loc, Wound()).severity, injury_before, w.sheet(target).injury,
                            tuple(events))

    def _effect(self, w: _Work, ident: str, loc: str, step: int, eff: fx.Effect) -> tuple[list[Event], bool]:
        """Apply one reached step's one-off effects; returns (events, stunned)."""
        st = w.settings
        where = f"{loc.replace('_', ' ')} {SEVERITIES[step]}"
        out: list[Event] = []
        if w.sheet(ident).dead:
            return out, False
        if eff.dead:
            w.put(ident, dead=True)
            s = w.sheet(ident)
            if s.actions_left is not None:
                w.put(ident, actions_left=0)
            out.append(w.event(ident, "dead", f"{w.name(ident)} is dead ({where})", loc))
            return out, False
        if eff.speed:
            out.append(w.event(ident, "speed", f"{w.name(ident)} suffers -{eff.speed} speed ({where})",
                               loc, eff.speed))
        if eff.stun:
            out += w.stun(ident, where)
        if eff.prone:
            out += w.fall_prone(ident, where)
        if eff.extra:
            n, sides, k = parse_dice(eff.extra)
            v = sum(w.rec.dice(n, sides, "extra", ident)) + k
            out.append(w.event(ident, "extra", f"{w.name(ident)} takes {eff.extra} = {v} more to the "
                               f"injury total ({where})", loc, v))
            out += w.add_injury(ident, v, where)
        if eff.bleed:
            s = w.sheet(ident)
            wd = s.wound(loc)
            w.put(ident, wounds={**s.wounds, loc: wd.model_copy(update={"bleeding": wd.bleeding + 1})})
            out.append(w.event(ident, "bleed", f"{w.name(ident)} starts bleeding ({where})", loc, 1))
        if eff.drop == "all":
            out += w.drop(ident, loc, where)
        elif eff.drop == "may" and w.holds_with(ident, loc):
            roll = w.rec.d100("drop", ident)
            if roll <= st.drop_chance:
                out += w.drop(ident, loc, f"{where}, rolled {roll} against {st.drop_chance}%")
            else:
                out.append(w.event(ident, "drop", f"{w.name(ident)} keeps hold ({where}, rolled {roll} "
                                   f"against {st.drop_chance}%)", loc, 0))
        if eff.stay_prone:
            out.append(w.event(ident, "stay_prone", f"{w.name(ident)} must remain prone"
                               + (" and may only crawl" if eff.crawl else "") + f" ({where})", loc))
        if eff.arm_useless:
            out.append(w.event(ident, "arm_useless", f"{w.name(ident)} can no longer use the "
                               f"{loc.replace('_', ' ')}", loc))
        if eff.half_chance:
            out.append(w.event(ident, "half_chance", f"{w.name(ident)}'s base chance is halved when "
                               f"attacking with the {loc.replace('_', ' ')}", loc))
        if eff.pass_out:
            out += w.pass_out_check(ident, where)
        return out, eff.stun

    def _melee(self, w: _Work, a: Melee) -> ShotResult:
        pre = self._melee_preview(w.enc, a)
        wpn = sheet_of(w.enc.token(a.actor)).weapon_named(pre.weapon)
        assert wpn is not None
        w.say(f"{w.name(a.actor)} attacks {w.name(a.target.id)} with {wpn.name} "
              f"({pre.shots[0].text()})", "melee", a.actor, a.target.id)
        return self._shot(w, a.actor, a.target, wpn, pre.shots[0], 1, melee=True, parry=pre.parry)

    def _recover(self, w: _Work, a: Recover) -> RecoverResult:
        st = w.settings
        pid = a.patient or a.actor
        chance, heal_txt = self._recover_chance(w.enc, a)
        roll = w.rec.d100("recover", a.actor)
        ok = chance.succeeds(roll)
        what = a.location.replace("_", " ") if a.location else "injury total"
        s = w.sheet(pid)
        inj_before = s.injury
        if not ok:
            w.say(f"{w.name(a.actor)} tries to recover {w.name(pid)}'s {what}: rolled {roll} vs "
                  f"{chance.value}% - fails", "recover", a.actor, pid)
            return RecoverResult(a.actor, pid, a.location, chance, roll, False, 0, None, None,
                                 inj_before, inj_before)
        who = a.actor if st.recover_by == "actor" else pid
        bonus = _heal_bonus(w.sheet(who).max_injury)
        healed = w.rec.roll(3, "heal", a.actor) + bonus
        sev_b = sev_a = None
        if a.location is None:
            w.put(pid, injury=max(0, s.injury - healed))
        else:
            wd = s.wound(a.location)
            sev_b = wd.severity
            new_step = max(0, wd.step - 1)
            sev_a = SEVERITIES[new_step]
            upd = {"damage": max(0, wd.damage - healed), "severity": sev_a}
            if st.recover_stops_bleeding and wd.bleeding:
                upd["bleeding"] = 0
                w.event(pid, "bleeding", f"{w.name(pid)}'s {what} stops bleeding", a.location, 0)
            wounds = {**s.wounds, a.location: wd.model_copy(update=upd)}
            # the total loses what the location loses (no more than its damage)
            off = min(healed, wd.damage)
            injury = max(0, s.injury - off) if st.recover_heals_total else s.injury
            w.put(pid, wounds=wounds, injury=injury)
        if st.recover_wakes and w.sheet(pid).unconscious:
            w.put(pid, unconscious=False)
            w.event(pid, "wake", f"{w.name(pid)} comes round")
        s2 = w.sheet(pid)
        w.say(f"{w.name(a.actor)} recovers {w.name(pid)}'s {what}: rolled {roll} vs {chance.value}% - "
              f"heals {heal_txt} = {healed}" + (f"; {what} {sev_b} -> {sev_a}" if sev_b else "")
              + f"; injury {inj_before} -> {s2.injury}", "recover", a.actor, pid)
        w.event(pid, "heal", f"{w.name(pid)} heals {healed}", a.location, healed)
        return RecoverResult(a.actor, pid, a.location, chance, roll, True, healed, sev_b, sev_a,
                             inj_before, s2.injury)

    def _switch(self, w: _Work, a: SwitchWeapon) -> None:
        s = w.sheet(a.actor)
        w.lose_aim(a.actor, "switched weapon")
        dropped = tuple(d for d in s.dropped if d != a.weapon)
        picked = a.weapon in s.dropped
        if a.hand == "main":
            upd = {"weapon": a.weapon, "rested": False, "dropped": dropped}
            if a.weapon is not None and a.weapon == s.offhand:
                upd["offhand"] = None
        else:
            upd = {"offhand": a.weapon, "dropped": dropped}
            if a.weapon is not None and a.weapon == s.weapon:
                upd["weapon"] = None
        w.put(a.actor, **upd)
        hand = "main hand" if a.hand == "main" else "off hand"
        if a.weapon is None:
            w.say(f"{w.name(a.actor)} empties the {hand}", "switch", a.actor)
        else:
            w.say(f"{w.name(a.actor)} {'picks up' if picked else 'takes'} {a.weapon} in the {hand}",
                  "switch", a.actor)


RULES = D100Rules()
