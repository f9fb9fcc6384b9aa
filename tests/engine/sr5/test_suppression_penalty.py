"""Issue 16 item 4: the suppression penalty is "on all their actions" (seed 001) - every test
an action rolls, melee and throwing too; the strongest zone only; defense and damage
resistance by option (defense yes, resistance no by default)."""

from __future__ import annotations

from engine.model import Weapon
from engine.sr5.attack import AttackDeclaration, plan_attack
from engine.sr5.actions import Action, apply_action
from engine.sr5.facts import TargetFacts, TokenFacts, facts
from engine.sr5.sheet import Options, Settings, Suppression
from tests.engine.sr5.helpers import AK, KNIFE, PREDATOR, encounter, token

KNIVES = Weapon(name="Throwing knife", category="thrown_knife", damage="(STR+1)P", ap=-1, accuracy=5,
                skill="throwing_weapons")


def _settings(**opts):
    zones = (Suppression(zone="a", shooter="sam", weapon="AK-97", hits=3),
             Suppression(zone="b", shooter="sam", weapon="AK-97", hits=2))
    return Settings(suppressions=zones, options=Options(**opts))


def _enc(**opts):
    sam = token("sam", 0, 0, weapons=(AK,), side="runner")
    spike = token("spike", 10, 0, weapons=(PREDATOR, KNIFE, KNIVES), strength=3,
                  skills={"running": 2, "pistols": 4, "blades": 3, "throwing_weapons": 3})
    return encounter(sam, spike, token("razor", 11, 0), settings=_settings(**opts))


def _mods(pool):
    return {p.key: p.value for p in pool.parts}


def test_sprint_rolls_with_the_strongest_zone_penalty():
    # Running 2 + Strength 3 = 5, zones a (3 hits) and b (2): only -3 -> 2 dice
    enc = _enc()
    new, ch = apply_action(enc, Action("spike", "sprint", near_zones=("a", "b")), [5, 5])
    rec = new.rules["sr5"].log[-1].rolls[0]
    assert rec.pool == 2 and ("suppressive fire of Sam (3 hits)", -3) in rec.parts
    assert ch.details["test"].hits == 2


def test_quick_draw_and_stand_up_roll_with_it():
    enc = _enc()
    # Quick Draw: Pistols 4 + Reaction 3 - 2 (zone b alone) = 5 dice, threshold 3
    new, ch = apply_action(enc, Action("spike", "quick_draw", weapon="Ares Predator V", near_zones=("b",)),
                           [5, 5, 5, 1, 2])
    rec = new.rules["sr5"].log[-1].rolls[0]
    assert rec.pool == 5 and ("suppressive fire of Sam (2 hits)", -2) in rec.parts and ch.details["fire"]
    # Stand Up when wounded: Body 4 + Willpower 3 = 7 - 3 (zone a) = 4 dice, threshold 2
    hurt = enc.model_copy(update={"tokens": tuple(
        t.with_rules("sr5", t.rules["sr5"].model_copy(update={"stun_damage": 1})).model_copy(update={"stance": "prone"})
        if t.id == "spike" else t for t in enc.tokens)})
    up, _ = apply_action(hurt, Action("spike", "stand_up", near_zones=("a",)), [5, 5, 1, 1])
    assert up.rules["sr5"].log[-1].rolls[0].pool == 4 and up.token("spike").stance == "standing"


def test_melee_and_throwing_attacks_take_it():
    enc = _enc()
    near = {"spike": TokenFacts(near_zones=("a",))}
    melee = plan_attack(enc, AttackDeclaration("spike", ("razor",), weapon="Combat knife"),
                        facts([TargetFacts("razor", 1.0, "none")], near))
    assert _mods(melee.common)["suppressed"] == -3
    thrown = plan_attack(enc, AttackDeclaration("spike", ("razor",), weapon="Throwing knife"),
                         facts([TargetFacts("razor", 1.0, "none")], near))
    assert _mods(thrown.common)["suppressed"] == -3
    assert thrown.common.total == 3 + 4 - 3  # Throwing Weapons 3 + Agility 4, -3


def test_defense_takes_it_by_default_and_soak_only_by_option():
    near = {"razor": TokenFacts(in_zones=("a",), near_zones=("a",))}
    f = facts([TargetFacts("razor", 11.0, "none")], near)
    default = plan_attack(_enc(), AttackDeclaration("sam", ("razor",), mode="SA"), f).targets[0]
    assert _mods(default.defense)["suppressed"] == -3 and "suppressed" not in _mods(default.soak)
    off = plan_attack(_enc(suppression_on_defense=False, suppression_on_soak=True),
                      AttackDeclaration("sam", ("razor",), mode="SA"), f).targets[0]
    assert "suppressed" not in _mods(off.defense) and _mods(off.soak)["suppressed"] == -3
    assert off.soak.total == 4 + 0 - 3  # Body 4 + armor 0 (AP -2 cannot take it below 0) - 3
