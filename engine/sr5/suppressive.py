"""Suppressive fire (seed 001, sr5-facts.md).

- Complex Action, a full-auto weapon, 20 rounds (fewer narrow the zone: 1 m per 2 rounds
  short; the zone's shape is the map's ``Zone``), no recoil.
- The shooter rolls weapon skill + Agility [Accuracy] (+ smartlink, aim, wounds and any
  GM-approved modifier); the hits are kept (:class:`~engine.sr5.sheet.Suppression`).
- Everyone in the zone or right next to it (``Options.adjacent_metres``) and aware of it:
  dice penalty = the hits on all actions until the zone ends; only the highest when zones
  overlap.
- Those inside who are neither prone (unless enhanced) nor behind full cover from the
  shooter, and anyone moving into, out of, or standing up in it: Reaction + Edge (+ the
  Full Defense bonus), threshold = hits; failing, the weapon's base DV (no net hits),
  resisted with Body + armor as usual. A test per zone, -1 die for each after the first.
- It lasts to the end of the Combat Turn while the shooter neither moves nor acts otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.errors import IllegalActionError
from engine.model import Encounter, Weapon, Zone, zone_weapon
from engine.names import name_of, token_name, zone_name
from engine.sr5.changes import Change, Edit, settings_of, sheet_of
from engine.sr5.dice import Roller, TestResult, default_roller
from engine.sr5.facts import MapFacts
from engine.sr5.pools import Modifier, Pool, base, mod, roll_pool, roll_record, suppression_modifier
from engine.sr5.sheet import Sheet, Suppression
from engine.sr5.steps import (
    edge_parts,
    end_aim,
    mark_attacked,
    mark_damage,
    smartlink_parts,
    unload,
    wound_parts,
)
from engine.sr5.steps import name_of as _nm
from engine.sr5.tables import (
    SUPPRESSIVE_ROUNDS,
    current_choke,
    has_choke,
    parse_damage,
    skill_rating,
    smartlinked,
    weapon_modes,
    weapon_skill,
    wireless_smartlink_dice,
)


# ---------------------------------------------------------------------------------------------
# the shooter
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SuppressiveDeclaration:
    """``shooter`` fills the map zone ``zone`` (kind suppressive) with ``weapon`` (None: the
    zone's weapon); ``enhanced`` = enhanced suppressive fire (prone does not spare, the far
    end narrows to 5 m). ``fire`` names the kind outright (standard / enhanced / flechette);
    None: enhanced when ``enhanced`` or the zone says so, flechette when the weapon is a
    full-auto shotgun firing flechettes (:func:`fire_of`)."""

    shooter: str
    zone: str
    weapon: str | None = None
    edge: bool = False
    enhanced: bool = False
    fire: str | None = None


FIRES = ("standard", "enhanced", "flechette")


def fire_of(decl: SuppressiveDeclaration, zone: Zone, weapon: Weapon) -> str:
    """How this suppressive fire is fired (see :class:`SuppressiveDeclaration`)."""
    if decl.fire is not None:
        return decl.fire
    if decl.enhanced or zone.fire == "enhanced":
        return "enhanced"
    if zone.fire == "flechette" or has_choke(weapon):
        return "flechette"
    return "standard"


def shaped_zone(zone: Zone, fire: str, choke: str | None) -> Zone:
    """The zone as this fire shapes it (``Zone.fire``; a flechette zone takes the choke):
    what the map draws and who is in it follow from :attr:`Zone.effective_width`."""
    upd: dict = {"fire": None if fire == "standard" else fire}
    if fire == "flechette":
        upd["choke"] = choke or "narrow"
    return zone.model_copy(update=upd)


def max_range(weapon: Weapon, sheet: Sheet) -> float | None:
    """The weapon's maximum range in metres (the upper bound of its extreme band), or None
    when it has no range table."""
    from engine.sr5.attack import weapon_bands

    wb = weapon_bands(weapon, sheet)
    return wb[0][-1].max if wb and wb[0] else None


@dataclass(frozen=True)
class SuppressivePlan:
    declaration: SuppressiveDeclaration
    pool: Pool
    rounds: int
    dv: int
    damage_type: str
    ap: int
    weapon: str
    problems: tuple[str, ...] = ()
    fire: str = "standard"
    choke: str | None = None  # flechette fire: the choke the shotgun is set to
    zone: Zone | None = None  # the zone as this fire shapes it

    @property
    def legal(self) -> bool:
        return not self.problems

    def override(self, key: str, value: int, label: str | None = None) -> SuppressivePlan:
        return replace(self, pool=self.pool.override(key, value, label))


def plan_suppressive(encounter: Encounter, decl: SuppressiveDeclaration, facts: MapFacts | None = None) -> SuppressivePlan:
    """The shooter's pool and why suppressive fire is not allowed (``problems``)."""
    from engine.sr5.actions import aim_cap, find_weapon, ready_weapons
    from engine.sr5.economy import COMPLEX, cost_reason, called_shot_reason, in_combat

    st = settings_of(encounter)
    tok = encounter.token(decl.shooter)
    sh = sheet_of(tok)
    zone = encounter.zone(decl.zone)
    problems = []
    if zone.kind != "suppressive":
        problems.append(f"{zone_name(zone, encounter)} is a {zone.kind} zone, not a suppressive one")
    if zone.owner is not None and zone.owner != decl.shooter:
        problems.append(f"{zone_name(zone, encounter)} belongs to {name_of(encounter, zone.owner)}, "
                        f"not {token_name(tok)}")
    wname = decl.weapon or (zone.weapon if zone.owner == decl.shooter else None)
    if wname is None and zone.owner == decl.shooter:
        zw = zone_weapon(encounter, zone)
        wname = zw.name if zw else None
    w = find_weapon(tok, wname)
    rounds = zone.rounds or SUPPRESSIVE_ROUNDS
    if "FA" not in weapon_modes(w):
        problems.append(f"{w.name} has no full-auto mode: suppressive fire needs one")
    if w.name not in ready_weapons(tok):
        problems.append(f"{w.name} is not ready: Ready Weapon first (Simple Action)")
    if w.ammo is not None:
        if w.loaded is None:
            problems.append(f"{w.name} has no clip in")
        elif w.loaded < rounds:
            problems.append(f"{w.name} has {w.loaded} rounds left; suppressive fire needs {rounds}")
    reason = cost_reason(st, decl.shooter, sh, COMPLEX, names=encounter)
    if reason:
        problems.append(reason)
    if in_combat(st) and st.acting == decl.shooter and st.phase.attacked:
        problems.append(f"{token_name(tok)} has already attacked this Action Phase")
    if decl.edge and sh.edge_left < 1:
        problems.append(f"{token_name(tok)} has no Edge left")
    why = called_shot_reason(sh, token_name(tok), "suppressive_fire", "Suppressive Fire")
    if why:
        problems.append(why)
    fire = fire_of(decl, zone, w)
    choke = None
    if fire not in FIRES:
        problems.append(f"suppressive fire is standard, enhanced or flechette, not {fire!r}")
        fire = "standard"
    if fire == "flechette":
        if not has_choke(w):
            problems.append(f"flechette suppressive fire needs a full-auto shotgun firing flechettes; {w.name} is not one")
        choke = zone.choke if zone.fire == "flechette" and zone.choke else current_choke(w, sh)
    shaped = shaped_zone(zone, fire, choke)
    reach = max_range(w, sh)
    if reach is not None and zone.length is not None and zone.length > reach + 1e-9:
        if st.options.suppressive_beyond_range == "clip":
            shaped = shaped.model_copy(update={"length": reach})
        else:
            problems.append(f"{zone_name(zone, encounter)} reaches {zone.length:g} m; {w.name} reaches at most {reach:g} m "
                            "(its extreme range)")
    key = weapon_skill(w, "FA")
    parts: list[Modifier] = [base("skill", key.replace("_", " ").title(), skill_rating(sh, w, "FA", tok.weapons)),
                             base("agility", "Agility", sh.agility)]
    parts += wound_parts(sh, st.options)
    parts += smartlink_parts(sh, wireless_smartlink_dice(w, sh))
    cap = aim_cap(sh, w, st)
    aim = min(sh.aim, cap) if sh.aim_weapon == w.name else 0
    if aim and (sh.aim_bonus == "pool" or (smartlinked(w, sh) and sh.wireless)):
        parts.append(mod("aim", f"Take Aim x{sh.aim}", aim, "sheet"))
    if facts is not None:
        m = suppression_modifier(st, decl.shooter, sh, facts.token(decl.shooter).near_zones, names=encounter)
        if m is not None:
            parts.append(m)
    parts += edge_parts(sh, decl.edge)
    limit = ()
    if w.accuracy is not None:
        limit = (base("accuracy", f"accuracy of {w.name}", w.accuracy, "weapon"),)
        if smartlinked(w, sh):
            limit += (mod("smartgun", "smartgun", 2, "weapon"),)
    dmg = parse_damage(w.damage, sh.strength, weapon=w.name)
    pool = Pool(f"{token_name(tok)} suppressive fire ({zone_name(zone, encounter)})", tuple(parts), limit, decl.edge)
    return SuppressivePlan(decl, pool, rounds, dmg.value, dmg.type, w.ap, w.name, tuple(problems), fire, choke,
                           shaped)


def apply_suppressive(
    encounter: Encounter, plan: SuppressivePlan, dice: Roller | Sequence[int] | None = None, *, force: bool = False
) -> tuple[Encounter, Change]:
    """Roll the shooter's test and put the zone in force until the end of the turn."""
    from engine.sr5.economy import COMPLEX, log_entry, spend

    if plan.problems and not force:
        raise IllegalActionError(plan.problems[0])
    st = settings_of(encounter)
    res = roll_pool(plan.pool, dice if dice is not None else default_roller(st))
    d = plan.declaration
    edit = Edit(encounter)
    spend(edit, d.shooter, "suppressive_fire", COMPLEX)
    mark_attacked(edit, d.shooter, quick_draw=False)
    end_aim(edit, d.shooter, d.edge)
    unload(edit, d.shooter, (plan.weapon,), plan.rounds)
    tok = edit.token(d.shooter)
    sup = Suppression(zone=d.zone, shooter=d.shooter, weapon=plan.weapon, hits=res.hits, dv=plan.dv,
                      damage_type=plan.damage_type, ap=plan.ap, turn=edit.settings.turn,
                      enhanced=plan.fire != "standard", fire=plan.fire, choke=plan.choke)
    others = tuple(s for s in edit.settings.suppressions if s.zone != d.zone)
    edit.update_settings(suppressions=others + (sup,))
    if plan.zone is not None and plan.zone != edit.zone(d.zone):
        edit.set_zone(plan.zone)
    kind = {"standard": "", "enhanced": "enhanced ", "flechette": f"flechette ({plan.choke} choke) "}[plan.fire]
    zname = name_of(encounter, d.zone)
    named = encounter.zone(d.zone).name  # an unnamed zone is the shooter's own fire: not said twice
    text = (f"{token_name(tok)} lays {kind}suppressive fire" + (f" in {named}" if named else "")
            + f" ({plan.rounds} rounds): {res.describe()}")
    if plan.zone is not None and plan.zone.length is not None and plan.zone.length < (encounter.zone(d.zone).length or 0):
        text += f"; the zone is clipped to {plan.zone.length:g} m, the range of {plan.weapon}"
    edit.log(log_entry(edit.settings, d.shooter, "suppressive", text, [roll_record(plan.pool, res)]))
    edit.details["test"] = res
    edit.prompts.append(f"those exposed in {zname} roll Reaction + Edge ({res.hits})")
    return edit.finish(text)


# ---------------------------------------------------------------------------------------------
# those in the zone
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ZoneStatus:
    """A token's standing against active suppressive fire: its dice ``penalty`` (from
    ``penalty_zone``), the zones it must test against now, and the zones it is spared from
    with the reason (prone, full cover)."""

    token: str
    penalty: int = 0
    penalty_zone: str | None = None
    must_test: tuple[str, ...] = ()
    spared: tuple[tuple[str, str], ...] = ()


def suppression_status(encounter: Encounter, facts: MapFacts) -> dict[str, ZoneStatus]:
    """For every token touched by active suppressive fire: penalty, tests due, who is spared."""
    st = settings_of(encounter)
    active = {s.zone: s for s in st.suppressions}
    out = {}
    for t in encounter.tokens:
        tf = facts.token(t.id)
        sh = sheet_of(t)
        m = suppression_modifier(st, t.id, sh, tf.near_zones, names=encounter)
        must, spared = [], []
        for z in tf.in_zones + tf.covered_zones:
            s = active.get(z)
            if s is None or s.shooter == t.id:
                continue
            if z in tf.covered_zones:
                spared.append((z, "full cover"))
            elif t.stance == "prone" and not s.enhanced:
                spared.append((z, "prone"))
            elif t.stance == "prone" and sh.lucky_cover:
                spared.append((z, "prone (Lucky Cover)"))
            else:
                must.append(z)
        if m is not None or must or spared:
            best = None
            if m is not None:
                best = max((s for s in st.suppressions if s.zone in tf.near_zones and s.shooter != t.id),
                           key=lambda s: s.hits)
            out[t.id] = ZoneStatus(t.id, m.value if m else 0, best.zone if best else None, tuple(must), tuple(spared))
    return out


@dataclass(frozen=True)
class SuppressionTestPlan:
    """One token's Reaction + Edge test against one zone, and its soak if it fails."""

    token: str
    zone: str
    test: Pool
    soak: Pool
    dv: int
    damage_type: str
    ap: int
    armor: int

    def override(self, key: str, value: int, *, pool: str = "test", label: str | None = None) -> SuppressionTestPlan:
        if pool not in ("test", "soak"):
            raise IllegalActionError(f"pool {pool!r} is not test or soak")
        return replace(self, **{pool: getattr(self, pool).override(key, value, label)})


def plan_suppression_test(encounter: Encounter, token: str, zone: str, index: int = 0) -> SuppressionTestPlan:
    """The test of ``token`` against active zone ``zone``; ``index`` counts the zones it has
    already tested against this phase (-1 die each)."""
    st = settings_of(encounter)
    s = next((x for x in st.suppressions if x.zone == zone), None)
    if s is None:
        raise IllegalActionError(f"no suppressive fire is active in {name_of(encounter, zone)}")
    tok = encounter.token(token)
    sh = sheet_of(tok)
    parts: list[Modifier] = [base("reaction", "Reaction", sh.reaction), base("edge", "Edge", sh.edge)]
    if sh.full_defense:
        parts.append(mod("full_defense", "Full Defense: Willpower", sh.willpower, "sheet"))
    parts += wound_parts(sh, st.options)
    if index:
        parts.append(mod("overlap", f"{index} earlier suppressive test{'s' if index > 1 else ''}", -index, "rules"))
    if s.fire == "flechette" and s.choke:
        fm = st.options.flechette_suppressive_defense.get(s.choke, 0)
        if fm:
            parts.append(mod("choke", f"flechettes, {s.choke} choke", fm, "weapon"))
    name = token_name(tok)
    test = Pool(f"{name} dodges {name_of(encounter, zone)}", tuple(parts), threshold=s.hits)
    armor = max(0, sh.armor + s.ap)
    soak = Pool(f"{name} resists suppressive fire", (base("body", "Body", sh.body),
                base("armor", f"armor {sh.armor} AP {s.ap:+d} ->" if s.ap else "armor", armor, "sheet")))
    return SuppressionTestPlan(token, zone, test, soak, s.dv, s.damage_type, s.ap, sh.armor)


@dataclass(frozen=True)
class SuppressionTestResolution:
    plan: SuppressionTestPlan
    test: TestResult | None = None
    soak: TestResult | None = None

    @property
    def hit(self) -> bool | None:
        return None if self.test is None else not self.test.success

    @property
    def damage_type(self) -> str:
        t = self.plan.damage_type
        return "S" if t == "P" and self.plan.armor + self.plan.ap > self.plan.dv else t

    @property
    def boxes(self) -> int | None:
        if self.test is None:
            return None
        if self.test.success:
            return 0
        return None if self.soak is None else max(0, self.plan.dv - self.soak.hits)

    def next_roll(self) -> Pool | None:
        if self.test is None:
            return self.plan.test
        if not self.test.success and self.soak is None:
            return self.plan.soak
        return None

    @property
    def done(self) -> bool:
        return self.next_roll() is None

    def roll(self, dice: Roller | Sequence[int]) -> SuppressionTestResolution:
        pool = self.next_roll()
        if pool is None:
            raise IllegalActionError("this test needs no more rolls")
        r = roll_pool(pool, dice)
        return replace(self, test=r) if self.test is None else replace(self, soak=r)


def apply_suppression_test(encounter: Encounter, res: SuppressionTestResolution) -> tuple[Encounter, Change]:
    """Mark the damage of a failed test (with the Initiative its wound modifier costs)."""
    from engine.sr5.economy import log_entry

    if not res.done:
        raise IllegalActionError("the suppressive fire test is not resolved yet")
    p = res.plan
    edit = Edit(encounter)
    st = edit.settings
    name = _nm(encounter, p.token)
    rolls = [roll_record(p.test, res.test)]
    text = f"{name} vs {name_of(encounter, p.zone)}: {res.test.describe()}"
    if res.test.success:
        text += ": not hit"
    else:
        rolls.append(roll_record(p.soak, res.soak))
        d = mark_damage(edit, p.token, res.boxes or 0, res.damage_type)
        text += f": hit, {p.dv}{res.damage_type} vs soak {res.soak.hits}: {d.describe()}"
        edit.details["damage"] = d
    edit.log(log_entry(st, p.token, "suppression_test", text, rolls))
    return edit.finish(text)
