"""Tactics: range, cover, zones, lines of sight and charges on small hand-made encounters.

Every expected number is derived in a comment. Map: x east, y south; direction 0 = east."""

from __future__ import annotations

import math

import pytest

from engine.analysis import (
    AREA_ZONE_ORIGIN_HEIGHT,
    SHOTGUN_SPREAD_WIDTHS,
    Tactics,
    UnknownWeaponError,
)
from engine.errors import UnknownIdError
from engine.files import encounter_from_data

PISTOL = {"name": "Ares Predator V", "category": "heavy_pistol"}  # 5 / 20 / 40 / 60 m
FLECHETTE = {"name": "Defiance T-250", "category": "shotgun_flechette"}  # 15 / 30 / 45 / 60 m


def enc(tokens, obstacles=(), zones=(), size=(100.0, 60.0)):
    return encounter_from_data({
        "format": "coverfire.encounter", "version": 1, "name": "test", "ruleset": "sr5",
        "map": {"width": size[0], "height": size[1]},
        "obstacles": list(obstacles), "tokens": list(tokens), "zones": list(zones),
    })


def tok(ident, x, y, stance="standing", weapons=(PISTOL,), **kw):
    return {"id": ident, "x": x, "y": y, "stance": stance, "weapons": list(weapons), **kw}


def box(ident, x0, y0, x1, y1, h, **kw):
    return {"id": ident, "height": h, "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], **kw}


def report(t, attacker="a", weapon=None):
    return {r.id: r for r in t.targets(attacker, weapon)}


# --- range ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dx,band,modifier", [
    (5.0, "short", 0),  # exactly on the Short bound is Short, not Medium
    (5.5, "medium", -1),
    (20.0, "medium", -1),
    (40.0, "long", -3),
    (59.0, "extreme", -6),
])
def test_range_bands_of_a_heavy_pistol(dx, band, modifier):
    t = Tactics(enc([tok("a", 10, 30), tok("b", 10 + dx, 30)]))
    r = report(t)["b"]
    assert r.distance == pytest.approx(dx)
    assert (r.range.band, r.range.modifier) == (band, modifier)


def test_beyond_the_last_band_is_out_of_range_and_no_weapon_no_range():
    t = Tactics(enc([tok("a", 1, 30), tok("b", 62, 30), tok("c", 1, 40, weapons=())]))
    assert report(t)["b"].range is None  # 61 m > 60 m
    assert report(t, "c")["a"].range is None


def test_distance_is_centre_to_centre():
    t = Tactics(enc([tok("a", 0.5, 0.5), tok("b", 3.5, 4.5)]))
    assert report(t)["b"].distance == pytest.approx(5.0)  # 3-4-5


def test_weapon_choice_and_own_ranges_override_the_category():
    own = {"name": "Odd gun", "category": "heavy_pistol",
           "ranges": [{"band": "short", "max": 2, "modifier": 0}, {"band": "long", "max": 8, "modifier": -3}]}
    t = Tactics(enc([tok("a", 10, 30, weapons=(PISTOL, own)), tok("b", 14, 30)]))
    assert report(t)["b"].range.band == "short"  # first weapon: heavy pistol, 4 m <= 5
    r = report(t, weapon="Odd gun")["b"].range
    assert (r.band, r.modifier, r.max) == ("long", -3, 8.0)  # 4 m: over 2, within 8


def test_strength_scales_thrown_weapons():
    knife = {"name": "Knife", "category": "thrown_knife"}  # STR, STR x2, x3, x5
    # 8 m away. Strength 5: 5 / 10 / 15 / 25 m -> medium. Without an sr5 sheet the default
    # Strength 3: 3 / 6 / 9 / 15 m -> long.
    t = Tactics(enc([tok("s", 10, 30, weapons=(knife,), sr5={"strength": 5}),
                     tok("d", 10, 40, weapons=(knife,)), tok("x", 18, 30)]))
    assert report(t, "s")["x"].range.band == "medium"
    t2 = Tactics(enc([tok("d", 10, 30, weapons=(knife,)), tok("x", 18, 30)]))
    assert report(t2, "d")["x"].range.band == "long"


def test_minimum_range_of_a_grenade_launcher():
    gl = {"name": "GL", "category": "grenade_launcher"}  # minimum 5 m
    t = Tactics(enc([tok("a", 10, 30, weapons=(gl,)), tok("b", 13, 30), tok("c", 20, 30)]))
    rep = report(t)
    assert rep["b"].range is None
    assert rep["c"].range.band == "short"


def test_unknown_attacker_or_weapon_are_clear_errors():
    t = Tactics(enc([tok("a", 10, 30), tok("b", 14, 30)]))
    with pytest.raises(UnknownIdError, match="no token with id 'zed'"):
        t.targets("zed")
    with pytest.raises(UnknownWeaponError, match="a carries no weapon named 'Bazooka'.*Ares Predator V"):
        t.targets("a", "Bazooka")


# --- cover -----------------------------------------------------------------------------------------

def test_issue_wall_example_through_the_engine():
    # eye 1.6 m at x = 10; 1 m wall 19..19.2 m away; standing target 20 m away:
    # hidden to 1.6 - 0.6 * 20 / 19.2 = 0.975 m -> 0.975 / 1.8 = 54.2 % -> good
    e = enc([tok("a", 10, 30), tok("b", 30, 30)], [box("w", 29, 20, 29.2, 40, 1.0)])
    t = Tactics(e)
    c = report(t)["b"].cover
    assert c.fraction == pytest.approx(0.975 / 1.8, abs=1e-9)
    assert c.cls == "good"
    s = t.line_of_sight("a", "b", columns=5)
    assert s.hidden == pytest.approx((0.975,) * 5)
    assert s.u == pytest.approx((-0.4, -0.2, 0.0, 0.2, 0.4))
    assert (s.eye, s.eye_z, s.target, s.target_height) == ((10, 30), 1.6, (30, 30), 1.8)
    assert s.cls == "good"


def test_stances_change_eye_and_body_heights():
    # crouched shooter, eye 1.0 = wall height: hidden to 1.0; crouched target 1.2 m -> 83.3 %
    e = enc([tok("a", 10, 30, stance="crouched"), tok("b", 30, 30, stance="crouched")],
            [box("w", 29, 20, 29.2, 40, 1.0)])
    assert report(Tactics(e))["b"].cover.fraction == pytest.approx(1.0 / 1.2)


def test_open_door_hides_nothing_closed_door_does():
    door = box("d", 20, 20, 20.2, 40, 2.5, door=True, open=True)
    e = enc([tok("a", 10, 30), tok("b", 30, 30)], [door])
    assert report(Tactics(e))["b"].cover.cls == "none"
    closed = enc([tok("a", 10, 30), tok("b", 30, 30)], [dict(door, open=False)])
    # 2.5 m door at 10 m, target 20 m: 1.6 + 0.9 * 20 / 10 = 3.4 m > 1.8 -> full
    assert report(Tactics(closed))["b"].cover.cls == "full"


def test_tokens_do_not_hide_one_another():
    e = enc([tok("a", 10, 30), tok("m", 20, 30), tok("b", 30, 30)])
    assert report(Tactics(e))["b"].cover.fraction == 0.0


# --- zones -----------------------------------------------------------------------------------------

def test_suppressive_zone_touches_who_is_in_it_unless_in_full_cover():
    edge_y = 32.5 + 0.2 / math.cos(math.atan(1 / 6))
    toks = [tok("a", 10, 30), tok("in", 30, 31), tok("edge", 25, edge_y), tok("out", 30, 40),
            tok("walled", 25, 28)]
    # triangle apex (10,30), 30 m east, 10 m wide at x = 40: its side is y = 30 + (x - 10) / 6.
    # "in" (30,31): half-width 3.33 -> inside. "edge": at x = 25 the side is at y = 32.5; the
    # centre sits 0.2 m (square to the slanted side) outside -> a circular segment is in.
    # "out" (30,40) -> 10 m off the axis -> out.
    # "walled" (25,28) behind a 3 m wall at x 20..20.2 y 26..29: from the eye at 1.6 m the wall
    # hides it fully (entry a ~ 10: 1.6 + 1.4 * 15 / 10 = 3.7 > 1.8) -> not touched.
    z = {"id": "sup", "kind": "suppressive", "owner": "a", "direction": 0, "length": 30}
    t = Tactics(enc(toks, [box("w", 20, 26, 20.2, 29, 3.0)], [z]))
    hits = {h.id: h for h in t.zone_hits()["sup"]}
    assert set(hits) == {"in", "edge"}  # and not the owner "a"
    assert hits["in"].fraction == 1.0
    d, r = 0.2, 0.4  # circular segment inside: (r^2 acos(d/r) - d sqrt(r^2-d^2)) / (pi r^2)
    seg = (r * r * math.acos(d / r) - d * math.sqrt(r * r - d * d)) / (math.pi * r * r)
    assert hits["edge"].fraction == pytest.approx(seg, abs=1e-3)
    assert report(t)["in"].zones == ("sup",)
    assert report(t)["walled"].zones == ()
    # the clipped shape has the wall's shadow taken out
    assert t.zone_shape("sup").area == pytest.approx(150.0)
    assert t.zone_shape_clipped("sup").area < 150.0 - 5


def test_a_follower_shares_the_indexes_and_cover_answers_in_either_order_of_updates():
    """The players' Tactics follows the GM's (issue 27): one set of obstacle indexes, the GM's
    cover answers taken when asked, and whichever hears of an obstacle edit first, both cut
    their zones at the new obstacles."""
    toks = [tok("a", 10, 30), tok("in", 30, 31), tok("walled", 25, 28)]
    z = {"id": "sup", "kind": "suppressive", "owner": "a", "direction": 0, "length": 30}
    gm_enc = enc(toks, [box("w", 20, 26, 20.2, 29, 3.0)], [z])
    players = gm_enc.model_copy(update={"tokens": gm_enc.tokens[:2]})  # "walled" is hidden from them
    gm = Tactics(gm_enc)
    follower = gm.follower(players)
    assert gm.shares_indexes(follower) and follower.index_builds == gm.index_builds == 1
    assert gm.zone_shape_clipped("sup").area < 150.0 - 5  # the wall's shadow is cut out
    gm.cover("a")
    known = gm.cover_answers(gm_enc.token("a"))
    assert set(known) == {"in", "walled"}
    assert report(follower)["in"].cover.fraction == 0.0
    assert follower.cover_answers(players.token("a")) is known  # asked, not measured again
    # the wall is taken away; the follower's document hears of it first
    gm_enc2 = gm_enc.model_copy(update={"obstacles": ()})
    follower.update(players.model_copy(update={"obstacles": gm_enc2.obstacles}))
    gm.update(gm_enc2)
    assert gm.zone_shape_clipped("sup").area == pytest.approx(150.0)  # no shadow left
    assert report(gm)["walled"].cover.fraction == 0.0


def test_low_wall_does_not_stop_a_zone():
    # 1 m wall: a standing body behind it is only partly hidden -> still touched
    z = {"id": "sup", "kind": "suppressive", "owner": "a", "direction": 0, "length": 30, "width": 10}
    t = Tactics(enc([tok("a", 10, 30), tok("b", 30, 30)], [box("w", 29, 28, 29.2, 32, 1.0)], [z]))
    (h,) = t.zone_hits()["sup"]
    assert h.id == "b" and h.cover == pytest.approx(0.975 / 1.8)


def test_shotgun_spread_follows_the_owner_shotgun_bands():
    # flechette bands 15 / 30 / 45 / 60 m; medium choke widths 2 / 4 / 6 / 8 m.
    toks = [tok("a", 5, 30, weapons=(PISTOL, FLECHETTE)),
            tok("near_in", 15, 30.5), tok("near_out", 15, 31.6),  # band 1: |dy| <= 1 (+ r 0.4)
            tok("mid_in", 30, 31.5)]                                 # band 2: |dy| <= 2
    z = {"id": "sg", "kind": "shotgun", "owner": "a", "direction": 0, "choke": "medium"}
    t = Tactics(enc(toks, zones=[z]))
    hit = {h.id for h in t.zone_hits()["sg"]}
    assert hit == {"near_in", "mid_in"}  # near_out: 1.6 - 0.4 = 1.2 > 1 from the axis
    assert t.zone_shape("sg").area == pytest.approx(15 * (2 + 4 + 6 + 8))
    wide = dict(z, choke="wide")
    assert Tactics(enc(toks, zones=[wide])).zone_shape("sg").area == pytest.approx(15 * (3 + 6 + 9 + 12))
    narrow = dict(z, choke="narrow", length=20)
    assert Tactics(enc(toks, zones=[narrow])).zone_shape("sg").area == pytest.approx(20 * 1.0)
    assert SHOTGUN_SPREAD_WIDTHS["medium"] == (2.0, 4.0, 6.0, 8.0)


def test_blast_origin_height_and_fractions():
    # blast at (50, 30), r 5. "half" at (55, 30): centre on the rim -> ~ half its disc inside.
    # "shielded" at (50, 36)... outside the radius anyway; "behind" at (50, 34) behind a
    # 2 m wall at y 32..32.2: from 1.0 m, 1.0 + 1.0 * 4 / 2 = 3.0 m > 1.8 -> full cover.
    toks = [tok("a", 5, 5), tok("half", 55, 30), tok("behind", 50, 34), tok("open", 47, 30)]
    z = {"id": "b", "kind": "blast", "x": 50, "y": 30, "radius": 5}
    t = Tactics(enc(toks, [box("w", 45, 32, 55, 32.2, 2.0)], [z]))
    hits = {h.id: h for h in t.zone_hits()["b"]}
    assert set(hits) == {"half", "open"}
    assert hits["half"].fraction == pytest.approx(0.5, abs=0.02)  # rim curvature: ~0.475
    assert hits["open"].fraction == 1.0
    assert t.zone_origin("b") == (50, 30, AREA_ZONE_ORIGIN_HEIGHT)


def test_cone_line_rect_and_circle_zones():
    toks = [tok("a", 10, 30), tok("c_in", 10, 38), tok("l_in", 30, 30.8), tok("r_in", 70, 10),
            tok("o_in", 80, 50)]
    zones = [
        {"id": "cone", "kind": "cone", "owner": "a", "direction": 90, "length": 10, "angle": 60},
        {"id": "line", "kind": "line", "owner": "a", "direction": 0, "length": 25, "width": 2},
        {"id": "rect", "kind": "rect", "x": 70, "y": 10, "direction": 30, "length": 6, "width": 3},
        {"id": "circ", "kind": "circle", "x": 80, "y": 50, "radius": 2},
    ]
    hits = Tactics(enc(toks, zones=zones)).zone_hits()
    assert [h.id for h in hits["cone"]] == ["c_in"]  # 8 m south, on the axis
    assert [h.id for h in hits["line"]] == ["l_in"]  # 0.8 off the axis, half width 1
    assert [h.id for h in hits["rect"]] == ["r_in"]
    assert [h.id for h in hits["circ"]] == ["o_in"]


# --- update and caching -------------------------------------------------------------------------

def test_update_reuses_the_obstacle_index_when_only_tokens_move():
    e = enc([tok("a", 10, 30), tok("b", 30, 30)], [box("w", 29, 20, 29.2, 40, 1.0)])
    t = Tactics(e)
    assert report(t)["b"].cover.cls == "good"
    moved = e.model_copy(update={"tokens": (e.tokens[0], e.tokens[1].model_copy(update={"y": 50.0}))})
    t.update(moved)
    assert t.index_builds == 1
    assert report(t)["b"].cover.cls == "none"  # the wall ends at y = 40
    # a new but equal obstacles tuple: still no rebuild
    t.update(moved.model_copy(update={"obstacles": tuple(o.model_copy() for o in e.obstacles)}))
    assert t.index_builds == 1
    # a changed obstacle: rebuilt
    taller = e.obstacles[0].model_copy(update={"height": 3.0})
    t.update(moved.model_copy(update={"obstacles": (taller,)}))
    assert t.index_builds == 2



def test_moving_one_target_re_measures_the_cover_of_that_one_only(monkeypatch):
    # a 1 m wall at x 29..29.2, y 20..40 (as above): b at (30, 30) is in good cover from a's eye,
    # c at (30, 50) beyond its end is in none
    e = enc([tok("a", 10, 30), tok("b", 30, 30), tok("c", 30, 50), tok("d", 50, 10)],
            [box("w", 29, 20, 29.2, 40, 1.0)])
    t = Tactics(e)
    measured = []
    real = type(t.cover_index).cover_fractions

    def spy(index, eye, eye_z, xy, *rest):
        measured.append(len(xy))
        return real(index, eye, eye_z, xy, *rest)

    monkeypatch.setattr(type(t.cover_index), "cover_fractions", spy)
    first = report(t)
    assert measured == [3] and first["b"].cover.cls == "good" and first["c"].cover.cls == "none"
    toks = list(e.tokens)
    toks[2] = toks[2].model_copy(update={"y": 31.0})  # c steps behind the wall
    t.update(e.model_copy(update={"tokens": tuple(toks)}))
    again = report(t)
    assert measured == [3, 1] and again["c"].cover.cls == "good"
    assert again["b"].cover == first["b"].cover and again["d"].cover == first["d"].cover
    assert t.line_of_sight("a", "c").cls == "good" and measured == [3, 1]  # known already
    toks[0] = toks[0].model_copy(update={"x": 11.0})  # the attacker moves: every target again
    t.update(e.model_copy(update={"tokens": tuple(toks)}))
    report(t)
    assert measured == [3, 1, 3]


# --- charge ------------------------------------------------------------------------------------------

def test_charge_on_open_ground_backs_off_for_the_run_up():
    # the issue's example: target 5 m away, radii 0.4, reach 1: contact 1.8 m apart, needs
    # 4 m straight -> back off 0.8 m, then run 4 m: movement 4.8,
    # path (3,6) -> (2.2,6) -> (6.2,6)
    t = Tactics(enc([tok("sam", 3, 6), tok("ork", 8, 6)]))
    plan = t.charge("sam", "ork")
    assert plan.possible and plan.reason is None
    assert plan.movement == pytest.approx(4.8, abs=1e-6)
    assert [tuple(p) for p in plan.path] == [pytest.approx((3, 6)), pytest.approx((2.2, 6)),
                                            pytest.approx((6.2, 6))]
    with_charges = {r.id: r for r in t.targets("sam", charges=True)}
    assert with_charges["ork"].charge.movement == pytest.approx(4.8, abs=1e-6)
    assert report(t, "sam")["ork"].charge is None  # only when asked


def test_charge_impossible_says_why():
    # the attacker is boxed in by walls on every side: no run-up can be reached
    walls = [box("n", 0, 0, 20, 1, 3), box("s", 0, 9, 20, 10, 3), box("w", 0, 0, 1, 10, 3),
             box("e", 19, 0, 20, 10, 3)]
    t = Tactics(enc([tok("a", 5, 5), tok("b", 40, 5)], walls))
    plan = t.charge("a", "b")
    assert not plan.possible
    assert plan.reason == "the target cannot be reached: no free run-up start can be walked to"
    assert (plan.path, plan.movement, plan.runup_start, plan.contact) == ((), None, None, None)



def test_charge_stops_at_the_attackers_movement():
    # Open ground, target 50 m east (radii 0.4, reach 1): the charge needs 50 - 1.8 = 48.2 m.
    # No sr5 sheet: the default allowance (DEFAULT_CHARGE_MOVEMENT = 40 m) refuses it as too
    # far; given 60 m it is planned as usual; an sr5 sheet with Agility 5 runs 4 x 5 = 20 m
    # (plus 3 m of Sprint: 23 m), which reaches a target 20 m away (20 - 1.8 = 18.2 m) but
    # not one 30 m away (28.2 m).
    from engine.analysis import DEFAULT_CHARGE_MOVEMENT

    t = Tactics(enc([tok("a", 10, 30), tok("b", 60, 30)]))
    assert t.charge_movement("a") == DEFAULT_CHARGE_MOVEMENT == 40.0
    far = t.charge("a", "b")
    assert not far.possible and "too far" in far.reason and "40 m" in far.reason
    ok = t.charge("a", "b", max_movement=60)
    assert ok.possible and ok.movement == pytest.approx(48.2, abs=1e-6)
    runner = {"agility": 5, "sprint_metres": 3.0}
    t = Tactics(enc([tok("a", 10, 30, sr5=runner), tok("b", 30, 30), tok("c", 10, 60 - 0.5)], size=(100.0, 60.0)))
    assert t.charge_movement("a") == pytest.approx(23.0)
    assert t.charge("a", "b").movement == pytest.approx(18.2, abs=1e-6)
    c = t.charge("a", "c")  # 29.5 m south: 27.7 m needed
    assert not c.possible and "23 m" in c.reason
    plans = {r.id: r.charge for r in t.targets("a", charges=True)}
    assert plans["b"].movement == pytest.approx(18.2, abs=1e-6) and not plans["c"].possible


def test_charge_movement_of_a_static_veil_token():
    # a static-veil encounter: the token's Movement per turn (sheet default 10 m)
    e = enc([tok("a", 10, 30, static_veil={"movement": 12.5}), tok("b", 20, 30), tok("c", 30, 30)])
    e = e.model_copy(update={"ruleset": "static-veil"})
    t = Tactics(e)
    assert t.charge_movement("a") == pytest.approx(12.5)
    assert t.charge_movement("b") == 40.0  # no sheet: the default
    assert t.charge("a", "b").movement == pytest.approx(10 - 1.8, abs=1e-6)  # 8.2 m <= 12.5
    assert "too far" in t.charge("a", "c").reason  # 18.2 m > 12.5


def test_zone_hits_follow_moves_incrementally():
    # triangle from (10,30) east, 30 m long, 10 m wide at the far end
    z = {"id": "sup", "kind": "suppressive", "owner": "a", "direction": 0, "length": 30, "width": 10}
    e = enc([tok("a", 10, 30), tok("b", 30, 30), tok("c", 30, 50)], zones=[z])
    t = Tactics(e)
    assert [h.id for h in t.zone_hits()["sup"]] == ["b"]

    def moved(e, i, **kw):
        toks = list(e.tokens)
        toks[i] = toks[i].model_copy(update=kw)
        return e.model_copy(update={"tokens": tuple(toks)})

    e2 = moved(e, 2, y=31.0)  # c walks into the zone
    t.update(e2)
    assert [h.id for h in t.zone_hits()["sup"]] == ["b", "c"]
    e3 = moved(e2, 1, y=10.0)  # b walks out
    t.update(e3)
    assert [h.id for h in t.zone_hits()["sup"]] == ["c"]
    e4 = moved(e3, 0, y=10.0)  # the owner turns away (moves): its triangle moves with it
    t.update(e4)
    assert [h.id for h in t.zone_hits()["sup"]] == ["b"]  # b is at (30, 10) now: in it
    # a wall put up between: the obstacle index changes, every answer is redone
    e5 = e4.model_copy(update={"obstacles": (
        encounter_from_data({"format": "coverfire.encounter", "version": 1, "map": {"width": 100, "height": 60},
                             "obstacles": [box("w", 20, 0, 20.2, 20, 4.0)]}).obstacles[0],)})
    t.update(e5)
    assert t.zone_hits()["sup"] == []


def test_zone_hits_are_redone_when_the_obstacles_change_under_the_same_tokens_and_zones():
    # The zone-hit cache is keyed by the obstacle revision (Tactics.index_builds), never by
    # id() of an index (CPython reuses a freed object's address): a new wall with the very
    # same token and zone values must still redo the answers.
    z = {"id": "sup", "kind": "suppressive", "owner": "a", "direction": 0, "length": 30, "width": 10}
    e = enc([tok("a", 10, 30), tok("b", 30, 30)], zones=[z])
    t = Tactics(e)
    assert [h.id for h in t.zone_hits()["sup"]] == ["b"]
    builds = t.index_builds
    # a 4 m wall at x 20..20.2 across the whole triangle: b (30, 30) is wholly hidden from a's eye
    walled = enc([tok("a", 10, 30), tok("b", 30, 30)], [box("w", 20, 20, 20.2, 40, 4.0)], [z])
    t.update(walled.model_copy(update={"tokens": e.tokens, "zones": e.zones}))  # same token values
    assert t.index_builds == builds + 1
    assert t.zone_hits()["sup"] == []


# --- a token pasted a hundred times (fuzz case 3002:encounter:1058) ----------------------------

_STACKED = r"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GiB of address space
from assets import ENCOUNTERS
from engine.files import encounter_from_data
from engine.report import analyze
from geometry.nav import search

# the work of the charge searches, counted (not timed): the bodies' discs a search keeps, its
# extra nodes (start, goal, corners of bodies) and the candidate pairs of them it looks at
work = {"discs": 0, "extra_nodes": 0, "pairs": 0}
init, add = search.Query.__init__, search.Query.add_nodes

def counted_init(self, g, discs, *a, **k):
    init(self, g, discs, *a, **k)
    work["discs"] = max(work["discs"], len(self.C))

def counted_add(self, P, *a, **k):
    work["pairs"] += len(P) * (len(self.pts) + len(P))
    out = add(self, P, *a, **k)
    work["extra_nodes"] = max(work["extra_nodes"], len(self.pts))
    return out

search.Query.__init__, search.Query.add_nodes = counted_init, counted_add
data = json.loads((ENCOUNTERS / "demo-d100.json").read_text(encoding="utf-8"))
{a: analyze(encounter_from_data(data), a)[0] for a in ("sam", "ganger-3")}
plain = dict(work)
work.update(discs=0, extra_nodes=0, pairs=0)
pasted = next(t for t in data["tokens"] if t["id"] == "ganger-3")
data["tokens"] += [{**pasted, "id": f"ganger-3-copy{k}"} for k in range(100)]
enc = encounter_from_data(data)
out = {a: analyze(enc, a)[0] for a in ("sam", "ganger-3-copy7")}
print(json.dumps({"plain": plain, "pasted": work, "reports": out}))
"""


def test_a_token_pasted_a_hundred_times_is_analysed_in_bounded_memory_and_work():
    # The d100 demo with ganger-3 pasted 100 times on its own spot (109 tokens, 101 on one
    # spot). Every copy used to add the same body corners to each charge search, and every
    # pair of them was a candidate edge: 8.3 million, a MemoryError past 1 GiB (36 s a
    # attacker). Stacked bodies now block as one: the searches do the work they do on the
    # demo itself. Run in a child process under 1 GiB of address space (the kernel refuses
    # more); the work is counted, not timed.
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(root)}
    run = subprocess.run([sys.executable, "-c", _STACKED], capture_output=True, text=True, cwd=root,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    res = json.loads(run.stdout.strip().splitlines()[-1])
    plain, pasted = res["plain"], res["pasted"]
    # (without the stacking, 10 copies already made 18 discs, 113 extra nodes, 3x the pairs)
    assert pasted["discs"] <= plain["discs"], res
    assert pasted["extra_nodes"] <= plain["extra_nodes"] + 10, res
    assert pasted["pairs"] <= 2 * plain["pairs"], res
    for attacker, rep in res["reports"].items():
        rows = {t["id"]: t for t in rep["targets"]}
        assert len(rows) == 108
        # the copies stand on ganger-3's spot: the same distance and cover as ganger-3
        for k in (0, 50, 99):
            copy = rows.get(f"ganger-3-copy{k}")
            if copy is not None and "ganger-3" in rows:
                assert copy["distance"] == pytest.approx(rows["ganger-3"]["distance"])
                assert copy["cover"] == rows["ganger-3"]["cover"]
    # sam (12, 20) to the stack at (31, 31.2): 21.96 m, centre to centre
    sam = {t["id"]: t for t in res["reports"]["sam"]["targets"]}
    assert sam["ganger-3-copy0"]["distance"] == pytest.approx(math.hypot(19.0, 11.2), abs=0.01)


def test_answers_after_many_drag_steps_are_those_of_a_fresh_tactics():
    # tokens dragged one or two at a time (the arrays and zone answers patched where the
    # tokens changed), then tokens added and removed (built again): every step's targets and
    # zone hits equal those of a Tactics made from that encounter alone
    import random

    rng = random.Random(4)
    zones = [{"id": "sup", "kind": "suppressive", "owner": "t0", "direction": 10, "length": 40, "width": 12},
             {"id": "blast", "kind": "blast", "x": 40, "y": 30, "radius": 12},
             {"id": "cone", "kind": "cone", "x": 70, "y": 20, "direction": 120, "length": 25, "angle": 60}]
    walls = [box(f"w{k}", 10 + 9 * k, 5 + 4 * k, 11 + 9 * k, 15 + 4 * k, 2.5 if k % 2 else 1.0) for k in range(8)]
    toks = [tok(f"t{k}", 5 + 11 * (k % 8), 22 + 13 * (k // 8), ["standing", "crouched", "prone"][k % 3])
            for k in range(24)]
    e = enc(toks, walls, zones)
    t = Tactics(e)
    for step in range(40):
        cur = list(e.tokens)
        if step in (20, 30):  # a token added, one removed: the whole arrays again
            cur = [cur[0]] + cur[2:] + [cur[1].model_copy(update={"id": f"new{step}"})]
        else:
            for i in rng.sample(range(len(cur)), rng.choice((1, 2))):
                p = cur[i]
                cur[i] = p.model_copy(update={"x": min(99.0, max(1.0, p.x + rng.uniform(-3, 3))),
                                              "y": min(59.0, max(1.0, p.y + rng.uniform(-3, 3)))})
        e = e.model_copy(update={"tokens": tuple(cur)})
        t.update(e)
        fresh = Tactics(e)
        attacker = cur[step % len(cur)].id
        assert t.targets(attacker) == fresh.targets(attacker)
        assert t.zone_hits() == fresh.zone_hits()
