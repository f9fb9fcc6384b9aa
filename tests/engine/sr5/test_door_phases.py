"""Shadowrun through its one door (issue 27 item 1): preview -> resolve one test at a time ->
apply, the same answers as rolling everything at once (numbers by hand)."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.rules import find_system
from engine.sr5.actions import Action
from engine.sr5.attack import AttackDeclaration
from engine.sr5.condition import monitor
from engine.sr5.system import Forced
from tests.engine.sr5.helpers import encounter, token

SR5 = find_system("sr5")


def _fight():
    # Sam: Automatics 6 + Agility 4 = 10 dice, AK-97 accuracy 5; A: Reaction 3 + Intuition 3 = 6
    # to defend, Body 4 (armor 0, AP -2: Body only) to soak; 10 m in the open, full light
    return encounter(token("sam", 0, 0, side="runner", skills={"automatics": 6}), token("a", 10, 0))


def test_an_attack_rolled_test_by_test_lands_as_when_rolled_at_once():
    enc = _fight()
    plan = SR5.preview(enc, AttackDeclaration("sam", ("a",)))
    tp = plan.targets[0]
    assert (tp.attack.total, tp.attack.limit, tp.defense.total, tp.soak.total) == (10, 5, 6, 4)
    r = SR5.resolve(plan, steps=0)
    assert r.rolls == () and r.next_roll().step == "attack"
    r = SR5.resolve(r, [5] * 10, steps=1)  # 10 hits, limit 5
    assert r.next_roll().step == "defense" and r.result("a", "attack").hits == 5
    r = SR5.resolve(r, [1] * 6, steps=1)  # no hits: 5 net, DV 10 + 5 = 15
    assert r.next_roll().step == "soak" and r.outcome("a").dv == 15
    r = SR5.resolve(r, [6, 6, 1, 1], steps=1)  # 2 hits soaked: 13 boxes
    assert r.done and r.outcome("a").boxes == 13
    with pytest.raises(IllegalActionError, match="no test is left"):
        SR5.resolve(r, [1], steps=1)
    at_once = SR5.resolve(plan, [[5] * 10, [1] * 6, [6, 6, 1, 1]])
    assert at_once == r
    out = SR5.apply(enc, r)
    # Physical monitor 8 + ceil(Body 4 / 2) = 10 boxes: 10 marked, 3 overflow
    assert out.changes.tokens == {"sam", "a"}
    assert (monitor(out.encounter.token("a").rules["sr5"]).physical, monitor(out.encounter.token("a").rules["sr5"]).overflow) == (10, 3)
    assert out.label == "Sam attacks: A hit" and out.detail.details["outcomes"]["a"].boxes == 13


def test_a_refused_action_lands_only_when_the_gm_forces_it():
    enc = _fight()
    act = Action("a", "stand_up")
    assert SR5.why_not(enc, act) == "A is already standing"
    with pytest.raises(IllegalActionError, match="already standing"):
        SR5.apply(enc, act)
    out = SR5.apply(enc, Forced(act))  # the GM's word
    assert SR5.why_not(enc, Forced(act)) is None and out.label == "A: Stand Up"


def test_a_refused_action_still_says_its_cost_when_forced():
    # the tracker lists every action with its cost, the refused ones too, through the door
    enc = _fight()
    act = Action("a", "stand_up")
    with pytest.raises(IllegalActionError, match="already standing"):
        SR5.preview(enc, act)
    assert SR5.preview(enc, Forced(act)) == ("simple", 0)  # Stand Up: a Simple Action, no Initiative
    assert SR5.preview(enc, Forced(Action("a", "speak"))) == SR5.preview(enc, Action("a", "speak")) == ("free", 0)
