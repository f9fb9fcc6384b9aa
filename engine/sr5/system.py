"""Shadowrun 5e's door: its :class:`~engine.rules.RuleSystem` (``"sr5"``), the one way the
window plans, rolls (one test at a time) and applies its actions.

Not a second set of rules: every answer is the sr5 modules' own
(:mod:`engine.sr5.actions`, :mod:`~engine.sr5.attack`, :mod:`~engine.sr5.suppressive`,
:mod:`~engine.sr5.blast`, :mod:`~engine.sr5.initiative`, :mod:`~engine.sr5.movement`).
The actions it takes are those modules' values:

- :class:`engine.sr5.actions.Action` (Take Aim, Run, Drop Prone, Reload ...);
- :class:`engine.sr5.attack.AttackDeclaration` (measured on the map,
  :func:`engine.sr5.facts.facts_from_map`), :class:`engine.sr5.suppressive.SuppressiveDeclaration`,
  :class:`engine.sr5.blast.BlastDeclaration`;
- :class:`StartTurn`, :class:`EndPhase` and :class:`SuppressionTest` below (the turn's own
  steps), :class:`Forced` (the GM's word over the rules' objection).

Each phase is one hook dispatched on the type of the value it is given
(``functools.singledispatchmethod``, as ``chess.Move`` is one type per variant): ``_plan``,
``_why_not``, ``_preview``, ``_rolling`` and ``_land`` each register one method per action,
plan or result type, so a new action is a new registration, not a branch of a switch.
:meth:`SR5.resolve` rolls a plan's tests (all, or ``steps`` at a time) into a resolution that
:meth:`SR5.apply` lands. ``dice`` is what the module takes: a roller, typed faces, or None
for the encounter's seeded roller. ``Outcome.detail`` is the sr5 :class:`~engine.sr5.changes.Change`
(prompts, the rolls' pools).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import singledispatchmethod
from typing import Union

from engine import rules
from engine.errors import IllegalActionError
from engine.model import Encounter
from engine.sr5.actions import Action, action_cost, apply_action, available_actions, check_action, hands, ready_weapons
from engine.sr5.attack import AttackDeclaration, AttackPlan, AttackResolution, apply_attack, plan_attack
from engine.sr5.blast import BlastDeclaration, BlastPlan, BlastResolution, apply_blast, landing_facts, plan_blast_on_map
from engine.sr5.changes import Change, settings_of, sheet_of
from engine.sr5.condition import monitor, physical_boxes, status, stun_boxes
from engine.sr5.dice import Roller, SeededRoller
from engine.sr5.economy import ACTIONS, SIMPLE, check_cost, in_combat
from engine.sr5.environment import range_aids
from engine.sr5.facts import MapFacts, TargetFacts, TokenFacts, facts, facts_from_map, zones_swept
from engine.sr5.initiative import action_order, end_phase, log_entry_lines, start_turn
from engine.sr5.intercept import intercept_chances
from engine.sr5.movement import apply_move, check_move, cost_words, movement
from engine.sr5.sheet import Settings, Sheet
from engine.sr5.suppressive import (
    SuppressionTestPlan, SuppressionTestResolution, SuppressiveDeclaration, SuppressivePlan, apply_suppression_test,
    apply_suppressive, plan_suppression_test, plan_suppressive, suppression_status,
)
from engine.sr5.tables import smartlinked
from engine.vision import Vision


@dataclass(frozen=True)
class StartTurn:
    """Begin the next Combat Turn; ``entered`` maps a token to its typed initiative dice
    faces or a whole score (``engine.sr5.initiative.start_turn``)."""

    entered: Mapping[str, Sequence[int] | int] = field(default_factory=dict)


@dataclass(frozen=True)
class EndPhase:
    """End the acting token's Action Phase (``engine.sr5.initiative.end_phase``)."""


@dataclass(frozen=True)
class CountMove:
    """Count ``metres`` of movement the GM measured for ``token`` (``movement.apply_move``),
    with the suppressive zones it was exposed in before and after, and those it passed
    through on the way (not read from the map)."""

    token: str
    metres: float
    zones_before: tuple[str, ...] = ()
    zones_after: tuple[str, ...] = ()
    zones_through: tuple[str, ...] = ()


@dataclass(frozen=True)
class SuppressionTest:
    """``token``'s Reaction + Edge test against suppressive zone ``zone`` (its ``index``-th
    test this turn), and the soak when it fails (``suppressive.plan_suppression_test``)."""

    token: str
    zone: str
    index: int = 0


@dataclass(frozen=True)
class Declared:
    """A declaration with the GM's hand on it: ``overrides`` of pool parts
    (``{"key", "value", "target"?, "pool"?}``, as the GUI's pool editor makes them) and,
    for an attack at a table without the map, ``facts`` typed in
    (``engine.sr5.facts.MapFacts``) instead of measured."""

    declaration: SR5Action
    overrides: tuple[Mapping[str, str | int | None], ...] = ()
    facts: MapFacts | None = None


@dataclass(frozen=True)
class Forced:
    """``value`` (an action, a declaration, a rolled result) applied although the rules
    object: the GM's word ("GM: allow anyway"). An attack-only action stays refused."""

    value: SR5Action | SR5Result


#: Shadowrun's typed values of the four phases (``RuleSystem[Action, Plan, Dice, Result, Detail]``;
#: the detail of an outcome: :class:`~engine.sr5.changes.Change`).
SR5Action = Union[Action, AttackDeclaration, SuppressiveDeclaration, BlastDeclaration, SuppressionTest,
                  StartTurn, EndPhase, CountMove, Declared, Forced]
#: a declaration's plan (pools with every die's source), or an action's cost (cost, Initiative)
SR5Plan = Union[AttackPlan, SuppressivePlan, BlastPlan, SuppressionTestPlan, tuple[str, int]]
#: a roller (``engine.sr5.dice``), the typed faces of one test, or of each test in order
SR5Dice = Union[Roller, Sequence[int], Sequence[Sequence[int]]]
#: the rolls so far (step by step) or all of them; suppressive fire rolls inside ``apply``
SR5Result = Union[AttackResolution, BlastResolution, SuppressionTestResolution, SuppressivePlan]


class SR5(rules.RuleSystem[SR5Action, SR5Plan, SR5Dice, SR5Result, Change]):
    name = "sr5"
    label = "Shadowrun 5th edition"
    Sheet = Sheet
    Settings = Settings
    legacy_key = "sr5"
    uses_range_bands = True
    default = True  # a file that names no ruleset is a Shadowrun one (format version 1)

    # -- data --------------------------------------------------------------------------------
    def strength(self, token) -> int | None:
        """The Strength that scales thrown weapons' ranges (None without an sr5 sheet)."""
        s = token.rules.get(self.name)
        return None if s is None else s.strength

    def ready_weapon(self, encounter, token):
        """The weapon in the main hand (``actions.ready_weapons``: the sheet's ``in_hand``,
        the first weapon when it says nothing, never one lying on the ground); with empty
        hands the first weapon not on the ground (the one the attack page offers, marked
        "not ready"); None when there is none."""
        for name in ready_weapons(token):
            w = token.weapon(name)
            if w is not None:
                return w
        dropped = set(sheet_of(token).dropped)
        return next((w for w in token.weapons if w.name not in dropped), None)

    def range_aids(self, encounter, token, weapon) -> int:
        """An improved rangefinder with the smartgun's smartlink, an image magnifier lined
        up, tracer rounds: each one band off the range modifier (``environment.range_aids``,
        the range column the attack page takes)."""
        if self.name not in token.rules:
            return 0
        sheet = sheet_of(token)
        return len(range_aids(sheet, smartlinked(weapon, sheet)))

    # -- light and vision --------------------------------------------------------------------
    def light_level(self, encounter):
        """The light column of the encounter's environment (``environment.light``); an
        encounter without sr5 settings has the plain setting ``sight.light``."""
        s = encounter.rules.get(self.name)
        return encounter.sight.light if s is None else s.environment.light

    def with_light_level(self, encounter, level):
        """The environment's light column set to ``level`` (and the plain setting, so the
        encounter keeps it under another rule system)."""
        enc = super().with_light_level(encounter, level)
        st = settings_of(encounter)
        env = st.environment.model_copy(update={"light": level})
        return enc.with_rules(self.name, st.model_copy(update={"environment": env}))

    def vision(self, encounter, token):
        """The sheet's ``vision``: thermographic, else low-light, else normal; the metres
        seen in total darkness are ``Token.vision_range`` (a light the runner carries)."""
        s = token.rules.get(self.name)
        aids = set(s.vision) if s is not None else set()
        kind = "thermographic" if "thermographic" in aids else "low_light" if "low_light" in aids else "normal"
        return Vision(kind, float(token.vision_range or 0.0))

    # -- movement ----------------------------------------------------------------------------
    def movement(self, encounter, token_id):
        """Walking and Running rates this Combat Turn (``movement.movement``: the sheet's
        ``walk_rate``/``run_rate``, else Agility x 2 / x 4, plus Sprint metres) and the metres
        left now; None for a token without an sr5 sheet."""
        if encounter.token(token_id).rules.get(self.name) is None:
            return None
        b = movement(encounter, token_id)
        return rules.Movement(walk=float(b.walk), run=float(b.run), left=float(b.left))

    def move_cost(self, encounter, token_id, metres):
        """Walking, running or past the Running rate (``movement.cost_words``); "" for a
        token without an sr5 sheet."""
        if encounter.token(token_id).rules.get(self.name) is None:
            return ""
        return cost_words(movement(encounter, token_id), metres)

    def on_moves(self, encounter, moves):
        """Make the moves; during a Combat Turn count each mover's metres (straight, or
        along its path) with ``movement.apply_move``: Run past the walking rate, the end of
        its own suppressive fire, a Reaction + Edge test when it moves into, out of, inside or
        through someone's zone (``facts.zones_swept`` along the path). A
        move past the rules' limit is counted anyway (the GM's word) and said in the notes.
        Each enemy who may intercept the mover along the drag's path
        (``intercept.intercept_chances``) is offered in the notes ("Intercept: ...") and its
        :class:`~engine.sr5.intercept.InterceptChance` is in ``detail``; the GM answers with
        ``AttackDeclaration(intercept=True)``."""
        after = rules.move_tokens(encounter, moves)
        if not in_combat(encounter):
            return rules.Outcome.of(encounter, after, rules.moves_label(encounter, moves))
        enc = after
        notes: list[str] = []
        details = []
        log: list[str] = []
        supp = bool(settings_of(after).suppressions)
        offers = []
        for m in moves:
            t = encounter.token(m.token)
            metres = m.length_from((t.x, t.y))
            if metres <= 1e-6 or t.rules.get(self.name) is None:
                continue
            for c in intercept_chances(encounter, m.token, (*(m.path or ()), m.to)):
                offers.append(c)
                notes.append(c.describe(encounter))
            zb = za = zt = ()
            if supp:
                fb = facts_from_map(encounter, m.token, [], options=settings_of(encounter).options).token(m.token)
                fa = facts_from_map(enc, m.token, [], options=settings_of(enc).options).token(m.token)
                zb, za = fb.in_zones, fa.in_zones
                # a zone the drag passes through, outside it (or behind full cover) at both ends
                ends = set(zb + fb.covered_zones + za + fa.covered_zones)
                zt = tuple(z for z in zones_swept(encounter, m.token, [(t.x, t.y), *(m.path or ()), m.to])
                           if z not in ends)
            why = check_move(enc, m.token, metres)
            enc, change = apply_move(enc, m.token, metres, zones_before=zb, zones_after=za, zones_through=zt,
                                     force=True)
            details.append(change)
            log += [e.text for e in change.log]
            notes.append(change.label + (f" \u2014 counted anyway: {why}" if why else ""))
            notes += [f"\u2192 {p}" for p in change.prompts]
        return rules.Outcome.of(encounter, enc, rules.moves_label(encounter, moves), log=log, notes=notes,
                                detail=tuple(details) + tuple(offers))

    # -- actions: one hook a phase, dispatched on the type of the value ---------------------
    def actions(self, encounter, actor, target=None):
        """The attack (declared with targets) and every other action of the catalogue, each
        allowed now or with the reason (``actions.available_actions``)."""
        tok = encounter.token(actor)
        ready = ready_weapons(tok)
        reason = check_cost(encounter, actor, SIMPLE)
        if reason is None and not ready:
            reason = "no weapon is ready: Ready Weapon first"
        out = [rules.Option("attack", "Attack", reason)]
        w = self.ready_weapon(encounter, tok)
        weapon = w.name if w is not None else None
        for spec, why in available_actions(encounter, actor, weapon):
            out.append(rules.Option(spec.id, spec.label, why, None if why else Action(actor, spec.id, weapon=weapon)))
        return out

    @singledispatchmethod
    def _plan(self, action, encounter, tactics=None, facts=None):
        """The module's plan of a declaration (the pools, why it is not allowed), measured on
        the map (from ``tactics`` when the caller has the encounter's); None: no declaration."""
        return None

    @_plan.register
    def _(self, action: Declared, encounter, tactics=None, facts=None):
        plan = self._plan(action.declaration, encounter, tactics, action.facts)
        for o in action.overrides:
            plan = plan.override(o["key"], o["value"], target=o.get("target"), pool=o.get("pool", "attack"))
        return plan

    @_plan.register
    def _(self, action: SuppressionTest, encounter, tactics=None, facts=None):
        return plan_suppression_test(encounter, action.token, action.zone, action.index)

    @_plan.register
    def _(self, action: AttackDeclaration, encounter, tactics=None, facts=None):
        if facts is None:  # measured on the map ("Unarmed", the rules' own weapon: with no weapon)
            weapon = action.weapon
            if weapon is not None and encounter.token(action.attacker).weapon(weapon) is None:
                weapon = None
            facts = facts_from_map(encounter, action.attacker, list(action.targets), weapon,
                                   options=settings_of(encounter).options, tactics=tactics)
        return plan_attack(encounter, action, facts)

    @_plan.register
    def _(self, action: SuppressiveDeclaration, encounter, tactics=None, facts=None):
        f = facts_from_map(encounter, action.shooter, [], action.weapon, settings_of(encounter).options,
                           tactics=tactics)
        return plan_suppressive(encounter, action, f)

    @_plan.register
    def _(self, action: BlastDeclaration, encounter, tactics=None, facts=None):
        return plan_blast_on_map(encounter, action, tactics=tactics)

    def why_not(self, encounter: Encounter, action: SR5Action) -> str | None:
        return self._why_not(action, encounter)

    @singledispatchmethod
    def _why_not(self, action, encounter):
        """A declaration: its plan's problems (a value of no kind the system knows: said so)."""
        try:
            plan = self._plan(action, encounter)
        except IllegalActionError as exc:
            return exc.reason
        if plan is None:
            return f"Shadowrun has no action {type(action).__name__}"
        return "; ".join(getattr(plan, "problems", ())) or None

    @_why_not.register(Forced)  # (a class each: Python 3.10 registers no union annotation)
    @_why_not.register(StartTurn)
    @_why_not.register(CountMove)
    def _(self, action, encounter):
        return None

    @_why_not.register
    def _(self, action: Action, encounter):
        try:
            return check_action(encounter, action)
        except IllegalActionError as exc:
            return str(exc)

    @_why_not.register
    def _(self, action: EndPhase, encounter):
        return None if in_combat(encounter) else "no Combat Turn is running"

    def preview(self, encounter: Encounter, action: SR5Action, *, tactics=None) -> SR5Plan:
        """The plan of a declaration (pools with every die's source, ``problems``: it is
        planned although refused, so the GM sees why), the cost of an
        :class:`~engine.sr5.actions.Action` (refused: :class:`IllegalActionError`), changing
        nothing; ``Forced(action)``: the cost it would take although refused (the tracker
        lists every action with its cost)."""
        return self._preview(action, encounter, tactics)

    @singledispatchmethod
    def _preview(self, action, encounter, tactics):
        plan = self._plan(action, encounter, tactics)
        if plan is None:
            raise IllegalActionError(self.why_not(encounter, action) or "nothing to preview")
        return plan

    @_preview.register
    def _(self, action: Forced, encounter, tactics):
        if not isinstance(action.value, Action):
            raise IllegalActionError("nothing to preview")
        return action_cost(encounter, action.value)

    @_preview.register
    def _(self, action: Action, encounter, tactics):
        reason = self.why_not(encounter, action)
        if reason:
            raise IllegalActionError(reason)
        return action_cost(encounter, action)

    def resolve(self, plan: SR5Plan | SR5Result, dice: SR5Dice | None = None, *, steps=None, tactics=None) -> SR5Result:
        """The rolls of an attack, a blast or a suppression test, in ``next_roll`` order:
        all of them (``steps`` None) or ``steps`` more (the GM rolls Shadowrun one test at a
        time; 0: the resolution with nothing rolled), of ``plan`` (a plan, or the resolution
        rolled so far). ``dice``: a roller (None: a fresh one), a list of face lists, one per
        test (too few or too many is an :class:`IllegalActionError` naming the missing test
        or the count needed), or for one test its faces. A blast that scattered is measured
        where it landed (``blast.landing_facts``, from ``tactics`` when given) before its
        next test. Other plans (an action's cost, suppressive fire, which rolls in
        ``apply``) are their own result."""
        r = self._rolling(plan)
        if r is None:
            return plan

        def landed(r):
            return r.land(landing_facts(r.plan.encounter, r, tactics)) if getattr(r, "needs_facts", False) else r

        dice = SeededRoller() if dice is None else dice
        lists = None  # typed faces, one list per test
        if not hasattr(dice, "roll"):
            one = steps == 1 and not (dice and isinstance(dice[0], Sequence))
            lists = [list(dice)] if one else [list(x) for x in dice]
        rolled = 0
        while steps is None or rolled < steps:
            r = landed(r)
            req = r.next_roll()
            if req is None:
                if steps is not None:
                    raise IllegalActionError("no test is left to roll")
                break
            if lists is not None and rolled >= len(lists):
                raise IllegalActionError(f"dice for {req.label} are missing ({len(lists)} rolls given)")
            r = r.roll(dice if lists is None else lists[rolled])
            rolled += 1
        if lists is not None and rolled < len(lists):
            what = {AttackResolution: "the attack", BlastResolution: "the blast"}.get(type(r), "the test")
            raise IllegalActionError(f"{len(lists)} rolls given but {what} needed {rolled}")
        return landed(r)

    @singledispatchmethod
    def _rolling(self, plan):
        """The resolution a plan's tests roll into (a resolution: itself); None: nothing to roll."""
        return None

    @_rolling.register(AttackResolution)  # (a class each: Python 3.10 registers no union annotation)
    @_rolling.register(BlastResolution)
    @_rolling.register(SuppressionTestResolution)
    def _(self, plan):
        return plan

    @_rolling.register
    def _(self, plan: AttackPlan):
        return AttackResolution(plan)

    @_rolling.register
    def _(self, plan: BlastPlan):
        return BlastResolution(plan)

    @_rolling.register
    def _(self, plan: SuppressionTestPlan):
        return SuppressionTestResolution(plan)

    def apply(self, encounter: Encounter, action: SR5Action | SR5Result,
              dice: SR5Dice | None = None) -> rules.Outcome[Change]:
        """Resolve and apply (a declaration, an action, a step of the turn), or land a
        result ``resolve`` rolled (an ``AttackResolution``, ``BlastResolution``,
        ``SuppressionTestResolution``, or a ``SuppressivePlan`` whose test rolls here with
        ``dice``); :class:`Forced` applies it although the rules object. For a
        declaration the resolved rolls stay in the outcome (``detail.details["resolution"]``:
        hits, soak, scatter, landing)."""
        return self._land(action, encounter, dice, False)

    @staticmethod
    def _landed(encounter, after, change) -> rules.Outcome:
        """The outcome of a module's (encounter, change)."""
        return rules.Outcome.of(encounter, after, change.label, log=[e.text for e in change.log],
                                notes=change.prompts, detail=change)

    @singledispatchmethod
    def _land(self, action, encounter, dice, force):
        """A declaration: planned, resolved with ``dice`` and landed (its rolls kept in the
        outcome)."""
        plan = self._plan(action, encounter)
        if plan is None:
            raise IllegalActionError(self.why_not(encounter, action))
        if getattr(plan, "problems", ()) and not force:
            raise IllegalActionError("; ".join(plan.problems))
        result = self.resolve(plan, dice)  # (suppressive fire: the plan itself, rolled in apply)
        outcome = self.apply(encounter, Forced(result) if force else result, dice)
        if result is not plan:  # (the rolls it resolved stay in the outcome)
            outcome.detail.details["resolution"] = result
        return outcome

    @_land.register
    def _(self, action: Forced, encounter, dice, force):
        return self._land(action.value, encounter, dice, True)

    @_land.register
    def _(self, action: Action, encounter, dice, force):
        return self._landed(encounter, *apply_action(encounter, action, dice, force=force))

    @_land.register
    def _(self, action: StartTurn, encounter, dice, force):
        return self._landed(encounter, *start_turn(encounter, dice, entered=action.entered or None))

    @_land.register
    def _(self, action: EndPhase, encounter, dice, force):
        reason = self.why_not(encounter, action)
        if reason:
            raise IllegalActionError(reason)
        return self._landed(encounter, *end_phase(encounter))

    @_land.register
    def _(self, action: CountMove, encounter, dice, force):
        return self._landed(encounter, *apply_move(encounter, action.token, action.metres,
                                                   zones_before=action.zones_before, zones_after=action.zones_after,
                                                   zones_through=action.zones_through))

    @_land.register
    def _(self, action: AttackResolution, encounter, dice, force):
        return self._landed(encounter, *apply_attack(encounter, action, force=force))

    @_land.register
    def _(self, action: BlastResolution, encounter, dice, force):
        return self._landed(encounter, *apply_blast(encounter, action, force=force))

    @_land.register
    def _(self, action: SuppressionTestResolution, encounter, dice, force):
        return self._landed(encounter, *apply_suppression_test(encounter, action))

    @_land.register
    def _(self, action: SuppressivePlan, encounter, dice, force):
        return self._landed(encounter, *apply_suppressive(encounter, action, dice, force=force))

    # -- golden files and other JSON ---------------------------------------------------------
    def action_from_data(self, data) -> SR5Action:
        """An action from its JSON form: ``{"kind": K, ...fields}`` with ``K`` one of
        ``start_turn`` (``entered``), ``end_phase``, ``count_move``, ``attack``, ``blast``,
        ``suppressive``, ``suppression_test``, or an action id of the catalogue
        (``take_aim``, ``run`` ...: an :class:`~engine.sr5.actions.Action`); ``overrides``
        and ``facts`` (``{"targets": {id: {...}}, "tokens": {id: {...}}}``) make it
        :class:`Declared`."""
        body = dict(data)
        kind = body.pop("kind")
        overrides = tuple(body.pop("overrides", ()))
        typed = body.pop("facts", None)
        simple = {"start_turn": StartTurn, "end_phase": EndPhase, "count_move": CountMove,
                  "suppression_test": SuppressionTest, "blast": BlastDeclaration, "suppressive": SuppressiveDeclaration}
        tupled = {k: tuple(v) if isinstance(v, list) else v for k, v in body.items()}
        if kind == "attack":
            action: SR5Action = AttackDeclaration(**tupled)
        elif kind in simple:
            action = simple[kind](**(body if kind == "start_turn" else tupled))
        elif kind in ACTIONS:
            action = Action(id=kind, **tupled)
        else:
            raise IllegalActionError(f"Shadowrun has no action kind {kind!r}")
        if overrides or typed is not None:
            f = None
            if typed is not None:
                f = facts([TargetFacts(t, **v) for t, v in typed.get("targets", {}).items()],
                          {t: TokenFacts(**{k: tuple(x) if isinstance(x, list) else x for k, x in v.items()})
                           for t, v in typed.get("tokens", {}).items()})
            action = Declared(action, overrides, f)
        return action

    # -- status ------------------------------------------------------------------------------
    def token_status(self, encounter, token_id):
        """The condition monitor (boxes taken of each track, wound modifier, state) and
        the turn's running / Full Defense marks of a token with an sr5 sheet."""
        s = encounter.token(token_id).rules.get(self.name)
        if s is None:
            return ()
        m = monitor(s, settings_of(encounter).options)
        out = [f"Physical {m.physical}/{m.physical_boxes}", f"Stun {m.stun}/{m.stun_boxes}"]
        if m.overflow:
            out.append(f"Overflow {m.overflow}/{m.overflow_boxes}")
        if m.wound_modifier:
            out.append(f"Wounds {m.wound_modifier}")
        if m.status != "ok":
            out.append(m.status.capitalize())
        if s.initiative is not None:
            out.append(f"Initiative {s.initiative}")
        if s.in_hand is not None or s.dropped:  # what it holds, once it has changed
            main, off = hands(encounter.token(token_id))
            out.append(f"Hands: {main or 'empty'} / {off or 'empty'}")
        if s.dropped:
            out.append("On the ground: " + ", ".join(s.dropped))
        if s.running:
            out.append("Running")
        if s.full_defense:
            out.append("Full Defense")
        return tuple(out)

    def condition(self, encounter, token_id) -> str:
        """"ok", "unconscious", "dying" or "dead" (``condition.status`` of its sheet)."""
        return status(sheet_of(encounter.token(token_id)))

    def suppression(self, encounter, observer: str, token_id: str):
        """What suppressive fire means for ``token_id`` now, measured from ``observer``'s
        map facts (``suppressive.suppression_status``): its penalty, the zones it must test
        against, those it is spared from (with why); zeros and empties when none."""
        s = suppression_status(encounter, facts_from_map(encounter, observer, [])).get(token_id)
        return {"penalty": s.penalty if s else 0, "must_test": list(s.must_test) if s else [],
                "spared": [list(x) for x in s.spared] if s else []}

    def condition_tracks(self, encounter, token_id):
        """The Physical and Stun monitors (boxes, ``condition.physical_boxes``/``stun_boxes``)."""
        s = encounter.token(token_id).rules.get(self.name)
        if s is None:
            return ()
        p, st = physical_boxes(s), stun_boxes(s)
        return (rules.Track("Physical", min(s.physical_damage, p), p), rules.Track("Stun", min(s.stun_damage, st), st))

    def round_status(self, encounter):
        """"Combat Turn T, pass P" while a turn runs; empty outside one."""
        s = encounter.rules.get(self.name)
        if s is None or s.turn <= 0:
            return ""
        return f"Combat Turn {s.turn}, pass {s.initiative_pass}" if s.initiative_pass else f"Combat Turn {s.turn}"

    def current_turn(self, encounter):
        """The acting token and "pass P, phase N" (N: the Action Phases had in this pass,
        the acting one included) while a Combat Turn runs; "pass P" between actors; None
        outside one."""
        s = encounter.rules.get(self.name)
        if s is None or s.turn <= 0 or s.initiative_pass <= 0:
            return None
        if s.acting is None:
            return rules.Turn(None, f"pass {s.initiative_pass}")
        return rules.Turn(s.acting, f"pass {s.initiative_pass}, phase {len(s.acted) + 1}")

    def round_number(self, encounter):
        """The Combat Turn (0 before the first)."""
        s = encounter.rules.get(self.name)
        return max(0, s.turn) if s is not None else 0

    def action_order(self, encounter) -> tuple[str, ...]:
        """Who still acts in this pass, in order, the acting token first (``initiative.action_order``)."""
        return action_order(encounter)

    def entry_lines(self, entry):
        """The entry as the exported log writes it: ``[T1.2] text``, then each roll."""
        return tuple(log_entry_lines(entry))


SYSTEM = rules.register(SR5())

__all__ = ["SR5", "SYSTEM", "CountMove", "Declared", "EndPhase", "Forced", "SR5Action", "SR5Dice", "SR5Plan",
           "SR5Result", "StartTurn", "SuppressionTest"]
