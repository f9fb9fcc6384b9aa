"""Issue 16 item 7: Intercept - an enemy with a Free Action (or the Initiative for the
interrupt) may intercept a token whose move passes within reach or breaks out of melee
(seed 000; sr5-facts.md: "within 1 + reach metres"); the drag's path counts."""

from __future__ import annotations

import pytest

from engine.rules import MoveTo, find_system
from engine.sr5.initiative import end_phase, start_turn
from engine.sr5.intercept import intercept_chances
from tests.engine.sr5.helpers import KNIFE, encounter, token

# Reach 0 knife: a gap of 1 m between the discs (radius 0.4 each): centres 1.8 m apart.


def _fight(rx=10.0, ry=5.0, razor_ini=10, **razor):
    sam = token("sam", 0, 0, side="runner")
    rz = token("razor", rx, ry, weapons=(KNIFE,), in_hand=("Combat knife",), **razor)
    enc, _ = start_turn(encounter(sam, rz), entered={"sam": 20, "razor": razor_ini})
    return enc


def test_the_path_counts_not_only_where_it_ends():
    enc = _fight()
    assert intercept_chances(enc, "sam", [(20.0, 0.0)]) == ()  # straight: 5 m from Razor at best
    bent = intercept_chances(enc, "sam", [(10.0, 3.5), (20.0, 0.0)])  # the corner is 1.5 m from him
    assert len(bent) == 1
    c = bent[0]
    assert (c.interceptor, c.why, c.reach_m, c.cost, c.initiative) == ("razor", "passes within reach", 1.0, "interrupt", 5)
    # first point 1.8 m from (10, 5) along (0,0)->(10,3.5): 112.25 t^2 - 235 t + 121.76 = 0, t = 0.94186
    assert c.at == pytest.approx((9.4186, 3.2965), abs=1e-3)


def test_through_the_move_hook_the_gm_is_offered_the_intercept():
    enc = _fight()
    out = find_system("sr5").on_moves(enc, [MoveTo("sam", (6.0, 0.0), path=((5.0, 3.5),))])
    # (0,0)->(5,3.5)->(6,0): nearest to (10,5) is the corner, 5.22 m: no offer
    assert not any(n.startswith("Intercept") for n in out.notes)
    out = find_system("sr5").on_moves(enc, [MoveTo("sam", (16.0, 0.0), path=((10.0, 3.5),))])
    assert "Intercept: Razor may intercept Sam, who passes within reach at (9.4, 3.3) (-5 Initiative)" in out.notes
    assert out.encounter.token("sam").x == 16.0  # the move lands; the GM answers the offer


def test_breaking_out_of_melee_and_the_free_action_once_it_has_acted():
    enc = _fight(rx=1.5, ry=0.0)  # gap 1.5 - 0.8 = 0.7 m: in melee
    c = intercept_chances(enc, "sam", [(-5.0, 0.0)])
    assert [(x.why, x.at) for x in c] == [("breaks out of melee", (0.0, 0.0))]
    assert intercept_chances(enc, "sam", [(0.5, 0.5)]) == ()  # stays within reach
    # Razor (25) acts before Sam (20): after his phase his Free Action of the pass is open
    first = _fight(rx=1.5, ry=0.0, razor_ini=25)
    assert first.rules["sr5"].acting == "razor"
    first, _ = end_phase(first)
    assert first.rules["sr5"].acting == "sam"
    c = intercept_chances(first, "sam", [(-5.0, 0.0)])
    assert [(x.cost, x.initiative) for x in c] == [("free", 0)]


def test_who_may_not_intercept():
    assert intercept_chances(_fight(conditions=("surprised",)), "sam", [(10.0, 3.5), (20.0, 0.0)]) == ()
    assert intercept_chances(_fight(side="runner"), "sam", [(10.0, 3.5), (20.0, 0.0)]) == ()  # a friend
    # Initiative 3, no phase yet this pass: neither a Free Action nor the 5 Initiative
    assert intercept_chances(_fight(razor_ini=3), "sam", [(10.0, 3.5), (20.0, 0.0)]) == ()
    # a move that ends within reach is an approach, offered only with the option
    enc = _fight()
    assert intercept_chances(enc, "sam", [(10.0, 3.5)]) == ()
    opt = enc.with_rules("sr5", enc.rules["sr5"].model_copy(update={
        "options": enc.rules["sr5"].options.model_copy(update={"intercept_on_approach": True})}))
    assert [c.why for c in intercept_chances(opt, "sam", [(10.0, 3.5)])] == ["passes within reach"]


def test_a_longer_reach_reaches_farther():
    spear = KNIFE.model_copy(update={"name": "Spear", "reach": 2})
    sam = token("sam", 0, 0, side="runner")
    rz = token("razor", 10, 3.5, weapons=(spear,), in_hand=("Spear",))
    enc, _ = start_turn(encounter(sam, rz), entered={"sam": 20, "razor": 10})
    # straight east along y = 0: 3.5 m from Razor's centre; 1 + 2 reach + 0.8 = 3.8: within
    c = intercept_chances(enc, "sam", [(20.0, 0.0)])
    assert [(x.reach_m, x.at) for x in c] == [(3.0, pytest.approx((10 - (3.8 ** 2 - 3.5 ** 2) ** 0.5, 0.0)))]
