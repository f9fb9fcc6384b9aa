"""Grenades and blasts (sr5-facts.md, "Grenades and blasts"; seed 001's area-effect -2).

The GM draws a blast zone (kind ``blast``) on the map: its centre (``x``, ``y``) is where
the attacker aims. Then:

1. **Facts**: :func:`blast_facts` asks ``engine.analysis.Tactics`` who the blast circle
   catches (``zone_hits``: footprint inside the circle, not in full cover from its centre),
   who it spares (inside but in full cover), each one's distance from the centre and cover
   class, and how far the attacker stands from the aim point. :func:`plan_blast_on_map`
   measures and plans in one call.
2. **Plan** (:func:`plan_blast`, a :class:`BlastDeclaration` in): the attack pool -- thrown:
   Throwing Weapons + Agility [Physical]; launched: Heavy Weapons + Agility [Accuracy];
   threshold 3 -- with every modifier and its source (range band of the aim point, the
   environment, wounds ...), the blast (:data:`BLASTS`), the scatter dice, and for each
   token caught at the aim point the DV there, its defense pool (Reaction + Intuition,
   area effect -2, cover from the blast centre ...) and its soak pool (Body + armor + AP,
   :func:`engine.sr5.attack.soak_pool`). ``problems`` says why it is not allowed.
3. **Rolls** (``BlastResolution(plan)``, :meth:`BlastResolution.next_roll` /
   :meth:`~BlastResolution.roll`, step by step, a roller or typed faces): the attack; on a
   miss (fewer than 3 hits) the scatter dice and the direction die. The blast lands
   ``max(0, scatter dice - hits)`` metres away in the rolled direction
   (:data:`DIRECTION_TEXT`); when it moved, :meth:`BlastResolution.land` takes the facts at
   the landing point (measured on the map with the zone moved there). Then each token caught
   there defends and soaks.
4. **Apply** (:func:`apply_blast`): the action, the grenade or round spent, the zone moved
   to where the blast landed (and sized to its reach), each caught token's damage (with the
   Initiative a new wound costs), the log. Returns the new encounter and a
   :class:`~engine.sr5.changes.Change` (its ``zones_before`` put the zone back on undo).

Defaults where the texts are silent (docs/sr5.md): the direction die (``Options.
scatter_direction``), how a distance becomes whole metres (``blast_metres``), what a
defense hit does (``blast_defense``: each takes 1 off the DV there), and the circle the
blast fills (``blast_radius``: the grenade's reach, not the size drawn).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.errors import IllegalActionError
from engine.model import Encounter, Weapon
from engine.names import name_of, token_name, zone_name
from engine.ranges import band_at
from engine.sr5 import condition
from engine.sr5.attack import AttackDeclaration, RollRequest, defense_parts, resisted, soak_pool, soak_suppression
from engine.sr5.attack import weapon_bands as _weapon_bands
from engine.sr5.changes import Change, Edit, settings_of, sheet_of
from engine.sr5.actions import aim_cap, find_weapon, ready_weapons
from engine.sr5.economy import SIMPLE, cost_reason, in_combat, log_entry, spend
from engine.sr5.dice import Roller, TestResult
from engine.sr5.environment import EnvironmentResult, environment
from engine.sr5.facts import MapFacts, TargetFacts, TokenFacts
from engine.sr5.pools import Modifier, Pool, base, mod, roll_pool, roll_record
from engine.sr5.sheet import Options
from engine.sr5.steps import (
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
from engine.sr5.tables import Damage, parse_damage, physical_limit, smartlinked, weapon_skill, wireless_smartlink_dice

#: Hits a blast attack needs to land where it was aimed (sr5-facts.md: threshold 3).
THRESHOLD = 3


# ---------------------------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BlastSpec:
    """What one kind of grenade (or launcher round) does when it goes off.

    ``damage`` is a damage code (None: no damage, gas and smoke), ``ap`` its armor
    penetration, ``falloff`` the DV lost per metre from the centre (0: the same DV all over
    ``radius``), ``radius`` the metres the effect fills (None: as far as the DV lasts,
    ``DV / falloff`` metres)."""

    kind: str
    label: str
    damage: str | None
    ap: int
    falloff: int
    radius: float | None

    def reach(self, dv: int | None = None) -> float:
        """Metres from the centre the blast reaches: its ``radius``, else where the DV
        (``dv``, default the table's) has fallen to 0."""
        if self.radius is not None:
            return float(self.radius)
        value = dv if dv is not None else parse_damage(self.damage).value
        return max(0.0, value / self.falloff)


#: sr5-facts.md: fragmentation 18P(f) AP +5, -1 DV per metre; high explosive 16P AP -2,
#: -2 DV per metre; flash-bang 10S AP -4 within 10 m; gas and smoke fill 10 m (no damage of
#: their own: their effects are the GM's). A weapon's own ``damage`` (and ``ap``) replace the
#: table's DV and AP; the falloff and radius are always the table's.
BLASTS: dict[str, BlastSpec] = {
    b.kind: b
    for b in (
        BlastSpec("fragmentation", "fragmentation", "18P(f)", 5, 1, None),
        BlastSpec("high_explosive", "high explosive", "16P", -2, 2, None),
        BlastSpec("flash_bang", "flash-bang", "10S", -4, 0, 10.0),
        BlastSpec("gas", "gas", None, 0, 0, 10.0),
        BlastSpec("smoke", "smoke", None, 0, 0, 10.0),
    )
}

#: Scatter dice (D6 metres) per projectile (sr5-facts.md).
SCATTER_DICE = {"standard": 1, "aerodynamic": 2, "grenade_launcher": 3, "missile": 4, "rocket": 5}
PROJECTILE_LABEL = {"standard": "standard grenade", "aerodynamic": "aerodynamic grenade",
                    "grenade_launcher": "grenade launcher", "missile": "missile", "rocket": "rocket"}
#: The projectile a weapon category throws or fires (a rocket is declared: ``projectile="rocket"``).
CATEGORY_PROJECTILE = {"standard_grenade": "standard", "aerodynamic_grenade": "aerodynamic",
                       "grenade_launcher": "grenade_launcher", "missile_launcher": "missile"}
THROWN_BLAST_CATEGORIES = ("standard_grenade", "aerodynamic_grenade")
#: How a scatter direction is read off the dice (``Options.scatter_direction``), measured
#: clockwise on the map from the line of the throw (thrower -> aim point).
DIRECTION_TEXT = {
    "d6": "1D6: 1 straight on past the aim point, each face 60\u00b0 further clockwise (4 back toward the thrower)",
    "d12": "2D6 as a clock: the first die is the hour, +6 when the second shows 4-6; 12 o'clock straight on, "
           "3 to the thrower's right, 6 back toward the thrower",
}


def is_blast_weapon(weapon: Weapon) -> bool:
    """A weapon that makes a blast: it says what it carries (``blast``) or is a grenade or
    launcher by its category."""
    return weapon.blast is not None or weapon.category in CATEGORY_PROJECTILE


def blast_weapon(token, name: str | None = None) -> Weapon:
    """The weapon a blast attack uses: the named one; without a name the first ready weapon
    when it makes a blast, else the first blast weapon the token carries, else the first
    ready one (``engine.sr5.actions.find_weapon``)."""
    if name is not None:
        return find_weapon(token, name)
    ready = [token.weapon(n) for n in ready_weapons(token)]
    for w in ready + list(token.weapons):
        if w is not None and is_blast_weapon(w):
            return w
    return find_weapon(token, None)


def blast_spec(weapon: Weapon) -> BlastSpec | None:
    """The table row of what ``weapon`` carries (None when it does not say); a weapon's own
    ``blast_falloff`` (DV a metre) and ``blast_radius`` (metres), as a Chummer import reads
    them from the save ("16P (-2/m)", "10S (10m Radius)"), replace the table's."""
    spec = BLASTS.get(weapon.blast) if weapon.blast else None
    if spec is None:
        return None
    extra = weapon.model_extra or {}
    fall, radius = extra.get("blast_falloff"), extra.get("blast_radius")
    if isinstance(fall, int) and not isinstance(fall, bool) and 0 <= fall <= 100 and (fall or spec.radius or radius):
        spec = replace(spec, falloff=fall)
    if isinstance(radius, (int, float)) and not isinstance(radius, bool) and 0 < radius <= 1000:
        spec = replace(spec, radius=float(radius))
    return spec


def blast_damage(weapon: Weapon, spec: BlastSpec, strength: int = 3) -> tuple[Damage | None, int]:
    """The blast's damage at its centre and its AP: the weapon's own ``damage``/``ap`` when it
    gives a damage code, else the table's (None: no damage)."""
    if weapon.damage:
        return parse_damage(weapon.damage, strength, weapon=weapon.name), weapon.ap
    if spec.damage is None:
        return None, 0
    return parse_damage(spec.damage, weapon=weapon.name), spec.ap


def whole_metres(distance: float, rounding: str = "floor") -> int:
    """A distance (m) as whole metres for the blast falloff: ``floor`` (metres completed, the
    default: 0.9 m -> 0, 1.0 m -> 1), ``round`` (half up) or ``ceil``."""
    d = max(0.0, float(distance))
    eps = 1e-9
    if rounding == "ceil":
        return max(0, math.ceil(d - eps))
    if rounding == "round":
        return int(math.floor(d + 0.5 + eps))
    return int(math.floor(d + eps))


def dv_at(dv: int, spec: BlastSpec, radius: float, distance: float, rounding: str = "floor") -> tuple[int, int]:
    """(whole metres, DV) of a blast of centre DV ``dv`` at ``distance`` metres from its
    centre: ``dv - falloff x metres``; for an even blast (no falloff) ``dv`` inside
    ``radius`` metres and 0 beyond. Never below 0."""
    metres = whole_metres(distance, rounding)
    if spec.falloff:
        return metres, max(0, dv - spec.falloff * metres)
    return metres, dv if distance <= radius + 1e-9 else 0


def scatter_bearing(throw: float, faces: Sequence[int], how: str = "d6") -> float:
    """Degrees (0 east, 90 south) the blast scatters toward, from the direction of the throw
    ``throw`` and the direction dice ``faces`` (:data:`DIRECTION_TEXT`)."""
    if how == "d12":
        hour = faces[0] + (6 if faces[1] >= 4 else 0)
        return (throw + 30.0 * (hour % 12)) % 360.0
    return (throw + 60.0 * (faces[0] - 1)) % 360.0


def direction_label(faces: Sequence[int], how: str = "d6") -> str:
    if how == "d12":
        hour = faces[0] + (6 if faces[1] >= 4 else 0)
        return f"{hour} o'clock"
    return f"face {faces[0]}"


# ---------------------------------------------------------------------------------------------
# map facts
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CaughtFacts:
    """A token the blast circle catches: ``distance`` metres from the blast centre to its
    centre, its cover class and fraction from the centre (never full: full cover spares),
    and the fraction of its footprint inside the circle."""

    id: str
    distance: float
    cover: str = "none"
    cover_fraction: float = 0.0
    inside: float = 1.0


@dataclass(frozen=True)
class BlastFacts:
    """What the map says about one blast: the circle (centre ``x``, ``y`` and ``radius``,
    metres), how far the attacker stands from its centre (``attacker_distance``), who it
    catches and who it spares (inside the circle but in full cover from the centre: ``(id,
    reason)``), and per token its melee contact and suppressive zones (``tokens``)."""

    zone: str
    x: float
    y: float
    radius: float
    attacker_distance: float
    caught: tuple[CaughtFacts, ...] = ()
    spared: tuple[tuple[str, str], ...] = ()
    tokens: Mapping[str, TokenFacts] = field(default_factory=dict)

    def token(self, ident: str) -> TokenFacts:
        return self.tokens.get(ident, TokenFacts())


def blast_facts(encounter: Encounter, zone: str, attacker: str, *, x: float | None = None, y: float | None = None,
                radius: float | None = None, tactics: Any = None, options: Options | None = None) -> BlastFacts:
    """The facts of blast zone ``zone`` thrown by ``attacker``, with the circle at (``x``,
    ``y``) of ``radius`` metres when given (else as the zone is drawn). Asks
    :func:`engine.whatif.what_if` (a fork of ``tactics`` when given, which stays as it was):
    ``zone_hits`` for who is caught, ``zone_shape`` for who is inside at all."""
    from engine.sr5.facts import facts_from_tactics
    from engine.whatif import what_if
    from geometry.zones import discs_in_shape

    z = encounter.zone(zone)
    a = encounter.token(attacker)
    upd = {k: float(v) for k, v in (("x", x), ("y", y), ("radius", radius)) if v is not None}
    moved = (z.model_copy(update=upd),) if upd else ()
    try:
        tac = what_if(encounter, zones=moved, tactics=tactics)  # a given tactics is not changed
    except IllegalActionError as exc:
        raise IllegalActionError(f"blast zone {zone!r} at {upd}: {exc.reason.split(': ', 1)[-1]}") from None
    enc = tac.encounter
    z = enc.zone(zone)
    hits = {h.id: h for h in tac.zone_hits().get(zone, [])}
    toks = enc.tokens
    inside = discs_in_shape(tac.zone_shape(zone), [(t.x, t.y) for t in toks], [t.radius for t in toks]) \
        if toks else []
    tokens = dict(facts_from_tactics(tac, enc, attacker, [], None, options).tokens)
    from geometry.cover import cover_class

    cx, cy = float(z.x), float(z.y)
    caught, spared = [], []
    for t, f in zip(toks, inside):
        h = hits.get(t.id)
        d = math.hypot(t.x - cx, t.y - cy)
        if h is not None:
            caught.append(CaughtFacts(t.id, d, cover_class(h.cover), float(h.cover), float(h.fraction)))
        elif f > 0:
            spared.append((t.id, "full cover from the blast"))
    return BlastFacts(zone, cx, cy, float(z.radius), math.hypot(a.x - cx, a.y - cy), tuple(caught), tuple(spared),
                      tokens)


# ---------------------------------------------------------------------------------------------
# the plan
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BlastDeclaration:
    """``attacker`` throws or fires ``weapon`` (None: :func:`blast_weapon`) at the centre of
    blast zone ``zone``. ``projectile`` names what scatters (standard, aerodynamic,
    grenade_launcher, missile, rocket; None: from the weapon's category); ``scatter_dice``
    the GM's number instead; ``fit_radius`` whether the circle becomes the blast's reach
    (None: ``Options.blast_radius``); ``edge`` Push the Limit; ``defenses`` maps a token to
    ``normal`` or ``full_defense`` (an interrupt, paid when applied)."""

    attacker: str
    zone: str
    weapon: str | None = None
    edge: bool = False
    projectile: str | None = None
    scatter_dice: int | None = None
    fit_radius: bool | None = None
    defenses: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BlastTargetPlan:
    """One token caught by the blast: its facts, the whole metres and DV where it stands
    (0: beyond the blast's reach), the damage type and AP, its armor, its defense and soak
    pools."""

    target: str
    facts: CaughtFacts
    metres: int
    dv: int
    damage_type: str
    ap: int
    armor: int
    defense: Pool
    soak: Pool
    defense_choice: str = "normal"
    interrupt_cost: int = 0
    name: str = ""  # the token's display name (engine.names), for the lines a person reads

    @property
    def who(self) -> str:
        """The token's name for a story line (its id when the plan has no name)."""
        return self.name or self.target

    @property
    def harmed(self) -> bool:
        """Whether the blast can hurt it (it has a DV above 0 where it stands)."""
        return self.dv > 0


@dataclass(frozen=True)
class BlastPlan:
    """Everything about a blast attack before the dice (see the module docstring).

    ``aim`` and ``origin`` are the aim point and the attacker's centre (m); ``radius`` the
    circle the blast fills (m) and ``reach`` how far its DV lasts; ``damage`` the DV at the
    centre (None: gas or smoke); ``targets`` the tokens caught if it lands on the aim point."""

    encounter: Encounter = field(repr=False, compare=False)
    declaration: BlastDeclaration
    weapon: Weapon
    spec: BlastSpec
    thrown: bool
    projectile: str
    action: str
    cost: str
    attack: Pool
    band: str | None
    environment: EnvironmentResult | None
    damage: Damage | None
    ap: int
    radius: float
    reach: float
    scatter_dice: int
    aim: tuple[float, float]
    origin: tuple[float, float]
    facts: BlastFacts
    targets: tuple[BlastTargetPlan, ...]
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    target_overrides: tuple[tuple[str, str, str, int, str | None], ...] = ()  # (target, pool, key, value, label)

    @property
    def legal(self) -> bool:
        return not self.problems

    @property
    def throw_bearing(self) -> float:
        """Degrees from the attacker toward the aim point (0 east, 90 south; 0 when the
        attacker stands on it)."""
        dx, dy = self.aim[0] - self.origin[0], self.aim[1] - self.origin[1]
        return 0.0 if math.hypot(dx, dy) < 1e-9 else math.degrees(math.atan2(dy, dx)) % 360.0

    def target(self, ident: str) -> BlastTargetPlan:
        for t in self.targets:
            if t.target == ident:
                return t
        raise IllegalActionError(f"{ident!r} is not caught by this blast where it was aimed")

    # -- GM edits -------------------------------------------------------------------------------
    def override(self, key: str, value: int, *, target: str | None = None, pool: str = "attack",
                 label: str | None = None) -> BlastPlan:
        """The GM sets modifier ``key`` to ``value``: in the attack pool (``"limit:..."`` for
        the limit), or with ``target`` in that token's ``defense`` or ``soak`` pool (kept
        for it wherever the blast lands). An unknown key adds a GM modifier named ``label``."""
        if pool == "attack":
            return replace(self, attack=self.attack.override(key, value, label))
        if pool not in ("defense", "soak"):
            raise IllegalActionError(f"pool {pool!r} is not attack, defense or soak")
        if target is None:
            raise IllegalActionError(f"say whose {pool} pool to change")
        self.encounter.token(target)
        if isinstance(value, bool) or not isinstance(value, int):
            raise IllegalActionError(f"modifier {key!r}: {value!r} is not a whole number of dice")
        kept = tuple(o for o in self.target_overrides if o[:3] != (target, pool, key))
        plan = replace(self, target_overrides=kept + ((target, pool, key, int(value), label),))
        return replace(plan, targets=_target_plans(plan, plan.facts))

    def with_damage(self, *, dv: int | None = None, ap: int | None = None, damage_type: str | None = None) -> BlastPlan:
        """The GM changes the blast's DV at the centre, its AP or its type (P/S)."""
        if self.damage is None:
            raise IllegalActionError(f"a {self.spec.label} grenade does no damage of its own")
        dmg = self.damage
        if dv is not None or damage_type is not None:
            t = (damage_type or dmg.type).upper()
            if t not in ("P", "S"):
                raise IllegalActionError(f"damage type {damage_type!r} is not P or S")
            dmg = replace(dmg, value=int(dv) if dv is not None else dmg.value, type=t)
        plan = replace(self, damage=dmg, ap=self.ap if ap is None else int(ap))
        return replace(plan, targets=_target_plans(plan, plan.facts))

    def with_scatter_dice(self, n: int) -> BlastPlan:
        """The GM rolls ``n`` scatter dice instead (5 for a rocket ...)."""
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 10:
            raise IllegalActionError(f"scatter dice {n!r}: give 0 to 10 dice")
        return replace(self, scatter_dice=n)

    def describe(self) -> list[str]:
        """The plan as lines: the attack pool, the blast, each caught token's pools."""
        lines = [f"{self.weapon.name} ({self.spec.label}) at {self.aim[0]:.1f}, {self.aim[1]:.1f}: "
                 f"attack {self.attack.describe()}",
                 f"blast: {self.damage_text()}; circle {self.radius:.1f} m; scatter {self.scatter_dice}D6 m"]
        for t in self.targets:
            lines.append(f"{t.who}: {t.facts.distance:.1f} m -> {t.metres} m: DV {t.dv}{t.damage_type}; "
                         f"defense {t.defense.describe()}; soak {t.soak.describe()}")
        lines += [f"not allowed: {p}" for p in self.problems]
        lines += list(self.notes)
        return lines

    def damage_text(self) -> str:
        """``"18P(f) AP +5, -1 DV per metre"``; ``"10S AP -4 within 10 m"``; ``"no damage"``."""
        if self.damage is None:
            return f"no damage ({self.spec.label} fills {self.radius:.0f} m)"
        el = f"({self.damage.element})" if self.damage.element else ""
        s = f"{self.damage.value}{self.damage.type}{el} AP {self.ap:+d}"
        if self.spec.falloff:
            s += f", -{self.spec.falloff} DV per metre (reaches {self.reach:.0f} m)"
        else:
            s += f" within {self.reach:.0f} m"
        return s


def blast_radius(encounter: Encounter, decl: BlastDeclaration) -> float:
    """The radius (m) the blast of ``decl`` fills: the grenade's reach when the circle is
    fitted (``decl.fit_radius``, default ``Options.blast_radius == "weapon"``), else the zone
    as drawn."""
    z = encounter.zone(decl.zone)
    fit = decl.fit_radius if decl.fit_radius is not None else settings_of(encounter).options.blast_radius == "weapon"
    drawn = float(z.radius) if z.radius is not None else 0.0
    if not fit:
        return drawn
    tok = encounter.token(decl.attacker)
    try:
        w = blast_weapon(tok, decl.weapon)
    except IllegalActionError:
        return drawn
    spec = blast_spec(w)
    if spec is None:
        return drawn
    try:
        dmg, _ = blast_damage(w, spec, sheet_of(tok).strength)
    except IllegalActionError:
        return drawn
    reach = spec.reach(dmg.value if dmg is not None else None)
    return reach if reach > 0 else drawn


def plan_blast_on_map(encounter: Encounter, decl: BlastDeclaration, tactics: Any = None) -> BlastPlan:
    """Measure the blast on the map (:func:`blast_facts`, circle of :func:`blast_radius`)
    and plan it (:func:`plan_blast`)."""
    f = blast_facts(encounter, decl.zone, decl.attacker, radius=blast_radius(encounter, decl) or None,
                    tactics=tactics, options=settings_of(encounter).options)
    return plan_blast(encounter, decl, f)


def plan_blast(encounter: Encounter, decl: BlastDeclaration, facts: BlastFacts) -> BlastPlan:
    """The attack pool with each modifier and its source, the blast, the scatter dice, the
    tokens caught at the aim point with their pools, and why the attack is not allowed
    (``problems``). Raises only for unknown ids."""
    st = settings_of(encounter)
    opts = st.options
    atok = encounter.token(decl.attacker)
    ash = sheet_of(atok)
    aname = token_name(atok)
    zone = encounter.zone(decl.zone)
    w = blast_weapon(atok, decl.weapon)
    problems: list[str] = []
    notes: list[str] = []
    if zone.kind != "blast":
        problems.append(f"{zone_name(zone, encounter)} is a {zone.kind} zone; a grenade is aimed at a blast zone")
    spec = blast_spec(w)
    if spec is None:
        if is_blast_weapon(w):
            problems.append(f"{w.name} does not say what it carries: set its blast (fragmentation, high_explosive, "
                            "flash_bang, gas or smoke)")
        else:
            problems.append(f"{w.name} is no grenade or launcher (give it a blast and a grenade or launcher category)")
        spec = BLASTS["fragmentation"]
    category = w.category if w.category in CATEGORY_PROJECTILE else None
    if category is None:
        category = "standard_grenade"
        if is_blast_weapon(w):
            notes.append(f"{w.name} has no grenade or launcher category: thrown as a standard grenade")
    thrown = category in THROWN_BLAST_CATEGORIES
    projectile = decl.projectile or CATEGORY_PROJECTILE[category]
    if projectile not in SCATTER_DICE:
        raise IllegalActionError(f"projectile {projectile!r} is not one of {', '.join(SCATTER_DICE)}")
    scatter = decl.scatter_dice if decl.scatter_dice is not None else SCATTER_DICE[projectile]
    if not condition.can_act(ash) and not ash.last_action:
        problems.append(f"{aname} is {condition.status(ash)} and cannot attack")

    # -- action, readiness, ammunition ---------------------------------------------------------------
    action = "throw_weapon" if thrown else "fire_weapon"
    cost = SIMPLE
    reason = cost_reason(st, decl.attacker, ash, cost, names=encounter)
    if reason:
        problems.append(reason)
    if in_combat(st) and st.acting == decl.attacker and st.phase.attacked:
        problems.append(f"{aname} has already attacked this Action Phase (one attack per phase)")
    if w.name not in ready_weapons(atok):
        problems.append(f"{w.name} is not ready: Ready Weapon first (Simple Action)")
    if w.loaded is not None and w.loaded < 1:
        problems.append(f"{w.name}: none left" if thrown else f"{w.name} is empty")
    elif w.ammo is not None and w.loaded is None and not thrown:
        problems.append(f"{w.name} has no clip in")
    if decl.edge and ash.edge_left < 1:
        problems.append(f"{aname} has no Edge left")
    for tid, choice in decl.defenses.items():
        if choice not in ("normal", "full_defense"):
            problems.append(f"{name_of(encounter, tid)}: against a blast only normal defense or Full Defense, not {choice!r}")

    # -- the attack pool -----------------------------------------------------------------------------
    skill_key = weapon_skill(w) if (w.skill or w.category in CATEGORY_PROJECTILE) else (
        "throwing_weapons" if thrown else "heavy_weapons")
    skill = ash.skill(skill_key)
    skill_label = skill_key.replace("_", " ").title()
    parts: list[Modifier] = [base("skill", skill_label, skill), base("agility", "Agility", ash.agility)]
    if skill == 0:
        notes.append(f"{aname} has no {skill_label} skill (defaulting is the GM's call)")
    parts += wound_parts(ash, opts)
    parts += running_parts(ash, opts)
    a_facts = facts.token(decl.attacker)
    parts += busy_shooter_parts(ash, a_facts)
    parts += smartlink_parts(ash, wireless_smartlink_dice(w, ash))
    cap = aim_cap(ash, w, st)
    aim = min(ash.aim, cap) if ash.aim_weapon == w.name else 0
    both = smartlinked(w, ash) and ash.wireless
    if aim and (ash.aim_bonus == "pool" or both):
        parts.append(mod("aim", f"Take Aim x{ash.aim}" + (f" (most {cap})" if ash.aim > cap else ""), aim, "sheet"))
    sup = suppression_modifier(st, decl.attacker, ash, a_facts.near_zones, names=encounter)
    if sup is not None:
        parts.append(sup)
    parts += edge_parts(ash, decl.edge)
    # range band of the aim point, in the environment table
    band_name = None
    bands = _weapon_bands(w, ash)
    if bands is None:
        from engine.ranges import bands_for

        bands = (bands_for(category, ash.strength), 0.0)
    dist = facts.attacker_distance
    b = band_at(bands[0], dist, bands[1])
    if b is None:
        if dist < bands[1]:
            problems.append(f"the aim point is {dist:.1f} m away, inside the {bands[1]:.0f} m minimum range of {w.name}")
        else:
            problems.append(f"the aim point is {dist:.1f} m away, beyond the extreme range ({bands[0][-1].max:.0f} m) "
                            f"of {w.name}")
    else:
        band_name = b.band
    from engine.vision import light_at

    here = light_at(encounter, zone.x, zone.y) if zone.x is not None and zone.y is not None else None
    env = environment(st.environment, ash, band=band_name, distance=dist, smartlink=smartlinked(w, ash), light=here)
    if env.modifier:
        parts.append(mod("environment", env.label(), env.modifier, "environment"))
    limit: list[Modifier] = []
    if thrown:
        limit.append(base("physical", "Physical limit", physical_limit(ash), "sheet"))
    elif w.accuracy is not None:
        limit.append(base("accuracy", f"accuracy of {w.name}", w.accuracy, "weapon"))
        if smartlinked(w, ash):
            limit.append(mod("smartgun", "smartgun", 2, "weapon"))
    if limit and aim and (ash.aim_bonus == "limit" or both):
        limit.append(mod("aim", f"Take Aim x{ash.aim}", aim, "sheet"))
    how = "throws" if thrown else "fires"
    attack = Pool(f"{aname} {how} {w.name}", tuple(parts), tuple(limit), decl.edge, threshold=THRESHOLD)

    # -- the blast -----------------------------------------------------------------------------------
    dmg, ap = blast_damage(w, spec, ash.strength)
    reach = spec.reach(dmg.value if dmg is not None else None)
    radius = facts.radius
    if zone.radius is not None and abs(radius - float(zone.radius)) > 1e-6:
        notes.append(f"the circle drawn {float(zone.radius):.1f} m becomes the blast's {radius:.1f} m")
    elif dmg is not None and spec.falloff and radius < reach - 1e-6:
        notes.append(f"the circle is drawn {radius:.1f} m; the blast reaches {reach:.1f} m (Options.blast_radius)")
    if zone.x is None or zone.y is None:
        raise IllegalActionError(f"{zone_name(zone, encounter)} has no centre", ids=(zone.id,))
    plan = BlastPlan(encounter, decl, w, spec, thrown, projectile, action, cost, attack, band_name, env, dmg, ap,
                     radius, reach, scatter, (facts.x, facts.y), (atok.x, atok.y), facts, (), tuple(problems),
                     tuple(notes))
    tps = _target_plans(plan, facts, problems=problems)
    return replace(plan, targets=tps, problems=tuple(problems))


def _target_plans(plan: BlastPlan, facts: BlastFacts, problems: list[str] | None = None) -> tuple[BlastTargetPlan, ...]:
    """Each caught token's DV, defense and soak pools for a blast centred where ``facts``
    say, with the GM's overrides; interrupts it cannot pay go to ``problems`` when given (a
    token caught only where the blast scattered to defends normally instead)."""
    enc = plan.encounter
    st = settings_of(enc)
    opts = st.options
    decl = plan.declaration
    dtype = plan.damage.type if plan.damage is not None else "P"
    dv0 = plan.damage.value if plan.damage is not None else 0
    mf = MapFacts({}, dict(facts.tokens))
    attack_decl = AttackDeclaration(decl.attacker, (), plan.weapon.name, area=True)
    out = []
    for cf in facts.caught:
        ttok = enc.token(cf.id)
        tsh = sheet_of(ttok)
        tname = token_name(ttok)
        metres, dv = dv_at(dv0, plan.spec, plan.radius, cf.distance, opts.blast_metres) if plan.damage else (
            whole_metres(cf.distance, opts.blast_metres), 0)
        choice = decl.defenses.get(cf.id, "normal")
        if choice not in ("normal", "full_defense"):
            choice = "normal"
        tf = TargetFacts(cf.id, cf.distance, cf.cover if cf.cover != "full" else "good", True, True, False,
                         cf.cover_fraction)
        mine: list[str] = []
        dparts, dlimit, ini = defense_parts(enc, st, cf.id, ttok, tsh, choice, False, None, None, tf, attack_decl, mf,
                                             mine, plan.weapon)
        if mine and choice != "normal" and problems is None:
            choice = "normal"
            dparts, dlimit, ini = defense_parts(enc, st, cf.id, ttok, tsh, choice, False, None, None, tf, attack_decl,
                                                 mf, [], plan.weapon)
        elif problems is not None and dv > 0:
            problems.extend(mine)
        for p in dparts:
            if p.key == "cover":
                dparts[dparts.index(p)] = replace(p, label=f"{p.label} from the blast")
        defense = Pool(f"{tname} dives from the blast", tuple(dparts), tuple(dlimit))
        soak = soak_pool(tname, tsh, plan.ap, soak_suppression(st, cf.id, tsh, mf.token(cf.id).near_zones,
                                                                      names=plan.encounter))
        for t, pool, key, value, label in plan.target_overrides:
            if t != cf.id:
                continue
            if pool == "defense":
                defense = defense.override(key, value, label)
            else:
                soak = soak.override(key, value, label)
        out.append(BlastTargetPlan(cf.id, cf, metres, dv, dtype, plan.ap, tsh.armor, defense, soak, choice,
                                   ini if choice != "normal" else 0, tname))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# resolution
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BlastRollRequest(RollRequest):
    """The next roll: ``step`` attack / scatter / direction / defense / soak, for ``target``
    (the attacker for the first three), with the ``pool`` of dice to roll."""


@dataclass(frozen=True)
class BlastOutcome:
    """How the blast went for one caught token: ``result`` is ``beyond`` (no DV where it
    stands), ``escapes`` (its defense took the DV to 0), ``hit``, or ``caught`` (gas and
    smoke: no damage of their own); ``dv_here`` the DV where it stands, ``dv`` after its
    defense, ``armor`` modified by AP, ``boxes`` after soak (fields None while rolls are
    missing)."""

    target: str
    distance: float
    metres: int
    dv_here: int
    defense: TestResult | None = None
    soak: TestResult | None = None
    result: str | None = None
    dv: int | None = None
    armor: int | None = None
    damage_type: str | None = None
    boxes: int | None = None


@dataclass(frozen=True)
class BlastResolution:
    """The rolls of a blast attack so far; immutable: :meth:`roll` and :meth:`land` return
    the next state. ``landing_facts`` are the facts where a scattered blast landed."""

    plan: BlastPlan
    attack: TestResult | None = None
    scatter: TestResult | None = None
    direction: TestResult | None = None
    landing_facts: BlastFacts | None = None
    landed: tuple[BlastTargetPlan, ...] | None = None
    rolls: tuple[tuple[str, str, TestResult], ...] = ()  # (target, defense|soak, result)

    # -- where it lands ------------------------------------------------------------------------
    @property
    def on_target(self) -> bool | None:
        """Whether the attack reached the threshold (None before it is rolled)."""
        return None if self.attack is None else self.attack.hits >= THRESHOLD

    @property
    def scatter_metres(self) -> int | None:
        """Metres the blast scatters: the scatter dice minus the attack's hits, at least 0
        (0 on a hit; None before the dice are rolled)."""
        if self.attack is None:
            return None
        if self.on_target:
            return 0
        if self.scatter is None:
            return None
        return max(0, sum(self.scatter.dice) - self.attack.hits)

    @property
    def bearing(self) -> float | None:
        """Degrees (0 east, 90 south) the blast scattered toward, None when it did not."""
        if not self.scatter_metres or self.direction is None:
            return None
        return scatter_bearing(self.plan.throw_bearing, self.direction.dice,
                               settings_of(self.plan.encounter).options.scatter_direction)

    @property
    def landing(self) -> tuple[float, float] | None:
        """Where the blast goes off (m), kept on the map; None while rolls are missing."""
        m = self.scatter_metres
        if m is None:
            return None
        if m == 0:
            return self.plan.aim
        b = self.bearing
        if b is None:
            return None
        ax, ay = self.plan.aim
        x = ax + m * math.cos(math.radians(b))
        y = ay + m * math.sin(math.radians(b))
        mp = self.plan.encounter.map
        return (min(max(x, 0.0), float(mp.width)), max(min(y, float(mp.height)), 0.0))

    @property
    def moved(self) -> bool:
        """Whether the blast landed away from the aim point."""
        p = self.landing
        return p is not None and math.hypot(p[0] - self.plan.aim[0], p[1] - self.plan.aim[1]) > 1e-9

    @property
    def needs_facts(self) -> bool:
        """The blast landed elsewhere and the map has not yet said who is caught there
        (:meth:`land`)."""
        return self.moved and self.landing_facts is None

    @property
    def facts(self) -> BlastFacts | None:
        """The facts where the blast goes off (None until known)."""
        if self.landing is None:
            return None
        return self.landing_facts if self.moved else self.plan.facts

    @property
    def targets(self) -> tuple[BlastTargetPlan, ...]:
        """The tokens caught where the blast goes off (the aim point's until it scatters)."""
        if self.moved:
            return self.landed or ()
        return self.plan.targets

    def target(self, ident: str) -> BlastTargetPlan:
        for t in self.targets:
            if t.target == ident:
                return t
        raise IllegalActionError(f"{ident!r} is not caught where the blast goes off")

    def land(self, facts: BlastFacts) -> BlastResolution:
        """The map's facts at the landing point (:func:`blast_facts` with the zone there)."""
        p = self.landing
        if p is None:
            raise IllegalActionError("the blast has not landed yet")
        if math.hypot(facts.x - p[0], facts.y - p[1]) > 1e-6:
            raise IllegalActionError(f"these facts are for a blast at {facts.x:.1f}, {facts.y:.1f}, "
                                     f"not where it landed ({p[0]:.1f}, {p[1]:.1f})")
        return replace(self, landing_facts=facts, landed=_target_plans(self.plan, facts), rolls=())

    # -- rolls ---------------------------------------------------------------------------------
    def result(self, target: str, step: str) -> TestResult | None:
        return find_roll(self.rolls, target, step)

    def outcome(self, target: str) -> BlastOutcome:
        """The token's result: beyond the blast, escapes, hit (with DV, armor, type, boxes)."""
        tp = self.target(target)
        o = BlastOutcome(target, tp.facts.distance, tp.metres, tp.dv)
        if self.plan.damage is None:
            return replace(o, result="caught")
        if not tp.harmed:
            return replace(o, result="beyond")
        dodge = settings_of(self.plan.encounter).options.blast_defense == "dodge"
        d = self.result(target, "defense")
        if dodge and d is None:
            return o
        dv = tp.dv - (d.hits if d is not None else 0)
        if dv <= 0:
            return replace(o, defense=d, result="escapes", dv=0)
        s = self.result(target, "soak")
        armor, dtype, boxes = resisted(dv, tp.damage_type, tp.armor, tp.ap, None if s is None else s.hits)
        return replace(o, defense=d, soak=s, result="hit", dv=dv, armor=armor, damage_type=dtype, boxes=boxes)

    def next_roll(self) -> BlastRollRequest | None:
        """The roll needed next, or None (resolved, or waiting for :meth:`land`)."""
        p = self.plan
        who = p.declaration.attacker
        if self.attack is None:
            return BlastRollRequest("attack", who, p.attack)
        if not self.on_target:
            if self.scatter is None:
                return BlastRollRequest("scatter", who, _scatter_pool(p, self.attack.hits))
            if self.scatter_metres and self.direction is None:
                return BlastRollRequest("direction", who, _direction_pool(p))
        if self.needs_facts or p.damage is None:
            return None
        dodge = settings_of(p.encounter).options.blast_defense == "dodge"
        for tp in self.targets:
            if not tp.harmed:
                continue
            if dodge and self.result(tp.target, "defense") is None:
                return BlastRollRequest("defense", tp.target, tp.defense)
            o = self.outcome(tp.target)
            if o.result == "hit" and o.soak is None:
                return BlastRollRequest("soak", tp.target, tp.soak)
        return None

    @property
    def done(self) -> bool:
        return self.attack is not None and not self.needs_facts and self.next_roll() is None

    def roll(self, dice: Roller | Sequence[int]) -> BlastResolution:
        """Make the next roll with a roller or typed faces (exactly the dice asked for)."""
        req = self.next_roll()
        if req is None:
            raise IllegalActionError("the blast is waiting for the map (where it landed)" if self.needs_facts
                                     else "this blast needs no more rolls")
        res = roll_pool(req.pool, dice)
        if req.step == "attack":
            return replace(self, attack=res)
        if req.step == "scatter":
            return replace(self, scatter=res)
        if req.step == "direction":
            return replace(self, direction=res)
        return replace(self, rolls=self.rolls + ((req.target, req.step, res),))

    # -- the story -----------------------------------------------------------------------------
    def landing_text(self) -> str:
        """``"on target"`` or ``"scatters 4 m (2D6 [3 3] - 2 hits) toward 60 deg (face 2) to 21.0, 33.5"``."""
        p = self.plan
        if self.attack is None:
            return ""
        if self.on_target:
            return f"on target ({p.aim[0]:.1f}, {p.aim[1]:.1f})"
        if self.scatter is None:
            return "misses: scatter to roll"
        faces = " ".join(str(d) for d in self.scatter.dice) or "-"
        s = f"scatters {self.scatter_metres} m ({p.scatter_dice}D6 [{faces}] - {self.attack.hits} hits)"
        if not self.scatter_metres:
            return s + f": lands on the aim point ({p.aim[0]:.1f}, {p.aim[1]:.1f})"
        if self.direction is None:
            return s + ": direction to roll"
        how = settings_of(p.encounter).options.scatter_direction
        x, y = self.landing
        return (s + f" toward {self.bearing:.0f}\u00b0 ({direction_label(self.direction.dice, how)}) "
                f"to {x:.1f}, {y:.1f}")

    def steps(self) -> list[str]:
        """The story so far, a line per step, for the dialog and the log (tokens by name)."""
        p = self.plan
        out = []
        if self.attack is not None:
            out.append(f"attack {p.attack.describe()}: {self.attack.describe()}")
            out.append(self.landing_text())
        if self.needs_facts:
            out.append("measuring who is caught where it landed ...")
            return out
        if self.landing is None:
            return out
        f = self.facts
        if not self.targets:
            out.append("nobody is caught")
        for tid, why in f.spared if f is not None else ():
            out.append(f"{_nm(p.encounter, tid)}: spared ({why})")
        for tp in self.targets:
            o = self.outcome(tp.target)
            head = f"{tp.who}: {tp.facts.distance:.1f} m from the centre"
            if o.result == "caught":
                out.append(f"{head}: in the {p.spec.label}")
                continue
            if o.result == "beyond":
                out.append(f"{head} ({tp.metres} m): beyond the blast's reach")
                continue
            out.append(f"{head} ({tp.metres} m): DV {tp.dv}{tp.damage_type}")
            if o.defense is not None:
                out.append(defense_step(tp.who, tp.defense, o.defense))
            if o.result == "escapes":
                out.append(f"{tp.who}: escapes (DV {tp.dv} - {o.defense.hits} = 0)")
            elif o.result == "hit":
                less = f" - {o.defense.hits}" if o.defense is not None else ""
                out.append(f"{tp.who}: hit: DV {tp.dv}{less} = {o.dv}; "
                           + armor_step(tp.armor, tp.ap, o.armor, o.dv, o.damage_type, tp.damage_type))
                if o.soak is not None:
                    out.append(soak_step(tp.who, tp.soak, o.soak, o.boxes, o.damage_type))
        return out


def _scatter_pool(plan: BlastPlan, hits: int) -> Pool:
    return Pool(f"scatter of {plan.weapon.name}: {plan.scatter_dice}D6 m - {hits} hits",
                (base("scatter", f"{PROJECTILE_LABEL[plan.projectile]} scatter dice", plan.scatter_dice, "weapon"),))


def _direction_pool(plan: BlastPlan) -> Pool:
    how = settings_of(plan.encounter).options.scatter_direction
    n = 2 if how == "d12" else 1
    return Pool(f"scatter direction ({how})", (base("direction", DIRECTION_TEXT[how], n, "rules"),))


def landing_facts(encounter: Encounter, resolution: BlastResolution, tactics: Any = None) -> BlastFacts:
    """The facts where a scattered blast landed: :func:`blast_facts` with the zone moved
    there (and sized as planned)."""
    p = resolution.plan
    if resolution.landing is None:
        raise IllegalActionError("the blast has not landed yet")
    x, y = resolution.landing
    return blast_facts(encounter, p.declaration.zone, p.declaration.attacker, x=x, y=y, radius=p.radius or None,
                       tactics=tactics, options=settings_of(encounter).options)


# ---------------------------------------------------------------------------------------------
# applying
# ---------------------------------------------------------------------------------------------
def apply_blast(encounter: Encounter, resolution: BlastResolution, *, force: bool = False) -> tuple[Encounter, Change]:
    """Apply a fully rolled blast: the attacker's action (Throw Weapon / Fire Weapon, a
    Simple Action), the grenade or round spent, aim and Edge; the zone moved to where the
    blast went off (and sized to it); each caught token's interrupt, defense count and
    damage; the log."""
    plan = resolution.plan
    if resolution.attack is None or not resolution.done:
        nxt = resolution.next_roll()
        raise IllegalActionError("the blast is not resolved yet: " + (nxt.label if nxt else "where it landed"))
    if plan.problems and not force:
        raise IllegalActionError(plan.problems[0])
    decl = plan.declaration
    edit = Edit(encounter)
    st = edit.settings
    aid = decl.attacker
    aname = _nm(encounter, aid)
    spend(edit, aid, plan.action, plan.cost)
    if edit.sheet(aid).called_shot:
        edit.update_sheet(aid, called_shot=False)  # a pending Call a Shot is spent on the throw
    mark_attacked(edit, aid)
    end_aim(edit, aid, decl.edge)
    unload(edit, aid, (plan.weapon.name,), 1)
    # the zone goes where the blast went off, as large as it was
    lx, ly = resolution.landing
    z = edit.zone(decl.zone)
    zupd = {"x": lx, "y": ly}
    if plan.radius > 0:
        zupd["radius"] = plan.radius
    edit.set_zone(z.model_copy(update=zupd))

    how = "throws" if plan.thrown else "fires"
    head = f"{aname} {how} {plan.weapon.name} ({plan.spec.label}) at {name_of(encounter, decl.zone)}: {resolution.attack.hits} hits " \
           f"vs {THRESHOLD}: {resolution.landing_text()}"
    rolls = [roll_record(plan.attack, resolution.attack)]
    if resolution.scatter is not None:
        rolls.append(roll_record(_scatter_pool(plan, resolution.attack.hits), resolution.scatter))
    if resolution.direction is not None:
        rolls.append(roll_record(_direction_pool(plan), resolution.direction))
    head += glitch_note(resolution.attack, aname)
    edit.log(log_entry(edit.settings, aid, "blast", head, rolls))
    summary = []
    outcomes = {}
    f = resolution.facts
    for tid, why in f.spared:
        edit.log(log_entry(edit.settings, aid, "blast", f"{_nm(encounter, tid)}: spared by the blast ({why})"))
    for tp in resolution.targets:
        tid = tp.target
        tname = _nm(encounter, tid)
        o = resolution.outcome(tid)
        outcomes[tid] = o
        if o.result == "caught":
            edit.log(log_entry(edit.settings, aid, "blast", f"{tname} is caught in the {plan.spec.label} "
                               f"({tp.facts.distance:.1f} m from the centre)"))
            summary.append(f"{tname} in the {plan.spec.label}")
            continue
        if o.result == "beyond":
            edit.log(log_entry(edit.settings, aid, "blast", f"{tname}: {tp.facts.distance:.1f} m from the centre, "
                               "beyond the blast's reach"))
            continue
        trolls = []
        if o.defense is not None:
            count_defense(edit, tid, tp.defense_choice, tp.interrupt_cost)
            trolls.append(roll_record(tp.defense, o.defense))
        line = f"{tname} in the blast of {plan.weapon.name}: {tp.facts.distance:.1f} m ({tp.metres} m), DV {tp.dv}"
        if o.defense is not None:
            line += f", defense {o.defense.hits}"
        if o.result == "escapes":
            line += ": escapes"
            summary.append(f"{tname} escapes")
        else:
            trolls.append(roll_record(tp.soak, o.soak))
            dres = mark_damage(edit, tid, o.boxes or 0, o.damage_type or "P")
            edit.details.setdefault("damage", {})[tid] = dres
            line += f": {o.dv}{o.damage_type} vs soak {o.soak.hits}: {dres.describe()}"
            summary.append(f"{tname} {o.boxes}{o.damage_type}")
            line += glitch_note(o.defense, tname)
        edit.log(log_entry(edit.settings, tid, "blast", line, trolls))
    edit.details["outcomes"] = outcomes
    edit.details["landing"] = (lx, ly)
    edit.details["moved"] = resolution.moved
    return edit.finish(f"{aname} {how} {plan.weapon.name}: " + (", ".join(summary) or "nobody hurt"))


__all__ = [
    "BLASTS",
    "DIRECTION_TEXT",
    "SCATTER_DICE",
    "THRESHOLD",
    "BlastDeclaration",
    "BlastFacts",
    "BlastOutcome",
    "BlastPlan",
    "BlastResolution",
    "BlastRollRequest",
    "BlastSpec",
    "BlastTargetPlan",
    "CaughtFacts",
    "apply_blast",
    "blast_damage",
    "blast_facts",
    "blast_radius",
    "blast_spec",
    "blast_weapon",
    "dv_at",
    "is_blast_weapon",
    "landing_facts",
    "plan_blast",
    "plan_blast_on_map",
    "scatter_bearing",
    "whole_metres",
]
