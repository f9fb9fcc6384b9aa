"""Obstacle footprints as Coverfire keeps them: bounded, and no more detailed than cover can
tell apart.

A footprint drawn by another tool can carry far more vertices than a battle map needs (a
round pillar of 10,000 points took 16 s to analyse; 50,000 reached 10 GB). At load every
footprint of more than :data:`SIMPLIFY_ABOVE` vertices is simplified (Douglas-Peucker,
topology kept: :func:`shapely.simplify`) so that no point of its outline moves more than
:data:`SIMPLIFY_TOLERANCE` metres; cover fractions then stay within
:data:`COVER_TOLERANCE` of the unsimplified footprint's (tests/engine/test_footprint.py).
A footprint still over :data:`~engine.limits.MAX_FOOTPRINT_VERTICES` after that is refused.
The saved file holds the simplified footprint.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import shapely

from engine.limits import MAX_COORDINATE, MAX_FOOTPRINT_VERTICES, MAX_POLYGON_POINTS, too_many_points

#: Footprints with more vertices than this are simplified at load.
SIMPLIFY_ABOVE = 64
#: Farthest a simplified outline may lie from the original, metres (1 mm: a shadow edge
#: cast 20 m behind a pillar 1 m from the eye moves 2 cm, 2.5 % of a body at worst; measured
#: 0.24 percentage points at worst in tests/engine/test_footprint.py).
SIMPLIFY_TOLERANCE = 0.001
#: How far (as a hidden fraction of a body, one percentage point) a cover answer about a
#: simplified footprint may differ from the same answer about the original.
COVER_TOLERANCE = 0.01

Point = tuple[float, float]


def bounded_footprint(points: Sequence[Point]) -> tuple[Point, ...]:
    """The footprint Coverfire keeps for ``points`` (metres, no closing repeat needed):
    the points themselves, or for a detailed footprint its simplification within
    :data:`SIMPLIFY_TOLERANCE`. Raises ``ValueError`` (the reason, for the JSON path of the
    polygon) past :data:`~engine.limits.MAX_POLYGON_POINTS` points, for a vertex beyond
    :data:`~engine.limits.MAX_COORDINATE`, or when even the simplified outline keeps more
    than :data:`~engine.limits.MAX_FOOTPRINT_VERTICES` vertices. A footprint that is not a
    valid polygon comes back unchanged (the model says what is wrong with it)."""
    pts = [(float(x), float(y)) for x, y in points]
    if len(pts) > MAX_POLYGON_POINTS:
        raise ValueError(too_many_points(len(pts)))
    for i, (x, y) in enumerate(pts):
        if not (abs(x) <= MAX_COORDINATE and abs(y) <= MAX_COORDINATE):
            raise ValueError(f"vertex {i} ({x:g}, {y:g}) is beyond the coordinate limit "
                             f"(\u00b1{MAX_COORDINATE:,.0f} m)")
    if len(pts) >= 2 and pts[0] == pts[-1]:
        pts = pts[:-1]
    if len(pts) <= SIMPLIFY_ABOVE or len(set(pts)) < 3:
        return tuple(pts)
    poly = shapely.Polygon(pts)
    if not shapely.is_valid(poly):
        return tuple(pts)
    simple = shapely.simplify(poly, SIMPLIFY_TOLERANCE, preserve_topology=True)
    if not isinstance(simple, shapely.Polygon) or simple.is_empty or not shapely.is_valid(simple):
        simple = poly  # pragma: no cover - topology-preserving simplification keeps a polygon
    ring = [(float(x), float(y)) for x, y in simple.exterior.coords[:-1]]
    if len(ring) > MAX_FOOTPRINT_VERTICES:
        raise ValueError(
            f"the polygon has {len(pts):,} points, and still {len(ring):,} after simplifying "
            f"within {SIMPLIFY_TOLERANCE * 1000:g} mm; an obstacle keeps at most "
            f"{MAX_FOOTPRINT_VERTICES:,}: split it into several obstacles")
    return tuple(ring)


def circle(cx: float, cy: float, r: float, n: int) -> tuple[Point, ...]:
    """``n`` points evenly round a circle (a detailed round pillar, for tests and benches)."""
    return tuple((cx + r * math.cos(2 * math.pi * k / n), cy + r * math.sin(2 * math.pi * k / n))
                 for k in range(n))
