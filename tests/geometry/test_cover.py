"""Cover fractions against numbers derived by hand and against the shadow-union reference.

Conventions: eye at the origin looking east (+x) unless said; +u (the shooter's right) is
south, i.e. +y, because y grows south.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geometry.cover import (
    COVER_CLASSES,
    GOOD_COVER_ABOVE,
    PARTIAL_COVER_FROM,
    CoverIndex,
    cover_class,
)
from geometry.cover_reference import reference_cover
from geometry.errors import InvalidInputError


def one(index, eye=(0.0, 0.0), e=1.6, target=(20.0, 0.0), r=0.4, h=1.8):
    return float(index.cover_fractions(eye, e, [target], [r], [h])[0])


def wall(x0, x1, h, y0=-5.0, y1=5.0):
    return CoverIndex([shapely.box(x0, y0, x1, y1)], [h])


# --- the example and its relatives -----------------------------------------------------

def test_low_wall_just_in_front_hides_to_0975_m_good_cover():
    # The ray leaves the 1 m wall (h < e) at b = 19.2 of D = 20:
    # hidden up to e + (h - e) * D / b = 1.6 - 0.6 * 20 / 19.2 = 0.975 m, for every column
    # (off-centre columns scale L and b alike). 0.975 / 1.8 = 0.541666... -> good.
    idx = wall(19.0, 19.2, 1.0)
    u = np.linspace(-0.4, 0.4, 9)
    assert idx.hidden_heights((0, 0), 1.6, (20, 0), 0.4, u) == pytest.approx(np.full(9, 0.975))
    f = one(idx)
    assert f == pytest.approx(0.975 / 1.8, abs=1e-9)
    assert cover_class(f) == "good"


def test_prone_target_behind_that_wall_is_fully_hidden():
    # same wall, prone body 0.4 m tall: 0.975 >= 0.4 -> all hidden
    idx = wall(19.0, 19.2, 1.0)
    assert one(idx, h=0.4) == pytest.approx(1.0)
    assert cover_class(one(idx, h=0.4)) == "full"


def test_wall_taller_than_the_eye_uses_the_entry_face():
    # h = 1.65 > e = 1.6, ray enters at a = 10: hidden up to 1.6 + 0.05 * 20 / 10 = 1.7 m
    idx = wall(10.0, 10.2, 1.65)
    assert idx.hidden_heights((0, 0), 1.6, (20, 0), 0.4, [0.0])[0] == pytest.approx(1.7)
    assert one(idx) == pytest.approx(1.7 / 1.8)
    # a 2 m wall there: 1.6 + 0.4 * 2 = 2.4 m > 1.8 -> full cover
    assert one(wall(10.0, 10.2, 2.0)) == pytest.approx(1.0)


def test_low_obstacle_near_the_eye_hides_nothing():
    # h = 0.5 leaves at b = 2.2: 1.6 - 1.1 * 20 / 2.2 = -8.4 -> nothing hidden
    assert one(wall(2.0, 2.2, 0.5)) == 0.0


def test_obstacles_beyond_the_target_or_behind_the_eye_do_not_count():
    assert one(wall(21.0, 21.2, 10.0)) == 0.0
    assert one(wall(-5.2, -5.0, 10.0)) == 0.0
    # a tall wall right behind the target (its silhouette line at x = 20 stays clear of it)
    assert one(wall(20.5, 20.7, 10.0)) == 0.0


def test_target_standing_inside_a_low_footprint_is_hidden_to_its_height():
    # hedge x 19.5..20.5 around the target: every column ends inside the prism, so the
    # last exit is the silhouette itself (lam = 1): hidden up to h = 1.0 m -> 1 / 1.8
    idx = wall(19.5, 20.5, 1.0)
    assert idx.hidden_heights((0, 0), 1.6, (20, 0), 0.4, [-0.3, 0.0, 0.3]) == pytest.approx([1.0] * 3)
    assert one(idx) == pytest.approx(1.0 / 1.8)


def test_half_covered_by_a_pillar_on_the_right_is_partial_and_on_the_right():
    # pillar x 10..10.2, y 0..5 (south of the sight line = the shooter's right): it covers
    # u in [0, +0.4] on the silhouette at 20 m, hidden to 1.6 + 1.4 * 20 / 10 = 4.4 m > 1.8
    idx = CoverIndex([shapely.box(10.0, 0.0, 10.2, 5.0)], [3.0])
    hh = idx.hidden_heights((0, 0), 1.6, (20, 0), 0.4, [-0.2, 0.2])
    assert hh[0] == 0.0
    assert hh[1] == pytest.approx(4.4)
    f = one(idx)
    assert f == pytest.approx(0.5, abs=1e-9)
    assert cover_class(f) == "partial"


def test_edge_of_a_pillar_inside_the_silhouette_is_integrated_exactly():
    # pillar x 10..10.2, y 0.1..5, 3 m tall. Its outermost corner seen from the eye is the
    # back one, (10.2, 0.1), which projects to u = 20 * 0.1 / 10.2 = 0.196078 on the
    # silhouette; every column beyond is hidden above 1.8 m (the lowest entry, on the side
    # face at a <= 10.2: 1.6 + 1.4 * 20 / 10.2 = 4.35 m). Hidden share (0.4 - 0.196078) / 0.8
    # = 0.254902, exact whatever the column count (the corner is a column boundary).
    idx = CoverIndex([shapely.box(10.0, 0.1, 10.2, 5.0)], [3.0])
    assert one(idx) == pytest.approx((0.4 - 20 * 0.1 / 10.2) / 0.8, abs=1e-9)


def test_heights_of_eye_and_obstacle_equal_hide_up_to_the_eye():
    # h == e: the segment to a point below e dips under h over the wall -> hidden to e
    idx = wall(10.0, 10.2, 1.6)
    assert one(idx) == pytest.approx(1.6 / 1.8)


def test_diagonal_sight_line_same_answer_as_axis_aligned():
    # rotate the example by 30 degrees about the eye
    a = math.radians(30)
    rot = shapely.affinity.rotate(shapely.box(19.0, -5, 19.2, 5), 30, origin=(0, 0))
    idx = CoverIndex([rot], [1.0])
    f = one(idx, target=(20 * math.cos(a), 20 * math.sin(a)))
    assert f == pytest.approx(0.975 / 1.8, abs=1e-9)


def test_eye_height_and_body_height_enter_as_given():
    idx = wall(19.0, 19.2, 1.0)
    # crouched shooter (eye 1.0 = h): hidden up to 1.0 for any target -> crouched target 1.2 m
    assert one(idx, e=1.0, h=1.2) == pytest.approx(1.0 / 1.2)


def test_many_targets_at_once_equal_one_by_one():
    rng = np.random.default_rng(3)
    polys = [shapely.box(x, y, x + w, y + d) for x, y, w, d in rng.uniform([0, 0, 0.3, 0.3], [40, 40, 4, 4], (60, 4))]
    idx = CoverIndex(polys, rng.choice([0.9, 1.4, 2.5, 6.0], 60))
    pts = rng.uniform(0, 40, (50, 2))
    pts = pts[~shapely.contains_xy(shapely.union_all(polys), pts[:, 0], pts[:, 1])]
    r = np.full(len(pts), 0.4)
    h = np.full(len(pts), 1.8)
    eye = (20.5, 20.5)
    together = idx.cover_fractions(eye, 1.6, pts, r, h)
    alone = [idx.cover_fractions(eye, 1.6, pts[i:i + 1], r[:1], h[:1])[0] for i in range(len(pts))]
    assert together == pytest.approx(alone, abs=1e-12)


def test_no_obstacles_no_cover_and_target_on_the_eye_is_zero():
    idx = CoverIndex([], [])
    assert idx.cover_fractions((0, 0), 1.6, [(5, 5), (0, 0)], [0.4, 0.4], [1.8, 1.8]).tolist() == [0.0, 0.0]
    assert one(wall(-1, 1, 5.0), target=(0.0, 0.0)) == 0.0


def test_open_doors_are_the_callers_business_only_blockers_are_indexed():
    # the index hides by what it is given: a closed 3 m door at x 10..10.2 across the sight
    # line hides the whole body (rays enter at 10 m: 1.6 + 1.4 * 20 / 10 = 4.4 m > 1.8 m);
    # the caller leaves an open door out, and then nothing hides it
    door = shapely.box(10.0, -1.0, 10.2, 1.0)
    assert one(CoverIndex([door], [3.0])) == pytest.approx(1.0)
    assert one(CoverIndex([], [])) == 0.0


def test_bad_input_is_a_clear_error():
    idx = wall(19.0, 19.2, 1.0)
    with pytest.raises(InvalidInputError, match="eye position"):
        idx.cover_fractions((math.nan, 0), 1.6, [(20, 0)], [0.4], [1.8])
    with pytest.raises(InvalidInputError, match="radii"):
        idx.cover_fractions((0, 0), 1.6, [(20, 0)], [0.0], [1.8])
    with pytest.raises(InvalidInputError, match="heights"):
        CoverIndex([shapely.box(0, 0, 1, 1)], [-1.0])
    with pytest.raises(InvalidInputError, match="1 polygons but 2 heights"):
        CoverIndex([shapely.box(0, 0, 1, 1)], [1.0, 2.0])


# --- classes ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("fraction,cls", [
    (0.0, "none"), (0.2499, "none"), (0.25, "partial"), (0.5, "partial"),
    (0.5001, "good"), (0.999, "good"), (1.0, "full"),
])
def test_cover_class_thresholds(fraction, cls):
    assert cover_class(fraction) == cls


def test_thresholds_live_in_one_place():
    assert (PARTIAL_COVER_FROM, GOOD_COVER_ABOVE) == (0.25, 0.50)
    assert [c for c, _ in COVER_CLASSES] == ["none", "partial", "good", "full"]


# --- against the exact shadow-union reference -----------------------------------------------------

def _scene(seed, n=80, size=30.0):
    rng = np.random.default_rng(seed)
    polys, hs = [], []
    for i in range(n):
        cx, cy = rng.uniform(0, size, 2)
        w, d = rng.uniform(0.2, 3.5, 2)
        p = shapely.affinity.rotate(shapely.box(cx - w / 2, cy - d / 2, cx + w / 2, cy + d / 2),
                                    rng.uniform(0, 180))
        if i % 8 == 0:  # non-convex: an L
            p = shapely.Polygon([(cx, cy), (cx + 4, cy), (cx + 4, cy + 1), (cx + 1, cy + 1),
                                 (cx + 1, cy + 4), (cx, cy + 4)])
        polys.append(p)
        hs.append(float(rng.choice([0.5, 0.9, 1.0, 1.4, 2.2, 3.0, 8.0])))
    return rng, polys, hs


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_agrees_with_shadow_union_reference_within_2_points(seed):
    rng, polys, hs = _scene(seed)
    idx = CoverIndex(polys, hs)
    blocked = shapely.union_all(polys)
    worst = 0.0
    checked = 0
    for _ in range(6):
        while True:
            eye = rng.uniform(0, 30, 2)
            if blocked.distance(shapely.Point(eye)) > 0.3:
                break
        pts = rng.uniform(0, 30, (25, 2))
        pts = pts[~shapely.contains_xy(blocked, pts[:, 0], pts[:, 1])]
        e = float(rng.choice([1.6, 1.0, 0.3]))
        r = float(rng.choice([0.4, 0.5, 1.0]))
        h = float(rng.choice([1.8, 1.2, 0.4]))
        fast = idx.cover_fractions(eye, e, pts, np.full(len(pts), r), np.full(len(pts), h))
        ref = np.array([reference_cover(idx, eye, e, p, r, h) for p in pts])
        worst = max(worst, float(np.abs(fast - ref).max()))
        checked += int(((ref > 0.01) & (ref < 0.99)).sum())
    assert checked > 10  # the scenes do produce partial cover to compare
    assert worst <= 0.02
    assert worst <= 0.002  # in practice far tighter (measured ~4e-5)


# --- invariants --------------------------------------------------------------------------------------

boxes = st.tuples(
    st.floats(-20, 20), st.floats(-20, 20), st.floats(0.2, 6), st.floats(0.2, 6),
    st.floats(0, 170), st.sampled_from([0.5, 1.0, 1.5, 2.0, 4.0]),
)


def _poly(b):
    x, y, w, d, a, _ = b
    return shapely.affinity.rotate(shapely.box(x, y, x + w, y + d), a)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(boxes, min_size=0, max_size=8), boxes,
       st.lists(st.tuples(st.floats(-25, 25), st.floats(-25, 25)), min_size=1, max_size=6),
       st.sampled_from([0.3, 1.0, 1.6]))
def test_fraction_in_unit_interval_and_more_obstacles_never_less_cover(obs, extra, targets, e):
    eye = (0.3, -0.7)
    polys = [_poly(b) for b in obs]
    if any(p.distance(shapely.Point(eye)) < 1e-6 for p in polys + [_poly(extra)]):
        return  # the eye inside an obstacle is another question
    pts = np.array(targets)
    r = np.full(len(pts), 0.4)
    h = np.full(len(pts), 1.8)
    before = CoverIndex(polys, [b[5] for b in obs]).cover_fractions(eye, e, pts, r, h)
    after = CoverIndex(polys + [_poly(extra)], [b[5] for b in obs] + [extra[5]]).cover_fractions(
        eye, e, pts, r, h)
    assert np.all((before >= 0) & (before <= 1))
    assert np.all((after >= 0) & (after <= 1))
    assert np.all(after >= before - 1e-9)


def test_cover_percent_rounds_down_and_only_full_cover_reads_100():
    from geometry.cover import cover_percent

    assert cover_percent(0.0) == 0
    assert cover_percent(0.29) == 29  # 0.29 * 100 is 28.999...: not 28
    assert cover_percent(0.526) == 52 and cover_percent(0.25) == 25
    assert cover_percent(0.996) == 99  # good cover never reads 100 %
    assert cover_percent(1.0) == 100
    assert cover_percent(1.0, "good") == 99  # a report's fraction rounded up to 1.0
    assert cover_percent(0.9999, "full") == 100


def test_edited_index_answers_as_one_built_from_scratch():
    # a 1 m wall 19-19.2 m in front of the eye (good cover, 54 %: the example), a
    # pillar off to the side; then the wall is moved behind the target and a box added
    wall = shapely.box(19.0, -2.0, 19.2, 2.0)
    pillar = shapely.box(10.0, 5.0, 11.0, 6.0)
    idx = CoverIndex([wall, pillar], [1.0, 4.0], ["wall", "pillar"])
    f = idx.cover_fractions((0, 0), 1.6, [(20, 0)], [0.4], [1.8])
    assert f[0] == pytest.approx((1.6 - 0.6 * 20 / 19.2) / 1.8)
    behind = shapely.box(21.0, -2.0, 21.2, 2.0)
    crate = shapely.box(15.0, 6.0, 16.0, 7.0)
    ed = idx.edited(["wall"], [behind, crate], [1.0, 1.0], ["wall", "crate"])
    assert ed.cover_fractions((0, 0), 1.6, [(20, 0)], [0.4], [1.8])[0] == 0.0
    assert sorted(ed.source.tolist()) == ["crate", "pillar", "wall"]
    fresh = CoverIndex([pillar, behind, crate], [4.0, 1.0, 1.0])
    eyes = [(0, 0), (12, 12), (30, -3)]
    pts = np.array([(20, 0), (15.5, 8), (10.5, 7), (22, 1), (5, 5)], dtype=float)
    for eye in eyes:
        a = ed.cover_fractions(eye, 1.6, pts, np.full(5, 0.4), np.full(5, 1.8))
        b = fresh.cover_fractions(eye, 1.6, pts, np.full(5, 0.4), np.full(5, 1.8))
        assert np.array_equal(a, b)
    assert idx.cover_fractions((0, 0), 1.6, [(20, 0)], [0.4], [1.8])[0] == f[0]  # unchanged
    with pytest.raises(InvalidInputError):
        idx.edited([], [shapely.Polygon([(0, 0), (1, 1), (1, 0), (0, 1)])], [1.0], ["bowtie"])


# --- walled targets: wholly hidden by obstacles taller than them, found without columns ----------

def test_target_behind_a_wall_taller_than_it_and_the_eye_is_all_hidden():
    # 2.5 m wall at 10-10.3 m: every ray to the silhouette enters it at lam ~ 1/2, hidden up to
    # 1.6 + 0.9 * 20 / 10 = 3.4 m > 1.8 m: all of the body (the walled shortcut), while the
    # hidden heights (no body involved) are still the exact ones
    idx = wall(10.0, 10.3, 2.5)
    assert one(idx) == 1.0
    assert idx.hidden_heights((0, 0), 1.6, (20, 0), 0.4, [0.0])[0] == pytest.approx(3.4)
    # a wall taller than the eye but lower than where it must reach: 1.65 m hides to 1.7 m
    # of a 1.8 m body (the columns are measured): 1.7 / 1.8
    assert one(wall(10.0, 10.3, 1.65)) == pytest.approx(1.7 / 1.8)
    # taller than the body but not than the eye (a prone eye 0.3 m up, a 1.2 m tall...): the
    # 1.0 m wall hides a prone target (0.4 m) behind it, measured the ordinary way
    assert one(wall(19.0, 19.2, 1.0), e=1.6, h=0.4) == pytest.approx(1.0)


def test_two_walls_side_by_side_hide_all_and_a_gap_between_them_shows():
    # two 2.5 m walls meeting at y = 0, 10-10.2 m out: together they cover every bearing of
    # the silhouette (neither does alone): all hidden
    halves = CoverIndex([shapely.box(10.0, -5.0, 10.2, 0.0), shapely.box(10.0, 0.0, 10.2, 5.0)], [2.5, 2.5])
    assert one(halves) == 1.0
    # a 2 cm gap (|y| < 0.01): the column u reaches y = u * x / 20 at x, so it sees through
    # for |u| < 0.01 * 20 / 10.2 = 0.019608 m; a column further out meets a wall's side face
    # at lam <= 10.2 / 20, hidden to at least 1.6 + 0.9 * 20 / 10.2 = 3.36 m: all of it.
    # Seen: 2 * 0.019608 m of the 0.8 m silhouette
    gap = [shapely.box(10.0, -5.0, 10.2, -0.01), shapely.box(10.0, 0.01, 10.2, 5.0)]
    idx = CoverIndex(gap, [2.5, 2.5])
    f = one(idx)
    assert f == pytest.approx(1 - 2 * 0.01 * 20 / 10.2 / 0.8, abs=1e-9)
    assert f == pytest.approx(reference_cover(idx, (0.0, 0.0), 1.6, (20.0, 0.0), 0.4, 1.8), abs=1e-6)


@pytest.mark.parametrize("seed", [4, 5])
def test_walled_shortcut_changes_no_answer(seed, monkeypatch):
    # a crowded scene with many tall obstacles, every target from several eyes: the same
    # fractions with the shortcut (walled targets skip the column work) as without it --
    # bit for bit where not all hidden, all hidden the same targets
    rng, polys, hs = _scene(seed, n=150, size=40.0)
    hs = [h if rng.random() < 0.5 else 3.0 for h in hs]
    idx = CoverIndex(polys, hs)
    blocked = shapely.union_all(polys)
    pts = rng.uniform(0, 40, (120, 2))
    pts = pts[~shapely.contains_xy(blocked, pts[:, 0], pts[:, 1])]
    r = rng.choice([0.4, 0.5], len(pts))
    h = rng.choice([0.4, 1.2, 1.8], len(pts))
    eyes = [(rng.uniform(0, 40, 2), float(rng.choice([0.3, 1.0, 1.6]))) for _ in range(6)]
    fast = [idx.cover_fractions(eye, e, pts, r, h) for eye, e in eyes]
    monkeypatch.setattr(CoverIndex, "_walled_bins", lambda self, *a: np.zeros(a[6].size, dtype=bool))
    monkeypatch.setattr(CoverIndex, "_walled", lambda self, *a: np.zeros(a[2].shape[0], dtype=bool))
    slow = [idx.cover_fractions(eye, e, pts, r, h) for eye, e in eyes]
    walled = 0
    for a, b in zip(fast, slow):
        full = b >= 1 - 1e-9
        assert np.array_equal(a >= 1 - 1e-9, full)
        assert np.array_equal(a[~full], b[~full])
        walled += int((a == 1.0).sum())
    assert walled > 20  # the scene does have walled targets
