"""Issue 16 item 5: Call a Shot is a Free Action booked in the phase, and "must be immediately
followed by a Take Aim, Fire Weapon, Throw Weapon, or Melee Unarmed Attack" (seed 000)."""

from __future__ import annotations

from engine.sr5.attack import AttackDeclaration, apply_attack, plan_attack
from engine.sr5.actions import Action, apply_action, check_action
from engine.sr5.economy import phase_budget
from engine.sr5.initiative import start_turn
from engine.sr5.facts import TargetFacts, facts
from tests.engine.sr5.helpers import AK, PREDATOR, encounter, token
from engine.sr5.system import SYSTEM as SR5

AT_B = facts([TargetFacts("b", 10, "none")])


def _duel():
    e = encounter(token("a", 0, 0, weapons=(AK, PREDATOR), willpower=4, agility=4, skills={"automatics": 5}),
                  token("b", 10, 0))
    e, _ = start_turn(e, entered={"a": 20, "b": 10})
    return e


def test_call_a_shot_is_booked_as_a_free_action_and_holds_until_the_attack():
    e, _ = apply_action(_duel(), Action("a", "call_shot"))
    ph = e.rules["sr5"].phase
    assert (ph.free, ph.simple, ph.actions) == (1, 0, ("call_shot",))
    assert e.token("a").rules["sr5"].called_shot
    assert phase_budget(e, "a").free == 2  # 3 - 0 Simple - 1 Free
    # anything else in between is refused with the reason
    why = "A has called a shot: {} may not come between; the next action must be Take Aim, Fire Weapon, Throw Weapon or a Melee Attack"
    assert check_action(e, Action("a", "run")) == why.format("Run")
    assert check_action(e, Action("a", "observe_in_detail")) == why.format("Observe in Detail")
    assert check_action(e, Action("a", "call_shot")) == "A has already called a shot"
    # Take Aim may come between (it keeps the call)
    e, _ = apply_action(e, Action("a", "take_aim", weapon="AK-97"))
    assert e.token("a").rules["sr5"].called_shot and e.token("a").rules["sr5"].aim == 1
    # the attack: Automatics 5 + Agility 4 - 4 called shot + 1 aim = 6 dice
    p = plan_attack(e, AttackDeclaration("a", ("b",), mode="SA"), AT_B)
    mods = {m.key: (m.value, m.source) for m in p.common.parts}
    assert p.legal and mods["called_shot"] == (-4, "sheet") and p.common.total == 6
    e2, _ = apply_attack(e, SR5.resolve(p, [[1] * 6, [1] * 6]))
    assert not e2.token("a").rules["sr5"].called_shot
    assert e2.rules["sr5"].phase.actions == ("call_shot", "take_aim", "fire_weapon")
    assert (e2.rules["sr5"].phase.free, e2.rules["sr5"].phase.simple) == (1, 2)


def test_a_called_shot_declared_with_the_attack_books_the_free_action():
    e = _duel()
    p = plan_attack(e, AttackDeclaration("a", ("b",), mode="SA", called_shot=True), AT_B)
    assert p.legal and p.common.total == 5 + 4 - 4
    e2, _ = apply_attack(e, SR5.resolve(p, [[1] * 5, [1] * 6]))
    assert e2.rules["sr5"].phase.actions == ("call_shot", "fire_weapon") and e2.rules["sr5"].phase.free == 1


def test_no_free_action_left_no_called_shot():
    e = _duel()
    e, _ = apply_action(e, Action("a", "take_aim", weapon="AK-97"))
    e, _ = apply_action(e, Action("a", "speak"))  # Simple 1 + Free 1; the shot makes Simple 2: 3 actions
    p = plan_attack(e, AttackDeclaration("a", ("b",), mode="SA", called_shot=True), AT_B)
    assert p.problems == ("a called shot needs the Call a Shot Free Action: A has no action left this phase "
                          "for another Free Action",)


def test_other_attacks_may_not_follow_a_call():
    e, _ = apply_action(_duel(), Action("a", "call_shot"))
    p = plan_attack(e, AttackDeclaration("a", ("b",), mode="SA"), AT_B)
    assert p.legal
    # a forced other action lets the call lapse
    e2, _ = apply_action(e, Action("a", "speak"), force=True)
    assert not e2.token("a").rules["sr5"].called_shot
    assert "called_shot" not in {m.key for m in plan_attack(e2, AttackDeclaration("a", ("b",), mode="SA"), AT_B).common.parts}
