"""Bodies in contact: a shove (a disc pushed straight until it touches something, exact) and a
grapple drag (two linked bodies moving like a short train)."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import shapely

from geometry.errors import InsideObstacleError, InvalidInputError
from geometry.nav.navigator import Navigator
from geometry.nav.values import (
    DragResult,
    SlideResult,
    check_point,
    check_positive,
    disc_array,
    merge_collinear,
    polyline_length,
    truncate,
)


def slide(nav_or_polys, start_xy, radius: float, direction_deg: float, distance: float,
          discs: np.ndarray | None = None, *, disc_ids: Sequence[str] | None = None) -> SlideResult:
    """Where a body pushed straight along ``direction_deg`` (0 east, 90 south) for up to
    ``distance`` metres stops: at the first contact of its disc (radius ``radius``) with an
    obstacle's footprint (exact, not grown polygons), another body's disc in ``discs``
    ((m, 3) rows x, y, r) or the map edge (when ``nav_or_polys`` is a :class:`Navigator` with
    bounds). A wall or body it already overlaps stops it only if the push drives it deeper.
    Returns a :class:`SlideResult` (unpacks as ``end, travelled, stopped_by``)."""
    if isinstance(nav_or_polys, Navigator):
        polys, tree, bounds, ids = nav_or_polys.polygons, nav_or_polys.raw_tree, nav_or_polys.bounds, nav_or_polys.ids
    else:
        polys = tuple(nav_or_polys)
        for i, p in enumerate(polys):
            if not isinstance(p, shapely.Polygon) or p.is_empty:
                raise InvalidInputError(f"obstacle #{i} is not a polygon: {p!r}")
        tree = shapely.STRtree(np.array(polys, dtype=object)) if polys else None
        bounds, ids = None, None
    s = check_point(start_xy, "start")
    r = check_positive(radius, "the radius")
    dist = check_positive(distance, "the distance", allow_zero=True)
    try:
        ang = math.radians(float(direction_deg))
    except (TypeError, ValueError):
        raise InvalidInputError(f"the direction must be a number of degrees, got {direction_deg!r}") from None
    if not math.isfinite(ang):
        raise InvalidInputError(f"the direction must be finite, got {direction_deg!r}")
    D = disc_array(discs)
    if disc_ids is not None and len(disc_ids) != len(D):
        raise InvalidInputError(f"{len(disc_ids)} disc ids for {len(D)} discs")
    u = np.array([math.cos(ang), math.sin(ang)])
    S = np.array(s)
    if tree is not None:
        for i in tree.query(shapely.Point(s), predicate="intersects").tolist():
            if shapely.contains_xy(polys[i], s[0], s[1]):
                raise InsideObstacleError("start", s, ids[i] if ids is not None else i)

    best_t, kind, index = dist, None, None
    # walls: every edge of every footprint near the swept path
    if tree is not None and dist > 0:
        sweep = shapely.buffer(shapely.LineString([s, tuple(S + u * dist)]), r + 1e-6)
        hit = tree.query(sweep, predicate="intersects")
        for i in hit.tolist():
            p = polys[i]
            segs = []
            for ring in (p.exterior, *p.interiors):
                R = np.asarray(ring.coords)
                segs.append(np.stack([R[:-1], R[1:]], axis=1))
            seg = np.concatenate(segs)
            t = _first_contact_segments(S, u, r, seg[:, 0], seg[:, 1])
            if t < best_t:
                best_t, kind, index = t, "obstacle", i
    if len(D) and dist > 0:
        t_all = _first_contact_discs(S, u, r + D[:, 2], D[:, :2])
        j = int(np.argmin(t_all))
        if t_all[j] < best_t:
            best_t, kind, index = float(t_all[j]), "body", j
    if bounds is not None and dist > 0:
        x0, y0, x1, y1 = bounds
        for lo, hi, k in ((x0, x1, 0), (y0, y1, 1)):
            if u[k] > 1e-12:
                t = max(0.0, (hi - r - S[k]) / u[k])
            elif u[k] < -1e-12:
                t = max(0.0, (lo + r - S[k]) / u[k])
            else:
                continue
            if t < best_t:
                best_t, kind, index = t, "edge", None
    best_t = max(0.0, min(best_t, dist))
    end = (float(S[0] + u[0] * best_t), float(S[1] + u[1] * best_t))
    if kind is None:
        return SlideResult(end, best_t, None)
    if kind == "obstacle":
        label = ids[index] if ids is not None else f"obstacle #{index}"
    elif kind == "body":
        label = str(disc_ids[index]) if disc_ids is not None else f"body #{index}"
    else:
        label = "map edge"
    return SlideResult(end, best_t, label, kind, index)


def _first_contact_discs(S: np.ndarray, u: np.ndarray, R: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Time (metres along unit u from S) at which a point first comes within R of each centre
    C; 0 if already inside and moving closer; inf if never (or moving away)."""
    w = S[None, :] - C
    b = w @ u
    cc = np.einsum("ij,ij->i", w, w) - R * R
    disc = b * b - cc
    t = np.full(len(C), np.inf)
    inside = cc < -1e-12
    t[inside & (b < 0)] = 0.0
    ok = ~inside & (disc >= 0) & (b < 0)
    t[ok] = np.maximum(-b[ok] - np.sqrt(disc[ok]), 0.0)
    return t


def _first_contact_segments(S, u, r, A, B) -> float:
    """First time (metres) a disc of radius r at S moving along unit u touches any segment A-B."""
    t_v = _first_contact_discs(S, u, np.full(len(A), r), A)
    d = B - A
    L = np.hypot(d[:, 0], d[:, 1])
    ok = L > 1e-12
    A, d, L = A[ok], d[ok], L[ok]
    n = np.column_stack([-d[:, 1], d[:, 0]]) / L[:, None]
    h0 = np.einsum("ij,ij->i", S[None, :] - A, n)
    k = n @ u
    side = np.sign(h0)
    side[side == 0] = 1.0
    hs, ks = h0 * side, k * side  # distance >= 0 on S's side, rate of change
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(ks < -1e-12, (r - hs) / ks, np.inf)
    # footpoint inside the segment at contact time
    P = S[None, :] + np.where(np.isfinite(t), t, 0.0)[:, None] * u[None, :]
    lam = np.einsum("ij,ij->i", P - A, d) / (L * L)
    t = np.where((lam >= 0) & (lam <= 1), t, np.inf)
    # already closer than r to the segment's interior and moving closer: stuck at once
    lam0 = np.einsum("ij,ij->i", S[None, :] - A, d) / (L * L)
    stuck = (hs < r - 1e-12) & (lam0 > 0) & (lam0 < 1) & (ks < -1e-12)
    t = np.where(stuck, 0.0, t)
    t = np.where(t < 0, 0.0, t)
    tt = np.concatenate([t_v, t])
    return float(tt.min()) if len(tt) else math.inf




def drag_path(nav: Navigator, mover_xy, mover_radius: float, other_xy, other_radius: float, goal_xy,
              max_distance: float | None = None, discs: np.ndarray | None = None) -> DragResult | None:
    """A grapple moved (Static Veil Move the Grapple): the mover walks toward ``goal_xy``
    dragging the other body, for at most ``max_distance`` metres (None: all the way).

    Simplification (documented in docs/movement.md): the pair moves like a short train.
    The mover's path is the shortest path for a body of the larger of the two radii (so
    either body fits wherever the path goes); the other body first closes to the mover's
    starting spot and then follows the same track, always the same distance behind along
    the track as they started apart; both move the same distance. ``discs`` are the other
    bodies (the pair itself must not be in it). None when the goal cannot be reached."""
    m = nav.check_point(mover_xy, "mover")
    o = check_point(other_xy, "dragged body")
    r = max(check_positive(mover_radius, "the mover's radius"), check_positive(other_radius, "the dragged body's radius"))
    res = nav.shortest_path(m, goal_xy, r, discs=discs)
    if res is None:
        return None
    track = list(res.points)
    if max_distance is not None:
        md = check_positive(max_distance, "the distance", allow_zero=True)
        if md < res.length:
            track = truncate(track, md)
    length = polyline_length(track)
    train = merge_collinear([o] + track) if math.hypot(o[0] - m[0], o[1] - m[1]) > 1e-9 else track
    other = truncate(train, length) if length > 0 else [o]
    return DragResult(tuple(track), tuple(other), track[-1], other[-1], length)
