"""The d100 actions as values: what the GM asks a character to do.

Each action is a frozen dataclass naming the acting token (``actor``) and the choices seed
003 leaves to the player. ``modifiers`` are extra situational modifiers the GM adds to the
chance, as (label, percent) pairs, e.g. ``(("long range", -10),)``. Rolls are not part of the
action: :meth:`engine.d100.system.D100.apply` takes a dice source (random, seeded, or the
GM's entries by label - see :mod:`engine.d100.dice`).

Costs: every action here costs one action of the actor's speed, except :class:`StartRound`,
:class:`EndTurn` and unresting (:class:`RestWeapon` with ``rest=False``), which are free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.d100.sheet import LOCATIONS

Modifiers = tuple[tuple[str, int], ...]


def _loc(value: str | None, what: str) -> None:
    if value is not None and value not in LOCATIONS:
        raise ValueError(f"{what} {value!r} is not a location; locations: {', '.join(LOCATIONS)}")


@dataclass(frozen=True)
class TargetSpec:
    """One target of an attack: its token ``id``, the preferred location ``prefer`` (where placed
    shots go), and the GM's overrides of what the stance table says: ``hidden`` (locations
    hidden behind cover; None = the target's stance row, e.g. the map's answer the GM picked)
    and ``cover`` (the cover's protective value; None = the target's sheet, then the
    encounter default). ``modifiers`` apply to shots at this target only."""

    id: str
    prefer: str = "chest"
    hidden: tuple[str, ...] | None = None
    cover: int | None = None
    modifiers: Modifiers = ()

    def __post_init__(self) -> None:
        _loc(self.prefer, "preferred location")
        for h in self.hidden or ():
            _loc(h, "hidden location")
        if self.cover is not None and self.cover < 0:
            raise ValueError(f"cover value must be >= 0, got {self.cover}")


def as_target(t: str | TargetSpec) -> TargetSpec:
    return t if isinstance(t, TargetSpec) else TargetSpec(t)


@dataclass(frozen=True)
class _Action:
    key: ClassVar[str] = ""
    label: ClassVar[str] = ""
    cost: ClassVar[int] = 1


@dataclass(frozen=True)
class StartRound(_Action):
    """Begin the next round: ends every unfinished turn (bleeding), then gives each
    character its actions (speed minus penalties, at least 1; none when stunned, unconscious
    or dead) and orders them by actions, then speed."""

    key: ClassVar[str] = "start_round"
    label: ClassVar[str] = "Start round"
    cost: ClassVar[int] = 0


@dataclass(frozen=True)
class EndTurn(_Action):
    """End the actor's turn: each bleeding wound adds d3 to its injury total."""

    key: ClassVar[str] = "end_turn"
    label: ClassVar[str] = "End turn"
    cost: ClassVar[int] = 0
    actor: str


@dataclass(frozen=True)
class Aim(_Action):
    """Aim at ``target``: +20% per action up to +60%. ``full_cover`` overrides whether the
    target is in full cover (None: its stance is ``hiding``); aiming at full cover is illegal."""

    key: ClassVar[str] = "aim"
    label: ClassVar[str] = "Aim weapon"
    actor: str
    target: str
    full_cover: bool | None = None


@dataclass(frozen=True)
class ChangeStance(_Action):
    """Take another of the seed's stances (``engine.d100.sheet.STANCES``)."""

    key: ClassVar[str] = "change_stance"
    label: ClassVar[str] = "Change stance"
    actor: str
    stance: str


@dataclass(frozen=True)
class Fire(_Action):
    """Fire the held weapon (or ``weapon``, which must be held) in ``mode``: ``single`` at one
    target, ``semi`` (the weapon's ``shots`` at one target), or ``auto`` (its ``auto_shots``
    split over up to three targets)."""

    key: ClassVar[str] = "fire"
    label: ClassVar[str] = "Fire weapon"
    actor: str
    targets: tuple[TargetSpec, ...]
    mode: str = "single"
    weapon: str | None = None
    modifiers: Modifiers = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "targets", tuple(as_target(t) for t in self.targets))
        if self.mode not in ("single", "semi", "auto"):
            raise ValueError(f"firing mode {self.mode!r} is not single, semi or auto")


@dataclass(frozen=True)
class FireTwoPistols(_Action):
    """Fire both held pistols as one action, each at -20%: the main pistol at ``target``, the
    off-hand one at ``off_target`` (None: the same target), both in ``mode`` (single/semi)."""

    key: ClassVar[str] = "fire_two"
    label: ClassVar[str] = "Fire two pistols"
    actor: str
    target: TargetSpec
    off_target: TargetSpec | None = None
    mode: str = "single"
    modifiers: Modifiers = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "target", as_target(self.target))
        if self.off_target is not None:
            object.__setattr__(self, "off_target", as_target(self.off_target))
        if self.mode not in ("single", "semi"):
            raise ValueError(f"two pistols fire single or semi, not {self.mode!r}")


@dataclass(frozen=True)
class Melee(_Action):
    """Attack ``target`` with the held melee weapon; it may parry (``parry``: None = parries
    whenever it holds a melee weapon, False = declines)."""

    key: ClassVar[str] = "melee"
    label: ClassVar[str] = "Melee attack"
    actor: str
    target: TargetSpec
    parry: bool | None = None
    modifiers: Modifiers = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "target", as_target(self.target))


@dataclass(frozen=True)
class Recover(_Action):
    """Heal ``patient`` (None: the actor) at ``location`` (None: the injury total)."""

    key: ClassVar[str] = "recover"
    label: ClassVar[str] = "Recover"
    actor: str
    patient: str | None = None
    location: str | None = None
    modifiers: Modifiers = ()

    def __post_init__(self) -> None:
        _loc(self.location, "location")


@dataclass(frozen=True)
class RestWeapon(_Action):
    """Rest the weapon on scenery (+10% to shots until unrested); ``rest=False`` unrests
    (free)."""

    key: ClassVar[str] = "rest"
    label: ClassVar[str] = "Rest weapon"
    actor: str
    rest: bool = True

    @property
    def free(self) -> bool:
        return not self.rest


@dataclass(frozen=True)
class SwitchWeapon(_Action):
    """Take ``weapon`` (a name on the sheet; None = empty the hand) into the main hand, or
    with ``hand="off"`` a second pistol into the other hand. Picks a dropped weapon up."""

    key: ClassVar[str] = "switch"
    label: ClassVar[str] = "Switch weapon"
    actor: str
    weapon: str | None
    hand: str = "main"

    def __post_init__(self) -> None:
        if self.hand not in ("main", "off"):
            raise ValueError(f"hand {self.hand!r} is not main or off")


Action = StartRound | EndTurn | Aim | ChangeStance | Fire | FireTwoPistols | Melee | Recover | RestWeapon | SwitchWeapon

ACTIONS: tuple[type, ...] = (
    StartRound,
    EndTurn,
    Aim,
    ChangeStance,
    Fire,
    FireTwoPistols,
    Melee,
    Recover,
    RestWeapon,
    SwitchWeapon,
)
