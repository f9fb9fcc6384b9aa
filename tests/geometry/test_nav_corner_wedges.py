"""A body's corner added to a charge search is linked to the static corners it sees through its
two tangent wedges (:meth:`Graph.corners_seen_from`: only the boxes of those wedges are
looked up): the same pairs, in the same order, as the corners within its reach found by
distance and then filtered by tangency at both ends (the former look-up)."""

from __future__ import annotations

import math

import numpy as np
import shapely

from geometry.nav.graph import Graph, regular_polygon
from geometry.nav.navigator import Navigator


def by_distance(g: Graph, P, TA, TB, L):
    """The former look-up: every corner within L (GEOS's distance), then tangency."""
    a, b = g.node_tree.query(shapely.points(P), predicate="dwithin", distance=L)
    d = g.N[b] - P[a]
    ok = Graph.tangent(d, g.A[b], g.B[b]) & Graph.tangent(d, TA[a], TB[a])
    return a[ok], b[ok]


def body_corners(sides: int, centres: np.ndarray, radius: float, phases: np.ndarray):
    """The corners of bodies' grown discs (a ``sides``-gon around each, turned by its phase),
    with the unit directions to their neighbours, as a search adds them (Query.activate)."""
    P, TA, TB = [], [], []
    for c, phase in zip(centres, phases):
        ring = c + regular_polygon(sides, radius / math.cos(math.pi / sides), phase)
        prev = np.roll(ring, 1, axis=0) - ring
        nxt = np.roll(ring, -1, axis=0) - ring
        P.append(ring)
        TA.append(prev / np.hypot(prev[:, 0], prev[:, 1])[:, None])
        TB.append(nxt / np.hypot(nxt[:, 0], nxt[:, 1])[:, None])
    return np.vstack(P), np.vstack(TA), np.vstack(TB)


def test_a_corner_sees_the_corners_in_its_wedges_only():
    # a post (10, 10)-(11, 11) grown by 0.5 m (an octagon: x, y in [9.5, 11.5]) and a block
    # 10 m south of a corner at (4, 10.5) whose neighbours lie down-left and down-right (a
    # right angle opening south): lines tangent there run within 45 degrees of east-west, so
    # it sees the post's west corners (6-7 m east, less than 45 degrees off) and nothing of
    # the block straight south
    g = Navigator([shapely.box(10, 10, 11, 11), shapely.box(3.5, 20, 4.5, 21)], bounds=(0, 0, 40, 40)).graph(0.5)
    P = np.array([[4.0, 10.5]])
    s = math.sqrt(0.5)
    TA, TB = np.array([[-s, s]]), np.array([[s, s]])
    L = np.array([12.0])
    a, b = g.corners_seen_from(P, TA, TB, L)
    ra, rb = by_distance(g, P, TA, TB, L)
    assert a.tolist() == ra.tolist() and b.tolist() == rb.tolist()
    seen = g.N[b]
    assert len(seen) >= 2 and (seen[:, 0] < 10.5).all() and (np.abs(seen[:, 1] - 10.5) < 1.5).all()
    assert not (seen[:, 1] > 15).any()


def test_bodies_on_a_seeded_scene_get_the_former_pairs_in_the_former_order():
    from bench.scene import make_scene
    from engine.analysis import Tactics

    enc = make_scene(2, tokens=60, obstacles=600)
    g = Tactics(enc).navigator.graph(0.4)
    rng = np.random.default_rng(3)
    centres = rng.uniform(0, enc.map.width, (300, 2))
    P, TA, TB = body_corners(g.sides, centres, 0.8, rng.uniform(0, 2 * math.pi, 300))
    L = g.reach(P, 2 * math.pi / g.sides)
    a, b = g.corners_seen_from(P, TA, TB, L)
    ra, rb = by_distance(g, P, TA, TB, L)
    assert len(ra) > 2000
    assert a.tolist() == ra.tolist() and b.tolist() == rb.tolist()
