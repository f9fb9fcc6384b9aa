"""The Combat Turn, one import away: initiative, passes, action phases, the action economy,
actions, movement (seed 000, sr5-facts.md).

The rules live in one module an idea; this module gathers their public names so callers can
keep writing ``from engine.sr5 import combat`` / ``combat.start_turn(...)``:

- :mod:`engine.sr5.initiative` - Initiative Scores, passes, Action Phases, the order of
  action, the combat log as text;
- :mod:`engine.sr5.economy` - the catalogue of actions and their costs (Free, Simple,
  Complex, interrupts), who may pay a cost now and why not, booking an action;
- :mod:`engine.sr5.actions` - the non-attack actions: check one, then apply it;
- :mod:`engine.sr5.movement` - the walking/running budget, checking and counting a move.

Check, then apply (like python-chess ``is_legal``/``push``): ``check_*`` answers None when an
action is allowed or a sentence saying why not; ``apply_*`` does it and returns
``(new_encounter, change)`` (:class:`engine.sr5.changes.Change`), refusing with
:class:`~engine.errors.IllegalActionError` unless ``force=True`` (the GM overrides).
"""

from __future__ import annotations

from engine.sr5.actions import (
    Action,
    action_cost,
    aim_cap,
    apply_action,
    available_actions,
    check_action,
    find_weapon,
    ready_weapons,
    wounded,
)
from engine.sr5.economy import (
    ACTIONS,
    ATTACK_ONLY,
    COMPLEX,
    FIRE_ACTIONS,
    FREE,
    INTERRUPT,
    KEEPS_AIM,
    KEEPS_RECOIL,
    SIMPLE,
    ActionSpec,
    PhaseBudget,
    check_cost,
    end_suppression_by,
    in_combat,
    log_entry,
    phase_budget,
    spend,
)
from engine.sr5.initiative import (
    action_order,
    end_phase,
    initiative_base,
    initiative_order,
    log_text,
    participants,
    start_turn,
)
from engine.sr5.movement import EPS, MovementBudget, apply_move, check_move, movement

__all__ = [
    "ACTIONS", "ATTACK_ONLY", "COMPLEX", "EPS", "FIRE_ACTIONS", "FREE", "INTERRUPT", "KEEPS_AIM",
    "KEEPS_RECOIL", "SIMPLE", "Action", "ActionSpec", "MovementBudget", "PhaseBudget",
    "action_cost", "action_order", "aim_cap", "apply_action", "apply_move", "available_actions",
    "check_action", "check_cost", "check_move", "end_phase", "end_suppression_by", "find_weapon",
    "in_combat", "initiative_base", "initiative_order", "log_entry", "log_text", "movement",
    "participants", "phase_budget", "ready_weapons", "spend", "start_turn", "wounded",
]
