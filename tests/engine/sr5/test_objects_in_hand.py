"""Issue 16 item 8: Drop Object, Pick Up/Put Down Object, Ready Weapon and Quick Draw change
what a token holds (seed 000); a dropped gun cannot fire until picked up and readied (one
Ready Weapon, issue 27 item 7); Ready Weapon readies half the Agility of small throwing
weapons."""

from __future__ import annotations

from engine.model import Weapon
from engine.rules import find_system
from engine.sr5.actions import hands
from engine.sr5.attack import AttackDeclaration, apply_attack, plan_attack
from engine.sr5.actions import Action, apply_action, check_action
from engine.sr5.initiative import start_turn
from engine.sr5.facts import TargetFacts, facts
from tests.engine.sr5.helpers import AK, PREDATOR, encounter, token
from engine.sr5.system import SYSTEM as SR5

KNIVES = Weapon(name="Throwing knife", category="thrown_knife", damage="(STR+1)P", ap=-1, accuracy=5,
                skill="throwing_weapons", ammo=6, loaded=6)
AT = facts([TargetFacts("razor", 5, "none")])


def _enc(**kw):
    sam = token("sam", 0, 0, weapons=(AK, PREDATOR, KNIVES), side="runner", skills={"automatics": 5}, **kw)
    return encounter(sam, token("razor", 5, 0))


def _fire(enc, weapon="AK-97"):
    return plan_attack(enc, AttackDeclaration("sam", ("razor",), weapon=weapon, mode="SA" if weapon == "AK-97" else None), AT)


def test_a_dropped_gun_fires_only_once_picked_up_and_readied():
    enc = _enc()
    assert hands(enc.token("sam")) == ("AK-97", None) and _fire(enc).legal
    enc, _ = apply_action(enc, Action("sam", "drop_object", weapon="AK-97"))
    sh = enc.token("sam").rules["sr5"]
    assert (sh.in_hand, sh.dropped, hands(enc.token("sam"))) == ((), ("AK-97",), (None, None))
    assert _fire(enc).problems[0] == "AK-97 is on the ground: Ready Weapon picks it up (Simple Action)"
    # issue 27 item 7: Ready Weapon picks it up (seed 000: "Readying entails ... picking up any
    # kind of weapon"); see tests/engine/sr5/test_seed_rules_issue27.py
    enc, _ = apply_action(enc, Action("sam", "ready_weapon", weapon="AK-97"))
    assert _fire(enc).legal and hands(enc.token("sam")) == ("AK-97", None)
    status = find_system("sr5").token_status(enc, "sam")
    assert "Hands: AK-97 / empty" in status


def test_drop_object_with_both_hands_full_drops_both_as_one_free_action():
    enc = _enc(in_hand=("AK-97", "Ares Predator V"))
    enc, _ = start_turn(enc, entered={"sam": 20, "razor": 5})
    enc, _ = apply_action(enc, Action("sam", "drop_object"))
    assert enc.token("sam").rules["sr5"].dropped == ("AK-97", "Ares Predator V")
    assert enc.rules["sr5"].phase.free == 1 and enc.rules["sr5"].phase.simple == 0
    assert "On the ground: AK-97, Ares Predator V" in find_system("sr5").token_status(enc, "sam")
    assert check_action(enc, Action("sam", "drop_object")) == "Sam holds nothing to drop"


def test_put_down_a_held_weapon_and_quick_draw_fills_a_hand():
    enc, _ = apply_action(_enc(), Action("sam", "pick_up", weapon="AK-97"))  # holding it: put it down
    assert enc.token("sam").rules["sr5"].dropped == ("AK-97",)
    enc, _ = apply_action(enc, Action("sam", "quick_draw", weapon="Ares Predator V"), [5, 5, 5])  # Pistols 0 + Reaction 3
    assert hands(enc.token("sam")) == ("Ares Predator V", None)


def test_ready_weapon_readies_half_the_agility_of_throwing_knives():
    # Agility 5: 5 // 2 = 2 a Ready Weapon action; 6 carried
    enc = _enc(agility=5, in_hand=())
    enc, _ = apply_action(enc, Action("sam", "ready_weapon", weapon="Throwing knife"))
    assert enc.token("sam").rules["sr5"].readied == {"Throwing knife": 2}
    enc, _ = apply_action(enc, Action("sam", "ready_weapon", weapon="Throwing knife"))
    assert enc.token("sam").rules["sr5"].readied == {"Throwing knife": 4}
    # Agility 1: 1 // 2 = 0, at least 1
    low, _ = apply_action(_enc(agility=1, in_hand=()), Action("sam", "ready_weapon", weapon="Throwing knife"))
    assert low.token("sam").rules["sr5"].readied == {"Throwing knife": 1}
    # throwing one leaves one fewer readied; the last one thrown empties the hand
    p = _fire(low, "Throwing knife")
    assert p.legal
    after, _ = apply_attack(low, SR5.resolve(p, [[1] * p.targets[0].attack.total, [1] * p.targets[0].defense.total]))
    sh = after.token("sam").rules["sr5"]
    assert sh.readied == {"Throwing knife": 0} and "Throwing knife" not in (sh.in_hand or ())
    assert _fire(after, "Throwing knife").problems[0] == "Throwing knife is not ready: Ready Weapon first (Simple Action)"
