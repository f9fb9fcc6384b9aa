"""Zone shapes and disc fractions, against hand-derived areas and points.

Directions: 0 = east (+x), 90 = south (+y). The right side of a direction is +90 deg."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from geometry.errors import InvalidInputError
from geometry.zones import (
    circle,
    cone,
    convex_pieces,
    corridor,
    discs_in_shape,
    fire_shadows,
    rect,
    shotgun_spread,
    suppressive_triangle,
)


def test_suppressive_triangle_apex_length_and_far_width():
    t = suppressive_triangle((3, 6), 0, 30, 10)
    # area = 1/2 * 30 * 10 = 150; far end x = 33 from y = 1 to 11
    assert t.area == pytest.approx(150)
    assert t.bounds == pytest.approx((3, 1, 33, 11))
    assert t.contains(shapely.Point(32, 10.5)) and not t.contains(shapely.Point(5, 6 + 1.0))


def test_suppressive_triangle_points_south_at_90_degrees():
    t = suppressive_triangle((0, 0), 90, 20, 8)
    assert t.bounds == pytest.approx((-4, 0, 4, 20))


def test_cone_is_a_sector_with_full_opening_angle():
    c = cone((0, 0), 90, 10, 90)
    # quarter of a 10 m disc: 100 pi / 4 = 78.54 (polygon arc: within 0.05 %)
    assert c.area == pytest.approx(25 * math.pi, rel=5e-4)
    # opening 90 deg centred on south: edges at 45 and 135 deg
    assert c.bounds == pytest.approx((-10 * math.sqrt(0.5), 0, 10 * math.sqrt(0.5), 10), abs=1e-9)


def test_line_starts_at_origin_and_rect_is_centred():
    line = corridor((1, 1), 0, 10, 2)
    assert line.bounds == pytest.approx((1, 0, 11, 2))
    r = rect((5, 5), 90, 10, 4)  # length along south, width east-west
    assert r.bounds == pytest.approx((3, 0, 7, 10))


def test_circle_area():
    assert circle((0, 0), 10).area == pytest.approx(100 * math.pi, rel=5e-4)


def test_shotgun_spread_is_a_stepped_corridor():
    # medium choke, flechette bands 15/30/45/60 m with widths 2/4/6/8 m:
    # area 15 * (2 + 4 + 6 + 8) = 300
    s = shotgun_spread((0, 0), 0, [(15, 2), (30, 4), (45, 6), (60, 8)])
    assert s.is_valid
    assert s.area == pytest.approx(300)
    assert s.bounds == pytest.approx((0, -4, 60, 4))
    assert s.contains(shapely.Point(14, 0.9)) and not s.contains(shapely.Point(14, 1.1))
    assert s.contains(shapely.Point(16, 1.9))
    # cut at 30 m: 15 * 2 + 15 * 4 = 90
    assert shotgun_spread((0, 0), 0, [(15, 2), (30, 4), (45, 6), (60, 8)], length=30).area == pytest.approx(90)
    # cut inside a band: 15 * 2 + 5 * 4 = 50
    assert shotgun_spread((0, 0), 0, [(15, 2), (30, 4)], length=20).area == pytest.approx(50)


def test_discs_in_shape_fractions():
    box = rect((0, 0), 0, 10, 4)  # x -5..5, y -2..2
    f = discs_in_shape(box, [(0, 0), (5, 0), (5.4, 0), (0, 2.0), (7, 0), (5.2, 0)], [0.4] * 6)
    assert f[0] == 1.0  # wholly inside
    assert f[1] == pytest.approx(0.5, abs=1e-3)  # centre on the edge: half
    assert f[2] == 0.0  # touches the edge only
    assert f[3] == pytest.approx(0.5, abs=1e-3)
    assert f[4] == 0.0
    # centre 0.2 outside: circular segment of height 0.2 in r 0.4:
    # area = r^2 acos(d/r) - d sqrt(r^2 - d^2), d = 0.2 -> / (pi r^2) = 0.19550
    d, r = 0.2, 0.4
    seg = (r * r * math.acos(d / r) - d * math.sqrt(r * r - d * d)) / (math.pi * r * r)
    assert f[5] == pytest.approx(seg, abs=1e-3)


def test_discs_bad_input():
    with pytest.raises(InvalidInputError):
        discs_in_shape(circle((0, 0), 1), [(0, 0)], [0.0])


def test_fire_shadow_behind_a_tall_wall_starts_where_a_standing_body_is_hidden():
    # fire from (0,0) at 1.6 m; wall x 10..10.2, 3 m tall. A column at distance L behind it is
    # hidden to 1.6 + 1.4 L / 10; that reaches 1.8 m at once (k = 0.2 / 1.4 < 1), so the
    # shadow starts at the wall: (10.5, 0) shadowed, (9.5, 0) not.
    sh = fire_shadows([shapely.box(10, -1, 10.2, 1)], [3.0], (0, 0), 1.6, 1.8, 40)
    assert sh.contains(shapely.Point(10.5, 0)) and sh.contains(shapely.Point(30, 2.5))
    assert not sh.contains(shapely.Point(9.5, 0)) and not sh.contains(shapely.Point(30, 3.5))
    # a 1.7 m wall: hidden to 1.6 + 0.1 L / 10 >= 1.8 from L = 20 on
    sh2 = fire_shadows([shapely.box(10, -1, 10.2, 1)], [1.7], (0, 0), 1.6, 1.8, 40)
    assert not sh2.contains(shapely.Point(19.5, 0)) and sh2.contains(shapely.Point(20.5, 0))
    # a low wall never hides a whole standing body
    assert fire_shadows([shapely.box(10, -1, 10.2, 1)], [1.0], (0, 0), 1.6, 1.8, 40).is_empty


def test_convex_pieces_keep_convex_shapes_and_split_the_rest():
    square = shapely.box(0, 0, 2, 2)
    assert convex_pieces(square) == [square]
    # an L of area 3 (a 2 x 2 square less its 1 x 1 corner) in triangles of the same total area
    ell = shapely.Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])
    tris = convex_pieces(ell)
    assert len(tris) == 4 and sum(t.area for t in tris) == pytest.approx(3.0)
    assert all(abs(t.convex_hull.area - t.area) < 1e-12 for t in tris)
    # what an intersection may leave besides polygons (a line, a point) covers nothing
    mixed = shapely.GeometryCollection([square, shapely.LineString([(5, 5), (6, 6)]), shapely.Point(9, 9)])
    assert convex_pieces(mixed) == [square] and convex_pieces(shapely.Polygon()) == []
