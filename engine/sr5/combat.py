"""The Combat Turn: initiative, passes, action phases, the action economy, actions, movement.

Check, then apply (like python-chess ``is_legal``/``push``): ``check_*`` answers None when an
action is allowed or a sentence saying why not; ``apply_*`` does it and returns
``(new_encounter, change)`` (:class:`engine.sr5.changes.Change`), refusing with
:class:`~engine.errors.IllegalActionError` unless ``force=True`` (the GM overrides).

The turn (seed 000, sr5-facts.md):

- Initiative = Reaction + Intuition (+ bonus) + wound modifier + Nd6 (N = 1..5). Each pass
  ends by subtracting 10 from every score; those still above 0 act again. Order: highest
  score first, ties by Edge, then Reaction, then Intuition, then the GM's ``Settings.order``
  (then the tokens' order in the file).
- In its Action Phase a character takes two Simple Actions or one Complex Action, plus one
  Free Action; an extra Free Action may replace a Simple one. One attack per phase. A Free
  Action left over may be taken later in the pass, never before the character's first phase
  of the pass; Drop Prone may be taken at any time (not when surprised).
- Interrupts spend Initiative instead: Full Defense -10, Hit the Dirt, Block, Dodge, Parry,
  Intercept -5.
- Outside a running Combat Turn (``Settings.turn`` 0) there is no action economy: every
  action is allowed and costs nothing but its effect.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.errors import IllegalActionError
from engine.model import Encounter, Weapon
from engine.sr5 import condition
from engine.sr5.changes import Change, Edit, settings_of, sheet_of
from engine.sr5.dice import Roller, check_faces, default_roller
from engine.sr5.pools import Pool, base, mod, roll_pool, roll_record
from engine.sr5.sheet import LogEntry, PhaseUse, RollRecord, Settings, Sheet
from engine.sr5.tables import (
    CHOKES,
    UNARMED,
    has_choke,
    is_melee,
    physical_limit,
    smartlinked,
    weapon_modes,
    weapon_skill,
)

FREE, SIMPLE, COMPLEX, INTERRUPT = "free", "simple", "complex", "interrupt"


@dataclass(frozen=True)
class ActionSpec:
    """An action of seed 000: its cost (free/simple/complex/interrupt), the Initiative an
    interrupt spends, and what it does."""

    id: str
    label: str
    cost: str
    initiative: int = 0
    attack: bool = False
    text: str = ""


ACTIONS: dict[str, ActionSpec] = {
    a.id: a
    for a in (
        # free
        ActionSpec("call_shot", "Call a Shot", FREE, text="-4 to the next attack; must be followed by Take Aim or an attack"),
        ActionSpec("change_linked_mode", "Change Linked Device Mode", FREE),
        ActionSpec("drop_object", "Drop Object", FREE),
        ActionSpec("drop_prone", "Drop Prone", FREE, text="kneel or go prone, any time unless surprised"),
        ActionSpec("eject_clip", "Eject Smartgun Clip", FREE, text="a linked smartgun drops its clip"),
        ActionSpec("gesture", "Gesture", FREE),
        ActionSpec("speak", "Speak/Text Phrase", FREE),
        ActionSpec("run", "Run", FREE, text="move past the Walking rate; running modifiers"),
        ActionSpec("multiple_targets", "Multiple Targets", FREE, text="split the attack pool over targets"),
        # simple
        ActionSpec("change_gun_mode", "Change Gun Mode", SIMPLE, text="Free Action with a linked smartgun"),
        ActionSpec("change_choke", "Change Choke", SIMPLE, text="Free Action with a linked smartgun"),
        ActionSpec("fire_weapon", "Fire Weapon (SS, SA, BF, FA simple)", SIMPLE, attack=True),
        ActionSpec("insert_clip", "Insert Clip", SIMPLE),
        ActionSpec("observe_in_detail", "Observe in Detail", SIMPLE, text="a Perception Test"),
        ActionSpec("pick_up", "Pick Up/Put Down Object", SIMPLE),
        ActionSpec("quick_draw", "Quick Draw", SIMPLE, text="Pistols + Reaction (3): draw and fire at once"),
        ActionSpec("ready_weapon", "Ready Weapon", SIMPLE),
        ActionSpec("remove_clip", "Remove Clip", SIMPLE),
        ActionSpec("sprint", "Sprint", SIMPLE, text="Running + Strength [Physical]: +2 m per hit"),
        ActionSpec("stand_up", "Stand Up", SIMPLE, text="wounded: Body + Willpower (2)"),
        ActionSpec("take_aim", "Take Aim", SIMPLE, text="+1 die or +1 limit per action"),
        ActionSpec("throw_weapon", "Throw Weapon", SIMPLE, attack=True),
        ActionSpec("use_simple_object", "Use Simple Object", SIMPLE),
        # complex
        ActionSpec("fire_automatic", "Fire Automatic Weapon (SB, LB, FA complex)", COMPLEX, attack=True),
        ActionSpec("fire_vehicle_weapon", "Fire Mounted/Vehicle Weapon", COMPLEX, attack=True),
        ActionSpec("melee_attack", "Melee/Unarmed Attack", COMPLEX, attack=True),
        ActionSpec("reload", "Reload Firearm", COMPLEX, text="weapons without clips"),
        ActionSpec("use_complex_object", "Use Complex Object", COMPLEX),
        ActionSpec("use_skill", "Use Skill", COMPLEX),
        ActionSpec("suppressive_fire", "Suppressive Fire", COMPLEX, attack=True, text="20 rounds, a zone"),
        # interrupts
        ActionSpec("full_defense", "Full Defense", INTERRUPT, 10, text="+Willpower to defense for the turn"),
        ActionSpec("hit_the_dirt", "Hit the Dirt", INTERRUPT, 5, text="go prone out of turn"),
        ActionSpec("block", "Block", INTERRUPT, 5, text="+Unarmed Combat to a melee defense"),
        ActionSpec("dodge", "Dodge", INTERRUPT, 5, text="+Gymnastics to a melee defense"),
        ActionSpec("parry", "Parry", INTERRUPT, 5, text="+weapon skill to a melee defense"),
        ActionSpec("intercept", "Intercept", INTERRUPT, 5, text="a melee attack on someone passing (Free Action if one is left)"),
    )
}

FIRE_ACTIONS = ("fire_weapon", "fire_automatic", "fire_vehicle_weapon", "throw_weapon", "quick_draw_fire")
KEEPS_RECOIL = FIRE_ACTIONS + ("call_shot", "multiple_targets", "suppressive_fire")
KEEPS_AIM = ("take_aim", "call_shot")
ATTACK_ONLY = ("fire_weapon", "fire_automatic", "fire_vehicle_weapon", "melee_attack", "throw_weapon",
               "suppressive_fire", "block", "dodge", "parry", "intercept", "multiple_targets")


# ---------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------
def in_combat(encounter_or_settings) -> bool:
    """Whether a Combat Turn is running (initiative rolled, a pass under way)."""
    s = encounter_or_settings if isinstance(encounter_or_settings, Settings) else settings_of(encounter_or_settings)
    return s.turn > 0 and s.initiative_pass > 0


def _name(encounter: Encounter, tid: str) -> str:
    t = encounter.token(tid)
    return t.name or t.id


def log_entry(settings: Settings, actor: str | None, kind: str, text: str, rolls: Sequence[RollRecord] = ()) -> LogEntry:
    return LogEntry(
        turn=settings.turn, initiative_pass=settings.initiative_pass, actor=actor, kind=kind, text=text, rolls=tuple(rolls)
    )


def ready_weapons(token) -> tuple[str, ...]:
    """Names of the weapons in hand (main hand first); the first weapon when the sheet says
    nothing. Unarmed is always ready."""
    s = sheet_of(token)
    if s.in_hand is not None:
        return s.in_hand
    return (token.weapons[0].name,) if token.weapons else ()


def find_weapon(token, name: str | None) -> Weapon:
    """The token's weapon of that name (the first ready one when None; Unarmed by name)."""
    if name is not None and name.lower() == "unarmed":
        return UNARMED
    if name is None:
        ready = ready_weapons(token)
        name = ready[0] if ready else None
        if name is None:
            return UNARMED
    w = token.weapon(name)
    if w is None:
        have = ", ".join(w.name for w in token.weapons) or "none"
        raise IllegalActionError(f"{token.name or token.id} carries no weapon {name!r} (carries: {have})")
    return w


# ---------------------------------------------------------------------------------------------
# initiative
# ---------------------------------------------------------------------------------------------
def initiative_base(sheet: Sheet, settings: Settings | None = None) -> int:
    """Reaction + Intuition + bonus + wound modifier: the Initiative before dice."""
    opts = (settings or Settings()).options
    return sheet.reaction + sheet.intuition + sheet.initiative_bonus + condition.wound_modifier(sheet, opts)


def participants(encounter: Encounter) -> tuple[str, ...]:
    """Tokens in the fight: those with an sr5 sheet (all tokens when none has one)."""
    with_sheet = tuple(t.id for t in encounter.tokens if t.sr5 is not None)
    return with_sheet or tuple(t.id for t in encounter.tokens)


def _order_key(encounter: Encounter, settings: Settings, tid: str):
    s = sheet_of(encounter.token(tid))
    pref = settings.order.index(tid) if tid in settings.order else len(settings.order)
    file_pos = next(i for i, t in enumerate(encounter.tokens) if t.id == tid)
    return (-(s.initiative or 0), -s.edge, -s.reaction, -s.intuition, pref, file_pos)


def action_order(encounter: Encounter) -> tuple[str, ...]:
    """Who still acts in this pass, in order (the token now acting first)."""
    st = settings_of(encounter)
    if not in_combat(st):
        return ()
    ids = [
        t.id
        for t in encounter.tokens
        if t.id not in st.acted
        and t.sr5 is not None
        and (t.sr5.initiative or 0) > 0
        and condition.can_act(t.sr5)
    ]
    ids.sort(key=lambda i: (i != st.acting, _order_key(encounter, st, i)))
    return tuple(ids)


def initiative_order(encounter: Encounter) -> tuple[str, ...]:
    """Every token with an Initiative Score, best first (for the tracker), acted or not."""
    st = settings_of(encounter)
    ids = [t.id for t in encounter.tokens if sheet_of(t).initiative is not None and t.sr5 is not None]
    return tuple(sorted(ids, key=lambda i: _order_key(encounter, st, i)))


def start_turn(
    encounter: Encounter,
    dice: Roller | None = None,
    *,
    entered: Mapping[str, Sequence[int] | int] | None = None,
    who: Sequence[str] | None = None,
) -> tuple[Encounter, Change]:
    """Begin the next Combat Turn: roll (or take typed) initiative for every participant.

    ``entered[token]`` is either the faces of its initiative dice (exactly
    ``initiative_dice`` of them) or a whole Initiative Score typed by the GM; the others are
    rolled with ``dice`` (a seeded roller from ``Settings.seed`` when None). Resets the
    turn's movement, running, Full Defense; ends suppressive fire of earlier turns."""
    entered = dict(entered or {})
    edit = Edit(encounter)
    st = edit.settings
    roller = dice or default_roller(st)
    ids = tuple(who) if who is not None else participants(encounter)
    for k in entered:
        encounter.token(k)  # unknown ids fail here
    turn = st.turn + 1
    edit.update_settings(
        turn=turn,
        initiative_pass=1,
        acting=None,
        acted=(),
        free_spent=(),
        phase=PhaseUse(),
        suppressions=tuple(s for s in st.suppressions if s.turn >= turn),
    )
    st = edit.settings
    scores = {}
    for tid in ids:
        sh = edit.sheet(tid)
        b = initiative_base(sh, st)
        parts = (
            ("Reaction", sh.reaction),
            ("Intuition", sh.intuition),
            ("initiative bonus", sh.initiative_bonus),
            ("wounds", condition.wound_modifier(sh, st.options)),
        )
        given = entered.get(tid)
        if isinstance(given, bool):
            raise IllegalActionError(f"initiative for {tid}: {given!r} is not a score or dice")
        if isinstance(given, int):
            faces: tuple[int, ...] = ()
            score = given
            how = "entered"
        else:
            if given is not None:
                faces = check_faces(given, what=f"initiative dice of {tid}")
                if len(faces) != sh.initiative_dice:
                    raise IllegalActionError(
                        f"{tid} rolls {sh.initiative_dice}D6 initiative: enter {sh.initiative_dice} dice, not {len(faces)}"
                    )
                how = "dice entered"
            else:
                faces = roller.roll(sh.initiative_dice)
                how = "rolled"
            score = b + sum(faces)
        scores[tid] = score
        edit.update_sheet(
            tid, initiative=score, moved=0.0, running=False, sprinting=False, sprint_metres=0.0, full_defense=False, defended=0
        )
        rec = RollRecord(
            label=f"Initiative {_name(encounter, tid)}",
            pool=sh.initiative_dice,
            parts=parts,
            dice=tuple(faces),
            entered=how != "rolled",
        )
        edit.log(
            log_entry(st, tid, "initiative", f"{_name(encounter, tid)}: Initiative {b} + {sh.initiative_dice}D6 "
                      f"{list(faces) if faces else ''} = {score} ({how})", [rec])
        )
    edit.details["initiative"] = scores
    _start_next_phase(edit, encounter)
    new, ch = edit.finish(f"Combat Turn {turn}: initiative")
    return new, ch


def _current(edit: Edit, encounter: Encounter):
    """An encounter view with the edit's pending sheets (for ordering)."""
    tokens = tuple(edit.token(t.id) for t in encounter.tokens)
    return encounter.model_copy(update={"tokens": tokens, "sr5": edit.settings})


def _start_next_phase(edit: Edit, encounter: Encounter) -> None:
    """Hand the phase to the next actor of this pass, or end the pass (-10) or the turn."""
    for _ in range(200):  # passes; bounded for safety
        cur = _current(edit, encounter)
        st = edit.settings
        order = [i for i in action_order(cur) if i != st.acting]
        if order:
            nxt = order[0]
            edit.update_settings(acting=nxt, phase=PhaseUse(free=1 if nxt in st.free_spent else 0))
            edit.update_sheet(nxt, defended=0)
            edit.log(log_entry(edit.settings, nxt, "phase", f"Pass {st.initiative_pass}: {_name(encounter, nxt)} acts "
                               f"(Initiative {edit.sheet(nxt).initiative})"))
            return
        # end of the pass: everyone -10
        for t in cur.tokens:
            sh = sheet_of(t)
            if t.sr5 is not None and sh.initiative is not None:
                edit.update_sheet(t.id, initiative=sh.initiative - 10)
        cur = _current(edit, encounter)
        anyone = any(
            t.sr5 is not None and (sheet_of(t).initiative or 0) > 0 and condition.can_act(sheet_of(t)) for t in cur.tokens
        )
        if not anyone:
            ended = tuple(s for s in st.suppressions if s.turn <= st.turn)
            edit.update_settings(
                acting=None, initiative_pass=0, acted=(), free_spent=(), phase=PhaseUse(),
                suppressions=tuple(s for s in st.suppressions if s.turn > st.turn),
            )
            text = f"Combat Turn {st.turn} ends"
            if ended:
                text += "; suppressive fire ends: " + ", ".join(s.zone for s in ended)
            edit.log(log_entry(edit.settings, None, "turn", text))
            edit.prompts.append("The Combat Turn is over: roll initiative for the next one.")
            return
        edit.update_settings(initiative_pass=st.initiative_pass + 1, acted=(), free_spent=(), acting=None, phase=PhaseUse())
        edit.log(log_entry(edit.settings, None, "pass", f"Initiative Pass {edit.settings.initiative_pass} begins (-10)"))


def end_phase(encounter: Encounter) -> tuple[Encounter, Change]:
    """End the acting token's Action Phase and give the next one its phase (or end the pass,
    subtracting 10 from every score, or end the turn). A phase spent without firing resets
    progressive recoil (``Options.recoil_reset_by_idle_phase``)."""
    st = settings_of(encounter)
    if not in_combat(st):
        raise IllegalActionError("no Combat Turn is running: roll initiative first")
    edit = Edit(encounter)
    actor = st.acting
    if actor is not None:
        sh = edit.sheet(actor)
        if st.options.recoil_reset_by_idle_phase and not st.phase.attacked and sh.recoil:
            edit.update_sheet(actor, recoil=0)
        free_spent = st.free_spent + ((actor,) if st.phase.free and actor not in st.free_spent else ())
        edit.update_settings(acted=st.acted + (actor,), free_spent=free_spent)
    _start_next_phase(edit, encounter)
    label = f"End of {_name(encounter, actor)}'s phase" if actor else "Next phase"
    return edit.finish(label)


# ---------------------------------------------------------------------------------------------
# the action economy
# ---------------------------------------------------------------------------------------------
def _cost_reason(settings: Settings, tid: str, sheet: Sheet, cost: str, initiative: int = 0, anytime: bool = False) -> str | None:
    """Why ``tid`` cannot pay ``cost`` now (None when it can). See module docstring."""
    if not in_combat(settings) or cost == "none":
        return None
    if not condition.can_act(sheet) and cost != "none":
        return f"{tid} is {condition.status(sheet)} and cannot act"
    if cost == INTERRUPT:
        if "surprised" in sheet.conditions:
            return f"{tid} is surprised and cannot take an interrupt action"
        if sheet.initiative is None:
            return f"{tid} has no Initiative Score this turn"
        if settings.options.interrupt_needs_score and sheet.initiative < initiative:
            return f"{tid} has Initiative {sheet.initiative}, less than the {initiative} this interrupt costs"
        return None
    ph = settings.phase
    if settings.acting == tid:
        if cost == COMPLEX:
            if ph.complex:
                return f"{tid} has already taken a Complex Action this phase"
            if ph.simple:
                return f"{tid} has taken {ph.simple} Simple Action{'s' if ph.simple > 1 else ''} this phase; a Complex Action needs the whole phase"
            if ph.free > 1:
                return f"{tid} has taken an extra Free Action in place of a Simple Action; no Complex Action is left"
        elif cost == SIMPLE:
            if ph.complex:
                return f"{tid} has taken a Complex Action this phase: no Simple Action is left"
            if ph.simple + max(0, ph.free - 1) >= 2:
                return f"{tid} has used both Simple Actions of this phase"
        elif cost == FREE:
            if ph.complex and ph.free >= 1:
                return f"{tid} has used the one Free Action a Complex Action leaves"
            if ph.simple + ph.free >= 3:
                return f"{tid} has no action left this phase for another Free Action"
        return None
    if cost == FREE:
        if anytime:
            if "surprised" in sheet.conditions:
                return f"{tid} is surprised and cannot drop prone"
            if tid in settings.free_spent:
                return f"{tid} has used its Free Action this pass (Hit the Dirt costs 5 Initiative)"
            return None
        if tid not in settings.acted:
            return f"{tid} may not take a Free Action before its first Action Phase of this pass"
        if tid in settings.free_spent:
            return f"{tid} has used its Free Action this pass"
        return None
    now = settings.acting or "nobody"
    return f"{tid} can take a {cost} action only in its own Action Phase (now it is {now}'s)"


def check_cost(encounter: Encounter, tid: str, cost: str, *, initiative: int = 0, anytime: bool = False) -> str | None:
    """Whether ``tid`` can pay an action of ``cost`` now (None) or why not."""
    return _cost_reason(settings_of(encounter), tid, sheet_of(encounter.token(tid)), cost, initiative, anytime)


def spend(edit: Edit, tid: str, action_id: str, cost: str, *, initiative: int = 0, anytime: bool = False) -> None:
    """Book an action on the edit: phase budget, Free Action of the pass, or Initiative; and
    its side effects on aim, progressive recoil and the actor's own suppressive fire."""
    st = edit.settings
    sh = edit.sheet(tid)
    if in_combat(st):
        if cost == INTERRUPT:
            sh = edit.update_sheet(tid, initiative=(sh.initiative or 0) - initiative)
        elif st.acting == tid and cost != "none":
            ph = st.phase
            ph = ph.model_copy(update={
                "simple": ph.simple + (cost == SIMPLE),
                "complex": ph.complex + (cost == COMPLEX),
                "free": ph.free + (cost == FREE),
                "actions": ph.actions + (action_id,),
            })
            edit.update_settings(phase=ph)
        elif st.acting == tid:
            edit.update_settings(phase=st.phase.model_copy(update={"actions": st.phase.actions + (action_id,)}))
        elif cost == FREE and tid not in st.free_spent:
            edit.update_settings(free_spent=st.free_spent + (tid,))
    updates: dict = {}
    if action_id not in KEEPS_AIM and (sh.aim or sh.aim_magnified):
        updates.update(aim=0, aim_weapon=None, aim_magnified=False)
    resets = cost in (SIMPLE, COMPLEX, INTERRUPT) or (cost == FREE and st.options.recoil_reset_by_free)
    if action_id not in KEEPS_RECOIL and resets and sh.recoil:
        updates["recoil"] = 0
    if updates:
        edit.update_sheet(tid, **updates)
    if action_id != "suppressive_fire":
        end_suppression_by(edit, tid, "acts otherwise")


def end_suppression_by(edit: Edit, shooter: str, why: str) -> None:
    """End the suppressive fire ``shooter`` keeps up (it moved or acted otherwise)."""
    st = edit.settings
    mine = [s for s in st.suppressions if s.shooter == shooter]
    if mine:
        edit.update_settings(suppressions=tuple(s for s in st.suppressions if s.shooter != shooter))
        edit.log(log_entry(edit.settings, shooter, "suppression", f"suppressive fire in {', '.join(s.zone for s in mine)} "
                           f"ends: the shooter {why}"))


# ---------------------------------------------------------------------------------------------
# actions
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Action:
    """A non-attack action of ``actor``: ``id`` is a key of :data:`ACTIONS`.

    ``weapon`` for weapon actions; ``mode``/``choke`` for Change Gun Mode / Change Choke;
    ``hand`` ("main"/"off") for Ready Weapon; ``stance`` ("prone"/"crouched") for Drop Prone;
    ``magnify`` for a Take Aim spent lining up an image magnifier; ``aim_bonus`` ("pool"/"limit")
    what the aim raises; ``second_weapon`` for a two-pistol Quick Draw; ``zones`` the active
    suppressive zones the actor is inside (from the map) for Stand Up; ``note`` free text."""

    actor: str
    id: str
    weapon: str | None = None
    second_weapon: str | None = None
    mode: str | None = None
    choke: str | None = None
    hand: str = "main"
    stance: str = "prone"
    magnify: bool = False
    aim_bonus: str | None = None
    zones: tuple[str, ...] = ()
    note: str = ""


def aim_cap(sheet: Sheet, weapon: Weapon, settings: Settings) -> int:
    """The most Take Aim bonus that stacks: ceil(Willpower / 2) (seed 001, default) or half
    the weapon skill rounded down (seed 000), per ``Options.aim_cap``."""
    if settings.options.aim_cap == "half_skill_down":
        return sheet.skill(weapon_skill(weapon)) // 2
    return math.ceil(sheet.willpower / 2)


def action_cost(encounter: Encounter, action: Action) -> tuple[str, int]:
    """The cost of an action for this actor now: (free/simple/complex/interrupt, Initiative)."""
    spec = _spec(action.id)
    tok = encounter.token(action.actor)
    sh = sheet_of(tok)
    st = settings_of(encounter)
    cost = spec.cost
    if action.id in ("change_gun_mode", "change_choke") and action.weapon:
        w = tok.weapon(action.weapon)
        if w is not None and smartlinked(w, sh) and sh.wireless:
            cost = FREE
    if action.id == "sprint":
        cost = COMPLEX if st.options.sprint_action == "complex" else SIMPLE
    return cost, spec.initiative


def _spec(action_id: str) -> ActionSpec:
    try:
        return ACTIONS[action_id]
    except KeyError:
        raise IllegalActionError(f"unknown action {action_id!r}; known: {', '.join(ACTIONS)}") from None


def wounded(sheet: Sheet, settings: Settings) -> bool:
    """For Stand Up: any box of damage (default) or a wound modifier below 0."""
    if settings.options.wounded_means == "wound_modifier":
        return condition.wound_modifier(sheet, settings.options) < 0
    return sheet.physical_damage > 0 or sheet.stun_damage > 0


def check_action(encounter: Encounter, action: Action) -> str | None:
    """None when ``action`` is allowed now, else the reason in the GM's words."""
    spec = _spec(action.id)
    if action.id in ATTACK_ONLY:
        return f"{spec.label} is declared with an attack (engine.sr5.attack.plan_attack)"
    tok = encounter.token(action.actor)
    sh = sheet_of(tok)
    st = settings_of(encounter)
    who = tok.name or tok.id
    cost, ini = action_cost(encounter, action)
    anytime = action.id == "drop_prone"
    reason = _cost_reason(st, action.actor, sh, cost, ini, anytime)
    if reason:
        return reason
    if not condition.can_act(sh):
        return f"{who} is {condition.status(sh)} and cannot act"
    wid = action.id
    needs_weapon = wid in ("take_aim", "ready_weapon", "change_gun_mode", "change_choke", "remove_clip", "eject_clip",
                           "insert_clip", "reload", "quick_draw")
    w: Weapon | None = None
    if needs_weapon:
        if not action.weapon:
            return f"{spec.label} needs a weapon"
        w = tok.weapon(action.weapon)
        if w is None:
            return f"{who} carries no weapon {action.weapon!r}"
        if wid not in ("ready_weapon", "quick_draw") and w.name not in ready_weapons(tok):
            return f"{w.name} is not ready: Ready Weapon first (Simple Action)"
    if wid == "take_aim":
        assert w is not None
        if is_melee(w):
            return "Take Aim needs a ranged weapon"
        stacked = sh.aim if sh.aim_weapon == w.name else 0
        cap = aim_cap(sh, w, st)
        if action.magnify:
            if "image_magnification" not in sh.vision:
                return f"{who} has no image magnification"
            if sh.aim_magnified and sh.aim_weapon == w.name:
                return "the image magnifier is already lined up"
        elif stacked >= cap:
            return f"{who} already has the most aim that stacks ({cap})"
    elif wid == "ready_weapon":
        assert w is not None
        if w.name in ready_weapons(tok):
            return f"{w.name} is already ready"
        if action.hand not in ("main", "off"):
            return f"hand {action.hand!r} is not main or off"
    elif wid == "change_gun_mode":
        assert w is not None
        modes = weapon_modes(w)
        if action.mode not in modes:
            return f"{w.name} fires {', '.join(modes) or 'in no modes'}; not {action.mode!r}"
    elif wid == "change_choke":
        assert w is not None
        if not has_choke(w):
            return f"{w.name} has no choke (only shotguns firing flechettes or shot)"
        if action.choke not in CHOKES:
            return f"choke {action.choke!r} is not narrow, medium or wide"
    elif wid in ("remove_clip", "eject_clip"):
        assert w is not None
        if w.reload not in (None, "c"):
            return f"{w.name} has no clip (it loads {w.reload}): Reload Firearm"
        if w.ammo is None:
            return f"{w.name} takes no ammunition"
        if w.loaded is None:
            return f"{w.name} has no clip in"
        if wid == "eject_clip" and not (smartlinked(w, sh) and sh.wireless):
            return f"ejecting the clip by thought needs a linked wireless smartgun: Remove Clip (Simple Action)"
    elif wid == "insert_clip":
        assert w is not None
        if w.reload not in (None, "c") or w.ammo is None:
            return f"{w.name} takes no clips"
        if w.loaded is not None:
            return f"{w.name} still has a clip in: Remove Clip first"
        if w.spare_clips is not None and w.spare_clips <= 0:
            return f"{who} has no spare clip for {w.name}"
    elif wid == "reload":
        assert w is not None
        if w.ammo is None:
            return f"{w.name} takes no ammunition"
        if w.reload in (None, "c"):
            return f"{w.name} loads clips: Remove Clip, then Insert Clip"
        if (w.loaded or 0) >= w.ammo:
            return f"{w.name} is fully loaded"
    elif wid == "quick_draw":
        assert w is not None
        if weapon_skill(w) != "pistols":
            return f"only pistols can be quick-drawn; {w.name} is not one"
        modes = [m for m in weapon_modes(w) if m in ("SS", "SA", "BF", "FA")]
        if not modes:
            return f"{w.name} cannot be fired with a Simple Action"
        if st.phase.attacked and st.acting == action.actor:
            return f"{who} has already attacked this phase (one attack per Action Phase)"
        if action.second_weapon and tok.weapon(action.second_weapon) is None:
            return f"{who} carries no weapon {action.second_weapon!r}"
    elif wid == "drop_prone":
        if action.stance not in ("prone", "crouched"):
            return f"Drop Prone goes prone or kneels, not {action.stance!r}"
        if tok.stance == action.stance:
            return f"{who} is already {tok.stance}"
    elif wid == "hit_the_dirt":
        if tok.stance == "prone":
            return f"{who} is already prone"
    elif wid == "full_defense":
        if sh.full_defense:
            return f"{who} is already on Full Defense this turn"
    elif wid == "stand_up":
        if tok.stance == "standing":
            return f"{who} is already standing"
    elif wid == "run":
        if sh.running:
            return f"{who} is already running"
    elif wid == "sprint":
        if not sh.running and in_combat(st):
            return f"{who} must be running to sprint: Run first (Free Action)"
    return None


def apply_action(
    encounter: Encounter,
    action: Action,
    dice: Roller | Sequence[int] | None = None,
    *,
    force: bool = False,
) -> tuple[Encounter, Change]:
    """Do ``action``; tests it needs (Stand Up when wounded, Sprint, Quick Draw) roll with
    ``dice`` (a roller or typed faces; a seeded roller when None). Refuses with
    :class:`IllegalActionError` when :func:`check_action` objects, unless ``force``."""
    reason = check_action(encounter, action)
    if reason and not (force and action.id not in ATTACK_ONLY):
        raise IllegalActionError(reason)
    st = settings_of(encounter)
    roller = dice if dice is not None else default_roller(st)
    tok = encounter.token(action.actor)
    who = tok.name or tok.id
    edit = Edit(encounter)
    cost, ini = action_cost(encounter, action)
    spend(edit, action.actor, action.id, cost, initiative=ini, anytime=action.id == "drop_prone")
    sh = edit.sheet(action.actor)
    spec = ACTIONS[action.id]
    text = f"{who}: {spec.label}"
    rolls: list[RollRecord] = []
    wid = action.id
    w = tok.weapon(action.weapon) if action.weapon else None

    def set_weapon(new: Weapon) -> None:
        t = edit.token(action.actor)
        edit.set_token(t.model_copy(update={"weapons": tuple(new if x.name == new.name else x for x in t.weapons)}))

    def set_stance(stance: str) -> None:
        edit.set_token(edit.token(action.actor).model_copy(update={"stance": stance}))

    if wid == "take_aim":
        assert w is not None
        if action.magnify:
            edit.update_sheet(action.actor, aim_magnified=True, aim_weapon=w.name,
                              aim=sh.aim if sh.aim_weapon == w.name else 0)
            text += f" with {w.name}, lining up the image magnifier (range one band better)"
        else:
            prev = sh.aim if sh.aim_weapon == w.name else 0
            upd = {"aim": prev + 1, "aim_weapon": w.name}
            if action.aim_bonus in ("pool", "limit"):
                upd["aim_bonus"] = action.aim_bonus
            new = edit.update_sheet(action.actor, **upd)
            what = "dice and limit" if (smartlinked(w, new) and new.wireless) else ("dice" if new.aim_bonus == "pool" else "limit")
            text += f" with {w.name}: +{prev + 1} {what}"
    elif wid == "ready_weapon":
        assert w is not None
        hands = list(ready_weapons(edit.token(action.actor)))
        hands = [h for h in hands if h != w.name]
        if action.hand == "main":
            hands = [w.name] + hands[1:2]
        else:
            hands = (hands[:1] or []) + [w.name]
        edit.update_sheet(action.actor, in_hand=tuple(hands))
        text += f": {w.name} in the {action.hand} hand"
    elif wid == "change_gun_mode":
        assert w is not None
        edit.update_sheet(action.actor, modes={**sh.modes, w.name: action.mode})
        text += f": {w.name} to {action.mode}" + (" (smartgun, Free Action)" if cost == FREE else "")
    elif wid == "change_choke":
        assert w is not None
        edit.update_sheet(action.actor, chokes={**sh.chokes, w.name: action.choke})
        text += f": {w.name} to {action.choke} choke" + (" (smartgun, Free Action)" if cost == FREE else "")
    elif wid in ("remove_clip", "eject_clip"):
        assert w is not None
        set_weapon(w.model_copy(update={"loaded": None}))
        text += f": {w.name} ({w.loaded} rounds left in the clip)"
    elif wid == "insert_clip":
        assert w is not None
        spare = None if w.spare_clips is None else w.spare_clips - 1
        set_weapon(w.model_copy(update={"loaded": w.ammo, "spare_clips": spare}))
        text += f": {w.name} loaded with {w.ammo} rounds" + (f", {spare} spare clips left" if spare is not None else "")
    elif wid == "reload":
        assert w is not None
        set_weapon(w.model_copy(update={"loaded": w.ammo}))
        text += f": {w.name} filled to {w.ammo} rounds"
    elif wid == "drop_prone":
        set_stance(action.stance)
        text += f": now {action.stance}"
    elif wid == "hit_the_dirt":
        set_stance("prone")
        text += f": prone (Initiative -{ini})"
    elif wid == "full_defense":
        edit.update_sheet(action.actor, full_defense=True)
        text += f": +defense for the rest of the turn (Initiative -{ini})"
    elif wid == "run":
        edit.update_sheet(action.actor, running=True)
    elif wid == "stand_up":
        if wounded(sh, st):
            pool = Pool(
                f"Stand Up {who}",
                (
                    base("body", "Body", sh.body),
                    base("willpower", "Willpower", sh.willpower),
                    mod("wounds", "wounds", condition.wound_modifier(sh, st.options), "sheet"),
                ),
                threshold=2,
            )
            pool = _with_suppression(pool, edit.settings, action.actor, sh, action.zones)
            res = roll_pool(pool, roller)
            rolls.append(roll_record(pool, res))
            edit.details["test"] = res
            if res.success:
                set_stance("standing")
                text += f" (wounded): {res.describe()}: stands"
            else:
                text += f" (wounded): {res.describe()}: stays {tok.stance}"
        else:
            set_stance("standing")
        if edit.token(action.actor).stance == "standing":
            active = {s.zone for s in edit.settings.suppressions if s.shooter != action.actor}
            for z in action.zones:
                if z in active:
                    edit.prompts.append(f"{who} stood up in suppressive fire {z}: Reaction + Edge test due")
    elif wid == "sprint":
        pool = Pool(
            f"Sprint {who}",
            (base("running", "Running", sh.skill("running")), base("strength", "Strength", sh.strength),
             mod("wounds", "wounds", condition.wound_modifier(sh, st.options), "sheet")),
            (base("physical", "Physical limit", physical_limit(sh)),),
        )
        res = roll_pool(pool, roller)
        rolls.append(roll_record(pool, res))
        per = 1 if sh.metatype in ("dwarf", "troll") else 2
        extra = res.hits * per
        edit.update_sheet(action.actor, sprinting=True, sprint_metres=sh.sprint_metres + extra)
        edit.details["test"] = res
        text += f": {res.describe()}: +{extra} m this turn"
    elif wid == "quick_draw":
        assert w is not None
        threshold = 3 if action.second_weapon is None else 4
        if "quick_draw_holster" in sh.qualities:
            threshold -= 1
        pool = Pool(
            f"Quick Draw {who}",
            (base("pistols", "Pistols", sh.skill("pistols")), base("reaction", "Reaction", sh.reaction),
             mod("wounds", "wounds", condition.wound_modifier(sh, st.options), "sheet")),
            threshold=threshold,
        )
        res = roll_pool(pool, roller)
        rolls.append(roll_record(pool, res))
        edit.details["test"] = res
        if res.critical_glitch:
            text += f": {res.describe()}: the pistol is flung away or misfires in the holster"
        elif res.glitch:
            text += f": {res.describe()}: the pistol sticks in the holster or is dropped"
        else:
            names = [w.name] + ([action.second_weapon] if action.second_weapon else [])
            edit.update_sheet(action.actor, in_hand=tuple(names))
            if res.success:
                if in_combat(st) and st.acting == action.actor:
                    edit.update_settings(phase=edit.settings.phase.model_copy(update={"quick_draw_fire": True}))
                edit.details["fire"] = True
                text += f": {res.describe()}: drawn, and fires with the same action"
            else:
                text += f": {res.describe()}: drawn, but cannot fire with this action"
    elif action.note:
        text += f": {action.note}"
    edit.log(log_entry(edit.settings, action.actor, wid, text, rolls))
    return edit.finish(text)


def _with_suppression(pool: Pool, settings: Settings, tid: str, sheet: Sheet, near_zones: Sequence[str]) -> Pool:
    from engine.sr5.suppressive import suppression_modifier

    m = suppression_modifier(settings, tid, sheet, near_zones)
    return pool.with_part(m) if m is not None else pool


# ---------------------------------------------------------------------------------------------
# movement
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MovementBudget:
    """Metres a token may have moved by now this Combat Turn.

    ``walk``/``run`` are the turn's rates (``Sheet.walk_rate``/``run_rate`` when set, else
    Agility x 2 and x 4; plus Sprint metres); ``walk_now``
    and ``run_now`` the part of them open by this pass (rates split evenly over the passes
    the token acts in, ``Options.movement_split``); ``moved`` metres already moved."""

    walk: float
    run: float
    walk_now: float
    run_now: float
    moved: float
    running: bool
    passes: int

    @property
    def left(self) -> float:
        """Metres the token may still move now (running if it must)."""
        return max(0.0, self.run_now - self.moved)

    @property
    def walk_left(self) -> float:
        return max(0.0, self.walk_now - self.moved)


def movement(encounter: Encounter, tid: str) -> MovementBudget:
    """The token's movement budget now (see :class:`MovementBudget`)."""
    st = settings_of(encounter)
    sh = sheet_of(encounter.token(tid))
    walk = sh.walk_rate if sh.walk_rate is not None else 2.0 * sh.agility
    run = (sh.run_rate if sh.run_rate is not None else 4.0 * sh.agility) + sh.sprint_metres
    frac, passes = 1.0, 1
    if in_combat(st) and st.options.movement_split == "per_pass":
        score = sh.initiative or 0
        future = math.ceil(score / 10) if score > 0 else 0
        passes = max(1, st.initiative_pass - 1 + future)
        frac = min(1.0, st.initiative_pass / passes)
    return MovementBudget(walk, run, walk * frac, run * frac, sh.moved, sh.running, passes)


EPS = 1e-6


def check_move(encounter: Encounter, tid: str, metres: float) -> str | None:
    """None when ``tid`` may move ``metres`` more now; else why not (not its phase, beyond its
    Running rate for this pass, no Free Action left for Run)."""
    if not (isinstance(metres, (int, float)) and math.isfinite(metres) and metres >= 0):
        return f"a move of {metres!r} metres is not a distance"
    st = settings_of(encounter)
    tok = encounter.token(tid)
    sh = sheet_of(tok)
    who = tok.name or tok.id
    if not in_combat(st):
        return None
    if not condition.can_act(sh):
        return f"{who} is {condition.status(sh)} and cannot move"
    if st.acting != tid:
        return f"{who} moves in its own Action Phase (now it is {st.acting or 'nobody'}'s)"
    b = movement(encounter, tid)
    total = sh.moved + metres
    if total > b.run_now + EPS:
        more = " (Sprint for more)" if not sh.sprinting else ""
        return (f"{who} may run {b.run_now:.1f} m by this pass and has moved {sh.moved:.1f} m: "
                f"{metres:.1f} m more is too far{more}")
    if total > b.walk_now + EPS and not sh.running:
        reason = _cost_reason(st, tid, sh, FREE)
        if reason:
            return f"moving past walking pace needs Run (a Free Action): {reason}"
    return None


def apply_move(
    encounter: Encounter,
    tid: str,
    metres: float,
    *,
    zones_before: Sequence[str] = (),
    zones_after: Sequence[str] = (),
    force: bool = False,
) -> tuple[Encounter, Change]:
    """Count ``metres`` of movement for ``tid`` (the map move itself is the GUI's edit). Past
    the walking pace it takes the Run Free Action and marks the token running. Moving ends the
    token's own suppressive fire; moving into or out of someone's active suppressive zone
    (``zones_before``/``zones_after``: zone ids the token is exposed in) raises a prompt for
    the Reaction + Edge test."""
    reason = check_move(encounter, tid, metres)
    if reason and not force:
        raise IllegalActionError(reason)
    edit = Edit(encounter)
    st = edit.settings
    sh = edit.sheet(tid)
    who = _name(encounter, tid)
    b = movement(encounter, tid)
    total = sh.moved + float(metres)
    ran = False
    if in_combat(st) and total > b.walk_now + EPS and not sh.running:
        spend(edit, tid, "run", FREE)
        ran = True
    sh = edit.update_sheet(tid, moved=total, running=sh.running or ran)
    if metres > 0:
        end_suppression_by(edit, tid, "moves")
    active = {s.zone for s in edit.settings.suppressions if s.shooter != tid}
    crossed = (set(zones_before) ^ set(zones_after)) & active
    for z in sorted(crossed):
        way = "into" if z in zones_after else "out of"
        edit.prompts.append(f"{who} moved {way} suppressive fire {z}: Reaction + Edge test due")
    text = f"{who} moves {metres:.1f} m ({total:.1f} m this turn" + (", running" if sh.running else "") + ")"
    edit.log(log_entry(edit.settings, tid, "move", text))
    return edit.finish(text)


# ---------------------------------------------------------------------------------------------
# for the initiative tracker and the log dock
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PhaseBudget:
    """What ``token`` may still do now: Simple and Complex Actions left in its phase, Free
    Actions left (in or out of its phase), and whether it may still attack this phase."""

    token: str
    own_phase: bool
    simple: int
    complex: int
    free: int
    attack: bool

    def describe(self) -> str:
        if not self.own_phase:
            return f"{self.free} Free Action{'s' if self.free != 1 else ''} (not its phase)"
        bits = []
        if self.complex:
            bits.append("1 Complex or")
        bits.append(f"{self.simple} Simple")
        bits.append(f"+ {self.free} Free")
        if not self.attack:
            bits.append("(has attacked)")
        return " ".join(bits)


def phase_budget(encounter: Encounter, tid: str) -> PhaseBudget:
    """The actions ``tid`` has left now (see :class:`PhaseBudget`); outside a Combat Turn
    everything is open (2 Simple, 1 Complex, 1 Free)."""
    st = settings_of(encounter)
    encounter.token(tid)
    if not in_combat(st):
        return PhaseBudget(tid, True, 2, 1, 1, True)
    if st.acting != tid:
        free = 1 if (tid in st.acted and tid not in st.free_spent) else 0
        return PhaseBudget(tid, False, 0, 0, free, False)
    ph = st.phase
    if ph.complex:
        return PhaseBudget(tid, True, 0, 0, max(0, 1 - ph.free), not ph.attacked)
    simple = max(0, 2 - ph.simple - max(0, ph.free - 1))
    free = max(0, 3 - ph.simple - ph.free)
    cplx = 1 if (ph.simple == 0 and ph.free <= 1) else 0
    return PhaseBudget(tid, True, simple, cplx, free, not ph.attacked)


def available_actions(encounter: Encounter, tid: str, weapon: str | None = None) -> list[tuple[ActionSpec, str | None]]:
    """Every non-attack action with None when ``tid`` may take it now (with ``weapon`` for
    weapon actions), or the reason it may not: for a menu that greys out what is refused."""
    out = []
    for spec in ACTIONS.values():
        if spec.id in ATTACK_ONLY:
            continue
        w = weapon if spec.id in ("take_aim", "ready_weapon", "change_gun_mode", "change_choke", "remove_clip",
                                  "eject_clip", "insert_clip", "reload", "quick_draw") else None
        try:
            reason = check_action(encounter, Action(tid, spec.id, weapon=w, mode="SA", choke="narrow"))
        except IllegalActionError as exc:
            reason = str(exc)
        out.append((spec, reason))
    return out


def log_text(encounter: Encounter) -> str:
    """The combat log as plain text (for export): one line per entry, then each roll's pool
    breakdown, dice and hits indented below it."""
    st = settings_of(encounter)
    lines = []
    for e in st.log:
        head = f"[T{e.turn}.{e.initiative_pass}] " if e.turn else ""
        lines.append(head + e.text)
        for r in e.rolls:
            parts = " ".join(f"{lbl} {v:+d}" for lbl, v in r.parts)
            lim = f" [limit {r.limit}]" if r.limit is not None else ""
            dice = " ".join(str(d) for d in r.dice)
            extra = " (entered)" if r.entered else ""
            lines.append(f"    {r.label}: {parts} = {r.pool}{lim}; dice {dice or '-'}{extra} -> {r.hits} hits"
                         + (" GLITCH" if r.glitch and not r.critical_glitch else "")
                         + (" CRITICAL GLITCH" if r.critical_glitch else ""))
    return "\n".join(lines) + ("\n" if lines else "")
