"""Movement in a Combat Turn (seed 000): the walking and running budget of a token by this
pass, whether a move of so many metres is allowed now, and counting it (Run, the end of the
mover's own suppressive fire, the Reaction + Edge prompt for moving in a suppressive zone).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import IllegalActionError
from engine.model import Encounter
from engine.names import token_name
from engine.sr5 import condition
from engine.sr5.changes import Change, Edit, settings_of, sheet_of
from engine.names import name_of as _name
from engine.sr5.economy import (FREE, cost_reason, end_suppression_by, in_combat, log_entry, spend,
                                 suppressive_zone_text)


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


def cost_words(budget: MovementBudget, metres: float) -> str:
    """What moving ``metres`` more costs in this Combat Turn's movement: walking within the
    Walking rate open now, running (the Run Free Action) within the Running rate, or past
    it (the move is then the GM's word)."""
    total = budget.moved + max(0.0, metres)
    if total <= budget.walk_now + EPS:
        return f"walking: {total:.1f} of {budget.walk_now:.0f} m"
    if total <= budget.run_now + EPS:
        return f"running (Run, a Free Action): {total:.1f} of {budget.run_now:.0f} m"
    return f"past the Running rate: {total:.1f} of {budget.run_now:.0f} m"


def check_move(encounter: Encounter, tid: str, metres: float) -> str | None:
    """None when ``tid`` may move ``metres`` more now; else why not (not its phase, beyond its
    Running rate for this pass, no Free Action left for Run)."""
    if not (isinstance(metres, (int, float)) and math.isfinite(metres) and metres >= 0):
        return f"a move of {metres!r} metres is not a distance"
    st = settings_of(encounter)
    tok = encounter.token(tid)
    sh = sheet_of(tok)
    who = token_name(tok)
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
        reason = cost_reason(st, tid, sh, FREE, names=encounter)
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
    zones_through: Sequence[str] = (),
    force: bool = False,
) -> tuple[Encounter, Change]:
    """Count ``metres`` of movement for ``tid`` (the map move itself is the GUI's edit). Past
    the walking pace it takes the Run Free Action and marks the token running. Moving ends the
    token's own suppressive fire; moving into, out of or inside someone's active suppressive
    zone (``zones_before``/``zones_after``: zone ids the token is exposed in, before and
    after; prone or not, seed 001: "Characters who stand up or try to move before the
    suppressive fire action is over must make the test"), or through one on the way
    (``zones_through``: entered and left in the one move) raises a prompt for the Reaction +
    Edge test. A zero-metre move raises none."""
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
        # seed 001: "Characters who stand up or try to move before the suppressive fire action
        # is over must make the test": entering, leaving, and moving inside (a prone crawl too:
        # prone spares only one who keeps still)
        active = {s.zone for s in edit.settings.suppressions if s.shooter != tid}
        for z in sorted((set(zones_before) | set(zones_after)) & active):
            way = ("in" if z in zones_before else "into") if z in zones_after else "out of"
            edit.prompts.append(f"{who} moved {way} {suppressive_zone_text(edit.before, z)}: Reaction + Edge test due")
        for z in sorted(set(zones_through) & active - set(zones_before) - set(zones_after)):
            edit.prompts.append(f"{who} moved through {suppressive_zone_text(edit.before, z)}: Reaction + Edge test due")
    text = f"{who} moves {metres:.1f} m ({total:.1f} m this turn" + (", running" if sh.running else "") + ")"
    edit.log(log_entry(edit.settings, tid, "move", text))
    return edit.finish(text)
