"""One search on a static graph: a query's extra nodes (start, goal, corners of bodies in the
way) with their edges, and a resumable A* / Dijkstra over both."""

from __future__ import annotations

import heapq
import math

import numpy as np
import shapely

from geometry.nav.graph import Graph, regular_polygon, segments
from geometry.nav.values import START_REACH, TOUCH, XY


#: Candidate pairs of extra nodes looked at in one go (memory: ~100 bytes each).
PAIR_SLICE = 1 << 20


class Query:
    """One search on top of a static graph: extra nodes (start, goal, corners of bodies in
    the way) and their edges, with the other bodies' discs (x, y, radius grown by the
    mover's radius) as per-query obstacles."""

    def __init__(self, g: Graph, discs: np.ndarray, graph_edges: bool = True,
                 near: tuple[XY, float] | None = None):
        self.g = g
        self.n0 = g.n
        if len(discs) > 1:
            # bodies stacked on one spot (a token pasted a hundred times) block as one: each
            # copy would add the same corners again, and every pair of corners is a candidate
            # edge (100 copies: 8.3 million)
            _, first = np.unique(discs, axis=0, return_index=True)
            if len(first) < len(discs):
                discs = discs[np.sort(first)]
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
            lines = segments(P, Q)
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
        lines = segments(P, Q)
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
            if limited and has:  # a corner: only the two wedges it sees through are looked up
                a, b = g.corners_seen_from(P, TA, TB, Lk)
            else:
                if not limited:
                    a = np.repeat(np.arange(k), g.n)
                    b = np.tile(np.arange(g.n), k)
                else:
                    a, b = g.node_tree.query(shapely.points(P), predicate="dwithin", distance=Lk)
                d = g.N[b] - P[a]
                ok = Graph.tangent(d, g.A[b], g.B[b])
                if has:
                    ok &= Graph.tangent(d, TA[a], TB[a])
                a, b = a[ok], b[ok]
            src.append(a)
            dst.append(b)
        # earlier extra nodes, then the new ones among themselves
        m = len(self.pts)
        allP = np.vstack([self.P, P])
        allTA = np.vstack([self.TA, TA])
        allTB = np.vstack([self.TB, TB])
        allhas = np.concatenate([self.has_tan, np.full(k, has)])
        allL = np.concatenate([self.Lov, Lk])
        if m + k > 1:
            # every (new, earlier or new) pair is a candidate: in slices of the new nodes, so
            # that many extra nodes never hold all their pairs in memory at once
            step = max(1, PAIR_SLICE // (m + k))
            for lo in range(0, k, step):
                a = np.repeat(np.arange(lo, min(k, lo + step)), m + k)
                b = np.tile(np.arange(m + k), min(k, lo + step) - lo)
                keep = b < m + a
                a, b = a[keep], b[keep]
                d = allP[b] - P[a]
                ok = np.hypot(d[:, 0], d[:, 1]) <= np.maximum(Lk[a], allL[b])
                ok &= Graph.tangent(d, allTA[b], allTB[b]) | ~allhas[b]
                if has:
                    ok &= Graph.tangent(d, TA[a], TB[a])
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
                    b = b[(dist > inner) & Graph.tangent(d, g.A[b], g.B[b])]
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
        lines = segments(P, Q)
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
        base = regular_polygon(g.sides, 1.0 / math.cos(math.pi / g.sides), math.pi / g.sides)
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
            ok &= ~g.solid_hits_xy(V[:, 0], V[:, 1])
        if self.disc_tree is not None:
            pi, dj = self.disc_tree.query(shapely.points(V), predicate="dwithin", distance=self.maxR)
            inside = (np.hypot(V[pi, 0] - self.C[dj, 0], V[pi, 1] - self.C[dj, 1]) < self.R[dj] - TOUCH) \
                & (dj != owner[pi])
            ok[pi[inside]] = False
        self.add_nodes(V[ok], TA[ok], TB[ok])

    # ------------------------------------------------------------- search
    def search(self, src: int, h, goal: int):
        """A* from src to goal with the admissible, consistent estimate ``h`` (see
        :class:`AStar`); re-runs
        with more bodies' corners while bodies block edges worth taking. Returns the
        finished :class:`AStar` (``parent`` holds the path when the goal was reached)."""
        while True:
            a = AStar(self, src, h, goal)
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


class AStar:
    """A resumable A* over a query's graph (Dijkstra when ``h`` is None). The estimate ``h``
    is ``(x, y, r)``: | distance to the point (x, y) - r | (r = 0: the straight-line
    distance). Settled nodes are listed in order with their costs; ``wanted`` collects the
    bodies whose discs blocked an edge that would have improved a node (their corners belong
    in the graph)."""

    def __init__(self, q: Query, src: int, h, goal: int | None = None, wlimit: float = math.inf):
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
