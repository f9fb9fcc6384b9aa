"""Dice the GM types in, with the encounter's seeded sequence rolling the rest: the sequence
advances by the dice it rolled only (engine.d100.values.seeded_source)."""

from __future__ import annotations

from engine.d100.dice import EnteredDice, SeededDice
from engine.d100.actions import Fire
from engine.d100.values import seeded_source
from engine.model import Encounter
from engine.rules import find_system

RULESET = find_system("d100")


def enc():
    return Encounter.model_validate({
        "ruleset": "d100", "map": {"width": 30, "height": 30},
        "tokens": [
            {"id": "a", "name": "Ana", "x": 1, "y": 1, "d100": {
                "skills": {"pistol": 60},
                "weapons": [{"name": "P", "kind": "pistol", "skill": "pistol", "damage": "d6"}],
                "weapon": "P"}},
            {"id": "b", "name": "Bo", "x": 8, "y": 1, "d100": {"cover": 0}},
        ],
        "d100": {"seed": 11},
    })


def test_seeded_source_finds_the_sequence_behind_entered_dice():
    s = SeededDice(11, 4)
    assert seeded_source(s) is s
    assert seeded_source(EnteredDice({"hit": 3}, fallback=s)) is s
    assert seeded_source(EnteredDice({"hit": 3})) is None


def test_entered_hit_and_location_leave_the_damage_to_the_sequence_which_advances_by_one():
    e = enc()
    dice = EnteredDice({"hit": 30, "location": 20}, fallback=RULESET.dice_for(e))
    ch = RULESET.apply(e, Fire("a", ("b",)), dice).detail
    # hit 30 vs 60%: hit, not placed (placed at <= 6); location 20 = chest; d6 damage from
    # the sequence (roll 0 of seed 11), light chest -> falls prone (no more dice)
    assert [(r.label, r.entered) for r in ch.rolls] == [("hit", True), ("location", True), ("damage", False)]
    assert ch.rolls[2].value == SeededDice(11, 0).roll(6, "damage")
    assert RULESET.settings(ch.encounter).rolls == 1
    # the next rolled die is the sequence's second, not its first again
    nxt = RULESET.apply(ch.encounter, Fire("a", ("b",))).detail
    assert nxt.rolls[0].value == SeededDice(11, 1).roll(100, "hit")


def test_status_says_stunned_for_this_round_and_for_the_next_turn():
    from engine.d100.actions import StartRound

    e = enc()
    assert not RULESET.status(e, "b").stunned
    # free play: a head hit (location 5) of 1 point is light: stunned for the next turn
    ch = RULESET.apply(e, Fire("a", ("b",)), EnteredDice({"hit": 30, "location": 5, "damage": 1})).detail
    b = ch.encounter.token("b").rules.get("d100")
    assert b.stunned == 1 and RULESET.status(ch.encounter, "b").stunned
    # the round starts: the stun is spent on this round's turn (no actions, not acted)
    r1 = RULESET.apply(ch.encounter, StartRound()).detail
    b = r1.encounter.token("b").rules.get("d100")
    assert (b.stunned, b.actions_left, b.acted) == (0, 0, False)
    assert RULESET.status(r1.encounter, "b").stunned
    # Ana spends both her actions (two misses, 99 always fails): none left, but not stunned
    e2 = r1.encounter
    assert not RULESET.status(e2, "a").stunned
    for _ in range(2):
        e2 = RULESET.apply(e2, Fire("a", ("b",)), EnteredDice({"hit": 99})).encounter
    a = e2.token("a").rules.get("d100")
    assert (a.actions_left, a.acted) == (0, True) and not RULESET.status(e2, "a").stunned
