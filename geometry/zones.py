"""Zone shapes and what lies in them, from plain numbers (metres, degrees).

Directions follow the map: 0 degrees points east (+x), 90 degrees south (+y, because y
grows south). Every shape is a Shapely polygon in map metres. Arcs and circles are
polygons with :data:`ARC_SEGMENTS` sides per full turn (area error under 0.05 %).

Nothing here knows a rule system: the shotgun's band widths, the suppressive triangle's
far width and the origin heights are given by the caller (``engine.analysis``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import ArrayLike
from shapely.geometry.polygon import orient

from geometry.errors import InvalidInputError

#: Polygon sides per full turn for circles, cone arcs and footprint discs.
ARC_SEGMENTS = 128


def _xy(p, what: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in p)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{what} must be an (x, y) pair of metres, got {p!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise InvalidInputError(f"{what} must be finite, got ({x}, {y})")
    return x, y


def _pos(v, what: str) -> float:
    f = float(v)
    if not (math.isfinite(f) and f > 0):
        raise InvalidInputError(f"{what} must be a finite number above 0, got {v!r}")
    return f


def _frame(origin, direction_deg: float, pts: np.ndarray) -> shapely.Polygon:
    """Polygon of local points (x along ``direction``, y to its right) placed at ``origin``."""
    ox, oy = _xy(origin, "the origin")
    d = float(direction_deg)
    if not math.isfinite(d):
        raise InvalidInputError(f"the direction must be a finite number of degrees, got {direction_deg!r}")
    a = math.radians(d)
    c, s = math.cos(a), math.sin(a)
    x = ox + pts[:, 0] * c - pts[:, 1] * s
    y = oy + pts[:, 0] * s + pts[:, 1] * c
    return orient(shapely.Polygon(np.column_stack((x, y))), 1.0)


def suppressive_triangle(origin, direction_deg: float, length: float, far_width: float) -> shapely.Polygon:
    """The suppressive-fire triangle: apex at ``origin``, ``length`` metres along the
    direction, ``far_width`` metres wide at its far end (centred)."""
    L = _pos(length, "the length")
    w = _pos(far_width, "the far-end width")
    return _frame(origin, direction_deg, np.array([[0.0, 0.0], [L, -w / 2], [L, w / 2]]))


def cone(origin, direction_deg: float, length: float, angle_deg: float) -> shapely.Polygon:
    """A circular sector: apex at ``origin``, radius ``length`` metres, ``angle_deg`` its
    full opening (0 < angle < 360), centred on the direction."""
    L = _pos(length, "the length")
    ang = _pos(angle_deg, "the angle")
    if ang >= 360:
        raise InvalidInputError(f"a cone's angle must be under 360 degrees, got {angle_deg!r}")
    n = max(2, int(math.ceil(ARC_SEGMENTS * ang / 360.0)))
    t = np.radians(np.linspace(-ang / 2, ang / 2, n + 1))
    arc = np.column_stack((L * np.cos(t), L * np.sin(t)))
    return _frame(origin, direction_deg, np.vstack(([0.0, 0.0], arc)))


def corridor(origin, direction_deg: float, length: float, width: float) -> shapely.Polygon:
    """A line zone: a rectangle from ``origin`` ``length`` metres along the direction,
    ``width`` metres across (centred on the line)."""
    L = _pos(length, "the length")
    w = _pos(width, "the width")
    return _frame(origin, direction_deg,
                  np.array([[0.0, -w / 2], [L, -w / 2], [L, w / 2], [0.0, w / 2]]))


def rect(centre, direction_deg: float, length: float, width: float) -> shapely.Polygon:
    """A rectangle centred at ``centre``: ``length`` metres along the direction, ``width``
    across."""
    L = _pos(length, "the length")
    w = _pos(width, "the width")
    return _frame(centre, direction_deg,
                  np.array([[-L / 2, -w / 2], [L / 2, -w / 2], [L / 2, w / 2], [-L / 2, w / 2]]))


def circle(centre, radius: float) -> shapely.Polygon:
    """A disc of ``radius`` metres around ``centre`` (blast, circle zones)."""
    x, y = _xy(centre, "the centre")
    r = _pos(radius, "the radius")
    return orient(shapely.Point(x, y).buffer(r, quad_segs=ARC_SEGMENTS // 4), 1.0)


def shotgun_spread(origin, direction_deg: float, bands: Sequence[tuple[float, float]],
                   length: float | None = None) -> shapely.Polygon:
    """A stepped corridor from ``origin`` along the direction: ``bands`` lists
    ``(max_m, width_m)`` with growing maxima; the corridor is ``width_m`` wide (centred) from
    the previous band's max out to ``max_m``. ``length`` cuts it shorter."""
    if not bands:
        raise InvalidInputError("a shotgun spread needs at least one (max, width) band")
    prev = 0.0
    steps: list[tuple[float, float, float]] = []
    cut = _pos(length, "the length") if length is not None else math.inf
    for mx, w in bands:
        mx = _pos(mx, "a band's max")
        w = _pos(w, "a band's width")
        if mx <= prev:
            raise InvalidInputError(f"band maxima must grow, got {[b[0] for b in bands]}")
        end = min(mx, cut)
        if end > prev:
            steps.append((prev, end, w))
        prev = mx
        if prev >= cut:
            break
    # outline: along the right side (+y) out, back along the left side (-y)
    right = []
    for a, b, w in steps:
        right += [(a, w / 2), (b, w / 2)]
    left = [(x, -y) for x, y in reversed(right)]
    pts = np.array(right + left)
    poly = _frame(origin, direction_deg, pts)
    return orient(shapely.make_valid(poly) if not poly.is_valid else poly, 1.0)


def discs_in_shape(shape: shapely.Geometry, xy: ArrayLike, radii: ArrayLike) -> np.ndarray:
    """The fraction (0..1) of each footprint disc (centres ``xy`` (n, 2), ``radii`` (n,)
    metres) that lies inside ``shape``. 0 when the disc only touches the shape's edge; a
    disc wholly inside is exactly 1; a cut disc is measured as an :data:`ARC_SEGMENTS`-gon."""
    pts_xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    n = pts_xy.shape[0]
    r = np.broadcast_to(np.asarray(radii, dtype=float), (n,)).astype(float)
    if not (np.all(np.isfinite(pts_xy)) and np.all(np.isfinite(r)) and np.all(r > 0)):
        raise InvalidInputError("disc centres must be finite and radii finite and above 0 m")
    out = np.zeros(n)
    if n == 0 or shape is None or shape.is_empty:
        return out
    # discs whose bounding boxes miss the shape's cannot touch it
    x0, y0, x1, y1 = shape.bounds
    near = np.nonzero((pts_xy[:, 0] + r > x0) & (pts_xy[:, 0] - r < x1)
                      & (pts_xy[:, 1] + r > y0) & (pts_xy[:, 1] - r < y1))[0]
    if near.size == 0:
        return out
    shapely.prepare(shape)
    pts = shapely.points(pts_xy[near])
    dist = shapely.distance(shape, pts)
    touch = dist < r[near]
    if not touch.any():
        return out
    idx = near[touch]
    pts = pts[touch]
    edge = shapely.distance(shape.boundary, pts)
    whole = (dist[touch] == 0.0) & (edge >= r[idx])
    out[idx[whole]] = 1.0
    cut = idx[~whole]
    if cut.size:
        discs = shapely.buffer(pts[~whole], r[cut], quad_segs=ARC_SEGMENTS // 4)
        inside = shapely.area(shapely.intersection(discs, shape))
        out[cut] = np.clip(inside / shapely.area(discs), 0.0, 1.0)
    return out


def convex_pieces(shape: shapely.Geometry) -> list[shapely.Polygon]:
    """``shape`` (a polygon, or several) as convex polygons covering it: a convex polygon
    itself, a concave one (or one with holes) as its constrained Delaunay triangles."""
    if shape is None or shape.is_empty:
        return []
    if shape.geom_type in ("MultiPolygon", "GeometryCollection"):
        return [q for part in shapely.get_parts(shape) for q in convex_pieces(part)]
    if shape.geom_type != "Polygon":
        return []  # lines and points cover no ground
    if abs(shape.convex_hull.area - shape.area) <= 1e-9 * max(shape.area, 1.0):
        return [shape]
    return [t for t in shapely.get_parts(shapely.constrained_delaunay_triangles(shape)) if t.area > 0]


def fire_shadows(polygons: Sequence[shapely.Geometry], heights: ArrayLike, origin, origin_z: float,
                 body_height: float, extent: float) -> shapely.Geometry:
    """The ground, seen from above, where an upright body ``body_height`` metres tall is
    wholly hidden (its centre column, to the top) from fire coming from ``origin`` at
    ``origin_z`` metres: behind each obstacle taller than the origin, from ``k`` times the
    obstacle's near distance on (``k = max(1, (body - z) / (h - z))``), out to ``extent``
    metres. Lower obstacles never hide a whole body taller than the fire's height. Used to
    draw zones with what walls stop taken out."""
    ox, oy = _xy(origin, "the origin")
    z = float(origin_z)
    H = _pos(body_height, "the body height")
    far = _pos(extent, "the extent")
    hs = np.asarray(heights, dtype=float).reshape(-1)
    pieces = []
    here = shapely.Point(ox, oy)
    for poly, h in zip(polygons, hs):
        if h <= z or poly.is_empty or poly.intersects(here):
            continue
        k = max(1.0, (H - z) / (h - z)) if H > z else 1.0
        for part in convex_pieces(poly):
            c = np.asarray(part.exterior.coords)[:-1] - (ox, oy)
            near = c * k
            d = np.hypot(c[:, 0], c[:, 1])
            scale = (far + 1.0) / np.maximum(d, 1e-9)
            away = c * np.maximum(scale, k)[:, None]
            hull = shapely.MultiPoint(np.vstack((near, away)) + (ox, oy)).convex_hull
            pieces.append(hull)
    if not pieces:
        return shapely.Polygon()
    return shapely.union_all(pieces)
