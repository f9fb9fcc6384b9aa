"""geometry.nav: shortest paths, charge plans, shoves and grapple drags, checked against
numbers derived by hand (the derivations are in the comments).

Bodies grow obstacles by a polygon drawn *around* their circle (docs/movement.md), so a
path around a corner is never shorter than the exact rounded one and at most a few
centimetres longer: tests around corners assert  exact <= length <= exact + 0.05.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from geometry.errors import GeometryInputError, InsideObstacleError, InvalidInputError, OutsideMapError
from geometry.nav import (
    ChargeFrom,
    ChargePlan,
    DragResult,
    Navigator,
    PathResult,
    SlideResult,
    drag_path,
    plan_charge,
    plan_charges,
    slide,
)

BIG = (0.0, 0.0, 60.0, 40.0)


def same_points(a, b, tol=1e-6):
    """Two point sequences of the same length, equal within tol metres."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=0, atol=tol))


def tangent_arc(p, c, r):
    """Length of the tangent from point p to the circle (c, r), and the angle (degrees) between
    that tangent and the line from p to the centre: for the hand derivations below."""
    d = math.dist(p, c)
    return math.sqrt(d * d - r * r), math.degrees(math.asin(r / d))


def assert_clear(path, radius, polygons=(), discs=None, tol=2e-3):
    """Every point of the path keeps the body (radius) off every polygon and disc."""
    line = shapely.LineString(path) if len(path) > 1 else shapely.Point(path[0])
    for p in polygons:
        assert line.distance(p) >= radius - tol, (path, p)
    if discs is not None:
        for x, y, r in np.asarray(discs).reshape(-1, 3):
            assert line.distance(shapely.Point(x, y)) >= radius + r - tol, (path, (x, y, r))


def assert_valid_charge(plan, mover, r1, target, r2, reach=1.0, runup=4.0, polygons=(), discs=None):
    assert plan.possible and plan.reason is None
    assert plan.path[0] == pytest.approx(mover)
    assert plan.path[-1] == pytest.approx(plan.contact)
    assert plan.runup_start == pytest.approx(plan.path[-2])
    # contact: centres r1 + r2 + reach apart
    assert math.dist(plan.contact, target) == pytest.approx(r1 + r2 + reach, abs=1e-6)
    # the last leg runs straight at the target's centre for at least the run-up
    a, b = np.array(plan.path[-2]), np.array(plan.path[-1])
    assert np.linalg.norm(b - a) >= runup - 1e-6
    u = (b - a) / np.linalg.norm(b - a)
    w = (np.array(target) - b) / np.linalg.norm(np.array(target) - b)
    assert u @ w == pytest.approx(1.0, abs=1e-9)
    assert plan.movement == pytest.approx(sum(math.dist(p, q) for p, q in zip(plan.path, plan.path[1:])))
    assert_clear(plan.path, r1, polygons, discs)
    if discs is None:
        discs = np.zeros((0, 3))
    assert_clear(plan.path, r1, (), np.vstack([np.asarray(discs).reshape(-1, 3), [[*target, r2]]]))


# ----------------------------------------------------------------------------- shortest path


def test_open_ground_path_is_the_straight_line():
    nav = Navigator([], bounds=BIG)
    res = nav.shortest_path((3, 4), (15, 9), 0.4)
    # 12 east, 5 south: 13 m
    assert isinstance(res, PathResult)
    assert res.points == ((3.0, 4.0), (15.0, 9.0))
    assert res.length == pytest.approx(13.0)


def test_path_around_a_wall_end():
    # Wall x 10..10.5, y 0..10, touching the north map edge: the only way round is its south end.
    # Exact path for r = 0.4 from S (5,5) to G (15,5): tangent from S to the circle of radius 0.4
    # round corner (10,10): sqrt(50 - 0.16) = 7.05975, turning from 45 + asin(0.4/sqrt 50) =
    # 48.2430 deg to 0: arc 0.4 * 0.841994 = 0.33680; along the wall's end 0.5; round corner
    # (10.5,10) to G: G - C = (4.5, -5), d = 6.72681, tangent sqrt(45.25 - 0.16) = 6.71491,
    # arc 0.4 * radians(48.0128 + 3.4088) = 0.35899.  Total 14.97045 m.
    wall = shapely.box(10, 0, 10.5, 10)
    nav = Navigator([wall], bounds=BIG)
    res = nav.shortest_path((5, 5), (15, 5), 0.4)
    exact = 7.05975 + 0.33680 + 0.5 + 0.35899 + 6.71491
    assert exact - 1e-4 <= res.length <= exact + 0.05
    assert max(y for _, y in res.points) == pytest.approx(10.4, abs=1e-6)  # hugs the south end
    assert_clear(res.points, 0.4, [wall])


def test_path_around_another_body():
    # Disc r 0.4 at (10,10) in the way of a 0.4 body going (0,10) -> (20,10): grown radius 0.8.
    # Exact: two tangents sqrt(100 - 0.64) = 9.96795 and an arc 0.8 * 2 * asin(0.08) = 0.12818:
    # 20.06408 m.
    nav = Navigator([], bounds=BIG)
    disc = np.array([[10.0, 10.0, 0.4]])
    res = nav.shortest_path((0.5, 10), (19.5, 10), 0.4, discs=disc)
    exact = 2 * math.sqrt(9.5**2 - 0.64) + 0.8 * 2 * math.asin(0.8 / 9.5)
    assert exact - 1e-4 <= res.length <= exact + 0.03
    assert_clear(res.points, 0.4, discs=disc)


def test_path_through_a_doorway_only_when_the_body_fits():
    # A wall across the map (x 20..20.3) with a 1.0 m gap at y 10..11: a 0.4 body (0.8 wide)
    # passes straight through, a 0.6 body (1.2 wide) has no way at all.
    walls = [shapely.box(20, 0, 20.3, 10), shapely.box(20, 11, 20.3, 40)]
    nav = Navigator(walls, bounds=BIG)
    res = nav.shortest_path((10, 10.5), (30, 10.5), 0.4)
    assert res.points == ((10.0, 10.5), (30.0, 10.5))
    assert res.length == pytest.approx(20.0)
    assert nav.shortest_path((10, 10.5), (30, 10.5), 0.6) is None


def test_goal_in_a_closed_room_is_unreachable():
    room = shapely.box(20, 10, 30, 20).difference(shapely.box(20.2, 10.2, 29.8, 19.8))
    nav = Navigator([room], bounds=BIG)
    assert nav.shortest_path((5, 5), (25, 15), 0.4) is None
    assert nav.shortest_path((25, 15), (22, 12), 0.4).length == pytest.approx(math.hypot(3, 3))


def test_goal_where_the_body_does_not_fit_is_unreachable():
    wall = shapely.box(10, 0, 11, 40)
    nav = Navigator([wall], bounds=BIG)
    assert nav.shortest_path((5, 5), (9.8, 5), 0.4) is None  # 0.2 m from the wall, radius 0.4
    assert nav.shortest_path((5, 5), (59.9, 5), 0.4) is None  # 0.1 m from the map edge


def test_start_or_goal_inside_an_obstacle_is_an_error():
    nav = Navigator([shapely.box(10, 10, 12, 12)], bounds=BIG, ids=["car-1"])
    with pytest.raises(InsideObstacleError, match="start point .*car-1") as e:
        nav.shortest_path((11, 11), (20, 20), 0.4)
    assert isinstance(e.value, ValueError) and e.value.role == "start" and e.value.obstacle == "car-1"
    with pytest.raises(InsideObstacleError, match="goal"):
        nav.shortest_path((1, 1), (11.5, 10.5), 0.4)
    with pytest.raises(OutsideMapError, match="outside the map"):
        nav.shortest_path((1, 1), (70, 10), 0.4)


@pytest.mark.parametrize("bad", [
    dict(start_xy=(float("nan"), 1), goal_xy=(2, 2), radius=0.4),
    dict(start_xy=(1, 1), goal_xy=(2, 2), radius=0.0),
    dict(start_xy=(1, 1), goal_xy=(2, 2), radius=0.4, discs=np.ones((2, 2))),
    dict(start_xy=(1, 1), goal_xy="here", radius=0.4),
])
def test_bad_input_is_a_clear_error(bad):
    nav = Navigator([], bounds=BIG)
    with pytest.raises(InvalidInputError):
        nav.shortest_path(**bad)


def test_bad_obstacles_are_refused():
    bowtie = shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])
    with pytest.raises(GeometryInputError, match="obstacle #1"):
        Navigator([shapely.box(0, 0, 1, 1), bowtie])
    with pytest.raises(InvalidInputError, match="bounds"):
        Navigator([], bounds=(0, 0, -1, 5))


def test_a_body_placed_overlapping_a_wall_steps_out_first():
    # Centre 0.2 m from the wall face with radius 0.4: it first steps 0.2 m west to the
    # nearest free spot (x 9.6), then goes straight on.
    nav = Navigator([shapely.box(10, 0, 11, 40)], bounds=BIG)
    res = nav.shortest_path((9.8, 5), (5, 5), 0.4)
    assert same_points(res.points, ((9.8, 5), (5, 5)), tol=1e-3)
    assert res.length == pytest.approx(4.8)


def test_graph_is_cached_per_radius_to_the_centimetre():
    nav = Navigator([shapely.box(10, 10, 12, 12)], bounds=BIG)
    nav.shortest_path((1, 1), (20, 20), 0.4)
    g = nav.graph(0.4)
    assert nav.graph(0.404) is g and nav.graph(0.5) is not g


def test_concave_obstacle_inner_corner():
    # L-shaped block: box 10..20 x 10..20 minus 15..20 x 15..20. Going from (17.5, 25) to
    # (25, 17.5) the body rounds the reflex... the convex corner (20,15)? no: the straight line
    # from (17.5,25) to (25,17.5) passes x+y = 42.5 > 35 = corner (20,15)+... it is clear of the
    # grown block (distance from (20,15) to the line x + y = 42.5 is 7.5/sqrt2 = 5.3 m): straight.
    L = shapely.box(10, 10, 20, 20).difference(shapely.box(15, 15, 20, 20))
    nav = Navigator([L], bounds=BIG)
    res = nav.shortest_path((17.5, 25), (25, 17.5), 0.4)
    assert len(res.points) == 2
    # From inside the notch (17.5, 17.5) to (5, 17.5) the body must go round the block's
    # corner (15,20)... exact: up to y = 20.4 around (15,20): tangents from (17.5,17.5) to
    # circle (15,20) r .4 and from there to (5,17.5).
    res = nav.shortest_path((17.5, 17.5), (5, 17.5), 0.4)
    t1, _ = tangent_arc((17.5, 17.5), (15, 20), 0.4)
    t2, _ = tangent_arc((5, 17.5), (10, 20), 0.4)
    # turn at (15,20): from direction of the notch tangent to west; both corners (15,20) and
    # (10,20) are rounded; exact length = t1 + arc1 + 5 + arc2 + t2 with the arcs below.
    a1 = math.radians(45 + math.degrees(math.asin(0.4 / math.dist((17.5, 17.5), (15, 20)))))
    a2 = math.atan2(2.5, 5) + math.asin(0.4 / math.dist((5, 17.5), (10, 20)))
    exact = t1 + 0.4 * a1 + 5 + 0.4 * a2 + t2
    assert exact - 1e-4 <= res.length <= exact + 0.06
    assert_clear(res.points, 0.4, [L])


# ----------------------------------------------------------------------------- charge


def test_charge_in_open_ground_backs_off_for_the_runup():
    # The example: target 5 m away, r 0.4 each, reach 1: contact 1.8 m from the target,
    # a straight run of only 3.2 m; back off 0.8 m, then run 4 m: 4.8 m in all.
    nav = Navigator([], bounds=BIG)
    plan = plan_charge(nav, (3, 6), 0.4, (8, 6), 0.4)
    assert isinstance(plan, ChargePlan)
    assert plan.possible and plan.reason is None
    assert plan.movement == pytest.approx(4.8)
    assert same_points(plan.path, ((3, 6), (2.2, 6), (6.2, 6)))
    assert plan.runup_start == pytest.approx((2.2, 6))
    assert plan.contact == pytest.approx((6.2, 6))


def test_charge_from_far_enough_is_the_straight_line():
    # 10 m away on open ground: run straight 10 - 1.8 = 8.2 m; the run-up starts at the start.
    nav = Navigator([], bounds=BIG)
    plan = plan_charge(nav, (10, 10), 0.4, (10, 20), 0.4)
    assert same_points(plan.path, ((10, 10), (10, 18.2)))
    assert plan.movement == pytest.approx(8.2)
    assert plan.runup_start == pytest.approx((10, 10))


def test_charge_reach_and_runup_are_configurable():
    # reach 2, run-up 6, radii 0.5 and 0.3: contact 2.8 m; start 3 m away: back off 5.8 m.
    nav = Navigator([], bounds=BIG)
    plan = plan_charge(nav, (20, 20), 0.5, (23, 20), 0.3, reach=2.0, runup=6.0)
    assert plan.movement == pytest.approx(5.8 + 6.0)
    assert same_points(plan.path, ((20, 20), (14.2, 20), (20.2, 20)))


def test_charge_adjacent_target_backs_straight_off():
    # Already in contact (1.8 m apart): back off 4 m and run 4 m back: 8 m.
    nav = Navigator([], bounds=BIG)
    plan = plan_charge(nav, (20, 20), 0.4, (21.8, 20), 0.4)
    assert plan.movement == pytest.approx(8.0)
    assert same_points(plan.path, ((20, 20), (16, 20), (20, 20)))


def test_charge_around_a_wall():
    # Wall x 10..10.5, y 0..10 (touching the map's north edge) between mover (5,5) and target
    # (20,5). The last leg is the tangent from the corner circle (10.5,10), r .4, to the target:
    # |T - C| = sqrt(9.5^2 + 5^2) = 10.73546, tangent sqrt(115.25 - .16) = 10.72800, minus the
    # 1.8 m contact distance = 8.928 m >= 4, so the charge is the shortest path to the target
    # less 1.8 m: 7.05975 + 0.33680 (arc round (10,10)) + 0.5 + 0.4 * radians(27.7585 + 2.1353)
    # = 0.20870 + 10.72800 - 1.8 = 17.03325 m.
    wall = shapely.box(10, 0, 10.5, 10)
    nav = Navigator([wall], bounds=BIG)
    plan = plan_charge(nav, (5, 5), 0.4, (20, 5), 0.4)
    exact = 7.05975 + 0.33680 + 0.5 + 0.20870 + 10.72800 - 1.8
    assert exact - 1e-4 <= plan.movement <= exact + 0.05
    assert_valid_charge(plan, (5, 5), 0.4, (20, 5), 0.4, polygons=[wall])
    assert math.dist(plan.runup_start, plan.contact) > 8.8


def test_charge_runup_blocked_on_the_direct_line_goes_round():
    # A crate right in front of the target (x 15..16.5, y 4..6) blocks the straight run from the
    # west; the body must line up its 4 m run on a free bearing. Compare with a brute force over
    # 3600 bearings of "walk straight to the run-up start if clear": the planner is no worse.
    crate = shapely.box(15, 4, 16.5, 6)
    nav = Navigator([crate], bounds=BIG)
    S, T = (5.0, 5.0), (20.0, 5.0)
    plan = plan_charge(nav, S, 0.4, T, 0.4)
    assert_valid_charge(plan, S, 0.4, T, 0.4, polygons=[crate])
    best = math.inf
    for t in np.linspace(0, 2 * np.pi, 3600, endpoint=False):
        u = np.array([math.cos(t), math.sin(t)])
        q, c = np.array(T) + 5.8 * u, np.array(T) + 1.8 * u
        path = [S, tuple(q), tuple(c)]
        if shapely.LineString(path).distance(crate) >= 0.4 and \
                shapely.LineString(path).distance(shapely.Point(T)) >= 0.8:
            best = min(best, math.dist(S, q) + 4.0)
    assert plan.movement <= best + 0.05  # the octagon corner of the grown crate costs ~3 cm
    # the run along the blocked west bearing is impossible, so the charge is longer than 13.2 m
    assert plan.movement > 13.2 + 0.05


def test_charge_at_a_boxed_in_target_is_impossible():
    # Target in a closed 6 x 6 m room: no ray from it runs 5.8 m (1.8 contact + 4 run-up) before
    # hitting a wall (the far corner is 3 * sqrt 2 = 4.24 m away).
    room = shapely.box(17, 2, 23.4, 8.4).difference(shapely.box(17.2, 2.2, 23.2, 8.2))
    nav = Navigator([room], bounds=BIG)
    plan = plan_charge(nav, (5, 5), 0.4, (20.2, 5.2), 0.4)
    assert not plan.possible
    assert plan.path == () and plan.movement is None and plan.contact is None
    assert "no straight 4 m run-up" in plan.reason


def test_charge_into_a_corridor_narrower_than_the_mover_is_impossible():
    # Corridor 0.6 m wide (y 9.7..10.3) from x 10 to 30; the target (r 0.25) stands in its middle.
    # The mover (r 0.4, 0.8 m wide) cannot enter: every run-up bearing is blocked.
    walls = [shapely.box(10, 8, 30, 9.7), shapely.box(10, 10.3, 30, 12)]
    nav = Navigator(walls, bounds=BIG)
    plan = plan_charge(nav, (5, 10), 0.4, (20, 10), 0.25)
    assert not plan.possible and "run-up" in plan.reason
    # ... while a 1 m corridor lets it run straight in: 15 - (0.4 + 0.25 + 1) = 13.35 m.
    walls = [shapely.box(10, 8, 30, 9.5), shapely.box(10, 10.5, 30, 12)]
    nav = Navigator(walls, bounds=BIG)
    plan = plan_charge(nav, (5, 10), 0.4, (20, 10), 0.25)
    assert same_points(plan.path, ((5, 10), (18.35, 10)))
    assert plan.movement == pytest.approx(13.35)


def test_charge_at_an_unreachable_target():
    # Target in a closed room big enough for run-ups (20 x 20) but the mover is outside.
    room = shapely.box(30, 5, 51, 26).difference(shapely.box(30.5, 5.5, 50.5, 25.5))
    nav = Navigator([room], bounds=BIG)
    plan = plan_charge(nav, (5, 5), 0.4, (40, 15), 0.4)
    assert not plan.possible and "cannot be reached" in plan.reason


def test_charge_walks_around_other_bodies_and_the_target():
    # A body stands on the straight line 3 m in front of the mover; the target is 12 m away.
    nav = Navigator([], bounds=BIG)
    others = np.array([[13.0, 20.0, 0.4]])
    plan = plan_charge(nav, (10, 20), 0.4, (22, 20), 0.4, discs=others)
    assert_valid_charge(plan, (10, 20), 0.4, (22, 20), 0.4, discs=others)
    # lower bound: straight 12 - 1.8 = 10.2; the detour round a 0.8 m grown disc costs a little
    assert 10.2 < plan.movement < 10.6
    # a row equal to the mover or centred on the target is ignored
    again = plan_charge(nav, (10, 20), 0.4, (22, 20), 0.4,
                        discs=np.array([[10, 20, 0.4], [13.0, 20.0, 0.4], [22, 20, 0.4]]))
    assert again.movement == pytest.approx(plan.movement)


def test_charge_movement_cap():
    # Open ground, 30 m away: the charge needs 30 - 1.8 = 28.2 m. With 20 m of movement it is
    # refused as too far; with 30 m it is planned as usual. The run-up reason comes first.
    nav = Navigator([], bounds=BIG)
    far = plan_charge(nav, (10, 20), 0.4, (40, 20), 0.4, max_movement=20)
    assert not far.possible and "too far" in far.reason and "20 m" in far.reason
    ok = plan_charge(nav, (10, 20), 0.4, (40, 20), 0.4, max_movement=30)
    assert ok.possible and ok.movement == pytest.approx(28.2)
    assert plan_charge(nav, (10, 20), 0.4, (40, 20), 0.4, max_movement=28.2).possible
    room = shapely.box(17, 2, 23.4, 8.4).difference(shapely.box(17.2, 2.2, 23.2, 8.2))
    boxed = plan_charge(Navigator([room], bounds=BIG), (5, 5), 0.4, (20.2, 5.2), 0.4, max_movement=1)
    assert "run-up" in boxed.reason


def test_runup_bearings_blocked_by_a_body():
    # Target at (20, 20), radii 0.4, reach 1: contact circle c = 1.8, run-up starts on
    # Rr = 5.8. Another body (r 0.4) grown by the mover's 0.4: a disc of R = 0.8 (less TOUCH).
    # * centre 4 m east (between c and Rr): the run-up at bearing t passes it at 4 sin t, so
    #   bearings within asin(0.8 / 4) = 11.537 deg of east are blocked;
    # * centre 6.4 m east (beyond Rr): the run-up's far end (5.8 out) is the nearest point
    #   while t is small; it is 0.8 away when 5.8^2 + 6.4^2 - 2 * 5.8 * 6.4 cos t = 0.8^2,
    #   cos t = 73.96 / 74.24, t = 4.978 deg.
    from geometry.nav.charge import Runup
    from geometry.nav.search import Query

    nav = Navigator([], bounds=BIG)
    g = nav.graph(0.4)
    for dx, half in ((4.0, math.asin(0.8 / 4.0)), (6.4, math.acos(73.96 / 74.24))):
        q = Query(g, np.array([[20.0 + dx, 20.0, 0.8]]))
        run = Runup(q, (20.0, 20.0), 1.8, 4.0)
        assert len(run.free_lo) == 1
        assert run.free_lo[0] == pytest.approx(half, abs=1e-4)
        assert run.free_hi[0] == pytest.approx(2 * math.pi - half, abs=1e-4)
        assert not run.is_free(np.array([0.0, half - 1e-3])).any() and run.is_free(np.array([half + 1e-3])).all()


@pytest.mark.parametrize("cap", [None, 14.0])
def test_charges_sharing_a_tree_agree_with_single_plans_with_a_movement_cap(cap):
    # With a movement cap the shared tree and the single searches only look that far; their
    # answers must still agree with each other, and with the uncapped plan whenever that
    # needs no more than the cap (else "too far").
    import shapely.affinity  # noqa: F401

    polys, pts = random_scene(8)
    everyone = np.array([[x, y, 0.4] for x, y in pts])
    nav = Navigator(polys, bounds=(0, 0, 40, 40))
    batch = plan_charges(nav, pts[0], 0.4, everyone[1:], max_movement=cap)
    for j in range(1, len(pts)):
        others = np.delete(everyone, [0, j], 0)
        single = plan_charge(nav, pts[0], 0.4, pts[j], 0.4, discs=others, max_movement=cap, shared_tree=False)
        free = plan_charge(nav, pts[0], 0.4, pts[j], 0.4, discs=others, shared_tree=False)
        b = batch[j - 1]
        assert b.possible == single.possible and b.reason == single.reason
        if b.possible:
            assert b.movement == pytest.approx(single.movement, abs=1e-6)
            assert b.movement == pytest.approx(free.movement, abs=1e-6)
        elif free.possible:
            assert cap is not None and free.movement > cap and "too far" in b.reason


def test_charge_errors():
    nav = Navigator([shapely.box(10, 10, 12, 12)], bounds=BIG)
    with pytest.raises(InsideObstacleError, match="target"):
        plan_charge(nav, (1, 1), 0.4, (11, 11), 0.4)
    with pytest.raises(InvalidInputError, match="run-up"):
        plan_charge(nav, (1, 1), 0.4, (5, 5), 0.4, runup=-1)


def random_scene(seed, n=70, size=40.0):
    rng = np.random.default_rng(seed)
    polys = []
    for _ in range(n):
        cx, cy = rng.uniform(2, size - 2, 2)
        L, W = rng.uniform(0.5, 4), rng.uniform(0.3, 2)
        box = shapely.box(cx - L / 2, cy - W / 2, cx + L / 2, cy + W / 2)
        polys.append(shapely.affinity.rotate(box, rng.uniform(0, 180)))
    blocked = shapely.union_all(polys)
    free = []
    while len(free) < 12:
        p = rng.uniform(1, size - 1, 2)
        if blocked.distance(shapely.Point(p)) > 0.6 and all(math.dist(p, q) > 1.0 for q in free):
            free.append(tuple(p))
    return polys, free


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_scenes_give_valid_paths_and_charges(seed):
    import shapely.affinity  # noqa: F401

    polys, pts = random_scene(seed)
    nav = Navigator(polys, bounds=(0, 0, 40, 40))
    bodies = np.array([[x, y, 0.4] for x, y in pts[4:]])
    # The scenes are open (boxes of at most 4 x 2 m scattered over 40 x 40 m, every point at
    # least 0.6 m clear): every pair has a way and a charge, so a missing one is a bug.
    for a, b in [(0, 1), (1, 2), (2, 3), (3, 0)]:
        res = nav.shortest_path(pts[a], pts[b], 0.4, discs=bodies)
        assert res is not None, f"seed {seed}: no way from {pts[a]} to {pts[b]}"
        straight = math.dist(pts[a], pts[b])
        assert res.length >= straight - 1e-9
        if nav.segment_free(np.array(pts[a]), np.array(pts[b]), 0.4, bodies):
            assert res.length == pytest.approx(straight, abs=1e-6)  # nothing in the way: straight
        assert_clear(res.points, 0.4, polys, bodies)
        plan = plan_charge(nav, pts[a], 0.4, pts[b], 0.4, discs=bodies)
        assert plan.possible, f"seed {seed}: no charge from {pts[a]} at {pts[b]}: {plan.reason}"
        assert_valid_charge(plan, pts[a], 0.4, pts[b], 0.4, polygons=polys, discs=bodies)
        assert plan.movement >= max(0.0, abs(straight - 5.8)) + 4.0 - 1e-9


@pytest.mark.parametrize("seed", [4, 5])
def test_charge_is_never_worse_than_running_straight_to_any_free_runup(seed):
    # Brute force with the same geometry (Navigator.segment_free): for 720 bearings, walk
    # straight from the mover to the run-up start if that and the run-up are free. The planner
    # searches a superset of these paths, so it is never longer than the best of them.
    import shapely.affinity  # noqa: F401

    polys, pts = random_scene(seed)
    nav = Navigator(polys, bounds=(0, 0, 40, 40))
    bodies = np.array([[x, y, 0.4] for x, y in pts[6:]])
    for a, b in [(0, 1), (2, 3), (4, 5)]:
        S, T = np.array(pts[a]), np.array(pts[b])
        plan = plan_charge(nav, S, 0.4, T, 0.4, discs=bodies)
        everyone = np.vstack([bodies, [[*T, 0.4]]])
        best = math.inf
        for t in np.linspace(0, 2 * np.pi, 720, endpoint=False):
            u = np.array([math.cos(t), math.sin(t)])
            q, c = T + 5.8 * u, T + 1.8 * u
            cost = math.dist(S, q) + 4.0
            if cost < best and nav.segment_free(q, c, 0.4, everyone) and nav.segment_free(S, q, 0.4, everyone):
                best = cost
        if plan.possible:
            assert plan.movement <= best + 1e-6
        else:
            assert math.isinf(best)


def test_many_charges_by_one_mover_agree_with_single_plans():
    # The second charge by the same mover builds a shared shortest-path tree; its answers must
    # equal those of fresh single searches.
    import shapely.affinity  # noqa: F401

    polys, pts = random_scene(7)
    nav = Navigator(polys, bounds=(0, 0, 40, 40))
    everyone = np.array([[x, y, 0.4] for x, y in pts])
    shared = []
    for j in range(1, len(pts)):
        shared.append(plan_charge(nav, pts[0], 0.4, pts[j], 0.4, discs=np.delete(everyone, [0, j], 0)))
    assert nav.charge_trees  # the tree was built (after TREE_AFTER single searches)
    batch = plan_charges(Navigator(polys, bounds=(0, 0, 40, 40)), pts[0], 0.4, everyone[1:])
    for j in range(1, len(pts)):
        fresh = plan_charge(nav, pts[0], 0.4, pts[j], 0.4, discs=np.delete(everyone, [0, j], 0),
                            shared_tree=False)
        for other in (shared[j - 1], batch[j - 1]):
            assert fresh.possible == other.possible
            if fresh.possible:
                assert fresh.movement == pytest.approx(other.movement, abs=1e-6)
                assert same_points(fresh.path, other.path, tol=1e-6)


def test_length_limited_graph_stays_close_to_the_complete_one():
    # With a small pair budget each corner examines only ~50 candidates (edges are limited by
    # the local density of corners) and paths are pulled taut afterwards. Against the complete
    # graph: never shorter (both are valid paths and the complete one is optimal), within 3 %
    # on every query here and within 0.5 % on average.
    import shapely.affinity  # noqa: F401

    polys, pts = random_scene(11, n=90)
    full = Navigator(polys, bounds=(0, 0, 40, 40), pair_budget=10**7)
    n = full.graph_size(0.4)[0]
    cut = Navigator(polys, bounds=(0, 0, 40, 40), pair_budget=25 * n)
    assert math.isinf(full.graph_size(0.4)[2]) and not math.isinf(cut.graph_size(0.4)[2])
    assert cut.graph_size(0.4)[1] < full.graph_size(0.4)[1]
    ratios = []
    for a in range(len(pts)):
        for b in range(a + 1, len(pts)):
            f = full.shortest_path(pts[a], pts[b], 0.4)
            c = cut.shortest_path(pts[a], pts[b], 0.4)
            assert (f is None) == (c is None)
            if f is not None:
                assert c.length >= f.length - 1e-6
                ratios.append(c.length / f.length)
                assert_clear(c.points, 0.4, polys)
    assert max(ratios) <= 1.03 and np.mean(ratios) <= 1.005


# ----------------------------------------------------------------------------- shove


def test_shove_into_a_wall_stops_at_contact():
    # Wall face 1.5 m east of the centre, radius 0.4: the disc touches it after 1.1 m.
    wall = shapely.box(11.5, 0, 12, 40)
    nav = Navigator([wall], bounds=BIG, ids=["wall-1"])
    res = slide(nav, (10, 5), 0.4, 0, 3.0)
    assert isinstance(res, SlideResult)
    end, travelled, by = res
    assert travelled == pytest.approx(1.1)
    assert end == pytest.approx((11.1, 5))
    assert by == "wall-1" and res.stopped_kind == "obstacle" and res.stopped_index == 0


def test_shove_short_of_the_wall_goes_the_whole_way():
    res = slide([shapely.box(11.5, 0, 12, 40)], (10, 5), 0.4, 0, 1.0)
    assert res.travelled == pytest.approx(1.0) and res.stopped_by is None
    assert res.end == pytest.approx((11, 5))


def test_shove_south_and_at_an_angle():
    # 90 deg is south (y grows): wall face at y 8, centre y 5, r 0.5: 2.5 m.
    wall = shapely.box(0, 8, 40, 9)
    assert slide([wall], (5, 5), 0.5, 90, 10).travelled == pytest.approx(2.5)
    # 45 deg towards a wall face at x 10 from x 8, r 0.4: contact when x = 9.6, after
    # 1.6 / cos 45 = 2.2627 m.
    wall = shapely.box(10, 0, 11, 40)
    res = slide([wall], (8, 5), 0.4, 45, 10)
    assert res.travelled == pytest.approx(1.6 * math.sqrt(2))
    assert res.end == pytest.approx((9.6, 6.6))


def test_shove_grazes_a_corner():
    # Moving east along y 0, a box whose corner is at (5, 0.3): the disc (r 0.4) meets the
    # corner when (x - 5)^2 + 0.3^2 = 0.4^2, i.e. x = 5 - sqrt(0.07) = 4.73542.
    box = shapely.box(5, 0.3, 6, 2)
    res = slide([box], (0, 0), 0.4, 0, 10)
    assert res.travelled == pytest.approx(5 - math.sqrt(0.07))
    # 0.45 to the side it passes
    assert slide([shapely.box(5, 0.45, 6, 2)], (0, 0), 0.4, 0, 10).travelled == pytest.approx(10)


def test_shove_into_another_body_and_the_map_edge():
    nav = Navigator([], bounds=BIG)
    # body r .4 3 m ahead: contact after 3 - 0.8 = 2.2 m
    res = slide(nav, (10, 10), 0.4, 180, 5, discs=np.array([[7, 10, 0.4]]), disc_ids=["vex"])
    assert res.travelled == pytest.approx(2.2) and res.stopped_by == "vex" and res.stopped_kind == "body"
    assert res.end == pytest.approx((7.8, 10))
    # map edge: x 0, centre at 2, r 0.4: 1.6 m
    res = slide(nav, (2, 10), 0.4, 180, 5)
    assert res.travelled == pytest.approx(1.6) and res.stopped_by == "map edge"


def test_shove_away_from_a_wall_it_touches():
    wall = shapely.box(10, 0, 11, 40)
    res = slide([wall], (9.6, 5), 0.4, 180, 2)  # touching, pushed away: free
    assert res.travelled == pytest.approx(2)
    res = slide([wall], (9.7, 5), 0.4, 0, 2)  # already overlapping and pushed in: stuck
    assert res.travelled == 0.0 and res.stopped_by == "obstacle #0"


def test_shove_errors():
    with pytest.raises(InsideObstacleError):
        slide([shapely.box(0, 0, 2, 2)], (1, 1), 0.4, 0, 1)
    with pytest.raises(InvalidInputError, match="distance"):
        slide([], (1, 1), 0.4, 0, -1)


# ----------------------------------------------------------------------------- grapple


def test_drag_in_open_ground_moves_both_the_same_distance():
    # Mover at (10,10) with the grappled body 1 m behind it at (9,10); moved 4 m east toward
    # (20,10): mover ends at (14,10), the other follows the same track to (13,10).
    nav = Navigator([], bounds=BIG)
    res = drag_path(nav, (10, 10), 0.4, (9, 10), 0.4, (20, 10), max_distance=4.0)
    assert isinstance(res, DragResult)
    assert res.mover_end == pytest.approx((14, 10)) and res.other_end == pytest.approx((13, 10))
    assert res.length == pytest.approx(4.0)
    assert same_points(res.mover_path, ((10, 10), (14, 10)))


def test_drag_round_a_corner_trails_along_the_track():
    # Wall x 10..11, y 0..10; mover (8,5) drags a body at (7,5) to (14,5): the track rounds the
    # wall's south end; the other body ends on the track, 1 m (along it) behind the mover.
    wall = shapely.box(10, 0, 11, 10)
    nav = Navigator([wall], bounds=BIG)
    res = drag_path(nav, (8, 5), 0.4, (7, 5), 0.5, (14, 5))
    assert res.mover_end == pytest.approx((14, 5))
    assert_clear(res.mover_path, 0.5, [wall])  # planned for the larger radius
    assert_clear(res.other_path, 0.5, [wall])
    track = shapely.LineString(res.mover_path)
    assert track.distance(shapely.Point(res.other_end)) < 1e-6
    assert track.length - track.project(shapely.Point(res.other_end)) == pytest.approx(1.0)
    assert res.length == pytest.approx(track.length)


def test_drag_to_an_unreachable_goal():
    room = shapely.box(20, 10, 30, 20).difference(shapely.box(20.2, 10.2, 29.8, 19.8))
    nav = Navigator([room], bounds=BIG)
    assert drag_path(nav, (5, 5), 0.4, (4, 5), 0.4, (25, 15)) is None


# --------------------------------------------------------------------------- edits


def _edge_set(g):
    P, Q = np.round(g.N[g.ei], 6), np.round(g.N[g.ej], 6)
    return {tuple(sorted((tuple(p), tuple(q)))) for p, q in zip(P.tolist(), Q.tolist())}


def _crates(n=80, seed=5, size=60.0):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        x, y = rng.uniform(3, size - 3, 2)
        b = shapely.box(x - 0.8, y - 0.5, x + 0.8, y + 0.5)
        if not any(b.intersects(o) for o in out):
            out.append(b)
    return out


def test_an_edited_graph_is_worked_out_near_the_change_and_undo_gives_it_back():
    # a small budget makes this a dense graph (each corner's edges limited to its reach),
    # the kind big maps get and the kind that is edited rather than rebuilt
    polys = _crates()
    ids = [f"c{i}" for i in range(len(polys))]
    nav = Navigator(polys, (0, 0, 60, 60), ids=ids, pair_budget=3000)
    g0 = nav.graph(0.4)
    assert g0.max_edge < 0  # per-corner reach
    before = _edge_set(g0)
    moved = shapely.affinity.translate(nav.polygons[10], 1.5, 0.5)
    nav1 = nav.edited(["c10"], [moved], ["c10"])
    g1 = nav1.graph(0.4)
    assert nav1.graph_edits == 1 and g1 is not g0
    # nothing crosses the crate where it is now; where it was is open ground again
    grown = shapely.buffer(moved, 0.4 - 1e-3)
    segs = shapely.linestrings(np.stack([g1.N[g1.ei], g1.N[g1.ej]], axis=1))
    assert not shapely.intersects(segs, shapely.buffer(moved, 0.3)).any()
    assert shapely.intersects(segs, shapely.buffer(nav.polygons[10], 0.1)).any()
    assert grown.area > 0
    # the same paths as a navigator built from scratch (within the dense-graph tolerance)
    fresh = Navigator(nav1.polygons, (0, 0, 60, 60), ids=nav1.ids, pair_budget=3000)
    rng = np.random.default_rng(1)
    compared = 0
    for _ in range(40):
        a, b = rng.uniform(1, 59, 2), rng.uniform(1, 59, 2)
        try:
            p, q = nav1.shortest_path(a, b, 0.4), fresh.shortest_path(a, b, 0.4)
        except InsideObstacleError:
            continue
        assert (p is None) == (q is None)
        if p is not None:
            compared += 1
            assert p.length == pytest.approx(q.length, rel=0.03)
    assert compared > 20
    # undo (the old footprint back): exactly the graph of before
    nav2 = nav1.edited(["c10"], [nav.polygons[10]], ["c10"])
    assert _edge_set(nav2.graph(0.4)) == before and nav2.graph_edits == 1


def test_edits_add_and_remove_obstacles_and_small_graphs_are_rebuilt():
    polys = _crates()
    ids = [f"c{i}" for i in range(len(polys))]
    nav = Navigator(polys, (0, 0, 60, 60), ids=ids, pair_budget=3000)
    nav.prepare(0.4)
    wall = shapely.box(20, 29.8, 40, 30.2)
    # crates where the wall goes and at both ends of the walk are taken away
    gone = [ids[i] for i, p in enumerate(polys) if p.intersects(wall.buffer(1.0))
            or p.distance(shapely.Point(30, 25)) < 1.5 or p.distance(shapely.Point(30, 35)) < 1.5]
    nav1 = nav.edited(gone, [wall], ["wall"])
    assert nav1.ids[-1] == "wall" and len(nav1.polygons) == len(polys) - len(gone) + 1
    res = nav1.shortest_path((30, 25), (30, 35), 0.4)
    direct = Navigator(nav1.polygons, (0, 0, 60, 60), pair_budget=3000).shortest_path((30, 25), (30, 35), 0.4)
    assert res.length == pytest.approx(direct.length, rel=0.03) and res.length > 10.0
    assert nav1.graph_edits == 1
    # a complete graph (small scene, the default budget) is rebuilt, with the same answer
    small = Navigator(polys[:5], (0, 0, 60, 60), ids=ids[:5])
    small.prepare(0.4)
    s1 = small.edited(["c0"], [], [])
    assert s1.graph(0.4) is not None and s1.graph_edits == 0
    with pytest.raises(InvalidInputError):
        nav.edited([], [shapely.Polygon([(0, 0), (1, 1), (1, 0), (0, 1)])], ["bowtie"])


def test_charges_from_one_mover_context_are_the_single_plans_even_with_bodies_on_one_spot():
    # ChargeFrom.plan_at (the mover's side worked out once) against plan_charge one by one;
    # two bodies stacked on one spot (a file with a token pasted twice) and a twin of the
    # mover are among the rows: their charges take the slow key, the others the shared one
    polys, pts = random_scene(11)
    nav = Navigator(polys, bounds=(0, 0, 40, 40))
    rows = [[x, y, 0.4] for x, y in pts[1:]]
    rows.append(list(rows[2]))  # stacked on row 2
    rows.append([pts[0][0], pts[0][1], 0.4])  # the mover's twin
    bodies = np.array(rows)
    mover = ChargeFrom(nav, pts[0], 0.4, max_movement=30.0)
    compared = possible = 0
    for j in range(len(bodies)):
        try:
            fresh = plan_charge(Navigator(polys, bounds=(0, 0, 40, 40)), pts[0], 0.4, bodies[j, :2],
                                bodies[j, 2], np.delete(bodies, j, 0), max_movement=30.0, shared_tree=False)
        except GeometryInputError as exc:
            with pytest.raises(GeometryInputError, match=str(exc)[:20]):
                mover.plan_at(bodies, j, shared_tree=True)
            continue
        got = mover.plan_at(bodies, j, shared_tree=True)
        compared += 1
        possible += fresh.possible
        assert got.possible == fresh.possible and got.reason == fresh.reason
        if fresh.possible:
            assert got.movement == pytest.approx(fresh.movement, abs=1e-6)
            assert same_points(got.path, fresh.path, tol=1e-6)
    assert compared >= 8 and possible >= 3
    with pytest.raises(InvalidInputError):
        mover.plan_at(bodies, len(bodies))


def test_run_up_bearings_are_kept_over_an_edit_only_away_from_it():
    # a dense (edited, not rebuilt) graph; charges at a target next to crate c10 and at one
    # far from it; then c10 moves next to the first target's run-up: the graph keeps the
    # far target's blocked bearings, works the near one's out again, and both charges are
    # those of a navigator built from scratch
    polys = _crates()
    ids = [f"c{i}" for i in range(len(polys))]
    nav = Navigator(polys, (0, 0, 60, 60), ids=ids, pair_budget=3000)
    blocked = shapely.union_all(polys).buffer(0.5)
    grid = [(float(x), float(y)) for x in range(2, 59) for y in range(2, 59)]
    free = [p for p in grid if not blocked.contains(shapely.Point(p))]
    near_t = next(p for p in free if 1.5 < polys[10].distance(shapely.Point(p)) < 3)  # a run-up 5.8 m long
    far_t = next(p for p in free if math.dist(p, near_t) > 25)
    mover = next(p for p in free if 8 < math.dist(p, near_t) < 14)
    for t in (near_t, far_t):
        plan_charge(nav, mover, 0.4, t, 0.4)
    g0 = nav.graph(0.4)
    assert len(g0.runup_cache) == 2
    moved = shapely.affinity.translate(polys[10], 0.0, 1.0)
    nav1 = nav.edited(["c10"], [moved], ["c10"])
    g1 = nav1.graph(0.4)
    kept = [k[:2] for k in g1.runup_cache]
    assert kept == [far_t]
    fresh = Navigator(nav1.polygons, (0, 0, 60, 60), ids=nav1.ids, pair_budget=3000)
    for t in (near_t, far_t):
        a, b = plan_charge(nav1, mover, 0.4, t, 0.4), plan_charge(fresh, mover, 0.4, t, 0.4)
        assert a.possible == b.possible and a.reason == b.reason
        if a.possible:
            assert a.movement == pytest.approx(b.movement, rel=0.03)
    assert len(g1.runup_cache) == 2


def test_bodies_stacked_on_one_spot_block_as_one():
    # a wall, a body in the way at (15, 10); the same body pasted 100 times is the same
    # obstacle: the same path and charge as with one copy (and the work of one)
    nav = Navigator([shapely.box(10, 2, 11, 8)], bounds=(0, 0, 40, 20))
    one = np.array([[15.0, 10.0, 0.4]])
    many = np.repeat(one, 100, axis=0)
    p1, p100 = nav.shortest_path((5, 10), (25, 10), 0.4, one), nav.shortest_path((5, 10), (25, 10), 0.4, many)
    assert p1.length > 20.0 and p100.length == pytest.approx(p1.length, abs=1e-9)
    assert same_points(p1.points, p100.points, tol=1e-9)
    c1 = plan_charge(nav, (5, 10), 0.4, (25, 10), 0.4, one, shared_tree=False)
    c100 = plan_charge(nav, (5, 10), 0.4, (25, 10), 0.4, many, shared_tree=False)
    assert c1.possible and c100.movement == pytest.approx(c1.movement, abs=1e-9)


def test_the_edge_index_follows_edits_as_one_built_afresh():
    # a graph made by edits keeps its source's edge search trees (entries renumbered) and
    # adds a small one: the edges any disc comes near are those an index built afresh over
    # the edited graph finds
    from geometry.nav.graph import EdgeIndex

    polys = _crates()
    ids = [f"c{i}" for i in range(len(polys))]
    nav = Navigator(polys, (0, 0, 60, 60), ids=ids, pair_budget=3000)
    g = nav.graph(0.4)
    assert isinstance(g._edge_tree, EdgeIndex)  # built with the graph, not by the first charge
    rng = np.random.default_rng(3)
    discs = np.column_stack([rng.uniform(0, 60, (60, 2)), rng.uniform(0.5, 2.0, 60)])
    trees = []
    for step, k in enumerate((10, 11, 40, 10, 12)):
        moved = shapely.affinity.translate(nav.polygons[k], 1.0 + 0.2 * step, 0.5)
        nav = nav.edited([ids[k]], [moved], [ids[k]])
        ids = list(nav.ids)
        g = nav.graph(0.4)
        assert nav.graph_edits == 1
        trees.append(len(g._edge_tree.trees))
        kept = g.disc_blocking(discs)
        g._disc_cache.clear()
        kept_index, g._edge_tree = g._edge_tree, EdgeIndex.build(g.N, g.ei, g.ej)
        fresh = g.disc_blocking(discs)
        g._edge_tree = kept_index
        assert {e: sorted(v) for e, v in kept.items()} == {e: sorted(v) for e, v in fresh.items()}
        assert fresh  # (the discs do come near edges)
    assert trees == [2, 3, 4, 1, 2]  # (past MAX_TREES: built afresh)


def test_bodies_alone_are_those_no_other_body_sits_on():
    # (geometry.nav.charge._alone, checked against every pair compared)
    from geometry.nav.charge import _alone

    rng = np.random.default_rng(4)
    B = np.column_stack([rng.uniform(0, 50, (300, 2)).round(1), np.full(300, 0.4)])
    B[10, :2] = B[20, :2]  # a token pasted twice
    B[30, :2] = B[31, :2] + (5e-7, 0.0)  # within 1e-6 m
    B[40, :2] = (B[41, 0], B[41, 1] + 0.5)  # the same x, apart in y
    d = np.hypot(B[:, None, 0] - B[None, :, 0], B[:, None, 1] - B[None, :, 1])
    expected = (d < 1e-6).sum(axis=1) == 1
    assert not expected[[10, 20, 30, 31]].any() and expected[[40, 41]].all()
    assert (_alone(B) == expected).all()
    assert _alone(B[:1]).all() and len(_alone(B[:0])) == 0
