"""Where an imported character stands: a free spot near the map's centre, or the GM's point.

The search for a free spot is bounded: at most :data:`MAX_CANDIDATES` points are tried (the
grid coarsens on a large map), all at once with Shapely's vectorized tree query, so a map
narrower than a token or covered wall to wall answers at once instead of hanging.
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from engine.errors import IllegalActionError
from engine.model import Encounter, Token
from engine.names import obstacle_name, token_name

#: Points tried at most when looking for a free spot.
MAX_CANDIDATES = 40_000


def _blockers(encounter: Encounter) -> list[tuple[str, shapely.Polygon]]:
    return [(obstacle_name(o), shapely.Polygon(o.polygon)) for o in encounter.obstacles if o.blocks]


def free_spot(encounter: Encounter, radius: float, step: float = 0.5) -> tuple[float, float]:
    """The point nearest the map's centre (on a ``step``-metre grid through the centre,
    coarser when that grid would exceed :data:`MAX_CANDIDATES` points; metres) where a disc of
    ``radius`` lies on the map and touches no blocking obstacle and no other token; the
    centre when there is none (a map narrower than the disc, or no room left)."""
    m = encounter.map
    cx, cy = m.width / 2, m.height / 2
    if m.width < 2 * radius or m.height < 2 * radius:
        return cx, cy
    s = max(step, math.sqrt((m.width - 2 * radius) * (m.height - 2 * radius) / MAX_CANDIDATES))
    nx = int(math.floor((cx - radius) / s + 1e-9))
    ny = int(math.floor((cy - radius) / s + 1e-9))
    gx, gy = np.meshgrid(np.arange(-nx, nx + 1), np.arange(-ny, ny + 1))
    gx, gy = gx.ravel(), gy.ravel()
    # Nearest first; among equals, the ring order of the old search (north row, west column ...).
    order = np.lexsort((gx, gy, np.maximum(abs(gx), abs(gy)), gx * gx + gy * gy))
    xs, ys = cx + gx[order] * s, cy + gy[order] * s
    ok = np.ones(len(xs), dtype=bool)
    for t in encounter.tokens:
        ok &= (xs - t.x) ** 2 + (ys - t.y) ** 2 >= (radius + t.radius) ** 2
    blockers = [p for _, p in _blockers(encounter)]
    if blockers and ok.any():
        tree = shapely.STRtree(blockers)
        cand = np.flatnonzero(ok)
        hit, _ = tree.query(shapely.points(xs[cand], ys[cand]), predicate="dwithin", distance=radius)
        ok[cand[np.unique(hit)]] = False
    free = np.flatnonzero(ok)
    if not len(free):
        return cx, cy
    k = int(free[0])
    return float(xs[k]), float(ys[k])


def placement_problem(encounter: Encounter, x: float, y: float, radius: float, *, ignore: str | None = None) -> str | None:
    """Why a disc of ``radius`` at (``x``, ``y``) metres stands where a body cannot: inside or
    touching a blocking obstacle (named), overlapping another token, or reaching off the map;
    None when the spot is free. ``ignore`` is a token id not to count (the one placed)."""
    m = encounter.map
    if not (radius <= x <= m.width - radius and radius <= y <= m.height - radius):
        return f"({x:g}, {y:g}) is closer than {radius:g} m to the map's edge: the token reaches off the map"
    disc = shapely.Point(x, y).buffer(radius, quad_segs=16)
    for name, poly in _blockers(encounter):
        if poly.distance(shapely.Point(x, y)) < radius - 1e-6 and poly.intersects(disc):
            inside = poly.contains(shapely.Point(x, y))
            return f"({x:g}, {y:g}) is {'inside' if inside else 'overlapping'} {name}: the token cannot move from there"
    for t in encounter.tokens:
        if t.id != ignore and math.hypot(t.x - x, t.y - y) < radius + t.radius - 1e-6:
            return f"({x:g}, {y:g}) overlaps {token_name(t)}"
    return None


def add_character(encounter: Encounter, token: Token, at: tuple[float, float] | None = None) -> tuple[Encounter, Token]:
    """The encounter with ``token`` added under a fresh id (its own id when free, else
    ``id-N``), placed at ``at`` (metres) or, when ``at`` is None, on the free spot nearest
    the map's centre. Raises :class:`IllegalActionError` when ``at`` is off the map or not a
    finite point (:func:`placement_problem` says whether a spot on the map is free)."""
    ids = encounter.all_ids()
    ident = token.id if token.id not in ids else encounter.new_id(token.id)
    m = encounter.map
    if at is not None:
        x, y = float(at[0]), float(at[1])
        if not (math.isfinite(x) and math.isfinite(y)):
            raise IllegalActionError(f"({at[0]}, {at[1]}) is not a point on the map")
        if not (0 <= x <= m.width and 0 <= y <= m.height):
            raise IllegalActionError(f"({x:g}, {y:g}) lies outside the {m.width:g} x {m.height:g} m map")
    else:
        x, y = free_spot(encounter, token.radius)
    placed = token.model_copy(update={"id": ident, "x": x, "y": y})
    return encounter.model_copy(update={"tokens": encounter.tokens + (placed,)}), placed
