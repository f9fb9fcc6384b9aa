"""The DADA attack: pools, limits, recoil, multiple targets, defense, damage (hand-checked)."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.model import Weapon
from engine.sr5.attack import AttackDeclaration, apply_attack, plan_attack, recoil_info
from engine.sr5.initiative import start_turn
from engine.sr5.facts import TargetFacts, TokenFacts, facts
from engine.sr5.sheet import Environment, Settings, Sheet
from engine.sr5.tables import FIRING_MODES, recoil_compensation
from tests.engine.sr5.helpers import AK, HMG, KNIFE, PREDATOR, SHOTGUN, encounter, sheet, token
from engine.sr5.system import SYSTEM as SR5

BROWNING = Weapon(name="Browning Ultra-Power", category="heavy_pistol", damage="8P", ap=-1, accuracy=5,
                  modes=("SA",), ammo=10, loaded=10)


def _at(*targets, cover="none"):
    return facts([TargetFacts(t, d, cover) for t, d in targets])


def _shooter(**kw):
    base = dict(weapons=(AK,), side="runner", agility=4, strength=4, skills={"automatics": 6, "pistols": 4})
    base.update(kw)
    return token("sam", 0, 0, **base)


# -- recoil: the seed's worked examples ----------------------------------------------------------
def test_strength_4_gives_3_recoil_compensation():
    assert recoil_compensation(Sheet(strength=4)) == 3  # 1 + ceil(4/3) = 1 + 2
    assert recoil_compensation(Sheet(strength=3)) == 2
    assert recoil_compensation(Sheet(strength=1)) == 2


def test_heavy_machine_gun_burst_doubles_what_is_left():
    # 6-round burst, compensation 4 (1 + ceil(3/3) + RC 2): 2 left, doubled: -4
    r = recoil_info(Sheet(strength=3), [HMG], FIRING_MODES["FA"], 6)
    assert (r.compensation, r.uncompensated, r.penalty) == (4, 2, -4)


def test_progressive_recoil_across_phases():
    # STR 1: compensation 2; BF (3) -> -1; a second BF in the next phase: 6 - 2 = -4 (3 more)
    e = encounter(_shooter(strength=1), token("razor", 10, 0))
    e, _ = start_turn(e, entered={"sam": 25, "razor": 5})
    d = AttackDeclaration("sam", ("razor",), mode="BF")
    p = plan_attack(e, d, _at(("razor", 10)))
    assert p.common.value("recoil") == -1 and p.rounds == 3 and p.cost == "simple"
    e, _ = apply_attack(e, SR5.resolve(p, [[1] * 9, [1] * 4]))  # defense 3 + 3 - 2 (burst)
    assert e.token("sam").rules["sr5"].recoil == 3 and e.token("sam").weapons[0].loaded == 35
    from engine.sr5.initiative import end_phase
    e, _ = end_phase(e)
    e, _ = end_phase(e)  # pass 2, sam again
    p2 = plan_attack(e, d, _at(("razor", 10)))
    assert p2.common.value("recoil") == -4
    assert "3 earlier + 3 now = 6 rounds vs compensation 2" in p2.recoil.text


def test_single_shot_has_no_recoil():
    ss = Weapon(name="Remington 950", category="sporting_rifle", damage="12P", ap=-4, accuracy=7, modes=("SS",),
                skill="longarms")
    s = _shooter(weapons=(ss,), recoil=5, strength=1)
    p = plan_attack(encounter(s, token("razor", 10, 0)), AttackDeclaration("sam", ("razor",)), _at(("razor", 10)))
    assert p.mode.id == "SS" and p.recoil.rounds == 0
    assert p.recoil.penalty == -3  # only the earlier 5 rounds against compensation 2


# -- the pool --------------------------------------------------------------------------------------
def test_pool_of_seven_under_dim_light():
    # Automatics 6 + Agility 4 - 3 dim light = 7 (seed 001)
    e = encounter(_shooter(), token("razor", 10, 0), settings=Settings(environment=Environment(light="dim")))
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode="SA"), _at(("razor", 10)))
    assert p.common.total == 7
    assert p.target("razor").attack.total == 7 and p.target("razor").attack.limit == 5
    assert p.common.part("environment").label == "dim light"


def test_eleven_dice_over_three_targets():
    e = encounter(_shooter(agility=5), token("a", 10, 0), token("b", 12, 0), token("c", 14, 0))
    p = plan_attack(e, AttackDeclaration("sam", ("a", "b", "c"), mode="BF"), _at(("a", 10), ("b", 12), ("c", 14)))
    assert p.common.total == 11 and p.shares == (4, 4, 3)
    assert [t.attack.total for t in p.targets] == [4, 4, 3]
    assert p.legal


def test_seven_dice_over_three_targets_after_dim_light():
    e = encounter(_shooter(), token("a", 10, 0), token("b", 12, 0), token("c", 14, 0),
                  settings=Settings(environment=Environment(light="dim")))
    p = plan_attack(e, AttackDeclaration("sam", ("a", "b", "c"), mode="BF"), _at(("a", 10), ("b", 12), ("c", 14)))
    assert p.shares == (3, 2, 2)  # modifiers first, then divide: never (11 - 3 each)


def test_at_most_half_the_skill_in_targets_and_single_shots_take_one():
    e = encounter(_shooter(), *(token(t, 10 + i, 0) for i, t in enumerate("abcd")))
    p = plan_attack(e, AttackDeclaration("sam", tuple("abcd"), mode="BF"), _at(*((t, 10) for t in "abcd")))
    assert "Automatics 6 allows at most 3 targets" in " ".join(p.problems)
    p = plan_attack(e, AttackDeclaration("sam", ("a", "b"), mode="SA"), _at(("a", 10), ("b", 10)))
    assert "cannot attack several targets" in " ".join(p.problems)


def test_targets_at_different_ranges_share_the_common_part_only():
    # assault rifle: 10 m short, 100 m medium (-1), 200 m long (-3); common 0, extras 0 / -1 / -3
    e = encounter(_shooter(agility=5), token("a", 10, 0), token("b", 100, 0), token("c", 200, 0))
    p = plan_attack(e, AttackDeclaration("sam", ("a", "b", "c"), mode="BF"), _at(("a", 10), ("b", 100), ("c", 200)))
    assert [t.band for t in p.targets] == ["short", "medium", "long"]
    assert [t.attack.total for t in p.targets] == [4, 3, 0]  # 4, 4, 3 then 0, -1, -3
    # all in dim light: the -3 is shared and goes before the division: 8 -> 3, 3, 2
    e2 = e.with_rules("sr5", Settings(environment=Environment(light="dim")))
    p2 = plan_attack(e2, AttackDeclaration("sam", ("a", "b", "c"), mode="BF"), _at(("a", 10), ("b", 100), ("c", 200)))
    assert p2.common.total == 8 and p2.shares == (3, 3, 2)
    # b: dim light (2) + medium (1): worst 2, alone -> -3, same as shared; c: dim + long: two at 2 -> -6: 3 more
    assert [t.extra.value("environment") for t in p2.targets] == [0, 0, -3]
    assert [t.attack.total for t in p2.targets] == [3, 3, 0]  # c: 2 - 3 is below 0


def test_each_firing_mode_rounds_action_and_defense():
    e = encounter(_shooter(), token("razor", 10, 0))
    got = {}
    for m in ("SA", "SB", "BF", "LB", "FA", "FAC"):
        p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode=m), _at(("razor", 10)))
        got[m] = (p.rounds, p.cost, p.target("razor").defense.value("mode"))
    assert got == {"SA": (1, "simple", 0), "SB": (3, "complex", -2), "BF": (3, "simple", -2),
                   "LB": (6, "complex", -5), "FA": (6, "simple", -5), "FAC": (10, "complex", -9)}
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode="SS"), _at(("razor", 10)))
    assert "fires SA, SB, BF, LB, FA, FAC; not SS" in p.problems[0]


def test_cover_classes_change_defense_and_full_cover_is_blind_fire():
    e = encounter(_shooter(), token("razor", 10, 0))
    d = AttackDeclaration("sam", ("razor",), mode="SA")
    vals = {c: plan_attack(e, d, _at(("razor", 10), cover=c)) for c in ("none", "partial", "good", "full")}
    assert [vals[c].target("razor").defense.value("cover") for c in vals] == [0, 2, 4, 0]
    assert vals["full"].common.value("environment") == -6
    assert vals["good"].common.value("environment") == 0
    dark = e.with_rules("sr5", Settings(environment=Environment(light="dark")))
    assert plan_attack(dark, d, _at(("razor", 10), cover="full")).common.value("environment") == -6


def test_situational_modifiers_each_with_a_source():
    s = _shooter(running=True, conditions=("firing_from_cover",), physical_damage=3)
    e = encounter(s, token("razor", 10, 0))
    f = facts([TargetFacts("razor", 10)], {"sam": TokenFacts(in_melee=True)})
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode="SA", called_shot=True, off_hand=True), f)
    m = {x.key: (x.value, x.source) for x in p.common.modifiers}
    assert m == {"wounds": (-1, "sheet"), "running": (-2, "sheet"), "off_hand": (-2, "declaration"),
                 "in_melee": (-3, "map"), "from_cover": (-3, "sheet"), "called_shot": (-4, "declaration")}
    assert (p.common.raw_total, p.common.total) == (6 + 4 - 15, 0)


def test_smartlink_and_aim():
    s = _shooter(weapons=(PREDATOR,), smartlink="implant", aim=3, aim_weapon="Ares Predator V", willpower=4)
    e = encounter(s, token("razor", 4, 0))
    p = plan_attack(e, AttackDeclaration("sam", ("razor",)), _at(("razor", 4)))
    # Pistols 4 + Agility 4 + smartlink 2 + aim min(3, ceil(4/2)=2) = 12; limit 5 + 2 smartgun + 2 aim = 9
    assert p.common.total == 12 and p.target("razor").attack.limit == 9
    s2 = s.with_rules("sr5", s.rules["sr5"].model_copy(update={"smartlink": "none", "aim_bonus": "limit"}))
    p2 = plan_attack(encounter(s2, token("razor", 4, 0)), AttackDeclaration("sam", ("razor",)), _at(("razor", 4)))
    assert p2.common.total == 8 and p2.target("razor").attack.limit == 7


def test_edge_adds_dice_ignores_limit_explodes():
    e = encounter(_shooter(weapons=(PREDATOR,), edge=3), token("razor", 4, 0))
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), edge=True), _at(("razor", 4)))
    assert p.common.total == 11 and p.target("razor").attack.edge
    r = SR5.resolve(p, steps=0).roll([6, 6, 6, 6, 6, 6, 5, 5, 1, 1, 1, 2, 2, 2, 2, 2, 2])
    assert r.result("razor", "attack").hits == 8  # limit 5 ignored; six sixes exploded into six more dice
    e2, _ = apply_attack(e, r.roll([1] * 6).roll([1] * 4))  # defense 6 dice, soak Body 4
    assert e2.token("sam").rules["sr5"].edge_points == 2


def test_two_guns_off_hand_recoil_of_each_and_lower_skill():
    s = _shooter(weapons=(PREDATOR, BROWNING), in_hand=("Ares Predator V", "Browning Ultra-Power"), strength=1)
    e = encounter(s, token("a", 4, 0), token("b", 4.5, 0))
    p = plan_attack(e, AttackDeclaration("sam", ("a", "b"), second_weapon="Browning Ultra-Power"),
                    _at(("a", 4), ("b", 4.5)))
    # Pistols 4 + Agility 4 - 2 off hand; recoil 1 + 1 rounds vs compensation 2: none
    assert p.common.total == 6 and p.shares == (3, 3) and p.recoil.rounds == 2 and p.legal
    e2, _ = apply_attack(e, SR5.resolve(p, [[1, 1, 2], [2] * 6, [1, 1, 2], [2] * 6]))
    assert [w.loaded for w in e2.token("sam").weapons] == [14, 9]


# -- defense ---------------------------------------------------------------------------------------
def test_full_defense_adds_willpower_or_the_quality_that_replaces_it():
    e = encounter(_shooter(), token("razor", 10, 0, willpower=3, agility=5, qualities=("agile_defender",)))
    e, _ = start_turn(e, entered={"sam": 20, "razor": 15})
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode="SA", defenses={"razor": "full_defense"}),
                    _at(("razor", 10)))
    dp = p.target("razor").defense
    assert dp.part("full_defense").value == 5 and "Agile Defender" in dp.part("full_defense").label
    assert dp.total == 11
    e2, _ = apply_attack(e, SR5.resolve(p, [[1] * 10, [1] * 11]))
    r = e2.token("razor").rules.get("sr5")
    assert r.full_defense and r.initiative == 5 and r.defended == 1


def test_bullets_cannot_be_blocked_and_defenses_wear_down():
    e = encounter(_shooter(), token("razor", 10, 0, defended=2))
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode="SA", defenses={"razor": "dodge"}), _at(("razor", 10)))
    assert "cannot dodge bullets" in " ".join(p.problems)
    assert p.target("razor").defense.value("defended") == -2


def test_defender_running_in_melee_and_area():
    e = encounter(_shooter(), token("razor", 10, 0, running=True))
    f = facts([TargetFacts("razor", 10)], {"razor": TokenFacts(in_melee=True)})
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode="SA", area=True), f)
    m = {x.key: x.value for x in p.target("razor").defense.modifiers}
    assert m == {"running": 2, "in_melee": -3, "area": -2}


# -- damage ----------------------------------------------------------------------------------------
def test_hit_net_hits_armor_ap_soak_and_wound_initiative():
    # AK 10P AP -2 vs Body 4, armor 9: attack 4 hits, defense 1 -> net 3 -> DV 13; armor 7 < 13: P
    e = encounter(_shooter(), token("razor", 10, 0, body=4, armor=9))
    e, _ = start_turn(e, entered={"sam": 20, "razor": 15})
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode="SA"), _at(("razor", 10)))
    assert p.target("razor").soak.total == 11  # Body 4 + armor 9 - 2 AP
    r = SR5.resolve(p, [[5, 5, 6, 6, 1, 1, 2, 2, 3, 3], [5, 1, 2, 3, 4, 1], [5, 5, 5, 5, 6, 6, 1, 1, 1, 1, 1]])
    o = r.outcome("razor")
    assert (o.result, o.net_hits, o.dv, o.armor, o.damage_type, o.soak.hits, o.boxes) == ("hit", 3, 13, 7, "P", 6, 7)
    e2, ch = apply_attack(e, r)
    rz = e2.token("razor").rules.get("sr5")
    assert rz.physical_damage == 7 and rz.initiative == 13  # wound -2 costs 2 Initiative
    assert "hit" in ch.label and len(e2.rules["sr5"].log[-1].rolls) == 3
    before, after = {t.id: t for t in ch.tokens_before}, {t.id: t for t in ch.tokens_after}
    assert before["razor"] == e.token("razor") and after["razor"] == e2.token("razor")


def test_tie_is_a_graze_and_no_soak_roll():
    e = encounter(_shooter(), token("razor", 10, 0))
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode="SA"), _at(("razor", 10)))
    r = SR5.resolve(p, [[5, 5, 1, 1, 1, 2, 2, 2, 3, 3], [5, 6, 1, 1, 2, 3]])
    assert r.outcome("razor").result == "graze" and r.done
    assert "graze (tie 2)" in r.steps()[-1]


def test_modified_armor_above_dv_downgrades_to_stun():
    e = encounter(_shooter(weapons=(PREDATOR,)), token("razor", 4, 0, armor=15))
    p = plan_attack(e, AttackDeclaration("sam", ("razor",)), _at(("razor", 4)))
    r = SR5.resolve(p, [[5, 1, 1, 1, 2, 2, 2, 2], [1] * 6, [1] * 18])
    o = r.outcome("razor")
    assert (o.dv, o.armor, o.damage_type, o.boxes) == (9, 14, "S", 9)  # 8 + 1; 15 - 1 = 14 > 9


def test_negative_modified_armor_leaves_body_alone():
    ap = PREDATOR.model_copy(update={"ap": -4})
    e = encounter(_shooter(weapons=(ap,)), token("razor", 4, 0, armor=2, body=4))
    p = plan_attack(e, AttackDeclaration("sam", ("razor",)), _at(("razor", 4)))
    assert p.target("razor").soak.total == 4
    assert "below 0: Body only" in p.target("razor").soak.describe()


def test_gm_overrides_before_rolling():
    e = encounter(_shooter(), token("razor", 40, 0))
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode="SA"), _at(("razor", 40), cover="good"))
    assert p.target("razor").band == "medium" and p.common.value("environment") == -1
    p2 = p.override("environment", 0).override("cover", 2, target="razor", pool="defense")
    assert p2.target("razor").attack.total == 10 and p2.target("razor").defense.value("cover") == 2
    p3 = p2.override("limit:accuracy", 7).with_damage("razor", dv=12, ap=-6)
    # armor 0 - 6 AP is below 0: Body 4 alone
    assert p3.target("razor").attack.limit == 7 and p3.target("razor").soak.total == 4
    with pytest.raises(IllegalActionError):
        p.override("cover", 1, pool="defense")


def test_out_of_range_and_unready_weapons_are_refused():
    e = encounter(_shooter(weapons=(AK, PREDATOR)), token("razor", 61, 0))
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), weapon="Ares Predator V"), _at(("razor", 61)))
    assert any("beyond the extreme range (60 m)" in x for x in p.problems)
    assert any("not ready" in x for x in p.problems)
    with pytest.raises(IllegalActionError):
        apply_attack(e, SR5.resolve(p, [[1] * 8, [1] * 6]))


def test_one_attack_per_phase():
    e = encounter(_shooter(), token("razor", 10, 0))
    e, _ = start_turn(e, entered={"sam": 20, "razor": 15})
    d = AttackDeclaration("sam", ("razor",), mode="SA")
    e, _ = apply_attack(e, SR5.resolve(plan_attack(e, d, _at(("razor", 10))), [[1] * 10, [1] * 6]))
    assert "one attack per phase" in " ".join(plan_attack(e, d, _at(("razor", 10))).problems)


# -- shotgun chokes ------------------------------------------------------------------------------
@pytest.mark.parametrize("choke,dist,band,dv,limit,defense", [
    ("narrow", 10, "short", 10, 4, -1),
    ("medium", 10, "short", 9, 4, -3),
    ("medium", 35, "long", 5, 3, -3),
    ("wide", 20, "medium", 5, 4, -5),
    ("wide", 50, "extreme", 1, 3, -5),
])
def test_choke_per_band(choke, dist, band, dv, limit, defense):
    s = _shooter(weapons=(SHOTGUN,), chokes={"Defiance T-250": choke}, skills={"longarms": 4})
    p = plan_attack(encounter(s, token("razor", dist, 0)), AttackDeclaration("sam", ("razor",), mode="SA"),
                    _at(("razor", dist)))
    t = p.target("razor")
    assert (t.band, t.damage.value, t.attack.limit, t.defense.value("choke")) == (band, dv, limit, defense)


def test_spread_targets_at_most_per_band_and_called_shots_refused():
    s = _shooter(weapons=(SHOTGUN,), chokes={"Defiance T-250": "wide"}, skills={"longarms": 6})
    e = encounter(s, token("a", 10, 0), token("b", 11, 0), token("c", 12, 0))
    p = plan_attack(e, AttackDeclaration("sam", ("a", "b", "c"), mode="SA", called_shot=True),
                    _at(("a", 10), ("b", 11), ("c", 12)))
    assert any("wide spread at short range takes at most 2 targets" in x for x in p.problems)
    assert any("called shot cannot be made" in x for x in p.problems)
    p = plan_attack(e, AttackDeclaration("sam", ("a", "b"), mode="SA"),
                    facts([TargetFacts("a", 10), TargetFacts("b", 11, in_spread=False)]))
    assert any("B is outside the wide spread" in x for x in p.problems)


# -- melee -----------------------------------------------------------------------------------------
def test_melee_charge_reach_and_contact():
    s = _shooter(weapons=(KNIFE,), skills={"blades": 5}, strength=4)
    e = encounter(s, token("razor", 1.5, 0, weapons=(), stance="prone"))
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), charge=True), _at(("razor", 1.5)))
    # Blades 5 + Agility 4 + charge 2; opponent prone +1; limit = accuracy 6; DV STR 4 + 2 = 6
    assert p.kind == "melee" and p.cost == "complex" and p.legal
    assert p.target("razor").attack.total == 12 and p.target("razor").attack.limit == 6
    assert p.target("razor").damage.value == 6 and p.target("razor").defense.value("charge") == 1
    far = encounter(s, token("razor", 3.0, 0, weapons=()))
    p = plan_attack(far, AttackDeclaration("sam", ("razor",)), _at(("razor", 3.0)))
    assert any("out of melee reach" in x for x in p.problems)  # gap 2.2 m > 1 m


def test_parry_needs_a_melee_weapon_and_adds_its_skill():
    s = _shooter(weapons=(KNIFE,), skills={"blades": 5})
    e = encounter(s, token("razor", 1.5, 0, weapons=(KNIFE,), skills={"blades": 3}, recoil=3))
    e, _ = start_turn(e, entered={"sam": 20, "razor": 15})
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), defenses={"razor": "parry"}), _at(("razor", 1.5)))
    assert p.target("razor").defense.value("parry") == 3 and p.target("razor").interrupt_cost == 5
    e2, _ = apply_attack(e, SR5.resolve(p, [[1] * 9, [1] * 9]))
    assert e2.token("razor").rules["sr5"].initiative == 10
    assert e2.token("razor").rules["sr5"].recoil == 0  # the Parry interrupt is an action: recoil resets


def test_several_targets_take_the_multiple_targets_free_action():
    from engine.sr5.actions import Action, apply_action

    e = encounter(_shooter(agility=5), token("a", 10, 0), token("b", 12, 0))
    e, _ = start_turn(e, entered={"sam": 20, "a": 10, "b": 5})
    d = AttackDeclaration("sam", ("a", "b"), mode="BF")
    e2, _ = apply_attack(e, SR5.resolve(plan_attack(e, d, _at(("a", 10), ("b", 12))), [[1] * 6, [1] * 4, [1] * 5, [1] * 4]))
    assert e2.rules["sr5"].phase.simple == 1 and e2.rules["sr5"].phase.free == 1
    assert e2.rules["sr5"].phase.actions == ("fire_weapon", "multiple_targets")
    # with the Free Action already spent and one Simple used, a burst at two targets is refused
    e3, _ = apply_action(e, Action("sam", "speak"))
    e3, _ = apply_action(e3, Action("sam", "observe_in_detail"))
    p = plan_attack(e3, d, _at(("a", 10), ("b", 12)))
    assert any("Multiple Targets Free Action" in x for x in p.problems)


def test_typed_dice_must_match_the_rolls_the_attack_needs():
    """Sam's 10-die attack of all ones misses Razor after his defense roll: two rolls in
    all. One face list is too few (the defense is named), three are too many."""
    e = encounter(_shooter(), token("razor", 10, 0, willpower=3, agility=5))
    e, _ = start_turn(e, entered={"sam": 20, "razor": 15})
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode="SA"), _at(("razor", 10)))
    n_def = p.target("razor").defense.total
    assert SR5.resolve(p, [[1] * 10, [1] * n_def]).done
    with pytest.raises(IllegalActionError, match=r"dice for .*defen.* are missing \(1 rolls given\)"):
        SR5.resolve(p, [[1] * 10])
    with pytest.raises(IllegalActionError, match=r"3 rolls given but the attack needed 2"):
        SR5.resolve(p, [[1] * 10, [1] * n_def, [1]])
