"""The turn banner players read (engine.turn_banner) from each rule system's
``current_turn``: names, never ids; an actor the players do not know of is not named."""

from __future__ import annotations

from assets import ENCOUNTERS, demo_encounter_path
from engine.files import load_encounter
from engine.rules import Turn
from engine.turn_banner import turn_banner

#: every token's initiative dice all 1s: Sam 6+4+2 = 12, Nyx 4+5+1 = 10, Brick, Tusk,
#: Mouse, Vex 8 (Brick and Tusk Edge 2, Reaction 4, Intuition 3: Brick first in the file),
#: Razor, Spike, Lupe 7
ONES = {"sam": [1, 1], "nyx": [1], "brick": [1], "ganger-1": [1], "ganger-2": [1], "ganger-3": [1],
        "ganger-4": [1], "ganger-5": [1], "ganger-6": [1]}


def _sr5_first_turn():
    from engine.sr5.system import StartTurn

    enc = load_encounter(demo_encounter_path())
    return enc.system.apply(enc, StartTurn(entered=ONES)).encounter


def test_no_banner_before_the_fight():
    enc = load_encounter(demo_encounter_path())
    assert enc.system.current_turn(enc) is None
    assert turn_banner(enc) == ""


def test_the_demos_first_turn_names_the_actor_pass_and_phase():
    from engine.sr5.system import EndPhase

    enc = _sr5_first_turn()
    assert enc.system.current_turn(enc) == Turn("sam", "pass 1, phase 1")
    assert turn_banner(enc) == "Sam: pass 1, phase 1"
    enc = enc.system.apply(enc, EndPhase()).encounter
    assert turn_banner(enc) == "Nyx: pass 1, phase 2"
    enc = enc.system.apply(enc, EndPhase()).encounter
    assert turn_banner(enc) == "Brick: pass 1, phase 3"


def test_an_actor_the_players_do_not_know_of_is_not_named():
    enc = _sr5_first_turn()
    players = enc.model_copy(update={"tokens": tuple(t for t in enc.tokens if t.id != "sam")})
    assert turn_banner(players) == "Pass 1, phase 1"


def test_an_unnamed_actor_by_the_callers_name():
    enc = _sr5_first_turn()
    tokens = tuple(t.model_copy(update={"name": ""}) if t.id == "sam" else t for t in enc.tokens)
    enc = enc.model_copy(update={"tokens": tokens})
    assert turn_banner(enc) == "sam: pass 1, phase 1"  # the GM's id
    assert turn_banner(enc, lambda t: t.name or t.side) == "runner: pass 1, phase 1"


def test_static_veil_round_and_actor():
    from engine.static_veil.system import StartTurn

    enc = load_encounter(ENCOUNTERS / "demo-static-veil.json")
    assert turn_banner(enc) == ""
    enc = enc.system.apply(enc, StartTurn("kit", new_round=True)).encounter
    assert turn_banner(enc) == "Kit: round 2"


def test_d100_rounds_without_an_actor():
    enc = load_encounter(ENCOUNTERS / "demo-d100.json")
    assert turn_banner(enc) == ""
    st = enc.system.settings(enc).model_copy(update={"round": 2})
    enc = enc.with_rules("d100", st)
    assert turn_banner(enc) == "Round 2"
