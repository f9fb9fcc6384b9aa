"""Suppressive fire and the map facts the rules read."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import shapely

from engine.errors import IllegalActionError
from engine.model import Zone
from engine.sr5.attack import AttackDeclaration, plan_attack
from engine.sr5.actions import Action, apply_action
from engine.sr5.initiative import end_phase, start_turn
from engine.sr5.facts import TargetFacts, TokenFacts, facts, facts_from_map, facts_from_tactics
from engine.sr5.sheet import Settings, Suppression
from engine.sr5.suppressive import (
    SuppressiveDeclaration,
    apply_suppression_test,
    apply_suppressive,
    plan_suppression_test,
    plan_suppressive,
    suppression_status,
)
from tests.engine.sr5.helpers import AK, encounter, token, wall
from engine.sr5.system import SYSTEM as SR5

ZONE = Zone(id="sup", kind="suppressive", owner="sam", direction=0.0, length=30.0, weapon="AK-97")


def _field():
    # Sam at (0, 50) fires east; the triangle is 10 m wide at 30 m, so 3.33 m either side at x = 20.
    return encounter(
        token("sam", 0, 50, side="runner", agility=4, skills={"automatics": 6}),
        token("a", 20, 50, armor=9),  # inside, standing
        token("b", 20, 52, stance="prone"),  # inside, prone
        # c: 4.5 m off the axis; the zone's edge line passes 1.15 m from its centre, 0.75 m from its disc
        token("c", 20, 54.5),
        token("d", 20, 48),  # inside, but behind the 3 m wall from Sam's eye
        obstacles=(wall("w", 10, 44, 11, 49.3, 3.0),),
        zones=(ZONE,),
    )


def test_map_facts_for_a_suppressive_zone():
    f = facts_from_map(_field(), "sam", ["a"])
    assert f.token("a") == TokenFacts(("sup",), (), ("sup",), False)
    assert f.token("b").in_zones == ("sup",)
    assert f.token("c") == TokenFacts((), (), ("sup",), False)
    assert f.token("d").covered_zones == ("sup",) and f.token("d").in_zones == ()
    assert f.token("sam") == TokenFacts()


def test_suppressive_fire_pool_hits_and_who_must_roll():
    e, _ = start_turn(_field(), entered={"sam": 20, "a": 10, "b": 9, "c": 8, "d": 7})
    f = facts_from_map(e, "sam", ["a"])
    p = plan_suppressive(e, SuppressiveDeclaration("sam", "sup"))
    assert p.legal and p.pool.total == 10 and p.pool.limit == 5 and p.rounds == 20
    e, ch = apply_suppressive(e, p, [5, 5, 6, 1, 1, 2, 2, 3, 3, 4])
    s = e.rules["sr5"].suppressions[0]
    assert (s.hits, s.dv, s.ap, s.shooter) == (3, 10, -2, "sam")
    assert e.token("sam").weapons[0].loaded == 18 and e.rules["sr5"].phase.complex == 1
    st = suppression_status(e, f)
    assert st["a"].must_test == ("sup",) and st["a"].penalty == -3
    assert st["b"].spared == (("sup", "prone"),) and st["b"].must_test == ()
    assert st["c"].penalty == -3 and st["c"].must_test == ()
    assert st["d"].spared == (("sup", "full cover"),)
    assert "sam" not in st
    # a's own attack suffers the penalty
    pa = plan_attack(e, AttackDeclaration("a", ("sam",), mode="SA"), facts([TargetFacts("sam", 20)], f.tokens))
    assert pa.common.value("suppressed") == -3


def test_reaction_edge_test_and_base_damage():
    sup = Suppression(zone="sup", shooter="sam", weapon="AK-97", hits=3, dv=10, ap=-2, turn=1)
    e = _field().with_rules("sr5", Settings(suppressions=(sup,), turn=1))
    p = plan_suppression_test(e, "a", "sup")
    assert (p.test.total, p.test.threshold) == (5, 3)  # Reaction 3 + Edge 2
    assert p.soak.total == 11  # Body 4 + armor 9 - 2
    r = SR5.resolve(p, [[5, 1, 1, 1, 2], [5, 5, 5, 6, 1, 1, 1, 1, 1, 1, 1]])
    assert r.hit and r.boxes == 6  # base DV 10, no net hits; 4 soak hits
    e2, ch = apply_suppression_test(e, r)
    assert e2.token("a").rules["sr5"].physical_damage == 6
    ok = SR5.resolve(p, [[5, 5, 6, 1, 2]])
    assert not ok.hit and ok.boxes == 0
    assert plan_suppression_test(e, "a", "sup", index=1).test.total == 4  # a second zone: -1
    with pytest.raises(IllegalActionError, match="no suppressive fire"):
        plan_suppression_test(e, "a", "other")


def test_full_defense_adds_willpower_to_the_test():
    sup = Suppression(zone="sup", shooter="sam", weapon="AK-97", hits=3, dv=10, turn=1)
    e = _field()
    a = e.token("a")
    e = e.model_copy(update={"tokens": tuple(
        t.with_rules("sr5", t.rules["sr5"].model_copy(update={"full_defense": True})) if t.id == "a" else t
        for t in e.tokens)}).with_rules("sr5", Settings(suppressions=(sup,)))
    assert plan_suppression_test(e, "a", "sup").test.total == 5 + a.rules["sr5"].willpower


def test_overlapping_zones_only_the_highest_penalty():
    s1 = Suppression(zone="sup", shooter="sam", weapon="AK-97", hits=2, dv=10, turn=1)
    s2 = Suppression(zone="z2", shooter="x", weapon="AK-97", hits=4, dv=10, turn=1)
    e = _field().with_rules("sr5", Settings(suppressions=(s1, s2)))
    f = facts([], {"a": TokenFacts(("sup", "z2"), (), ("sup", "z2"))})
    st = suppression_status(e, f)
    assert st["a"].penalty == -4 and st["a"].penalty_zone == "z2" and st["a"].must_test == ("sup", "z2")


def test_enhanced_suppression_does_not_spare_the_prone():
    sup = Suppression(zone="sup", shooter="sam", weapon="AK-97", hits=3, dv=10, turn=1, enhanced=True)
    e = _field().with_rules("sr5", Settings(suppressions=(sup,)))
    st = suppression_status(e, facts_from_map(e, "sam", ["a"]))
    assert st["b"].must_test == ("sup",)


def test_the_zone_ends_when_the_shooter_acts_or_the_turn_ends():
    e, _ = start_turn(_field(), entered={"sam": 20, "a": 10, "b": 9, "c": 8, "d": 7})
    e, _ = apply_suppressive(e, plan_suppressive(e, SuppressiveDeclaration("sam", "sup")), [5] * 10)
    e2, _ = apply_action(e, Action("sam", "speak"))
    assert e2.rules["sr5"].suppressions == ()
    # or it lasts to the end of the turn
    for _ in range(5):
        e, _ = end_phase(e)
    # pass 2: only Sam (20 - 10) acts; the zone is still up while Sam does nothing else
    assert e.rules["sr5"].suppressions[0].zone == "sup" and e.rules["sr5"].initiative_pass == 2 and e.rules["sr5"].acting == "sam"
    e, ch = end_phase(e)
    assert e.rules["sr5"].initiative_pass == 0 and e.rules["sr5"].suppressions == ()
    assert "suppressive fire ends: sup" in e.rules["sr5"].log[-1].text


def test_suppressive_fire_needs_full_auto_and_the_rounds():
    from tests.engine.sr5.helpers import PREDATOR

    e = _field()
    sam = e.token("sam").model_copy(update={"weapons": (AK.model_copy(update={"loaded": 13}), PREDATOR)})
    e = e.model_copy(update={"tokens": (sam,) + e.tokens[1:]})
    p = plan_suppressive(e, SuppressiveDeclaration("sam", "sup"))
    assert "13 rounds left; suppressive fire needs 20" in p.problems[0]
    p = plan_suppressive(e, SuppressiveDeclaration("sam", "sup", weapon="Ares Predator V"))
    assert any("no full-auto mode" in x for x in p.problems)


# -- cover classes from the map -------------------------------------------------------------------
@pytest.mark.parametrize("height,cls", [
    # Eye 1.6 m at x=0, body 1.8 m at x=10, wall from x=5 to 6. A wall lower than the eye hides a
    # column up to e + (h - e) / lam_out with lam_out = 6/10 (issue 2's formula):
    (0.5, "none"),  # 1.6 - 1.1/0.6 < 0: nothing hidden
    (1.0, "partial"),  # 1.6 - 0.6/0.6 = 0.6 m of 1.8: 33 %
    (1.2, "good"),  # 1.6 - 0.4/0.6 = 0.933 m: 52 %
    (3.0, "full"),  # taller than the eye: 1.6 + 1.4/0.5 = 4.4 m > 1.8: all hidden
])
def test_cover_class_from_the_map(height, cls):
    e = encounter(token("sam", 0, 50), token("razor", 10, 50), obstacles=(wall("w", 5, 45, 6, 55, height),))
    f = facts_from_map(e, "sam", ["razor"])
    assert f.target("razor").cover == cls and f.target("razor").distance == pytest.approx(10)


def test_facts_from_a_tactics_object():
    e = _field()
    zone_shape = shapely.Polygon([(0, 50), (30, 45), (30, 55)])
    fake = SimpleNamespace(
        targets=lambda attacker, weapon=None: [
            SimpleNamespace(id="a", distance=20.0, cover=SimpleNamespace(fraction=0.3, cls="partial"), zones=("sup",),
                            charge=None),
        ],
        zone_hits=lambda: {"sup": [SimpleNamespace(id="a", fraction=1.0, cover=0.0)]},
        zone_shape=lambda zid: zone_shape,
    )
    f = facts_from_tactics(fake, e, "sam", ["a"])
    assert f.target("a") == TargetFacts("a", 20.0, "partial", True, True, False, 0.3)
    assert f.token("a").in_zones == ("sup",)
    assert f.token("d").covered_zones == ("sup",)  # inside the shape, not among the zone's hits
    assert f.token("c").near_zones == ("sup",) and f.token("c").in_zones == ()
    with pytest.raises(IllegalActionError, match="no line to zz from Sam") as refused:
        facts_from_tactics(fake, e, "sam", ["zz"])
    assert refused.value.ids == ("zz", "sam")


def test_target_facts_refuse_nonsense():
    with pytest.raises(IllegalActionError, match="distance"):
        TargetFacts("a", float("nan"))
    with pytest.raises(IllegalActionError, match="cover 'half'"):
        TargetFacts("a", 3, "half")
    with pytest.raises(IllegalActionError, match="no map facts for target 'q'"):
        facts([]).target("q")


def test_melee_flags_mark_enemies_within_one_metre_of_gap_only():
    """Discs of radius 0.4: centres 1.8 m apart leave a 1.0 m gap (in melee), 1.81 m a
    1.01 m gap (not); friends never count, and hidden tokens are left out."""
    from engine.model import Encounter, MapSpec, Token
    from engine.sr5.facts import _melee_flags, in_melee_contact
    from engine.sr5.sheet import Options

    toks = (
        Token(id="a", side="runner", x=0.0, y=0.0),
        Token(id="b", side="ganger", x=1.8, y=0.0),
        Token(id="c", side="ganger", x=0.0, y=1.81),
        Token(id="d", side="runner", x=-1.0, y=0.0),
        Token(id="e", side="ganger", x=-2.0, y=0.0, hidden=True),
    )
    enc = Encounter(map=MapSpec(width=10, height=10), tokens=toks)
    flags = _melee_flags(enc, Options())
    assert flags == {"a": True, "b": True, "c": False, "d": False}
    for x in ("a", "b", "c", "d"):  # agrees with the pairwise rule
        assert flags[x] == any(
            in_melee_contact(enc, x, y) for y in ("a", "b", "c", "d")
            if y != x and enc.token(y).side != enc.token(x).side
        )
