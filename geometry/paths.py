"""Movement on the map: shortest paths, charge plans, shoves and grapple drags.

Pure geometry (Shapely 2 + numpy): metres, x east, y south, directions in degrees with 0 east
and 90 south. A body is a disc of radius ``r``; it may stand wherever its disc does not
overlap an obstacle's footprint, another body's disc or the map edge. ``docs/movement.md``
explains the method, the defaults and the measured speed; in short:

* Every footprint is grown by the mover's radius (Minkowski sum with a regular
  :data:`SIDES`-gon drawn *around* the circle of radius ``r``, turned to the footprint's
  longest edge): the grown shape contains the true rounded one, so a path that clears it
  clears the real wall; sides are offset by exactly ``r``, corners by at most
  ``r / cos(pi / SIDES)``. The grown shapes are merged.
* The visibility graph's nodes are the convex corners of the merged shapes; an edge joins two
  corners when the segment between them is tangent at both ends (only such segments can be
  part of a shortest path) and crosses no grown shape. Candidate pairs are found per bin of
  line directions from a table of thin cells (no geometry); the segments are then tested all
  at once against the prepared merged shape. It is built once per obstacle set and radius
  (rounded to the centimetre) and kept in the :class:`Navigator`. In dense scenes each
  corner's edges are limited to a reach set by the local density of corners (about
  ``2 * PAIR_BUDGET / corners`` corners in its wedges), and paths found are pulled taut.
* A query adds the start, the goal and -- only when they turn out to be in the way -- the
  corners of other bodies' discs (grown the same way), and runs A*.
* :func:`plan_charge` finds the shortest path whose last leg is a straight run-up at the
  target (free bearings found exactly, finishes checked lazily, cheapest first; with a
  movement allowance the search and the bodies it looks at stay within it);
  :func:`slide` moves a disc straight until it touches something (exact);
  :func:`drag_path` moves two linked bodies like a short train.

Errors are :mod:`geometry.errors` types (``ValueError`` subclasses).
"""

from __future__ import annotations

import gc
import heapq
import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np
import shapely

from geometry._arrays import ragged_arange
from geometry.errors import InsideObstacleError, InvalidInputError, OutsideMapError

XY = tuple[float, float]

#: Corners of the polygon that stands in for a round body (drawn around the circle).
SIDES = 8
#: Metres: a body may touch a wall or another body; overlapping by more than this blocks it.
TOUCH = 1e-4
#: Candidate corner pairs a static graph may examine before edges get a length limit.
PAIR_BUDGET = 400_000
#: In a length-limited graph a start or goal looks for corners as far as a corner there looks
#: through its narrow tangent wedges (all round, so ~4x the candidates), times this.
START_REACH = 1.0
#: Charge plans by the same mover (position, radius, bodies) planned as single searches before
#: a shared shortest-path tree is kept for the rest (worth it when many targets are asked).
TREE_AFTER = 3


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class PathResult:
    """A path for a body's centre: ``points`` from start to goal (metres) and its ``length``."""

    points: tuple[XY, ...]
    length: float


@dataclass(frozen=True)
class ChargePlan:
    """How a body charges another: the shortest movement that ends in melee contact and whose
    last leg runs straight at the target for at least the run-up.

    ``path`` runs from the mover's centre to ``contact`` (the mover's centre when it arrives,
    ``r1 + r2 + reach`` metres from the target's centre); ``runup_start`` is where the final
    straight leg begins (``path[-2]``), at least the run-up away from ``contact``;
    ``movement`` is the path's length in metres. When no charge is possible, ``possible`` is
    False, ``reason`` says why in a sentence, and the other fields are empty/None."""

    possible: bool
    path: tuple[XY, ...]
    movement: float | None
    runup_start: XY | None
    contact: XY | None
    reason: str | None


@dataclass(frozen=True)
class SlideResult:
    """Where a body pushed in a straight line stops.

    ``end`` is its centre (metres), ``travelled`` how far it moved, ``stopped_by`` what
    stopped it short (the obstacle's id -- or ``"obstacle #i"`` -- , the body's id -- or
    ``"body #j"`` -- , or ``"map edge"``; None when it went the whole way).
    ``stopped_kind`` is ``"obstacle"``, ``"body"``, ``"edge"`` or None and ``stopped_index``
    the obstacle's or body's index in the lists given. Unpacks as
    ``end, travelled, stopped_by = slide(...)``."""

    end: XY
    travelled: float
    stopped_by: str | None
    stopped_kind: str | None = None
    stopped_index: int | None = None

    def __iter__(self) -> Iterator:
        return iter((self.end, self.travelled, self.stopped_by))


@dataclass(frozen=True)
class DragResult:
    """A grapple moved: the mover walks ``mover_path`` (its ``length`` metres) and drags the
    other body along ``other_path``; both end at ``mover_end`` and ``other_end``."""

    mover_path: tuple[XY, ...]
    other_path: tuple[XY, ...]
    mover_end: XY
    other_end: XY
    length: float


# --------------------------------------------------------------------------- input checks


def _point(p, role: str) -> XY:
    try:
        x, y = (float(v) for v in p)
    except (TypeError, ValueError):
        raise InvalidInputError(f"the {role} point must be two numbers (x, y), got {p!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise InvalidInputError(f"the {role} point ({x}, {y}) is not finite")
    return (x, y)


def _positive(v, what: str, allow_zero: bool = False) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{what} must be a number, got {v!r}") from None
    if not math.isfinite(f) or f < 0 or (f == 0 and not allow_zero):
        need = "zero or more" if allow_zero else "more than zero"
        raise InvalidInputError(f"{what} must be a finite number {need}, got {v!r}")
    return f


def _disc_array(discs) -> np.ndarray:
    if discs is None:
        return np.zeros((0, 3))
    try:
        a = np.asarray(discs, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError("discs must be an (m, 3) array of (x, y, radius) rows") from None
    if a.size == 0:
        return np.zeros((0, 3))
    if a.ndim != 2 or a.shape[1] != 3:
        raise InvalidInputError(f"discs must be an (m, 3) array of (x, y, radius) rows, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise InvalidInputError("discs hold a NaN or infinite number")
    if (a[:, 2] < 0).any():
        raise InvalidInputError("a disc has a negative radius")
    return a


def _regular(sides: int, rho: float, phase: float) -> np.ndarray:
    a = phase + 2.0 * np.pi * np.arange(sides) / sides
    return rho * np.column_stack([np.cos(a), np.sin(a)])


def _length(points) -> float:
    a = np.asarray(points, dtype=float)
    if len(a) < 2:
        return 0.0
    return float(np.hypot(*np.diff(a, axis=0).T).sum())


def _merge_collinear(points: list[XY], tol: float = 1e-7) -> list[XY]:
    """Drop repeated points and points in the middle of a straight run."""
    out: list[XY] = []
    for p in points:
        if out and math.hypot(p[0] - out[-1][0], p[1] - out[-1][1]) <= 1e-9:
            continue
        while len(out) >= 2:
            a, b = out[-2], out[-1]
            ux, uy = b[0] - a[0], b[1] - a[1]
            vx, vy = p[0] - b[0], p[1] - b[1]
            lu, lv = math.hypot(ux, uy), math.hypot(vx, vy)
            if abs(ux * vy - uy * vx) <= tol * lu * lv and ux * vx + uy * vy > 0:
                out.pop()
            else:
                break
        out.append(p)
    return out


def _truncate(points: Sequence[XY], distance: float) -> list[XY]:
    """The first ``distance`` metres of a polyline."""
    out = [points[0]]
    run = 0.0
    for a, b in zip(points, points[1:]):
        seg = math.hypot(b[0] - a[0], b[1] - a[1])
        if run + seg >= distance - 1e-12:
            f = (distance - run) / seg if seg > 0 else 0.0
            out.append((a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])))
            return _merge_collinear(out)
        out.append(b)
        run += seg
    return list(points)


# --------------------------------------------------------------------------- static graph


def _pieces(polygons: Sequence[shapely.Polygon], sides: int):
    """The footprints as convex pieces (one per convex footprint, one per triangle of a
    concave one), for :func:`_grow`: (vertices (k, 2), piece of each vertex, turn of each
    vertex's growing polygon in radians). Independent of the radius."""
    polys = np.asarray(polygons, dtype=object)
    # the direction of each footprint's longest edge
    xy, owner = shapely.get_coordinates(shapely.get_exterior_ring(polys), return_index=True)
    same = owner[1:] == owner[:-1]
    e = xy[1:] - xy[:-1]
    elen = np.where(same, np.hypot(e[:, 0], e[:, 1]), -1.0)
    best = np.full(len(polys), -1.0)
    np.maximum.at(best, owner[:-1], elen)
    is_best = same & (elen == best[owner[:-1]])
    first = np.full(len(polys), -1, dtype=np.int64)
    hit = np.flatnonzero(is_best)
    first[owner[:-1][hit[::-1]]] = hit[::-1]  # the first longest edge of each footprint
    phi = np.arctan2(e[first, 1], e[first, 0]) + math.pi / sides
    hull_area = shapely.area(shapely.convex_hull(polys))
    concave = (shapely.get_num_interior_rings(polys) > 0) | (hull_area - shapely.area(polys) > 1e-9 * hull_area)
    # pieces: the convex footprints themselves, the triangles of the concave ones
    convex_pt = ~concave[owner]
    pc_xy = [xy[convex_pt]]
    uniq, inv = np.unique(owner[convex_pt], return_inverse=True)
    pc_id = [inv]
    pc_owner = [uniq]
    nxt = len(uniq)
    for i in np.flatnonzero(concave):
        tri = shapely.get_parts(shapely.constrained_delaunay_triangles(polys[i]))
        txy, tidx = shapely.get_coordinates(shapely.get_exterior_ring(tri), return_index=True)
        pc_xy.append(txy)
        pc_id.append(tidx + nxt)
        pc_owner.append(np.full(len(tri), i))
        nxt += len(tri)
    P = np.concatenate(pc_xy)
    pid = np.concatenate(pc_id)
    pown = np.concatenate(pc_owner)
    return P, pid, phi[pown[pid]]


def _grow(polygons: Sequence[shapely.Polygon], r: float, sides: int, pieces=None) -> np.ndarray:
    """Each footprint grown by ``r`` as convex pieces (one per convex footprint, one per
    triangle of a concave one): Minkowski sums with a ``sides``-gon drawn around the circle
    of radius ``r``, turned to the footprint's longest edge (so a box grows into an octagon
    whose sides are exactly ``r`` out). ``pieces`` is :func:`_pieces` of the polygons when
    known already."""
    if len(polygons) == 0:
        return np.empty(0, dtype=object)
    P, pid, turn = _pieces(polygons, sides) if pieces is None else pieces
    rho = r / math.cos(math.pi / sides)
    base = _regular(sides, rho, 0.0)
    c, s_ = np.cos(turn), np.sin(turn)
    Kx = c[:, None] * base[None, :, 0] - s_[:, None] * base[None, :, 1]
    Ky = s_[:, None] * base[None, :, 0] + c[:, None] * base[None, :, 1]
    pts = np.stack([P[:, 0:1] + Kx, P[:, 1:2] + Ky], axis=-1).reshape(-1, 2)
    # (hull of a line through the points: building it skips making a point object per vertex)
    return shapely.convex_hull(shapely.linestrings(pts, indices=np.repeat(pid, sides)))


def _union(pieces: np.ndarray):
    """Union of many small shapes that mostly form separate clusters."""
    try:
        return shapely.disjoint_subset_union_all(pieces)  # Shapely >= 2.1, GEOS >= 3.12
    except (AttributeError, shapely.errors.UnsupportedGEOSVersionError):  # pragma: no cover
        return shapely.union_all(pieces)


def _wedge_box_pairs(x: np.ndarray, y: np.ndarray, reach: np.ndarray, slope: float,
                     cols_per_reach: float = 2.0, row: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i, j) of points (i == j included) with |x[j] - x[i]| <= reach[i] and
    |y[j] - y[i]| <= slope * |x[j] - x[i]| (a thin double wedge along x), and some more.

    The points are binned into a grid of columns along x (half the median reach wide)
    and thin rows (``row`` metres), sorted by cell; a point's wedge covers a contiguous run of
    cells in every column it spans (as tall as the wedge at the column's far side), found by
    two table look-ups per column."""
    x0, y0 = float(x.min()), float(y.min())
    width = max(float(np.median(reach)) / cols_per_reach, 1e-6)
    ncol = int((float(x.max()) - x0) // width) + 1
    nrow = int((float(y.max()) - y0) // row) + 1
    col = np.minimum(((x - x0) // width).astype(np.int64), ncol - 1)
    cell = col * nrow + np.minimum(((y - y0) // row).astype(np.int64), nrow - 1)
    order = np.argsort(cell, kind="stable")
    start = np.zeros(ncol * nrow + 1, dtype=np.int64)
    np.cumsum(np.bincount(cell, minlength=ncol * nrow), out=start[1:])
    c0 = np.clip(((x - reach - x0) // width).astype(np.int64), 0, ncol - 1)
    c1 = np.clip(((x + reach - x0) // width).astype(np.int64), 0, ncol - 1)
    ncols = c1 - c0 + 1
    q = np.repeat(np.arange(len(x)), ncols)  # (point, column) pairs: the point ...
    c = c0[q] + ragged_arange(ncols)  # ... and the column
    xq = x[q] - x0
    far = np.minimum(np.maximum(np.abs(c * width - xq), np.abs((c + 1) * width - xq)), reach[q])
    hy = far * slope + 1e-9
    yq = y[q] - y0
    r0 = np.clip(((yq - hy) // row).astype(np.int64), 0, nrow - 1)
    r1 = np.clip(((yq + hy) // row).astype(np.int64), 0, nrow - 1)
    lo = start[c * nrow + r0]
    cnt = start[c * nrow + r1 + 1] - lo
    # expand the runs: (q, order[lo], ..., order[hi - 1]) for every (point, column)
    pos = np.repeat(lo, cnt) + ragged_arange(cnt)
    return np.repeat(q.astype(np.int32), cnt), order.astype(np.int32)[pos]


class _Graph:
    """The visibility graph for one radius: grown obstacles, their convex corners, the free
    edges between them (CSR adjacency), and the shapes used to test segments."""

    def __init__(self, polygons, bounds, r: float, sides: int, pair_budget: int,
                 max_edge: float | None, pieces=None):
        self.r = r
        self.sides = sides
        self.inset = None
        if bounds is not None:
            x0, y0, x1, y1 = bounds
            self.inset = (x0 + r, y0 + r, x1 - r, y1 - r)
        pieces = _grow(polygons, r, sides, pieces)
        union = shapely.orient_polygons(_union(pieces)) if len(pieces) else shapely.Polygon()
        self.union = union
        self.parts = shapely.get_parts(union)
        self.parts_tree = shapely.STRtree(self.parts)
        # segments are tested against the grown shapes shrunk by TOUCH: running along a grown
        # side (touching the wall) is allowed, cutting into it is not
        self.solid = shapely.buffer(union, -TOUCH, join_style="mitre") if len(self.parts) else union
        shapely.prepare(self.solid)
        self._nodes()
        self._edges(pair_budget, max_edge)
        self._disc_cache: dict[tuple[float, float, float], np.ndarray] = {}
        self._edge_tree = None

    # nodes: convex corners of the merged grown shapes, inside the map
    def _nodes(self) -> None:
        rings = shapely.get_rings(self.parts) if len(self.parts) else np.zeros(0, dtype=object)
        xy, ring = shapely.get_coordinates(rings, return_index=True)
        # drop each ring's closing point; neighbours within each ring, wrapping round
        last = np.ones(len(xy), dtype=bool)
        last[:-1] = ring[1:] != ring[:-1]
        xy, ring = xy[~last], ring[~last]
        size = np.bincount(ring, minlength=len(rings))
        start = np.cumsum(size) - size
        pos = np.arange(len(xy)) - start[ring]
        prev = start[ring] + (pos - 1) % size[ring]
        nxt = start[ring] + (pos + 1) % size[ring]
        big = (size >= 3)[ring]
        A = xy[prev] - xy
        B = xy[nxt] - xy
        cross = (-A[:, 0]) * B[:, 1] - (-A[:, 1]) * B[:, 0]
        m = big & (cross > 1e-12)
        N, A, B = xy[m], A[m], B[m]
        # where each corner sits on its ring (two corners next to each other there are the
        # ends of one side of a merged shape: the segment between them is free)
        self._ring, self._pos, self._size = ring[m], pos[m], size[ring[m]]
        if self.inset is not None and len(N):
            x0, y0, x1, y1 = self.inset
            m = (N[:, 0] >= x0) & (N[:, 0] <= x1) & (N[:, 1] >= y0) & (N[:, 1] <= y1)
            N, A, B = N[m], A[m], B[m]
            self._ring, self._pos, self._size = self._ring[m], self._pos[m], self._size[m]
        A = A / np.hypot(A[:, 0], A[:, 1])[:, None] if len(A) else A
        B = B / np.hypot(B[:, 0], B[:, 1])[:, None] if len(B) else B
        self.N, self.A, self.B = N, A, B
        self.n = len(N)
        self.xy = [tuple(p) for p in N.tolist()]
        self.node_tree = shapely.STRtree(shapely.points(N)) if self.n else None  # for queries
        self.diag = float(np.hypot(*(N.max(axis=0) - N.min(axis=0)))) + 2.0 if self.n else 0.0

    @staticmethod
    def _tangent(d: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """Whether the lines along d (k, 2) through corners with unit neighbour directions A, B
        stay outside the corner (both neighbours on one side): only such lines can be part of
        a shortest path that bends there."""
        sa = d[:, 0] * A[:, 1] - d[:, 1] * A[:, 0]
        sb = d[:, 0] * B[:, 1] - d[:, 1] * B[:, 0]
        tol = 1e-9 * np.maximum(np.hypot(d[:, 0], d[:, 1]), 1.0)
        return (sa * sb >= -tol * tol) | (np.abs(sa) <= tol) | (np.abs(sb) <= tol)

    def _edges(self, pair_budget: int, max_edge: float | None) -> None:
        n = self.n
        N, A, B = self.N, self.A, self.B
        self.K = max(24.0, 2.0 * pair_budget / max(n, 1))  # candidates a corner may examine
        self.density = None
        if max_edge is None and n * (n - 1) // 2 <= 1.5 * pair_budget:
            max_edge = math.inf
        self.max_edge = max_edge if max_edge is not None else -1.0  # -1: per corner, by density
        if n < 2:
            i = j = np.zeros(0, dtype=np.int64)
        elif math.isinf(self.max_edge):
            i, j = np.triu_indices(n, 1)
        else:
            aa = np.arctan2(A[:, 1], A[:, 0])
            w = np.mod(np.arctan2(B[:, 1], B[:, 0]) + np.pi - aa, 2 * np.pi)
            if max_edge is not None:
                L = np.full(n, float(max_edge))
            else:
                self._density_grid()
                L = self.reach(N, w)
            self.L = L
            i, j = self._wedge_pairs(L, aa, w)  # tangent at both ends already
        if len(i) and math.isinf(self.max_edge):
            d = N[j] - N[i]
            ok = self._tangent(d, A[i], B[i]) & self._tangent(d, A[j], B[j])
            i, j = i[ok], j[ok]
        if len(i):
            # a side of a merged shape runs along it: free without a test (the shapes tested
            # against are shrunk by TOUCH); every other pair is tested all at once
            step = np.abs(self._pos[i] - self._pos[j])
            side = (self._ring[i] == self._ring[j]) & ((step == 1) | (step == self._size[i] - 1))
            test = np.flatnonzero(~side)
            free = side.copy()
            lines = shapely.linestrings(np.stack([N[i[test]], N[j[test]]], axis=1))
            free[test] = ~shapely.intersects(self.solid, lines)
            i, j = i[free], j[free]
        self.ei, self.ej = i.astype(np.int64), j.astype(np.int64)
        self.ew = np.hypot(*(N[self.ej] - N[self.ei]).T) if len(i) else np.zeros(0)
        # CSR adjacency, both directions
        src = np.concatenate([self.ei, self.ej])
        dst = np.concatenate([self.ej, self.ei])
        eid = np.concatenate([np.arange(len(self.ei)), np.arange(len(self.ei))])
        order = np.argsort(src, kind="stable")
        self.nbr = dst[order]
        self.nbr_eid = eid[order]
        self.indptr = np.searchsorted(src[order], np.arange(n + 1))
        self.nbr_list = self.nbr.tolist()
        self.eid_list = self.nbr_eid.tolist()
        self.ew_list = self.ew.tolist()
        self.indptr_list = self.indptr.tolist()

    def _density_grid(self) -> None:
        """Corners per square metre around each cell of a coarse grid (3 x 3 cells summed)."""
        N = self.N
        lo = N.min(axis=0) - 1.0
        hi = N.max(axis=0) + 1.0
        area = float(np.prod(hi - lo))
        cell = math.sqrt(16.0 * area / self.n)
        nx, ny = (int(v) for v in np.maximum(np.ceil((hi - lo) / cell), 1))
        ix = np.clip(((N[:, 0] - lo[0]) // cell).astype(np.int64), 0, nx - 1)
        iy = np.clip(((N[:, 1] - lo[1]) // cell).astype(np.int64), 0, ny - 1)
        counts = np.zeros((nx + 2, ny + 2))
        np.add.at(counts, (ix + 1, iy + 1), 1.0)
        box = sum(counts[dx:dx + nx, dy:dy + ny] for dx in range(3) for dy in range(3))
        self.density = (lo, cell, box / (9.0 * cell * cell))
        self.diag = float(np.hypot(*(hi - lo)))

    def reach(self, P: np.ndarray, w: np.ndarray | float) -> np.ndarray:
        """Edge-length limit (metres) for corners at P letting through directions of total
        width 2 w (radians): long where corners are sparse, short where they crowd, so that
        each examines about K candidates."""
        if self.density is None:
            return np.full(len(P), self.max_edge if self.max_edge > 0 else math.inf)
        lo, cell, dens = self.density
        ix = np.clip(((P[:, 0] - lo[0]) // cell).astype(np.int64), 0, dens.shape[0] - 1)
        iy = np.clip(((P[:, 1] - lo[1]) // cell).astype(np.int64), 0, dens.shape[1] - 1)
        rho = np.maximum(dens[ix, iy], 1e-6)
        L = np.sqrt(self.K / (rho * np.maximum(w, 0.05)))
        return np.clip(L, 3.0, self.diag)

    #: Line-direction bins (over 180 degrees) used to find candidate corner pairs.
    DIRECTION_BINS = 16

    def _wedge_pairs(self, L: np.ndarray, aa: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Corner pairs (i < j), at most L[i] or L[j] apart, whose segment is tangent at both
        ends.

        A segment tangent at corner i has its direction (as a line, modulo 180 degrees) in i's
        wedge [aa, aa + w]; tangent at both ends, in both wedges. So the line directions are
        cut into :attr:`DIRECTION_BINS` bins; for each bin the corners whose wedge reaches
        into it are turned so the bin's middle runs along x, and each picks partners from the
        thin double wedge (its reach L along x, the bin's width across) with
        :func:`_wedge_box_pairs` (a table of cells, no geometry). That finds every pair (and
        some more), which is then filtered exactly by distance and tangency in numpy."""
        N, A, B = self.N, self.A, self.B
        n = self.n
        M = self.DIRECTION_BINS
        d = math.pi / M
        eps = 1e-6  # wedges reach this far into the neighbouring bin (directions on a bin edge)
        lo = np.mod(aa, math.pi) - eps
        b0 = np.floor(lo / d).astype(np.int64)
        cnt = np.floor((lo + w + 2 * eps) / d).astype(np.int64) - b0 + 1
        ci = np.repeat(np.arange(n), cnt)
        bi = np.mod(np.repeat(b0, cnt) + ragged_arange(cnt), M)
        order = np.argsort(bi, kind="stable")
        ci, bi = ci[order], bi[order]
        cut = np.searchsorted(bi, np.arange(M + 1))
        slope = math.tan(d / 2 + 2 * eps)
        Nx, Ny = np.ascontiguousarray(N[:, 0]), np.ascontiguousarray(N[:, 1])
        Ax, Ay = np.ascontiguousarray(A[:, 0]), np.ascontiguousarray(A[:, 1])
        Bx, By = np.ascontiguousarray(B[:, 0]), np.ascontiguousarray(B[:, 1])
        I, J = [], []
        for b in range(M):
            S = ci[cut[b]:cut[b + 1]]
            if len(S) < 2:
                continue
            c = (b + 0.5) * d
            cs, sn = math.cos(c), math.sin(c)
            x = N[S, 0] * cs + N[S, 1] * sn
            y = N[S, 1] * cs - N[S, 0] * sn
            Ls = L[S]
            qi, tj = _wedge_box_pairs(x, y, Ls, slope)
            # within this bin's double wedge (|dy| <= |dx| tan), the reach, and found once
            # (from the lower index, unless only the other end reaches that far)
            dx, dy = x[tj] - x[qi], y[tj] - y[qi]
            d2 = dx * dx + dy * dy
            m = (np.abs(dy) <= np.abs(dx) * slope + 1e-9) & (d2 <= Ls[qi] ** 2) & (qi != tj) \
                & ((qi < tj) | (d2 > Ls[tj] ** 2))
            i, j = S[qi[m]], S[tj[m]]
            # tangent at both ends (as _tangent, on flat arrays)
            dx, dy = Nx[j] - Nx[i], Ny[j] - Ny[i]
            tol = 1e-9 * np.maximum(np.hypot(dx, dy), 1.0)
            for end in (0, 1):
                k = i if end == 0 else j
                sa = dx * Ay[k] - dy * Ax[k]
                sb = dx * By[k] - dy * Bx[k]
                m = (sa * sb >= -tol * tol) | (np.abs(sa) <= tol) | (np.abs(sb) <= tol)
                i, j, dx, dy, tol = i[m], j[m], dx[m], dy[m], tol[m]
            I.append(i)
            J.append(j)
        i = np.concatenate(I) if I else np.zeros(0, dtype=np.int64)
        j = np.concatenate(J) if J else np.zeros(0, dtype=np.int64)
        key = np.sort(np.minimum(i, j) * n + np.maximum(i, j))
        if len(key):  # a pair on the edge of two bins is found in both
            key = key[np.concatenate([[True], key[1:] != key[:-1]])]
        return key // n, key % n

    # ----------------------------------------------------------------- segment tests

    def inside_bounds(self, P: np.ndarray) -> np.ndarray:
        if self.inset is None:
            return np.ones(len(P), dtype=bool)
        x0, y0, x1, y1 = self.inset
        t = TOUCH
        return (P[:, 0] >= x0 - t) & (P[:, 0] <= x1 + t) & (P[:, 1] >= y0 - t) & (P[:, 1] <= y1 + t)

    def static_free(self, P: np.ndarray, Q: np.ndarray, lines=None) -> np.ndarray:
        """Whether each segment P[i]-Q[i] stays clear of the grown obstacles and the map edge."""
        if len(P) == 0:
            return np.zeros(0, dtype=bool)
        ok = self.inside_bounds(P) & self.inside_bounds(Q)
        if len(self.parts):
            if lines is None:
                lines = _lines(P, Q)
            ok &= ~shapely.intersects(self.solid, lines)
        return ok

    def point_free(self, p: XY) -> bool:
        if not self.inside_bounds(np.array([p]))[0]:
            return False
        return not (len(self.parts) and shapely.intersects_xy(self.solid, p[0], p[1]))

    def escape(self, p: XY) -> XY | None:
        """The nearest free spot to a centre that overlaps a grown obstacle or the map edge
        (a body placed a little too close to a wall steps straight out), or None."""
        for _ in range(4):
            x, y = p
            if self.inset is not None:
                x0, y0, x1, y1 = self.inset
                x, y = min(max(x, x0), x1), min(max(y, y0), y1)
            p = (x, y)
            if self.point_free(p):
                return p
            if self.inset is not None and (x0 > x1 or y0 > y1):
                return None
            pt = shapely.Point(p)
            hit = self.parts_tree.query(pt, predicate="intersects")
            if len(hit) == 0:
                return None
            boundary = shapely.union_all(shapely.boundary(self.parts[hit]))
            q = shapely.shortest_line(boundary, pt).coords[0]
            dx, dy = q[0] - x, q[1] - y
            d = math.hypot(dx, dy)
            push = 3 * TOUCH
            p = (q[0] + dx / d * push, q[1] + dy / d * push) if d > 0 else (q[0], q[1])
        return p if self.point_free(p) else None

    def disc_blocking(self, discs: np.ndarray) -> dict[int, list[int]]:
        """Static edge id -> indices of the discs (x, y, grown radius) that block it."""
        if len(discs) == 0 or len(self.ei) == 0:
            return {}
        if self._edge_tree is None:
            self._edge_tree = shapely.STRtree(
                shapely.linestrings(np.stack([self.N[self.ei], self.N[self.ej]], axis=1)))
        keys = [(float(x), float(y), float(R)) for x, y, R in discs.tolist()]
        missing = [k for k in dict.fromkeys(keys) if k not in self._disc_cache]
        if missing:
            if len(self._disc_cache) > 20000:
                self._disc_cache.clear()
            m = np.asarray(missing)
            qi, e = self._edge_tree.query(shapely.points(m[:, :2]), predicate="dwithin",
                                          distance=np.maximum(m[:, 2] - TOUCH, 0.0))
            order = np.argsort(qi, kind="stable")
            qi, e = qi[order], e[order]
            cut = np.searchsorted(qi, np.arange(len(missing) + 1))
            for k, key in enumerate(missing):
                self._disc_cache[key] = e[cut[k]:cut[k + 1]]
        out: dict[int, list[int]] = {}
        for j, key in enumerate(keys):
            for e in self._disc_cache[key].tolist():
                out.setdefault(e, []).append(j)
        return out


# --------------------------------------------------------------------------- one query


def _lines(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Segments P[i]-Q[i] as shapely geometries (a point where both ends coincide)."""
    geoms = shapely.linestrings(np.stack([P, Q], axis=1))
    same = (P == Q).all(axis=1)
    if same.any():
        geoms[same] = shapely.points(P[same])
    return geoms


class _Query:
    """One search on top of a static graph: extra nodes (start, goal, corners of bodies in
    the way) and their edges, with the other bodies' discs (x, y, radius grown by the
    mover's radius) as per-query obstacles."""

    def __init__(self, g: _Graph, discs: np.ndarray, graph_edges: bool = True,
                 near: tuple[XY, float] | None = None):
        self.g = g
        self.n0 = g.n
        self.C = np.ascontiguousarray(discs[:, :2], dtype=float)
        self.R = np.ascontiguousarray(discs[:, 2], dtype=float)
        self.maxR = float(self.R.max()) if len(self.R) else 0.0
        self.disc_tree = shapely.STRtree(shapely.points(self.C)) if len(self.C) else None
        self.pts: list[XY] = []
        self.P = np.zeros((0, 2))
        self.TA = np.zeros((0, 2))
        self.TB = np.zeros((0, 2))
        self.has_tan = np.zeros(0, dtype=bool)
        self.Lov = np.zeros(0)
        self.adj: dict[int, list[tuple[int, float]]] = {}
        self.badj: dict[int, list[tuple[int, float, tuple[int, ...]]]] = {}
        self.active: set[int] = set()
        # static edges blocked by bodies; with ``near`` = (point, limit) only by the bodies
        # within limit of the point: a search from there that never goes further than limit
        # cannot meet the others on a static edge (every point of an edge it takes is closer)
        self.near = near
        self.edge_block: dict[int, list[int]] = {}
        if len(discs) and graph_edges:
            if near is None:
                self.edge_block = g.disc_blocking(discs)
            else:
                (px, py), lim = near
                keep = np.flatnonzero(np.hypot(self.C[:, 0] - px, self.C[:, 1] - py) - self.R <= lim)
                sub = g.disc_blocking(discs[keep])
                self.edge_block = {e: [int(keep[j]) for j in js] for e, js in sub.items()}
        self.smooth = not math.isinf(g.max_edge)

    def xy(self, i: int) -> XY:
        return self.g.xy[i] if i < self.n0 else self.pts[i - self.n0]

    # ------------------------------------------------------------- segment tests with bodies
    def blocked_by(self, P: np.ndarray, Q: np.ndarray, lines=None) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (segment i, disc j) where disc j blocks segment P[i]-Q[i]."""
        if self.disc_tree is None or len(P) == 0:
            e = np.zeros(0, dtype=np.int64)
            return e, e
        if lines is None:
            lines = _lines(P, Q)
        li, dj = self.disc_tree.query(lines, predicate="dwithin", distance=self.maxR)
        if len(li) == 0:
            return li, dj
        A, d = P[li], Q[li] - P[li]
        dd = np.einsum("ij,ij->i", d, d)
        w = self.C[dj] - A
        t = np.clip(np.einsum("ij,ij->i", w, d) / np.where(dd > 0, dd, 1.0), 0.0, 1.0)
        f = A + t[:, None] * d - self.C[dj]
        hit = np.hypot(f[:, 0], f[:, 1]) < self.R[dj] - TOUCH
        return li[hit], dj[hit]

    def free(self, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """Whether each segment is clear of grown obstacles, the map edge and the bodies."""
        if len(P) == 0:
            return np.zeros(0, dtype=bool)
        lines = _lines(P, Q)
        ok = self.g.static_free(P, Q, lines)
        li, _ = self.blocked_by(P, Q, lines)
        ok[li] = False
        return ok

    def point_in_disc(self, p: XY) -> np.ndarray:
        if len(self.C) == 0:
            return np.zeros(0, dtype=bool)
        return np.hypot(self.C[:, 0] - p[0], self.C[:, 1] - p[1]) < self.R - TOUCH

    # ------------------------------------------------------------- extra nodes
    def add_nodes(self, P: np.ndarray, TA: np.ndarray | None = None, TB: np.ndarray | None = None) -> list[int]:
        """Add nodes at P (k, 2) -- with the unit directions to their polygon neighbours TA, TB
        when they are corners -- and connect them to every node they see: static corners
        within the graph's edge limit (further, nearest first, when none is seen) and the
        other extra nodes."""
        g = self.g
        P = np.asarray(P, dtype=float).reshape(-1, 2)
        k = len(P)
        if k == 0:
            return []
        has = TA is not None
        if not has:
            TA = TB = np.zeros((k, 2))
        k0 = self.n0 + len(self.pts)
        limited = not math.isinf(g.max_edge)
        # a disc corner sees through two narrow wedges like any corner; a start or goal sees
        # all round, as far (it is one node, and long first/last legs matter)
        Lk = g.reach(P, 2.0 * math.pi / g.sides) * (1.0 if has else START_REACH) if limited else np.full(k, math.inf)
        src, dst = [], []
        # static corners
        if g.n:
            if not limited:
                a = np.repeat(np.arange(k), g.n)
                b = np.tile(np.arange(g.n), k)
            else:
                a, b = g.node_tree.query(shapely.points(P), predicate="dwithin", distance=Lk)
            d = g.N[b] - P[a]
            ok = _Graph._tangent(d, g.A[b], g.B[b])
            if has:
                ok &= _Graph._tangent(d, TA[a], TB[a])
            src.append(a[ok])
            dst.append(b[ok])
        # earlier extra nodes, then the new ones among themselves
        m = len(self.pts)
        allP = np.vstack([self.P, P])
        allTA = np.vstack([self.TA, TA])
        allTB = np.vstack([self.TB, TB])
        allhas = np.concatenate([self.has_tan, np.full(k, has)])
        allL = np.concatenate([self.Lov, Lk])
        if m + k > 1:
            a = np.repeat(np.arange(k), m + k)
            b = np.tile(np.arange(m + k), k)
            keep = b < m + a
            a, b = a[keep], b[keep]
            d = allP[b] - P[a]
            ok = np.hypot(d[:, 0], d[:, 1]) <= np.maximum(Lk[a], allL[b])
            ok &= _Graph._tangent(d, allTA[b], allTB[b]) | ~allhas[b]
            if has:
                ok &= _Graph._tangent(d, TA[a], TB[a])
            src.append(a[ok])
            dst.append(b[ok] + self.n0)
        self.pts.extend((float(x), float(y)) for x, y in P.tolist())
        self.P, self.TA, self.TB, self.has_tan, self.Lov = allP, allTA, allTB, allhas, allL
        if src:
            self._link(np.concatenate(src) + k0, np.concatenate(dst))
        if g.n and limited and not has:
            # a start or goal that sees no corner within its reach looks further, in growing
            # rings, until it sees one (corners have their reach; open ground has long edges)
            for i in range(k0, k0 + k):
                if self.adj.get(i) or self.badj.get(i):
                    continue
                p = allP[i - self.n0]
                inner = float(allL[i - self.n0])
                while not (self.adj.get(i) or self.badj.get(i)) and inner < g.diag:
                    outer = 2.0 * inner
                    b = g.node_tree.query(shapely.Point(p), predicate="dwithin", distance=outer)
                    d = g.N[b] - p
                    dist = np.hypot(d[:, 0], d[:, 1])
                    b = b[(dist > inner) & _Graph._tangent(d, g.A[b], g.B[b])]
                    b = b[np.argsort(np.hypot(g.N[b, 0] - p[0], g.N[b, 1] - p[1]), kind="stable")]
                    for s_ in range(0, len(b), 256):
                        self._link(np.full(len(b[s_:s_ + 256]), i), b[s_:s_ + 256])
                        if self.adj.get(i) or self.badj.get(i):
                            break
                    inner = outer
        return list(range(k0, k0 + k))

    def tangents(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unit directions to the polygon neighbours of nodes ids, and whether they have any
        (a start or goal has none)."""
        A = np.zeros((len(ids), 2))
        B = np.zeros((len(ids), 2))
        has = np.ones(len(ids), dtype=bool)
        st = ids < self.n0
        A[st], B[st] = self.g.A[ids[st]], self.g.B[ids[st]]
        ov = ids[~st] - self.n0
        A[~st], B[~st], has[~st] = self.TA[ov], self.TB[ov], self.has_tan[ov]
        return A, B, has

    def _coords(self, ids: np.ndarray) -> np.ndarray:
        out = np.empty((len(ids), 2))
        st = ids < self.n0
        out[st] = self.g.N[ids[st]]
        out[~st] = self.P[ids[~st] - self.n0]
        return out

    def _link(self, a: np.ndarray, b: np.ndarray) -> None:
        """Add the edges a[i]-b[i] that are free (or blocked by bodies only: kept aside, so
        that a search can tell which bodies are worth walking around)."""
        if len(a) == 0:
            return
        P, Q = self._coords(a), self._coords(b)
        lines = _lines(P, Q)
        ok = self.g.static_free(P, Q, lines)
        sel = np.flatnonzero(ok)
        li, dj = self.blocked_by(P[sel], Q[sel], lines[sel])
        li = sel[li]
        w = np.hypot(Q[:, 0] - P[:, 0], Q[:, 1] - P[:, 1]).tolist()
        blockers: dict[int, list[int]] = {}
        for i, j in zip(li.tolist(), dj.tolist()):
            blockers.setdefault(i, []).append(j)
        al, bl, okl = a.tolist(), b.tolist(), ok.tolist()
        adj, badj = self.adj, self.badj
        for t in range(len(al)):
            if not okl[t]:
                continue
            u, v, wt = al[t], bl[t], w[t]
            who = blockers.get(t)
            if who is None:
                adj.setdefault(u, []).append((v, wt))
                adj.setdefault(v, []).append((u, wt))
            else:
                badj.setdefault(u, []).append((v, wt, tuple(who)))
                badj.setdefault(v, []).append((u, wt, tuple(who)))

    def activate(self, js) -> None:
        """Add the corners of the grown discs of bodies js as nodes."""
        js = [j for j in js if j not in self.active]
        if not js:
            return
        self.active.update(js)
        g = self.g
        base = _regular(g.sides, 1.0 / math.cos(math.pi / g.sides), math.pi / g.sides)
        prev = np.roll(base, 1, axis=0) - base
        nxt = np.roll(base, -1, axis=0) - base
        prev /= np.hypot(prev[:, 0], prev[:, 1])[:, None]
        nxt /= np.hypot(nxt[:, 0], nxt[:, 1])[:, None]
        J = np.asarray(js)
        V = (self.C[J][:, None, :] + self.R[J][:, None, None] * base[None]).reshape(-1, 2)
        owner = np.repeat(J, g.sides)
        TA = np.tile(prev, (len(J), 1))
        TB = np.tile(nxt, (len(J), 1))
        ok = g.inside_bounds(V)
        if len(g.parts):
            ok &= ~shapely.intersects_xy(g.solid, V[:, 0], V[:, 1])
        if self.disc_tree is not None:
            pi, dj = self.disc_tree.query(shapely.points(V), predicate="dwithin", distance=self.maxR)
            inside = (np.hypot(V[pi, 0] - self.C[dj, 0], V[pi, 1] - self.C[dj, 1]) < self.R[dj] - TOUCH) \
                & (dj != owner[pi])
            ok[pi[inside]] = False
        self.add_nodes(V[ok], TA[ok], TB[ok])

    # ------------------------------------------------------------- search
    def search(self, src: int, h, goal: int):
        """A* from src to goal with the admissible, consistent estimate ``h`` (see
        :class:`_AStar`); re-runs
        with more bodies' corners while bodies block edges worth taking. Returns the
        finished :class:`_AStar` (``parent`` holds the path when the goal was reached)."""
        while True:
            a = _AStar(self, src, h, goal)
            a.advance()
            more = a.wanted - self.active
            if not more:
                return a
            self.activate(sorted(more))

    def trace(self, parent, v) -> list[XY]:
        out = []
        while v is not None:
            out.append(self.xy(v))
            v = parent[v]
        return out[::-1]

    def pull_taut(self, pts: list[XY], window: int = 24) -> list[XY]:
        """Shortcut a path wherever a later point (up to ``window`` points on) is seen straight
        from an earlier one: paths found on a graph whose edges are length-limited bend more
        than they need to."""
        if len(pts) <= 2:
            return pts
        P = np.asarray(pts, dtype=float)
        out = [pts[0]]
        i = 0
        n = len(pts)
        while i < n - 1:
            js = np.arange(min(n - 1, i + window), i + 1, -1)
            j = i + 1
            if len(js):
                ok = self.free(np.repeat(P[i][None], len(js), 0), P[js])
                hit = np.flatnonzero(ok)
                if len(hit):
                    j = int(js[hit[0]])
            out.append(pts[j])
            i = j
        return out


class _AStar:
    """A resumable A* over a query's graph (Dijkstra when ``h`` is None). The estimate ``h``
    is ``(x, y, r)``: | distance to the point (x, y) - r | (r = 0: the straight-line
    distance). Settled nodes are listed in order with their costs; ``wanted`` collects the
    bodies whose discs blocked an edge that would have improved a node (their corners belong
    in the graph)."""

    def __init__(self, q: _Query, src: int, h, goal: int | None = None, wlimit: float = math.inf):
        self.q, self.h, self.goal = q, h, goal
        self.wlimit = wlimit  # nodes costing more are never reached (nor bodies wanted for them)
        self.hcache: dict[int, float] = {}
        self.gs = {src: 0.0}
        self.parent: dict[int, int | None] = {src: None}
        self.closed: set[int] = set()
        self.settled: list[int] = []
        self.settled_g: list[float] = []
        self.heap = [(self._h(src) if h is not None else 0.0, 0, 0.0, src)]
        self.seq = 0
        self.wanted: set[int] = set()
        self.reached = False
        self.clipped = False  # some node was left out for costing more than wlimit

    def _h(self, v: int) -> float:
        if self.h is None:
            return 0.0
        x = self.hcache.get(v)
        if x is None:
            tx, ty, tr = self.h
            px, py = self.q.xy(v)
            x = self.hcache[v] = abs(math.hypot(px - tx, py - ty) - tr)
        return x

    def frontier(self) -> float:
        """The smallest g + h of any open node (inf when none is left)."""
        heap, closed = self.heap, self.closed
        while heap and heap[0][3] in closed:
            heapq.heappop(heap)
        return heap[0][0] if heap and not self.reached else math.inf

    def advance(self, bound: float = math.inf) -> None:
        """Settle nodes while the frontier is below ``bound`` (and the goal is not reached)."""
        q = self.q
        G = q.g
        n0 = q.n0
        nbr, eidl, ewl, ip = G.nbr_list, G.eid_list, G.ew_list, G.indptr_list
        eblock, adj, badj, active = q.edge_block, q.adj, q.badj, q.active
        gs, parent, closed, heap, wanted = self.gs, self.parent, self.closed, self.heap, self.wanted
        settled, settled_g = self.settled, self.settled_g
        push, pop = heapq.heappush, heapq.heappop
        zero = self.h is None  # Dijkstra: no estimate to add
        tx, ty, tr = (0.0, 0.0, 0.0) if zero else self.h
        hc, gxy, qpts, hypot = self.hcache, G.xy, q.pts, math.hypot
        seq = self.seq
        goal = self.goal
        wl = self.wlimit
        while heap and not self.reached:
            if heap[0][0] >= bound:
                break
            _, _, gu, u = pop(heap)
            if u in closed:
                continue
            closed.add(u)
            settled.append(u)
            settled_g.append(gu)
            if u == goal:
                self.reached = True
                break
            if u < n0:
                for t in range(ip[u], ip[u + 1]):
                    v = nbr[t]
                    if v in closed:
                        continue
                    e = eidl[t]
                    ng = gu + ewl[e]
                    if ng > wl:
                        self.clipped = True
                        continue
                    if ng >= gs.get(v, math.inf):
                        continue
                    blk = eblock.get(e)
                    if blk is not None:
                        wanted.update(j for j in blk if j not in active)
                        continue
                    gs[v] = ng
                    parent[v] = u
                    seq += 1
                    if zero:
                        push(heap, (ng, seq, ng, v))
                    else:
                        hv = hc.get(v)
                        if hv is None:
                            px, py = gxy[v] if v < n0 else qpts[v - n0]
                            hv = hc[v] = abs(hypot(px - tx, py - ty) - tr)
                        push(heap, (ng + hv, seq, ng, v))
            for v, w in adj.get(u, ()):
                if v in closed:
                    continue
                ng = gu + w
                if ng > wl:
                    self.clipped = True
                elif ng < gs.get(v, math.inf):
                    gs[v] = ng
                    parent[v] = u
                    seq += 1
                    if zero:
                        push(heap, (ng, seq, ng, v))
                    else:
                        hv = hc.get(v)
                        if hv is None:
                            px, py = gxy[v] if v < n0 else qpts[v - n0]
                            hv = hc[v] = abs(hypot(px - tx, py - ty) - tr)
                        push(heap, (ng + hv, seq, ng, v))
            for v, w, blk in badj.get(u, ()):
                ng = gu + w
                if ng <= wl and v not in closed and ng < gs.get(v, math.inf):
                    wanted.update(j for j in blk if j not in active)
        self.seq = seq


# --------------------------------------------------------------------------- the navigator


class Navigator:
    """Shortest paths for round bodies among fixed obstacles.

    ``polygons`` are the footprints that stop a body (metres); ``bounds`` the map as
    (minx, miny, maxx, maxy) -- a body's disc stays inside it -- or None for no edge.
    ``ids`` optionally names the obstacles (used in error messages and by :func:`slide`).
    ``sides`` is the corner count of the polygon standing in for a round body (more is more
    exact and slower); ``pair_budget`` bounds the work of building a graph, ``max_edge`` forces
    an edge-length limit (metres; None = chosen from the budget).

    Built once per obstacle set; the visibility graph for each radius (rounded to the
    centimetre) is built on first use and kept."""

    def __init__(self, polygons: Sequence[shapely.Polygon], bounds: tuple[float, float, float, float] | None = None,
                 *, ids: Sequence[str] | None = None, sides: int = SIDES,
                 pair_budget: int = PAIR_BUDGET, max_edge: float | None = None):
        polygons = list(polygons)
        for i, p in enumerate(polygons):
            if not isinstance(p, shapely.Polygon) or p.is_empty:
                raise InvalidInputError(f"obstacle #{i} is not a polygon: {p!r}")
        arr = np.empty(len(polygons), dtype=object)
        arr[:] = polygons
        bad = ~shapely.is_valid(arr)
        xy, owner = shapely.get_coordinates(arr, return_index=True)
        nonfinite = np.zeros(len(arr), dtype=bool)
        nonfinite[owner[~np.isfinite(xy).all(axis=1)]] = True
        if (bad | nonfinite).any():
            i = int(np.flatnonzero(bad | nonfinite)[0])
            if bad[i]:
                raise InvalidInputError(f"obstacle #{i} is not a valid polygon ({shapely.is_valid_reason(arr[i])})")
            raise InvalidInputError(f"obstacle #{i} has a NaN or infinite coordinate")
        polys = list(shapely.orient_polygons(arr)) if len(arr) else []
        self.polygons: tuple[shapely.Polygon, ...] = tuple(polys)
        if ids is not None:
            ids = tuple(str(s) for s in ids)
            if len(ids) != len(self.polygons):
                raise InvalidInputError(f"{len(ids)} ids for {len(self.polygons)} obstacles")
        self.ids = ids
        if bounds is not None:
            try:
                b = tuple(float(v) for v in bounds)
            except (TypeError, ValueError):
                raise InvalidInputError(f"bounds must be (minx, miny, maxx, maxy), got {bounds!r}") from None
            if len(b) != 4 or not all(math.isfinite(v) for v in b) or b[0] >= b[2] or b[1] >= b[3]:
                raise InvalidInputError(f"bounds must be (minx, miny, maxx, maxy) with min < max, got {bounds!r}")
            bounds = b
        self.bounds = bounds
        if int(sides) < 4:
            raise InvalidInputError(f"sides must be 4 or more, got {sides!r}")
        self.sides = int(sides)
        self.pair_budget = int(pair_budget)
        self.max_edge = max_edge
        self._raw_tree = shapely.STRtree(np.array(self.polygons, dtype=object)) if polys else None
        if polys:
            shapely.prepare(np.asarray(self.polygons, dtype=object))
        self._graphs: dict[int, _Graph] = {}
        self._pieces = None
        self._trees: OrderedDict = OrderedDict()  # charge trees by (radius, mover, bodies)
        self._charge_seen: dict = {}

    # ----------------------------------------------------------------- helpers
    def obstacle_name(self, i: int) -> str | int:
        return self.ids[i] if self.ids is not None else i

    def _graph(self, radius: float) -> _Graph:
        key = max(1, int(round(radius * 100)))
        g = self._graphs.get(key)
        if g is None:
            if self._pieces is None and self.polygons:
                self._pieces = _pieces(self.polygons, self.sides)  # shared by every radius
            # the build makes ~10^5 short-lived geometry objects, each tracked by the garbage
            # collector (whose passes over the whole heap cost 5-10 % of the build): paused
            was_on = gc.isenabled()
            gc.disable()
            try:
                g = _Graph(self.polygons, self.bounds, key / 100.0, self.sides, self.pair_budget,
                           self.max_edge, self._pieces)
            finally:
                if was_on:
                    gc.enable()
            self._graphs[key] = g
        return g

    def prepare(self, radius: float) -> None:
        """Build (and keep) the graph for bodies of this radius now rather than on first use."""
        self._graph(_positive(radius, "the radius"))

    def graph_size(self, radius: float) -> tuple[int, int, float]:
        """(corners, edges, edge-length limit in metres) of the graph for this radius: the
        limit is inf for a complete graph, else the median of the per-corner limits."""
        g = self._graph(_positive(radius, "the radius"))
        if math.isinf(g.max_edge) or g.n < 2:
            return g.n, len(g.ei), math.inf
        return g.n, len(g.ei), float(np.median(g.L))

    def obstacle_at(self, p: XY) -> int | None:
        """Index of an obstacle whose footprint contains point p (metres), or None."""
        if self._raw_tree is None:
            return None
        hit = self._raw_tree.query(shapely.Point(p), predicate="intersects")
        return int(hit[0]) if len(hit) else None

    def _check_point(self, p, role: str) -> XY:
        p = _point(p, role)
        if self.bounds is not None:
            x0, y0, x1, y1 = self.bounds
            if not (x0 - 1e-9 <= p[0] <= x1 + 1e-9 and y0 - 1e-9 <= p[1] <= y1 + 1e-9):
                raise OutsideMapError(role, p, self.bounds)
        i = self.obstacle_at(p)
        if i is not None and shapely.contains_xy(self.polygons[i], p[0], p[1]):
            raise InsideObstacleError(role, p, self.obstacle_name(i))
        return p

    def segment_free(self, a_xy, b_xy, radius: float, discs: np.ndarray | None = None) -> bool:
        """Whether a body of ``radius`` moving straight from a to b touches no obstacle (grown
        polygon, see module doc), map edge or disc (x, y, r) of ``discs``."""
        a, b = _point(a_xy, "segment start"), _point(b_xy, "segment end")
        r = _positive(radius, "the radius")
        g = self._graph(r)
        D = _disc_array(discs).copy()
        D[:, 2] += g.r
        return bool(_Query(g, D, graph_edges=False).free(np.array([a]), np.array([b]))[0])

    # ----------------------------------------------------------------- shortest path
    def shortest_path(self, start_xy, goal_xy, radius: float, discs: np.ndarray | None = None) -> PathResult | None:
        """The shortest path (metres) for the centre of a disc of ``radius`` from start to goal
        around the obstacles, the map edge and the other bodies ``discs`` ((m, 3) rows
        x, y, r), or None when the goal cannot be reached or the body does not fit there.

        Raises :class:`InsideObstacleError` when start or goal lies inside an obstacle's
        footprint and :class:`OutsideMapError` when it lies off the map. A body that starts
        overlapping a wall or another body (as placed) may step out of it: bodies it already
        overlaps do not block it, and its first leg leads straight to the nearest free spot."""
        s = self._check_point(start_xy, "start")
        t = self._check_point(goal_xy, "goal")
        r = _positive(radius, "the radius")
        g = self._graph(r)
        D = _disc_array(discs).copy()
        D[:, 2] += g.r
        if len(D):
            D = D[np.hypot(D[:, 0] - s[0], D[:, 1] - s[1]) >= D[:, 2] - TOUCH]  # overlapped already
        head: list[XY] = [s]
        s2 = g.escape(s)
        if s2 is None:
            return None
        if s2 != s:
            head.append(s2)
        q = _Query(g, D)
        if not g.point_free(t) or q.point_in_disc(t).any():
            return None
        P, Q = np.array([s2]), np.array([t])
        if q.free(P, Q)[0]:
            pts = _merge_collinear(head + [t])
            return PathResult(tuple(pts), _length(pts))
        si, ti = q.add_nodes(np.array([s2, t]))

        a = q.search(si, (t[0], t[1], 0.0), goal=ti)
        if not a.reached:
            return None
        pts = q.trace(a.parent, ti)
        if q.smooth:
            pts = q.pull_taut(pts)
        pts = _merge_collinear(head[:-1] + pts)
        return PathResult(tuple(pts), _length(pts))


# --------------------------------------------------------------------------- charge


def _no_charge(reason: str) -> ChargePlan:
    return ChargePlan(False, (), None, None, None, reason)


class _Runup:
    """Which straight run-ups at a target are free, by bearing (radians from the target, in
    [0, 2 pi)).

    A run-up at bearing t is the segment from ``T + (c + runup) u(t)`` (its start) to
    ``T + c u(t)`` (the contact point); it is free when a body moving along it touches
    nothing. The blocked bearings are found exactly: each grown obstacle, cut into the
    annulus between the two radii (in eight 45-degree sectors, so no piece wraps round the
    target), blocks the bearings between its extreme vertices; the map edge likewise; a
    grown disc blocks a symmetric interval, in closed form (the distance to the segment grows
    with the angle off the disc's bearing). ``free_lo``/``free_hi`` are the free intervals,
    sorted, and ``edges`` their ends (nudged 1e-7 rad inside)."""

    SECTORS = 8
    ARC = 16  # chords per sector arc

    def __init__(self, q: _Query, T: XY, c: float, runup: float):
        self.q, self.T, self.c, self.Rr = q, np.asarray(T, dtype=float), c, c + runup
        g = q.g
        blocked = [self._polygon_intervals(g), self._disc_intervals()]
        lo = np.concatenate([b[0] for b in blocked])
        hi = np.concatenate([b[1] for b in blocked])
        self._set_free(lo, hi)

    # ------------------------------------------------------------- blocked intervals
    def _sectors(self) -> tuple[np.ndarray, np.ndarray]:
        n, m = self.SECTORS, self.ARC
        width = 2 * math.pi / n
        mids = (np.arange(n) + 0.5) * width
        k = np.linspace(-width / 2, width / 2, m + 1)
        rout = self.Rr / math.cos(width / m / 2)  # outer arc drawn around the circle
        rin = self.c  # inner chords fall inside radius c: the piece is a little too big
        a = mids[:, None] + k[None, :]
        outer = np.stack([np.cos(a), np.sin(a)], axis=-1) * rout
        inner = np.stack([np.cos(a[:, ::-1]), np.sin(a[:, ::-1])], axis=-1) * rin
        return shapely.polygons(np.concatenate([outer, inner], axis=1) + self.T), mids

    def _polygon_intervals(self, g: _Graph) -> tuple[np.ndarray, np.ndarray]:
        T, R = self.T, self.Rr * 1.01
        box = shapely.box(T[0] - R, T[1] - R, T[0] + R, T[1] + R)
        shapes = list(g.parts[g.parts_tree.query(box, predicate="intersects")]) if len(g.parts) else []
        if g.inset is not None:
            x0, y0, x1, y1 = g.inset
            if not (x0 < x1 and y0 < y1):
                shapes.append(box.buffer(1.0, join_style="mitre"))
            elif not (x0 <= T[0] - R and T[0] + R <= x1 and y0 <= T[1] - R and T[1] + R <= y1):
                outside = shapely.difference(box.buffer(1.0, join_style="mitre"), shapely.box(x0, y0, x1, y1))
                if not outside.is_empty:
                    shapes.append(outside)
        if not shapes:
            return np.zeros(0), np.zeros(0)
        sectors, mids = self._sectors()
        S = np.array(shapes, dtype=object)
        # only the (shape, sector) pairs whose boxes overlap
        sb, kb = shapely.bounds(S), shapely.bounds(sectors)
        si, ki = np.nonzero((sb[:, None, 0] <= kb[None, :, 2]) & (kb[None, :, 0] <= sb[:, None, 2])
                            & (sb[:, None, 1] <= kb[None, :, 3]) & (kb[None, :, 1] <= sb[:, None, 3]))
        cut = shapely.intersection(S[si], sectors[ki])
        which = ki
        keep = ~shapely.is_empty(cut)
        cut, which = cut[keep], which[keep]
        if len(cut) == 0:
            return np.zeros(0), np.zeros(0)
        pieces, pidx = shapely.get_parts(cut, return_index=True)
        area = shapely.area(pieces)
        pieces, pidx = pieces[area > 1e-12], pidx[area > 1e-12]
        if len(pieces) == 0:
            return np.zeros(0), np.zeros(0)
        xy, vidx = shapely.get_coordinates(pieces, return_index=True)
        mid = mids[which[pidx]]
        rel = np.arctan2(xy[:, 1] - T[1], xy[:, 0] - T[0]) - mid[vidx]
        rel = (rel + math.pi) % (2 * math.pi) - math.pi
        lo = np.full(len(pieces), np.inf)
        hi = np.full(len(pieces), -np.inf)
        np.minimum.at(lo, vidx, rel)
        np.maximum.at(hi, vidx, rel)
        return lo + mid, hi + mid

    def _disc_intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """Bearings blocked by the grown discs, in closed form: the distance from a disc's
        centre (D from the target, at angle theta off the run-up's bearing) to the run-up
        segment (radii c to Rr) grows with theta, from the far end's distance (while the foot
        of the perpendicular lies beyond Rr), through D sin(theta), to the near end's; the
        blocked half-width is where it equals the disc's radius."""
        q = self.q
        if len(q.C) == 0:
            return np.zeros(0), np.zeros(0)
        c, Rr = self.c, self.Rr
        d = q.C - self.T
        D = np.hypot(d[:, 0], d[:, 1])
        near = D < Rr + q.R
        d, D = d[near], D[near]
        beta = np.arctan2(d[:, 1], d[:, 0])
        R = q.R[near] - TOUCH
        Dp = np.maximum(D, 1e-300)

        def end_angle(e):  # the angle at which the segment's end at radius e is R away
            cos = (e * e + D * D - R * R) / (2.0 * e * Dp)
            return np.arccos(np.clip(cos, -1.0, 1.0))

        d_far = np.sqrt(np.maximum(D * D - Rr * Rr, 0.0))  # distance where the foot reaches Rr
        d_near = np.sqrt(np.maximum(D * D - c * c, 0.0))  # ... and where it reaches c
        with np.errstate(divide="ignore", invalid="ignore"):
            perp = np.arcsin(np.clip(R / Dp, 0.0, 1.0))
        phi = np.where(R <= d_far, end_angle(Rr), np.where(R <= d_near, perp, end_angle(c)))
        hit = np.where(D > Rr, D - Rr, np.where(D < c, c - D, 0.0)) < R  # blocked on its own bearing
        whole = (c + D) < R  # even the opposite bearing's nearest point (radius c) is inside
        phi = np.where(whole, math.pi + 1e-9, phi)
        return (beta - phi)[hit], (beta + phi)[hit]

    def _set_free(self, lo: np.ndarray, hi: np.ndarray) -> None:
        tau = 2 * math.pi
        self.all_free = len(lo) == 0
        if self.all_free:
            self.free_lo, self.free_hi = np.array([0.0]), np.array([tau])
            self.edges, self.any_free = [], True
            return
        if ((hi - lo) >= tau).any():
            self.free_lo = self.free_hi = np.zeros(0)
            self.edges, self.any_free = [], False
            return
        w = hi - lo
        lo = np.mod(lo, tau)
        hi = lo + w
        wrap = hi > tau
        lo = np.concatenate([lo, np.zeros(int(wrap.sum()))])
        hi = np.concatenate([np.minimum(hi, tau), hi[wrap] - tau])
        order = np.argsort(lo)
        merged: list[list[float]] = []
        for a, b in zip(lo[order].tolist(), hi[order].tolist()):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        # free gaps between blocked intervals (the last one wraps past 2 pi to the first)
        f_lo, f_hi = [], []
        for k in range(len(merged)):
            a = merged[k][1]
            b = merged[k + 1][0] if k + 1 < len(merged) else merged[0][0] + tau
            if b - a > 2e-7:
                f_lo.append(a + 1e-7)
                f_hi.append(b - 1e-7)
        self.free_lo, self.free_hi = np.array(f_lo), np.array(f_hi)
        self.any_free = bool(f_lo)
        self.edges = [x % tau for x in f_lo + f_hi]

    # ------------------------------------------------------------- queries
    def is_free(self, th: np.ndarray) -> np.ndarray:
        """Whether the run-ups at bearings th lie in a free interval (no segment test)."""
        th = np.mod(np.asarray(th, dtype=float), 2 * math.pi)
        if self.all_free:
            return np.ones(th.shape, dtype=bool)
        if not self.any_free:
            return np.zeros(th.shape, dtype=bool)
        x = th[:, None]
        a, b = self.free_lo[None, :], self.free_hi[None, :]
        return (((x >= a) & (x <= b)) | ((x + 2 * math.pi >= a) & (x + 2 * math.pi <= b))).any(axis=1)

    def nearest_edges(self, th: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For bearings th: the nearest free bearing counter-clockwise (the next free
        interval's start) and clockwise (the previous one's end)."""
        tau = 2 * math.pi
        th = np.mod(np.asarray(th, dtype=float), tau)[:, None]
        up = np.mod(self.free_lo[None, :] - th, tau).argmin(axis=1)
        down = np.mod(th - self.free_hi[None, :], tau).argmin(axis=1)
        return np.mod(self.free_lo[up], tau), np.mod(self.free_hi[down], tau)

    def free(self, th: np.ndarray) -> np.ndarray:
        """Whether the run-ups at bearings th are free (segment test, the final word)."""
        th = np.asarray(th, dtype=float)
        u = np.column_stack([np.cos(th), np.sin(th)])
        return self.q.free(self.T + self.Rr * u, self.T + self.c * u)

    def start(self, t: float) -> XY:
        return (float(self.T[0] + self.Rr * math.cos(t)), float(self.T[1] + self.Rr * math.sin(t)))


class _Finisher:
    """The last step of a charge search: from settled corners (cost g), walk straight to a
    run-up start. Candidates per corner: the run-up start on its own bearing (the nearest
    point of the circle; cost exactly g + |distance - radius|) when that bearing is free;
    the nearest free bearings on either side when it is blocked; and where the
    line from the corner's parent through the corner meets the circle (a last leg that only
    grazes that corner: the optimum may sit at such a visibility boundary). Checked cheapest
    first, in growing batches; checks are remembered across calls."""

    def __init__(self, q: _Query, run: _Runup):
        self.q, self.run = q, run
        self.known: dict[tuple[int, float], tuple[bool, tuple[int, ...]]] = {}
        self.batch = 24

    def best(self, ids: np.ndarray, G: np.ndarray, U: float, wanted: set[int], X: np.ndarray,
             PX: np.ndarray):
        """The cheapest valid finish costing at most U among the corners ``ids`` (costs G,
        coordinates X, their parents' coordinates PX, NaN for none), as (node, cost, bearing),
        or None. Bodies blocking cheaper finishes go to wanted.

        Corners are taken in order of their lower bound g + |distance - radius| in growing
        chunks; candidates are checked cheapest first, and one is accepted as soon as no
        corner still to be taken could offer anything cheaper."""
        run = self.run
        if len(ids) == 0:
            return None
        d = np.hypot(X[:, 0] - run.T[0], X[:, 1] - run.T[1])
        lb = G + np.abs(d - run.Rr)
        rest = np.flatnonzero((lb <= U) & (d > 1e-9))
        pc = np.zeros(0)
        pk = np.zeros(0, dtype=np.int64)
        pt = np.zeros(0)
        chunk = 64
        while True:
            # the next chunk of corners by lower bound (a partial sort of what is left)
            if len(rest) > chunk:
                part = np.argpartition(lb[rest], chunk)
                take, rest = rest[part[:chunk]], rest[part[chunk:]]
                take = take[np.argsort(lb[take], kind="stable")]
            else:
                take, rest = rest[np.argsort(lb[rest], kind="stable")], rest[:0]
            chunk *= 2
            if len(take):
                k, t, c = self._candidates(ids, G, X, PX, d, take)
                keep = c <= U
                pc = np.concatenate([pc, c[keep]])
                pk = np.concatenate([pk, k[keep]])
                pt = np.concatenate([pt, t[keep]])
            nxt = float(lb[rest].min()) if len(rest) else math.inf
            m = pc <= nxt
            if m.any():
                sel = np.flatnonzero(m)
                sel = sel[np.argsort(pc[sel], kind="stable")]
                found = self._check(ids, X, pk[sel], pt[sel], pc[sel], wanted)
                if found is not None:
                    return found
                pc, pk, pt = pc[~m], pk[~m], pt[~m]
            if not len(rest):
                return None

    def _candidates(self, ids, G, X, PX, d, take):
        """Finishes offered by corners ``take``: (corner index, bearing, cost) arrays. A path
        that bends at a corner leaves it along a tangent (both neighbours of the corner on
        one side), so bends that are not are dropped before any segment is tested."""
        run = self.run
        Xt = X[take]
        dx, dy = Xt[:, 0] - run.T[0], Xt[:, 1] - run.T[1]
        t0 = np.mod(np.arctan2(dy, dx), 2 * math.pi)
        own = run.is_free(t0)
        k_list, t_list = [take[own]], [t0[own]]
        need = np.flatnonzero(~own)
        if len(need) and run.any_free:
            for side in run.nearest_edges(t0[need]):
                k_list.append(take[need])
                t_list.append(side)
        K = np.concatenate(k_list)
        TH = np.concatenate(t_list)
        if len(K):
            A, B, has = self.q.tangents(ids[K])
            if has.any():
                dq = np.column_stack([run.T[0] + run.Rr * np.cos(TH), run.T[1] + run.Rr * np.sin(TH)]) - X[K]
                ok = ~has | _Graph._tangent(dq, A, B)
                K, TH = K[ok], TH[ok]
        k_list, t_list = [K], [TH]
        # straight on through the corner from its parent, to the circle
        u = Xt - PX[take]
        lu = np.hypot(u[:, 0], u[:, 1])
        has = np.isfinite(lu) & (lu > 1e-9)
        if has.any():
            hk = np.flatnonzero(has)
            u = u[hk] / lu[hk, None]
            b = u[:, 0] * dx[hk] + u[:, 1] * dy[hk]
            disc = b * b - (d[take][hk] ** 2 - run.Rr ** 2)
            for sign in (-1.0, 1.0):
                t = -b + sign * np.sqrt(np.maximum(disc, 0.0))
                ok = (disc >= 0) & (t > 1e-9)
                if ok.any():
                    pts = Xt[hk[ok]] + t[ok, None] * u[ok]
                    th = np.mod(np.arctan2(pts[:, 1] - run.T[1], pts[:, 0] - run.T[0]), 2 * math.pi)
                    free = run.is_free(th)
                    k_list.append(take[hk[ok][free]])
                    t_list.append(th[free])
        K = np.concatenate(k_list)
        TH = np.concatenate(t_list)
        cost = G[K] + np.hypot(run.T[0] + run.Rr * np.cos(TH) - X[K, 0], run.T[1] + run.Rr * np.sin(TH) - X[K, 1])
        return K, TH, cost

    def _check(self, ids, X, K, TH, cost, wanted):
        """The first valid candidate (sorted by cost) as (node, cost, bearing), or None. The
        run-ups are free already (their bearings come from the free intervals, which err on
        the blocked side); the walk from the corner to the run-up start is tested."""
        q = self.q
        run = self.run
        done = 0
        node = ids[K]
        while done < len(K):
            sl = slice(done, min(len(K), done + self.batch))
            keys = list(zip(node[sl].tolist(), TH[sl].tolist()))
            todo = [j for j, kk in enumerate(keys) if kk not in self.known]
            if todo:
                j = np.asarray(todo) + done
                P = X[K[j]]
                Q = np.column_stack([run.T[0] + run.Rr * np.cos(TH[j]), run.T[1] + run.Rr * np.sin(TH[j])])
                lines = _lines(P, Q)
                ok = q.g.static_free(P, Q, lines)
                sel = np.flatnonzero(ok)
                li, dj = q.blocked_by(P[sel], Q[sel], lines[sel])
                li = sel[li]
                who: dict[int, list[int]] = {}
                for a_, b_ in zip(li.tolist(), dj.tolist()):
                    who.setdefault(a_, []).append(b_)
                for n_, jj in enumerate(todo):
                    w = tuple(who.get(n_, ()))
                    self.known[keys[jj]] = (bool(ok[n_]) and not w, w if ok[n_] else ())
            for jj, kk in enumerate(keys):
                valid, w = self.known[kk]
                if valid:
                    return int(node[done + jj]), float(cost[done + jj]), float(TH[done + jj])
                wanted.update(w)
            done = sl.stop
            self.batch = min(2 * self.batch, 1024)
        return None


def _settled_xy(q: _Query, a: _AStar, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates of a search's settled nodes (from the ``start``-th on) and of their
    parents (NaN for the source)."""
    settled = a.settled[start:]
    ids = np.asarray(settled, dtype=np.int64)
    par = np.asarray([-1 if a.parent[i] is None else a.parent[i] for i in settled], dtype=np.int64)
    X = q._coords(ids)
    PX = np.full_like(X, np.nan)
    has = par >= 0
    PX[has] = q._coords(par[has])
    return X, PX


class _Tree:
    """Shortest-path costs from one mover to the corners around it (Dijkstra, grown on demand
    to a cost bound): the part of many charge plans by the same mover that does not depend on
    the target (every other body, the targets included, is an obstacle in all of them).

    Growing to a bound B first adds the corners of the bodies near enough to matter (centre
    within B plus a typical edge length), then settles every corner cheaper than B; when a
    body outside that blocks an edge worth taking, its corners are added and the search
    restarts."""

    def __init__(self, q: _Query, src: int, start: XY, limit: float = math.inf):
        self.q, self.src = q, src
        self.limit = limit  # never grown beyond this cost (bodies further away never matter)
        g = q.g
        # bodies this far beyond the bound get their corners up front (typical edge length);
        # any other body that blocks a useful edge is added when the search meets it
        self.reach = math.inf if math.isinf(g.max_edge) else float(
            np.median(g.L) if g.max_edge < 0 and len(g.ei) else max(g.max_edge, 0.0))
        self.dc = np.hypot(q.C[:, 0] - start[0], q.C[:, 1] - start[1]) - q.R if len(q.C) else np.zeros(0)
        self.B = 0.0
        self.search: _AStar | None = None
        self._n = 0
        self.ids = np.zeros(0, dtype=np.int64)
        self.cost = np.zeros(0)
        self.X = np.zeros((0, 2))
        self.PX = np.zeros((0, 2))

    def grow(self, B: float) -> None:
        """Settle every corner the mover reaches for less than B metres."""
        q = self.q
        if self.search is not None and B <= self.B:
            return
        while True:
            # bodies up to twice as far get their corners now, so that the next doubling of
            # the bound can resume this search instead of restarting it
            near = np.flatnonzero(self.dc <= min(2.0 * B + self.reach, self.limit))
            new = [int(j) for j in near if int(j) not in q.active]
            if new:
                q.activate(new)
                self.search = None
            if self.search is None:
                self.search = _AStar(q, self.src, None, wlimit=self.limit)
                self._n = 0
                self.ids = np.zeros(0, dtype=np.int64)
                self.cost = np.zeros(0)
                self.X = np.zeros((0, 2))
                self.PX = np.zeros((0, 2))
            self.search.advance(B)
            more = self.search.wanted - q.active
            if not more:
                break
            q.activate(sorted(more))
            self.search = None
        self.B = B
        a = self.search
        if len(a.settled) > self._n:  # extend the arrays of settled corners
            X, PX = _settled_xy(q, a, self._n)
            self.ids = np.concatenate([self.ids, np.asarray(a.settled[self._n:], dtype=np.int64)])
            self.cost = np.concatenate([self.cost, np.asarray(a.settled_g[self._n:], dtype=float)])
            self.X = np.vstack([self.X, X])
            self.PX = np.vstack([self.PX, PX])
            self._n = len(a.settled)

    @property
    def exhausted(self) -> bool:
        """Every corner the mover can reach (within the limit: nothing left out) is settled."""
        a = self.search
        return a is not None and math.isinf(a.frontier()) and not a.clipped


def plan_charge(nav: Navigator, mover_xy, mover_radius: float, target_xy, target_radius: float,
                discs: np.ndarray | None = None, reach: float = 1.0, runup: float = 4.0,
                *, shared_tree: bool | None = None, max_movement: float | None = None) -> ChargePlan:
    """The shortest charge of a body at another (Static Veil Charge: move at least ``runup``
    metres directly toward the target, then melee it).

    The mover (centre ``mover_xy``, radius ``mover_radius``) ends with its centre
    ``mover_radius + target_radius + reach`` metres from the target's centre, and the last
    leg of its path runs straight at the target's centre for at least ``runup`` metres, clear
    of obstacles, the map edge and the bodies in ``discs`` ((m, 3) rows x, y, r; the target
    is always an obstacle to walk around, and rows equal to the mover or centred on the
    target are ignored). Everything in metres. Returns a :class:`ChargePlan`; when no charge
    is possible its ``reason`` says whether no free run-up exists or none can be reached.

    Method: the run-up starts on the circle of radius ``contact + runup`` around the target
    (going further out never shortens the movement). Its free bearings are found exactly
    (intervals, see :class:`_Runup`). An A* search from the mover
    settles graph corners in order of cost; each settled corner offers finishes at the
    run-up start on its own bearing (the point of the circle nearest to it) or at the
    nearest free bearings, checked lazily; the first valid finish popped is the cheapest.
    From the ``TREE_AFTER + 1``-th charge by the same mover (same position, radius and bodies)
    on, a shortest-path tree from it is kept and grown as far as the targets need (Dijkstra to a
    bound), so charges at many targets cost little each; ``shared_tree`` True uses (or starts)
    that tree at once, False never does. The answer is the same either way.

    ``max_movement`` (metres, optional) stops the search there: a charge that needs more is
    refused as "too far" without searching the whole map (a character's Movement), and only
    the bodies within that distance of the mover are looked at (no path that short can meet
    the others)."""
    s = nav._check_point(mover_xy, "mover")
    T = nav._check_point(target_xy, "target")
    r1 = _positive(mover_radius, "the mover's radius")
    r2 = _positive(target_radius, "the target's radius")
    reach = _positive(reach, "the reach", allow_zero=True)
    runup = _positive(runup, "the run-up", allow_zero=True)
    if max_movement is not None:
        max_movement = _positive(max_movement, "the movement allowed", allow_zero=True)
    g = nav._graph(r1)
    rg = g.r
    c = r1 + r2 + reach
    D = _disc_array(discs)
    if len(D):
        same_mover = (np.hypot(D[:, 0] - s[0], D[:, 1] - s[1]) < 1e-6) & (np.abs(D[:, 2] - r1) < 1e-6)
        at_target = np.hypot(D[:, 0] - T[0], D[:, 1] - T[1]) < 1e-6
        D = D[~same_mover & ~at_target]
    D = np.vstack([D, [[T[0], T[1], r2]]])
    D[:, 2] += rg
    D = D[np.hypot(D[:, 0] - s[0], D[:, 1] - s[1]) >= D[:, 2] - TOUCH]  # bodies already overlapped
    s2 = g.escape(s)
    if s2 is None:
        return _no_charge("the charging body is wedged in and cannot move")
    head: list[XY] = [s] if s2 == s else [s, s2]
    # the walk to the run-up start may cost at most cap: with a movement allowance the search
    # (and the bodies it must know of) stays within that distance of the mover
    cap = math.inf if max_movement is None else max(max_movement - runup, 0.0) + 1e-9
    near = None if math.isinf(cap) else (s2, cap)
    key = (int(round(rg * 100)), s, D[np.lexsort(D.T[::-1])].tobytes(), cap)
    tree = nav._trees.get(key) if shared_tree is not False else None
    if tree is not None:
        nav._trees.move_to_end(key)
        q = tree.q
    else:
        q = _Query(g, D, near=near)
    run = _Runup(q, T, c, runup)
    use_tree = shared_tree is True or (shared_tree is None and nav._charge_seen.get(key, 0) >= TREE_AFTER)
    if tree is None and use_tree:
        si = q.add_nodes(np.array([s2]))[0]
        tree = nav._trees[key] = _Tree(q, si, s2, limit=cap)
        while len(nav._trees) > 4:
            nav._trees.popitem(last=False)
    nav._charge_seen[key] = nav._charge_seen.get(key, 0) + 1
    if len(nav._charge_seen) > 64:
        nav._charge_seen.pop(next(iter(nav._charge_seen)))
    fin = _Finisher(q, run)
    lower = abs(math.hypot(s2[0] - T[0], s2[1] - T[1]) - run.Rr)
    U = min(1.25 * lower + 2.0 * run.Rr, cap)
    done, exhausted = None, False
    if lower > cap:
        pass
    elif tree is not None:
        U = min(max(U, tree.B), cap)
        while True:
            tree.grow(U)
            done = fin.best(tree.ids, tree.cost, U, set(), tree.X, tree.PX)
            exhausted = tree.exhausted
            if done is not None or exhausted or U >= cap:
                break
            U = min(2.0 * U, cap)
        parent = tree.search.parent
    else:
        si = q.add_nodes(np.array([s2]))[0]

        h = (float(T[0]), float(T[1]), run.Rr)  # the distance to the run-up circle
        while True:
            a = _AStar(q, si, h, wlimit=cap)
            while True:
                a.advance(U)
                done = fin.best(np.asarray(a.settled, dtype=np.int64), np.asarray(a.settled_g), U, a.wanted,
                                *_settled_xy(q, a))
                exhausted = math.isinf(a.frontier()) and not a.clipped
                if done is not None or exhausted or U >= cap:
                    break
                U = min(max(1.5 * U, a.frontier() + run.Rr), cap)
            more = a.wanted - q.active
            if not more:
                break
            q.activate(sorted(more))
        parent = a.parent
    if done is None:
        if not run.any_free:
            return _no_charge(
                f"no straight {runup:g} m run-up at the target is free of obstacles and other bodies"
            )
        if not exhausted and max_movement is not None:
            return _no_charge(f"the target is too far: a charge at it needs more than {max_movement:g} m of movement")
        return _no_charge("the target cannot be reached: no free run-up start can be walked to")
    u, _, t = done
    qpt = run.start(t)
    contact = (float(T[0] + c * math.cos(t)), float(T[1] + c * math.sin(t)))
    approach = q.trace(parent, u) + [qpt]
    if q.smooth:
        approach = q.pull_taut(approach)
    pts = _merge_collinear(head[:-1] + approach + [contact])
    return ChargePlan(True, tuple(pts), _length(pts), pts[-2], contact, None)


def plan_charges(nav: Navigator, mover_xy, mover_radius: float, bodies: np.ndarray,
                 targets: Sequence[int] | None = None, reach: float = 1.0, runup: float = 4.0,
                 *, max_movement: float | None = None) -> list[ChargePlan]:
    """Charge plans of one mover at many targets: ``bodies`` are all the other bodies ((m, 3)
    rows x, y, r; the mover not among them), ``targets`` the indices of the rows to charge
    (default: every row). Same answers as :func:`plan_charge` one by one, sharing one
    shortest-path tree from the mover."""
    B = _disc_array(bodies)
    m = _point(mover_xy, "mover")
    idx = list(range(len(B))) if targets is None else [int(i) for i in targets]
    for j in idx:
        if not 0 <= j < len(B):
            raise InvalidInputError(f"target index {j} is not a row of the {len(B)} bodies")
    # farthest first: the shared tree grows once to the largest bound, the rest reuse it
    order = sorted(range(len(idx)), key=lambda k: -math.hypot(B[idx[k], 0] - m[0], B[idx[k], 1] - m[1]))
    out: list[ChargePlan | None] = [None] * len(idx)
    for k in order:
        j = idx[k]
        out[k] = plan_charge(nav, m, mover_radius, B[j, :2], B[j, 2], np.delete(B, j, axis=0),
                             reach=reach, runup=runup, shared_tree=True, max_movement=max_movement)
    return out  # type: ignore[return-value]


# --------------------------------------------------------------------------- shove


def slide(nav_or_polys, start_xy, radius: float, direction_deg: float, distance: float,
          discs: np.ndarray | None = None, *, disc_ids: Sequence[str] | None = None) -> SlideResult:
    """Where a body pushed straight along ``direction_deg`` (0 east, 90 south) for up to
    ``distance`` metres stops: at the first contact of its disc (radius ``radius``) with an
    obstacle's footprint (exact, not grown polygons), another body's disc in ``discs``
    ((m, 3) rows x, y, r) or the map edge (when ``nav_or_polys`` is a :class:`Navigator` with
    bounds). A wall or body it already overlaps stops it only if the push drives it deeper.
    Returns a :class:`SlideResult` (unpacks as ``end, travelled, stopped_by``)."""
    if isinstance(nav_or_polys, Navigator):
        polys, tree, bounds, ids = nav_or_polys.polygons, nav_or_polys._raw_tree, nav_or_polys.bounds, nav_or_polys.ids
    else:
        polys = tuple(nav_or_polys)
        for i, p in enumerate(polys):
            if not isinstance(p, shapely.Polygon) or p.is_empty:
                raise InvalidInputError(f"obstacle #{i} is not a polygon: {p!r}")
        tree = shapely.STRtree(np.array(polys, dtype=object)) if polys else None
        bounds, ids = None, None
    s = _point(start_xy, "start")
    r = _positive(radius, "the radius")
    dist = _positive(distance, "the distance", allow_zero=True)
    try:
        ang = math.radians(float(direction_deg))
    except (TypeError, ValueError):
        raise InvalidInputError(f"the direction must be a number of degrees, got {direction_deg!r}") from None
    if not math.isfinite(ang):
        raise InvalidInputError(f"the direction must be finite, got {direction_deg!r}")
    D = _disc_array(discs)
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


# --------------------------------------------------------------------------- grapple


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
    m = nav._check_point(mover_xy, "mover")
    o = _point(other_xy, "dragged body")
    r = max(_positive(mover_radius, "the mover's radius"), _positive(other_radius, "the dragged body's radius"))
    res = nav.shortest_path(m, goal_xy, r, discs=discs)
    if res is None:
        return None
    track = list(res.points)
    if max_distance is not None:
        md = _positive(max_distance, "the distance", allow_zero=True)
        if md < res.length:
            track = _truncate(track, md)
    length = _length(track)
    train = _merge_collinear([o] + track) if math.hypot(o[0] - m[0], o[1] - m[1]) > 1e-9 else track
    other = _truncate(train, length) if length > 0 else [o]
    return DragResult(tuple(track), tuple(other), track[-1], other[-1], length)
