"""Dice the GM types in, with the encounter's seeded sequence rolling the rest: the sequence
advances by the dice it rolled only (engine.d100.rules.seeded_source)."""

from __future__ import annotations

from engine.d100 import RULESET, EnteredDice, Fire, SeededDice
from engine.d100.rules import seeded_source
from engine.model import Encounter


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
    ch = RULESET.apply(e, Fire("a", ("b",)), dice)
    # hit 30 vs 60%: hit, not placed (placed at <= 6); location 20 = chest; d6 damage from
    # the sequence (roll 0 of seed 11), light chest -> falls prone (no more dice)
    assert [(r.label, r.entered) for r in ch.rolls] == [("hit", True), ("location", True), ("damage", False)]
    assert ch.rolls[2].value == SeededDice(11, 0).roll(6, "damage")
    assert RULESET.settings(ch.encounter).rolls == 1
    # the next rolled die is the sequence's second, not its first again
    nxt = RULESET.apply(ch.encounter, Fire("a", ("b",)))
    assert nxt.rolls[0].value == SeededDice(11, 1).roll(100, "hit")
