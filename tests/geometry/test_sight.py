"""Sight (geometry/sight.py): hand-derived answers, and agreement with cover.

Heights used throughout (geometry.bodies.STANCE_BODY): a standing body is 1.8 m tall with
its eyes at 1.6 m; a prone body is 0.4 m tall. The eye stands at the origin.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geometry.cover import CoverIndex, cover_class
from geometry.errors import InvalidInputError
from geometry.sight import hiding_factors, party_sight, sees, sight_area, sight_bounds

EYE = 1.6  # standing eyes
STAND = 1.8
PRONE = 0.4


def wall(h: float, x0: float = 5.0, x1: float = 5.3, y0: float = -10.0, y1: float = 10.0) -> CoverIndex:
    return CoverIndex([shapely.box(x0, y0, x1, y1)], [h])


def inside(area, x, y) -> bool:
    return bool(shapely.contains_xy(area, x, y))


# --- the checks -------------------------------------------------------------------
def test_a_1m_wall_at_5m_hides_a_prone_body_at_6m_but_not_a_standing_one():
    # Wall 1 m tall, 0.3 m thick, entered at 5 m, left at 5.3 m. The sight line from eyes at
    # 1.6 m to a point at 6 m at height z runs at 1.6 + (z - 1.6) * s / 6 over the wall's
    # far face s = 5.3 m: for the prone top (0.4 m) that is 1.6 - 1.2 * 5.3 / 6 = 0.54 m,
    # below the 1 m top: hidden. For the standing top (1.8 m) the line rises from the eye,
    # never lower than 1.6 m > 1 m: seen.
    idx = wall(1.0)
    seen = sees(idx, (0, 0), EYE, [(6, 0), (6, 0)], [0.4, 0.4], [PRONE, STAND])
    assert seen.tolist() == [False, True]
    # the area for a standing body: in sight right behind the wall and far beyond it
    area = sight_area(idx, (0, 0), EYE, body=STAND, vision=50)
    assert inside(area, 6, 0) and inside(area, 40, 0)
    # for a prone body: hidden from the wall out to k * 5.3 m, k = (1.6 - 0.4) / (1.6 - 1)
    # = 2, i.e. to 10.6 m along the centre line, seen again beyond
    low = sight_area(idx, (0, 0), EYE, body=PRONE, vision=50)
    assert not inside(low, 6, 0) and not inside(low, 10.5, 0)
    assert inside(low, 10.7, 0) and inside(low, 4.9, 0)


def test_a_3m_wall_hides_both_stances_and_its_whole_shadow():
    idx = wall(3.0)
    seen = sees(idx, (0, 0), EYE, [(6, 0), (6, 0), (40, 0)], 0.4, [PRONE, STAND, STAND])
    assert seen.tolist() == [False, False, False]
    area = sight_area(idx, (0, 0), EYE, vision=50)
    assert not inside(area, 6, 0) and not inside(area, 45, 0) and not inside(area, 30, 15)
    assert inside(area, 4.9, 0) and inside(area, 10, 25)  # in front; round the wall's end (slope 2.5 > 10 / 5)


def test_a_wall_between_eye_and_head_height_hides_from_twice_its_distance_on():
    # h = 1.7 m: a standing top at rho is hidden iff 1.6 + 0.2 * 5 / rho <= 1.7, i.e. rho >= 10 m
    idx = wall(1.7)
    area = sight_area(idx, (0, 0), EYE, vision=50)
    assert inside(area, 9.9, 0) and not inside(area, 10.1, 0)
    k, beyond = hiding_factors([1.0, 1.7, 1.8, 3.0], EYE, STAND)
    assert beyond.all()
    assert k[0] == math.inf and k[1] == pytest.approx(2.0) and k[2] == 1.0 and k[3] == 1.0
    # and sees() agrees on both sides of 10 m (a thin body, so the silhouette is ~a column)
    assert sees(idx, (0, 0), EYE, [(9.8, 0), (10.2, 0)], 0.01, STAND).tolist() == [True, False]


def test_sight_through_an_open_door_is_a_wedge_of_the_doors_width():
    # A 3 m wall at x 5..5.2 with a 1 m doorway at |y| < 0.5; the open door is not in the
    # index. Rays pass the doorway while |y| <= 0.5 at the wall's far face x = 5.2, so the
    # wedge's half-angle is atan(0.5 / 5.2); beyond the wall, within 20 m, its area is the
    # sector alpha * R^2 less the triangle from the eye to x = 5.2: 0.5 * 5.2 * 1.0 = 2.6.
    idx = CoverIndex([shapely.box(5, -10, 5.2, -0.5), shapely.box(5, 0.5, 5.2, 10)], [3.0, 3.0])
    R = 20.0
    area = sight_area(idx, (0, 0), EYE, vision=R)
    alpha = math.atan(0.5 / 5.2)
    behind = shapely.intersection(area, shapely.box(5.2, -8, 25, 8))
    assert behind.area == pytest.approx(alpha * R * R - 2.6, rel=2e-3)
    xy = shapely.get_coordinates(behind)
    assert np.abs(xy[:, 1] / xy[:, 0]).max() == pytest.approx(0.5 / 5.2, rel=1e-4)
    # closing the door (adding it as a wall) shuts the wedge
    shut = CoverIndex([shapely.box(5, -10, 5.2, -0.5), shapely.box(5, 0.5, 5.2, 10),
                       shapely.box(5, -0.5, 5.2, 0.5)], [3.0, 3.0, 2.5])
    closed = sight_area(shut, (0, 0), EYE, vision=R)
    assert shapely.intersection(closed, shapely.box(5.2, -8, 25, 8)).area < 1e-6


def test_a_window_lets_sight_through_above_its_sill():
    # a window of sill 1 m in a 3 m wall is cover of its sill height: a standing body seen
    # through it, a prone one not
    idx = CoverIndex([shapely.box(5, -10, 5.2, -1), shapely.box(5, 1, 5.2, 10),
                      shapely.box(5, -1, 5.2, 1)], [3.0, 3.0, 1.0])
    area = sight_area(idx, (0, 0), EYE, vision=30)
    assert inside(area, 8, 0) and not inside(area, 8, 3)
    assert sees(idx, (0, 0), EYE, [(8, 0), (8, 0)], 0.4, [STAND, PRONE]).tolist() == [True, False]


def test_open_ground_is_the_vision_disc_and_no_vision_is_nothing():
    idx = CoverIndex([], [])
    area = sight_area(idx, (3, 4), EYE, vision=10)
    assert area.area == pytest.approx(math.pi * 100, rel=1e-4)
    assert sight_area(idx, (3, 4), EYE, vision=0).is_empty
    two = party_sight(idx, [(0, 0), (30, 0)], EYE, vision=10)
    assert two.area == pytest.approx(2 * math.pi * 100, rel=1e-4)


@pytest.mark.parametrize("bad", [dict(eye_xy=(math.nan, 0)), dict(eye_z=-1.0), dict(body=0.0),
                                 dict(vision=math.inf), dict(vision=-2.0)])
def test_bad_input_is_refused_with_a_message(bad):
    args = dict(eye_xy=(0, 0), eye_z=EYE, body=STAND, vision=10.0) | bad
    with pytest.raises(InvalidInputError):
        sight_area(wall(1.0), **args)


# --- properties -------------------------------------------------------------------------------
boxes = st.tuples(st.floats(-25, 25), st.floats(-25, 25), st.floats(0.3, 6), st.floats(0.3, 6),
                  st.sampled_from([0.9, 1.2, 1.7, 2.5, 4.0]))


def _box(b):
    x, y, w, d, _ = b
    return shapely.box(x, y, x + w, y + d)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(boxes, max_size=8), boxes, st.sampled_from([0.3, 1.0, 1.6]))
def test_adding_an_obstacle_never_enlarges_what_is_in_sight(obs, extra, eye_z):
    eye = (0.0, 0.0)
    polys = [_box(b) for b in obs]
    if any(p.distance(shapely.Point(eye)) < 0.1 for p in polys + [_box(extra)]):
        return  # the eye stands on free ground
    before = sight_area(CoverIndex(polys, [b[4] for b in obs]), eye, eye_z, vision=30)
    after = sight_area(CoverIndex(polys + [_box(extra)], [b[4] for b in obs] + [extra[4]]), eye,
                       eye_z, vision=30)
    # (the vision circle is drawn with chords; more rays bulge it by < 1e-4 m^2)
    assert shapely.difference(after, before).area < 1e-3


@pytest.fixture(scope="module")
def bench_scene():
    from bench.scene import make_scene

    enc = make_scene(1)
    blk = [o for o in enc.obstacles if o.blocks]
    idx = CoverIndex([shapely.Polygon(o.polygon) for o in blk], [o.height for o in blk])
    return enc, idx


def test_a_sees_b_agrees_with_full_cover_for_every_pair_of_the_bench_scene(bench_scene):
    from geometry.bodies import body_height, eye_height

    enc, idx = bench_scene
    toks = enc.tokens
    full_count = 0
    for att in toks:  # 200 x 199 pairs
        others = [t for t in toks if t.id != att.id]
        xy = [(t.x, t.y) for t in others]
        r = [t.radius for t in others]
        h = [body_height(t.stance) for t in others]
        frac = idx.cover_fractions((att.x, att.y), eye_height(att.stance), xy, r, h)
        seen = sees(idx, (att.x, att.y), eye_height(att.stance), xy, r, h)
        full = np.array([cover_class(f) == "full" for f in frac])
        assert (seen == ~full).all()
        full_count += int(full.sum())
    assert full_count > 1000  # the scene holds plenty of hidden pairs, not just open ground


def test_the_area_agrees_with_sees_on_the_bench_scene(bench_scene):
    # An independent check of the two computations: a point well inside the area (5 cm from
    # its edge) is seen as a thin standing body (2 cm wide) by sees(); one well outside is
    # not. Points on or next to obstacle footprints are left out.
    enc, idx = bench_scene
    rng = np.random.default_rng(7)
    blocked = shapely.union_all(idx.polygons)
    checked = [0, 0]
    for t in enc.tokens[:6]:
        eye = (t.x, t.y)
        area = sight_area(idx, eye, EYE, vision=60)
        pts = np.array(eye) + rng.uniform(-60, 60, (300, 2))
        d_obs = shapely.distance(blocked, shapely.points(pts))
        edge = shapely.distance(area.boundary, shapely.points(pts))
        ok = (d_obs > 0.1) & (edge > 0.05) & (np.hypot(*(pts - eye).T) < 59)
        pts = pts[ok]
        inn = shapely.contains_xy(area, pts[:, 0], pts[:, 1])
        seen = sees(idx, eye, EYE, pts, 0.01, STAND)
        assert (seen == inn).all(), pts[seen != inn][:3]
        checked[0] += int(inn.sum())
        checked[1] += int((~inn).sum())
    assert min(checked) > 100


def test_thinning_the_outline_moves_it_by_well_under_a_millimetre(bench_scene, monkeypatch):
    import geometry.sight as S

    enc, idx = bench_scene
    t = enc.tokens[0]
    thin = S.sight_area(idx, (t.x, t.y), EYE, vision=60)

    def raw(ex, ey, rays, rho):
        return shapely.Polygon(np.column_stack((ex + rho * np.cos(rays), ey + rho * np.sin(rays))))

    monkeypatch.setattr(S, "_polygon", raw)
    full = S.sight_area(idx, (t.x, t.y), EYE, vision=60)
    assert shapely.get_num_coordinates(thin) < shapely.get_num_coordinates(full) / 2
    assert shapely.hausdorff_distance(thin, full) < 4 * S.SIMPLIFY
    assert thin.area == pytest.approx(full.area, abs=1e-2)


# --- light ---------------------------------------------------------------------------------
def test_a_light_of_radius_6m_in_darkness():
    from geometry.sight import lit_area, seen_in_light

    idx = CoverIndex([], [])
    sight = sight_area(idx, (0, 0), EYE, vision=50)
    lit = lit_area(idx, [(10, 0, 6.0), (30, 0, 0.0)])  # the second light is off
    seen = seen_in_light(sight, (0, 0), lit)
    assert seen.area == pytest.approx(math.pi * 36, rel=1e-3)  # the lit disc, 113.1 m^2
    assert not inside(seen, 1, 0) and inside(seen, 15.9, 0) and not inside(seen, 30, 0)
    # a 3 m wall 3 m past the light (x 13..13.2) shadows the disc beyond it: the cap of a
    # 6 m circle 3 m from its centre, 36 acos(1/2) - 3 sqrt(27) = 22.11 m^2, goes dark
    walled = CoverIndex([shapely.box(13, -10, 13.2, 10)], [3.0])
    seen = seen_in_light(sight_area(walled, (0, 0), EYE, vision=50), (0, 0), lit_area(walled, [(10, 0, 6)]))
    cap = 36 * math.acos(0.5) - 3 * math.sqrt(27)
    assert seen.area == pytest.approx(math.pi * 36 - cap, rel=1e-3)
    # its own vision in the dark (3 m, clear of the lit disc at 4..16 m) adds its disc
    own = seen_in_light(sight, (0, 0), lit, dark_range=3.0)
    assert own.area == pytest.approx(math.pi * 36 + math.pi * 9, rel=1e-3)
    # lit all over (daylight, or dim light for a low-light eye): all it has in sight
    assert seen_in_light(sight, (0, 0), None).area == pytest.approx(sight.area)


# --- issue 26 item 3: the outline cuts corners between rays; the outer bound does not -------
def v_of_walls(dist: float, length: float = 6.0, thick: float = 0.2, h: float = 3.0):
    """Two walls (``length`` x ``thick`` m, ``h`` m tall) crossing in an X whose near arms
    make a V opening towards the eye at the origin, the near faces meeting at the apex
    ``dist`` m away on bearing -0.25 deg: half-way between the even fan's rays at 0 and
    -0.5 deg (720 rays, 0.5 deg apart), so no ray runs along the V's axis. Returns the
    index, the apex and the unit vector towards it."""
    b = math.radians(-0.25)
    ux, uy = math.cos(b), math.sin(b)
    apex = np.array([dist * ux, dist * uy])
    polys = []
    for s in (1, -1):
        a = b + s * math.radians(45)
        d = np.array([math.cos(a), math.sin(a)])
        n = np.array([-d[1], d[0]])
        if n @ (ux, uy) < 0:
            n = -n  # the wall's thickness lies away from the eye: the near face runs through the apex
        c = apex + n * thick / 2
        L, T = length / 2, thick / 2
        polys.append(shapely.Polygon([c + d * L + n * T, c - d * L + n * T, c - d * L - n * T, c + d * L - n * T]))
    return CoverIndex(polys, [h, h]), apex, np.array([ux, uy])


@pytest.mark.parametrize("dist, inside_m, radius", [(250.0, 0.6, 0.4), (60.0, 0.15, 0.05)])
def test_a_body_in_a_v_of_walls_is_seen_and_the_outer_bound_holds_it(dist, inside_m, radius):
    # The fan rays either side of the apex run 0.25 deg off the V's axis, dist * tan(0.25 deg)
    # sideways at the V (250 m: 1.091 m; 60 m: 0.262 m). The near faces run at 45 deg to the
    # axis, so those rays meet them that far *before* the apex along the axis, and the
    # area's outline joins the two ray ends by a chord 1.091 m (0.262 m) short of the apex.
    # The body stands inside_m before the apex on the axis: the faces are inside_m * sin 45
    # = 0.424 m (0.106 m) from its centre, more than its radius 0.4 m (5 cm): it is not
    # touched, and the sight lines (from 250 m, all but parallel to the axis) pass the V's
    # throat, which is inside_m wide either side at the body, wider than the body: 0 %
    # cover, seen. Its disc lies wholly beyond the chord (its nearest point is
    # inside_m + radius = 1.0 m (0.2 m) before the apex, less than the chord's 1.091 m
    # (0.262 m)): outside the area, inside the outer bound.
    idx, apex, u = v_of_walls(dist)
    body = apex - u * inside_m
    assert idx.cover_fractions((0, 0), EYE, [body], [radius], [STAND])[0] == pytest.approx(0.0, abs=1e-9)
    assert sees(idx, (0, 0), EYE, [body], [radius], [STAND])[0]
    inner, outer = sight_bounds(idx, (0, 0), EYE, vision=dist + 50)
    chord = dist * math.tan(math.radians(0.25))
    assert shapely.distance(inner, shapely.Point(*body)) > radius  # the corner cut off (the old "not seen")
    assert not inside(inner, *(apex - u * (chord - 0.05)))
    assert inside(inner, *(apex - u * (chord + 0.05)))
    assert inside(outer, *body) and inside(outer, *(apex - u * 0.01))  # in sight to the apex
    assert not inside(outer, *(apex + u * 0.01))  # and no further: the walls meet there
    assert inner.within(outer.buffer(1e-3))  # (the area is thinned by up to 4 * SIMPLIFY)


def test_the_outer_bound_holds_all_in_sight_on_the_bench_scene(bench_scene):
    # Every point a thin standing body (2 cm) would be seen at lies in the outer bound (to
    # its slack: 4 * SIMPLIFY plus 2 * VERTEX_EPS * the distance), and it adds little: the
    # corners cut off between rays.
    import geometry.sight as S

    enc, idx = bench_scene
    rng = np.random.default_rng(11)
    checked = 0
    for t in enc.tokens[:8]:
        eye = (t.x, t.y)
        inner, outer = sight_bounds(idx, eye, EYE, vision=80)
        pts = np.array(eye) + rng.uniform(-80, 80, (400, 2))
        pts = pts[np.hypot(*(pts - eye).T) < 79]  # (sees() knows no vision range)
        seen = sees(idx, eye, EYE, pts, 0.01, STAND)
        slack = 0.01 + 4 * S.SIMPLIFY + 2 * S.VERTEX_EPS * 80
        assert shapely.dwithin(outer, shapely.points(pts[seen]), slack).all()
        assert outer.area - inner.area < 0.01 * inner.area
        checked += int(seen.sum())
    assert checked > 500


# --- issue 26 item 7: the passes leave out only obstacles that cut no ray -------------------
def _all_at_once(idx, eye, rays, k_obs, R):
    """Each ray of ``rays`` cut by every obstacle's (scaled) edges: the passes' reference."""
    import geometry.sight as S

    vx, vy = idx.vx - eye[0], idx.vy - eye[1]
    rho = np.full(rays.size, R)
    S._cut(rays, rho, S._edges(vx, vy, idx, np.nonzero(np.isfinite(k_obs))[0], k_obs))
    return rho


@pytest.mark.parametrize("eye_z, body", [(EYE, STAND), (0.3, PRONE)])
def test_the_passes_cut_every_ray_as_all_the_obstacles_do(bench_scene, eye_z, body):
    # The passes (the nearest obstacles first, then batches behind the bounding circles'
    # test) cast only about a hundred of the 2,000 obstacles (the first five tokens of the
    # bench scene: 45-73 after the first 64, 0-144 more left out after passing the first
    # test); every ray they return is cut where all the obstacles together cut it, to the
    # last bit (each ray's nearest edge is one they cast), and no ray is left uncut (the
    # map is walled in by the scene's clutter).
    import geometry.sight as S

    enc, idx = bench_scene
    R = math.hypot(enc.map.width, enc.map.height)
    k, beyond = hiding_factors(idx.heights, eye_z, body)
    k_obs = np.where(beyond, k, np.inf)
    for t in enc.tokens[:5]:
        rays, rho, _ = S._star(idx, t.x, t.y, R, k_obs)
        assert np.array_equal(rho, _all_at_once(idx, (t.x, t.y), rays, k_obs, R))
        assert rays.size > S.ARC_RAYS and (rho < R).mean() > 0.5


def test_the_bands_left_out_change_nothing(bench_scene):
    # Standing eyes (1.6 m) and a prone body (0.4 m): every obstacle under 1.6 m hides a band
    # behind it. Only those that reach the area are cut out of it; cutting out the bands of
    # all of them within the vision range gives the same area (to float noise in the
    # union's noding).
    import geometry.sight as S

    enc, idx = bench_scene
    t = enc.tokens[4]
    got = sight_area(idx, (t.x, t.y), EYE, PRONE, vision=60)
    k, beyond = hiding_factors(idx.heights, EYE, PRONE)
    star = S._polygon(t.x, t.y, *S._star(idx, t.x, t.y, 60.0, np.where(beyond, k, np.inf))[:2])
    every = S._bands(idx, t.x, t.y, 60.0, k, ~beyond & (k > 1.0) & (idx._view(t.x, t.y).dmin < 60.0))
    want = shapely.difference(star, every)
    assert got.area > 100
    assert shapely.symmetric_difference(got, want).area < 1e-9
