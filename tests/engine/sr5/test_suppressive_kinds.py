"""Issue 16 items 1 and 2: enhanced and flechette suppressive fire (seed 001).

Geometry by hand: Sam stands at (0, 50) and fills a triangle pointing east (direction 0).
A 30 m zone 10 m wide at its end is 10/2 x 20/30 = 3.33 m either side of the axis at x = 20;
an enhanced one (5 m at the end) 1.67 m. Tokens are discs of radius 0.4 m.
"""

from __future__ import annotations

import pytest

from engine.analysis import Tactics
from engine.model import Weapon, Zone
from engine.sr5.actions import Action, apply_action, check_action
from engine.sr5.initiative import start_turn
from engine.sr5.facts import facts_from_map
from engine.sr5.suppressive import (
    SuppressiveDeclaration,
    apply_suppressive,
    plan_suppression_test,
    plan_suppressive,
    suppression_status,
)
from tests.engine.sr5.helpers import AK, encounter, token

AA16 = Weapon(name="AA-16", category="shotgun_flechette", damage="10P(f)", ap=4, accuracy=4,
              modes=("SA", "BF", "FA"), ammo=32, loaded=32)
HITS_3 = [5, 5, 6, 1, 1, 2, 2, 3, 3, 4, 4]  # 11 dice, 3 hits


def _zone(length=30.0, **kw):
    return Zone(id="sup", kind="suppressive", owner="sam", direction=0, length=length, **kw)


def _enc(zone, *others, weapon=AK, **sam):
    shooter = token("sam", 0, 50, weapons=(weapon,), side="runner", agility=5,
                    skills={"automatics": 6, "longarms": 6}, **sam)
    return encounter(shooter, *others, zones=(zone,))


def _far_corners(enc, zid="sup"):
    """The y values of the zone's polygon where x is the far end (30 m or 20 m)."""
    shape = Tactics(enc).zone_shape(zid)
    xs = [x for x, _ in shape.exterior.coords]
    far = max(xs)
    return far, sorted({round(y, 6) for x, y in shape.exterior.coords if abs(x - far) < 1e-6})


def test_enhanced_zone_is_5_m_wide_at_its_end_on_the_map_and_in_the_engine():
    enc = _enc(_zone(fire="enhanced"))
    assert enc.zone("sup").effective_width == 5.0
    assert _far_corners(enc) == (30.0, [47.5, 52.5])
    assert _far_corners(_enc(_zone())) == (30.0, [45.0, 55.0])  # standard: 10 m


def test_who_is_in_the_zone_follows_the_narrower_end():
    # Lupe at (20, 53): 3 m off the axis. Standard zone (3.33 m there): inside. Enhanced
    # (1.67 m there): the disc's edge is |3 x 30 - 20 x 2.5| / sqrt(30^2 + 2.5^2) - 0.4
    # = 40 / 30.104 - 0.4 = 0.93 m from the zone's side: outside, but "right next to" it (1 m).
    lupe = token("lupe", 20, 53)
    std = facts_from_map(_enc(_zone(), lupe), "sam", ["lupe"]).token("lupe")
    enh = facts_from_map(_enc(_zone(fire="enhanced"), lupe), "sam", ["lupe"]).token("lupe")
    assert std.in_zones == ("sup",) and std.near_zones == ("sup",)
    assert enh.in_zones == () and enh.near_zones == ("sup",)


def test_declaring_enhanced_fire_reshapes_the_zone_and_undo_restores_it():
    lupe = token("lupe", 20, 53)
    enc = _enc(_zone(), lupe)
    plan = plan_suppressive(enc, SuppressiveDeclaration("sam", "sup", enhanced=True))
    assert plan.legal and plan.fire == "enhanced" and plan.zone.effective_width == 5.0
    new, ch = apply_suppressive(enc, plan, HITS_3)
    assert new.zone("sup").fire == "enhanced" and new.zone("sup").effective_width == 5.0
    assert ch.zone_ids == ("sup",)
    sup = new.rules["sr5"].suppressions[0]
    assert (sup.hits, sup.enhanced, sup.fire) == (3, True, "enhanced")
    assert "Sam lays enhanced suppressive fire (20 rounds)" in new.rules["sr5"].log[-1].text  # the zone has no name
    st = suppression_status(new, facts_from_map(new, "sam", ["lupe"]))
    assert st["lupe"].penalty == -3 and st["lupe"].must_test == ()  # next to it: penalty, no test
    assert ch.zones_before[0].effective_width == 10.0


def test_prone_does_not_spare_in_enhanced_fire_unless_lucky_cover():
    spike = token("spike", 20, 50, stance="prone", edge=2)
    enc = _enc(_zone(fire="enhanced"), spike)
    new, _ = apply_suppressive(enc, plan_suppressive(enc, SuppressiveDeclaration("sam", "sup")), HITS_3)
    st = suppression_status(new, facts_from_map(new, "sam", ["spike"]))
    assert st["spike"].must_test == ("sup",) and st["spike"].spared == ()
    # Drop Prone again is refused (already prone); Lucky Cover spends a point of Edge and spares
    assert check_action(new, Action("spike", "drop_prone")) == "Spike is already prone"
    lucky, ch = apply_action(new, Action("spike", "lucky_cover"))
    assert lucky.token("spike").rules["sr5"].edge_points == 1 and lucky.token("spike").rules["sr5"].lucky_cover
    st = suppression_status(lucky, facts_from_map(lucky, "sam", ["spike"]))
    assert st["spike"].must_test == () and st["spike"].spared == (("sup", "prone (Lucky Cover)"),)
    # in standard fire, prone alone spares
    plain = _enc(_zone(), spike)
    plain, _ = apply_suppressive(plain, plan_suppressive(plain, SuppressiveDeclaration("sam", "sup")), HITS_3)
    assert suppression_status(plain, facts_from_map(plain, "sam", ["spike"]))["spike"].spared == (("sup", "prone"),)


def test_lucky_cover_is_refused_without_edge_and_taken_any_time():
    spike = token("spike", 20, 50, edge=1, edge_points=0)
    enc = _enc(_zone(fire="enhanced"), spike)
    assert check_action(enc, Action("spike", "lucky_cover")) == "Spike has no Edge left (Lucky Cover spends 1)"
    enc2 = _enc(_zone(fire="enhanced"), token("spike", 20, 50, edge=1))
    enc2, _ = start_turn(enc2, entered={"sam": 20, "spike": 5})
    assert enc2.rules["sr5"].acting == "sam"
    assert check_action(enc2, Action("spike", "lucky_cover")) is None  # like Drop Prone: any time
    after, _ = apply_action(enc2, Action("spike", "lucky_cover"))
    assert after.token("spike").stance == "prone" and after.token("spike").rules["sr5"].edge_points == 0


@pytest.mark.parametrize("choke, width", [("narrow", 5.0), ("medium", 14.0), ("wide", 16.0)])
def test_flechette_zone_width_by_choke(choke, width):
    # 20 m zone: its far end lies in the flechette shotgun's medium band (15-30 m), where the
    # spread table gives medium 4 m, wide 6 m: 10 + 4, 10 + 6; narrow is exactly enhanced fire.
    assert _zone(20, fire="flechette", choke=choke).effective_width == width


def test_flechette_fire_is_the_full_auto_shotguns_and_takes_its_choke():
    # Lupe at (20, 57): 7 m off the axis at the far end of a 20 m zone: outside a 10 m end
    # (5 m, gap 1.6 m: not even next to it), inside the wide flechette end (8 m).
    lupe = token("lupe", 20, 57)
    enc = _enc(_zone(20), lupe, weapon=AA16, chokes={"AA-16": "wide"})
    assert facts_from_map(enc, "sam", ["lupe"]).token("lupe").near_zones == ()
    plan = plan_suppressive(enc, SuppressiveDeclaration("sam", "sup", weapon="AA-16"))
    assert plan.legal and (plan.fire, plan.choke) == ("flechette", "wide")
    new, _ = apply_suppressive(enc, plan, HITS_3)
    z = new.zone("sup")
    assert (z.fire, z.choke, z.effective_width) == ("flechette", "wide", 16.0)
    tf = facts_from_map(new, "sam", ["lupe"]).token("lupe")
    assert tf.in_zones == ("sup",)
    # the test: Reaction 3 + Edge 2, wide choke -5 (the spread table's defense modifier)
    t = plan_suppression_test(new, "lupe", "sup")
    assert t.test.total == 0 and dict((p.key, p.value) for p in t.test.parts)["choke"] == -5
    lupe_prone = new.model_copy(update={"tokens": tuple(
        x.model_copy(update={"stance": "prone"}) if x.id == "lupe" else x for x in new.tokens)})
    st = suppression_status(lupe_prone, facts_from_map(lupe_prone, "sam", ["lupe"]))
    assert st["lupe"].must_test == ("sup",)  # prone does not spare flechette fire either


def test_flechette_fire_needs_a_shotgun():
    plan = plan_suppressive(_enc(_zone()), SuppressiveDeclaration("sam", "sup", fire="flechette"))
    assert "flechette suppressive fire needs a full-auto shotgun firing flechettes; AK-97 is not one" in plan.problems


# -- item 3: "to a distance of their choosing (up to the maximum range of the weapon)" ----------
HK = Weapon(name="HK-227", category="submachine_gun", damage="7P", accuracy=5, modes=("SA", "BF", "FA"),
            ammo=28, loaded=28)


def test_a_zone_beyond_the_weapons_extreme_range_is_refused_by_default():
    # submachine gun bands 10/40/80/150 m: a 160 m zone is 10 m too long, 150 m is allowed
    enc = _enc(_zone(160), weapon=HK)
    plan = plan_suppressive(enc, SuppressiveDeclaration("sam", "sup"))
    assert plan.problems == ("suppressive fire of Sam reaches 160 m; HK-227 reaches at most 150 m (its extreme range)",)
    with pytest.raises(Exception, match="reaches at most 150 m"):
        apply_suppressive(enc, plan, HITS_3)
    assert plan_suppressive(_enc(_zone(150), weapon=HK), SuppressiveDeclaration("sam", "sup")).legal


def test_the_clip_option_fires_the_zone_cut_to_the_range():
    from engine.sr5.sheet import Options, Settings

    enc = _enc(_zone(160), weapon=HK)
    enc = enc.with_rules("sr5", Settings(options=Options(suppressive_beyond_range="clip")))
    plan = plan_suppressive(enc, SuppressiveDeclaration("sam", "sup"))
    assert plan.legal and plan.zone.length == 150
    new, ch = apply_suppressive(enc, plan, HITS_3)
    assert new.zone("sup").length == 150 and ch.zones_before[0].length == 160
    assert "the zone is clipped to 150 m, the range of HK-227" in new.rules["sr5"].log[-1].text
    assert _far_corners(new) == (150.0, [45.0, 55.0])
