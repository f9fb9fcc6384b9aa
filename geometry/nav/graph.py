"""The static visibility graph for one body radius: footprints grown by the radius and merged,
their convex corners as nodes, the free tangent segments between them as edges (CSR
adjacency), and the prepared shapes that segments are tested against. docs/movement.md
("Shortest path", "Finding the pairs", "Dense scenes") explains the method."""

from __future__ import annotations

import gc
import math
from typing import Sequence

import numpy as np
import shapely

from geometry._arrays import ragged_arange
from geometry.nav.values import TOUCH, XY


def regular_polygon(sides: int, rho: float, phase: float) -> np.ndarray:
    a = phase + 2.0 * np.pi * np.arange(sides) / sides
    return rho * np.column_stack([np.cos(a), np.sin(a)])



def footprint_pieces(polygons: Sequence[shapely.Polygon], sides: int):
    """The footprints as convex pieces (one per convex footprint, one per triangle of a
    concave one), for :func:`grow`: (vertices (k, 2), piece of each vertex, turn of each
    vertex's growing polygon in radians, footprint of each piece). Independent of the
    radius."""
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
    return P, pid, phi[pown[pid]], pown


def grow(polygons: Sequence[shapely.Polygon], r: float, sides: int, pieces=None) -> np.ndarray:
    """Each footprint grown by ``r`` as convex pieces (one per convex footprint, one per
    triangle of a concave one): Minkowski sums with a ``sides``-gon drawn around the circle
    of radius ``r``, turned to the footprint's longest edge (so a box grows into an octagon
    whose sides are exactly ``r`` out). ``pieces`` is :func:`footprint_pieces` of the polygons when
    known already."""
    if len(polygons) == 0:
        return np.empty(0, dtype=object)
    P, pid, turn = (footprint_pieces(polygons, sides) if pieces is None else pieces)[:3]
    rho = r / math.cos(math.pi / sides)
    base = regular_polygon(sides, rho, 0.0)
    c, s_ = np.cos(turn), np.sin(turn)
    Kx = c[:, None] * base[None, :, 0] - s_[:, None] * base[None, :, 1]
    Ky = s_[:, None] * base[None, :, 0] + c[:, None] * base[None, :, 1]
    pts = np.stack([P[:, 0:1] + Kx, P[:, 1:2] + Ky], axis=-1).reshape(-1, 2)
    # (hull of a line through the points: building it skips making a point object per vertex)
    return shapely.convex_hull(shapely.linestrings(pts, indices=np.repeat(pid, sides)))


def merge(pieces: np.ndarray):
    """Union of many small shapes that mostly form separate clusters."""
    try:
        return shapely.disjoint_subset_union_all(pieces)  # Shapely >= 2.1, GEOS >= 3.12
    except (AttributeError, shapely.errors.UnsupportedGEOSVersionError):  # pragma: no cover
        return shapely.union_all(pieces)


def _wedge_box_pairs(x: np.ndarray, y: np.ndarray, reach: np.ndarray, slope: float,
                     cols_per_reach: float = 2.0, row: float = 0.25,
                     who: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i, j) of points (i == j included) with |x[j] - x[i]| <= reach[i] and
    |y[j] - y[i]| <= slope * |x[j] - x[i]| (a thin double wedge along x), and some more.

    The points are binned into a grid of columns along x (half the median reach wide)
    and thin rows (``row`` metres), sorted by cell; a point's wedge covers a contiguous run of
    cells in every column it spans (as tall as the wedge at the column's far side), found by
    two table look-ups per column. ``who``: the points that look for partners (default all).
    """
    x0, y0 = float(x.min()), float(y.min())
    width = max(float(np.median(reach if who is None else reach[who])) / cols_per_reach, 1e-6)
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
    if who is not None:
        ncols = np.where(np.isin(np.arange(len(x)), who), ncols, 0)
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


def segments(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Segments P[i]-Q[i] as shapely geometries (a point where both ends coincide)."""
    geoms = shapely.linestrings(np.stack([P, Q], axis=1))
    same = (P == Q).all(axis=1)
    if same.any():
        geoms[same] = shapely.points(P[same])
    return geoms


class Graph:
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
        self.polygons = tuple(polygons)
        if len(polygons) and pieces is None:
            pieces = footprint_pieces(polygons, sides)
        # the grown convex pieces and the footprint each comes from (kept for edits)
        self.grown = grow(polygons, r, sides, pieces)
        self.grown_owner = pieces[3] if len(polygons) else np.zeros(0, dtype=np.int64)
        union = shapely.orient_polygons(merge(self.grown)) if len(self.grown) else shapely.Polygon()
        self.set_parts(shapely.get_parts(union))
        self.set_nodes(*self.corners(self.parts))
        self.diag = float(np.hypot(*(self.N.max(axis=0) - self.N.min(axis=0)))) + 2.0 if self.n else 0.0
        self._edges(pair_budget, max_edge)

    def set_parts(self, parts: np.ndarray, solid: np.ndarray | None = None) -> None:
        """The merged grown shapes, and the same shrunk by TOUCH (``solid``, made when not
        given) that segments are tested against: running along a grown side (touching the
        wall) is allowed, cutting into it is not. Each part is shrunk on its own (the parts
        are disjoint: the same as shrinking their union, in a tenth of the time)."""
        self.parts = parts
        self.parts_tree = shapely.STRtree(parts)
        if solid is None:
            solid = shapely.buffer(parts, -TOUCH, join_style="mitre") if len(parts) else parts
        # prepared: a segment is tested against the parts whose boxes it meets, the part
        # prepared, not the segment. GEOS builds a prepared part's indexes (of its points'
        # places, of its sides) on its first test: a diagonal of each part's box, from
        # outside it, builds both here, with the graph (off the GUI thread), not in the
        # first charge that tests the part (~3 ms of the first charge at 2,000 obstacles)
        shapely.prepare(solid)
        if len(solid):
            b = shapely.bounds(solid)
            some = np.flatnonzero(np.isfinite(b).all(axis=1))  # (a part shrunk to nothing has no box)
            if len(some):
                b = b[some]
                shapely.intersects(solid[some], shapely.linestrings(np.stack([b[:, :2] - 1.0, b[:, 2:] + 1.0], axis=1)))
        self.solid = solid
        self.solid_tree = shapely.STRtree(solid)
        self._solid_whole = None

    #: Geometries tested at once from which the shapes are tested as one prepared
    #: multipolygon (made once per graph) instead of through their tree: the same answers,
    #: faster for the hundreds of thousands of candidate edges of a build.
    PREPARED_FROM = 20_000

    def solid_hits(self, geoms: np.ndarray) -> np.ndarray:
        """Whether each geometry (segments, points) cuts into a grown obstacle."""
        out = np.zeros(len(geoms), dtype=bool)
        if not (len(self.solid) and len(geoms)):
            return out
        if len(geoms) >= self.PREPARED_FROM:
            whole = getattr(self, "_solid_whole", None)
            if whole is None:
                whole = self._solid_whole = shapely.multipolygons(shapely.get_parts(self.solid))
                shapely.prepare(whole)
            return shapely.intersects(whole, geoms)
        # the parts whose boxes a geometry meets, then the prepared part tested against it:
        # the same answers as the tree's own predicate (which prepares each small segment
        # instead), in a third of the time
        gi, pj = self.solid_tree.query(geoms)
        if len(gi):
            out[gi[shapely.intersects(self.solid[pj], geoms[gi])]] = True
        return out

    def solid_hits_xy(self, x, y) -> np.ndarray:
        """Whether each point (x[i], y[i]) lies in a grown obstacle (shrunk by TOUCH)."""
        return self.solid_hits(shapely.points(np.asarray(x, dtype=float), np.asarray(y, dtype=float)))

    def edited(self, removed: list[int], added: list[shapely.Polygon], polygons) -> "Graph | None":
        """This graph with the footprints at ``removed`` (indices into the polygons it was
        built from) taken out and ``added`` put in, worked out near them only; ``polygons``
        are all the footprints after the edit. None when a rebuild is the better way
        (:func:`geometry.nav.edit.edit_graph`)."""
        from geometry.nav.edit import edit_graph

        return edit_graph(self, removed, added, polygons)

    # nodes: convex corners of the merged grown shapes, inside the map
    def corners(self, parts: np.ndarray, ring0: int = 0, part0: int = 0):
        """The convex corners of ``parts`` inside the map: (N, A, B, ring, pos, size, part):
        points, unit directions to their ring neighbours, and where each sits (its ring,
        numbered from ``ring0``, its place on the ring and the ring's size, its part,
        numbered from ``part0``)."""
        if len(parts):
            rings, ring_part = shapely.get_rings(parts, return_index=True)
        else:
            rings, ring_part = np.zeros(0, dtype=object), np.zeros(0, dtype=np.int64)
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
        rg, ps, sz = ring[m], pos[m], size[ring[m]]
        if self.inset is not None and len(N):
            x0, y0, x1, y1 = self.inset
            m = (N[:, 0] >= x0) & (N[:, 0] <= x1) & (N[:, 1] >= y0) & (N[:, 1] <= y1)
            N, A, B = N[m], A[m], B[m]
            rg, ps, sz = rg[m], ps[m], sz[m]
        A = A / np.hypot(A[:, 0], A[:, 1])[:, None] if len(A) else A
        B = B / np.hypot(B[:, 0], B[:, 1])[:, None] if len(B) else B
        return N, A, B, rg + ring0, ps, sz, ring_part[rg] + part0

    def set_nodes(self, N, A, B, ring, pos, size, part, xy: list | None = None) -> None:
        """The corners (``xy``: the same as tuples, when the caller has them), and per corner
        its ring (``node_ring``), place on that ring (``node_pos``), the ring's size
        (``node_size``) and the merged shape it lies on (``node_part``)."""
        self.N, self.A, self.B = N, A, B
        self.node_ring, self.node_pos, self.node_size, self.node_part = ring, pos, size, part
        self.n = len(N)
        self.xy = [tuple(p) for p in N.tolist()] if xy is None else xy
        self.node_tree = shapely.STRtree(shapely.points(N)) if self.n else None  # for queries
        self._node_rank: tuple[np.ndarray, np.ndarray] | None = None  # (corners_seen_from)
        if self.n:
            self._rank_nodes()

    def _rank_nodes(self) -> None:
        """Every corner's place in the order the node tree returns its entries (its own
        traversal, whatever the query box), and the corner at each place."""
        whole = self.node_tree.query(shapely.box(*(self.N.min(axis=0) - 1.0), *(self.N.max(axis=0) + 1.0)))
        rank = np.empty(self.n, dtype=np.int64)
        rank[whole] = np.arange(len(whole))
        self._node_rank = (rank, whole.astype(np.int64))

    def corners_seen_from(self, P: np.ndarray, TA: np.ndarray, TB: np.ndarray,
                          L: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (k, corner j) where corner j lies within ``L[k]`` metres of the corner
        ``P[k]`` (unit directions to its polygon neighbours ``TA[k]``, ``TB[k]``) and the
        segment between them is tangent at both ends (:meth:`tangent`): the candidates
        :meth:`geometry.nav.search.Query.add_nodes` links a new corner to, in the same order
        as ``node_tree.query(points, predicate="dwithin", distance=L)`` filtered so.

        A segment tangent at P[k] runs inside one of two narrow wedges there (between one
        neighbour's direction and the other's opposite: 45 degrees each for a body's
        octagon), so only the boxes of those two sectors are looked up in the tree (a third
        of the disc's box), and the distance is tested as GEOS does (the square root of the
        squared sides). The tree returns its entries in the order of its own traversal
        whatever the query box, so the pairs are put in that order (``_node_rank``)."""
        if self.node_tree is None or len(P) == 0:
            e = np.zeros(0, dtype=np.int64)
            return e, e
        if self._node_rank is None:  # (a graph from before the ranks were kept)
            self._rank_nodes()
        rank, by_rank = self._node_rank
        k = len(P)
        lo, hi = [], []
        for u, v in ((TB, -TA), (-TB, TA)):  # the two wedges a tangent line leaves by
            x = np.column_stack([np.zeros(k), u[:, 0], v[:, 0]])
            y = np.column_stack([np.zeros(k), u[:, 1], v[:, 1]])
            # an axis direction inside the wedge (from u to v, less than half a turn) is an
            # extreme of the sector too
            turn = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
            for ex, ey in ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)):
                inside = ((u[:, 0] * ey - u[:, 1] * ex) * turn >= 0) & ((ex * v[:, 1] - ey * v[:, 0]) * turn >= 0) \
                    & (ex * (u[:, 0] + v[:, 0]) + ey * (u[:, 1] + v[:, 1]) > 0)
                x = np.column_stack([x, np.where(inside, ex, 0.0)])
                y = np.column_stack([y, np.where(inside, ey, 0.0)])
            pad = 1e-6 * np.maximum(L, 1.0)  # (the tangency test lets 1e-9 rad through)
            lo.append(np.column_stack([P[:, 0] + L * x.min(axis=1) - pad, P[:, 1] + L * y.min(axis=1) - pad]))
            hi.append(np.column_stack([P[:, 0] + L * x.max(axis=1) + pad, P[:, 1] + L * y.max(axis=1) + pad]))
        lo, hi = np.vstack(lo), np.vstack(hi)
        a, b = self.node_tree.query(shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]))
        a = a % k
        dx, dy = P[a, 0] - self.N[b, 0], P[a, 1] - self.N[b, 1]
        keep = np.flatnonzero(np.sqrt(dx * dx + dy * dy) <= L[a])
        a, b = a[keep], b[keep]
        d = self.N[b] - P[a]
        keep = np.flatnonzero(self.tangent(d, TA[a], TB[a]))
        a, b, d = a[keep], b[keep], d[keep]
        keep = self.tangent(d, self.A[b], self.B[b])
        key = np.unique(a[keep] * self.n + rank[b[keep]])  # (the two boxes overlap at P)
        return key // self.n, by_rank[key % self.n]

    @staticmethod
    def tangent(d: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
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
            i, j = self.wedge_pairs(N, A, B, L, aa, w)  # tangent at both ends already
        if len(i) and math.isinf(self.max_edge):
            d = N[j] - N[i]
            ok = self.tangent(d, A[i], B[i]) & self.tangent(d, A[j], B[j])
            i, j = i[ok], j[ok]
        if len(i):
            free = self.free_pairs(i, j)
            i, j = i[free], j[free]
        self.set_edges(i, j)
        self._disc_cache: dict[tuple[float, float, float], np.ndarray] = {}
        # (built with the graph, off the GUI thread: built by the first charge, it was that
        # charge's 20 ms at 2,000 obstacles and 80-100 ms at 10,000)
        self._edge_tree = EdgeIndex.build(self.N, self.ei, self.ej)
        #: (x, y, inner, outer radius) of a target's run-up ring -> the bearings the grown
        #: obstacles and the map edge block there (geometry.nav.charge.Runup)
        self.runup_cache: dict[tuple[float, float, float, float], tuple[np.ndarray, np.ndarray]] = {}

    def free_pairs(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Whether the segment between corners i[k] and j[k] crosses no grown shape. A side
        of a merged shape runs along it: free without a test (the shapes tested against are
        shrunk by TOUCH); every other pair is tested all at once."""
        step = np.abs(self.node_pos[i] - self.node_pos[j])
        side = (self.node_ring[i] == self.node_ring[j]) & ((step == 1) | (step == self.node_size[i] - 1))
        test = np.flatnonzero(~side)
        free = side.copy()
        if test.size:
            lines = shapely.linestrings(np.stack([self.N[i[test]], self.N[j[test]]], axis=1))
            free[test] = ~self.solid_hits(lines)
        return free

    def set_edges(self, i: np.ndarray, j: np.ndarray) -> None:
        """The edges i[k]-j[k] (free), with lengths and CSR adjacency both ways."""
        n, N = self.n, self.N
        self.ei, self.ej = np.asarray(i).astype(np.int64), np.asarray(j).astype(np.int64)
        self.ew = np.hypot(*(N[self.ej] - N[self.ei]).T) if len(self.ei) else np.zeros(0)
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

    def wedge_pairs(self, N: np.ndarray, A: np.ndarray, B: np.ndarray, L: np.ndarray, aa: np.ndarray,
                    w: np.ndarray, query: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Corner pairs (i < j), at most L[i] or L[j] apart, whose segment is tangent at both
        ends.

        A segment tangent at corner i has its direction (as a line, modulo 180 degrees) in i's
        wedge [aa, aa + w]; tangent at both ends, in both wedges. So the line directions are
        cut into :attr:`DIRECTION_BINS` bins; for each bin the corners whose wedge reaches
        into it are turned so the bin's middle runs along x, and each picks partners from the
        thin double wedge (its reach L along x, the bin's width across) with
        :func:`_wedge_box_pairs` (a table of cells, no geometry). That finds every pair (and
        some more), which is then filtered exactly by distance and tangency in numpy. (N, A, B,
        L, aa, w: corners, their neighbour directions, reach and wedges -- all of the graph's
        or some of them; the pairs index these arrays. With ``query`` (bool per corner) only
        the pairs within the reach of a querying corner are looked for.)"""
        n = len(N)
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
            who = None if query is None else np.flatnonzero(query[S])
            if who is not None and who.size == 0:
                continue
            qi, tj = _wedge_box_pairs(x, y, Ls, slope, who=who)
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
                lines = segments(P, Q)
            ok &= ~self.solid_hits(lines)
        return ok

    def point_free(self, p: XY) -> bool:
        if not self.inside_bounds(np.array([p]))[0]:
            return False
        return not (len(self.parts) and self.solid_hits_xy([p[0]], [p[1]])[0])

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
            self._edge_tree = EdgeIndex.build(self.N, self.ei, self.ej)
        keys = [(float(x), float(y), float(R)) for x, y, R in discs.tolist()]
        missing = [k for k in dict.fromkeys(keys) if k not in self._disc_cache]
        if missing:
            if len(self._disc_cache) > 20000:
                self._disc_cache.clear()
            m = np.asarray(missing)
            qi, e = self._edge_tree.near(m[:, :2], np.maximum(m[:, 2] - TOUCH, 0.0))
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


class EdgeIndex:
    """The static edges of a graph as segments in search trees, to find those a disc comes
    near (:meth:`Graph.disc_blocking`). A graph made by an edit keeps its source's trees,
    their entries mapped to its own edge ids (-1: an edge the edit dropped), and adds one
    small tree of the edges it made: an edit near one obstacle no longer builds a tree over
    every edge (80-100 ms at 10,000 obstacles) before its first charge. Past
    :data:`MAX_TREES` trees, or when the added trees hold more than
    :data:`REBUILD_SHARE` of the edges, the index is built afresh over the graph's edges."""

    MAX_TREES = 4
    REBUILD_SHARE = 0.2

    def __init__(self, trees: list[tuple[shapely.STRtree, np.ndarray]], added: int, edges: int):
        self.trees = trees  # (tree, tree entry -> edge id or -1)
        self.added = added  # entries of the trees after the first
        self.edges = edges

    @classmethod
    def build(cls, N: np.ndarray, ei: np.ndarray, ej: np.ndarray) -> "EdgeIndex":
        if len(ei) == 0:
            return cls([], 0, 0)
        was_on = gc.isenabled()
        gc.disable()  # one geometry object per edge: no collector passes meanwhile
        try:
            tree = shapely.STRtree(shapely.linestrings(np.stack([N[ei], N[ej]], axis=1)))
        finally:
            if was_on:
                gc.enable()
        return cls([(tree, np.arange(len(ei), dtype=np.int64))], 0, len(ei))

    def edited(self, old_to_new: np.ndarray, N: np.ndarray, ei: np.ndarray, ej: np.ndarray,
               new_ids: np.ndarray) -> "EdgeIndex":
        """The index of an edited graph (edges ``ei``-``ej`` over corners ``N``): this
        one's entries mapped through ``old_to_new`` (this graph's edge id -> the new one's,
        -1 when gone), plus the edges ``new_ids`` of the new graph in a tree of their own."""
        added = self.added + len(new_ids)
        if len(self.trees) >= self.MAX_TREES or added > self.REBUILD_SHARE * max(len(ei), 1) or not self.trees:
            return EdgeIndex.build(N, ei, ej)
        trees = []
        for tree, ids in self.trees:
            mapped = np.where(ids >= 0, old_to_new[np.maximum(ids, 0)], -1)
            trees.append((tree, mapped))
        if len(new_ids):
            new_ids = np.asarray(new_ids, dtype=np.int64)
            lines = shapely.linestrings(np.stack([N[ei[new_ids]], N[ej[new_ids]]], axis=1))
            trees.append((shapely.STRtree(lines), new_ids))
        return EdgeIndex(trees, added, len(ei))

    def near(self, P: np.ndarray, distance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (point k, edge id) where edge id's segment lies within ``distance[k]`` of
        point ``P[k]`` (metres)."""
        if not self.trees or len(P) == 0:
            e = np.zeros(0, dtype=np.int64)
            return e, e
        pts = shapely.points(P)
        qs, es = [], []
        for tree, ids in self.trees:
            qi, t = tree.query(pts, predicate="dwithin", distance=distance)
            e = ids[t]
            live = e >= 0
            qs.append(qi[live])
            es.append(e[live])
        return np.concatenate(qs), np.concatenate(es)
