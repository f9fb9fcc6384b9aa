"""The Static Veil maneuvers (seed 004): check, preview, apply, undo.

Like python-chess's ``is_legal()`` and ``push()``, checking is apart from changing:

* :meth:`StaticVeil.available_maneuvers` lists what a character may do now, each with its
  AP cost and, when refused, why (for the map's maneuver picker);
* :meth:`StaticVeil.preview` answers, without changing anything, what a maneuver would cost
  and do on the map: the charge path and run-up, where a shove would leave the target for
  each number of net hits, where a moved grapple goes; and the tests it needs;
* :meth:`StaticVeil.check` raises :class:`~engine.errors.IllegalActionError` with the reason;
* :meth:`StaticVeil.apply` returns the new encounter and a :class:`Change` record, which
  :meth:`StaticVeil.undo` reverts (one undo step per maneuver).

Tests are entered by the GM (``Settings.dice == "gm"``) or rolled by the seeded d100 model
(``"d100"``); see :mod:`engine.static_veil.dice` and docs/static-veil.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from engine.errors import IllegalActionError, UnknownIdError
from geometry.errors import GeometryInputError
from engine.model import Encounter, Token
from engine.static_veil import space
from engine.static_veil.actions import (
    ACTION_BY_KEY,
    APPROACHES,
    CALLED_SHOT_PENALTY,
    DEFAULT_ITEM_PENALTY,
    ITEM_PENALTY_RANGE,
    PER_NET_HIT,
    TARGETED,
    VULNERABLE_DAMAGE,
    ApplyPressure,
    BreakFree,
    CalledShot,
    Charge,
    Distraction,
    Grapple,
    MoveGrapple,
    Release,
    Shove,
    StandUp,
    Takedown,
)
from engine.static_veil.dice import Attack, Check, Dice, Opposed, Roll, TestSpec
from engine.static_veil.sheet import DroppedItem, GrappleLink, LogEntry, Settings, Sheet

XY = tuple[float, float]
#: Slack (metres) when comparing a gap with the reach, so a token placed by the run-up
#: planner exactly at reach counts as in reach.
REACH_SLACK = 1e-3
#: How many net hits :meth:`StaticVeil.preview` shows shove ends for (0..SHOVE_PREVIEW_HITS).
SHOVE_PREVIEW_HITS = 5
#: Opponent skill against an attack in the d100 model.
DEFENSE_SKILL = "defense"


class OutcomeNeededError(IllegalActionError):
    """The GM has not entered a test's outcome yet (dice model ``"gm"``); ``tests`` lists
    the tests still needed, each a :class:`~engine.static_veil.dice.TestSpec`."""

    def __init__(self, reason: str, tests: tuple[TestSpec, ...]) -> None:
        self.tests = tests
        super().__init__(reason)


# ----------------------------------------------------------------------------------------------
# Values the GUI reads
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShoveEnd:
    """Where a shove leaves its target for ``net_hits``: pushed ``distance`` metres, ends
    at ``end`` after ``travelled`` metres, stopped short by ``stopped_by`` (or None)."""

    net_hits: int
    distance: float
    end: XY
    travelled: float
    stopped_by: str | None


@dataclass(frozen=True)
class Preview:
    """What a maneuver would cost and do, without doing it.

    ``allowed`` False comes with ``reason``. ``path`` is the actor's movement (charge, shove
    run-up, grapple move) from its centre now to ``end``; ``runup_start`` is where the
    straight run-up begins. ``partner_path`` is a dragged grapple partner's track.
    ``shove_direction`` (degrees) and ``shove_ends`` (one per net hits 0..5) show a shove.
    ``tests`` are the tests the maneuver needs, with Success Targets."""

    maneuver: str
    label: str
    actor: str
    target: str | None
    allowed: bool
    reason: str | None = None
    ap_cost: int = 0
    movement_cost: float = 0.0
    path: tuple[XY, ...] = ()
    runup_start: XY | None = None
    end: XY | None = None
    partner: str | None = None
    partner_path: tuple[XY, ...] = ()
    shove_direction: float | None = None
    shove_ends: tuple[ShoveEnd, ...] = ()
    tests: tuple[TestSpec, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Variant:
    """A choice within a maneuver (a called-shot location, a distraction approach): its
    ``key`` for the action, a ``label``, the Success Target ``modifier`` it brings, and
    whether it is ``allowed`` against the chosen target (``reason`` if not)."""

    key: str
    label: str
    modifier: int = 0
    allowed: bool = True
    reason: str | None = None


@dataclass(frozen=True)
class Option:
    """One line of the maneuver picker: ``key`` (see ``actions.ACTION_BY_KEY``), its AP
    cost, whether it is ``allowed`` now and why not. ``needs_target``: pick a token first
    (then ask again with ``target_id`` for the full answer). ``variants`` lists choices with
    their Success Target modifier (called-shot locations, distraction approaches)."""

    key: str
    label: str
    ap_cost: int
    allowed: bool
    reason: str | None
    needs_target: bool
    target: str | None = None
    variants: tuple[Variant, ...] = ()


@dataclass(frozen=True)
class Move:
    """A token's movement in a change: its path (metres), first point where it was."""

    token: str
    path: tuple[XY, ...]


@dataclass(frozen=True)
class Change:
    """What one applied maneuver changed: the tokens before and after, the Static Veil
    settings (turn state, log, dice position) before and after, the log lines added, the
    dice rolled and the movements made. :meth:`StaticVeil.undo` puts ``before`` back."""

    maneuver: str
    label: str
    actor: str | None
    target: str | None
    before: tuple[Token, ...]
    after: tuple[Token, ...]
    settings_before: Settings | None
    settings_after: Settings
    log: tuple[LogEntry, ...] = ()
    rolls: tuple[Roll, ...] = ()
    moves: tuple[Move, ...] = ()
    success: bool | None = None
    summary: str = ""

    @property
    def token_ids(self) -> tuple[str, ...]:
        """Ids of the tokens this change touched (for the GUI to redraw)."""
        return tuple(t.id for t in self.after)


@dataclass(frozen=True)
class Result:
    """An applied maneuver: the new encounter and the change record."""

    encounter: Encounter
    change: Change


# ----------------------------------------------------------------------------------------------
# Internal working state of one maneuver
# ----------------------------------------------------------------------------------------------


@dataclass
class _Plan:
    key: str
    label: str
    actor: Token
    target: Token | None = None
    ap_cost: int = 0
    movement_cost: float = 0.0
    path: tuple[XY, ...] = ()
    runup_start: XY | None = None
    end: XY | None = None
    partner: Token | None = None
    partner_path: tuple[XY, ...] = ()
    shove_direction: float | None = None
    shove_ends: tuple[ShoveEnd, ...] = ()
    tests: list[TestSpec] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


class _Work:
    """Mutable scratch state while applying: current tokens and sheets, log lines, dice."""

    def __init__(self, enc: Encounter, settings: Settings) -> None:
        self.enc = enc
        self.settings = settings
        self.tokens: dict[str, Token] = {}
        self.lines: list[str] = []
        self.moves: list[Move] = []
        self.dice = Dice(settings.seed, settings.rolls, settings.hit_step)

    def token(self, ident: str) -> Token:
        t = self.tokens.get(ident)
        return t if t is not None else self.enc.token(ident)

    def sheet(self, ident: str) -> Sheet:
        return _sheet(self.token(ident))

    def put(self, ident: str, *, sheet: Sheet | None = None, **fields: Any) -> None:
        t = self.token(ident)
        upd = dict(fields)
        if sheet is not None:
            upd["static_veil"] = sheet
        self.tokens[ident] = t.model_copy(update=upd)

    def set_sheet(self, ident: str, **fields: Any) -> None:
        self.put(ident, sheet=self.sheet(ident).model_copy(update=fields))

    def move(self, ident: str, path: tuple[XY, ...]) -> None:
        if len(path) >= 1:
            x, y = path[-1]
            self.put(ident, x=float(x), y=float(y))
            self.moves.append(Move(ident, tuple(path)))


def _sheet(token: Token) -> Sheet:
    return token.static_veil if token.static_veil is not None else Sheet()


def _name(token: Token) -> str:
    return token.name or token.id


def _fmt_m(v: float) -> str:
    return f"{v:.1f} m"


def _sum(mods: tuple[tuple[str, int], ...] | list[tuple[str, int]]) -> int:
    return sum(int(v) for _, v in mods)


# ----------------------------------------------------------------------------------------------
# The rule system
# ----------------------------------------------------------------------------------------------


class StaticVeil:
    """The ``static-veil`` rule system (registered in :mod:`engine.rules`)."""

    name = "static-veil"

    # -- reading ----------------------------------------------------------------------------------
    @staticmethod
    def settings(encounter: Encounter) -> Settings:
        """The encounter's Static Veil settings (defaults when the file has none)."""
        return encounter.static_veil if encounter.static_veil is not None else Settings()

    @staticmethod
    def sheet(encounter: Encounter, token_id: str) -> Sheet:
        """A token's Static Veil sheet (defaults when it has none)."""
        return _sheet(encounter.token(token_id))

    def states(self, encounter: Encounter, token_id: str) -> tuple[str, ...]:
        """The token's states as the map labels them: "Prone", "Grappling Vex",
        "Grappled by Rook", "Distracted (1)", "Incapacitated", "Charged"."""
        t = encounter.token(token_id)
        s = _sheet(t)
        out: list[str] = []
        if s.prone or t.stance == "prone":
            out.append("Prone")
        if s.grapple is not None:
            other = _name_of(encounter, s.grapple.other)
            out.append(f"Grappling {other}" if s.grapple.initiator else f"Grappled by {other}")
        if s.distracted:
            out.append(f"Distracted ({s.distracted})")
        if s.incapacitated:
            out.append("Incapacitated")
        if s.charged_this_turn:
            out.append("Charged")
        return tuple(out)

    def grapple_links(self, encounter: Encounter) -> tuple[tuple[str, str], ...]:
        """Every grapple as (initiator id, held id), for the map to draw a link."""
        out = []
        for t in encounter.tokens:
            s = _sheet(t)
            if s.grapple is not None and s.grapple.initiator:
                out.append((t.id, s.grapple.other))
        return tuple(out)

    # -- checking ---------------------------------------------------------------------------------
    def available_maneuvers(
        self, encounter: Encounter, actor_id: str, target_id: str | None = None
    ) -> tuple[Option, ...]:
        """Every maneuver for the maneuver picker, in a fixed order, each with its AP cost
        and whether ``actor_id`` may do it now (and why not). Targeted maneuvers are checked
        against ``target_id`` when given (including the map: reach, run-up); without one only
        the actor's side is checked and they say ``needs_target``."""
        encounter.token(actor_id)
        if target_id is not None:
            encounter.token(target_id)
        settings = self.settings(encounter)
        sheet = self.sheet(encounter, actor_id)
        out: list[Option] = []
        for key, cls in ACTION_BY_KEY.items():
            targeted = key in TARGETED
            tid = target_id if targeted else None
            cost = _base_cost(key, settings)
            variants = tuple(self._variant(encounter, key, actor_id, tid, v, settings) for v in _variants(key))
            if key == "distraction" and variants:
                # allowed when some approach is: a taunt needs no reach, a feint does
                ok = [v for v in variants if v.allowed]
                allowed = bool(ok)
                reason = None if ok else variants[0].reason
            else:
                probe = _probe(cls, actor_id, tid)
                try:
                    plan = self._plan(encounter, probe, settings, probe_only=True)
                    allowed, reason, cost = True, None, plan.ap_cost
                except IllegalActionError as exc:
                    allowed, reason = False, exc.reason
            if allowed and targeted and target_id is None:
                reason = "choose a target on the map"
            out.append(
                Option(
                    key=key,
                    label=cls.label,
                    ap_cost=cost,
                    allowed=allowed,
                    reason=reason,
                    needs_target=targeted,
                    target=tid,
                    variants=variants,
                )
            )
        return tuple(out)

    def _variant(self, enc: Encounter, key: str, actor: str, target: str | None,
                 v: tuple[str, str, int], settings: Settings) -> Variant:
        if key == "distraction":
            probe: Any = Distraction(actor=actor, target=target, approach=v[0])  # type: ignore[arg-type]
        else:
            probe = CalledShot(actor=actor, target=target, location=v[0])  # type: ignore[arg-type]
        try:
            self._plan(enc, probe, settings, probe_only=True)
        except IllegalActionError as exc:
            return Variant(v[0], v[1], v[2], False, exc.reason)
        return Variant(v[0], v[1], v[2])

    def check(self, encounter: Encounter, action: Any) -> Preview:
        """The preview of a legal maneuver; raises :class:`IllegalActionError` (with the
        reason) when the character cannot afford it or the map does not allow it."""
        plan = self._plan(encounter, action, self.settings(encounter))
        return _preview(plan, True, None)

    def is_legal(self, encounter: Encounter, action: Any) -> bool:
        """Whether the maneuver may be done now (test outcomes are not needed for this)."""
        return self.why_not(encounter, action) is None

    def why_not(self, encounter: Encounter, action: Any) -> str | None:
        """None when the maneuver is allowed, else the reason in the GM's words."""
        try:
            self._plan(encounter, action, self.settings(encounter))
        except IllegalActionError as exc:
            return exc.reason
        return None

    def preview(self, encounter: Encounter, action: Any) -> Preview:
        """What the maneuver would cost and do on the map, changing nothing. An illegal
        maneuver gives ``allowed=False`` and the reason (with whatever could be planned,
        e.g. the charge path that is too long). Unknown token ids raise
        :class:`~engine.errors.UnknownIdError`."""
        settings = self.settings(encounter)
        holder: list[_Plan] = []
        try:
            plan = self._plan(encounter, action, settings, out=holder)
            return _preview(plan, True, None)
        except IllegalActionError as exc:
            if holder:
                return _preview(holder[0], False, exc.reason)
            return Preview(
                maneuver=getattr(action, "key", "?"),
                label=getattr(action, "label", "?"),
                actor=getattr(action, "actor", "?"),
                target=getattr(action, "target", None),
                allowed=False,
                reason=exc.reason,
            )

    # -- applying ---------------------------------------------------------------------------------
    def apply(self, encounter: Encounter, action: Any) -> Result:
        """Do the maneuver: spend its AP and Movement, resolve its tests (entered outcomes,
        or the dice model's rolls) and change the map. Raises :class:`IllegalActionError`
        when it is not allowed, :class:`OutcomeNeededError` when the GM must still enter a
        test's outcome. Returns the new encounter and the change record."""
        settings = self.settings(encounter)
        plan = self._plan(encounter, action, settings)
        work = _Work(encounter, settings)
        success = _RESOLVERS[plan.key](self, work, action, plan)
        return self._finish(encounter, work, plan.key, plan.label, action, success)

    def undo(self, encounter: Encounter, change: Change) -> Encounter:
        """The encounter with ``change`` reverted: its tokens and Static Veil settings as
        they were before (other tokens keep any later edits)."""
        return _swap(encounter, change.before, change.settings_before)

    def redo(self, encounter: Encounter, change: Change) -> Encounter:
        """The encounter with ``change`` applied again after an undo."""
        return _swap(encounter, change.after, change.settings_after)

    # -- turns ------------------------------------------------------------------------------------
    def start_turn(self, encounter: Encounter, token_id: str, new_round: bool = False) -> Result:
        """Begin ``token_id``'s turn: its AP and Movement are full again and it may charge
        again. The previous active token's turn ends first (see :meth:`end_turn`);
        ``new_round`` counts the round up."""
        settings = self.settings(encounter)
        encounter.token(token_id)
        work = _Work(encounter, settings)
        if settings.active and settings.active != token_id and _has(encounter, settings.active):
            self._end_turn_into(work, settings.active)
        rnd = settings.round + 1 if new_round else settings.round
        work.settings = work.settings.model_copy(update={"round": rnd, "active": token_id})
        work.set_sheet(token_id, ap_left=None, movement_used=0.0, charged_this_turn=False)
        t = work.token(token_id)
        work.lines.append(f"Round {rnd}: {_name(t)}'s turn ({_sheet(t).ap} AP, {_fmt_m(_sheet(t).movement)}).")
        return self._finish(encounter, work, "start_turn", "Start turn", None, None, actor=token_id)

    def end_turn(self, encounter: Encounter, token_id: str) -> Result:
        """End ``token_id``'s turn: Distracted counts down one of its turns and clears at 0."""
        settings = self.settings(encounter)
        encounter.token(token_id)
        work = _Work(encounter, settings)
        self._end_turn_into(work, token_id)
        if settings.active == token_id:
            work.settings = work.settings.model_copy(update={"active": None})
        return self._finish(encounter, work, "end_turn", "End turn", None, None, actor=token_id)

    def _end_turn_into(self, work: _Work, token_id: str) -> None:
        s = work.sheet(token_id)
        if s.distracted:
            left = max(0, s.distracted_turns - 1)
            if left == 0:
                work.set_sheet(token_id, distracted=0, distracted_turns=0)
                work.lines.append(f"{_name(work.token(token_id))} is no longer Distracted.")
            else:
                work.set_sheet(token_id, distracted_turns=left)
        work.lines.append(f"{_name(work.token(token_id))} ends the turn.")

    def check_move(self, encounter: Encounter, token_id: str, to: XY, length: float | None = None) -> None:
        """Refuse a normal move of ``token_id`` to centre ``to`` (path ``length`` metres,
        default the straight line) that Static Veil forbids: more than the Movement left, or
        away from a grapple partner (grappled bodies move only by Move the Grapple)."""
        t = encounter.token(token_id)
        s = _sheet(t)
        if not all(math.isfinite(v) for v in to):
            raise IllegalActionError("the destination is not a finite point")
        if length is None:
            length = math.hypot(to[0] - t.x, to[1] - t.y)
        if s.incapacitated:
            raise IllegalActionError(f"{_name(t)} is incapacitated and cannot move")
        if s.grapple is not None and _has(encounter, s.grapple.other):
            other = encounter.token(s.grapple.other)
            reach = self.settings(encounter).reach
            d = math.hypot(other.x - to[0], other.y - to[1]) - t.radius - other.radius
            if d > reach + REACH_SLACK:
                raise IllegalActionError(
                    f"{_name(t)} is in a grapple with {_name(other)} and cannot use normal "
                    "Movement to move away; use Move the Grapple, Break Free or release it"
                )
        if length > s.movement_left + REACH_SLACK:
            raise IllegalActionError(
                f"{_name(t)} has {_fmt_m(s.movement_left)} of Movement left; this move is {_fmt_m(length)}"
            )

    def plan_move(self, encounter: Encounter, token_id: str, to: XY) -> Preview:
        """A normal move of ``token_id`` to centre ``to``, planned without changing anything:
        the shortest way around obstacles and other bodies (``path``, ``movement_cost`` its
        length in metres, ``end``), ``allowed`` False with the reason when :meth:`check_move`
        refuses it (Movement left, a grapple) or there is no way. Apply it with
        :meth:`move` (``path``)."""
        t = encounter.token(token_id)
        base = dict(maneuver="move", label="Move", actor=token_id, target=None, ap_cost=0)
        to = (float(to[0]), float(to[1]))
        if not all(math.isfinite(v) for v in to):
            return Preview(allowed=False, reason="the destination is not a finite point", **base)
        try:
            way = space.walk(encounter, t, to)
        except GeometryInputError as exc:  # inside a wall, off the map
            return Preview(allowed=False, reason=str(exc), **base)
        if way is None:
            return Preview(allowed=False, reason=f"{_name(t)} cannot get to ({to[0]:.1f}, {to[1]:.1f}): "
                           "no way around the obstacles and bodies", **base)
        path, length = way
        why = None
        try:
            self.check_move(encounter, token_id, path[-1], length)
        except IllegalActionError as exc:
            why = exc.reason
        return Preview(allowed=why is None, reason=why, movement_cost=length, path=path, end=path[-1], **base)

    def move(self, encounter: Encounter, token_id: str, path: tuple[XY, ...] | list[XY]) -> Result:
        """A normal move of ``token_id`` along ``path`` (metres, first point its centre now or
        omitted): checked by :meth:`check_move`, spends the path's length of Movement, one
        undo step. The GUI calls this when a token is dragged in a Static Veil encounter."""
        t = encounter.token(token_id)
        pts = [(float(x), float(y)) for x, y in path]
        if not pts:
            raise IllegalActionError("a move needs at least a destination")
        if math.hypot(pts[0][0] - t.x, pts[0][1] - t.y) > 1e-9:
            pts.insert(0, (t.x, t.y))
        length = space.path_length(pts)
        self.check_move(encounter, token_id, pts[-1], length)
        work = _Work(encounter, self.settings(encounter))
        s = work.sheet(token_id)
        work.set_sheet(token_id, movement_used=s.movement_used + length)
        work.move(token_id, tuple(pts))
        left = work.sheet(token_id).movement_left
        work.lines.append(f"{_name(t)} moves {_fmt_m(length)} ({_fmt_m(left)} of Movement left).")
        return self._finish(encounter, work, "move", "Move", None, None, actor=token_id)

    # ------------------------------------------------------------------------------------------
    # planning (all checks live here)
    # ------------------------------------------------------------------------------------------
    def _plan(
        self,
        enc: Encounter,
        action: Any,
        settings: Settings,
        *,
        probe_only: bool = False,
        out: list[_Plan] | None = None,
    ) -> _Plan:
        planner = _PLANNERS.get(type(action))
        if planner is None:
            raise IllegalActionError(f"{type(action).__name__} is not a Static Veil maneuver")
        actor = enc.token(action.actor)
        target_id = getattr(action, "target", None)
        target = enc.token(target_id) if target_id is not None else None
        if target is not None and target.id == actor.id:
            raise IllegalActionError(f"{_name(actor)} cannot target itself with {action.label.lower()}")
        plan = _Plan(type(action).key, type(action).label, actor, target)
        if out is not None:
            out.append(plan)
        s = _sheet(actor)
        if s.incapacitated:
            raise IllegalActionError(f"{_name(actor)} is incapacitated")
        try:
            planner(self, enc, action, settings, plan, probe_only)
        except GeometryInputError as exc:  # e.g. a destination inside a wall
            raise IllegalActionError(str(exc)) from None
        _afford(plan)
        return plan

    # -- helpers used by the planners ---------------------------------------------------------------
    def _reach(self, plan: _Plan, settings: Settings, verb: str) -> None:
        a, t = plan.actor, plan.target
        assert t is not None
        g = space.gap(a, t)
        if g > settings.reach + REACH_SLACK:
            raise IllegalActionError(
                f"{_name(t)} is {_fmt_m(g)} from {_name(a)} edge to edge; to {verb} it must be "
                f"within reach ({_fmt_m(settings.reach)})"
            )

    def _runup(self, enc: Encounter, plan: _Plan, settings: Settings, what: str) -> None:
        """Plan a run-up (Charge, Shove with run-up) into ``plan``; refuse when impossible."""
        a, t = plan.actor, plan.target
        assert t is not None
        s = _sheet(a)
        if s.prone or a.stance == "prone":
            raise IllegalActionError(f"{_name(a)} is Prone and must stand up before a {what}")
        if s.grapple is not None:
            raise IllegalActionError(
                f"{_name(a)} is in a grapple and cannot run at anyone (normal Movement cannot "
                "take them away from their partner)"
            )
        cp = space.charge_plan(enc, a, t, settings.reach, settings.runup)
        if cp.path:
            plan.path = tuple((float(x), float(y)) for x, y in cp.path)
        plan.runup_start = tuple(map(float, cp.runup_start)) if cp.runup_start is not None else None
        plan.end = tuple(map(float, cp.contact)) if cp.contact is not None else None
        if cp.movement is not None:
            plan.movement_cost = float(cp.movement)
        if not cp.possible:
            why = cp.reason or "no path"
            raise IllegalActionError(
                f"{_name(a)} cannot {what} {_name(t)}: {why} (needs {_fmt_m(settings.runup)} "
                "straight at the target)"
            )
        if plan.movement_cost > s.movement_left + REACH_SLACK:
            raise IllegalActionError(
                f"the {what} needs {_fmt_m(plan.movement_cost)} of Movement; {_name(a)} has "
                f"{_fmt_m(s.movement_left)} left"
            )

    def _grapple_partner(self, enc: Encounter, plan: _Plan) -> Token:
        s = _sheet(plan.actor)
        if s.grapple is None:
            raise IllegalActionError(f"{_name(plan.actor)} is not in a grapple")
        if not _has(enc, s.grapple.other):
            raise IllegalActionError(
                f"{_name(plan.actor)}'s grapple partner {s.grapple.other!r} is no longer on the map"
            )
        partner = enc.token(s.grapple.other)
        plan.partner = partner
        return partner

    def _opposed_spec(
        self,
        name: str,
        actor: Token,
        actor_skill: str,
        mods: list[tuple[str, int]],
        opponent: Token,
        opponent_skills: tuple[str, ...],
        settings: Settings,
        note: str = "",
    ) -> TestSpec:
        amods = list(mods) + _state_mods(actor, settings)
        omods = _state_mods(opponent, settings)
        osheet = _sheet(opponent)
        oskill = max(opponent_skills, key=lambda k: osheet.skill(k))
        return TestSpec(
            name=name,
            kind="opposed",
            actor_skill=actor_skill,
            actor_target=_sheet(actor).skill(actor_skill) + _sum(amods),
            opponent_skill=oskill,
            opponent_target=osheet.skill(oskill) + _sum(omods),
            modifiers=tuple(amods),
            opponent_modifiers=tuple(omods),
            note=note,
        )

    def _athletics(
        self, maneuver: str, plan: _Plan, mods: list[tuple[str, int]], opponent: Token, settings: Settings,
        note: str = "",
    ) -> TestSpec:
        """The opposed Athletics test of a shove or grapple ``maneuver`` (named "<maneuver>:
        opposed Athletics"): the actor, with ``mods``, against ``opponent``."""
        return self._opposed_spec(f"{maneuver}: opposed Athletics", plan.actor, "athletics", mods, opponent,
                                  ("athletics",), settings, note=note)

    # -- finishing --------------------------------------------------------------------------------
    def _finish(
        self,
        encounter: Encounter,
        work: _Work,
        key: str,
        label: str,
        action: Any,
        success: bool | None,
        actor: str | None = None,
    ) -> Result:
        actor = actor if actor is not None else getattr(action, "actor", None)
        target = getattr(action, "target", None) if action is not None else None
        rnd = work.settings.round
        entries = tuple(
            LogEntry(round=rnd, actor=actor, target=target, maneuver=key, text=line) for line in work.lines
        )
        settings_after = work.settings.model_copy(
            update={"rolls": work.dice.position, "log": work.settings.log + entries}
        )
        ids = list(work.tokens)
        before = tuple(encounter.token(i) for i in ids)
        after = tuple(work.tokens[i] for i in ids)
        change = Change(
            maneuver=key,
            label=label,
            actor=actor,
            target=target,
            before=before,
            after=after,
            settings_before=encounter.static_veil,
            settings_after=settings_after,
            log=entries,
            rolls=tuple(work.dice.rolls),
            moves=tuple(work.moves),
            success=success,
            summary=" ".join(work.lines),
        )
        return Result(_swap(encounter, after, settings_after), change)


# ----------------------------------------------------------------------------------------------
# Planners: one per maneuver. Each raises IllegalActionError with the reason, fills the plan.
# ``probe`` (from available_maneuvers) may carry target None / no destination: check only the
# actor's side then.
# ----------------------------------------------------------------------------------------------


def _plan_charge(self: StaticVeil, enc, a: Charge, st: Settings, plan: _Plan, probe: bool) -> None:
    s = _sheet(plan.actor)
    plan.ap_cost = st.attack_ap
    if s.charged_this_turn:
        raise IllegalActionError(f"{_name(plan.actor)} has already charged this turn (once per turn)")
    if s.prone or plan.actor.stance == "prone":
        raise IllegalActionError(f"{_name(plan.actor)} is Prone and must stand up before a charge")
    if s.grapple is not None:
        raise IllegalActionError(
            f"{_name(plan.actor)} is in a grapple and cannot charge (normal Movement cannot take "
            "them away from their partner)"
        )
    _afford(plan)
    mods: list[tuple[str, int]] = [("charge", st.charge_bonus)]
    if a.location is not None:
        mods.append(_called_mod(a.location, a.item_penalty))
    if plan.target is None:
        return
    self._runup(enc, plan, st, "charge")
    mods += list(a.modifiers)
    plan.tests.append(_attack_spec(plan.actor, "melee", mods, plan.target, st))
    _called_effect_spec(plan, a.location, st)


def _plan_shove(self: StaticVeil, enc, a: Shove, st: Settings, plan: _Plan, probe: bool) -> None:
    plan.ap_cost = 2
    _afford(plan)
    if plan.target is None:
        return
    t = plan.target
    ts = _sheet(t)
    if ts.grapple is not None:
        raise IllegalActionError(
            f"{_name(t)} is held in a grapple with {_name_of(enc, ts.grapple.other)}; bodies locked "
            "in a grapple move together (Move the Grapple, or end the grapple first)"
        )
    mods: list[tuple[str, int]] = []
    origin = (plan.actor.x, plan.actor.y)
    if a.run_up:
        self._runup(enc, plan, st, "run up to shove")
        mods.append(("run-up", st.shove_runup_bonus))
        origin = plan.end if plan.end is not None else origin
    else:
        self._reach(plan, st, "shove")
    mods += list(a.modifiers)
    plan.tests.append(self._athletics("Shove", plan, mods, t, st))
    direction = space.bearing(origin, (t.x, t.y))
    plan.shove_direction = direction
    if probe:
        return
    # the actor, after any run-up, stands behind the target: it does not stop the slide
    moved_actor = plan.actor.model_copy(update={"x": origin[0], "y": origin[1]})
    enc_now = _swap(enc, (moved_actor,), enc.static_veil)
    ends = []
    for n in range(SHOVE_PREVIEW_HITS + 1):
        se = space.slide(enc_now, t, direction, 1.0 + n, exclude={plan.actor.id})
        ends.append(ShoveEnd(n, 1.0 + n, se.end, se.travelled, se.stopped_by))
    plan.shove_ends = tuple(ends)


def _plan_grapple(self: StaticVeil, enc, a: Grapple, st: Settings, plan: _Plan, probe: bool) -> None:
    plan.ap_cost = 2
    s = _sheet(plan.actor)
    if s.grapple is not None:
        raise IllegalActionError(
            f"{_name(plan.actor)} is already in a grapple with {_name_of(enc, s.grapple.other)}"
        )
    _afford(plan)
    if plan.target is None:
        return
    ts = _sheet(plan.target)
    if ts.grapple is not None:
        raise IllegalActionError(
            f"{_name(plan.target)} is already in a grapple with {_name_of(enc, ts.grapple.other)}"
        )
    self._reach(plan, st, "seize")
    plan.tests.append(self._athletics("Grapple", plan, list(a.modifiers), plan.target, st))


def _plan_release(self: StaticVeil, enc, a: Release, st: Settings, plan: _Plan, probe: bool) -> None:
    plan.ap_cost = 0
    s = _sheet(plan.actor)
    if s.grapple is None:
        raise IllegalActionError(f"{_name(plan.actor)} is not in a grapple")
    if not _has(enc, s.grapple.other):
        plan.notes.append(f"the grapple partner {s.grapple.other!r} is no longer on the map")
        return  # a stale link: letting go just clears it
    partner = self._grapple_partner(enc, plan)
    if not s.grapple.initiator:
        raise IllegalActionError(
            f"only the character who started the grapple ({_name(partner)}) can release it; "
            f"{_name(plan.actor)} must Break Free"
        )


def _plan_break_free(self: StaticVeil, enc, a: BreakFree, st: Settings, plan: _Plan, probe: bool) -> None:
    plan.ap_cost = 2
    partner = self._grapple_partner(enc, plan)
    if _sheet(plan.actor).grapple.initiator:  # type: ignore[union-attr]
        raise IllegalActionError(
            f"{_name(plan.actor)} controls this grapple and can release {_name(partner)} as a Free Action"
        )
    plan.tests.append(self._athletics("Break free", plan, list(a.modifiers), partner, st))


def _plan_pressure(self: StaticVeil, enc, a: ApplyPressure, st: Settings, plan: _Plan, probe: bool) -> None:
    plan.ap_cost = 2
    partner = self._grapple_partner(enc, plan)
    plan.tests.append(
        self._athletics(
            "Apply pressure", plan, list(a.modifiers), partner, st,
            note=f"Raw Damage = Damage Modifier ({_sheet(plan.actor).damage_modifier}) + net hits, "
            "less 1 per Passive Defense hit; armour does not apply",
        )
    )
    plan.tests.append(
        TestSpec(
            name="Passive Defense",
            kind="passive_defense",
            actor_skill="passive defense",
            actor_target=_sheet(partner).passive_defense,
            note=f"{_name(partner)} rolls Passive Defense; each hit reduces the Raw Damage by 1",
        )
    )
    if a.pd_hits is not None and (not isinstance(a.pd_hits, int) or a.pd_hits < 0):
        raise IllegalActionError(f"Passive Defense hits must be a whole number >= 0, got {a.pd_hits!r}")


def _plan_takedown(self: StaticVeil, enc, a: Takedown, st: Settings, plan: _Plan, probe: bool) -> None:
    plan.ap_cost = 2
    partner = self._grapple_partner(enc, plan)
    if a.release and not _sheet(plan.actor).grapple.initiator:  # type: ignore[union-attr]
        raise IllegalActionError(
            f"only the character who started the grapple can release it; {_name(plan.actor)} "
            "would follow the throw to the ground"
        )
    plan.tests.append(self._athletics("Throw / takedown", plan, list(a.modifiers), partner, st))
    if not a.release:
        plan.notes.append(f"{_name(plan.actor)} keeps the hold and goes Prone too")


def _plan_move_grapple(self: StaticVeil, enc, a: MoveGrapple, st: Settings, plan: _Plan, probe: bool) -> None:
    plan.ap_cost = 1
    partner = self._grapple_partner(enc, plan)
    ps = _sheet(partner)
    s = _sheet(plan.actor)
    if not (a.willing or ps.incapacitated):
        plan.tests.append(self._athletics("Move the grapple", plan, list(a.modifiers), partner, st))
    else:
        plan.notes.append(f"{_name(partner)} is {'willing' if a.willing else 'incapacitated'}: no test")
    _afford(plan)
    budget = s.movement_left / 2.0
    if budget <= 0:
        raise IllegalActionError(f"{_name(plan.actor)} has no Movement left to move the grapple")
    if a.to is None:
        return
    to = (float(a.to[0]), float(a.to[1]))
    if not all(math.isfinite(v) for v in to):
        raise IllegalActionError("the destination is not a finite point")
    dp = space.drag(enc, plan.actor, partner, to)
    if dp is None:
        raise IllegalActionError(
            f"there is no way for {_name(plan.actor)} and {_name(partner)} to get to "
            f"({to[0]:.1f}, {to[1]:.1f}) together"
        )
    plan.path = dp.actor_path
    plan.partner_path = dp.partner_path
    plan.end = dp.actor_path[-1]
    plan.movement_cost = dp.length
    if dp.length > budget + REACH_SLACK:
        raise IllegalActionError(
            f"moving the grapple there is {_fmt_m(dp.length)}; {_name(plan.actor)} may drag "
            f"{_name(partner)} at most half the remaining Movement ({_fmt_m(budget)})"
        )


def _plan_called(self: StaticVeil, enc, a: CalledShot, st: Settings, plan: _Plan, probe: bool) -> None:
    plan.ap_cost = st.attack_ap
    mod = _called_mod(a.location, a.item_penalty)
    _afford(plan)
    if plan.target is None:
        return
    if not a.ranged:
        self._reach(plan, st, "strike")
    skill = a.skill or ("ranged" if a.ranged else "melee")
    plan.tests.append(_attack_spec(plan.actor, skill, [mod] + list(a.modifiers), plan.target, st))
    _called_effect_spec(plan, a.location, st)


def _plan_distraction(self: StaticVeil, enc, a: Distraction, st: Settings, plan: _Plan, probe: bool) -> None:
    plan.ap_cost = 1
    if a.approach == "custom":
        if not a.actor_skill or not a.opponent_skill:
            raise IllegalActionError("a custom distraction names the actor's skill and the opposing skill")
        askill, oskills, needs_reach = a.actor_skill.lower(), (a.opponent_skill.lower(),), False
    elif a.approach in APPROACHES:
        ap = APPROACHES[a.approach]
        askill = (a.actor_skill or ap.actor_skill).lower()
        oskills = (a.opponent_skill.lower(),) if a.opponent_skill else ap.opponent_skills
        needs_reach = ap.needs_reach
    else:
        known = ", ".join(list(APPROACHES) + ["custom"])
        raise IllegalActionError(f"unknown distraction approach {a.approach!r}; known: {known}")
    _afford(plan)
    if plan.target is None:
        return
    if needs_reach:
        self._reach(plan, st, "feint at")
    trick = _trick(a)
    mods = list(a.modifiers)
    used = _sheet(plan.actor).tricks_used.get(plan.target.id, ())
    if trick in used:
        rule = a.repeat or st.repeat_distraction
        if rule == "no_effect":
            raise IllegalActionError(
                f"{_name(plan.target)} has seen this trick ({trick}) from {_name(plan.actor)} before: "
                "it has no effect"
            )
        mods.append(("repeated trick", st.repeat_penalty))
    plan.extra["trick"] = trick
    plan.tests.append(
        self._opposed_spec(f"Distraction ({trick})", plan.actor, askill, mods, plan.target, oskills, st)
    )


def _plan_stand(self: StaticVeil, enc, a: StandUp, st: Settings, plan: _Plan, probe: bool) -> None:
    plan.ap_cost = st.stand_ap
    s = _sheet(plan.actor)
    if not (s.prone or plan.actor.stance == "prone"):
        raise IllegalActionError(f"{_name(plan.actor)} is not Prone")
    plan.notes.append("the seed gives no cost for standing up; Settings.stand_ap is used")


_PLANNERS = {
    Charge: _plan_charge,
    Shove: _plan_shove,
    Grapple: _plan_grapple,
    Release: _plan_release,
    BreakFree: _plan_break_free,
    ApplyPressure: _plan_pressure,
    Takedown: _plan_takedown,
    MoveGrapple: _plan_move_grapple,
    CalledShot: _plan_called,
    Distraction: _plan_distraction,
    StandUp: _plan_stand,
}


# ----------------------------------------------------------------------------------------------
# Resolvers: apply a planned maneuver. Return whether it succeeded (None: no test).
# ----------------------------------------------------------------------------------------------


def _spend(work: _Work, plan: _Plan) -> None:
    s = work.sheet(plan.actor.id)
    upd: dict[str, Any] = {"ap_left": s.ap - plan.ap_cost}
    if plan.movement_cost:
        upd["movement_used"] = s.movement_used + plan.movement_cost
    work.set_sheet(plan.actor.id, **upd)


def _opposed(work: _Work, given: Opposed | None, spec: TestSpec, actor: Token, opponent: Token) -> Opposed:
    if given is not None:
        return given
    if work.settings.dice == "d100":
        assert spec.actor_target is not None and spec.opponent_target is not None
        since = len(work.dice.rolls)
        o = work.dice.opposed(
            _name(actor), spec.actor_skill or "", spec.actor_target,
            _name(opponent), spec.opponent_skill or "", spec.opponent_target,
        )
        _log_rolls(work, since)
        return o
    raise OutcomeNeededError(f"enter the outcome of the {spec.name} (winner and net hits)", (spec,))


def _attack(work: _Work, given: Attack | None, spec: TestSpec, actor: Token, target: Token) -> Attack:
    if given is not None:
        return given
    if work.settings.dice == "d100":
        since = len(work.dice.rolls)
        o = work.dice.opposed(
            _name(actor), spec.actor_skill or "", spec.actor_target or 0,
            _name(target), spec.opponent_skill or "", spec.opponent_target or 0,
        )
        _log_rolls(work, since)
        return Attack(o.won, o.net_hits if o.won else 0, None)
    raise OutcomeNeededError(
        f"enter the outcome of the {spec.name} (did it get through, net hits, damage)", (spec,)
    )


def _check(work: _Work, given: Check | None, spec: TestSpec, who: Token) -> Check:
    if given is not None:
        return given
    if work.settings.dice == "d100":
        since = len(work.dice.rolls)
        c = work.dice.check(_name(who), spec.actor_skill or "", spec.actor_target or 0)
        _log_rolls(work, since)
        return c
    raise OutcomeNeededError(f"enter the outcome of the {spec.name} (passed or failed)", (spec,))


def _log_rolls(work: _Work, since: int) -> None:
    """Put the dice rolled since position ``since`` in the combat log (d100 model)."""
    new = work.dice.rolls[since:]
    if new:
        work.lines.append("Dice: " + "; ".join(r.text() for r in new) + ".")


def _hits(n: int) -> str:
    return f"{n} net hit{'s' if n != 1 else ''}"


def _outcome_text(o: Opposed, actor: Token, opponent: Token) -> str:
    winner = actor if o.won else opponent
    return f"{_name(winner)} wins by {_hits(o.net_hits)}"


def _resolve_charge(self: StaticVeil, work: _Work, a: Charge, plan: _Plan) -> bool:
    actor, target = plan.actor, plan.target
    assert target is not None
    _spend(work, plan)
    work.set_sheet(actor.id, charged_this_turn=True)
    facing = space.bearing(plan.end or (actor.x, actor.y), (target.x, target.y))
    work.move(actor.id, plan.path)
    work.put(actor.id, facing=facing)
    start, end = plan.runup_start, plan.end
    straight = math.hypot(end[0] - start[0], end[1] - start[1]) if start and end else None
    work.lines.append(
        f"{_name(actor)} charges {_name(target)}: runs {_fmt_m(plan.movement_cost)}"
        + (f", the last {_fmt_m(straight)} straight at them" if straight is not None else "")
        + f"; melee attack at +{work.settings.charge_bonus}."
    )
    return _resolve_attack(work, a, plan, a.attack, a.location, a.item)


def _resolve_called(self: StaticVeil, work: _Work, a: CalledShot, plan: _Plan) -> bool:
    _spend(work, plan)
    return _resolve_attack(work, a, plan, a.attack, a.location, a.item)


def _resolve_attack(work: _Work, a: Any, plan: _Plan, given: Attack | None, location: str | None,
                    item: str | None) -> bool:
    actor, target = plan.actor, plan.target
    assert target is not None
    spec = plan.tests[0]
    att = _attack(work, given, spec, actor, target)
    where = f" at the {_LOCATION_WORDS.get(location, location)}" if location else ""
    if location == "item" and item:
        where = f" at {item}"
    if not att.hit:
        work.lines.append(f"{_name(actor)}'s attack{where} on {_name(target)} does not get through.")
        return False
    bonus = VULNERABLE_DAMAGE if location in ("head", "vital") else 0
    text = f"{_name(actor)} hits {_name(target)}{where} with {_hits(att.net_hits)}"
    if att.damage is not None:
        dealt = att.damage + bonus
        ts = work.sheet(target.id)
        work.set_sheet(target.id, damage_taken=ts.damage_taken + dealt)
        text += f": {dealt} damage" + (f" ({att.damage} +{bonus} called shot)" if bonus else "")
    elif bonus:
        text += f" (+{bonus} damage for the called shot)"
    work.lines.append(text + ".")
    if location in ("hand", "item"):
        _disarm(work, a, plan, att, item)
    elif location == "leg":
        _knockdown(work, a, plan, att)
    return True


def _disarm(work: _Work, a: Any, plan: _Plan, att: Attack, item: str | None) -> None:
    target = work.token(plan.target.id)  # type: ignore[union-attr]
    spec = next(t for t in plan.tests if t.name.startswith("Disarm"))
    penalty = PER_NET_HIT * att.net_hits
    spec = replace(spec, actor_target=(spec.actor_target or 0) + penalty,
                   modifiers=spec.modifiers + ((f"{att.net_hits} net hits", penalty),))
    res = _check(work, a.resist, spec, target)
    if res.passed:
        work.lines.append(f"{_name(target)} keeps hold (Grip check at {penalty}).")
        return
    held = item or (target.weapons[0].name if target.weapons else None)
    weapons = tuple(w for w in target.weapons if w.name != held) if held else target.weapons
    dropped = held or "the held item"
    if held:
        work.put(target.id, weapons=weapons)
        work.settings = work.settings.model_copy(
            update={"dropped": work.settings.dropped + (DroppedItem(name=held, owner=target.id, x=target.x, y=target.y),)}
        )
    work.lines.append(f"{_name(target)} fails the Grip check (at {penalty}) and drops {dropped}.")


def _knockdown(work: _Work, a: Any, plan: _Plan, att: Attack) -> None:
    target = work.token(plan.target.id)  # type: ignore[union-attr]
    spec = next(t for t in plan.tests if t.name.startswith("Knockdown"))
    penalty = PER_NET_HIT * att.net_hits
    spec = replace(spec, actor_target=(spec.actor_target or 0) + penalty,
                   modifiers=spec.modifiers + ((f"{att.net_hits} net hits", penalty),))
    res = _check(work, a.resist, spec, target)
    if res.passed:
        work.lines.append(f"{_name(target)} keeps their feet (Vigor check at {penalty}).")
        return
    _go_prone(work, target.id)
    work.lines.append(f"{_name(target)} fails the Vigor check (at {penalty}) and is knocked Prone.")


_LOCATION_WORDS = {"vital": "vital area", "item": "held item"}


def _go_prone(work: _Work, ident: str) -> None:
    work.put(ident, sheet=work.sheet(ident).model_copy(update={"prone": True}), stance="prone")


def _resolve_shove(self: StaticVeil, work: _Work, a: Shove, plan: _Plan) -> bool:
    actor, target = plan.actor, plan.target
    assert target is not None
    _spend(work, plan)
    if a.run_up:
        work.move(actor.id, plan.path)
        work.lines.append(
            f"{_name(actor)} runs {_fmt_m(plan.movement_cost)} at {_name(target)} "
            f"(+{work.settings.shove_runup_bonus} for the run-up)."
        )
    spec = plan.tests[0]
    o = _opposed(work, a.outcome, spec, actor, target)
    if not o.won:
        work.lines.append(f"{_name(actor)} tries to shove {_name(target)}: {_outcome_text(o, actor, target)}; "
                          f"{_name(target)} holds their ground.")
        return False
    n = o.net_hits
    if n < len(plan.shove_ends):
        end = plan.shove_ends[n]
    else:
        moved = work.token(actor.id)
        enc_now = _swap(work.enc, (moved,), work.enc.static_veil)
        se = space.slide(enc_now, target, plan.shove_direction or 0.0, 1.0 + n, exclude={actor.id})
        end = ShoveEnd(n, 1.0 + n, se.end, se.travelled, se.stopped_by)
    work.move(target.id, ((target.x, target.y), end.end))
    text = (
        f"{_name(actor)} shoves {_name(target)} ({_outcome_text(o, actor, target)}): pushed "
        f"{_fmt_m(end.distance)} {space.compass(plan.shove_direction or 0.0)}"
    )
    if end.stopped_by:
        text += f", stopped by {end.stopped_by} after {_fmt_m(end.travelled)}"
    work.lines.append(text + "; no attacks of opportunity.")
    return True


def _resolve_grapple(self: StaticVeil, work: _Work, a: Grapple, plan: _Plan) -> bool:
    actor, target = plan.actor, plan.target
    assert target is not None
    _spend(work, plan)
    o = _opposed(work, a.outcome, plan.tests[0], actor, target)
    if not o.won:
        work.lines.append(f"{_name(actor)} tries to grapple {_name(target)}: {_outcome_text(o, actor, target)}; "
                          "the attempt fails.")
        return False
    work.set_sheet(actor.id, grapple=GrappleLink(other=target.id, initiator=True))
    work.set_sheet(target.id, grapple=GrappleLink(other=actor.id, initiator=False))
    work.lines.append(f"{_name(actor)} grapples {_name(target)} ({_outcome_text(o, actor, target)}).")
    return True


def _unlink(work: _Work, a_id: str, b_id: str) -> None:
    work.set_sheet(a_id, grapple=None)
    if _has(work.enc, b_id):
        work.set_sheet(b_id, grapple=None)


def _resolve_release(self: StaticVeil, work: _Work, a: Release, plan: _Plan) -> None:
    partner = plan.partner
    if partner is None:
        work.set_sheet(plan.actor.id, grapple=None)
        work.lines.append(f"{_name(plan.actor)} is no longer grappling (the partner left the map).")
        return None
    _unlink(work, plan.actor.id, partner.id)
    work.lines.append(f"{_name(plan.actor)} releases {_name(partner)} (Free Action).")
    return None


def _resolve_break_free(self: StaticVeil, work: _Work, a: BreakFree, plan: _Plan) -> bool:
    partner = plan.partner
    assert partner is not None
    _spend(work, plan)
    o = _opposed(work, a.outcome, plan.tests[0], plan.actor, partner)
    if not o.won:
        work.lines.append(f"{_name(plan.actor)} struggles against {_name(partner)}'s hold: "
                          f"{_outcome_text(o, plan.actor, partner)}; still grappled.")
        return False
    _unlink(work, plan.actor.id, partner.id)
    work.lines.append(f"{_name(plan.actor)} breaks free of {_name(partner)} ({_outcome_text(o, plan.actor, partner)}).")
    return True


def _resolve_pressure(self: StaticVeil, work: _Work, a: ApplyPressure, plan: _Plan) -> bool:
    partner = plan.partner
    assert partner is not None
    _spend(work, plan)
    o = _opposed(work, a.outcome, plan.tests[0], plan.actor, partner)
    if not o.won:
        work.lines.append(f"{_name(plan.actor)} applies pressure to {_name(partner)}: "
                          f"{_outcome_text(o, plan.actor, partner)}; no damage.")
        return False
    dm = work.sheet(plan.actor.id).damage_modifier
    raw = dm + o.net_hits
    pd = a.pd_hits
    if pd is None:
        spec = plan.tests[1]
        if work.settings.dice == "d100":
            since = len(work.dice.rolls)
            pd = work.dice.roll(_name(partner), "passive defense", spec.actor_target or 0).hits
            _log_rolls(work, since)
        else:
            raise OutcomeNeededError(
                f"enter {_name(partner)}'s Passive Defense hits (they reduce the Raw Damage of "
                f"{raw} by 1 each)", (spec,)
            )
    dealt = max(0, raw - pd)
    ps = work.sheet(partner.id)
    work.set_sheet(partner.id, damage_taken=ps.damage_taken + dealt)
    work.lines.append(
        f"{_name(plan.actor)} applies pressure to {_name(partner)} ({_outcome_text(o, plan.actor, partner)}): "
        f"Raw Damage {dm} + {o.net_hits} = {raw}, less {pd} Passive Defense hits = {dealt} damage (no armour)."
    )
    return True


def _resolve_takedown(self: StaticVeil, work: _Work, a: Takedown, plan: _Plan) -> bool:
    partner = plan.partner
    assert partner is not None
    _spend(work, plan)
    o = _opposed(work, a.outcome, plan.tests[0], plan.actor, partner)
    if not o.won:
        work.lines.append(f"{_name(plan.actor)} tries to throw {_name(partner)}: "
                          f"{_outcome_text(o, plan.actor, partner)}; both stay up.")
        return False
    _go_prone(work, partner.id)
    if a.release:
        _unlink(work, plan.actor.id, partner.id)
        work.lines.append(f"{_name(plan.actor)} throws {_name(partner)} down ({_outcome_text(o, plan.actor, partner)}) "
                          "and lets go: they are Prone.")
    else:
        _go_prone(work, plan.actor.id)
        work.lines.append(f"{_name(plan.actor)} takes {_name(partner)} down ({_outcome_text(o, plan.actor, partner)}) "
                          "and follows them to the ground, keeping the hold: both are Prone.")
    return True


def _resolve_move_grapple(self: StaticVeil, work: _Work, a: MoveGrapple, plan: _Plan) -> bool:
    partner = plan.partner
    assert partner is not None
    work.set_sheet(plan.actor.id, ap_left=work.sheet(plan.actor.id).ap - plan.ap_cost)
    if plan.tests:
        o = _opposed(work, a.outcome, plan.tests[0], plan.actor, partner)
        if not o.won:
            work.lines.append(f"{_name(plan.actor)} tries to drag {_name(partner)}: "
                              f"{_outcome_text(o, plan.actor, partner)}; neither moves.")
            return False
    s = work.sheet(plan.actor.id)
    work.set_sheet(plan.actor.id, movement_used=s.movement_used + plan.movement_cost)
    work.move(plan.actor.id, plan.path)
    work.move(partner.id, plan.partner_path)
    end = plan.end or (plan.actor.x, plan.actor.y)
    work.lines.append(
        f"{_name(plan.actor)} drags {_name(partner)} {_fmt_m(plan.movement_cost)} to "
        f"({end[0]:.1f}, {end[1]:.1f})."
    )
    return True


def _resolve_distraction(self: StaticVeil, work: _Work, a: Distraction, plan: _Plan) -> bool:
    actor, target = plan.actor, plan.target
    assert target is not None
    _spend(work, plan)
    trick = plan.extra["trick"]
    s = work.sheet(actor.id)
    used = dict(s.tricks_used)
    if trick not in used.get(target.id, ()):
        used[target.id] = tuple(used.get(target.id, ())) + (trick,)
    work.set_sheet(actor.id, tricks_used=used)
    o = _opposed(work, a.outcome, plan.tests[0], actor, target)
    if not o.won:
        work.lines.append(f"{_name(actor)} tries to distract {_name(target)} ({trick}): "
                          f"{_outcome_text(o, actor, target)}; no effect.")
        return False
    ts = work.sheet(target.id)
    level = ts.distracted + 1
    work.set_sheet(target.id, distracted=level, distracted_turns=work.settings.distracted_duration)
    work.lines.append(f"{_name(actor)} distracts {_name(target)} ({trick}; {_outcome_text(o, actor, target)}): "
                      f"{_name(target)} is Distracted ({level}).")
    return True


def _resolve_stand(self: StaticVeil, work: _Work, a: StandUp, plan: _Plan) -> None:
    _spend(work, plan)
    work.put(plan.actor.id, sheet=work.sheet(plan.actor.id).model_copy(update={"prone": False}),
             stance="standing")
    work.lines.append(f"{_name(plan.actor)} stands up.")
    return None


_RESOLVERS = {
    "charge": _resolve_charge,
    "shove": _resolve_shove,
    "grapple": _resolve_grapple,
    "release": _resolve_release,
    "break_free": _resolve_break_free,
    "apply_pressure": _resolve_pressure,
    "takedown": _resolve_takedown,
    "move_grapple": _resolve_move_grapple,
    "called_shot": _resolve_called,
    "distraction": _resolve_distraction,
    "stand_up": _resolve_stand,
}


# ----------------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------------


def _afford(plan: _Plan) -> None:
    """Refuse a maneuver the actor cannot pay for (checked before any map question)."""
    s = _sheet(plan.actor)
    if plan.ap_cost > s.ap:
        raise IllegalActionError(
            f"{_name(plan.actor)} has {s.ap} AP left; {plan.label} costs {plan.ap_cost} AP"
        )


def _has(enc: Encounter, ident: str) -> bool:
    return any(t.id == ident for t in enc.tokens)


def _name_of(enc: Encounter, ident: str) -> str:
    try:
        return _name(enc.token(ident))
    except UnknownIdError:
        return repr(ident)


def _swap(enc: Encounter, tokens: tuple[Token, ...], settings: Settings | None) -> Encounter:
    """``enc`` with the given tokens replacing those of the same id, and the settings."""
    by_id = {t.id: t for t in tokens}
    missing = set(by_id) - {t.id for t in enc.tokens}
    if missing:
        raise UnknownIdError("token", sorted(missing)[0])
    new_tokens = tuple(by_id.get(t.id, t) for t in enc.tokens)
    return enc.model_copy(update={"tokens": new_tokens, "static_veil": settings})


def _state_mods(token: Token, settings: Settings) -> list[tuple[str, int]]:
    s = _sheet(token)
    if s.distracted and settings.distracted_penalty:
        return [(f"Distracted ({s.distracted})", settings.distracted_penalty * s.distracted)]
    return []


def _called_mod(location: str, item_penalty: int | None) -> tuple[str, int]:
    if location == "item":
        p = DEFAULT_ITEM_PENALTY if item_penalty is None else item_penalty
        lo, hi = ITEM_PENALTY_RANGE
        if not isinstance(p, int) or not lo <= p <= hi:
            raise IllegalActionError(f"a held item's called-shot penalty is {lo} to {hi}, got {p!r}")
        return ("called shot: held item", p)
    if location not in CALLED_SHOT_PENALTY:
        known = ", ".join(list(CALLED_SHOT_PENALTY) + ["item"])
        raise IllegalActionError(f"unknown called-shot location {location!r}; known: {known}")
    return (f"called shot: {location}", CALLED_SHOT_PENALTY[location])


def _attack_spec(actor: Token, skill: str, mods: list[tuple[str, int]], target: Token, st: Settings) -> TestSpec:
    amods = list(mods) + _state_mods(actor, st)
    omods = _state_mods(target, st)
    return TestSpec(
        name=f"{skill.capitalize()} attack",
        kind="attack",
        actor_skill=skill,
        actor_target=_sheet(actor).skill(skill) + _sum(amods),
        opponent_skill=DEFENSE_SKILL,
        opponent_target=_sheet(target).skill(DEFENSE_SKILL) + _sum(omods),
        modifiers=tuple(amods),
        opponent_modifiers=tuple(omods),
        note="it must get through the target's defences (normal combat rules)",
    )


def _called_effect_spec(plan: _Plan, location: str | None, st: Settings) -> None:
    t = plan.target
    assert t is not None
    if location in ("hand", "item"):
        plan.tests.append(TestSpec(
            name="Disarm: Grip check", kind="check", actor_skill="grip",
            actor_target=_sheet(t).skill("grip") + _sum(_state_mods(t, st)),
            modifiers=tuple(_state_mods(t, st)), per_net_hit=PER_NET_HIT,
            note=f"if the attack gets through, {_name(t)} checks Grip at -5 per net hit; on a failure the item drops",
        ))
    elif location == "leg":
        plan.tests.append(TestSpec(
            name="Knockdown: Vigor check", kind="check", actor_skill="vigor",
            actor_target=_sheet(t).skill("vigor") + _sum(_state_mods(t, st)),
            modifiers=tuple(_state_mods(t, st)), per_net_hit=PER_NET_HIT,
            note=f"if the attack gets through, {_name(t)} checks Vigor at -5 per net hit; on a failure they fall Prone",
        ))
    elif location in ("head", "vital"):
        plan.notes.append(f"+{VULNERABLE_DAMAGE} damage if it hits")


def _trick(a: Distraction) -> str:
    if a.trick:
        return a.trick.strip().lower()
    if a.approach == "custom":
        return f"custom: {a.actor_skill} vs {a.opponent_skill}".lower()
    return a.approach


def _base_cost(key: str, st: Settings) -> int:
    return {
        "charge": st.attack_ap, "called_shot": st.attack_ap, "stand_up": st.stand_ap,
        "release": 0, "move_grapple": 1, "distraction": 1,
    }.get(key, 2)


def _probe(cls: type, actor: str, target: str | None) -> Any:
    """A stand-in action for the picker: default choices, no outcomes."""
    if cls is MoveGrapple:
        return MoveGrapple(actor=actor, to=None)  # type: ignore[arg-type]
    if cls is CalledShot:
        return CalledShot(actor=actor, target=target, location="arm")  # type: ignore[arg-type]
    if cls in (Charge, Shove, Grapple, Distraction):
        return cls(actor=actor, target=target)
    return cls(actor=actor)


def _variants(key: str) -> tuple[tuple[str, str, int], ...]:
    if key == "called_shot":
        return tuple((loc, loc.capitalize(), p) for loc, p in CALLED_SHOT_PENALTY.items()) + (
            ("item", "Held item (GM: -10 to -30)", DEFAULT_ITEM_PENALTY),
        )
    if key == "distraction":
        return tuple((k, ap.label, 0) for k, ap in APPROACHES.items())
    return ()


def _preview(plan: _Plan, allowed: bool, reason: str | None) -> Preview:
    return Preview(
        maneuver=plan.key,
        label=plan.label,
        actor=plan.actor.id,
        target=plan.target.id if plan.target is not None else None,
        allowed=allowed,
        reason=reason,
        ap_cost=plan.ap_cost,
        movement_cost=plan.movement_cost,
        path=plan.path,
        runup_start=plan.runup_start,
        end=plan.end,
        partner=plan.partner.id if plan.partner is not None else None,
        partner_path=plan.partner_path,
        shove_direction=plan.shove_direction,
        shove_ends=plan.shove_ends,
        tests=tuple(plan.tests),
        notes=tuple(plan.notes),
    )
