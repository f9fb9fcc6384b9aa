"""The :class:`Navigator`: one obstacle set (and map edge), its visibility graphs per body radius
(built on first use), point checks and shortest paths."""

from __future__ import annotations

import gc
import math
from collections import OrderedDict
from typing import Sequence

import numpy as np
import shapely

from geometry.errors import InsideObstacleError, InvalidInputError, OutsideMapError
from geometry.nav.graph import Graph, footprint_pieces
from geometry.nav.search import Query
from geometry.nav.values import (
    PAIR_BUDGET,
    SIDES,
    TOUCH,
    XY,
    PathResult,
    check_point,
    check_positive,
    disc_array,
    merge_collinear,
    polyline_length,
)


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
        polys = _checked(polygons)
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
        self.raw_tree = shapely.STRtree(np.array(self.polygons, dtype=object)) if polys else None
        if polys:
            shapely.prepare(np.asarray(self.polygons, dtype=object))
        self._graphs: dict[int, Graph] = {}
        self._pieces = None
        self._base: Navigator | None = None  # the navigator this one was edited from
        self.charge_trees: OrderedDict = OrderedDict()  # charge trees by (radius, mover, bodies)
        self.charge_seen: dict = {}
        self.graph_edits = 0  # graphs made by editing an earlier navigator's (for tests, benches)

    def edited(self, remove: Sequence[str], polygons: Sequence[shapely.Polygon], ids: Sequence[str]) -> "Navigator":
        """A navigator for this one's obstacles without those named ``remove`` (by id) and
        with ``polygons`` (named ``ids``) added. Cheap: its graphs are made on first use
        by editing this navigator's (only the part of a graph near the changed obstacles
        is worked out again, see :meth:`Graph.edited`), or built when there are none."""
        if self.ids is None:
            raise InvalidInputError("only a navigator whose obstacles have ids can be edited")
        added = _checked(polygons)
        ids = tuple(str(s) for s in ids)
        if len(ids) != len(added):
            raise InvalidInputError(f"{len(ids)} ids for {len(added)} obstacles")
        gone = set(remove)
        keep = [k for k, i in enumerate(self.ids) if i not in gone]
        out = Navigator.__new__(Navigator)
        out.polygons = tuple(self.polygons[k] for k in keep) + tuple(added)
        out.ids = tuple(self.ids[k] for k in keep) + ids
        out.bounds, out.sides, out.pair_budget, out.max_edge = self.bounds, self.sides, self.pair_budget, self.max_edge
        out.raw_tree = shapely.STRtree(np.array(out.polygons, dtype=object)) if out.polygons else None
        if added:
            shapely.prepare(np.asarray(added, dtype=object))
        out._graphs = {}
        out._pieces = None
        out._base = self if self._graphs or self._base is None else self._base
        if self._graphs:
            self._base = None  # (an older navigator's graphs are never edited twice over)
        out.charge_trees = OrderedDict()
        out.charge_seen = {}
        out.graph_edits = 0
        return out

    def _edited_graph(self, key: int) -> Graph | None:
        """This navigator's graph for radius key / 100 edited from the nearest earlier
        navigator that has one, or None (none has, or the edit is not worth it)."""
        base = self._base
        while base is not None and key not in base._graphs:
            base = base._base
        if base is None:
            return None
        mine = {id(p) for p in self.polygons}
        theirs = {id(p) for p in base.polygons}
        removed = [k for k, p in enumerate(base.polygons) if id(p) not in mine]
        added = [p for p in self.polygons if id(p) not in theirs]
        was_on = gc.isenabled()
        gc.disable()  # (as for a build: tens of thousands of short-lived objects)
        try:
            g = base._graphs[key].edited(removed, added, self.polygons)
        finally:
            if was_on:
                gc.enable()
        if g is not None:
            self.graph_edits += 1
        return g

    # ----------------------------------------------------------------- helpers
    def obstacle_name(self, i: int) -> str | int:
        return self.ids[i] if self.ids is not None else i

    def graph(self, radius: float) -> Graph:
        key = max(1, int(round(radius * 100)))
        g = self._graphs.get(key)
        if g is None and self._base is not None:
            g = self._edited_graph(key)
            if g is not None:
                self._graphs[key] = g
        if g is None:
            if self._pieces is None and self.polygons:
                self._pieces = footprint_pieces(self.polygons, self.sides)  # shared by every radius
            # the build makes ~10^5 short-lived geometry objects, each tracked by the garbage
            # collector (whose passes over the whole heap cost 5-10 % of the build): paused
            was_on = gc.isenabled()
            gc.disable()
            try:
                g = Graph(self.polygons, self.bounds, key / 100.0, self.sides, self.pair_budget,
                           self.max_edge, self._pieces)
            finally:
                if was_on:
                    gc.enable()
            self._graphs[key] = g
        return g

    def has_graph(self, radius: float) -> bool:
        """Whether the graph for bodies of this radius is built (or made by an edit) already."""
        return max(1, int(round(float(radius) * 100))) in self._graphs

    def prepare(self, radius: float) -> None:
        """Build (and keep) the graph for bodies of this radius now rather than on first use."""
        self.graph(check_positive(radius, "the radius"))

    def graph_size(self, radius: float) -> tuple[int, int, float]:
        """(corners, edges, edge-length limit in metres) of the graph for this radius: the
        limit is inf for a complete graph, else the median of the per-corner limits."""
        g = self.graph(check_positive(radius, "the radius"))
        if math.isinf(g.max_edge) or g.n < 2:
            return g.n, len(g.ei), math.inf
        return g.n, len(g.ei), float(np.median(g.L))

    def obstacle_at(self, p: XY) -> int | None:
        """Index of an obstacle whose footprint contains point p (metres), or None."""
        if self.raw_tree is None:
            return None
        hit = self.raw_tree.query(shapely.Point(p), predicate="intersects")
        return int(hit[0]) if len(hit) else None

    def check_point(self, p, role: str) -> XY:
        p = check_point(p, role)
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
        a, b = check_point(a_xy, "segment start"), check_point(b_xy, "segment end")
        r = check_positive(radius, "the radius")
        g = self.graph(r)
        D = disc_array(discs).copy()
        D[:, 2] += g.r
        return bool(Query(g, D, graph_edges=False).free(np.array([a]), np.array([b]))[0])

    # ----------------------------------------------------------------- shortest path
    def shortest_path(self, start_xy, goal_xy, radius: float, discs: np.ndarray | None = None) -> PathResult | None:
        """The shortest path (metres) for the centre of a disc of ``radius`` from start to goal
        around the obstacles, the map edge and the other bodies ``discs`` ((m, 3) rows
        x, y, r), or None when the goal cannot be reached or the body does not fit there.

        Raises :class:`InsideObstacleError` when start or goal lies inside an obstacle's
        footprint and :class:`OutsideMapError` when it lies off the map. A body that starts
        overlapping a wall or another body (as placed) may step out of it: bodies it already
        overlaps do not block it, and its first leg leads straight to the nearest free spot."""
        s = self.check_point(start_xy, "start")
        t = self.check_point(goal_xy, "goal")
        r = check_positive(radius, "the radius")
        g = self.graph(r)
        D = disc_array(discs).copy()
        D[:, 2] += g.r
        if len(D):
            D = D[np.hypot(D[:, 0] - s[0], D[:, 1] - s[1]) >= D[:, 2] - TOUCH]  # overlapped already
        head: list[XY] = [s]
        s2 = g.escape(s)
        if s2 is None:
            return None
        if s2 != s:
            head.append(s2)
        q = Query(g, D)
        if not g.point_free(t) or q.point_in_disc(t).any():
            return None
        P, Q = np.array([s2]), np.array([t])
        if q.free(P, Q)[0]:
            pts = merge_collinear(head + [t])
            return PathResult(tuple(pts), polyline_length(pts))
        si, ti = q.add_nodes(np.array([s2, t]))

        a = q.search(si, (t[0], t[1], 0.0), goal=ti)
        if not a.reached:
            return None
        pts = q.trace(a.parent, ti)
        if q.smooth:
            pts = q.pull_taut(pts)
        pts = merge_collinear(head[:-1] + pts)
        return PathResult(tuple(pts), polyline_length(pts))


def _checked(polygons: Sequence[shapely.Polygon]) -> list[shapely.Polygon]:
    """The footprints, oriented, after checking each is a valid polygon with finite
    coordinates (raises :class:`InvalidInputError` naming the first that is not)."""
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
    return list(shapely.orient_polygons(arr)) if len(arr) else []
