"""The steps every sr5 attack shares: pool parts the rules add alike (wounds, a running or
busy shooter, smartlink, Edge); when it is applied, the attacker's action spent (aim, Edge,
ammunition), a defender's defense counted, damage marked; and the log text of glitches,
defenses and soaks.

Used by :mod:`engine.sr5.attack`, :mod:`engine.sr5.blast` and :mod:`engine.sr5.suppressive`;
only what they do the same way lives here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.model import Encounter
from engine.sr5 import condition
from engine.sr5.changes import Edit
from engine.sr5.economy import INTERRUPT, in_combat, spend
from engine.errors import IllegalActionError
from engine.sr5.dice import TestResult
from engine import names
from engine.sr5.pools import Modifier, Pool, mod
from engine.sr5.sheet import Options, Sheet

#: Initiative an interrupt defense costs (SR5 p. 168-169).
INTERRUPT_COST = {"full_defense": 10, "block": 5, "dodge": 5, "parry": 5}


def name_of(encounter: Encounter, tid: str) -> str:
    """The token's name for the log, its id when it has none (engine.names)."""
    return names.name_of(encounter, tid)


def find_roll(rolls: Sequence[tuple[str, str, TestResult]], target: str, step: str) -> TestResult | None:
    """The result of ``step`` for ``target`` among ``(target, step, result)`` rolls, or None."""
    for t, s, r in rolls:
        if t == target and s == step:
            return r
    return None


# -- pool parts -------------------------------------------------------------------------------
def wound_parts(sheet: Sheet, options: Options) -> list[Modifier]:
    """The wound modifier as a pool part (none when it is 0)."""
    wound = condition.wound_modifier(sheet, options)
    return [mod("wounds", "wound modifier", wound, "sheet")] if wound else []


def running_parts(sheet: Sheet, options: Options) -> list[Modifier]:
    """The ranged attacker's penalty for running or sprinting this turn (none when still)."""
    if not sheet.running:
        return []
    v = options.sprinter_attack_penalty if sheet.sprinting else options.runner_attack_penalty
    return [mod("running", "attacker sprinting" if sheet.sprinting else "attacker running", v, "sheet")]


def busy_shooter_parts(sheet: Sheet, token_facts) -> list[Modifier]:
    """A ranged attacker's penalties for being in melee (on the map or marked), firing from
    cover with an imaging device, and shooting from a moving vehicle."""
    out = []
    if token_facts.in_melee or "in_melee" in sheet.conditions:
        out.append(mod("in_melee", "attacker in melee combat", -3, "map"))
    if "firing_from_cover" in sheet.conditions:
        out.append(mod("from_cover", "firing from cover with an imaging device", -3, "sheet"))
    if "in_moving_vehicle" in sheet.conditions:
        out.append(mod("vehicle", "attacker in a moving vehicle", -2, "sheet"))
    return out


def smartlink_parts(sheet: Sheet, dice: int) -> list[Modifier]:
    """``dice`` of wireless smartlink bonus as a pool part (none when 0)."""
    return [mod("smartlink", f"wireless smartlink ({sheet.smartlink})", dice, "sheet")] if dice else []


def edge_parts(sheet: Sheet, edge: bool) -> list[Modifier]:
    """Push the Limit: the attacker's Edge added to the pool when declared."""
    return [mod("edge", "Edge (Push the Limit)", sheet.edge, "declaration")] if edge else []


# -- applying -----------------------------------------------------------------------------------
def mark_attacked(edit: Edit, tid: str, *, quick_draw: bool = True) -> None:
    """During a Combat Turn with ``tid`` acting, note that it attacked this phase (and,
    with ``quick_draw``, that Quick Draw fire is used up)."""
    if in_combat(edit.settings) and edit.settings.acting == tid:
        upd = ({"attacked": True, "quick_draw_fire": False, "quick_draw_guns": ()} if quick_draw
               else {"attacked": True})
        edit.update_settings(phase=edit.settings.phase.model_copy(update=upd))


def end_aim(edit: Edit, tid: str, edge: bool, **extra) -> None:
    """The attacker's sheet after an attack: aim is lost, Edge spent when ``edge``, plus
    ``extra`` sheet fields (e.g. recoil)."""
    sh = edit.sheet(tid)
    upd: dict = {"aim": 0, "aim_weapon": None, "aim_magnified": False}
    upd.update(extra)
    if edge:
        upd["edge_points"] = max(0, sh.edge_left - 1)
    edit.update_sheet(tid, **upd)


def unload(edit: Edit, tid: str, names: Iterable[str | None], rounds: int) -> None:
    """Take ``rounds`` from the loaded ammunition of ``tid``'s weapons named in ``names``
    (weapons that track no ammunition are left alone; never below 0)."""
    names = tuple(names)
    tok = edit.token(tid)
    edit.set_token(tok.model_copy(update={"weapons": tuple(
        x.model_copy(update={"loaded": max(0, x.loaded - rounds)}) if x.name in names and x.loaded is not None
        else x for x in tok.weapons)}))


def count_defense(edit: Edit, tid: str, choice: str, interrupt_cost: int) -> None:
    """A defender's defense: its interrupt action paid (Initiative ``interrupt_cost``; it
    costs aim, recoil and own suppression), one more defense since its last action, and
    Full Defense kept for the turn."""
    if interrupt_cost and choice in INTERRUPT_COST:
        spend(edit, tid, choice, INTERRUPT, initiative=interrupt_cost)
    tsh = edit.sheet(tid)
    tupd: dict = {"defended": tsh.defended + 1}
    if choice == "full_defense":
        tupd["full_defense"] = True
    edit.update_sheet(tid, **tupd)


def mark_damage(edit: Edit, tid: str, boxes: int, damage_type: str):
    """Mark ``boxes`` of ``damage_type`` on ``tid``'s sheet in ``edit`` (overflow as
    ``condition.apply_damage`` says); during a Combat Turn a new wound modifier lowers its
    Initiative Score at once. Returns the ``condition.DamageResult``."""
    st = edit.settings
    new, dres = condition.apply_damage(edit.sheet(tid), boxes, damage_type, st.options)
    delta = dres.wound_after - dres.wound_before
    if delta and new.initiative is not None and in_combat(st):
        new = new.model_copy(update={"initiative": new.initiative + delta})
    edit.set_sheet(tid, new)
    return dres


def glitch_note(res: TestResult | None, who: str) -> str:
    """``"; who CRITICAL GLITCH"``, ``"; who glitches"`` or ``""`` for a log line."""
    if res is None:
        return ""
    if res.critical_glitch:
        return f"; {who} CRITICAL GLITCH"
    if res.glitch:
        return f"; {who} glitches"
    return ""


def defense_step(target: str, pool: Pool, res: TestResult) -> str:
    """The story line of a defense roll."""
    return f"{target}: defense {pool.describe()}: {res.describe()}"


def armor_step(armor: int, ap: int, modified: int, dv: int, damage_type: str, base_type: str) -> str:
    """``"armor 9 -2 AP = 7 > DV: Stun; 6S"``: the modified armor of a hit, whether it turned
    Physical damage to Stun, and the damage to soak."""
    return (f"armor {armor} {ap:+d} AP = {modified}"
            + (" > DV: Stun" if damage_type == "S" and base_type == "P" else "")
            + f"; {dv}{damage_type}")


def soak_step(target: str, pool: Pool, res: TestResult, boxes: int | None, damage_type: str | None) -> str:
    """The story line of a soak roll and the boxes it leaves."""
    return f"{target}: soak {pool.describe()}: {res.describe()} -> {boxes} boxes {damage_type}"
