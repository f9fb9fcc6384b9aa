"""Applying the Static Veil maneuvers (seed 004): spend the AP and Movement, resolve the tests
(entered by the GM or rolled), move, shove, grapple, disarm, knock down; the change record
and undo/redo.

:class:`Resolution` is a base of :class:`engine.static_veil.system.StaticVeil`; it plans
through :class:`~engine.static_veil.legality.Legality` (``self._plan``) first.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.model import Encounter, Token
from engine.names import token_name
from engine.static_veil import space
from engine.static_veil.actions import (
    PER_NET_HIT,
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
from engine.static_veil.dice import Attack, Check, Dice, Opposed, TestSpec
from engine.static_veil.legality import Plan, shove_end
from engine.static_veil.tokens import has_token, metres, sheet_of, swap
from engine.static_veil.sheet import DroppedItem, GrappleLink, LogEntry, Settings, Sheet
from engine.static_veil.values import XY, Change, Move, OutcomeNeededError, Result

if TYPE_CHECKING:
    from engine.static_veil.system import StaticVeil

class Work:
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
        return sheet_of(self.token(ident))

    def put(self, ident: str, *, sheet: Sheet | None = None, **fields: Any) -> None:
        t = self.token(ident)
        t = t.model_copy(update=fields) if fields else t
        self.tokens[ident] = t.with_rules("static-veil", sheet) if sheet is not None else t

    def set_sheet(self, ident: str, **fields: Any) -> None:
        self.put(ident, sheet=self.sheet(ident).model_copy(update=fields))

    def move(self, ident: str, path: tuple[XY, ...]) -> None:
        if len(path) >= 1:
            x, y = path[-1]
            self.put(ident, x=float(x), y=float(y))
            self.moves.append(Move(ident, tuple(path)))


class Resolution:
    """The applying half of :class:`~engine.static_veil.system.StaticVeil`."""

    # -- applying ---------------------------------------------------------------------------------
    def _maneuver(self, encounter: Encounter, action: Any) -> Result:
        """Do the maneuver: spend its AP and Movement, resolve its tests (entered outcomes,
        or the dice model's rolls) and change the map. Raises :class:`IllegalActionError`
        when it is not allowed, :class:`OutcomeNeededError` when the GM must still enter a
        test's outcome. Returns the new encounter and the change record."""
        settings = self.settings(encounter)
        plan = self._plan(encounter, action, settings)
        work = Work(encounter, settings)
        success = _RESOLVERS[plan.key](self, work, action, plan)
        return self._finish(encounter, work, plan.key, plan.label, action, success)

    # -- finishing --------------------------------------------------------------------------------
    def _finish(
        self,
        encounter: Encounter,
        work: Work,
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
            settings_before=encounter.rules.get("static-veil"),
            settings_after=settings_after,
            log=entries,
            rolls=tuple(work.dice.rolls),
            moves=tuple(work.moves),
            success=success,
            summary=" ".join(work.lines),
        )
        return Result(swap(encounter, after, settings_after), change)


# ----------------------------------------------------------------------------------------------
# Resolvers: apply a planned maneuver. Return whether it succeeded (None: no test).
# ----------------------------------------------------------------------------------------------


def _spend(work: Work, plan: Plan) -> None:
    s = work.sheet(plan.actor.id)
    upd: dict[str, Any] = {"ap_left": s.ap - plan.ap_cost}
    if plan.movement_cost:
        upd["movement_used"] = s.movement_used + plan.movement_cost
    work.set_sheet(plan.actor.id, **upd)


def _opposed(work: Work, given: Opposed | None, spec: TestSpec, actor: Token, opponent: Token) -> Opposed:
    if given is not None:
        return given
    if work.settings.dice == "d100":
        assert spec.actor_target is not None and spec.opponent_target is not None
        since = len(work.dice.rolls)
        o = work.dice.opposed(
            token_name(actor), spec.actor_skill or "", spec.actor_target,
            token_name(opponent), spec.opponent_skill or "", spec.opponent_target,
        )
        _log_rolls(work, since)
        return o
    raise OutcomeNeededError(f"enter the outcome of the {spec.name} (winner and net hits)", (spec,))


def _attack(work: Work, given: Attack | None, spec: TestSpec, actor: Token, target: Token) -> Attack:
    if given is not None:
        return given
    if work.settings.dice == "d100":
        since = len(work.dice.rolls)
        o = work.dice.opposed(
            token_name(actor), spec.actor_skill or "", spec.actor_target or 0,
            token_name(target), spec.opponent_skill or "", spec.opponent_target or 0,
        )
        _log_rolls(work, since)
        return Attack(o.won, o.net_hits if o.won else 0, None)
    raise OutcomeNeededError(
        f"enter the outcome of the {spec.name} (did it get through, net hits, damage)", (spec,)
    )


def _check(work: Work, given: Check | None, spec: TestSpec, who: Token) -> Check:
    if given is not None:
        return given
    if work.settings.dice == "d100":
        since = len(work.dice.rolls)
        c = work.dice.check(token_name(who), spec.actor_skill or "", spec.actor_target or 0)
        _log_rolls(work, since)
        return c
    raise OutcomeNeededError(f"enter the outcome of the {spec.name} (passed or failed)", (spec,))


def _log_rolls(work: Work, since: int) -> None:
    """Put the dice rolled since position ``since`` in the combat log (d100 model)."""
    new = work.dice.rolls[since:]
    if new:
        work.lines.append("Dice: " + "; ".join(r.text() for r in new) + ".")


def _hits(n: int) -> str:
    return f"{n} net hit{'s' if n != 1 else ''}"


def _outcome_text(o: Opposed, actor: Token, opponent: Token) -> str:
    winner = actor if o.won else opponent
    return f"{token_name(winner)} wins by {_hits(o.net_hits)}"


def _resolve_charge(self: StaticVeil, work: Work, a: Charge, plan: Plan) -> bool:
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
        f"{token_name(actor)} charges {token_name(target)}: runs {metres(plan.movement_cost)}"
        + (f", the last {metres(straight)} straight at them" if straight is not None else "")
        + f"; melee attack at +{work.settings.charge_bonus}."
    )
    return _resolve_attack(work, a, plan, a.attack, a.location, a.item)


def _resolve_called(self: StaticVeil, work: Work, a: CalledShot, plan: Plan) -> bool:
    _spend(work, plan)
    return _resolve_attack(work, a, plan, a.attack, a.location, a.item)


def _resolve_attack(work: Work, a: Any, plan: Plan, given: Attack | None, location: str | None,
                    item: str | None) -> bool:
    actor, target = plan.actor, plan.target
    assert target is not None
    spec = plan.tests[0]
    att = _attack(work, given, spec, actor, target)
    where = f" at the {_LOCATION_WORDS.get(location, location)}" if location else ""
    if location == "item" and item:
        where = f" at {item}"
    if not att.hit:
        work.lines.append(f"{token_name(actor)}'s attack{where} on {token_name(target)} does not get through.")
        return False
    bonus = VULNERABLE_DAMAGE if location in ("head", "vital") else 0
    text = f"{token_name(actor)} hits {token_name(target)}{where} with {_hits(att.net_hits)}"
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


def _disarm(work: Work, a: Any, plan: Plan, att: Attack, item: str | None) -> None:
    target = work.token(plan.target.id)  # type: ignore[union-attr]
    spec = next(t for t in plan.tests if t.name.startswith("Disarm"))
    penalty = PER_NET_HIT * att.net_hits
    spec = replace(spec, actor_target=(spec.actor_target or 0) + penalty,
                   modifiers=spec.modifiers + ((f"{att.net_hits} net hits", penalty),))
    res = _check(work, a.resist, spec, target)
    if res.passed:
        work.lines.append(f"{token_name(target)} keeps hold (Grip check at {penalty}).")
        return
    held = item or (target.weapons[0].name if target.weapons else None)
    weapons = tuple(w for w in target.weapons if w.name != held) if held else target.weapons
    dropped = held or "the held item"
    if held:
        work.put(target.id, weapons=weapons)
        work.settings = work.settings.model_copy(
            update={"dropped": work.settings.dropped + (DroppedItem(name=held, owner=target.id, x=target.x, y=target.y),)}
        )
    work.lines.append(f"{token_name(target)} fails the Grip check (at {penalty}) and drops {dropped}.")


def _knockdown(work: Work, a: Any, plan: Plan, att: Attack) -> None:
    target = work.token(plan.target.id)  # type: ignore[union-attr]
    spec = next(t for t in plan.tests if t.name.startswith("Knockdown"))
    penalty = PER_NET_HIT * att.net_hits
    spec = replace(spec, actor_target=(spec.actor_target or 0) + penalty,
                   modifiers=spec.modifiers + ((f"{att.net_hits} net hits", penalty),))
    res = _check(work, a.resist, spec, target)
    if res.passed:
        work.lines.append(f"{token_name(target)} keeps their feet (Vigor check at {penalty}).")
        return
    _go_prone(work, target.id)
    work.lines.append(f"{token_name(target)} fails the Vigor check (at {penalty}) and is knocked Prone.")


_LOCATION_WORDS = {"vital": "vital area", "item": "held item"}


def _go_prone(work: Work, ident: str) -> None:
    work.put(ident, sheet=work.sheet(ident).model_copy(update={"prone": True}), stance="prone")


def _resolve_shove(self: StaticVeil, work: Work, a: Shove, plan: Plan) -> bool:
    actor, target = plan.actor, plan.target
    assert target is not None
    _spend(work, plan)
    if a.run_up:
        work.move(actor.id, plan.path)
        work.lines.append(
            f"{token_name(actor)} runs {metres(plan.movement_cost)} at {token_name(target)} "
            f"(+{work.settings.shove_runup_bonus} for the run-up)."
        )
    spec = plan.tests[0]
    o = _opposed(work, a.outcome, spec, actor, target)
    if not o.won:
        work.lines.append(f"{token_name(actor)} tries to shove {token_name(target)}: {_outcome_text(o, actor, target)}; "
                          f"{token_name(target)} holds their ground.")
        return False
    n = o.net_hits
    if n < len(plan.shove_ends):
        end = plan.shove_ends[n]
    else:
        moved = work.token(actor.id)
        enc_now = swap(work.enc, (moved,), work.enc.rules.get("static-veil"))
        ts = sheet_of(target)
        partner = ts.grapple.other if ts.grapple is not None else None
        end = shove_end(enc_now, actor.id, target, partner, plan.shove_direction or 0.0, n)
    work.move(target.id, ((target.x, target.y), end.end))
    if end.partner is not None and end.partner_end is not None:
        p = work.token(end.partner)
        work.move(end.partner, ((p.x, p.y), end.partner_end))
    text = (
        f"{token_name(actor)} shoves {token_name(target)} ({_outcome_text(o, actor, target)}): pushed "
        f"{metres(end.distance)} {space.compass(plan.shove_direction or 0.0)}"
    )
    if end.stopped_by:
        text += f", stopped by {end.stopped_by} after {metres(end.travelled)}"
    if end.partner is not None:
        text += f", {token_name(work.token(end.partner))} with them (the grapple holds)"
    work.lines.append(text + "; no attacks of opportunity.")
    return True


def _resolve_grapple(self: StaticVeil, work: Work, a: Grapple, plan: Plan) -> bool:
    actor, target = plan.actor, plan.target
    assert target is not None
    _spend(work, plan)
    o = _opposed(work, a.outcome, plan.tests[0], actor, target)
    if not o.won:
        work.lines.append(f"{token_name(actor)} tries to grapple {token_name(target)}: {_outcome_text(o, actor, target)}; "
                          "the attempt fails.")
        return False
    work.set_sheet(actor.id, grapple=GrappleLink(other=target.id, initiator=True))
    work.set_sheet(target.id, grapple=GrappleLink(other=actor.id, initiator=False))
    work.lines.append(f"{token_name(actor)} grapples {token_name(target)} ({_outcome_text(o, actor, target)}).")
    return True


def _unlink(work: Work, a_id: str, b_id: str) -> None:
    work.set_sheet(a_id, grapple=None)
    if has_token(work.enc, b_id):
        work.set_sheet(b_id, grapple=None)


def _resolve_release(self: StaticVeil, work: Work, a: Release, plan: Plan) -> None:
    partner = plan.partner
    if partner is None:
        work.set_sheet(plan.actor.id, grapple=None)
        work.lines.append(f"{token_name(plan.actor)} is no longer grappling (the partner left the map).")
        return None
    _unlink(work, plan.actor.id, partner.id)
    work.lines.append(f"{token_name(plan.actor)} releases {token_name(partner)} (Free Action).")
    return None


def _resolve_break_free(self: StaticVeil, work: Work, a: BreakFree, plan: Plan) -> bool:
    partner = plan.partner
    assert partner is not None
    _spend(work, plan)
    o = _opposed(work, a.outcome, plan.tests[0], plan.actor, partner)
    if not o.won:
        work.lines.append(f"{token_name(plan.actor)} struggles against {token_name(partner)}'s hold: "
                          f"{_outcome_text(o, plan.actor, partner)}; still grappled.")
        return False
    _unlink(work, plan.actor.id, partner.id)
    work.lines.append(f"{token_name(plan.actor)} breaks free of {token_name(partner)} ({_outcome_text(o, plan.actor, partner)}).")
    return True


def _resolve_pressure(self: StaticVeil, work: Work, a: ApplyPressure, plan: Plan) -> bool:
    partner = plan.partner
    assert partner is not None
    _spend(work, plan)
    o = _opposed(work, a.outcome, plan.tests[0], plan.actor, partner)
    if not o.won:
        work.lines.append(f"{token_name(plan.actor)} applies pressure to {token_name(partner)}: "
                          f"{_outcome_text(o, plan.actor, partner)}; no damage.")
        return False
    dm = work.sheet(plan.actor.id).damage_modifier
    raw = dm + o.net_hits
    pd = a.pd_hits
    if pd is None:
        spec = plan.tests[1]
        if work.settings.dice == "d100":
            since = len(work.dice.rolls)
            pd = work.dice.roll(token_name(partner), "passive defense", spec.actor_target or 0).hits
            _log_rolls(work, since)
        else:
            raise OutcomeNeededError(
                f"enter {token_name(partner)}'s Passive Defense hits (they reduce the Raw Damage of "
                f"{raw} by 1 each)", (spec,)
            )
    dealt = max(0, raw - pd)
    ps = work.sheet(partner.id)
    work.set_sheet(partner.id, damage_taken=ps.damage_taken + dealt)
    work.lines.append(
        f"{token_name(plan.actor)} applies pressure to {token_name(partner)} ({_outcome_text(o, plan.actor, partner)}): "
        f"Raw Damage {dm} + {o.net_hits} = {raw}, less {pd} Passive Defense hits = {dealt} damage (no armour)."
    )
    return True


def _resolve_takedown(self: StaticVeil, work: Work, a: Takedown, plan: Plan) -> bool:
    partner = plan.partner
    assert partner is not None
    _spend(work, plan)
    o = _opposed(work, a.outcome, plan.tests[0], plan.actor, partner)
    if not o.won:
        work.lines.append(f"{token_name(plan.actor)} tries to throw {token_name(partner)}: "
                          f"{_outcome_text(o, plan.actor, partner)}; both stay up.")
        return False
    _go_prone(work, partner.id)
    if a.release:
        _unlink(work, plan.actor.id, partner.id)
        work.lines.append(f"{token_name(plan.actor)} throws {token_name(partner)} down ({_outcome_text(o, plan.actor, partner)}) "
                          "and lets go: they are Prone.")
    else:
        _go_prone(work, plan.actor.id)
        work.lines.append(f"{token_name(plan.actor)} takes {token_name(partner)} down ({_outcome_text(o, plan.actor, partner)}) "
                          "and follows them to the ground, keeping the hold: both are Prone.")
    return True


def _resolve_move_grapple(self: StaticVeil, work: Work, a: MoveGrapple, plan: Plan) -> bool:
    partner = plan.partner
    assert partner is not None
    work.set_sheet(plan.actor.id, ap_left=work.sheet(plan.actor.id).ap - plan.ap_cost)
    if plan.tests:
        o = _opposed(work, a.outcome, plan.tests[0], plan.actor, partner)
        if not o.won:
            work.lines.append(f"{token_name(plan.actor)} tries to drag {token_name(partner)}: "
                              f"{_outcome_text(o, plan.actor, partner)}; neither moves.")
            return False
    s = work.sheet(plan.actor.id)
    work.set_sheet(plan.actor.id, movement_used=s.movement_used + plan.movement_cost)
    work.move(plan.actor.id, plan.path)
    work.move(partner.id, plan.partner_path)
    end = plan.end or (plan.actor.x, plan.actor.y)
    work.lines.append(
        f"{token_name(plan.actor)} drags {token_name(partner)} {metres(plan.movement_cost)} to "
        f"({end[0]:.1f}, {end[1]:.1f})."
    )
    return True


def _resolve_distraction(self: StaticVeil, work: Work, a: Distraction, plan: Plan) -> bool:
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
        work.lines.append(f"{token_name(actor)} tries to distract {token_name(target)} ({trick}): "
                          f"{_outcome_text(o, actor, target)}; no effect.")
        return False
    ts = work.sheet(target.id)
    level = ts.distracted + 1
    work.set_sheet(target.id, distracted=level, distracted_turns=work.settings.distracted_duration)
    work.lines.append(f"{token_name(actor)} distracts {token_name(target)} ({trick}; {_outcome_text(o, actor, target)}): "
                      f"{token_name(target)} is Distracted ({level}).")
    return True


def _resolve_stand(self: StaticVeil, work: Work, a: StandUp, plan: Plan) -> None:
    _spend(work, plan)
    work.put(plan.actor.id, sheet=work.sheet(plan.actor.id).model_copy(update={"prone": False}),
             stance="standing")
    work.lines.append(f"{token_name(plan.actor)} stands up.")
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
