"""Obstacle footprints as Coverfire keeps them: bounded, and no more detailed than cover can
tell apart.

A footprint drawn by another tool can carry far more vertices than a battle map needs (a
round pillar of 10,000 points took 16 s to analyse; 50,000 reached 10 GB). At load every
footprint of more than :data:`SIMPLIFY_ABOVE` vertices is simplified (:func:`thin`, then
Douglas-Peucker with topology kept, :func:`shapely.simplify`) so that no point of its outline
moves more than
:data:`SIMPLIFY_TOLERANCE` metres; cover fractions then stay within
:data:`COVER_TOLERANCE` of the unsimplified footprint's (tests/engine/test_footprint.py).
A footprint still over :data:`~engine.limits.MAX_FOOTPRINT_VERTICES` after that is refused.
The saved file holds the simplified footprint.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
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


def thin(points, tolerance: float, *, closed: bool = True, passes: int = 16) -> np.ndarray:
    """``points`` (n, 2) with vertices dropped so that the outline moves at most ``tolerance``
    metres (Hausdorff distance), in at most ``passes`` O(n) numpy passes: each pass drops
    vertices lying within half the tolerance still unspent of the segment joining their
    neighbours, never two neighbours at once, so it moves the outline at most that much. Never recursive, so a line of a
    million points is as safe as one of ten (GEOS's Douglas-Peucker recurses once a vertex and
    overflows the stack on a 100,000-point zig-zag). ``closed``: a ring (no repeated end)."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    left = float(tolerance)  # what the passes may still move the outline
    done = idle = parity = 0
    while done < passes and idle < 2:  # (two idle passes: neither parity drops anything)
        step = left / 2 if done < passes - 1 else left
        n = len(pts)
        if n <= (3 if closed else 2):
            break
        if closed:
            a, b, c = np.roll(pts, 1, axis=0), pts, np.roll(pts, -1, axis=0)
            idx = np.arange(n)
        else:
            a, b, c = pts[:-2], pts[1:-1], pts[2:]
            idx = np.arange(1, n - 1)
        d = c - a
        dd = np.einsum("ij,ij->i", d, d)
        t = np.clip(np.einsum("ij,ij->i", b - a, d) / np.where(dd > 0, dd, 1.0), 0.0, 1.0)
        dev = np.hypot(*(a + t[:, None] * d - b).T)  # distance of b from the segment a-c
        drop = (dev <= step) & (idx % 2 == parity)
        if closed and n % 2:
            drop[-1] = False  # the last and the first are neighbours too
        parity ^= 1
        if not drop.any():
            idle += 1
            continue
        idle = 0
        done += 1
        left -= step
        keep = np.ones(n, dtype=bool)
        keep[idx[drop]] = False
        pts = pts[keep]
    return pts


def bounded_footprint(points: Sequence[Point]) -> tuple[Point, ...]:
    """The footprint Coverfire keeps for ``points`` (metres, no closing repeat needed):
    the points themselves, or for a detailed footprint its simplification within
    :data:`SIMPLIFY_TOLERANCE` (half by :func:`thin`, half by a topology-preserving
    Douglas-Peucker on what is left). Raises ``ValueError`` (the reason, for the JSON path of
    the polygon) past :data:`~engine.limits.MAX_POLYGON_POINTS` points, for a vertex beyond
    :data:`~engine.limits.MAX_COORDINATE`, or when even the simplified outline keeps more
    than :data:`~engine.limits.MAX_FOOTPRINT_VERTICES` vertices. Whether the result is a valid
    polygon is the model's check (on what is kept)."""
    if len(points) > MAX_POLYGON_POINTS:
        raise ValueError(too_many_points(len(points)))
    pts = [(float(x), float(y)) for x, y in points]
    for i, (x, y) in enumerate(pts):
        if not (abs(x) <= MAX_COORDINATE and abs(y) <= MAX_COORDINATE):
            raise ValueError(f"vertex {i} ({x:g}, {y:g}) is beyond the coordinate limit "
                             f"(\u00b1{MAX_COORDINATE:,.0f} m)")
    # a point repeated at once (a closing repeat of the first included) says nothing: drop
    # every repeat, so that loading what was saved gives the same footprint again
    pts = [p for i, p in enumerate(pts) if i == 0 or p != pts[i - 1]]
    while len(pts) > 1 and pts[-1] == pts[0]:
        pts.pop()
    if len(pts) <= SIMPLIFY_ABOVE or len(set(pts)) < 3:
        return tuple(pts)
    thinned = thin(pts, SIMPLIFY_TOLERANCE / 2)
    if len(thinned) > 4 * MAX_FOOTPRINT_VERTICES:
        raise _too_detailed(len(pts), len(thinned))
    poly = shapely.Polygon(thinned)
    simple = shapely.simplify(poly, SIMPLIFY_TOLERANCE / 2, preserve_topology=True)
    if isinstance(simple, shapely.Polygon) and not simple.is_empty and len(simple.exterior.coords) >= 4:
        ring = [(float(x), float(y)) for x, y in simple.exterior.coords[:-1]]
    else:  # an invalid outline simplifies to nothing: keep the thinned one for the model to judge
        ring = [(float(x), float(y)) for x, y in thinned]
    if len(ring) > MAX_FOOTPRINT_VERTICES:
        raise _too_detailed(len(pts), len(ring))
    return tuple(ring)


def _too_detailed(n: int, kept: int) -> ValueError:
    return ValueError(
        f"the polygon has {n:,} points, and still {kept:,} after simplifying within "
        f"{SIMPLIFY_TOLERANCE * 1000:g} mm; an obstacle keeps at most {MAX_FOOTPRINT_VERTICES:,}: "
        "split it into several obstacles")


def circle(cx: float, cy: float, r: float, n: int) -> tuple[Point, ...]:
    """``n`` points evenly round a circle (a detailed round pillar, for tests and benches)."""
    return tuple((cx + r * math.cos(2 * math.pi * k / n), cy + r * math.sin(2 * math.pi * k / n))
                 for k in range(n))
