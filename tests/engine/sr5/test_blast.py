"""Grenades and blasts (engine/sr5/blast.py): the table, falloff and scatter arithmetic, the
plan's pools and refusals, and the rolls through to the damage. Numbers derived by hand in
the comments; the golden scenarios (golden/blast_*.json) cover the four required cases."""

from __future__ import annotations

import math
import typing

import pytest

from engine.analysis import Tactics
from engine.errors import IllegalActionError
from engine.model import BlastKind, Weapon, Zone
from engine.sr5 import blast as B
from engine.sr5.initiative import start_turn
from engine.sr5.sheet import Options, Settings
from tests.engine.sr5.helpers import encounter, token
from engine.sr5.system import SYSTEM as SR5

FRAG = Weapon(name="Frag", category="standard_grenade", blast="fragmentation", loaded=2)
HE = Weapon(name="HE", category="standard_grenade", blast="high_explosive")
GAS = Weapon(name="Neuro-stun", category="aerodynamic_grenade", blast="gas")
LAUNCHER = Weapon(name="Ares Antioch-2", category="grenade_launcher", blast="fragmentation", accuracy=4,
                  modes=("SS",), ammo=8, loaded=8, smartgun=True)


def scene(weapon=HE, *, x=30.0, y=30.0, radius=3.0, settings=None, **sheet):
    """Sam (AGI 5, STR 4, Throwing Weapons 4, Heavy Weapons 3) 20 m west of the aim point;
    Razor on it, Spike 4 m south of it."""
    kw = dict(skills={"throwing_weapons": 4, "heavy_weapons": 3}, agility=5, strength=4, in_hand=(weapon.name,))
    kw.update(sheet)
    sam = token("sam", 10, 30, weapons=(weapon,), **kw)
    razor = token("razor", 30, 30, armor=9)
    spike = token("spike", 30, 34, armor=6, body=3)
    return encounter(sam, razor, spike, zones=(Zone(id="boom", kind="blast", x=x, y=y, radius=radius),),
                     settings=settings)


def test_the_table_knows_every_blast_the_file_format_allows():
    assert set(B.BLASTS) == set(typing.get_args(BlastKind))
    # sr5-facts.md: reach = DV / falloff, or the stated radius
    assert [B.BLASTS[k].reach() for k in ("fragmentation", "high_explosive", "flash_bang", "gas", "smoke")] == \
        [18.0, 8.0, 10.0, 10.0, 10.0]
    assert B.SCATTER_DICE == {"standard": 1, "aerodynamic": 2, "grenade_launcher": 3, "missile": 4, "rocket": 5}


@pytest.mark.parametrize("d, floor, rnd, ceil", [(0.0, 0, 0, 0), (0.9, 0, 1, 1), (1.0, 1, 1, 1), (2.5, 2, 3, 3),
                                                 (2.49, 2, 2, 3), (17.99, 17, 18, 18)])
def test_whole_metres_by_rounding(d, floor, rnd, ceil):
    assert (B.whole_metres(d, "floor"), B.whole_metres(d, "round"), B.whole_metres(d, "ceil")) == (floor, rnd, ceil)


def test_dv_falls_off_per_metre_or_stays_even_within_the_radius():
    frag, flash = B.BLASTS["fragmentation"], B.BLASTS["flash_bang"]
    assert B.dv_at(18, frag, 18, 2.5) == (2, 16)  # 18 - 1 x 2
    assert B.dv_at(18, frag, 18, 19.0) == (19, 0)  # never below 0
    assert B.dv_at(16, B.BLASTS["high_explosive"], 8, 3.2, "ceil") == (4, 8)  # 16 - 2 x 4
    assert B.dv_at(10, flash, 10, 9.99) == (9, 10) and B.dv_at(10, flash, 10, 10.5) == (10, 0)


def test_scatter_direction_from_the_line_of_the_throw():
    # d6: face 1 straight on, each face 60 deg clockwise (y south: +90 is the thrower's right)
    assert [B.scatter_bearing(0.0, [f]) for f in range(1, 7)] == [0.0, 60.0, 120.0, 180.0, 240.0, 300.0]
    assert B.scatter_bearing(90.0, [3]) == 210.0
    # d12 from two dice: hour = first die, +6 when the second shows 4-6; 12 o'clock straight on
    assert B.scatter_bearing(0.0, [3, 1], "d12") == 90.0  # 3 o'clock: to the right
    assert B.scatter_bearing(0.0, [6, 6], "d12") == 0.0  # 12 o'clock
    assert B.scatter_bearing(0.0, [6, 2], "d12") == 180.0  # 6 o'clock: back toward the thrower
    assert B.scatter_bearing(270.0, [1, 4], "d12") == 120.0  # 7 o'clock: 270 + 210


def test_thrown_pool_range_limit_and_what_the_aim_point_catches():
    enc = scene()
    plan = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom"))
    # Throwing Weapons 4 + Agility 5; 20 m at STR 4 (8/16/24/40) is long: -3; Physical limit
    # ceil((2 x 4 + 4 + 3) / 3) = 5 (helpers: Body 4, Reaction 3)
    assert plan.legal, plan.problems
    assert [(p.key, p.value, p.source) for p in plan.attack.parts] == [
        ("skill", 4, "sheet"), ("agility", 5, "sheet"), ("environment", -3, "environment")]
    assert (plan.attack.total, plan.attack.limit, plan.attack.threshold, plan.band) == (6, 5, 3, "long")
    assert (plan.action, plan.cost, plan.thrown, plan.scatter_dice, plan.radius) == ("throw_weapon", "simple", True, 1, 8.0)
    # HE 16P AP -2, -2 per metre: Razor 0 m -> 16, Spike 4 m -> 8
    assert [(t.target, t.metres, t.dv, t.damage_type, t.ap) for t in plan.targets] == [
        ("razor", 0, 16, "P", -2), ("spike", 4, 8, "P", -2)]
    # soak Body + armor + AP (engine.sr5.attack.soak_pool): Razor 4 + (9 - 2), Spike 3 + (6 - 2)
    assert [t.soak.total for t in plan.targets] == [11, 7]
    assert plan.targets[0].defense.part("area").value == -2


def test_launched_pool_uses_heavy_weapons_and_accuracy_with_the_smartgun():
    enc = scene(LAUNCHER, smartlink="implant")
    plan = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom"))
    # Heavy Weapons 3 + Agility 5 + wireless implant smartlink 2; 20 m is short for a grenade
    # launcher (50 m): no range modifier. Limit accuracy 4 + smartgun 2. 3D6 scatter.
    assert [(p.key, p.value) for p in plan.attack.parts] == [("skill", 3), ("agility", 5), ("smartlink", 2)]
    assert (plan.attack.total, plan.attack.limit, plan.band, plan.action, plan.scatter_dice) == (
        10, 6, "short", "fire_weapon", 3)
    assert plan.radius == 18.0  # a fragmentation minigrenade


def test_refusals_say_why():
    enc = scene(LAUNCHER, x=13.0)  # 3 m from Sam: inside the launcher's 5 m minimum
    plan = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom"))
    assert any("inside the 5 m minimum range" in p for p in plan.problems)
    enc = scene(x=55.0)  # 45 m: beyond STR 4 x 10 = 40 m
    assert any("beyond the extreme range (40 m)" in p
               for p in B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom")).problems)
    enc = scene(in_hand=())
    assert "HE is not ready: Ready Weapon first (Simple Action)" in \
        B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom")).problems  # the grenade it carries, not fists
    empty = FRAG.model_copy(update={"loaded": 0})
    assert "Frag: none left" in B.plan_blast_on_map(scene(empty), B.BlastDeclaration("sam", "boom")).problems
    plain = Weapon(name="Rock", category="standard_grenade")
    p = B.plan_blast_on_map(scene(plain), B.BlastDeclaration("sam", "boom")).problems
    assert p[0].startswith("Rock does not say what it carries")
    enc = scene().model_copy(update={"zones": (Zone(id="boom", kind="circle", x=30, y=30, radius=3),)})
    assert any("circle zone; a grenade is aimed at a blast zone" in q
               for q in B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom")).problems)
    with pytest.raises(IllegalActionError, match="projectile 'mortar'"):
        B.plan_blast_on_map(scene(), B.BlastDeclaration("sam", "boom", projectile="mortar"))


def test_in_combat_the_throw_is_a_simple_action_and_one_attack_per_phase():
    enc = scene()
    enc, _ = start_turn(enc, entered={"sam": [6], "razor": [1], "spike": [1]})
    plan = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom"))
    r = SR5.resolve(plan, [[5, 5, 5, 1, 1, 1], [1, 1, 1, 1], [1] * 11, [1, 1, 2, 2], [2] * 7])
    enc2, ch = B.apply_blast(enc, r)
    st = enc2.rules.get("sr5")
    assert st.phase.simple == 1 and st.phase.attacked and st.phase.actions == ("throw_weapon",)
    again = B.plan_blast_on_map(enc2, B.BlastDeclaration("sam", "boom"))
    assert "Sam has already attacked this Action Phase (one attack per phase)" in again.problems
    # Razor: DV 16, no defense or soak hits: 16 boxes, capped one past death (10 + 4 overflow
    # + 1 = 15); his wound modifier -3 came off his Initiative at once
    razor = enc2.token("razor").rules.get("sr5")
    assert razor.physical_damage == 15 and razor.initiative == enc.token("razor").rules["sr5"].initiative - 3


def test_scatter_moves_the_zone_and_undo_puts_it_back():
    enc = scene()
    plan = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom"))
    r = SR5.resolve(plan, steps=0).roll([5, 1, 1, 2, 2, 3])  # 1 hit: a miss
    assert r.next_roll().step == "scatter" and r.next_roll().pool.total == 1
    r = r.roll([4])  # 4 - 1 = 3 m
    assert r.scatter_metres == 3 and r.next_roll().step == "direction"
    r = r.roll([3])  # 120 deg from the throw (east): south-west
    # (30 + 3 cos 120, 30 + 3 sin 120) = (28.5, 32.598)
    assert r.landing == pytest.approx((28.5, 32.5980762))
    assert r.needs_facts and r.next_roll() is None and not r.done
    with pytest.raises(IllegalActionError, match="waiting for the map"):
        r.roll([1])
    r = r.land(B.landing_facts(enc, r))
    # Razor hypot(1.5, 2.598) = 3.0 m -> DV 10; Spike hypot(1.5, 1.402) = 2.053 m -> 2 -> DV 12
    assert [(t.target, t.metres, t.dv) for t in r.targets] == [("razor", 3, 10), ("spike", 2, 12)]
    while not r.done:
        r = r.roll([1] * r.next_roll().pool.total)
    enc2, ch = B.apply_blast(enc, r)
    assert (enc2.zone("boom").x, enc2.zone("boom").y, enc2.zone("boom").radius) == pytest.approx((28.5, 32.5980762, 8))
    assert ch.zone_ids == ("boom",) and ch.details["moved"]
    (before,), (after,) = ch.zones_before, ch.zones_after
    assert (before.x, before.y, before.radius) == (30, 30, 3) and after == enc2.zone("boom")


def test_a_scatter_that_would_leave_the_map_stops_at_its_edge():
    enc = scene(x=30.0, y=1.0)
    plan = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom"))
    # 35.2 m: extreme, 4 + 5 - 6 = 3 dice. Throw bearing atan2(-29, 20) = 304.6 deg; face 6 =
    # +300 -> 244.6 deg (north-west); 6 - 0 hits = 6 m: y would be 1 - 6 sin(64.6) = -4.4
    r = SR5.resolve(plan, steps=0).roll([1, 1, 2]).roll([6]).roll([6])
    assert r.landing[1] == 0.0 and r.landing[0] == pytest.approx(30 + 6 * math.cos(math.radians(244.6)), abs=0.01)


def test_d12_direction_rolls_two_dice():
    enc = scene(settings=Settings(options=Options(scatter_direction="d12")))
    plan = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom"))
    r = SR5.resolve(plan, steps=0).roll([5, 1, 1, 2, 2, 3]).roll([6])
    req = r.next_roll()
    assert (req.step, req.pool.total) == ("direction", 2)
    r = r.roll([3, 2])  # 3 o'clock: 90 deg right of east = south; 6 - 1 = 5 m
    assert r.bearing == 90.0 and r.landing == pytest.approx((30.0, 35.0))
    assert "toward 90\u00b0 (3 o'clock) to 30.0, 35.0" in r.landing_text()


def test_no_defense_option_and_gm_edits_survive_the_landing():
    enc = scene(settings=Settings(options=Options(blast_defense="none")))
    plan = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom"))
    plan = plan.override("armor", 2, target="razor", pool="soak").with_damage(dv=12)
    assert plan.target("razor").soak.total == 4 + 2 and plan.target("razor").dv == 12
    r = SR5.resolve(plan, steps=0).roll([5, 5, 5, 1, 1, 1])
    # no defense: straight to the soak (Razor 6 dice, Spike 7)
    assert r.next_roll().step == "soak" and r.next_roll().target == "razor" and r.next_roll().pool.total == 6
    r = r.roll([5, 1, 1, 1, 1, 1]).roll([1] * 7)
    o = r.outcome("razor")
    assert (o.dv, o.boxes, o.defense) == (12, 11, None)  # 12 - 1 hit
    assert r.outcome("spike").dv == 12 - 8  # Spike 4 m: 12 - 2 x 4
    # the GM's soak edit stays with Razor where a scattered blast lands
    r2 = SR5.resolve(plan, steps=0).roll([1, 1, 1, 2, 2, 3]).roll([2]).roll([4])  # 2 m back toward Sam: (28, 30)
    r2 = r2.land(B.landing_facts(enc, r2))
    assert r2.target("razor").soak.part("armor").overridden and r2.target("razor").soak.total == 6
    with pytest.raises(IllegalActionError, match="not P or S"):
        plan.with_damage(damage_type="X")
    assert plan.with_scatter_dice(5).scatter_dice == 5


def test_gas_catches_without_damage_and_drawn_radius_option():
    enc = scene(GAS, settings=Settings(options=Options(blast_radius="drawn")))
    plan = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom"))
    assert plan.radius == 3.0 and plan.damage is None and [t.target for t in plan.targets] == ["razor"]
    assert plan.scatter_dice == 2  # aerodynamic
    plan = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom", fit_radius=True))
    assert plan.radius == 10.0 and [t.target for t in plan.targets] == ["razor", "spike"]
    r = SR5.resolve(plan, steps=0).roll([5, 5, 5, 1, 1, 1])
    assert r.done and r.outcome("razor").result == "caught"
    enc2, ch = B.apply_blast(enc, r)
    assert "Razor is caught in the gas (0.0 m from the centre)" in [e.text for e in enc2.rules["sr5"].log]
    assert enc2.token("razor").rules.get("sr5") == enc.token("razor").rules.get("sr5")


def test_full_defense_against_a_blast_is_an_interrupt():
    enc = scene()
    enc, _ = start_turn(enc, entered={"sam": [6], "razor": [6], "spike": [1]})  # Razor 6 + 6 = 12
    plan = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom", defenses={"razor": "full_defense"}))
    tp = plan.target("razor")
    assert tp.defense.part("full_defense").value == 3 and tp.interrupt_cost == 10
    r = SR5.resolve(plan, [[5, 5, 5, 1, 1, 1], [1] * 7, [1] * 11, [1, 1, 2, 2], [2] * 7])
    enc2, _ = B.apply_blast(enc, r)
    razor = enc2.token("razor").rules.get("sr5")
    assert razor.full_defense and razor.defended == 1
    # 12 - 10 for the interrupt, then 16 boxes of damage: wound modifier -3 -> -1
    assert razor.initiative == 12 - 10 - 3
    bad = B.plan_blast_on_map(enc, B.BlastDeclaration("sam", "boom", defenses={"razor": "dodge"}))
    assert any("only normal defense or Full Defense" in p for p in bad.problems)


def test_blast_facts_leave_a_given_tactics_on_its_encounter():
    enc = scene()
    tac = Tactics(enc)
    builds = tac.index_builds
    f = B.blast_facts(enc, "boom", "sam", x=28.0, y=30.0, radius=8.0, tactics=tac)
    assert (f.x, f.y, f.radius) == (28.0, 30.0, 8.0)
    assert [(c.id, round(c.distance, 3)) for c in f.caught] == [("razor", 2.0), ("spike", 4.472)]
    assert tac.encounter is enc and tac.index_builds == builds  # restored, obstacle index reused
    assert enc.zone("boom").x == 30  # the encounter itself is untouched
    with pytest.raises(IllegalActionError, match=r"blast zone 'boom' at \{'radius': -1.0\}: radius: Input should be greater than 0"):
        B.blast_facts(enc, "boom", "sam", radius=-1.0)
