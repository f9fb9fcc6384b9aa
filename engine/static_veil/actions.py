"""The Static Veil maneuvers as values: what the GM asks a character to do.

Each maneuver is a frozen dataclass naming the acting token (``actor``), its target where it
has one, the choices the rules leave to the player or GM, and the test outcomes the GM
entered (None: not entered yet; the dice model rolls them when ``Settings.dice == "d100"``).
``modifiers`` are extra situational modifiers the GM adds to the actor's Success Target
(label, points), e.g. ``(("darkness", -10),)``.

The rule system (:mod:`engine.static_veil.system`) checks an action
(``RULESET.check``), previews it (``RULESET.preview``) and applies it (``RULESET.apply``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.static_veil.dice import Attack, Check, Opposed

Location = Literal["head", "vital", "hand", "arm", "leg", "item"]
XY = tuple[float, float]
Modifiers = tuple[tuple[str, int], ...]

#: Called-shot penalties of seed 004 (to the attack's Success Target). A held item is
#: -10 to -30 by the GM (``item_penalty``); -20 when the GM does not say.
CALLED_SHOT_PENALTY: dict[str, int] = {"head": -20, "vital": -20, "hand": -20, "arm": -10, "leg": -10}
ITEM_PENALTY_RANGE = (-30, -10)
DEFAULT_ITEM_PENALTY = -20
#: Extra damage of a called shot to the head or another vulnerable location.
VULNERABLE_DAMAGE = 3
#: Check penalty per net hit of the attack, for Disarm (Grip) and Knockdown (Vigor).
PER_NET_HIT = -5


@dataclass(frozen=True)
class Approach:
    """A way to distract: the actor's skill and the skills that may oppose it (the target
    uses the best of them)."""

    label: str
    actor_skill: str
    opponent_skills: tuple[str, ...]
    needs_reach: bool = False


#: Seed 004's examples of Distraction, as presets.
APPROACHES: dict[str, Approach] = {
    "feint": Approach("Feint with a weapon", "melee", ("melee", "insight"), needs_reach=True),
    "debris": Approach("Throw debris / physical distraction", "athletics", ("perception",)),
    "taunt": Approach("Taunt, bait or wrong-foot", "wit", ("composure",)),
}


@dataclass(frozen=True)
class ManeuverBase:
    key: ClassVar[str] = ""
    label: ClassVar[str] = ""


@dataclass(frozen=True)
class Charge(ManeuverBase):
    """Run at least ``Settings.runup`` metres straight at ``target`` and melee it: +10 to the
    attack's Success Target, once per turn. May be a called shot (``location``)."""

    key: ClassVar[str] = "charge"
    label: ClassVar[str] = "Charge"
    actor: str
    target: str
    attack: Attack | None = None
    location: Location | None = None
    item_penalty: int | None = None
    item: str | None = None
    resist: Check | None = None
    modifiers: Modifiers = ()


@dataclass(frozen=True)
class Shove(ManeuverBase):
    """Push ``target`` back 1 m + 1 m per net hit (opposed Athletics, 2 AP). With
    ``run_up`` the actor first runs ``Settings.runup`` metres straight at it: +10."""

    key: ClassVar[str] = "shove"
    label: ClassVar[str] = "Shove"
    actor: str
    target: str
    run_up: bool = False
    outcome: Opposed | None = None
    modifiers: Modifiers = ()


@dataclass(frozen=True)
class Grapple(ManeuverBase):
    """Seize ``target`` (opposed Athletics, 2 AP)."""

    key: ClassVar[str] = "grapple"
    label: ClassVar[str] = "Grapple"
    actor: str
    target: str
    outcome: Opposed | None = None
    modifiers: Modifiers = ()


@dataclass(frozen=True)
class Release(ManeuverBase):
    """The grapple's initiator lets go (Free Action, 0 AP)."""

    key: ClassVar[str] = "release"
    label: ClassVar[str] = "Release grapple"
    actor: str


@dataclass(frozen=True)
class BreakFree(ManeuverBase):
    """Break out of a grapple someone else controls (opposed Athletics, 2 AP)."""

    key: ClassVar[str] = "break_free"
    label: ClassVar[str] = "Break free"
    actor: str
    outcome: Opposed | None = None
    modifiers: Modifiers = ()


@dataclass(frozen=True)
class ApplyPressure(ManeuverBase):
    """Hurt the grapple partner (opposed Athletics, 2 AP): Raw Damage = Damage Modifier +
    net hits, less 1 per hit of the partner's Passive Defense roll (``pd_hits``); no armour."""

    key: ClassVar[str] = "apply_pressure"
    label: ClassVar[str] = "Apply pressure"
    actor: str
    outcome: Opposed | None = None
    pd_hits: int | None = None
    modifiers: Modifiers = ()


@dataclass(frozen=True)
class Takedown(ManeuverBase):
    """Throw or take down the grapple partner (opposed Athletics, 2 AP): it becomes Prone.
    ``release``: the initiator lets go after; otherwise the actor follows it down (Prone)."""

    key: ClassVar[str] = "takedown"
    label: ClassVar[str] = "Throw / takedown"
    actor: str
    release: bool = False
    outcome: Opposed | None = None
    modifiers: Modifiers = ()


@dataclass(frozen=True)
class MoveGrapple(ManeuverBase):
    """Move with the grapple partner in tow (1 AP): the actor's centre goes to ``to`` along
    a path of at most half its remaining Movement; opposed Athletics unless the partner is
    ``willing`` or incapacitated; on a failure neither moves."""

    key: ClassVar[str] = "move_grapple"
    label: ClassVar[str] = "Move the grapple"
    actor: str
    to: XY
    willing: bool = False
    outcome: Opposed | None = None
    modifiers: Modifiers = ()


@dataclass(frozen=True)
class CalledShot(ManeuverBase):
    """An attack at a declared ``location``: head or vital -20, hand -20, arm -10, leg -10,
    held item ``item_penalty`` (-10 to -30). Head/vital +3 damage; hand or item = Disarm
    (Grip check at -5 per net hit, ``item`` dropped on a failure); leg = Knockdown (Vigor
    check at -5 per net hit, Prone on a failure). ``ranged`` skips the reach check."""

    key: ClassVar[str] = "called_shot"
    label: ClassVar[str] = "Called shot"
    actor: str
    target: str
    location: Location
    item_penalty: int | None = None
    item: str | None = None
    ranged: bool = False
    skill: str | None = None
    attack: Attack | None = None
    resist: Check | None = None
    modifiers: Modifiers = ()


@dataclass(frozen=True)
class Distraction(ManeuverBase):
    """Distract ``target`` (1 AP): ``approach`` is a preset of :data:`APPROACHES` or
    ``"custom"`` with ``actor_skill`` and ``opponent_skill``; ``trick`` names the trick for
    the repeated-distraction rule (default: the approach). ``repeat`` overrides
    ``Settings.repeat_distraction`` for this attempt."""

    key: ClassVar[str] = "distraction"
    label: ClassVar[str] = "Distraction"
    actor: str
    target: str
    approach: str = "feint"
    trick: str | None = None
    actor_skill: str | None = None
    opponent_skill: str | None = None
    repeat: Literal["penalty", "no_effect"] | None = None
    outcome: Opposed | None = None
    modifiers: Modifiers = ()


@dataclass(frozen=True)
class StandUp(ManeuverBase):
    """Get up from Prone (``Settings.stand_ap``; the seed gives no cost)."""

    key: ClassVar[str] = "stand_up"
    label: ClassVar[str] = "Stand up"
    actor: str


ACTIONS: tuple[type[ManeuverBase], ...] = (
    Charge, Shove, Grapple, Release, BreakFree, ApplyPressure, Takedown, MoveGrapple,
    CalledShot, Distraction, StandUp,
)
ACTION_BY_KEY: dict[str, type[ManeuverBase]] = {a.key: a for a in ACTIONS}
#: Maneuvers that need a target token chosen on the map.
TARGETED = frozenset({"charge", "shove", "grapple", "called_shot", "distraction"})
