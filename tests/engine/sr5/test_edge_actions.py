"""Issue 16 item 6: the Edge actions of a gunfight, each a point of the current Edge, refused
at 0, listed with the other actions."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.sr5 import edge
from engine.sr5.attack import AttackDeclaration, plan_attack
from engine.sr5.actions import Action, apply_action, available_actions, check_action
from engine.sr5.initiative import start_turn
from engine.sr5.dice import TestResult as Roll
from engine.sr5.facts import TargetFacts, facts
from tests.engine.sr5.helpers import AK, encounter, token
from engine.sr5.system import SYSTEM as SR5

EDGE_IDS = ("second_chance", "close_call", "seize_initiative", "blitz", "dead_mans_trigger", "lucky_cover")


def _pair(**b):
    return encounter(token("a", 0, 0, weapons=(AK,), agility=4, skills={"automatics": 5}), token("b", 10, 0, **b))


def _edge(enc, tid):
    return enc.token(tid).rules["sr5"].edge_left


def test_every_edge_action_is_listed_and_refused_at_zero_edge():
    listed = {spec.id: reason for spec, reason in available_actions(_pair(edge_points=0), "b")}
    for aid in EDGE_IDS:
        assert aid in listed
    assert listed["second_chance"] == "B has no Edge left (Second Chance (1 Edge) spends 1)"
    assert listed["seize_initiative"] == "B has no Edge left (Seize the Initiative (1 Edge) spends 1)"
    assert listed["lucky_cover"] == "B has no Edge left (Lucky Cover spends 1)"
    ok = {spec.id: reason for spec, reason in available_actions(_pair(), "b")}
    assert ok["second_chance"] is None and ok["blitz"] is None and ok["seize_initiative"] is None
    assert ok["dead_mans_trigger"] == "B is not going down: Dead Man's Trigger is for one falling unconscious or dying"


def test_seize_the_initiative_acts_first_and_costs_a_point():
    enc, _ = apply_action(_pair(), Action("b", "seize_initiative"))  # between turns: for turn 1
    assert _edge(enc, "b") == 1 and enc.token("b").rules["sr5"].seized_turn == 1  # Edge 2 -> 1
    enc, _ = start_turn(enc, entered={"a": 20, "b": 10})
    assert enc.rules["sr5"].acting == "b"  # 10 beats 20: b seized the initiative
    assert check_action(enc, Action("b", "seize_initiative")) == "B has already seized the initiative for Combat Turn 1"
    # the next turn is ordered as usual again
    nxt = enc
    for _ in range(4):
        if nxt.rules["sr5"].initiative_pass == 0:
            break
        from engine.sr5.initiative import end_phase
        nxt, _ = end_phase(nxt)
    nxt, _ = start_turn(nxt, entered={"a": 20, "b": 10})
    assert nxt.rules["sr5"].acting == "a"


def test_blitz_rolls_five_dice_next_turn_and_only_between_turns():
    enc, _ = apply_action(_pair(), Action("b", "blitz"))
    assert enc.token("b").rules["sr5"].blitz_turn == 1 and _edge(enc, "b") == 1
    with pytest.raises(IllegalActionError, match="B rolls 5D6 initiative: enter 5 dice, not 1") as refused:
        start_turn(enc, entered={"b": [6]})
    assert refused.value.ids == ("b",)  # the text names B; the id stays for programs
    enc, _ = start_turn(enc, entered={"a": 20, "b": [1, 2, 3, 4, 5]})
    assert enc.token("b").rules["sr5"].initiative == 3 + 3 + 15  # Reaction 3 + Intuition 3 + 5D6
    assert check_action(enc, Action("a", "blitz")) == "Blitz is declared before initiative is rolled (between Combat Turns)"


def test_second_chance_rerolls_the_misses():
    r = Roll(6, (5, 1, 1, 2, 3, 4))
    again = edge.second_chance(r, [5, 6, 1, 2, 2])
    assert (r.hits, again.hits, again.dice) == (1, 3, (5, 5, 6, 1, 2, 2))
    with pytest.raises(IllegalActionError, match="Second Chance rerolls 5 dice, not 2"):
        edge.second_chance(r, [5, 5])
    with pytest.raises(IllegalActionError, match="Push the Limit"):
        edge.second_chance(Roll(6, (5, 1, 1, 2, 3, 4), edge=True), [5] * 5)
    # on an attack: Automatics 5 + Agility 4 = 9 dice, 1 hit; the 8 misses again: 3 more hits
    enc = _pair()
    p = plan_attack(enc, AttackDeclaration("a", ("b",), mode="SA"), facts([TargetFacts("b", 10, "none")]))
    res = SR5.resolve(p, steps=0).roll([5, 1, 2, 2, 3, 3, 4, 4, 2])
    res = res.second_chance("b", "attack", [5, 5, 6, 1, 2, 2, 3, 3])
    assert res.result("b", "attack").hits == 4
    after, _ = apply_action(enc, Action("a", "second_chance", note="attack on B"))
    assert _edge(after, "a") == 1 and "Second Chance" in after.rules["sr5"].log[-1].text


def test_close_call_negates_a_glitch_and_softens_a_critical_one():
    g = Roll(6, (1, 1, 1, 1, 5, 2))
    assert g.glitch and not edge.close_call(g).glitch
    crit = Roll(6, (1, 1, 1, 1, 2, 3))
    soft = edge.close_call(crit)
    assert crit.critical_glitch and soft.glitch and not soft.critical_glitch
    with pytest.raises(IllegalActionError, match="needs a glitch"):
        edge.close_call(Roll(3, (5, 2, 3)))


def test_dead_mans_trigger_gives_one_last_simple_action():
    # Body 4: a Physical monitor of 8 + ceil(4 / 2) = 10 boxes; full: unconscious
    enc = _pair(physical_damage=10, weapons=(AK,))
    enc, _ = start_turn(enc, entered={"a": 20, "b": 10})
    assert check_action(enc, Action("b", "take_aim", weapon="AK-97")) == "B is unconscious and cannot act"
    # Body 4 + Willpower 3 = 7 dice, threshold 3: three hits
    up, ch = apply_action(enc, Action("b", "dead_mans_trigger"), [5, 5, 6, 1, 2, 3, 4])
    assert ch.details["test"].hits == 3 and up.token("b").rules["sr5"].last_action and _edge(up, "b") == 1
    assert check_action(up, Action("b", "take_aim", weapon="AK-97")) is None  # out of its phase, down
    done, _ = apply_action(up, Action("b", "take_aim", weapon="AK-97"))
    assert not done.token("b").rules["sr5"].last_action
    assert check_action(done, Action("b", "take_aim", weapon="AK-97")) == "B is unconscious and cannot act"
    failed, _ = apply_action(enc, Action("b", "dead_mans_trigger"), [5, 1, 1, 2, 2, 3, 4])
    assert not failed.token("b").rules["sr5"].last_action and _edge(failed, "b") == 1
