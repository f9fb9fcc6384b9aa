"""Issue 30 item 6: ``RuleSystem.move_cost`` says what a move of so many metres costs in the
system's own movement (shown beside a dragged token), "" where the system counts nothing."""

from __future__ import annotations

from engine.d100.actions import StartRound
from engine.model import Encounter
from engine.rules import find_system
from engine.sr5.movement import MovementBudget, cost_words
from engine.static_veil.system import StartTurn

VEIL = find_system("static-veil")

D100 = find_system("d100")


def test_sr5_walking_running_and_past_the_running_rate():
    # Agility 6: Walking rate 12 m, Running rate 24 m; 3 m moved already this pass
    b = MovementBudget(walk=12.0, run=24.0, walk_now=12.0, run_now=24.0, moved=3.0, running=False, passes=1)
    assert cost_words(b, 9.0) == "walking: 12.0 of 12 m"
    assert cost_words(b, 9.5) == "running (Run, a Free Action): 12.5 of 24 m"
    assert cost_words(b, 21.0) == "running (Run, a Free Action): 24.0 of 24 m"
    assert cost_words(b, 22.0) == "past the Running rate: 25.0 of 24 m"


def test_sr5_through_the_interface_on_the_demo():
    from assets import demo_encounter_path
    from engine.files import load_encounter

    enc = load_encounter(demo_encounter_path())
    assert enc.system.move_cost(enc, "sam", 10.0) == "walking: 10.0 of 12 m"  # Sam: Agility 6


def _veil():
    return Encounter.model_validate({"ruleset": "static-veil", "map": {"width": 20, "height": 12}, "tokens": [
        {"id": "a", "name": "Ann", "x": 5, "y": 5, "static_veil": {}},
        {"id": "b", "name": "Bo", "x": 9, "y": 5}]})


def test_static_veil_spends_movement_only_in_the_movers_turn():
    sv = find_system("static-veil")
    enc = _veil()
    assert sv.move_cost(enc, "a", 4.0) == ""  # no turn running: a move spends nothing
    enc = VEIL.apply(enc, StartTurn("a")).encounter  # Movement 10 m (the default sheet)
    assert sv.move_cost(enc, "a", 4.0) == "4.0 m of Movement, 6.0 m left"
    assert sv.move_cost(enc, "a", 12.5) == "needs 12.5 m of Movement; 10.0 m left"
    assert sv.move_cost(enc, "b", 4.0) == ""  # not its turn


def test_d100_counts_only_a_crawl():
    d100 = find_system("d100")
    enc = Encounter.model_validate({"ruleset": "d100", "map": {"width": 30, "height": 30}, "tokens": [
        {"id": "a", "name": "Ana", "x": 1, "y": 1, "d100": {}},
        {"id": "b", "name": "Bo", "x": 8, "y": 1,
         "d100": {"max_injury": 100, "wounds": {"left_leg": {"damage": 16, "severity": "acute"}}}}]})
    assert d100.move_cost(enc, "b", 1.0) == ""  # outside a round a crawler moves freely
    enc = D100.apply(enc, StartRound()).encounter
    assert d100.move_cost(enc, "a", 5.0) == ""  # walks freely
    assert d100.move_cost(enc, "b", 1.5) == "crawling: 1.5 of 2.0 m left this round"
    assert d100.move_cost(enc, "b", 2.5) == "past the crawl: 2.5 m, 2.0 m left this round"
