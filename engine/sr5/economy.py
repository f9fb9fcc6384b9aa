"""The action economy of a Combat Turn (seed 000, sr5-facts.md): the catalogue of actions and
their costs, who may pay a cost now and why not, and booking an action on an edit.

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

from collections.abc import Sequence
from dataclasses import dataclass

from engine.model import Encounter
from engine.names import name_of, zone_name
from engine.sr5 import condition
from engine.sr5.changes import Edit, settings_of, sheet_of
from engine.sr5.sheet import LogEntry, RollRecord, Settings, Sheet


FREE, SIMPLE, COMPLEX, INTERRUPT = "free", "simple", "complex", "interrupt"
EDGE = "edge"  # an Edge action: one point of Edge, no action of the phase (engine.sr5.edge)


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
        ActionSpec("lucky_cover", "Lucky Cover (1 Edge)", FREE,
                   text="drop prone and be spared by enhanced or flechette suppressive fire (seed 001)"),
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
        # Edge actions (engine.sr5.edge): a point of Edge each, no action
        ActionSpec("second_chance", "Second Chance (1 Edge)", EDGE, text="reroll the dice of the last roll that missed"),
        ActionSpec("close_call", "Close Call (1 Edge)", EDGE, text="ignore a glitch; a critical glitch becomes a glitch"),
        ActionSpec("seize_initiative", "Seize the Initiative (1 Edge)", EDGE, text="act first in every pass this turn"),
        ActionSpec("blitz", "Blitz (1 Edge)", EDGE, text="5D6 initiative next turn (declared before it is rolled)"),
        ActionSpec("dead_mans_trigger", "Dead Man's Trigger (1 Edge)", EDGE,
                   text="going down: Body + Willpower (3) for one last Simple Action"),
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
EDGE_ACTION_IDS = ("second_chance", "close_call", "seize_initiative", "blitz", "dead_mans_trigger")
KEEPS_RECOIL = FIRE_ACTIONS + ("call_shot", "multiple_targets", "suppressive_fire") + EDGE_ACTION_IDS
KEEPS_AIM = ("take_aim", "call_shot") + EDGE_ACTION_IDS
#: What may follow a Call a Shot (seed 000: "must be immediately followed by a Take Aim, Fire
#: Weapon, Throw Weapon, or Melee Unarmed Attack"; Fire Weapon read as any firing of a gun at
#: a target, full auto included; docs/sr5.md).
CALLED_SHOT_FOLLOWERS = ("take_aim", "fire_weapon", "fire_automatic", "throw_weapon", "melee_attack",
                         "quick_draw_fire")


def called_shot_reason(sheet: Sheet, who: str, action_id: str, label: str | None = None) -> str | None:
    """Why ``action_id`` may not come now because a called shot is pending (None: it may)."""
    if not sheet.called_shot or action_id in CALLED_SHOT_FOLLOWERS or action_id in EDGE_ACTION_IDS:
        return None
    return (f"{who} has called a shot: {label or action_id} may not come between; the next action must be "
            "Take Aim, Fire Weapon, Throw Weapon or a Melee Attack")
ATTACK_ONLY = ("fire_weapon", "fire_automatic", "fire_vehicle_weapon", "melee_attack", "throw_weapon",
               "suppressive_fire", "block", "dodge", "parry", "intercept", "multiple_targets")


def in_combat(encounter_or_settings) -> bool:
    """Whether a Combat Turn is running (initiative rolled, a pass under way)."""
    s = encounter_or_settings if isinstance(encounter_or_settings, Settings) else settings_of(encounter_or_settings)
    return s.turn > 0 and s.initiative_pass > 0


def _name(encounter: Encounter, tid: str) -> str:
    """The token's display name (engine.names), for log lines and reasons."""
    return name_of(encounter, tid)


def log_entry(settings: Settings, actor: str | None, kind: str, text: str, rolls: Sequence[RollRecord] = ()) -> LogEntry:
    return LogEntry(
        turn=settings.turn, initiative_pass=settings.initiative_pass, actor=actor, kind=kind, text=text, rolls=tuple(rolls)
    )


def cost_reason(settings: Settings, tid: str, sheet: Sheet, cost: str, initiative: int = 0, anytime: bool = False,
                 *, names: Encounter | None = None) -> str | None:
    """Why ``tid`` cannot pay ``cost`` now (None when it can), naming the tokens by their names
    in ``names`` (the encounter; their ids without it). See module docstring."""
    who = name_of(names, tid) if names is not None else tid
    if not in_combat(settings) or cost in ("none", EDGE):
        return None
    if sheet.last_action and cost == SIMPLE:
        return None  # Dead Man's Trigger: one Simple Action now, down or not, in or out of its phase
    if not condition.can_act(sheet) and cost != "none":
        return f"{who} is {condition.status(sheet)} and cannot act"
    if cost == INTERRUPT:
        if "surprised" in sheet.conditions:
            return f"{who} is surprised and cannot take an interrupt action"
        if sheet.initiative is None:
            return f"{who} has no Initiative Score this turn"
        if settings.options.interrupt_needs_score and sheet.initiative < initiative:
            return f"{who} has Initiative {sheet.initiative}, less than the {initiative} this interrupt costs"
        return None
    ph = settings.phase
    if settings.acting == tid:
        if cost == COMPLEX:
            if ph.complex:
                return f"{who} has already taken a Complex Action this phase"
            if ph.simple:
                return f"{who} has taken {ph.simple} Simple Action{'s' if ph.simple > 1 else ''} this phase; a Complex Action needs the whole phase"
            if ph.free > 1:
                return f"{who} has taken an extra Free Action in place of a Simple Action; no Complex Action is left"
        elif cost == SIMPLE:
            if ph.complex:
                return f"{who} has taken a Complex Action this phase: no Simple Action is left"
            if ph.simple + max(0, ph.free - 1) >= 2:
                return f"{who} has used both Simple Actions of this phase"
        elif cost == FREE:
            if ph.complex and ph.free >= 1:
                return f"{who} has used the one Free Action a Complex Action leaves"
            if ph.simple + ph.free >= 3:
                return f"{who} has no action left this phase for another Free Action"
        return None
    if cost == FREE:
        if anytime:
            if "surprised" in sheet.conditions:
                return f"{who} is surprised and cannot drop prone"
            if tid in settings.free_spent:
                return f"{who} has used its Free Action this pass (Hit the Dirt costs 5 Initiative)"
            return None
        if tid not in settings.acted:
            return f"{who} may not take a Free Action before its first Action Phase of this pass"
        if tid in settings.free_spent:
            return f"{who} has used its Free Action this pass"
        return None
    now = (name_of(names, settings.acting) if names is not None else settings.acting) if settings.acting else "nobody"
    return f"{who} can take a {cost} action only in its own Action Phase (now it is {now}'s)"


def check_cost(encounter: Encounter, tid: str, cost: str, *, initiative: int = 0, anytime: bool = False) -> str | None:
    """Whether ``tid`` can pay an action of ``cost`` now (None) or why not."""
    return cost_reason(settings_of(encounter), tid, sheet_of(encounter.token(tid)), cost, initiative, anytime,
                        names=encounter)


def spend(edit: Edit, tid: str, action_id: str, cost: str, *, initiative: int = 0, anytime: bool = False) -> None:
    """Book an action on the edit: phase budget, Free Action of the pass, or Initiative; and
    its side effects on aim, progressive recoil and the actor's own suppressive fire."""
    st = edit.settings
    sh = edit.sheet(tid)
    if in_combat(st):
        if cost == INTERRUPT:
            sh = edit.update_sheet(tid, initiative=(sh.initiative or 0) - initiative)
        elif sh.last_action and cost == SIMPLE:
            sh = edit.update_sheet(tid, last_action=False)  # the Dead Man's Trigger action is taken
        elif st.acting == tid and cost not in ("none", EDGE):
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
    if sh.called_shot and action_id not in CALLED_SHOT_FOLLOWERS + ("call_shot",) + EDGE_ACTION_IDS:
        updates["called_shot"] = False  # forced by the GM: the call lapses
    if updates:
        edit.update_sheet(tid, **updates)
    if action_id != "suppressive_fire":
        end_suppression_by(edit, tid, "acts otherwise")


def suppressive_zone_text(encounter: Encounter, zone_id: str) -> str:
    """A suppressive zone as a prompt names it: its display name (engine.names), or
    "suppressive fire <id>" for a zone the encounter no longer holds."""
    return zone_name(encounter.zone(zone_id), encounter) if any(z.id == zone_id for z in encounter.zones) \
        else f"suppressive fire {zone_id}"


def end_suppression_by(edit: Edit, shooter: str, why: str) -> None:
    """End the suppressive fire ``shooter`` keeps up (it moved or acted otherwise)."""
    st = edit.settings
    mine = [s for s in st.suppressions if s.shooter == shooter]
    if mine:
        edit.update_settings(suppressions=tuple(s for s in st.suppressions if s.shooter != shooter))
        edit.log(log_entry(edit.settings, shooter, "suppression",
                           f"{name_of(edit.before, shooter)}'s suppressive fire ends: the shooter {why}"))


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
