"""Checking and planning the Static Veil maneuvers (seed 004): what a character may do now,
each maneuver's AP and Movement cost, run-up, reach and the tests it needs, and why a refused
one is refused. Nothing here changes the encounter.

:class:`Legality` is a base of :class:`engine.static_veil.system.StaticVeil`; one planner a
maneuver fills a :class:`Plan` or raises :class:`~engine.errors.IllegalActionError`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.errors import IllegalActionError, UnknownIdError
from engine.model import Encounter, Token
from engine.names import geometry_text, name_of, token_name
from engine.static_veil.tokens import has_token, metres, sheet_of, swap
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
from engine.static_veil.dice import TestSpec
from engine.static_veil.sheet import Settings
from engine.static_veil.values import (
    DEFENSE_SKILL,
    REACH_SLACK,
    SHOVE_PREVIEW_HITS,
    XY,
    Option,
    Preview,
    ShoveEnd,
    Variant,
)
from geometry.errors import GeometryInputError

if TYPE_CHECKING:
    from engine.static_veil.system import StaticVeil

@dataclass
class Plan:
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








def _sum(mods: tuple[tuple[str, int], ...] | list[tuple[str, int]]) -> int:
    return sum(int(v) for _, v in mods)


class Legality:
    """The checking half of :class:`~engine.static_veil.system.StaticVeil`."""

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
        sheet = self.sheet(encounter.token(actor_id))
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

    def preview(self, encounter: Encounter, action: Any, *, tactics=None) -> Preview:
        """What the maneuver would cost and do on the map, changing nothing. An illegal
        maneuver gives ``allowed=False`` and the reason (with whatever could be planned,
        e.g. the charge path that is too long). Unknown token ids raise
        :class:`~engine.errors.UnknownIdError`."""
        settings = self.settings(encounter)
        holder: list[Plan] = []
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
        out: list[Plan] | None = None,
    ) -> Plan:
        planner = _PLANNERS.get(type(action))
        if planner is None:
            raise IllegalActionError(f"{type(action).__name__} is not a Static Veil maneuver")
        actor = enc.token(action.actor)
        target_id = getattr(action, "target", None)
        target = enc.token(target_id) if target_id is not None else None
        if target is not None and target.id == actor.id:
            raise IllegalActionError(f"{token_name(actor)} cannot target itself with {action.label.lower()}")
        plan = Plan(type(action).key, type(action).label, actor, target)
        if out is not None:
            out.append(plan)
        s = sheet_of(actor)
        if s.incapacitated:
            raise IllegalActionError(f"{token_name(actor)} is incapacitated")
        try:
            planner(self, enc, action, settings, plan, probe_only)
        except GeometryInputError as exc:  # e.g. a destination inside a wall
            raise IllegalActionError(geometry_text(exc, enc), ids=tuple(
                i for i in (getattr(exc, "obstacle", None),) if isinstance(i, str))) from None
        _afford(plan)
        return plan

    # -- helpers used by the planners ---------------------------------------------------------------
    def _reach(self, plan: Plan, settings: Settings, verb: str) -> None:
        a, t = plan.actor, plan.target
        assert t is not None
        g = space.gap(a, t)
        if g > settings.reach + REACH_SLACK:
            raise IllegalActionError(
                f"{token_name(t)} is {metres(g)} from {token_name(a)} edge to edge; to {verb} it must be "
                f"within reach ({metres(settings.reach)})"
            )

    def _runup(self, enc: Encounter, plan: Plan, settings: Settings, what: str) -> None:
        """Plan a run-up (Charge, Shove with run-up) into ``plan``; refuse when impossible.
        A straight approach already walked this turn (:func:`earlier_approach`) is the run-up:
        no second one, no Movement."""
        a, t = plan.actor, plan.target
        assert t is not None
        s = sheet_of(a)
        done = earlier_approach(a, t, settings)
        if done is not None and s.grapple is None and not (s.prone or a.stance == "prone"):
            plan.runup_start = done[0]
            plan.end = (float(a.x), float(a.y))
            plan.movement_cost = 0.0
            plan.notes.append(f"the {metres(done[1])} straight approach walked earlier this turn is the run-up")
            return
        if s.prone or a.stance == "prone":
            raise IllegalActionError(f"{token_name(a)} is Prone and must stand up before a {what}")
        if s.grapple is not None:
            raise IllegalActionError(
                f"{token_name(a)} is in a grapple and cannot run at anyone (normal Movement cannot "
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
                f"{token_name(a)} cannot {what} {token_name(t)}: {why} (needs {metres(settings.runup)} "
                "straight at the target)"
            )
        if plan.movement_cost > s.movement_left + REACH_SLACK:
            raise IllegalActionError(
                f"the {what} needs {metres(plan.movement_cost)} of Movement; {token_name(a)} has "
                f"{metres(s.movement_left)} left"
            )

    def _grapple_partner(self, enc: Encounter, plan: Plan) -> Token:
        s = sheet_of(plan.actor)
        if s.grapple is None:
            raise IllegalActionError(f"{token_name(plan.actor)} is not in a grapple")
        if not has_token(enc, s.grapple.other):
            raise IllegalActionError(
                f"{token_name(plan.actor)}'s grapple partner {s.grapple.other!r} is no longer on the map"
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
        osheet = sheet_of(opponent)
        oskill = max(opponent_skills, key=lambda k: osheet.skill(k))
        return TestSpec(
            name=name,
            kind="opposed",
            actor_skill=actor_skill,
            actor_target=sheet_of(actor).skill(actor_skill) + _sum(amods),
            opponent_skill=oskill,
            opponent_target=osheet.skill(oskill) + _sum(omods),
            modifiers=tuple(amods),
            opponent_modifiers=tuple(omods),
            note=note,
        )

    def _athletics(
        self, maneuver: str, plan: Plan, mods: list[tuple[str, int]], opponent: Token, settings: Settings,
        note: str = "",
    ) -> TestSpec:
        """The opposed Athletics test of a shove or grapple ``maneuver`` (named "<maneuver>:
        opposed Athletics"): the actor, with ``mods``, against ``opponent``."""
        return self._opposed_spec(f"{maneuver}: opposed Athletics", plan.actor, "athletics", mods, opponent,
                                  ("athletics",), settings, note=note)


# ----------------------------------------------------------------------------------------------
# Planners: one per maneuver. Each raises IllegalActionError with the reason, fills the plan.
# ``probe`` (from available_maneuvers) may carry target None / no destination: check only the
# actor's side then.
# ----------------------------------------------------------------------------------------------


def _plan_charge(self: StaticVeil, enc, a: Charge, st: Settings, plan: Plan, probe: bool) -> None:
    s = sheet_of(plan.actor)
    plan.ap_cost = st.attack_ap
    if s.charged_this_turn:
        raise IllegalActionError(f"{token_name(plan.actor)} has already charged this turn (once per turn)")
    if s.prone or plan.actor.stance == "prone":
        raise IllegalActionError(f"{token_name(plan.actor)} is Prone and must stand up before a charge")
    if s.grapple is not None:
        raise IllegalActionError(
            f"{token_name(plan.actor)} is in a grapple and cannot charge (normal Movement cannot take "
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


def _plan_shove(self: StaticVeil, enc, a: Shove, st: Settings, plan: Plan, probe: bool) -> None:
    plan.ap_cost = 2
    _afford(plan)
    if plan.target is None:
        return
    t = plan.target
    ts = sheet_of(t)
    partner = None
    if ts.grapple is not None:
        if st.shove_grappled == "refuse":
            raise IllegalActionError(
                f"{token_name(t)} is held in a grapple with {name_of(enc, ts.grapple.other)}; bodies locked "
                "in a grapple move together (Move the Grapple, or end the grapple first)"
            )
        partner = ts.grapple.other  # the grapple holds: the pair slides together
        plan.notes.append(f"{token_name(t)} is in a grapple with {name_of(enc, partner)}: both are pushed, "
                          "the grapple holds")
    mods: list[tuple[str, int]] = []
    origin = (plan.actor.x, plan.actor.y)
    done = None if a.run_up else earlier_approach(plan.actor, t, st)
    if a.run_up:
        self._runup(enc, plan, st, "run up to shove")
        mods.append(("run-up", st.shove_runup_bonus))
        origin = plan.end if plan.end is not None else origin
    else:
        self._reach(plan, st, "shove")
        if done is not None:
            mods.append(("run-up", st.shove_runup_bonus))
            plan.runup_start = done[0]
            plan.notes.append(f"the {metres(done[1])} straight approach walked earlier this turn gives the run-up bonus")
    mods += list(a.modifiers)
    plan.tests.append(self._athletics("Shove", plan, mods, t, st))
    direction = space.bearing(origin, (t.x, t.y))
    plan.shove_direction = direction
    if probe:
        return
    # the actor, after any run-up, stands behind the target: it does not stop the slide
    moved_actor = plan.actor.model_copy(update={"x": origin[0], "y": origin[1]})
    enc_now = swap(enc, (moved_actor,), enc.rules.get("static-veil"))
    plan.shove_ends = tuple(shove_end(enc_now, plan.actor.id, t, partner, direction, n)
                            for n in range(SHOVE_PREVIEW_HITS + 1))


def _plan_grapple(self: StaticVeil, enc, a: Grapple, st: Settings, plan: Plan, probe: bool) -> None:
    plan.ap_cost = 2
    s = sheet_of(plan.actor)
    if s.grapple is not None:
        raise IllegalActionError(
            f"{token_name(plan.actor)} is already in a grapple with {name_of(enc, s.grapple.other)}"
        )
    _afford(plan)
    if plan.target is None:
        return
    ts = sheet_of(plan.target)
    if ts.grapple is not None:
        raise IllegalActionError(
            f"{token_name(plan.target)} is already in a grapple with {name_of(enc, ts.grapple.other)}"
        )
    self._reach(plan, st, "seize")
    plan.tests.append(self._athletics("Grapple", plan, list(a.modifiers), plan.target, st))


def _plan_release(self: StaticVeil, enc, a: Release, st: Settings, plan: Plan, probe: bool) -> None:
    plan.ap_cost = 0
    s = sheet_of(plan.actor)
    if s.grapple is None:
        raise IllegalActionError(f"{token_name(plan.actor)} is not in a grapple")
    if not has_token(enc, s.grapple.other):
        plan.notes.append(f"the grapple partner {s.grapple.other!r} is no longer on the map")
        return  # a stale link: letting go just clears it
    partner = self._grapple_partner(enc, plan)
    if not s.grapple.initiator:
        raise IllegalActionError(
            f"only the character who started the grapple ({token_name(partner)}) can release it; "
            f"{token_name(plan.actor)} must Break Free"
        )


def _plan_break_free(self: StaticVeil, enc, a: BreakFree, st: Settings, plan: Plan, probe: bool) -> None:
    plan.ap_cost = 2
    partner = self._grapple_partner(enc, plan)
    if sheet_of(plan.actor).grapple.initiator:  # type: ignore[union-attr]
        raise IllegalActionError(
            f"{token_name(plan.actor)} controls this grapple and can release {token_name(partner)} as a Free Action"
        )
    plan.tests.append(self._athletics("Break free", plan, list(a.modifiers), partner, st))


def _plan_pressure(self: StaticVeil, enc, a: ApplyPressure, st: Settings, plan: Plan, probe: bool) -> None:
    plan.ap_cost = 2
    partner = self._grapple_partner(enc, plan)
    plan.tests.append(
        self._athletics(
            "Apply pressure", plan, list(a.modifiers), partner, st,
            note=f"Raw Damage = Damage Modifier ({sheet_of(plan.actor).damage_modifier}) + net hits, "
            "less 1 per Passive Defense hit; armour does not apply",
        )
    )
    plan.tests.append(
        TestSpec(
            name="Passive Defense",
            kind="passive_defense",
            actor_skill="passive defense",
            actor_target=sheet_of(partner).passive_defense,
            note=f"{token_name(partner)} rolls Passive Defense; each hit reduces the Raw Damage by 1",
        )
    )
    if a.pd_hits is not None and (not isinstance(a.pd_hits, int) or a.pd_hits < 0):
        raise IllegalActionError(f"Passive Defense hits must be a whole number >= 0, got {a.pd_hits!r}")


def _plan_takedown(self: StaticVeil, enc, a: Takedown, st: Settings, plan: Plan, probe: bool) -> None:
    plan.ap_cost = 2
    partner = self._grapple_partner(enc, plan)
    if a.release and not sheet_of(plan.actor).grapple.initiator:  # type: ignore[union-attr]
        raise IllegalActionError(
            f"only the character who started the grapple can release it; {token_name(plan.actor)} "
            "would follow the throw to the ground"
        )
    plan.tests.append(self._athletics("Throw / takedown", plan, list(a.modifiers), partner, st))
    if not a.release:
        plan.notes.append(f"{token_name(plan.actor)} keeps the hold and goes Prone too")


def _plan_move_grapple(self: StaticVeil, enc, a: MoveGrapple, st: Settings, plan: Plan, probe: bool) -> None:
    plan.ap_cost = 1
    partner = self._grapple_partner(enc, plan)
    ps = sheet_of(partner)
    s = sheet_of(plan.actor)
    if not (a.willing or ps.incapacitated):
        plan.tests.append(self._athletics("Move the grapple", plan, list(a.modifiers), partner, st))
    else:
        plan.notes.append(f"{token_name(partner)} is {'willing' if a.willing else 'incapacitated'}: no test")
    _afford(plan)
    budget = s.movement_left / 2.0
    if budget <= 0:
        raise IllegalActionError(f"{token_name(plan.actor)} has no Movement left to move the grapple")
    if a.to is None:
        return
    to = (float(a.to[0]), float(a.to[1]))
    if not all(math.isfinite(v) for v in to):
        raise IllegalActionError("the destination is not a finite point")
    dp = space.drag(enc, plan.actor, partner, to)
    if dp is None:
        raise IllegalActionError(
            f"there is no way for {token_name(plan.actor)} and {token_name(partner)} to get to "
            f"({to[0]:.1f}, {to[1]:.1f}) together"
        )
    plan.path = dp.actor_path
    plan.partner_path = dp.partner_path
    plan.end = dp.actor_path[-1]
    plan.movement_cost = dp.length
    if dp.length > budget + REACH_SLACK:
        raise IllegalActionError(
            f"moving the grapple there is {metres(dp.length)}; {token_name(plan.actor)} may drag "
            f"{token_name(partner)} at most half the remaining Movement ({metres(budget)})"
        )


def _plan_called(self: StaticVeil, enc, a: CalledShot, st: Settings, plan: Plan, probe: bool) -> None:
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


def _plan_distraction(self: StaticVeil, enc, a: Distraction, st: Settings, plan: Plan, probe: bool) -> None:
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
    used = sheet_of(plan.actor).tricks_used.get(plan.target.id, ())
    if trick in used:
        rule = a.repeat or st.repeat_distraction
        if rule == "no_effect":
            raise IllegalActionError(
                f"{token_name(plan.target)} has seen this trick ({trick}) from {token_name(plan.actor)} before: "
                "it has no effect"
            )
        mods.append(("repeated trick", st.repeat_penalty))
    plan.extra["trick"] = trick
    plan.tests.append(
        self._opposed_spec(f"Distraction ({trick})", plan.actor, askill, mods, plan.target, oskills, st)
    )


def _plan_stand(self: StaticVeil, enc, a: StandUp, st: Settings, plan: Plan, probe: bool) -> None:
    plan.ap_cost = st.stand_ap
    s = sheet_of(plan.actor)
    if not (s.prone or plan.actor.stance == "prone"):
        raise IllegalActionError(f"{token_name(plan.actor)} is not Prone")
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
# small helpers
# ----------------------------------------------------------------------------------------------


def shove_end(enc: Encounter, actor: str, target: Token, partner: str | None, direction: float,
              net_hits: int) -> ShoveEnd:
    """Where a shove with ``net_hits`` leaves ``target`` (1 m + 1 m a net hit along
    ``direction``, stopped by walls and bodies; the shover does not stop it). A grapple
    ``partner`` slides with it the same way: the pair goes as far as the one stopped first."""
    dist = 1.0 + net_hits
    if partner is None:
        se = space.slide(enc, target, direction, dist, exclude={actor})
        return ShoveEnd(net_hits, dist, se.end, se.travelled, se.stopped_by)
    p = enc.token(partner)
    st_t = space.slide(enc, target, direction, dist, exclude={actor, partner})
    st_p = space.slide(enc, p, direction, dist, exclude={actor, target.id})
    first = st_t if st_t.travelled <= st_p.travelled else st_p
    d = first.travelled
    dx, dy = math.cos(math.radians(direction)) * d, math.sin(math.radians(direction)) * d
    return ShoveEnd(net_hits, dist, (target.x + dx, target.y + dy), d, first.stopped_by, partner,
                    (p.x + dx, p.y + dy))


def trailing_run(path: tuple[XY, ...], degrees: float = 1.0) -> tuple[XY, float]:
    """The last straight stretch of a walked path: its start and length in metres (joined
    segments that turn by less than ``degrees`` count as straight)."""
    pts = [p for i, p in enumerate(path) if i == 0 or math.dist(p, path[i - 1]) > 1e-9]
    if len(pts) < 2:
        return (pts[0] if pts else (0.0, 0.0)), 0.0
    end = pts[-1]
    last = math.atan2(end[1] - pts[-2][1], end[0] - pts[-2][0])
    start = pts[-2]
    for p in reversed(pts[:-2]):
        d = math.atan2(start[1] - p[1], start[0] - p[0])
        turn = abs((math.degrees(d - last) + 180.0) % 360.0 - 180.0)
        if turn >= degrees:
            break
        start = p
    return start, math.dist(start, end)


def earlier_approach(actor: Token, target: Token, st: Settings) -> tuple[XY, float] | None:
    """The straight approach at ``target`` the actor walked this turn (seed 004: "move at
    least 4 meters directly toward the target ... during the same turn"), as (start, metres),
    or None: its walk this turn must end where it stands, its last straight stretch be at least
    ``Settings.runup`` long and point at the target within ``approach_degrees``, and it must
    now be within reach. A walk that bends within the last 4 m, or stops short, does not count."""
    path = sheet_of(actor).turn_path
    if len(path) < 2 or math.dist(path[-1], (actor.x, actor.y)) > REACH_SLACK:
        return None
    start, length = trailing_run(path)
    if length + REACH_SLACK < st.runup:
        return None
    end = path[-1]
    run = math.atan2(end[1] - start[1], end[0] - start[0])
    at = math.atan2(target.y - start[1], target.x - start[0])
    if abs((math.degrees(at - run) + 180.0) % 360.0 - 180.0) > st.approach_degrees:
        return None
    if space.gap(actor, target) > st.reach + REACH_SLACK:
        return None
    return (float(start[0]), float(start[1])), length


def _afford(plan: Plan) -> None:
    """Refuse a maneuver the actor cannot pay for (checked before any map question)."""
    s = sheet_of(plan.actor)
    if plan.ap_cost > s.ap:
        raise IllegalActionError(
            f"{token_name(plan.actor)} has {s.ap} AP left; {plan.label} costs {plan.ap_cost} AP"
        )








def _state_mods(token: Token, settings: Settings) -> list[tuple[str, int]]:
    s = sheet_of(token)
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
        actor_target=sheet_of(actor).skill(skill) + _sum(amods),
        opponent_skill=DEFENSE_SKILL,
        opponent_target=sheet_of(target).skill(DEFENSE_SKILL) + _sum(omods),
        modifiers=tuple(amods),
        opponent_modifiers=tuple(omods),
        note="it must get through the target's defences (normal combat rules)",
    )


def _called_effect_spec(plan: Plan, location: str | None, st: Settings) -> None:
    t = plan.target
    assert t is not None
    if location in ("hand", "item"):
        plan.tests.append(TestSpec(
            name="Disarm: Grip check", kind="check", actor_skill="grip",
            actor_target=sheet_of(t).skill("grip") + _sum(_state_mods(t, st)),
            modifiers=tuple(_state_mods(t, st)), per_net_hit=PER_NET_HIT,
            note=f"if the attack gets through, {token_name(t)} checks Grip at -5 per net hit; on a failure the item drops",
        ))
    elif location == "leg":
        plan.tests.append(TestSpec(
            name="Knockdown: Vigor check", kind="check", actor_skill="vigor",
            actor_target=sheet_of(t).skill("vigor") + _sum(_state_mods(t, st)),
            modifiers=tuple(_state_mods(t, st)), per_net_hit=PER_NET_HIT,
            note=f"if the attack gets through, {token_name(t)} checks Vigor at -5 per net hit; on a failure they fall Prone",
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


def _preview(plan: Plan, allowed: bool, reason: str | None) -> Preview:
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
