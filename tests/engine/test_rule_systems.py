"""The one RuleSystem interface: each built-in system answers through it exactly as its own
modules do (same encounter, same numbers), and the change record says what changed."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.files import load_encounter
from engine.model import Encounter
from engine.rules import Changes, MoveTo, Outcome, find_system, systems
from tests.engine.sr5.helpers import AK, encounter as sr5_encounter, token as sr5_token


# -- sr5 ---------------------------------------------------------------------------------------
def _sr5_fight():
    from engine.sr5.initiative import start_turn

    e = sr5_encounter(sr5_token("sam", 0, 0, side="runner", weapons=(AK,), agility=4, skills={"automatics": 6}),
                      sr5_token("razor", 10, 0))
    e, _ = start_turn(e, entered={"sam": 25, "razor": 5})
    return e


def test_sr5_attack_through_the_interface_is_the_modules_attack():
    from engine.sr5.attack import AttackDeclaration, AttackResolution, apply_attack, plan_attack
    from engine.sr5.facts import facts_from_map

    e = _sr5_fight()
    sr5 = find_system("sr5")
    d = AttackDeclaration("sam", ("razor",), mode="SA")
    faces = [[5, 5, 6, 1, 1, 2, 2, 3, 3, 4], [1, 1, 1, 1, 1, 1], [1] * 4]
    assert sr5.why_not(e, d) is None
    plan = sr5.preview(e, d)
    assert plan.legal and plan.targets[0].target == "razor"
    out = sr5.apply(e, d, faces)
    rolled = AttackResolution(plan_attack(e, d, facts_from_map(e, "sam", ["razor"], None)))
    for f in faces:  # the module's own rolls, one test at a time
        rolled = rolled.roll(f)
    native, change = apply_attack(e, rolled)
    assert out.encounter == native and out.detail == change
    assert out.changes.tokens == {"sam", "razor"} and out.changes.settings and not out.changes.zones
    assert out.changes.log == tuple(x.text for x in change.log) and out.changes.log
    assert native.token("razor").rules["sr5"].physical_damage > 0  # 3 hits against none: a wound


def test_sr5_refusals_carry_the_reason_and_change_nothing():
    from engine.sr5.actions import Action
    from engine.sr5.attack import AttackDeclaration

    e = _sr5_fight()
    sr5 = find_system("sr5")
    twice = AttackDeclaration("sam", ("razor", "razor"), mode="BF")
    assert sr5.why_not(e, twice) == "a target is listed twice"
    with pytest.raises(IllegalActionError, match="a target is listed twice"):
        sr5.apply(e, twice)
    opts = {o.key: o for o in sr5.actions(e, "razor")}
    assert opts["attack"].reason == "Razor can take a simple action only in its own Action Phase (now it is Sam's)"
    ok = {o.key: o for o in sr5.actions(e, "sam")}
    assert ok["stand_up"].reason == "Sam is already standing" and not ok["stand_up"].allowed
    assert ok["take_aim"].allowed and ok["take_aim"].action == Action("sam", "take_aim", weapon="AK-97")


def test_sr5_on_moves_counts_the_metres_in_the_one_commit():
    e = _sr5_fight()
    sr5 = find_system("sr5")
    # Agility 4: walk 8 m, run 16 m a turn; Initiative 25 acts in 3 passes, so pass 1 opens a
    # third of each: walk 2.67 m, run 5.33 m
    m = sr5.movement(e, "sam")
    assert (m.walk, m.run) == (8.0, 16.0) and m.left == pytest.approx(16 / 3)
    out = sr5.on_moves(e, [MoveTo("sam", (3.0, 4.0))])  # 5 m: past the walk, so Sam runs
    sam = out.encounter.token("sam")
    assert (sam.x, sam.y) == (3.0, 4.0) and sam.rules["sr5"].moved == pytest.approx(5.0)
    assert sam.rules["sr5"].running and out.encounter.rules["sr5"].phase.free == 1  # Run is a Free Action
    assert out.changes.tokens == {"sam"} and out.changes.settings and out.label == "Move Sam"
    assert out.notes == ("Sam moves 5.0 m (5.0 m this turn, running)",)
    far = sr5.on_moves(out.encounter, [MoveTo("sam", (3.0, 14.0))])  # 10 m more: past 5.33 m
    assert far.encounter.token("sam").rules["sr5"].moved == pytest.approx(15.0)  # the GM's word
    assert far.notes == ("Sam moves 10.0 m (15.0 m this turn, running) \u2014 counted anyway: Sam may run 5.3 m "
                         "by this pass and has moved 5.0 m: 10.0 m more is too far (Sprint for more)",)
    # outside a Combat Turn a move is only a move
    calm = sr5_encounter(sr5_token("sam", 0, 0))
    moved = sr5.on_moves(calm, [MoveTo("sam", (3.0, 4.0))]).encounter
    assert moved.token("sam").rules["sr5"].moved == 0 and moved.token("sam").x == 3.0


def test_sr5_round_and_token_status_lines():
    e = _sr5_fight()
    sr5 = find_system("sr5")
    assert sr5.round_status(e) == "Combat Turn 1, pass 1"
    assert sr5.token_status(e, "razor") == ("Physical 0/10", "Stun 0/10", "Initiative 5")
    assert sr5.round_status(sr5_encounter(sr5_token("a", 0, 0))) == ""


# -- d100 --------------------------------------------------------------------------------------
def _d100():
    return Encounter.model_validate({
        "ruleset": "d100", "map": {"width": 30, "height": 30},
        "tokens": [
            {"id": "a", "name": "Ana", "x": 1, "y": 1, "rules": {"d100": {
                "skills": {"pistol": 60},
                "weapons": [{"name": "P", "kind": "pistol", "skill": "pistol", "damage": "2d6+1"}],
                "weapon": "P"}}},
            {"id": "b", "name": "Bo", "x": 8, "y": 1},
        ],
        "rules": {"d100": {"seed": 11}},  # dice not typed in come from the seed
    })


def test_d100_fire_through_the_interface_is_the_rules_fire():
    from engine.d100.dice import EnteredDice
    from engine.d100.actions import Fire, StartRound

    d100 = find_system("d100")
    e = d100.apply(_d100(), StartRound()).encounter
    assert d100.round_status(e) == "Round 1"
    dice = {"hit": 12, "location": 95, "damage": 5}
    out = d100.apply(e, Fire("a", ("b",)), EnteredDice(dict(dice), fallback=d100.dice_for(e)))
    change = out.detail  # the d100 record: every die, every shot
    assert out.encounter == change.encounter and out.label == "Fire weapon"
    assert out.changes.tokens == {"a", "b"} and out.changes.log == tuple(x.text for x in change.log)
    assert [(r.label, r.value) for r in change.rolls][:3] == [("hit", 12), ("location", 95), ("damage", 5)]
    injury = out.encounter.token("b").rules["d100"].injury
    assert injury > 0 and d100.token_status(out.encounter, "b")[0] == f"Injury {injury}"
    opts = {o.key: o for o in d100.actions(e, "b", "a")}
    assert opts["fire"].reason == d100.why_not(e, Fire("b", ("a",))) is not None  # Bo has no weapon
    assert d100.movement(e, "a") is None  # d100 sets no limit of its own


# -- Static Veil -------------------------------------------------------------------------------
def _sv():
    return Encounter.model_validate({
        "ruleset": "static-veil", "map": {"width": 30, "height": 20},
        "tokens": [
            {"id": "a", "name": "Ann", "x": 5, "y": 5, "rules": {"static-veil": {"skills": {"athletics": 50}}}},
            {"id": "b", "name": "Bo", "x": 6.2, "y": 5, "rules": {"static-veil": {"movement": 6}}},
        ],
    })


def test_static_veil_shove_through_the_interface_is_the_rules_shove():
    from engine.static_veil.dice import Opposed
    from engine.static_veil.actions import Shove

    sv = find_system("static-veil")
    e = _sv()
    out = sv.apply(e, Shove("a", "b"), {"outcome": Opposed(True, 2)})
    inside = sv.apply(e, Shove("a", "b", outcome=Opposed(True, 2)))  # the outcome in the maneuver: the same
    assert out.encounter == inside.encounter and out.detail == inside.detail and out.detail.success
    assert out.changes.tokens == {"a", "b"}
    moved = out.encounter.token("b")
    assert moved.x > 6.2 and moved.y == pytest.approx(5.0)  # pushed straight away from Ann
    opts = {o.key: o for o in sv.actions(e, "a", "b")}
    assert opts["shove"].allowed and opts["release"].reason == "Ann is not in a grapple"


def test_static_veil_on_moves_spends_movement_during_a_turn_and_refuses_too_far():
    from engine.static_veil.system import StartTurn

    sv = find_system("static-veil")
    e = sv.apply(_sv(), StartTurn("b", new_round=True)).encounter
    out = sv.on_moves(e, [MoveTo("b", (6.2, 9.2))])  # 4.2 m straight down: open floor
    s = out.encounter.token("b").rules["static-veil"]
    assert s.movement_used == pytest.approx(4.2) and out.encounter.token("b").y == 9.2
    assert sv.movement(out.encounter, "b").left == pytest.approx(1.8)
    far = sv.on_moves(out.encounter, [MoveTo("b", (20.0, 9.2))])  # 13.8 m with 1.8 m left
    assert far.encounter.token("b").x == 20.0  # lands where the GM put it ...
    assert far.encounter.token("b").rules["static-veil"].movement_used == pytest.approx(4.2)  # ... free
    assert len(far.notes) == 1 and "no Movement spent" in far.notes[0] and "1.8 m of Movement left" in far.notes[0]


# -- the shared parts --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["demo.json", "demo-d100.json", "demo-static-veil.json"])
def test_every_system_answers_the_whole_interface_on_its_demo(name, demo_path):
    e = load_encounter(demo_path.parent / name)
    s = e.system
    assert s in systems() and s.Sheet is type(e.tokens[0].rules[s.name])
    a, b = e.tokens[0].id, e.tokens[1].id
    opts = s.actions(e, a, b)
    assert opts and all(o.reason is None or o.reason.strip() for o in opts)
    assert all(o.action is None or s.why_not(e, o.action) is None for o in opts if o.allowed)
    t = e.token(a)
    out = s.on_moves(e, [MoveTo(a, (t.x + 1.0, t.y))])
    assert isinstance(out, Outcome) and out.encounter.token(a).x == t.x + 1.0
    assert out.changes.tokens == {a} and out.changes.obstacles == frozenset()
    assert isinstance(s.token_status(e, a), tuple) and isinstance(s.round_status(e), str)


def test_changes_between_two_encounters_names_every_changed_id(demo_path):
    e = load_encounter(demo_path)
    z = e.zones[0]
    e2 = e.model_copy(update={"zones": (z.model_copy(update={"direction": 45.0}),) + e.zones[1:],
                              "obstacles": e.obstacles[1:]})
    ch = Changes.between(e, e2)
    assert ch.zones == {z.id} and ch.obstacles == {e.obstacles[0].id} and ch.tokens == frozenset()
    assert not ch.settings and not ch.map and not ch.empty
    assert Changes.between(e, e).empty


def test_condition_tracks_for_the_bars(demo_path):
    from engine.rules import Track

    sr5 = find_system("sr5")
    e = _sr5_fight()  # Body 4, Willpower 3: 8 + 4/2 = 10 Physical boxes, 8 + 3/2 = 10 Stun (rounded up)
    hurt = e.model_copy(update={"tokens": tuple(
        t.with_rules("sr5", t.rules["sr5"].model_copy(update={"physical_damage": 4, "stun_damage": 12})) if t.id == "razor"
        else t for t in e.tokens)})
    assert sr5.condition_tracks(hurt, "razor") == (Track("Physical", 4, 10), Track("Stun", 10, 10))
    assert sr5.condition_tracks(hurt, "razor")[0].left == pytest.approx(0.6)
    d100 = find_system("d100")
    assert d100.condition_tracks(_d100(), "a") == (Track("Injury", 0, 50),)
    assert d100.condition_tracks(_d100(), "b") == ()  # no sheet, no bar
    sv = find_system("static-veil")
    assert sv.condition_tracks(_sv(), "a") == ()  # Static Veil sheets have no maximum


def test_changes_say_which_tokens_changed_on_the_map_and_which_only_their_sheets(demo_path):
    e = load_encounter(demo_path)
    a, b, c = e.tokens[0], e.tokens[1], e.tokens[2]
    sheet = b.rules["sr5"].model_copy(update={"physical_damage": 3})
    e2 = e.model_copy(update={"tokens": (a.model_copy(update={"x": a.x + 2.0}), b.with_rules("sr5", sheet))
                              + e.tokens[3:]})
    ch = Changes.between(e, e2)
    assert ch.tokens == {a.id, b.id, c.id} and ch.bodies == {a.id, c.id}  # c went; b only its sheet
    both = ch | Changes(zones=frozenset({"z"}), settings=True, log=("one line",))
    assert both.tokens == ch.tokens and both.bodies == ch.bodies and both.zones == {"z"}
    assert both.settings and both.log == ("one line",) and not ch.settings
