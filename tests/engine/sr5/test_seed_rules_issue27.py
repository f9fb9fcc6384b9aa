"""Issue 27 item 7, sr5: rules the seeds state, each checked against the seed's words with a
hand-derived answer (suppressive fire and movement; Ready Weapon; Quick Draw)."""

from __future__ import annotations

from engine.rules import MoveTo, find_system
from engine.sr5.initiative import end_phase, start_turn
from engine.sr5.suppressive import SuppressiveDeclaration, apply_suppressive, plan_suppressive
from tests.engine.sr5.test_suppressive_facts import _field

SR5 = find_system("sr5")
DUE = "Reaction + Edge test due"


# -- seed 001: "Characters who stand up or try to move before the suppressive fire action is
#    over must make the test to see if they are hit." ------------------------------------------
def _suppressed():
    """Sam's zone (30 m east from (0, 50), 10 m wide at its end: 3.33 m either side of the
    axis at x = 20, 3.67 m at x = 22) is up; B (prone inside at (20, 52)) acts next, then C
    (outside at (20, 54.5), made prone here), then A (standing inside at (20, 50))."""
    f = _field()
    e = f.model_copy(update={"tokens": tuple(t.model_copy(update={"stance": "prone"}) if t.id == "c" else t
                                             for t in f.tokens)})
    e, _ = start_turn(e, entered={"sam": 20, "b": 12, "c": 11, "a": 10, "d": 7})
    e, _ = apply_suppressive(e, plan_suppressive(e, SuppressiveDeclaration("sam", "sup")), [5] * 10)
    assert [s.zone for s in e.rules["sr5"].suppressions] == ["sup"]
    e, _ = end_phase(e)
    assert e.rules["sr5"].acting == "b"
    return e


def _prompts(outcome):
    return [n for n in outcome.notes if DUE in n]


def test_a_prone_character_crawling_inside_the_zone_must_test():
    e = _suppressed()
    # B crawls 2 m east, (20, 52) -> (22, 52): inside before (3.33 m wide there) and after (3.67 m)
    out = SR5.on_moves(e, [MoveTo("b", (22.0, 52.0))])
    assert out.encounter.token("b").stance == "prone"
    assert _prompts(out) == [f"\u2192 B moved in suppressive fire of Sam: {DUE}"]
    assert out.detail[0].prompts == (f"B moved in suppressive fire of Sam: {DUE}",)


def test_a_prone_character_keeping_still_is_spared_and_not_prompted():
    e = _suppressed()
    status = SR5.suppression(e, "sam", "b")
    assert status["must_test"] == [] and status["spared"] == [["sup", "prone"]]
    out = SR5.on_moves(e, [MoveTo("b", (20.0, 52.0))])  # a zero-metre drag: no move
    assert _prompts(out) == []


def test_a_crawl_outside_the_zone_is_not_tested():
    e, _ = end_phase(_suppressed())
    assert e.rules["sr5"].acting == "c"
    # C crawls 1.5 m south, (20, 54.5) -> (20, 56): outside the zone both before and after
    out = SR5.on_moves(e, [MoveTo("c", (20.0, 56.0))])
    assert out.encounter.token("c").y == 56.0 and _prompts(out) == []


def test_crawling_out_of_the_zone_is_still_tested():
    e = _suppressed()
    # B crawls 3 m south, (20, 52) -> (20, 55): the zone's edge is 3.33 m off the axis, B's disc
    # (0.4 m) is then wholly outside (55 - 0.4 = 54.6 > 53.33)
    out = SR5.on_moves(e, [MoveTo("b", (20.0, 55.0))])
    assert _prompts(out) == [f"\u2192 B moved out of suppressive fire of Sam: {DUE}"]


def test_a_standing_character_walking_inside_the_zone_must_test_too():
    e, _ = end_phase(end_phase(_suppressed())[0])
    assert e.rules["sr5"].acting == "a"
    # A walks 2 m east along the axis, (20, 50) -> (22, 50): "try to move" is anyone's move
    out = SR5.on_moves(e, [MoveTo("a", (22.0, 50.0))])
    assert _prompts(out) == [f"\u2192 A moved in suppressive fire of Sam: {DUE}"]


def test_a_drag_through_the_zone_enters_and_leaves_it():
    e, _ = end_phase(_suppressed())
    # C crawls from (20, 54.5) (outside, south) via (20, 50) (the axis) to (20, 44) (outside,
    # north: 50 - 3.33 = 46.67 > 44 + 0.4): both ends outside, the path crosses the zone
    out = SR5.on_moves(e, [MoveTo("c", (20.0, 44.0), path=((20.0, 50.0),))])
    assert _prompts(out) == [f"\u2192 C moved through suppressive fire of Sam: {DUE}"]
    # the same drag by the straight line crosses it too; a drag wholly south of it does not
    assert _prompts(SR5.on_moves(e, [MoveTo("c", (20.0, 44.0))])) == [f"\u2192 C moved through suppressive fire of Sam: {DUE}"]
    assert _prompts(SR5.on_moves(e, [MoveTo("c", (24.0, 56.0), path=((20.0, 56.0),))])) == []


# -- seed 000, Ready Weapon: "A character may ready a weapon by spending a Simple Action. ...
#    Readying entails drawing a firearm from a holster, drawing a throwing or melee weapon from
#    a sheath, picking up any kind of weapon, ..." -----------------------------------------------
def _armed(**kw):
    from engine.model import Weapon
    from tests.engine.sr5.helpers import AK, PREDATOR, encounter, token

    knives = Weapon(name="Throwing knife", category="thrown_knife", damage="(STR+1)P", ap=-1, accuracy=5,
                    skill="throwing_weapons", ammo=6, loaded=6)
    sam = token("sam", 0, 0, weapons=(AK, PREDATOR, knives), side="runner", skills={"automatics": 5}, **kw)
    return encounter(sam, token("razor", 5, 0))


def _sam(e):
    return e.token("sam").rules["sr5"]


def _in_combat_with_the_ak_dropped():
    from engine.sr5.actions import Action, apply_action

    e, _ = start_turn(_armed(), entered={"sam": 20, "razor": 5})
    e, _ = apply_action(e, Action("sam", "drop_object", weapon="AK-97"))  # Free Action
    assert (_sam(e).dropped, _sam(e).in_hand) == (("AK-97",), ())
    return e


def test_ready_weapon_picks_up_a_weapon_on_the_ground_with_one_simple_action():
    from engine.sr5.attack import AttackDeclaration, plan_attack
    from engine.sr5.actions import Action, apply_action, check_action
    from engine.sr5.facts import TargetFacts, facts

    e = _in_combat_with_the_ak_dropped()
    ready = Action("sam", "ready_weapon", weapon="AK-97")
    assert check_action(e, ready) is None  # was: "Pick Up Object first (Simple Action), then Ready Weapon"
    e, ch = apply_action(e, ready)
    sh, phase = _sam(e), e.rules["sr5"].phase
    # one Simple Action (of two), the Free one of the drop: picked up and ready in the main hand
    assert (sh.dropped, sh.in_hand) == ((), ("AK-97",))
    assert (phase.simple, phase.free) == (1, 1)
    assert ch.label == "Sam: Ready Weapon: picks up AK-97 from the ground and readies it, AK-97 in the main hand"
    # the second Simple Action fires it
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), weapon="AK-97", mode="SA"), facts([TargetFacts("razor", 5)]))
    assert p.legal, p.problems


def test_picking_up_a_weapon_is_readying_it():
    from engine.sr5.actions import Action, apply_action

    e = _in_combat_with_the_ak_dropped()
    e, _ = apply_action(e, Action("sam", "pick_up", weapon="AK-97"))
    assert (_sam(e).dropped, _sam(e).in_hand, e.rules["sr5"].phase.simple) == ((), ("AK-97",), 1)


def test_ready_weapon_from_the_ground_into_the_off_hand_and_knives_from_the_ground():
    from engine.sr5.actions import Action, apply_action

    e = _armed(agility=5, in_hand=("Ares Predator V",), dropped=("AK-97", "Throwing knife"))
    e, _ = apply_action(e, Action("sam", "ready_weapon", weapon="AK-97", hand="off"))
    assert (_sam(e).in_hand, _sam(e).dropped) == (("Ares Predator V", "AK-97"), ("Throwing knife",))
    # knives on the ground: picked up, and Agility 5 // 2 = 2 of them readied, in the main hand
    e, _ = apply_action(e, Action("sam", "ready_weapon", weapon="Throwing knife"))
    assert (_sam(e).in_hand, _sam(e).dropped, _sam(e).readied) == \
        (("Throwing knife", "AK-97"), (), {"Throwing knife": 2})


def test_other_weapon_actions_still_refuse_a_weapon_on_the_ground():
    from engine.sr5.actions import Action, check_action

    e = _armed(in_hand=(), dropped=("AK-97", "Ares Predator V"))
    why = "is on the ground: Ready Weapon picks it up (Simple Action)"
    assert check_action(e, Action("sam", "quick_draw", weapon="Ares Predator V")) == f"Ares Predator V {why}"
    assert check_action(e, Action("sam", "take_aim", weapon="AK-97")) == f"AK-97 {why}"
    assert check_action(e, Action("sam", "ready_weapon", weapon="AK-97")) is None


# -- seed 000, Quick Draw: "Two weapons may be quick-drawn and fired simultaneously, but this
#    raises the threshold on the Pistols + Reaction Test to 4 ... A separate Pistols + Reaction
#    (4) Test is required for each pistol (threshold 3 if they are held in quick-draw
#    holsters)." -------------------------------------------------------------------------------
def _gunslinger(**kw):
    from engine.model import Weapon
    from tests.engine.sr5.helpers import AK, PREDATOR, encounter, token

    browning = Weapon(name="Browning Ultra-Power", category="heavy_pistol", damage="8P", ap=-1, accuracy=5,
                      modes=("SA",), ammo=10, loaded=10)
    # Pistols 4 + Reaction 4 = 8 dice a test; in_hand () : both pistols holstered
    a = token("a", 0, 0, weapons=(AK, PREDATOR, browning), skills={"pistols": 4}, reaction=4, in_hand=(), **kw)
    e = encounter(a, token("b", 5, 0))
    e, _ = start_turn(e, entered={"a": 20, "b": 10})
    return e


PASS4 = [5, 5, 6, 6, 1, 2, 3, 4]  # 4 hits: meets threshold 4
MISS4 = [5, 5, 6, 1, 2, 2, 3, 4]  # 3 hits: short of 4, meets 3


def _two(**kw):
    from engine.sr5.actions import Action
    return Action("a", "quick_draw", weapon="Ares Predator V", second_weapon="Browning Ultra-Power", **kw)


def test_two_pistols_quick_drawn_roll_a_test_each_at_threshold_4():
    from engine.sr5.actions import apply_action

    e, ch = apply_action(_gunslinger(), _two(), PASS4 + MISS4)
    rolls = e.rules["sr5"].log[-1].rolls
    # two tests, not one: 8 dice each, threshold 4 each; the first meets it, the second does not
    assert [(r.pool, r.threshold, r.hits) for r in rolls] == [(8, 4, 4), (8, 4, 3)]
    assert [t.success for t in ch.details["tests"]] == [True, False]
    # both cleared the holster; only the Predator fires with the Quick Draw action
    assert e.token("a").rules["sr5"].in_hand == ("Ares Predator V", "Browning Ultra-Power")
    ph = e.rules["sr5"].phase
    assert (ph.simple, ph.quick_draw_fire, ph.quick_draw_guns) == (1, True, ("Ares Predator V",))
    assert ch.label == ("A: Quick Draw: 8 dice [5 5 6 6 1 2 3 4] -> 4 hits vs threshold 4: success: Ares Predator V "
                        "drawn, and fires with the same action; 8 dice [5 5 6 1 2 2 3 4] -> 3 hits vs threshold 4: "
                        "failure: Browning Ultra-Power drawn, but cannot fire with this action")


def test_only_the_pistol_that_passed_fires_with_the_quick_draw_action():
    from engine.sr5.attack import AttackDeclaration, plan_attack
    from engine.sr5.actions import apply_action
    from engine.sr5.facts import TargetFacts, facts

    e, _ = apply_action(_gunslinger(), _two(), PASS4 + MISS4)
    at = facts([TargetFacts("b", 5)])
    alone = plan_attack(e, AttackDeclaration("a", ("b",), weapon="Ares Predator V"), at)
    assert alone.legal and alone.cost == "none" and "fires with the Quick Draw action" in alone.notes
    both = plan_attack(e, AttackDeclaration("a", ("b",), weapon="Ares Predator V", second_weapon="Browning Ultra-Power"), at)
    assert both.legal and both.cost == "simple"  # the second Simple Action of the phase
    assert any("Browning Ultra-Power failed its Quick Draw test" in n for n in both.notes)
    # both pass: both fire with the one Quick Draw action
    e2, _ = apply_action(_gunslinger(), _two(), PASS4 + PASS4)
    assert e2.rules["sr5"].phase.quick_draw_guns == ("Ares Predator V", "Browning Ultra-Power")
    assert plan_attack(e2, AttackDeclaration("a", ("b",), weapon="Ares Predator V",
                                             second_weapon="Browning Ultra-Power"), at).cost == "none"


def test_quick_draw_holsters_make_each_test_threshold_3():
    from engine.sr5.actions import apply_action

    e, ch = apply_action(_gunslinger(qualities=("quick_draw_holster",)), _two(), PASS4 + MISS4)
    assert [(r.threshold, r.hits) for r in e.rules["sr5"].log[-1].rolls] == [(3, 4), (3, 3)]
    assert e.rules["sr5"].phase.quick_draw_guns == ("Ares Predator V", "Browning Ultra-Power")


def test_one_pistol_quick_drawn_is_one_test_at_threshold_3():
    from engine.sr5.actions import Action, apply_action

    e, ch = apply_action(_gunslinger(), Action("a", "quick_draw", weapon="Ares Predator V"), MISS4)
    assert [(r.pool, r.threshold, r.hits) for r in e.rules["sr5"].log[-1].rolls] == [(8, 3, 3)]
    assert ch.label == "A: Quick Draw: " + ch.details["test"].describe() + ": drawn, and fires with the same action"
    assert e.token("a").rules["sr5"].in_hand == ("Ares Predator V",)


def test_a_glitch_on_one_pistol_leaves_only_the_other_drawn():
    from engine.sr5.actions import apply_action

    glitch = [1, 1, 1, 1, 1, 5, 5, 6]  # five 1s of 8: a glitch (3 hits, not critical)
    e, ch = apply_action(_gunslinger(), _two(), glitch + PASS4)
    assert e.token("a").rules["sr5"].in_hand == ("Browning Ultra-Power",)
    assert "Ares Predator V sticks in the holster or is dropped" in ch.label
    assert e.rules["sr5"].phase.quick_draw_guns == ("Browning Ultra-Power",)


def test_the_second_pistol_is_checked_and_the_dice_must_fit_both_tests():
    import pytest

    from engine.errors import IllegalActionError
    from engine.sr5.actions import Action, apply_action, check_action

    e = _gunslinger()
    assert check_action(e, Action("a", "quick_draw", weapon="Ares Predator V", second_weapon="AK-97")) == \
        "only pistols can be quick-drawn; AK-97 is not one"
    assert check_action(e, Action("a", "quick_draw", weapon="Ares Predator V", second_weapon="Ares Predator V")) == \
        "Ares Predator V is one pistol: the second must be another"
    with pytest.raises(IllegalActionError, match="8 dice needed but only 0 left"):
        apply_action(e, _two(), PASS4)
    with pytest.raises(IllegalActionError, match="2 of the 18 entered dice are left over"):
        apply_action(e, _two(), PASS4 + PASS4 + [1, 2])
