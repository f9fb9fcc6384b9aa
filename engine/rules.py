"""The rule-system interface (the registry it re-exports is :mod:`engine.registry`).

As python-chess's variants (``chess.variant``: one ``Board`` interface, subclasses that
override hooks, ``VARIANTS`` and ``find_variant``), every rule system is one package under
``engine/`` whose ``system.py`` defines a :class:`RuleSystem` subclass and registers one
instance with :func:`register`. The core (``engine.model``, ``files``, ``analysis``,
``ranges``, this module) imports no rule system and names none: it finds them through
:mod:`engine.registry` (re-exported here: :func:`register`, :func:`find_system`,
:func:`systems`). See docs/rule-systems.md for how to write one.

Legality apart from change (``is_legal`` / ``push``): :meth:`RuleSystem.why_not` and
:meth:`RuleSystem.preview` change nothing; :meth:`RuleSystem.apply` and
:meth:`RuleSystem.on_moves` return one :class:`Outcome` (the new encounter and a
:class:`Changes` record, as Anki's ``OpChanges``) that screens refresh from and an undo
stack keeps.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from engine.diff import changed_ids
from engine.errors import IllegalActionError
from engine.model import Encounter, Sight, Token, Weapon
from engine.names import token_name
from engine.registry import default_name, find_system, lift_legacy, names, register, systems, unregister, validate_rules
from engine.vision import Vision

if TYPE_CHECKING:
    from engine.analysis import Tactics

__all__ = ["Changes", "Movement", "MoveTo", "Option", "Outcome", "RuleSystem", "Track", "default_name",
           "find_system", "lift_legacy", "move_tokens", "moves_label", "names", "register",
           "systems", "unregister", "validate_rules"]

XY = tuple[float, float]

#: What every system types for itself (python-chess's one ``Move`` per variant): its
#: actions, the plans ``preview`` gives, the dice ``resolve`` takes, the results it gives.
ActionT = TypeVar("ActionT")
PlanT = TypeVar("PlanT")
DiceT = TypeVar("DiceT")
ResultT = TypeVar("ResultT")
#: the system's own record of what an applied action did (``Outcome.detail``: rolls, pools).
DetailT = TypeVar("DetailT")


# --------------------------------------------------------------------------------------------
# values every system shares
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Movement:
    """How far a token may move, in metres: ``walk`` without running, ``run`` at most (the
    limit of a charge's search), ``left`` still open now (``run`` outside a round)."""

    walk: float
    run: float
    left: float


@dataclass(frozen=True)
class Track:
    """One damage track of a token for a condition bar: ``taken`` of ``size`` (boxes,
    injury points) under ``label`` ("Physical", "Stun", "Injury")."""

    label: str
    taken: int
    size: int

    @property
    def left(self) -> float:
        """Fraction of the track still unharmed, 0 to 1."""
        return max(0.0, min(1.0, 1.0 - self.taken / self.size)) if self.size > 0 else 0.0


@dataclass(frozen=True)
class Option:
    """An action open to an actor, or refused with ``reason``. ``key`` is the system's own
    name for it ("fire_weapon", "Shove"); ``action`` the value to hand to
    :meth:`RuleSystem.preview` / :meth:`RuleSystem.apply` when it needs no further choice."""

    key: str
    label: str
    reason: str | None = None
    action: object = None
    detail: object = None  # the system's own record of the option (Static Veil: AP cost, variants)

    @property
    def allowed(self) -> bool:
        return self.reason is None


@dataclass(frozen=True)
class Turn:
    """Whose turn it is and where the fight stands (:meth:`RuleSystem.current_turn`):
    ``actor`` the id of the token acting now (None when the system tracks no actor, or
    between actors), ``where`` the system's words for the moment, lower case ("pass 1,
    phase 3", "round 2"). :func:`engine.turn_banner.turn_banner` makes the line players
    read from it, with names, never ids."""

    actor: str | None
    where: str


@dataclass(frozen=True)
class MoveTo:
    """One token's move: to ``to`` (metres), along ``path`` (its corners, start to end) when
    the walk bends; None means straight from where it stands."""

    token: str
    to: XY
    path: tuple[XY, ...] | None = None

    def length_from(self, start: XY) -> float:
        """Metres walked from ``start`` along the path's corners (or straight) to ``to``."""
        pts = [start, *(self.path or ()), self.to]
        return sum(math.dist(a, b) for a, b in zip(pts, pts[1:]))


@dataclass(frozen=True)
class Changes:
    """What an outcome changed (Anki's ``OpChanges``), which the window's panels refresh from
    (they ask nothing again of what it does not name): ids of tokens, obstacles, zones and
    lights added, removed or edited, and of the tokens among them whose ``bodies`` changed on
    the map (place, stance, size, side, name: anything but their per-system data
    ``Token.rules``), or came or went (the others changed only that data: a condition, an
    initiative score, ammunition); whether the
    map, the encounter's per-system data (``settings``: the round, the initiative order, the
    saved log) or its sight settings (``sight``: fog, sides, light, explored areas) changed;
    the log lines written. ``a | b`` is what either changed."""

    tokens: frozenset[str] = frozenset()
    obstacles: frozenset[str] = frozenset()
    zones: frozenset[str] = frozenset()
    settings: bool = False
    map: bool = False
    log: tuple[str, ...] = ()
    lights: frozenset[str] = frozenset()
    sight: bool = False
    bodies: frozenset[str] = frozenset()

    @property
    def empty(self) -> bool:
        return not (self.tokens or self.obstacles or self.zones or self.settings or self.map or self.lights
                    or self.sight)

    def __or__(self, other: Changes) -> Changes:
        return Changes(self.tokens | other.tokens, self.obstacles | other.obstacles, self.zones | other.zones,
                       self.settings or other.settings, self.map or other.map, self.log + other.log,
                       self.lights | other.lights, self.sight or other.sight, self.bodies | other.bodies)

    @classmethod
    def between(cls, before: Encounter, after: Encounter, log: Sequence[str] = ()) -> Changes:
        """The record of what differs between two encounters (``engine.diff``)."""
        ids = changed_ids(before, after)
        tokens = frozenset(ids["tokens"])
        return cls(
            tokens=tokens,
            obstacles=frozenset(ids["obstacles"]),
            zones=frozenset(ids["zones"]),
            settings=before.rules != after.rules,
            map=before.map != after.map,
            log=tuple(log),
            lights=frozenset(ids["lights"]),
            sight=before.sight is not after.sight and before.sight != after.sight,
            bodies=frozenset(i for i in tokens if not _data_only(before.find(i), after.find(i))),
        )


def _data_only(a, b) -> bool:
    """Whether token ``b`` is token ``a`` with other per-system data only."""
    return isinstance(a, Token) and isinstance(b, Token) and a.model_copy(update={"rules": b.rules}) == b


@dataclass(frozen=True)
class Outcome(Generic[DetailT]):
    """What applying an action or a move gives: the new ``encounter``, the ``changes``
    record, a one-line ``label`` (for the undo stack and status bar), ``notes`` the GM should
    read (a refused charge, a test now due), and ``detail``: the system's own record (the
    rolls, the pools) for its panels."""

    encounter: Encounter
    changes: Changes
    label: str = ""
    notes: tuple[str, ...] = ()
    detail: DetailT | None = None

    @classmethod
    def of(cls, before: Encounter, after: Encounter, label: str = "", *, log: Sequence[str] = (),
           notes: Sequence[str] = (), detail: DetailT | None = None) -> Outcome[DetailT]:
        return cls(after, Changes.between(before, after, log), label, tuple(notes), detail)


# --------------------------------------------------------------------------------------------
# the interface
# --------------------------------------------------------------------------------------------
class RuleSystem(Generic[ActionT, PlanT, DiceT, ResultT, DetailT]):
    """One rule system. Subclasses set the class attributes and override the hooks; the
    defaults describe a system with no sheet data beyond its ``Sheet``, no actions and free
    movement. Every method takes the encounter it answers for (encounters are values).

    Generic over the system's own typed values (``RuleSystem[Action, Plan, Dice, Result,
    Detail]``): ``why_not`` / ``actions`` -> ``preview(encounter, action) -> Plan`` ->
    ``resolve(plan, dice) -> Result`` (step by step, ``steps=``, where the system rolls one
    test at a time) -> ``apply(encounter, result) -> Outcome[Detail]``."""

    #: the ``ruleset`` name in the file, and the key of its data under ``Token.rules`` and
    #: ``Encounter.rules``.
    name: ClassVar[str]
    #: what the GM reads in menus ("Shadowrun 5th edition").
    label: ClassVar[str]
    #: pydantic models of a token's data and of the encounter's data (all fields defaulted).
    Sheet: ClassVar[type]
    Settings: ClassVar[type]
    #: the field name this system's data had in version-1 files (Token/Encounter), if any.
    legacy_key: ClassVar[str | None] = None
    #: whether targets are judged by range band (short ... extreme) rather than metres.
    uses_range_bands: ClassVar[bool] = True
    #: the system a file that names no ``ruleset`` means (exactly one built-in sets it).
    default: ClassVar[bool] = False

    # -- data -----------------------------------------------------------------------------
    def sheet(self, token: Token) -> Any:
        """The token's data for this system (a default ``Sheet`` when it has none)."""
        s = token.rules.get(self.name)
        return s if s is not None else self.Sheet()

    def settings(self, encounter: Encounter) -> Any:
        """The encounter's data for this system (default ``Settings`` when it has none)."""
        s = encounter.rules.get(self.name)
        return s if s is not None else self.Settings()

    # -- weapons --------------------------------------------------------------------------
    def ready_weapon(self, encounter: Encounter, token: Token) -> Weapon | None:
        """The weapon ``token`` has ready: the one its attack takes unless the GM names
        another, and so the one whose range bands every answer gives (the map's badges, the
        Targets panel, the ruler, the players' range rings, ``coverfire analyze``). One of
        ``token.weapons``; None when it carries none. This is the one answer to "which
        weapon": nothing else picks a token's weapon by its place in the list.

        Default: its first weapon. A system that knows what is in hand (Shadowrun's
        ``in_hand``) answers from its sheet."""
        return token.weapons[0] if token.weapons else None

    def range_aids(self, encounter: Encounter, token: Token, weapon: Weapon) -> int:
        """Range bands the token's aids take off the range modifier when it fires
        ``weapon`` (the band stays the distance's; its modifier is that of the band this
        many rows nearer), so that every answer gives the modifier the attack takes.
        Default: none. Shadowrun's: an improved rangefinder with a smartlink in use, an image
        magnifier lined up, tracer rounds (its environment table's range column)."""
        return 0

    # -- movement -------------------------------------------------------------------------
    def movement(self, encounter: Encounter, token_id: str) -> Movement | None:
        """How far the token may move; None when the system sets no limit for it."""
        return None

    def move_cost(self, encounter: Encounter, token_id: str, metres: float) -> str:
        """What walking ``metres`` more now costs the token in this system's movement, in the
        system's own words (shown beside a token while the GM drags it: "walking: 6.0 of
        10 m"); "" when the system counts nothing for it."""
        return ""

    def on_moves(self, encounter: Encounter, moves: Sequence[MoveTo]) -> Outcome:
        """The encounter with ``moves`` made and charged to the movers (one commit). A move
        the rules refuse still lands (the GM is the judge) but free, with the reason in
        ``Outcome.notes``. The default moves the tokens and charges nothing."""
        after = move_tokens(encounter, moves)
        return Outcome.of(encounter, after, moves_label(encounter, moves))

    # -- actions --------------------------------------------------------------------------
    def actions(self, encounter: Encounter, actor: str, target: str | None = None) -> list[Option]:
        """Every action the system knows for ``actor`` (against ``target`` where an action
        needs one), each allowed or with the reason it is refused now."""
        return []

    def why_not(self, encounter: Encounter, action: ActionT) -> str | None:
        """None when ``action`` is allowed now, else why not. Changes nothing."""
        return f"{self.label} has no action {type(action).__name__}"

    def preview(self, encounter: Encounter, action: ActionT, *, tactics: Tactics | None = None) -> PlanT:
        """What ``action`` would do (pools, chances, shove ends), changing nothing; raises
        :class:`IllegalActionError` when it is refused. ``tactics``: the caller's
        :class:`engine.analysis.Tactics` of ``encounter`` when it has one (the window's), which
        a system that measures the map answers from instead of a fresh one."""
        reason = self.why_not(encounter, action)
        raise IllegalActionError(reason or f"{self.label} cannot preview {type(action).__name__}")

    def resolve(self, plan: PlanT | ResultT, dice: DiceT | None = None, *, steps: int | None = None,
                tactics: Tactics | None = None) -> ResultT:
        """The tests of ``plan`` (what :meth:`preview` answered) rolled with ``dice`` (typed
        rolls, :meth:`dice_from_data`; None: the system's own roller): the system's result
        value, which :meth:`apply` lands. A system that rolls one test at a time takes
        ``steps``: roll only that many more tests (0: none, the result with nothing rolled),
        ``plan`` then being a plan or a result rolled so far. Default: the plan itself (a
        system that rolls inside :meth:`apply`)."""
        return plan  # type: ignore[return-value]

    def describe(self, value: PlanT | ResultT) -> tuple[str, ...]:
        """Lines for the GM about a plan or a result this system made (the Action panel shows
        them): its ``lines`` when it has them, else its text."""
        lines = getattr(value, "lines", None)
        return tuple(lines) if lines is not None else (str(value),)

    def apply(self, encounter: Encounter, action: ActionT | ResultT, dice: DiceT | None = None) -> Outcome[DetailT]:
        """Resolve ``action`` (or land the ``resolve`` result) with ``dice`` (the system's
        dice source or typed rolls; None: the encounter's own roller) and return the
        :class:`Outcome`; raises :class:`IllegalActionError` when it is refused."""
        reason = self.why_not(encounter, action)  # type: ignore[arg-type]
        raise IllegalActionError(reason or f"{self.label} cannot apply {type(action).__name__}")

    # -- JSON forms (golden files, logs) ---------------------------------------------------
    def action_from_data(self, data: Mapping[str, Any]) -> ActionT:
        """The action of its JSON form ``{"kind": K, ...fields}`` (tests/golden/README.md)."""
        raise IllegalActionError(f"{self.label} has no action kind {data.get('kind')!r}")

    def dice_from_data(self, data: object) -> DiceT:
        """The ``dice`` for :meth:`apply` from their JSON form (default: as given)."""
        return data  # type: ignore[return-value]

    # -- light and vision (engine/vision.py, docs/sight.md) ----------------------------------
    def light_level(self, encounter: Encounter) -> str:
        """The ambient light level of the encounter (``"full"``, ``"partial"``, ``"dim"``,
        ``"dark"``; lights add to it where they shine). Default: the plain setting
        ``encounter.sight.light``; a system with its own setting (Shadowrun's environment)
        answers from it."""
        return encounter.sight.light

    def with_light_level(self, encounter: Encounter, level: str) -> Encounter:
        """The encounter with its ambient light set to ``level`` (checked)."""
        Sight(light=level)  # refuses an unknown level
        return encounter.model_copy(update={"sight": encounter.sight.model_copy(update={"light": level})})

    def vision(self, encounter: Encounter, token: Token):
        """How ``token`` sees (:class:`engine.vision.Vision`): default normal vision that
        reaches ``token.vision_range`` metres in total darkness (None: 0)."""
        return Vision("normal", float(token.vision_range or 0.0))

    # -- status ---------------------------------------------------------------------------
    def token_status(self, encounter: Encounter, token_id: str) -> tuple[str, ...]:
        """Short lines about a token's state for the map and the inspector ("Wounded -2")."""
        return ()

    def round_status(self, encounter: Encounter) -> str:
        """One line on where the fight stands ("Turn 2, pass 1"); empty outside a round."""
        return ""

    def current_turn(self, encounter: Encounter) -> Turn | None:
        """Whose turn it is now (:class:`Turn`); None outside a fight (the default)."""
        return None

    def round_number(self, encounter: Encounter) -> int:
        """The number of the round (SR5: the Combat Turn) the fight is in; 0 before the
        first (the recorded fight's pages and timeline go by it: :mod:`engine.record`)."""
        return 0

    # -- the saved log (engine/record.py keeps each action's lines) ----------------------------
    def log_entries(self, encounter: Encounter) -> tuple:
        """The system's log saved in the encounter, oldest first (entries compare with
        ``==``); default: its settings' ``log``."""
        return tuple(getattr(self.settings(encounter), "log", ()) or ())

    def entry_lines(self, entry: Any) -> tuple[str, ...]:
        """The plain-text lines of one log entry (default: its ``text``)."""
        return (str(getattr(entry, "text", entry)),)

    def condition_tracks(self, encounter: Encounter, token_id: str) -> tuple[Track, ...]:
        """The damage tracks the token's sheet has (for the condition bars of the player
        view and exports); none by default, and none for a token without a sheet."""
        return ()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def move_tokens(encounter: Encounter, moves: Iterable[MoveTo]) -> Encounter:
    """The encounter with each moved token at its new place (raises for an unknown id)."""
    where = {m.token: m.to for m in moves}
    for tid in where:
        encounter.token(tid)
    tokens = tuple(
        t.model_copy(update={"x": float(where[t.id][0]), "y": float(where[t.id][1])}) if t.id in where else t
        for t in encounter.tokens
    )
    return encounter.model_copy(update={"tokens": tokens})


def moves_label(encounter: Encounter, moves: Sequence[MoveTo]) -> str:
    if len(moves) == 1:
        t = encounter.token(moves[0].token)
        return f"Move {token_name(t)}"
    return f"Move {len(moves)} tokens"
