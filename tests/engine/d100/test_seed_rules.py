"""Issue 16 items 12-14, d100 (seed 003): armour wears by half the shot; no one is
ambidextrous; a leg at Acute may only crawl."""

from __future__ import annotations

from engine.d100.actions import Fire, FireTwoPistols, StartRound, TargetSpec
from engine.d100.dice import ScriptedDice
from engine.model import Encounter
from engine.rules import MoveTo, find_system

RULESET = find_system("d100")


def enc(settings=None, shooter=None, target=None):
    return Encounter.model_validate({
        "ruleset": "d100", "map": {"width": 30, "height": 30},
        "tokens": [
            {"id": "a", "name": "Ana", "x": 1, "y": 1, "d100": {
                "skills": {"pistol": 60, "gun": 100},
                "weapons": [{"name": "P", "kind": "pistol", "skill": "pistol", "damage": "d10"},
                            {"name": "Q", "kind": "pistol", "skill": "pistol", "damage": "d10"},
                            {"name": "Gun", "kind": "rifle", "skill": "gun", "damage": "d30"}],
                "weapon": "P", **(shooter or {})}},
            {"id": "b", "name": "Bo", "x": 8, "y": 1, "d100": {"max_injury": 100, **(target or {})}},
        ],
        "d100": settings or {},
    })


# -- item 12: "an amount of damage to that piece of armour equal to half the damage of the shot"
GREAVE = {"stance": "standing_cover", "armour": {"left_leg": {"name": "greave", "value": 2, "durability": 10}}}


def test_armour_wears_half_the_shot_before_cover():
    # Gun 100%: roll 50 hits, location 80 = left leg (hidden: cover 5), damage 10.
    # 10 - cover 5 = 5 reach the greave (2): pierced, 3 through; wear = 10 // 2 = 5 (the shot).
    e = enc(shooter={"weapon": "Gun"}, target=GREAVE)
    d = RULESET.apply(e, Fire("a", (TargetSpec("b"),)), ScriptedDice([50, 80, 10])).detail.shots[0].damage
    assert (d.after_cover, d.armour, d.pierced, d.taken, d.wear, d.durability_after) == (5, 2, True, 3, 5, 5)


def test_the_other_reading_wears_half_of_what_cover_leaves():
    e = enc({"armour_wear_of": "after_cover"}, shooter={"weapon": "Gun"}, target=GREAVE)
    d = RULESET.apply(e, Fire("a", (TargetSpec("b"),)), ScriptedDice([50, 80, 10])).detail.shots[0].damage
    assert (d.wear, d.durability_after) == (2, 8)  # 5 // 2


# -- item 13: "It is not possible to be ambidextrous" -----------------------------------------
def test_the_off_hand_costs_20_unless_ambidextrous():
    # P in the off hand only: pistol 60 - 20 off hand = 40
    off = {"weapon": None, "offhand": "P"}
    pre = RULESET.preview(enc(shooter=off), Fire("a", (TargetSpec("b"),), weapon="P"))
    mods = {m.source: m.value for m in pre.attacks[0].shots[0].modifiers}
    assert pre.attacks[0].shots[0].value == 40 and mods["off hand"] == -20
    amb = RULESET.preview(enc(shooter={**off, "traits": ["ambidextrous"]}), Fire("a", (TargetSpec("b"),), weapon="P"))
    assert amb.attacks[0].shots[0].value == 60
    assert RULESET.preview(enc({"off_hand_penalty": 10}, shooter=off),
                           Fire("a", (TargetSpec("b"),), weapon="P")).attacks[0].shots[0].value == 50


def test_two_pistols_take_20_each_and_no_off_hand_penalty_on_top():
    # Issue 27 item 7, seed 003 (Fire Weapon): "A character can equip two pistol type weapons
    # and fire both as a single action, but both weapons take a -20% penalty for those
    # attacks." Pistol 60%, two pistols: each attack 60 - 20 = 40 (not 40 and 20).
    two = {"weapon": "P", "offhand": "Q"}
    pre = RULESET.preview(enc(shooter=two), FireTwoPistols("a", TargetSpec("b")))
    assert [a.shots[0].value for a in pre.attacks] == [40, 40]
    off_mods = {m.source: m.value for m in pre.attacks[1].shots[0].modifiers}
    assert off_mods == {"skill": 60, "two pistols": -20}
    # the trait changes nothing here; a second target, semi-auto: the same for both guns
    pre = RULESET.preview(enc(shooter={**two, "traits": ["ambidextrous"]}), FireTwoPistols("a", TargetSpec("b")))
    assert [a.shots[0].value for a in pre.attacks] == [40, 40]
    semi = [{"name": n, "kind": "pistol", "skill": "pistol", "damage": "d10", "modes": ["single", "semi"]}
            for n in ("P", "Q")]
    pre = RULESET.preview(enc(shooter={**two, "weapons": semi}), FireTwoPistols("a", TargetSpec("b"), mode="semi"))
    assert pre.legal, pre.reason
    # semi-auto, 3 shots each: 60 - 20 - 30 = 10 on each shot of each gun
    assert [[c.value for c in a.shots] for a in pre.attacks] == [[10, 10, 10], [10, 10, 10]]


def test_the_dice_resolve_two_pistols_at_40_each():
    # rolls: main 40 (hit, at 40), location 15, damage 3; off-hand 40 (hit at 40, was 20)
    two = {"weapon": "P", "offhand": "Q"}
    r = RULESET.apply(enc(shooter=two), FireTwoPistols("a", TargetSpec("b")), ScriptedDice([40, 15, 3, 40, 15, 3])).detail
    assert [sh.hit for sh in r.shots] == [True, True]


# -- item 14: "may only crawl" -----------------------------------------------------------------
ACUTE_LEG = {"wounds": {"left_leg": {"damage": 16, "severity": "acute"}}}  # 16: acute (1/6/11/16/21)


def test_a_crawler_moves_at_most_2_m_a_round_along_the_drag():
    d100 = find_system("d100")
    e = enc(target=ACUTE_LEG)
    e = RULESET.apply(e, StartRound()).encounter
    assert d100.movement(e, "b").left == 2.0 and d100.movement(e, "a") is None
    out = d100.on_moves(e, [MoveTo("b", (9.5, 1.0))])  # 1.5 m: allowed
    b = out.encounter.token("b")
    assert (b.x, b.rules["d100"].moved, out.notes) == (9.5, 1.5, ())
    refused = d100.on_moves(out.encounter, [MoveTo("b", (10.5, 1.0))])  # 1 m more: 2.5 > 2
    assert refused.encounter.token("b").x == 9.5
    assert refused.notes == ("refused: Bo may only crawl (left leg acute): 2 m a round, 1.5 m crawled; "
                             "1.0 m more is too far",)
    # the path counts, not the straight line: (8,1) -> (9,1) -> (9,2) is 2 m (straight 1.41 m)
    bent = d100.on_moves(e, [MoveTo("b", (9.0, 2.0), path=((9.0, 1.0),))])
    assert bent.encounter.token("b").rules["d100"].moved == 2.0 and not bent.notes
    too_far = d100.on_moves(e, [MoveTo("b", (9.0, 2.5), path=((9.0, 1.0),))])
    assert too_far.encounter.token("b").y == 1.0 and too_far.notes


def test_crawling_is_free_outside_a_round_and_noted_with_the_option():
    d100 = find_system("d100")
    out = d100.on_moves(enc(target=ACUTE_LEG), [MoveTo("b", (20.0, 1.0))])
    assert out.encounter.token("b").x == 20.0 and not out.notes
    e = RULESET.apply(enc({"crawl_refuses": False, "crawl_metres": 1.0}, target=ACUTE_LEG), StartRound()).encounter
    noted = d100.on_moves(e, [MoveTo("b", (10.0, 1.0))])
    assert noted.encounter.token("b").x == 10.0 and noted.notes[0].startswith("moved anyway: Bo may only crawl")


def test_a_useless_primary_arm_leaves_the_off_hand_and_its_penalty():
    # right arm Acute (16 points): useless; the pistol must go to the left (off) hand: 60 - 20
    hurt = {"weapon": None, "wounds": {"right_arm": {"damage": 16, "severity": "acute"}}}
    from engine.d100.actions import SwitchWeapon

    e = enc(shooter=hurt)
    assert RULESET.why_not(e, SwitchWeapon("a", "P", hand="main")) == "Ana's right arm is useless: take it in the off hand"
    e = RULESET.apply(e, SwitchWeapon("a", "P", hand="off")).encounter
    assert RULESET.preview(e, Fire("a", (TargetSpec("b"),), weapon="P")).attacks[0].shots[0].value == 40
    amb = RULESET.apply(enc(shooter={**hurt, "traits": ["ambidextrous"]}), SwitchWeapon("a", "P", hand="off")).encounter
    assert RULESET.preview(amb, Fire("a", (TargetSpec("b"),), weapon="P")).attacks[0].shots[0].value == 60
