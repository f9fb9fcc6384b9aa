"""The Static Veil rule system's API beyond the golden scenarios: registry, file round trip,
refusals for bad input, undo beside later edits, settings that change the numbers."""

from __future__ import annotations

import json

import pytest

from engine.errors import EncounterFileError, IllegalActionError, UnknownIdError
from engine.files import encounter_from_data
from engine.model import Encounter
from engine.rules import find_system
from engine.static_veil.dice import Attack, Opposed
from engine.static_veil.actions import CalledShot, Charge, Distraction, Grapple, Shove
from engine.static_veil.values import OutcomeNeededError
from engine.static_veil.sheet import Settings, Sheet
from engine.static_veil.system import Move, StartTurn

RULESET = find_system("static-veil")


def _enc(tokens, obstacles=(), settings=None, w=20.0, h=12.0):
    data = {"ruleset": "static-veil", "map": {"width": w, "height": h}, "tokens": list(tokens),
            "obstacles": list(obstacles)}
    if settings is not None:
        data["static_veil"] = settings
    return Encounter.model_validate(data)


def _pair(**settings):
    return _enc(
        [
            {"id": "a", "name": "Ann", "x": 5, "y": 5, "weapons": [{"name": "Club"}],
             "static_veil": {"skills": {"athletics": 50}}},
            {"id": "b", "name": "Bo", "x": 6.2, "y": 5, "weapons": [{"name": "Knife"}]},
        ],
        settings=settings or None,
    )


def test_the_registry_hands_out_this_ruleset():
    assert RULESET is find_system("static-veil") and not hasattr(RULESET, "native")  # the system is the rules
    assert RULESET.name == "static-veil"


def test_a_token_without_a_sheet_gets_the_documented_defaults():
    s = Sheet()
    assert (s.ap_per_turn, s.ap, s.movement, s.movement_left) == (3, 3, 10.0, 10.0)
    assert s.skill("athletics") == 30 and s.skill("ATHLETICS", default=7) == 7
    st = Settings()
    assert (st.dice, st.runup, st.reach, st.attack_ap, st.stand_ap) == ("gm", 4.0, 1.0, 2, 1)
    assert (st.charge_bonus, st.shove_runup_bonus, st.repeat_penalty, st.distracted_penalty) == (10, 10, -10, -10)


def test_skill_names_ignore_case_and_may_not_repeat():
    assert Sheet.model_validate({"skills": {" Athletics ": 44}}).skills == {"athletics": 44}
    with pytest.raises(ValueError, match="listed twice"):
        Sheet.model_validate({"skills": {"Grip": 1, "grip": 2}})


def test_bad_sheet_numbers_in_a_file_name_the_json_path():
    data = {"format": "coverfire.encounter", "version": 1, "ruleset": "static-veil",
            "map": {"width": 10, "height": 10},
            "tokens": [{"id": "a", "x": 1, "y": 1, "static_veil": {"ap_per_turn": -1}}]}
    with pytest.raises(EncounterFileError) as exc:
        encounter_from_data(data, file="x.json")
    assert "$.tokens[0].static_veil.ap_per_turn" in str(exc.value)


def test_state_log_and_dropped_items_survive_save_and_load():
    enc = _pair()
    enc = RULESET.apply(enc, Grapple("a", "b", outcome=Opposed(True, 2))).encounter
    enc = RULESET.apply(enc, StartTurn("a")).encounter
    enc = RULESET.apply(enc, CalledShot("a", "b", "hand", attack=Attack(True, 1), resist=_fail())).encounter
    enc = RULESET.apply(enc, StartTurn("a")).encounter
    enc = RULESET.apply(enc, Distraction("a", "b", approach="taunt", outcome=Opposed(True, 0))).encounter
    text = json.dumps(enc.model_dump(mode="json"))
    back = encounter_from_data(json.loads(text) | {"format": "coverfire.encounter", "version": 1})
    assert back == enc
    sb = RULESET.sheet(back.token("b"))
    assert sb.grapple is not None and sb.grapple.other == "a" and sb.distracted == 1
    assert RULESET.sheet(back.token("a")).tricks_used == {"b": ("taunt",)}
    assert [d.name for d in RULESET.settings(back).dropped] == ["Knife"]
    assert back.token("b").weapons == ()
    assert len(RULESET.settings(back).log) >= 5


def _fail():
    from engine.static_veil.dice import Check

    return Check(False)


def test_unknown_ids_and_foreign_actions_are_clear_errors():
    enc = _pair()
    with pytest.raises(UnknownIdError, match="no token with id 'zed'"):
        RULESET.preview(enc, Shove("a", "zed"))
    with pytest.raises(UnknownIdError):
        RULESET.available_maneuvers(enc, "zed")
    with pytest.raises(IllegalActionError, match="is not a Static Veil maneuver"):
        RULESET.check(enc, object.__new__(type("Fly", (), {"actor": "a"})))


def test_outcome_needed_is_an_illegal_action_that_lists_the_tests():
    enc = _pair()
    with pytest.raises(OutcomeNeededError) as exc:
        RULESET.apply(enc, Shove("a", "b"))
    assert isinstance(exc.value, IllegalActionError)
    (spec,) = exc.value.tests
    assert (spec.kind, spec.actor_target, spec.opponent_target) == ("opposed", 50, 30)
    # the legality check itself does not need the outcome
    assert RULESET.is_legal(enc, Shove("a", "b"))


def test_the_change_holds_only_what_the_maneuver_touched():
    enc = _pair()
    res = RULESET.apply(enc, Shove("a", "b", outcome=Opposed(True, 1)))
    assert res.detail.token_ids == ("a", "b")
    assert RULESET.sheet(res.encounter.token("a")).ap == 1
    # shoved 1 + 1 net hit = 2 m east; a later edit elsewhere (the encounter's name)
    # survives undoing the shove
    moved = res.encounter.token("b")
    assert moved.x == pytest.approx(6.2 + 2.0)
    before = {t.id: t for t in res.detail.before}
    assert before["b"].x == pytest.approx(6.2)
    assert before["a"].rules["static-veil"].ap == 3


def test_reach_and_runup_are_settings():
    # Ann and Bo are 1.2 - 0.8 = 0.4 m apart: in reach at 1 m, out of reach at 0.3 m
    assert RULESET.is_legal(_pair(), Grapple("a", "b"))
    why = RULESET.why_not(_pair(reach=0.3), Grapple("a", "b"))
    assert why == "Bo is 0.4 m from Ann edge to edge; to seize it must be within reach (0.3 m)"
    # open ground, 10 m apart: contact 1.8 m; run-up 4 -> straight 8.2 m; run-up 9 ->
    # the run-up start is 10.8 m out, 0.8 m behind Ann: 0.8 + 9 = 9.8 m
    far = _enc([{"id": "a", "x": 5, "y": 6}, {"id": "b", "x": 15, "y": 6}])
    assert RULESET.preview(far, Charge("a", "b")).movement_cost == pytest.approx(8.2)
    far9 = far.with_rules("static-veil", Settings(runup=9.0))
    assert RULESET.preview(far9, Charge("a", "b")).movement_cost == pytest.approx(9.8)


def test_attack_cost_is_a_setting():
    enc = _pair(attack_ap=3)
    opts = {o.key: o for o in RULESET.available_maneuvers(enc, "a")}
    assert opts["called_shot"].ap_cost == 3 and opts["charge"].ap_cost == 3
    assert opts["called_shot"].allowed
    enc = _pair(attack_ap=4)
    opts = {o.key: o for o in RULESET.available_maneuvers(enc, "a")}
    assert not opts["called_shot"].allowed
    assert opts["called_shot"].reason == "Ann has 3 AP left; Called shot costs 4 AP"


def test_picker_variants_say_which_approach_or_location_works():
    enc = _enc([{"id": "a", "name": "Ann", "x": 2, "y": 2}, {"id": "b", "name": "Bo", "x": 9, "y": 2}])
    opts = {o.key: o for o in RULESET.available_maneuvers(enc, "a", "b")}
    d = {v.key: v for v in opts["distraction"].variants}
    assert opts["distraction"].allowed
    assert not d["feint"].allowed and "within reach" in d["feint"].reason
    assert d["taunt"].allowed and d["debris"].allowed
    locs = {v.key: v.modifier for v in opts["called_shot"].variants}
    assert locs == {"head": -20, "vital": -20, "hand": -20, "arm": -10, "leg": -10, "item": -20}


def test_states_and_links_for_the_map():
    enc = RULESET.apply(_pair(), Grapple("a", "b", outcome=Opposed(True, 0))).encounter
    assert RULESET.grapple_links(enc) == (("a", "b"),)
    assert RULESET.states(enc, "a") == ("Grappling Bo",)
    assert RULESET.states(enc, "b") == ("Grappled by Ann",)


def test_the_picker_is_fast_on_the_demo_map(demo_path, monkeypatch):
    # counted, not timed (bench/bench_bounds.py times it): once the navigator is built, a
    # picker builds no navigator and no movement graph again and plans one charge (its only
    # map search); a miss of the navigator cache rebuilt both for every target
    import geometry.nav as nav
    import geometry.nav.navigator as navigator
    from engine.files import load_encounter

    enc = load_encounter(demo_path).model_copy(update={"ruleset": "static-veil"})
    ids = [t.id for t in enc.tokens]
    RULESET.available_maneuvers(enc, ids[0], ids[1])  # builds and caches the navigator
    work = {"navigators": 0, "graphs": 0, "charges": 0, "paths": 0}

    def counting(name, fn):
        def counted(*a, **k):
            work[name] += 1
            return fn(*a, **k)
        return counted

    graph, plan_charge = navigator.Graph, nav.plan_charge
    monkeypatch.setattr(nav.Navigator, "__init__", counting("navigators", nav.Navigator.__init__))
    monkeypatch.setattr(navigator, "Graph", counting("graphs", graph))
    monkeypatch.setattr(nav, "plan_charge", counting("charges", plan_charge))
    monkeypatch.setattr(nav.Navigator, "shortest_path", counting("paths", nav.Navigator.shortest_path))
    for tid in ids[1:]:
        RULESET.available_maneuvers(enc, ids[0], tid)
    assert work["navigators"] == work["graphs"] == 0, work
    assert work["charges"] + work["paths"] <= len(ids) - 1, work


def test_normal_movement_is_counted_and_one_undo_step():
    enc = _pair()
    # 3-4-5 triangle: (5,5) -> (8,9) is 5 m; 10 m Movement a turn
    res = RULESET.apply(enc, Move("a", (8, 9), ((8, 9),)))
    assert (res.encounter.token("a").x, res.encounter.token("a").y) == (8, 9)
    assert RULESET.sheet(res.encounter.token("a")).movement_used == pytest.approx(5.0)
    assert res.detail.log[0].text == "Ann moves 5.0 m (5.0 m of Movement left)."
    with pytest.raises(IllegalActionError, match="Ann has 5.0 m of Movement left; this move is 6.0 m"):
        RULESET.apply(res.encounter, Move("a", (8, 15), ((8, 15),)))
    assert res.detail.before[0].x == 5


def test_a_stale_grapple_link_can_be_let_go():
    enc = RULESET.apply(_pair(), Grapple("a", "b", outcome=Opposed(True, 0))).encounter
    gone = enc.model_copy(update={"tokens": tuple(t for t in enc.tokens if t.id != "a")})
    from engine.static_veil.actions import Release

    # Bo did not start the grapple, but its partner is gone: letting go just clears the link
    res = RULESET.apply(gone, Release("b"))
    assert RULESET.sheet(res.encounter.token("b")).grapple is None
    assert "no longer grappling" in res.detail.summary


@pytest.mark.parametrize(
    "seed, dropped",
    [
        # seed 3 rolls 6, 66, 65: attack 6 vs 55 - 20 = 35 -> 1 + 29//10 = 3 hits; defence 66 vs 30
        # fails: hit with 3 net hits; Grip 45 - 15 = 30, roll 65 fails -> the Knife drops
        (3, True),
        # seed 20 rolls 1, 84, 19: 1 + 34//10 = 4 hits vs 0: Grip 45 - 20 = 25, roll 19 passes
        (20, False),
    ],
)
def test_d100_rolls_an_attack_and_the_disarm_check(seed, dropped):
    enc = _enc(
        [
            {"id": "a", "name": "Ann", "x": 5, "y": 5, "static_veil": {"skills": {"melee": 55}}},
            {"id": "b", "name": "Bo", "x": 6.2, "y": 5, "weapons": [{"name": "Knife"}],
             "static_veil": {"skills": {"grip": 45}}},
        ],
        settings={"dice": "d100", "seed": seed},
    )
    res = RULESET.apply(enc, CalledShot("a", "b", "hand"))
    assert [r.target for r in res.detail.rolls] == [35, 30, 45 - 5 * res.detail.rolls[0].hits]
    assert RULESET.settings(res.encounter).rolls == 3
    assert (res.encounter.token("b").weapons == ()) is dropped
    assert res.detail.log[0].text.startswith("Dice: Ann melee: rolled")
