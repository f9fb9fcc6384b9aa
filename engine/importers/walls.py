"""Thin wall polygons from polylines, as map importers need them (metres).

A wall is a polyline made :data:`WALL_THICKNESS`-ish thick by the importer's half-width:
flat ends, mitred corners (:data:`MITRE_LIMIT`), coordinates on a :data:`PRECISION` grid when
that keeps the polygon valid. An obstacle's polygon has no holes, so a polyline that closes
on itself or crosses itself is cut (in the middle of a segment, where flat ends meet without
a gap) until no piece needs one; a long self-crossing line is cut into short pieces first
(:func:`chunked`). :class:`Crop` cuts shapes to the map and a margin.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely import ops

#: Coordinates are rounded to this grid (metres) when it keeps the polygon valid.
PRECISION = 0.001
#: Mitre limit for wall corners (multiples of the half-thickness).
MITRE_LIMIT = 5.0
#: A self-crossing chain longer than this many segments is cut into pieces of
#: :data:`CHUNK_SEGMENTS` segments (in the middle of a segment) before it is made thick.
CHUNK_ABOVE = 16
CHUNK_SEGMENTS = 8


class Crop:
    """Cuts shapes to the map and its margin (a rectangle, metres), counting what it drops
    (wholly outside) and what it cuts."""

    def __init__(self, box: shapely.Polygon) -> None:
        self.box = box
        shapely.prepare(box)
        self.dropped = 0
        self.cut_count = 0

    def cut(self, poly: shapely.Polygon) -> list[shapely.Polygon]:
        if self.box.contains(poly):
            return [poly]
        if not self.box.intersects(poly):
            self.dropped += 1
            return []
        piece = poly.intersection(self.box)
        parts = [g for g in getattr(piece, "geoms", [piece]) if isinstance(g, shapely.Polygon) and g.area > 1e-9]
        if not parts:
            self.dropped += 1
            return []
        self.cut_count += 1
        return [rounded(p) for p in parts]


def chunked(line: shapely.LineString) -> shapely.LineString | list[shapely.LineString]:
    """``line`` itself, or, when it crosses itself and has more than :data:`CHUNK_ABOVE`
    segments, pieces of :data:`CHUNK_SEGMENTS` segments cut in the middle of a segment (where
    flat ends meet without a gap): making a long self-crossing line thick at once costs time
    growing with the square of its crossings."""
    c = np.asarray(line.coords)
    if len(c) - 1 <= CHUNK_ABOVE or line.is_simple:
        return line
    return _cut_every(c, CHUNK_SEGMENTS)


def split(line: shapely.LineString, max_points: int) -> list[shapely.LineString]:
    """``line`` cut into pieces of at most ``max_points`` points, each cut in the middle of a
    segment (where flat ends meet without a gap): polylines merged end to end can make one
    chain of any length, and making a detailed chain thick at once costs time growing faster
    than its length (a comb of 10,000 points: 5.5 s of CPU in one piece)."""
    c = np.asarray(line.coords)
    if len(c) <= max_points:
        return [line]
    return _cut_every(c, max(int(max_points) - 2, 1))


def _cut_every(c: np.ndarray, step: int) -> list[shapely.LineString]:
    """The polyline ``c`` cut every ``step`` segments, in the middle of a segment."""
    pieces = []
    start, first = c[0], 1
    for k in range(step, len(c) - 1, step):
        mid = (c[k - 1] + c[k]) / 2  # the middle of segment k-1 .. k
        pieces.append(shapely.LineString(np.vstack([start[None], c[first:k], mid[None]])))
        start, first = mid, k
    pieces.append(shapely.LineString(np.vstack([start[None], c[first:]])))
    return pieces


def merge(lines: list[np.ndarray]) -> list[shapely.LineString]:
    """Polylines joined where exactly two of them meet end to end (``shapely.line_merge``),
    in a stable order (by the lower-left corner of their bounds)."""
    if not lines:
        return []
    snapped = [np.round(a, 6) for a in lines]
    merged = shapely.line_merge(shapely.MultiLineString([shapely.LineString(a) for a in snapped]))
    parts = list(merged.geoms) if hasattr(merged, "geoms") else [merged]
    parts = [p for p in parts if not p.is_empty and p.length > 0]
    parts.sort(key=lambda g: (round(g.bounds[1], 6), round(g.bounds[0], 6), round(g.length, 6)))
    return parts


def _buffer(line: shapely.LineString, half: float):
    with np.errstate(divide="ignore", invalid="ignore"):  # GEOS on lines folding back on themselves
        return line.buffer(half, cap_style="flat", join_style="mitre", mitre_limit=MITRE_LIMIT)


def thin_polygons(line, half: float, depth: int = 0) -> list[shapely.Polygon]:
    """Thin polygons covering ``line`` (``2 * half`` wide, flat ends, mitred corners), cut into
    pieces where one polygon would need a hole (a closed or self-crossing polyline). Pieces
    are cut in the middle of a segment, where their flat ends meet without a gap. ``line``
    may be a list of pieces (:func:`chunked`)."""
    if isinstance(line, list):
        return [p for piece in line for p in thin_polygons(piece, half, depth + 1)]
    if line.is_closed and depth == 0:
        line = _open_ring(line)
    poly = _buffer(line, half)
    parts = [_without_specks(p, half) for p in (poly.geoms if hasattr(poly, "geoms") else [poly])]
    if all(len(p.interiors) == 0 for p in parts) or len(line.coords) <= 2 or depth > 40:
        return [rounded(p) for p in parts if not p.is_empty and p.area > 0]
    a, b = _halves(line)
    return thin_polygons(a, half, depth + 1) + thin_polygons(b, half, depth + 1)


def _without_specks(poly: shapely.Polygon, half: float) -> shapely.Polygon:
    """``poly`` with its holes smaller than a square a tenth of the wall's half-width across
    filled: a line drawn back and forth finer than the wall is thick leaves such specks
    inside its thick polygon (4 of under 10 mm² in a 1,000-point zig-zag), and cutting the
    line in halves until none is left made it thick ~15 times over (0.12 s a wall). A room
    a wall closes is far larger (the narrowest ring of the shared samples leaves 0.009 m²)."""
    if not poly.interiors:
        return poly
    speck = (half / 10) ** 2
    holes = [h for h in poly.interiors if shapely.Polygon(h).area >= speck]
    if len(holes) == len(poly.interiors):
        return poly
    return shapely.Polygon(poly.exterior, holes)


def _open_ring(line: shapely.LineString) -> shapely.LineString:
    """A closed polyline restarted in the middle of its longest segment, so that its two
    flat ends meet along a straight line (no notch at a corner)."""
    c = np.asarray(line.coords)[:-1]
    seg = np.hypot(*(np.roll(c, -1, axis=0) - c).T)
    k = int(np.argmax(seg))
    mid = (c[k] + c[(k + 1) % len(c)]) / 2
    rest = np.concatenate([c[k + 1 :], c[: k + 1]])
    return shapely.LineString(np.vstack([mid, rest, mid]))


def _halves(line: shapely.LineString) -> tuple[shapely.LineString, shapely.LineString]:
    c = np.asarray(line.coords)
    seg = np.hypot(*np.diff(c, axis=0).T)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    k = int(np.searchsorted(cum, cum[-1] / 2, side="right") - 1)
    k = min(max(k, 0), len(seg) - 1)
    d = (cum[k] + cum[k + 1]) / 2  # the middle of the segment holding the half-way point
    return ops.substring(line, 0, d), ops.substring(line, d, cum[-1])


def filled(a: np.ndarray, half: float) -> shapely.Polygon | None:
    """The filled outline of a closed polyline (its thin polygon's outer ring)."""
    ring = shapely.LineString(np.vstack([a[:-1], a[:1]]))
    poly = _buffer(ring, half)
    if hasattr(poly, "geoms"):
        poly = max(poly.geoms, key=lambda g: g.area)
    if poly.is_empty:
        return None
    return rounded(shapely.Polygon(poly.exterior))


def rounded(poly: shapely.Polygon) -> shapely.Polygon:
    """``poly`` with coordinates on a :data:`PRECISION` grid when that keeps it one valid
    polygon without holes; else ``poly`` unchanged."""
    r = shapely.set_precision(poly, PRECISION)
    if isinstance(r, shapely.Polygon) and not r.is_empty and r.is_valid and not r.interiors and r.area > 0:
        return r
    return poly


def ring(poly: shapely.Polygon) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in list(poly.exterior.coords)[:-1])
