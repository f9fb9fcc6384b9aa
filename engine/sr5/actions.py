"""The non-attack actions of seed 000 (Take Aim, Ready Weapon, clips, Drop Prone, Stand Up,
Run, Sprint, Quick Draw, ...): check one (``check_action``), then apply it (``apply_action``).

Check, then apply (like python-chess ``is_legal``/``push``): ``check_action`` answers None when
an action is allowed or a sentence saying why not; ``apply_action`` does it and returns
``(new_encounter, change)``, refusing with :class:`~engine.errors.IllegalActionError` unless
``force=True`` (the GM overrides). Attacks are declared in :mod:`engine.sr5.attack`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import IllegalActionError
from engine.model import Encounter, Weapon
from engine.names import token_name
from engine.sr5 import condition
from engine.sr5.changes import Change, Edit, settings_of, sheet_of
from engine.sr5.dice import EnteredDice, Roller, default_roller
from engine.sr5.edge import BLITZ_DICE, DEAD_MANS_TRIGGER_THRESHOLD
from engine.sr5.economy import (
    ACTIONS,
    ATTACK_ONLY,
    COMPLEX,
    EDGE_ACTION_IDS,
    FREE,
    SIMPLE,
    ActionSpec,
    cost_reason,
    called_shot_reason,
    in_combat,
    log_entry,
    spend,
    suppressive_zone_text,
)
from engine.sr5.pools import Pool, base, mod, roll_pool, roll_record, suppression_modifier
from engine.sr5.sheet import RollRecord, Settings, Sheet
from engine.sr5.tables import (
    CHOKES,
    UNARMED,
    has_choke,
    is_melee,
    mental_limit,
    physical_limit,
    skill_rating,
    smartlinked,
    weapon_modes,
    weapon_skill,
)


#: Free Actions a character may take at any time, even before its first phase (not surprised).
ANYTIME = ("drop_prone", "lucky_cover")


#: Small throwing weapons: Ready Weapon readies half the Agility of them (seed 000).
SMALL_THROWN = ("thrown_knife", "shuriken")


def ready_weapons(token) -> tuple[str, ...]:
    """Names of the weapons in hand (main hand first); the first weapon when the sheet says
    nothing (unless it lies on the ground). Unarmed is always ready."""
    s = sheet_of(token)
    if s.in_hand is not None:
        return tuple(n for n in s.in_hand if n not in s.dropped)
    first = token.weapons[0].name if token.weapons else None
    return (first,) if first is not None and first not in s.dropped else ()


def hands(token) -> tuple[str | None, str | None]:
    """What the token holds: (main hand, off hand) weapon names, None for an empty hand."""
    ready = ready_weapons(token)
    return (ready[0] if ready else None, ready[1] if len(ready) > 1 else None)


def ready_count(sheet: Sheet, weapon: Weapon) -> int:
    """Small throwing weapons (knives, shuriken) one Ready Weapon action readies: half the
    Agility, rounded down, at least 1 (seed 000), no more than are carried."""
    n = max(1, sheet.agility // 2)
    return min(n, weapon.loaded) if weapon.loaded is not None else n


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
        raise IllegalActionError(f"{token_name(token)} carries no weapon {name!r} (carries: {have})")
    return w


@dataclass(frozen=True)
class Action:
    """A non-attack action of ``actor``: ``id`` is a key of :data:`ACTIONS`.

    ``weapon`` for weapon actions; ``mode``/``choke`` for Change Gun Mode / Change Choke;
    ``hand`` ("main"/"off") for Ready Weapon; ``stance`` ("prone"/"crouched") for Drop Prone;
    ``magnify`` for a Take Aim spent lining up an image magnifier; ``aim_bonus`` ("pool"/"limit")
    what the aim raises; ``second_weapon`` for a two-pistol Quick Draw; ``zones`` the active
    suppressive zones the actor is inside (from the map) for Stand Up; ``near_zones`` the
    zones it is in or right next to (``TokenFacts.near_zones``): the strongest one's penalty is
    on every test the action rolls (Stand Up, Sprint, Quick Draw, Observe in Detail); ``note``
    free text."""

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
    near_zones: tuple[str, ...] = ()
    threshold: int | None = None  # Observe in Detail: the GM's threshold (None: hits counted)
    note: str = ""


def aim_cap(sheet: Sheet, weapon: Weapon, settings: Settings) -> int:
    """The most Take Aim bonus that stacks: ceil(Willpower / 2) (seed 001, default) or half
    the weapon skill rounded down (seed 000), per ``Options.aim_cap``."""
    if settings.options.aim_cap == "half_skill_down":
        return skill_rating(sheet, weapon) // 2
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
    who = token_name(tok)
    cost, ini = action_cost(encounter, action)
    anytime = action.id in ANYTIME
    reason = cost_reason(st, action.actor, sh, cost, ini, anytime, names=encounter)
    if reason:
        return reason
    if not condition.can_act(sh) and wid_down_ok(action.id, cost, sh):
        pass
    elif not condition.can_act(sh):
        return f"{who} is {condition.status(sh)} and cannot act"
    reason = None if action.id == "call_shot" else called_shot_reason(sh, who, action.id, spec.label)
    if reason:
        return reason
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
        if w.name in sh.dropped and wid != "ready_weapon":
            # seed 000: "Readying entails ... picking up any kind of weapon": one Simple Action
            return f"{w.name} is on the ground: Ready Weapon picks it up (Simple Action)"
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
        if w.category in SMALL_THROWN:
            if w.loaded is not None and sh.readied.get(w.name, 0) >= w.loaded:
                return f"every {w.name} carried is readied"
        elif w.name in ready_weapons(tok):
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
        if action.second_weapon:
            w2 = tok.weapon(action.second_weapon)
            if w2 is None:
                return f"{who} carries no weapon {action.second_weapon!r}"
            if w2.name == w.name:
                return f"{w.name} is one pistol: the second must be another"
            if w2.name in sh.dropped:
                return f"{w2.name} is on the ground: Ready Weapon picks it up (Simple Action)"
            if weapon_skill(w2) != "pistols":
                return f"only pistols can be quick-drawn; {w2.name} is not one"
            if not [m for m in weapon_modes(w2) if m in ("SS", "SA", "BF", "FA")]:
                return f"{w2.name} cannot be fired with a Simple Action"
    elif wid == "drop_object":
        held = ready_weapons(tok)
        if action.weapon:
            if tok.weapon(action.weapon) is None:
                return f"{who} carries no weapon {action.weapon!r}"
            if action.weapon not in held:
                return f"{who} does not hold {action.weapon}"
        elif not held:
            return f"{who} holds nothing to drop"
    elif wid == "pick_up":
        if not action.weapon:
            return "Pick Up/Put Down Object needs the object (a weapon name)"
        if tok.weapon(action.weapon) is None:
            return f"{who} has no weapon {action.weapon!r} (on the ground or carried)"
        if action.weapon not in sh.dropped and action.weapon not in ready_weapons(tok):
            return f"{action.weapon} is neither on the ground nor in hand"
    elif wid == "drop_prone":
        if action.stance not in ("prone", "crouched"):
            return f"Drop Prone goes prone or kneels, not {action.stance!r}"
        if tok.stance == action.stance:
            return f"{who} is already {tok.stance}"
    elif wid == "hit_the_dirt":
        if tok.stance == "prone":
            return f"{who} is already prone"
    elif wid in EDGE_ACTION_IDS:
        return _edge_reason(encounter, action, tok, sh, st, who)
    elif wid == "call_shot":
        if sh.called_shot:
            return f"{who} has already called a shot"
    elif wid == "lucky_cover":
        if sh.edge_left < 1:
            return f"{who} has no Edge left (Lucky Cover spends 1)"
        if tok.stance == "prone" and sh.lucky_cover:
            return f"{who} is already prone in Lucky Cover"
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
    who = token_name(tok)
    edit = Edit(encounter)
    cost, ini = action_cost(encounter, action)
    spend(edit, action.actor, action.id, cost, initiative=ini, anytime=action.id in ANYTIME)
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
        if stance != "prone" and edit.sheet(action.actor).lucky_cover:
            edit.update_sheet(action.actor, lucky_cover=False)  # Lucky Cover lasts while prone

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
    elif wid == "ready_weapon" or (wid == "pick_up" and action.weapon in sh.dropped):
        # seed 000: "Readying entails drawing a firearm from a holster, ... picking up any kind
        # of weapon": a weapon on the ground is picked up and readied by the one Simple Action,
        # Ready Weapon's or Pick Up's (picking up a weapon is readying it)
        w = w if w is not None else tok.weapon(action.weapon)
        assert w is not None
        picked = w.name in sh.dropped
        if picked:
            sh = edit.update_sheet(action.actor, dropped=tuple(d for d in sh.dropped if d != w.name))
            text += f": picks up {w.name} from the ground and readies it"
        held = list(ready_weapons(edit.token(action.actor)))
        if w.name not in held:
            held = [h for h in held if h != w.name]
            if action.hand == "main":
                held = [w.name] + held[1:2]
            else:
                held = (held[:1] or []) + [w.name]
            edit.update_sheet(action.actor, in_hand=tuple(held))
        text += f"{',' if picked else ':'} {w.name} in the {'main' if held and held[0] == w.name else 'off'} hand"
        if w.category in SMALL_THROWN:
            have = sh.readied.get(w.name, 0)
            n = ready_count(sh, w)
            if w.loaded is not None:
                n = min(n, w.loaded - have)
            edit.update_sheet(action.actor, readied={**sh.readied, w.name: have + n})
            text += f", {n} readied ({have + n} ready to throw)"
    elif wid == "drop_object":
        held = ready_weapons(edit.token(action.actor))
        gone = (action.weapon,) if action.weapon else held  # both hands' objects as one Free Action
        edit.update_sheet(action.actor, in_hand=tuple(h for h in held if h not in gone),
                          dropped=sh.dropped + tuple(g for g in gone if g not in sh.dropped),
                          readied={k: v for k, v in sh.readied.items() if k not in gone})
        text += ": drops " + " and ".join(gone)
    elif wid == "pick_up":  # put down what it holds (picking up is above): it lies at its feet
        name = action.weapon
        assert name is not None
        held = ready_weapons(edit.token(action.actor))
        edit.update_sheet(action.actor, in_hand=tuple(h for h in held if h != name), dropped=sh.dropped + (name,),
                          readied={k: v for k, v in sh.readied.items() if k != name})
        text += f": puts {name} down"
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
    elif wid in EDGE_ACTION_IDS:
        text += _apply_edge(edit, action, sh, st, roller, rolls, who)
    elif wid == "call_shot":
        edit.update_sheet(action.actor, called_shot=True)
        text += ": -4 on the next attack, which must follow at once (or Take Aim first)"
    elif wid == "lucky_cover":
        set_stance("prone")
        edit.update_sheet(action.actor, lucky_cover=True, edge_points=sh.edge_left - 1)
        text += f": prone, spared by enhanced and flechette suppressive fire (Edge {sh.edge_left} -> {sh.edge_left - 1})"
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
            pool = _with_suppression(pool, edit.settings, action.actor, sh, action.zones + action.near_zones, edit.before)
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
                    edit.prompts.append(f"{who} stood up in {suppressive_zone_text(edit.before, z)}: Reaction + Edge test due")
    elif wid == "sprint":
        pool = Pool(
            f"Sprint {who}",
            (base("running", "Running", sh.skill("running")), base("strength", "Strength", sh.strength),
             mod("wounds", "wounds", condition.wound_modifier(sh, st.options), "sheet")),
            (base("physical", "Physical limit", physical_limit(sh)),),
        )
        pool = _with_suppression(pool, edit.settings, action.actor, sh, action.zones + action.near_zones, edit.before)
        res = roll_pool(pool, roller)
        rolls.append(roll_record(pool, res))
        per = 1 if sh.metatype in ("dwarf", "troll") else 2
        extra = res.hits * per
        edit.update_sheet(action.actor, sprinting=True, sprint_metres=sh.sprint_metres + extra)
        edit.details["test"] = res
        text += f": {res.describe()}: +{extra} m this turn"
    elif wid == "quick_draw":
        # seed 000: "Two weapons may be quick-drawn and fired simultaneously, but this raises the
        # threshold on the Pistols + Reaction Test to 4 ... A separate Pistols + Reaction (4)
        # Test is required for each pistol (threshold 3 if they are held in quick-draw
        # holsters)": one test a pistol, each with its own outcome
        assert w is not None
        names = [w.name] + ([action.second_weapon] if action.second_weapon else [])
        threshold = 3 if len(names) == 1 else 4
        if "quick_draw_holster" in sh.qualities:
            threshold -= 1
        source = roller
        if len(names) > 1 and not hasattr(roller, "roll"):
            source = EnteredDice(roller, what="Quick Draw dice (one test a pistol, in order)")
        drawn: list[str] = []
        fire: list[str] = []
        tests = []
        parts = []
        for name in names:
            pool = Pool(
                f"Quick Draw {who}" + (f": {name}" if len(names) > 1 else ""),
                (base("pistols", "Pistols", sh.skill("pistols")), base("reaction", "Reaction", sh.reaction),
                 mod("wounds", "wounds", condition.wound_modifier(sh, st.options), "sheet")),
                threshold=threshold,
            )
            pool = _with_suppression(pool, edit.settings, action.actor, sh, action.zones + action.near_zones, edit.before)
            res = roll_pool(pool, source)
            rolls.append(roll_record(pool, res))
            tests.append(res)
            it = "the pistol" if len(names) == 1 else name
            if res.critical_glitch:
                parts.append(f"{res.describe()}: {it} is flung away or misfires in the holster")
            elif res.glitch:
                parts.append(f"{res.describe()}: {it} sticks in the holster or is dropped")
            else:
                drawn.append(name)
                if res.success:
                    fire.append(name)
                    parts.append(f"{res.describe()}: " + ("drawn, and fires with the same action" if len(names) == 1
                                                         else f"{name} drawn, and fires with the same action"))
                else:
                    parts.append(f"{res.describe()}: " + ("drawn, but cannot fire with this action" if len(names) == 1
                                                         else f"{name} drawn, but cannot fire with this action"))
        if isinstance(source, EnteredDice) and source.left:
            raise IllegalActionError(f"Quick Draw of {len(names)} pistols: {source.left} of the "
                                     f"{len(source.faces)} entered dice are left over (one test a pistol)")
        edit.details["test"] = tests[0]
        edit.details["tests"] = tuple(tests)
        if drawn:
            edit.update_sheet(action.actor, in_hand=tuple(drawn))
        if fire:
            if in_combat(st) and st.acting == action.actor:
                edit.update_settings(phase=edit.settings.phase.model_copy(
                    update={"quick_draw_fire": True, "quick_draw_guns": tuple(fire)}))
            edit.details["fire"] = True
            edit.details["fire_with"] = tuple(fire)
        text += ": " + "; ".join(parts)
    elif wid == "observe_in_detail":
        # seed 000: "This allows a Perception Test": Intuition + Perception [Mental]
        pool = Pool(
            f"Perception {who}",
            (base("perception", "Perception", sh.skill("perception")), base("intuition", "Intuition", sh.intuition),
             mod("wounds", "wounds", condition.wound_modifier(sh, st.options), "sheet")),
            (base("mental", "Mental limit", mental_limit(sh)),),
            threshold=action.threshold,
        )
        pool = _with_suppression(pool, edit.settings, action.actor, sh, action.zones + action.near_zones, edit.before)
        res = roll_pool(pool, roller)
        rolls.append(roll_record(pool, res))
        edit.details["test"] = res
        text += f": {res.describe()}" + (f" ({action.note})" if action.note else "")
    elif action.note:
        text += f": {action.note}"
    edit.log(log_entry(edit.settings, action.actor, wid, text, rolls))
    return edit.finish(text)


def wid_down_ok(action_id: str, cost: str, sheet: Sheet) -> bool:
    """Whether a character who is down (unconscious or dying) may still take this action:
    Dead Man's Trigger itself, and the one Simple Action it grants."""
    st = condition.status(sheet)
    if action_id == "dead_mans_trigger":
        return st in ("unconscious", "dying")
    return sheet.last_action and cost == SIMPLE and st != "dead"


def _edge_reason(encounter: Encounter, action: Action, tok, sh: Sheet, st: Settings, who: str) -> str | None:
    wid = action.id
    if sh.edge_left < 1:
        return f"{who} has no Edge left ({ACTIONS[wid].label} spends 1)"
    running = in_combat(st)
    if wid == "seize_initiative":
        turn = st.turn if running else st.turn + 1
        if sh.seized_turn == turn:
            return f"{who} has already seized the initiative for Combat Turn {turn}"
    elif wid == "blitz":
        if running:
            return "Blitz is declared before initiative is rolled (between Combat Turns)"
        if sh.blitz_turn == st.turn + 1:
            return f"{who} has already declared Blitz for the next Combat Turn"
    elif wid == "dead_mans_trigger":
        if condition.status(sh) not in ("unconscious", "dying"):
            return f"{who} is not going down: Dead Man's Trigger is for one falling unconscious or dying"
        if sh.last_action:
            return f"{who} already has the Dead Man's Trigger action"
    return None


def _apply_edge(edit: Edit, action: Action, sh: Sheet, st: Settings, roller, rolls: list, who: str) -> str:
    """Spend the point of Edge and do what the Edge action does; the text for the log."""
    wid = action.id
    left = sh.edge_left - 1
    edit.update_sheet(action.actor, edge_points=left)
    spent = f" (Edge {sh.edge_left} -> {left})"
    if wid == "seize_initiative":
        turn = st.turn if in_combat(st) else st.turn + 1
        edit.update_sheet(action.actor, seized_turn=turn)
        return f": acts first in every pass of Combat Turn {turn}" + spent
    if wid == "blitz":
        edit.update_sheet(action.actor, blitz_turn=st.turn + 1)
        return f": rolls {BLITZ_DICE}D6 initiative in Combat Turn {st.turn + 1}" + spent
    if wid == "dead_mans_trigger":
        pool = Pool(f"Dead Man's Trigger {who}", (base("body", "Body", sh.body), base("willpower", "Willpower", sh.willpower)),
                    threshold=DEAD_MANS_TRIGGER_THRESHOLD)
        res = roll_pool(pool, roller)
        rolls.append(roll_record(pool, res))
        edit.details["test"] = res
        if res.success:
            edit.update_sheet(action.actor, last_action=True)
            return f": {res.describe()}: one last Simple Action now" + spent
        return f": {res.describe()}: goes down without it" + spent
    if wid == "second_chance":
        return ": rerolls the dice that missed" + (f" ({action.note})" if action.note else "") + spent
    return ": the glitch is negated" + (f" ({action.note})" if action.note else "") + spent


def _with_suppression(pool: Pool, settings: Settings, tid: str, sheet: Sheet, near_zones: Sequence[str],
                      names: Encounter | None = None) -> Pool:
    m = suppression_modifier(settings, tid, sheet, near_zones, names=names)
    return pool.with_part(m) if m is not None else pool


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
