"""The attack, DADA (seed 001): Declare, Attack, Defend, Apply.

1. **Declare** an :class:`AttackDeclaration` (attacker, weapon, mode, targets, called shot,
   Edge, the defenders' choices) and get an :class:`AttackPlan` from :func:`plan_attack`,
   given the map's facts (:class:`engine.sr5.facts.MapFacts`). The plan holds every pool
   with each modifier and its source, the limits, the damage, the rounds and the action it
   costs, and ``problems``: why the attack is not allowed (empty when it is). The GM edits
   any modifier with :meth:`AttackPlan.override` and the damage with
   :meth:`AttackPlan.with_damage`.
2. **Attack / Defend**: ``AttackResolution(plan)`` has nothing rolled yet; ask it
   :meth:`~AttackResolution.next_roll` (which pool to roll now), feed it dice with
   :meth:`~AttackResolution.roll` (a roller, or faces read off physical dice), step by step;
   or the door's ``RuleSystem.resolve`` does every roll at once (or one at a time). Per target: attack, defense, then soak
   when it hits. :meth:`AttackResolution.steps` tells the story line by line.
3. **Apply** with :func:`apply_attack`: damage on the monitors, ammunition, recoil, aim,
   Edge, Initiative for interrupts and wounds, the action spent, the log; returns the new
   encounter and a :class:`~engine.sr5.changes.Change` that undo reverts.

Multiple targets (seed 001): the pool is totalled first, every modifier shared by all targets
included (recoil of each gun and Edge too), then divided as evenly as possible (11 over 3 ->
4, 4, 3); what differs between targets (the environment row with the range, blind fire) is
applied to each share after the division, only beyond the part all targets share. At most
half the weapon skill in targets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from engine.errors import IllegalActionError
from engine.model import Encounter, Weapon
from engine.names import token_name
from engine.ranges import Band, band_at, bands_for
from engine.ranges import CATEGORIES as RANGE_CATEGORIES
from engine.sr5 import condition
from engine.sr5 import edge as edge_rules
from engine.sr5.changes import Change, Edit, settings_of, sheet_of
from engine.sr5.actions import aim_cap, find_weapon, ready_weapons
from engine.sr5.economy import (
    COMPLEX,
    FREE,
    INTERRUPT,
    SIMPLE,
    cost_reason,
    called_shot_reason,
    in_combat,
    log_entry,
    spend,
)
from engine.sr5.dice import Roller, TestResult
from engine.sr5.environment import EnvironmentResult, environment
from engine.vision import token_light
from engine.sr5.facts import MapFacts, TargetFacts
from engine.sr5.pools import Modifier, Pool, base, divide, mod, roll_pool, roll_record
from engine.sr5.sheet import Settings, Sheet
from engine.sr5.steps import (
    INTERRUPT_COST,
    armor_step,
    busy_shooter_parts,
    count_defense,
    defense_step,
    edge_parts,
    end_aim,
    find_roll,
    glitch_note,
    mark_attacked,
    mark_damage,
    running_parts,
    smartlink_parts,
    soak_step,
    unload,
    wound_parts,
)
from engine.sr5.steps import name_of as _nm
from engine.sr5.pools import suppression_modifier
from engine.sr5.tables import (
    FIRING_MODES,
    THROWN_CATEGORIES,
    Damage,
    FiringMode,
    choke_band,
    current_choke,
    current_mode,
    has_choke,
    is_heavy,
    is_melee,
    parse_damage,
    physical_limit,
    mental_limit,
    recoil_compensation,
    skill_rating,
    smartlinked,
    weapon_modes,
    weapon_skill,
    wireless_smartlink_dice,
)

DEFENSES = ("normal", "full_defense", "block", "dodge", "parry")


@dataclass(frozen=True)
class AttackDeclaration:
    """What the attacker declares (and each defender answers).

    ``weapon`` the main weapon (None: the first ready one; ``"Unarmed"`` for fists), ``mode``
    a firing mode id (SS SA SB BF LB FA FAC; None: the one selected on the sheet),
    ``second_weapon`` a second gun fired in the off hand with the same action, ``off_hand``
    the main weapon is in the off hand, ``called_shot`` -4, ``edge`` Push the Limit (+Edge
    dice, no limit, sixes explode), ``area`` an area-effect attack (-2 defense).
    ``defenses`` maps a target to normal / full_defense / block / dodge / parry (the last
    three in melee only; interrupts are paid when the attack is applied). Melee: ``charge``
    (the attacker ran at the target), ``superior_position``, ``friends_in_melee``,
    ``touch_only``. ``intercept`` makes a melee attack an Intercept (Free Action if one is
    left, else -5 Initiative), out of the attacker's phase."""

    attacker: str
    targets: tuple[str, ...]
    weapon: str | None = None
    mode: str | None = None
    second_weapon: str | None = None
    off_hand: bool = False
    called_shot: bool = False
    edge: bool = False
    area: bool = False
    defenses: Mapping[str, str] = field(default_factory=dict)
    charge: bool = False
    superior_position: bool = False
    friends_in_melee: int = 0
    touch_only: bool = False
    intercept: bool = False


@dataclass(frozen=True)
class RecoilInfo:
    """Progressive recoil of this attack: rounds fired since the last reset before it
    (``before``), rounds now, the compensation, what is left and the dice penalty."""

    before: int
    rounds: int
    compensation: int
    heavy: bool
    uncompensated: int
    penalty: int
    text: str


@dataclass(frozen=True)
class TargetPlan:
    """One target's side of the plan: its facts, range band, environment, the attack pool it
    gets (:attr:`attack`), its defense pool, its soak pool and the damage it faces."""

    target: str
    facts: TargetFacts
    band: str | None
    environment: EnvironmentResult | None
    extra: Pool  # per-target attack parts and limit (the share is added in ``attack``)
    attack: Pool
    defense: Pool
    soak: Pool
    damage: Damage
    ap: int
    armor: int
    defense_choice: str = "normal"
    interrupt_cost: int = 0
    name: str = ""  # the target's display name (engine.names), for the lines a person reads

    @property
    def who(self) -> str:
        """The target's name for a story line (its id when the plan has no name)."""
        return self.name or self.target


@dataclass(frozen=True)
class AttackPlan:
    """Everything about an attack before the dice (see module docstring)."""

    declaration: AttackDeclaration
    kind: str  # "ranged" | "melee"
    weapon: Weapon
    second_weapon: Weapon | None
    mode: FiringMode | None
    rounds: int
    action: str  # the action id it books (fire_weapon, fire_automatic, melee_attack ...)
    cost: str  # free / simple / complex / interrupt / none
    cost_initiative: int
    common: Pool  # the pool before division (for a single target: the whole attack pool)
    shares: tuple[int, ...]
    targets: tuple[TargetPlan, ...]
    recoil: RecoilInfo | None
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    split: bool = True  # the common pool is divided over the targets
    zero_hit_tie: str = "graze"  # 0 hits vs 0 hits: graze (seed 001) or miss (Options.zero_hit_tie)

    @property
    def legal(self) -> bool:
        return not self.problems

    def target(self, ident: str) -> TargetPlan:
        for t in self.targets:
            if t.target == ident:
                return t
        raise IllegalActionError(f"{ident!r} is not a target of this attack")

    # -- GM edits -------------------------------------------------------------------------------
    def override(self, key: str, value: int, *, target: str | None = None, pool: str = "attack",
                 label: str | None = None) -> AttackPlan:
        """The GM sets modifier ``key`` to ``value``. ``pool`` is attack / defense / soak.
        For the attack without ``target`` it edits the common pool (before division; a key
        ``"limit:..."`` edits every target's limit); with ``target`` that target's own parts.
        An unknown key adds a GM modifier named ``label``."""
        if pool == "attack":
            if target is None:
                if key.startswith("limit:"):
                    tps = tuple(replace(t, extra=t.extra.override(key, value, label)) for t in self.targets)
                    return _assemble(replace(self, targets=tps))
                return _assemble(replace(self, common=self.common.override(key, value, label)))
            tps = tuple(
                replace(t, extra=t.extra.override(key, value, label)) if t.target == target else t for t in self.targets
            )
            self.target(target)
            return _assemble(replace(self, targets=tps))
        if pool not in ("defense", "soak"):
            raise IllegalActionError(f"pool {pool!r} is not attack, defense or soak")
        if target is None:
            raise IllegalActionError(f"say which target's {pool} pool to change")
        self.target(target)
        tps = tuple(
            replace(t, **{pool: getattr(t, pool).override(key, value, label)}) if t.target == target else t
            for t in self.targets
        )
        return replace(self, targets=tps)

    def with_damage(self, target: str, *, dv: int | None = None, ap: int | None = None,
                    damage_type: str | None = None) -> AttackPlan:
        """The GM changes the damage value, AP or type (P/S) against one target."""
        tp = self.target(target)
        dmg = tp.damage
        if dv is not None or damage_type is not None:
            t = (damage_type or dmg.type).upper()
            if t not in ("P", "S"):
                raise IllegalActionError(f"damage type {damage_type!r} is not P or S")
            dmg = replace(dmg, value=dv if dv is not None else dmg.value, type=t)
        new_ap = tp.ap if ap is None else int(ap)
        soak = tp.soak.with_part(_armor_part(tp.armor, new_ap))
        return replace(self, targets=tuple(
            replace(t, damage=dmg, ap=new_ap, soak=soak) if t.target == target else t for t in self.targets))

    def describe(self) -> list[str]:
        """The plan as dialog lines: each pool with its parts."""
        lines = [f"{self.weapon.name}" + (f" {self.mode.label} ({self.rounds} rounds)" if self.mode else ""),
                 f"pool: {self.common.describe()}"]
        if self.recoil:
            lines.append(f"recoil: {self.recoil.text}")
        for t in self.targets:
            lines.append(f"{t.who}: attack {t.attack.describe()}")
            lines.append(f"{t.who}: defense {t.defense.describe()}")
            lines.append(f"{t.who}: soak {t.soak.describe()} vs {t.damage.value}{t.damage.type}")
        lines += [f"not allowed: {p}" for p in self.problems]
        lines += self.notes
        return lines


def _armor_part(armor: int, ap: int) -> Modifier:
    value = max(0, armor + ap)
    label = f"armor {armor} AP {ap:+d} ->" if ap else "armor"
    if armor + ap < 0:
        label = f"armor {armor} AP {ap:+d} is below 0: Body only ->"
    return base("armor", label, value, "sheet")


def soak_pool(name: str, sheet: Sheet, ap: int, suppressed: Modifier | None = None) -> Pool:
    """The damage resistance pool of a character (``name`` for the label): Body + armor
    modified by ``ap`` (never below 0), and the suppression penalty when
    ``Options.suppression_on_soak`` (``suppressed``). Every sr5 attack that damages uses it."""
    parts = (base("body", "Body", sheet.body), _armor_part(sheet.armor, ap))
    return Pool(f"{name} resists damage", parts + ((suppressed,) if suppressed is not None else ()))


def soak_suppression(settings: Settings, tid: str, sheet: Sheet, near_zones, *,
                     names: Encounter | None = None) -> Modifier | None:
    """The suppression penalty on ``tid``'s damage resistance, when the options put it there
    (the shooter named by its name in ``names``, the encounter)."""
    if not settings.options.suppression_on_soak:
        return None
    return suppression_modifier(settings, tid, sheet, near_zones, names=names)


def resisted(dv: int, damage_type: str, armor: int, ap: int, soak_hits: int | None) -> tuple[int, str, int | None]:
    """Seed 001 step 4 for a modified damage value ``dv``: the modified armor (armor + AP,
    may be below 0), the damage type (Physical becomes Stun when the modified armor exceeds
    the DV) and the boxes left after ``soak_hits`` (None while the soak is not rolled)."""
    modified = armor + ap
    dtype = "S" if damage_type == "P" and modified > dv else damage_type
    return modified, dtype, None if soak_hits is None else max(0, dv - soak_hits)


def _assemble(plan: AttackPlan) -> AttackPlan:
    """Recompute the shares and each target's attack pool from the common pool and extras."""
    n = len(plan.targets)
    if n <= 1 or not plan.split:
        shares = tuple(plan.common.total for _ in plan.targets)
    else:
        shares = divide(plan.common.total, n)
    tps = []
    for tp, share in zip(plan.targets, shares):
        label = tp.extra.label
        if n <= 1 or not plan.split:
            parts = plan.common.parts + tp.extra.parts
        else:
            parts = (base("share", f"{plan.common.total} dice over {n} targets ->", share, "rules"),) + tp.extra.parts
        pool = Pool(label, parts, tp.extra.limit_parts, plan.common.edge)
        tps.append(replace(tp, attack=pool))
    return replace(plan, shares=shares, targets=tuple(tps))


# ---------------------------------------------------------------------------------------------
# planning
# ---------------------------------------------------------------------------------------------
def weapon_bands(weapon: Weapon, sheet: Sheet) -> tuple[tuple[Band, ...], float] | None:
    """The weapon's range bands (its own, else its category's, Strength-scaled for thrown
    weapons and bows) and its minimum range in metres; None when it has no range table."""
    if weapon.ranges:
        return tuple(Band(b.band, b.max, b.modifier) for b in weapon.ranges), 0.0
    if weapon.category:
        return bands_for(weapon.category, sheet.strength), RANGE_CATEGORIES[weapon.category].minimum
    return None


def defender_reach(token) -> int:
    """Reach of the defender's ready melee weapon (+1 for a troll)."""
    sh = sheet_of(token)
    r = 0
    for name in ready_weapons(token):
        w = token.weapon(name)
        if w is not None and is_melee(w):
            r = max(r, w.reach)
    return r + (1 if sh.metatype == "troll" else 0)


def recoil_info(sheet: Sheet, weapons: Sequence[Weapon], mode: FiringMode, rounds_each: int) -> RecoilInfo:
    """Progressive recoil (seed 001): rounds fired since the last reset plus this attack's,
    minus compensation 1 + ceil(STR / 3) + each gun's RC, doubled for heavy weapons."""
    rounds = rounds_each * len(weapons) if mode.recoil else 0
    comp = recoil_compensation(sheet) + sum(w.rc for w in weapons)
    total = sheet.recoil + rounds
    unc = max(0, total - comp)
    heavy = any(is_heavy(w, mode.id) for w in weapons)
    pen = -unc * (2 if heavy else 1)
    text = (f"{sheet.recoil} earlier + {rounds} now = {total} rounds vs compensation {comp} "
            f"(1 + ceil(STR {sheet.strength}/3) + RC {'+'.join(str(w.rc) for w in weapons)})")
    if heavy and unc:
        text += f"; heavy weapon: {unc} doubled"
    text += f" -> {pen:+d}"
    return RecoilInfo(sheet.recoil, rounds, comp, heavy, unc, pen, text)


def plan_attack(encounter: Encounter, decl: AttackDeclaration, facts: MapFacts) -> AttackPlan:
    """Every pool of the attack with each modifier and its source, and why it is not allowed
    (``problems``). Raises only for unknown ids or missing map facts."""
    st = settings_of(encounter)
    opts = st.options
    atok = encounter.token(decl.attacker)
    ash = sheet_of(atok)
    aname = token_name(atok)
    w = find_weapon(atok, decl.weapon)
    w2 = find_weapon(atok, decl.second_weapon) if decl.second_weapon else None
    problems: list[str] = []
    notes: list[str] = []
    melee = is_melee(w)
    thrown = w.category in THROWN_CATEGORIES
    kind = "melee" if melee else "ranged"
    targets = tuple(decl.targets)
    if not targets:
        raise IllegalActionError("an attack needs at least one target")
    for t in targets:
        encounter.token(t)
    if len(set(targets)) != len(targets):
        problems.append("a target is listed twice")
    if decl.attacker in targets:
        problems.append(f"{aname} cannot attack itself")
    if not condition.can_act(ash) and not ash.last_action:
        problems.append(f"{aname} is {condition.status(ash)} and cannot attack")

    # -- mode, rounds, action -------------------------------------------------------------------
    mode: FiringMode | None = None
    rounds = 0
    if melee:
        action, cost = "melee_attack", COMPLEX
    elif thrown or not weapon_modes(w):
        action, cost = "throw_weapon" if thrown else "fire_weapon", SIMPLE
        rounds = 1 if w.ammo is not None else 0
    else:
        mid = (decl.mode or current_mode(w, ash) or "").upper()
        if mid not in FIRING_MODES or mid not in weapon_modes(w):
            problems.append(f"{w.name} fires {', '.join(weapon_modes(w))}; not {mid or 'no mode'}")
            mid = weapon_modes(w)[0]
        mode = FIRING_MODES[mid]
        rounds = mode.rounds
        action = "fire_weapon" if mode.action == SIMPLE else "fire_automatic"
        cost = mode.action
        if w2 is not None and mid not in weapon_modes(w2):
            problems.append(f"{w2.name} cannot fire {mid}")
    cost_ini = 0
    if decl.intercept:
        if not melee:
            problems.append("Intercept is a melee attack")
        free_ok = cost_reason(st, decl.attacker, ash, FREE, names=encounter) is None and st.acting != decl.attacker
        cost, cost_ini = (FREE, 0) if free_ok else (INTERRUPT, 5)
        action = "intercept"
    elif in_combat(st) and st.acting == decl.attacker and st.phase.quick_draw_fire and action == "fire_weapon":
        # only the pistols whose own Quick Draw test succeeded fire with that action (seed 000)
        drew = st.phase.quick_draw_guns
        fired = [g.name for g in (w, w2) if g is not None]
        late = [g for g in fired if drew and g not in drew]
        if not late:
            cost = "none"
            notes.append("fires with the Quick Draw action")
        else:
            notes.append(f"{' and '.join(late)} failed its Quick Draw test: not fired with that action, "
                         f"so this is a Fire Weapon of its own (only {' and '.join(drew)} fires with it)")
    reason = cost_reason(st, decl.attacker, ash, cost, cost_ini, names=encounter)
    if reason:
        problems.append(reason)
    elif len(targets) > 1 and in_combat(st) and st.acting == decl.attacker:
        # the Multiple Targets declaration is a Free Action on top of the attack (seed 001)
        ph = st.phase
        after = ph.model_copy(update={"simple": ph.simple + (cost == SIMPLE), "complex": ph.complex + (cost == COMPLEX)})
        why = cost_reason(st.model_copy(update={"phase": after}), decl.attacker, ash, FREE, names=encounter)
        if why:
            problems.append(f"several targets need the Multiple Targets Free Action: {why}")
    if in_combat(st) and st.acting == decl.attacker and st.phase.attacked and not decl.intercept:
        problems.append(f"{aname} has already attacked this Action Phase (one attack per phase)")

    # -- readiness and ammunition ---------------------------------------------------------------
    ready = ready_weapons(atok)
    for gun in (w, w2):
        if gun is None or gun.name == "Unarmed":
            continue
        if gun.name in ash.dropped:
            problems.append(f"{gun.name} is on the ground: Ready Weapon picks it up (Simple Action)")
        elif gun.name not in ready:
            problems.append(f"{gun.name} is not ready: Ready Weapon first (Simple Action)")
        elif ash.readied.get(gun.name, 1) < 1:
            problems.append(f"no {gun.name} is readied: Ready Weapon readies {max(1, ash.agility // 2)}")
        if gun.ammo is not None and rounds:
            if gun.loaded is None:
                problems.append(f"{gun.name} has no clip in")
            elif gun.loaded < rounds:
                problems.append(f"{gun.name} has {gun.loaded} rounds left; {mode.label if mode else 'this'} needs {rounds}")
    if w2 is not None and (is_melee(w2) or melee):
        problems.append("a second weapon is fired with the first: two guns, not melee weapons")

    # -- targets allowed ------------------------------------------------------------------------
    skill_key = weapon_skill(w, mode.id if mode else None)
    skill = skill_rating(ash, w, mode.id if mode else None, atok.weapons)
    skill_label = skill_key.replace("_", " ").title()
    if w2 is not None:
        k2 = weapon_skill(w2, mode.id if mode else None)
        r2 = skill_rating(ash, w2, mode.id if mode else None, atok.weapons)
        if r2 < skill:
            skill, skill_label = r2, k2.replace("_", " ").title()
            notes.append(f"two guns of different skills: the lower skill ({skill_label}) counts")
    choke = current_choke(w, ash) if has_choke(w) else None
    spread = choke in ("medium", "wide")
    multi_ok = melee or w2 is not None or (mode is not None and mode.multiple) or spread
    if len(targets) > 1:
        if not multi_ok:
            problems.append(f"{mode.label if mode else w.name} cannot attack several targets "
                            "(bursts, full auto, two guns, a medium or wide spread or melee can)")
        most = max(1, skill // 2)
        if len(targets) > most:
            problems.append(f"{skill_label} {skill} allows at most {most} targets (half the skill), not {len(targets)}")
    called = decl.called_shot or ash.called_shot
    if ash.called_shot:
        why = called_shot_reason(ash, aname, action, action.replace("_", " "))
        if why:
            problems.append(why)
    elif decl.called_shot and in_combat(st) and st.acting == decl.attacker:
        # Call a Shot is a Free Action of its own (seed 000), booked with the attack
        ph = st.phase
        after = ph.model_copy(update={"simple": ph.simple + (cost == SIMPLE), "complex": ph.complex + (cost == COMPLEX),
                                      "free": ph.free + (len(targets) > 1)})
        why = cost_reason(st.model_copy(update={"phase": after}), decl.attacker, ash, FREE, names=encounter)
        if why:
            problems.append(f"a called shot needs the Call a Shot Free Action: {why}")
    if called and spread:
        problems.append("a called shot cannot be made with a medium or wide spread")
    if decl.charge and not melee:
        problems.append("a charge is a melee attack")
    elif decl.charge and in_combat(st) and not ash.running:
        problems.append(f"{aname} has not run: a charge needs a run at the target (Run, then move)")
    if decl.edge and ash.edge_left < 1:
        problems.append(f"{aname} has no Edge left")
    if decl.second_weapon and decl.second_weapon == (decl.weapon or w.name):
        problems.append("the second weapon is the first one")

    # -- common pool ----------------------------------------------------------------------------
    parts: list[Modifier] = [
        base("skill", f"{skill_label}", skill),
        base("agility", "Agility", ash.agility),
    ]
    if skill == 0:
        notes.append(f"{aname} has no {skill_label} skill (defaulting is the GM's call)")
    parts += wound_parts(ash, opts)
    a_facts = facts.token(decl.attacker)
    if not melee:
        parts += running_parts(ash, opts)
        if decl.off_hand or w2 is not None:
            if "ambidextrous" in ash.qualities:
                notes.append("off hand: no penalty (Ambidextrous)")
            else:
                parts.append(mod("off_hand", "off-hand weapon", -2, "declaration"))
        parts += busy_shooter_parts(ash, a_facts)
        sl = wireless_smartlink_dice(w, ash)
        if w2 is not None:
            sl = min(sl, wireless_smartlink_dice(w2, ash))
        parts += smartlink_parts(ash, sl)
    if called:
        parts.append(mod("called_shot", "called shot", -4, "declaration" if decl.called_shot else "sheet"))
    # aim
    cap = aim_cap(ash, w, st)
    aim = min(ash.aim, cap) if ash.aim_weapon == w.name else 0
    both = smartlinked(w, ash) and ash.wireless
    if aim and (ash.aim_bonus == "pool" or both):
        parts.append(mod("aim", f"Take Aim x{ash.aim}" + (f" (most {cap})" if ash.aim > cap else ""), aim, "sheet"))
    if melee:
        if decl.charge:
            parts.append(mod("charge", "charging", opts.charge_attack_bonus, "declaration"))
        if decl.superior_position or "superior_position" in ash.conditions:
            parts.append(mod("superior", "superior position", 2, "declaration"))
        if decl.friends_in_melee:
            parts.append(mod("friends", f"friends in melee x{decl.friends_in_melee}", decl.friends_in_melee, "declaration"))
        if decl.touch_only:
            parts.append(mod("touch", "touch-only attack", 2, "declaration"))
        if atok.stance == "prone":
            parts.append(mod("attacker_prone", "attacker prone", -1, "map"))
    sup = suppression_modifier(st, decl.attacker, ash, a_facts.near_zones, names=encounter)
    if sup is not None:
        parts.append(sup)
    recoil = None
    if mode is not None:
        guns = [w] + ([w2] if w2 is not None else [])
        recoil = recoil_info(ash, guns, mode, rounds)
        if recoil.penalty:
            parts.append(mod("recoil", f"recoil ({recoil.before + recoil.rounds} rounds, compensation {recoil.compensation}"
                             + (", heavy x2" if recoil.heavy else "") + ")", recoil.penalty, "weapon"))
        rounds = rounds * len(guns)
    parts += edge_parts(ash, decl.edge)

    # -- per target -----------------------------------------------------------------------------
    bands = None if melee else weapon_bands(w, ash)
    envs: list[EnvironmentResult] = []
    tinfo = []
    for tid in targets:
        tf = facts.target(tid)
        ttok = encounter.token(tid)
        band_name = None
        if bands is not None:
            b = band_at(bands[0], tf.distance, bands[1])
            if b is None:
                if tf.distance < bands[1]:
                    problems.append(f"{token_name(ttok)} is {tf.distance:.1f} m away, inside the {bands[1]:.0f} m minimum range of {w.name}")
                else:
                    problems.append(f"{token_name(ttok)} is {tf.distance:.1f} m away, beyond the extreme range "
                                    f"({bands[0][-1].max:.0f} m) of {w.name}")
            else:
                band_name = b.band
        elif not melee:
            notes.append(f"{w.name} has no range table: no range modifier")
        if melee:
            reach = w.reach + (1 if ash.metatype == "troll" else 0)
            gap = tf.distance - atok.radius - ttok.radius
            if gap > opts.melee_metres + reach + 1e-9:
                problems.append(f"{token_name(ttok)} is out of melee reach ({gap:.1f} m between them; reach allows "
                                f"{opts.melee_metres + reach:.1f} m)")
        blind = tf.cover == "full" or not tf.visible
        env = environment(st.environment, ash, band=band_name, distance=tf.distance, blind=blind, melee=melee,
                          smartlink=smartlinked(w, ash), light=token_light(encounter, ttok))
        envs.append(env)
        tinfo.append((tid, tf, ttok, band_name, env))
        if spread and not tf.in_spread:
            problems.append(f"{token_name(ttok)} is outside the {choke} spread")
    if choke is not None and len(targets) > 1:
        bands_hit = [bn for (_, _, _, bn, _) in tinfo if bn is not None]
        if bands_hit:
            far = max(bands_hit, key=lambda n: ("short", "medium", "long", "extreme").index(n))
            most = choke_band(choke, far).max_targets
            if len(targets) > most:
                problems.append(f"a {choke} spread at {far} range takes at most {most} target{'s' if most > 1 else ''}")
    common_env = max((e.modifier for e in envs), default=0)
    if common_env:
        shared = max(envs, key=lambda e: e.modifier)
        label = shared.label() if len(envs) == 1 else f"{shared.label()} (the part all targets share)"
        parts.append(mod("environment", label, common_env, "environment"))
    common = Pool(f"{aname} attacks with {w.name}", tuple(parts), (), decl.edge)

    tps = []
    for tid, tf, ttok, band_name, env in tinfo:
        tname = token_name(ttok)
        tsh = sheet_of(ttok)
        xparts: list[Modifier] = []
        if env.modifier != common_env:
            xparts.append(mod("environment", f"{env.label()} (beyond the shared {common_env:+d})",
                              env.modifier - common_env, "environment"))
        if melee:
            if ttok.stance == "prone":
                xparts.append(mod("target_prone", "opponent prone", 1, "map"))
            net = (w.reach + (1 if ash.metatype == "troll" else 0)) - defender_reach(ttok)
            if net > 0:
                xparts.append(mod("reach", f"reach {net} longer", net, "weapon"))
        # limit
        lparts: list[Modifier] = []
        if w.accuracy is not None:
            acc = w.accuracy if w2 is None or w2.accuracy is None else min(w.accuracy, w2.accuracy)
            lparts.append(base("accuracy", f"accuracy of {w.name}" + (" and second gun (lower)" if w2 else ""), acc, "weapon"))
        elif melee:
            lparts.append(base("accuracy", "Physical limit", physical_limit(ash), "sheet"))
        if lparts:
            if not melee and smartlinked(w, ash) and (w2 is None or smartlinked(w2, ash)):
                lparts.append(mod("smartgun", "smartgun", 2, "weapon"))
            if aim and (ash.aim_bonus == "limit" or both):
                lparts.append(mod("aim", f"Take Aim x{ash.aim}", aim, "sheet"))
        dmg = parse_damage(w.damage, ash.strength, weapon=w.name)
        cb = None
        if choke is not None and band_name is not None:
            cb = choke_band(choke, band_name)
            if cb.accuracy and lparts:
                lparts.append(mod("choke", f"{choke} choke at {band_name} range", cb.accuracy, "weapon"))
            if cb.dv:
                dmg = replace(dmg, value=dmg.value + cb.dv, text=f"{dmg.text} {cb.dv:+d} ({choke} choke, {band_name})")
        extra = Pool(f"{aname} -> {tname}", tuple(xparts), tuple(lparts), decl.edge)
        # defense
        choice = decl.defenses.get(tid, "normal")
        dparts, dlimit, ini = defense_parts(encounter, st, tid, ttok, tsh, choice, melee, mode, choke, tf, decl, facts,
                                             problems, w)
        defense = Pool(f"{tname} defends", tuple(dparts), tuple(dlimit))
        ap = w.ap
        soak = soak_pool(tname, tsh, ap, soak_suppression(st, tid, tsh, facts.token(tid).near_zones,
                                                                 names=encounter))
        tps.append(TargetPlan(tid, tf, band_name, env, extra, extra, defense, soak, dmg, ap, tsh.armor, choice, ini,
                              tname))

    split = not (spread and not opts.shotgun_split_pool and w2 is None and not (mode and mode.multiple))
    plan = AttackPlan(decl, kind, w, w2, mode, rounds, action, cost, cost_ini, common, (), tuple(tps), recoil,
                      tuple(problems), tuple(notes), split, opts.zero_hit_tie)
    return _assemble(plan)


def defense_parts(encounter, st: Settings, tid, ttok, tsh: Sheet, choice, melee, mode, choke, tf: TargetFacts,
                   decl: AttackDeclaration, facts: MapFacts, problems: list, weapon: Weapon):
    opts = st.options
    tname = token_name(ttok)
    parts: list[Modifier] = [base("reaction", "Reaction", tsh.reaction), base("intuition", "Intuition", tsh.intuition)]
    limit: list[Modifier] = []
    if choice not in DEFENSES:
        problems.append(f"{tname}: defense {choice!r} is not one of {', '.join(DEFENSES)}")
        choice = "normal"
    ini = 0
    if choice in ("block", "dodge", "parry") and not melee:
        problems.append(f"{tname} cannot {choice} bullets: against ranged attacks only Full Defense helps")
    if choice in INTERRUPT_COST and not (choice == "full_defense" and tsh.full_defense):
        ini = INTERRUPT_COST[choice]
        reason = cost_reason(st, tid, tsh, INTERRUPT, ini, names=encounter)
        if reason:
            problems.append(reason)
    parts += wound_parts(tsh, opts)
    if tsh.full_defense or choice == "full_defense":
        key, label, value = "willpower", "Willpower", tsh.willpower
        options = [("willpower", "Willpower", tsh.willpower)]
        if "agile_defender" in tsh.qualities:
            options.append(("agility", "Agility (Agile Defender)", tsh.agility))
        if "too_pretty_to_hit" in tsh.qualities:
            options.append(("charisma", "Charisma (Too Pretty to Hit)", tsh.charisma))
        if "acrobatic_defender" in tsh.qualities:
            options.append(("gymnastics", "Gymnastics (Acrobatic Defender)", tsh.skill("gymnastics")))
        if "perceptive_defender" in tsh.qualities:
            options.append(("perception", "Perception (Perceptive Defender)", tsh.skill("perception")))
        key, label, value = max(options, key=lambda o: o[2])
        parts.append(mod("full_defense", f"Full Defense: {label}", value, "sheet"))
        if key == "gymnastics":
            limit.append(base("physical", "Physical limit (a skill)", physical_limit(tsh), "sheet"))
        elif key == "perception":
            limit.append(base("mental", "Mental limit (a skill)", mental_limit(tsh), "sheet"))
    if melee:
        if choice == "block":
            parts.append(mod("block", "Block: Unarmed Combat", tsh.skill("unarmed_combat"), "declaration"))
        elif choice == "dodge":
            parts.append(mod("dodge", "Dodge: Gymnastics", tsh.skill("gymnastics"), "declaration"))
        elif choice == "parry":
            pw = None
            for n in ready_weapons(ttok):
                x = ttok.weapon(n)
                if x is not None and is_melee(x):
                    pw = x
                    break
            if pw is None:
                problems.append(f"{tname} has no ready melee weapon to parry with")
            else:
                k = weapon_skill(pw)
                parts.append(mod("parry", f"Parry: {k.replace('_', ' ').title()}",
                                 skill_rating(tsh, pw, None, ttok.weapons), "declaration"))
        if decl.charge:
            parts.append(mod("charge", "receiving a charge", opts.charge_defense_bonus, "declaration"))
        atok = encounter.token(decl.attacker)
        net = defender_reach(ttok) - (weapon.reach + (1 if sheet_of(atok).metatype == "troll" else 0))
        if net > 0:
            parts.append(mod("reach", f"reach {net} longer", net, "weapon"))
    else:
        if tf.cover == "partial":
            parts.append(mod("cover", "partial cover", 2, "map"))
        elif tf.cover == "good":
            parts.append(mod("cover", "good cover", 4, "map"))
        if mode is not None and mode.defense:
            parts.append(mod("mode", f"attacker fires {mode.label}", mode.defense, "weapon"))
        if choke is not None:
            cd = choke_band(choke, "short").defense
            parts.append(mod("choke", f"{choke} choke", cd, "weapon"))
        if tsh.running:
            v = opts.sprinter_defense_bonus if tsh.sprinting else opts.runner_defense_bonus
            parts.append(mod("running", "defender sprinting" if tsh.sprinting else "defender running", v, "sheet"))
        if facts.token(tid).in_melee or "in_melee" in tsh.conditions:
            parts.append(mod("in_melee", "defender in melee combat", -3, "map"))
        if "in_moving_vehicle" in tsh.conditions:
            parts.append(mod("vehicle", "defender in a moving vehicle", 3, "sheet"))
    if decl.area:
        parts.append(mod("area", "area-effect attack", -2, "declaration"))
    sup = (suppression_modifier(st, tid, tsh, facts.token(tid).near_zones, names=encounter)
           if opts.suppression_on_defense else None)
    if sup is not None:
        parts.append(sup)
    if tsh.defended:
        parts.append(mod("defended", f"already defended {tsh.defended}x since its last action", -tsh.defended, "sheet"))
    return parts, limit, ini


# ---------------------------------------------------------------------------------------------
# resolution
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RollRequest:
    """The next roll an attack needs: ``step`` attack / defense / soak, for ``target``."""

    step: str
    target: str
    pool: Pool

    @property
    def label(self) -> str:
        return f"{self.step} ({self.target}): {self.pool.total} dice"


@dataclass(frozen=True)
class TargetOutcome:
    """How the attack went against one target (fields None while rolls are missing)."""

    target: str
    attack: TestResult | None = None
    defense: TestResult | None = None
    soak: TestResult | None = None
    net_hits: int | None = None
    result: str | None = None  # "miss" | "graze" | "hit"
    dv: int | None = None  # modified damage value
    armor: int | None = None  # modified armor (may be < 0)
    damage_type: str | None = None
    boxes: int | None = None  # boxes to mark after soak


@dataclass(frozen=True)
class AttackResolution:
    """The rolls of an attack so far; immutable: :meth:`roll` returns the next state."""

    plan: AttackPlan
    rolls: tuple[tuple[str, str, TestResult], ...] = ()  # (target, step, result)

    def result(self, target: str, step: str) -> TestResult | None:
        return find_roll(self.rolls, target, step)

    def outcome(self, target: str) -> TargetOutcome:
        """Miss / graze / hit, modified DV and armor, damage type, boxes (seed 001 step 3)."""
        tp = self.plan.target(target)
        a, d, s = self.result(target, "attack"), self.result(target, "defense"), self.result(target, "soak")
        if a is None or d is None:
            return TargetOutcome(target, a, d, s)
        net = a.hits - d.hits
        if net < 0 or (a.hits == 0 and self.plan.zero_hit_tie == "miss"):
            return TargetOutcome(target, a, d, None, net, "miss")
        if net == 0:
            return TargetOutcome(target, a, d, None, 0, "graze")
        dv = tp.damage.value + net
        armor, dtype, boxes = resisted(dv, tp.damage.type, tp.armor, tp.ap, None if s is None else s.hits)
        return TargetOutcome(target, a, d, s, net, "hit", dv, armor, dtype, boxes)

    def next_roll(self) -> RollRequest | None:
        """The roll needed next, or None when the attack is fully resolved."""
        for tp in self.plan.targets:
            if self.result(tp.target, "attack") is None:
                return RollRequest("attack", tp.target, tp.attack)
            if self.result(tp.target, "defense") is None:
                return RollRequest("defense", tp.target, tp.defense)
            o = self.outcome(tp.target)
            if o.result == "hit" and o.soak is None:
                return RollRequest("soak", tp.target, tp.soak)
        return None

    @property
    def done(self) -> bool:
        return self.next_roll() is None

    def roll(self, dice: Roller | Sequence[int]) -> AttackResolution:
        """Make the next roll with a roller or typed faces (exactly the pool, plus one per 6
        with Edge on the attack)."""
        req = self.next_roll()
        if req is None:
            raise IllegalActionError("this attack needs no more rolls")
        res = roll_pool(req.pool, dice)
        return replace(self, rolls=self.rolls + ((req.target, req.step, res),))

    def _replace_roll(self, target: str, step: str, new: TestResult) -> AttackResolution:
        if self.result(target, step) is None:
            raise IllegalActionError(f"there is no {step} roll for {target} yet")
        return replace(self, rolls=tuple((t, s, new if (t, s) == (target, step) else r) for t, s, r in self.rolls))

    def second_chance(self, target: str, step: str, dice: Roller | Sequence[int]) -> AttackResolution:
        """The Second Chance Edge action on one roll (attack, defense or soak of ``target``):
        its misses rolled again (:func:`engine.sr5.edge.second_chance`). Book the Edge point
        with the ``second_chance`` action of the one who rolled."""
        return self._replace_roll(target, step, edge_rules.second_chance(self.result(target, step), dice)
                                  if self.result(target, step) is not None else None)

    def close_call(self, target: str, step: str) -> AttackResolution:
        """The Close Call Edge action on one roll: its glitch negated (a critical glitch
        becomes a glitch)."""
        r = self.result(target, step)
        return self._replace_roll(target, step, edge_rules.close_call(r) if r is not None else None)

    def steps(self) -> list[str]:
        """The story so far, a line per step, for the dialog and the log (targets by name)."""
        out = []
        for tp in self.plan.targets:
            o = self.outcome(tp.target)
            if o.attack is not None:
                out.append(f"{tp.who}: attack {tp.attack.describe()}: {o.attack.describe()}")
            if o.defense is not None:
                out.append(defense_step(tp.who, tp.defense, o.defense))
            if o.result == "miss":
                out.append(f"{tp.who}: miss ({o.attack.hits} vs {o.defense.hits})"
                           + (" - no hits" if o.attack.hits == 0 else ""))
            elif o.result == "graze":
                out.append(f"{tp.who}: graze (tie {o.attack.hits}): contact, no damage")
            elif o.result == "hit":
                out.append(f"{tp.who}: hit, {o.net_hits} net: DV {tp.damage.value} + {o.net_hits} = {o.dv}; "
                           + armor_step(tp.armor, tp.ap, o.armor, o.dv, o.damage_type, tp.damage.type))
                if o.soak is not None:
                    out.append(soak_step(tp.who, tp.soak, o.soak, o.boxes, o.damage_type))
        return out


def apply_attack(encounter: Encounter, resolution: AttackResolution, *, force: bool = False) -> tuple[Encounter, Change]:
    """Apply a fully rolled attack: spend the action (or the interrupt), ammunition, recoil,
    aim and Edge of the attacker; the defenders' interrupts, defense count, damage (with the
    Initiative a new wound modifier costs); and log it all."""
    plan = resolution.plan
    if not resolution.done:
        raise IllegalActionError(f"the attack is not resolved yet: {resolution.next_roll().label}")
    if plan.problems and not force:
        raise IllegalActionError(plan.problems[0])
    decl = plan.declaration
    edit = Edit(encounter)
    st = edit.settings
    aid = decl.attacker
    aname = _nm(encounter, aid)
    if decl.called_shot and not edit.sheet(aid).called_shot and in_combat(st) and edit.settings.acting == aid:
        spend(edit, aid, "call_shot", FREE)
    spend(edit, aid, plan.action if plan.cost != "none" else "quick_draw_fire", plan.cost,
          initiative=plan.cost_initiative)
    if len(plan.targets) > 1 and in_combat(st) and edit.settings.acting == aid:
        spend(edit, aid, "multiple_targets", FREE)
    if edit.sheet(aid).called_shot:
        edit.update_sheet(aid, called_shot=False)  # the called shot is made
    if not decl.intercept:
        mark_attacked(edit, aid)
    extra = {} if plan.recoil is None else {"recoil": edit.sheet(aid).recoil + plan.recoil.rounds}
    end_aim(edit, aid, decl.edge, **extra)
    # ammunition
    per_gun = plan.mode.rounds if plan.mode else (1 if plan.rounds else 0)
    unload(edit, aid, (plan.weapon.name, plan.second_weapon.name if plan.second_weapon else None), per_gun)
    left = edit.sheet(aid).readied.get(plan.weapon.name)
    if plan.action == "throw_weapon" and left is not None:  # one small throwing weapon fewer in hand
        upd: dict = {"readied": {**edit.sheet(aid).readied, plan.weapon.name: max(0, left - 1)}}
        if left - 1 <= 0:
            upd["in_hand"] = tuple(h for h in ready_weapons(edit.token(aid)) if h != plan.weapon.name)
        edit.update_sheet(aid, **upd)

    summary = []
    for tp in plan.targets:
        tid = tp.target
        tname = _nm(encounter, tid)
        o = resolution.outcome(tid)
        count_defense(edit, tid, tp.defense_choice, tp.interrupt_cost)
        rolls = [roll_record(tp.attack, o.attack), roll_record(tp.defense, o.defense)]
        line = f"{aname} -> {tname} with {plan.weapon.name}"
        if plan.mode:
            line += f" ({plan.mode.id})"
        line += f": {o.attack.hits} vs {o.defense.hits}: {o.result}"
        if o.result == "hit":
            rolls.append(roll_record(tp.soak, o.soak))
            dres = mark_damage(edit, tid, o.boxes or 0, o.damage_type or "P")
            line += f", {o.dv}{o.damage_type} vs soak {o.soak.hits}: {dres.describe()}"
            edit.details.setdefault("damage", {})[tid] = dres
        line += glitch_note(o.attack, aname) + glitch_note(o.defense, tname)
        edit.log(log_entry(edit.settings, aid, "attack", line, rolls))
        summary.append(f"{tname} {o.result}")
    edit.details["outcomes"] = {tp.target: resolution.outcome(tp.target) for tp in plan.targets}
    return edit.finish(f"{aname} attacks: " + ", ".join(summary))
