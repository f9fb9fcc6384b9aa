"""Issue 16 items 9 and 10: Observe in Detail rolls the Perception Test (seed 000) with the
usual penalties; each exotic weapon has its own skill (seed 001)."""

from __future__ import annotations

from engine.model import Weapon
from engine.sr5.attack import AttackDeclaration, plan_attack
from engine.sr5.actions import Action, apply_action
from engine.sr5.facts import TargetFacts, facts
from engine.sr5.sheet import Settings, Suppression
from engine.sr5.tables import skill_rating, weapon_skill
from tests.engine.sr5.helpers import AK, encounter, token


def test_observe_in_detail_rolls_intuition_plus_perception_limited_by_mental():
    # Perception 3 + Intuition 3 - 1 wounds (3 Stun boxes) - 2 (zone b, 2 hits) = 3 dice;
    # Mental limit ceil((2 x 3 + 3 + 3) / 3) = 4; threshold 2 set by the GM
    sup = Settings(suppressions=(Suppression(zone="b", shooter="sam", weapon="AK-97", hits=2),))
    enc = encounter(token("sam", 0, 0), token("spike", 10, 0, skills={"perception": 3}, stun_damage=3), settings=sup)
    new, ch = apply_action(enc, Action("spike", "observe_in_detail", near_zones=("b",), threshold=2), [5, 6, 1])
    rec = new.rules["sr5"].log[-1].rolls[0]
    assert rec.pool == 3 and rec.limit == 4 and rec.threshold == 2
    assert dict(rec.parts) == {"Perception": 3, "Intuition": 3, "wounds": -1, "suppressive fire of Sam (2 hits)": -2}
    assert ch.details["test"].hits == 2 and ch.details["test"].success
    assert "Observe in Detail: 3 dice [5 6 1] -> 2 hits vs threshold 2: success" in new.rules["sr5"].log[-1].text


FLAMER = Weapon(name="Flamer", category="flamethrower", damage="10P", accuracy=5)
LASER = Weapon(name="Ares Lancer", damage="8P", accuracy=7, modes=("SA",))


def test_each_exotic_weapon_has_its_own_skill_key():
    assert weapon_skill(FLAMER) == "exotic_ranged_weapon_flamethrower"
    assert weapon_skill(LASER) == "exotic_ranged_weapon_ares_lancer"
    assert weapon_skill(AK) == "automatics"


def _pool(skills, weapons, which):
    enc = encounter(token("sam", 0, 0, weapons=weapons, agility=4, skills=skills), token("razor", 10, 0))
    p = plan_attack(enc, AttackDeclaration("sam", ("razor",), weapon=which), facts([TargetFacts("razor", 10, "none")]))
    return p.common.total


def test_a_flamethrowers_skill_is_not_a_lasers():
    skills = {"exotic_ranged_weapon_flamethrower": 5, "exotic_ranged_weapon_ares_lancer": 2}
    assert _pool(skills, (FLAMER, LASER), "Flamer") == 5 + 4
    assert _pool(skills, (FLAMER, LASER), "Ares Lancer") == 2 + 4
    assert _pool({"exotic_ranged_weapon_flamethrower": 5}, (FLAMER, LASER), "Ares Lancer") == 0 + 4


def test_a_generic_exotic_rating_serves_only_a_characters_one_exotic_weapon():
    sheet_one = token("sam", 0, 0, weapons=(FLAMER, AK), skills={"exotic_ranged_weapon": 4}).rules["sr5"]
    assert skill_rating(sheet_one, FLAMER, carried=(FLAMER, AK)) == 4
    assert skill_rating(sheet_one, FLAMER, carried=(FLAMER, LASER)) == 0  # which one would it be?
    assert _pool({"exotic_ranged_weapon": 4}, (FLAMER, AK), "Flamer") == 4 + 4
