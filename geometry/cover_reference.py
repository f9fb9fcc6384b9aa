"""The slow, obviously-correct cover: a union of Shapely shadow polygons per target.

Used by the tests (as the exact value) and by ``bench/bench_engine.py`` (as the naive
implementation the fast :class:`geometry.cover.CoverIndex` is compared with). Not for use
at run time: it costs milliseconds per target.

For one target: put the silhouette plane square to the line of sight through the target's
centre. Clip each obstacle footprint to the slab between the eye and that plane (the part
of a segment eye -> silhouette point lies there), split it into convex pieces, and project
every corner of each truncated prism (ground and top) from the eye onto the plane; the
shadow of a convex piece is the convex hull of those points (a central projection keeps
convexity). The cover is the area of (union of shadows) n silhouette rectangle, divided by
the rectangle's area. The eye must not stand inside an obstacle's footprint.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely import affinity

from geometry.cover import CoverIndex
from geometry.zones import convex_pieces

_NEAR = 1e-6  # metres: the slab starts this far in front of the eye


def reference_cover(index: CoverIndex, eye_xy, eye_z: float, target_xy, radius: float,
                    height: float) -> float:
    """The hidden fraction of one target's silhouette, by shadow-polygon union (slow)."""
    ex, ey = float(eye_xy[0]), float(eye_xy[1])
    tx, ty = float(target_xy[0]), float(target_xy[1])
    dx, dy = tx - ex, ty - ey
    dist = float(np.hypot(dx, dy))
    if dist <= 1e-9:
        return 0.0
    c, s = dx / dist, dy / dist
    r, hgt, e = float(radius), float(height), float(eye_z)
    # sight corridor: eye -> both silhouette ends
    corridor = shapely.Polygon([(ex, ey), (tx - s * r, ty + c * r), (tx + s * r, ty - c * r)])
    cand = index.tree.query(corridor, predicate="intersects")
    silhouette = shapely.box(-r, 0.0, r, hgt)
    shadows = []
    for i in cand:
        h = float(index.heights[i])
        # footprint in sight coordinates: t along the line of sight, q to the right
        local = affinity.affine_transform(index.polygons[i], [c, s, -s, c, -(c * ex + s * ey),
                                                             -(-s * ex + c * ey)])
        big = 1e7
        slab = shapely.box(_NEAR, -big, dist, big)
        clipped = shapely.intersection(local, slab)
        for piece in convex_pieces(clipped):
            pts = np.asarray(piece.exterior.coords)[:-1]
            t, q = pts[:, 0], pts[:, 1]
            k = dist / t
            u = np.concatenate((q * k, q * k))
            z = np.concatenate((e + (0.0 - e) * k, e + (h - e) * k))
            shadows.append(shapely.MultiPoint(np.column_stack((u, z))).convex_hull)
    if not shadows:
        return 0.0
    hidden = shapely.intersection(shapely.union_all(shadows), silhouette)
    return float(hidden.area / silhouette.area)
