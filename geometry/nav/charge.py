"""Charge plans (Static Veil Charge: a path whose last leg runs straight at the target for the
run-up, ending in melee contact): free run-up bearings found exactly, finishes checked
lazily cheapest first, and a shortest-path tree shared by many charges of one mover.
docs/movement.md ("Charge") explains the method."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import shapely

from geometry.errors import InvalidInputError
from geometry.nav.graph import Graph, segments
from geometry.nav.navigator import Navigator
from geometry.nav.search import AStar, Query
from geometry.nav.values import (
    TOUCH,
    TREE_AFTER,
    XY,
    ChargePlan,
    check_point,
    check_positive,
    disc_array,
    merge_collinear,
    polyline_length,
)


#: Targets' run-up intervals a graph keeps (:meth:`Runup._obstacle_intervals`), oldest dropped.
RUNUP_CACHE = 4096


def _no_charge(reason: str) -> ChargePlan:
    return ChargePlan(False, (), None, None, None, reason)


class Runup:
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

    def __init__(self, q: Query, T: XY, c: float, runup: float):
        self.q, self.T, self.c, self.Rr = q, np.asarray(T, dtype=float), c, c + runup
        g = q.g
        blocked = [self._obstacle_intervals(g), self._disc_intervals()]
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

    def _obstacle_intervals(self, g: Graph) -> tuple[np.ndarray, np.ndarray]:
        """The bearings blocked by the grown obstacles and the map edge: they depend on the
        graph, the target's place and the two radii only, so the graph keeps them (an edit
        keeps those of targets away from the change, :func:`geometry.nav.edit.edit_graph`):
        a target's run-ups are worked out once however many movers charge it."""
        key = (float(self.T[0]), float(self.T[1]), float(self.c), float(self.Rr))
        cache = g.runup_cache
        hit = cache.get(key)
        if hit is None:
            if len(cache) >= RUNUP_CACHE:
                cache.pop(next(iter(cache)))
            hit = cache[key] = self._polygon_intervals(g)
        return hit

    def _polygon_intervals(self, g: Graph) -> tuple[np.ndarray, np.ndarray]:
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


class Finisher:
    """The last step of a charge search: from settled corners (cost g), walk straight to a
    run-up start. Candidates per corner: the run-up start on its own bearing (the nearest
    point of the circle; cost exactly g + |distance - radius|) when that bearing is free;
    the nearest free bearings on either side when it is blocked; and where the
    line from the corner's parent through the corner meets the circle (a last leg that only
    grazes that corner: the optimum may sit at such a visibility boundary). Checked cheapest
    first, in growing batches; checks are remembered across calls."""

    def __init__(self, q: Query, run: Runup):
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
                ok = ~has | Graph.tangent(dq, A, B)
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
                lines = segments(P, Q)
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


def settled_xy(q: Query, a: AStar, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
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


class ChargeTree:
    """Shortest-path costs from one mover to the corners around it (Dijkstra, grown on demand
    to a cost bound): the part of many charge plans by the same mover that does not depend on
    the target (every other body, the targets included, is an obstacle in all of them).

    Growing to a bound B first adds the corners of the bodies near enough to matter (centre
    within B plus a typical edge length), then settles every corner cheaper than B; when a
    body outside that blocks an edge worth taking, its corners are added and the search
    restarts."""

    def __init__(self, q: Query, src: int, start: XY, limit: float = math.inf):
        self.q, self.src = q, src
        self.limit = limit  # never grown beyond this cost (bodies further away never matter)
        g = q.g
        # bodies this far beyond the bound get their corners up front (typical edge length);
        # any other body that blocks a useful edge is added when the search meets it
        self.reach = math.inf if math.isinf(g.max_edge) else float(
            np.median(g.L) if g.max_edge < 0 and len(g.ei) else max(g.max_edge, 0.0))
        self.dc = np.hypot(q.C[:, 0] - start[0], q.C[:, 1] - start[1]) - q.R if len(q.C) else np.zeros(0)
        self.B = 0.0
        self.search: AStar | None = None
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
                self.search = AStar(q, self.src, None, wlimit=self.limit)
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
            X, PX = settled_xy(q, a, self._n)
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
    (intervals, see :class:`Runup`). An A* search from the mover
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
    s = nav.check_point(mover_xy, "mover")
    T = nav.check_point(target_xy, "target")
    r1 = check_positive(mover_radius, "the mover's radius")
    r2 = check_positive(target_radius, "the target's radius")
    check_positive(reach, "the reach", allow_zero=True)
    check_positive(runup, "the run-up", allow_zero=True)
    if max_movement is not None:
        check_positive(max_movement, "the movement allowed", allow_zero=True)
    return ChargeFrom(nav, s, r1, reach, runup, max_movement).plan(T, r2, discs, shared_tree=shared_tree)


def _alone(B: np.ndarray) -> np.ndarray:
    """Per row of ``B`` (x, y, ...): whether no other row lies within 1e-6 m of it. Rows
    that close lie in one run of the rows sorted by x whose neighbours are less than 1e-6
    apart in x, so only those runs are compared pairwise (all pairs of 500 bodies: 5 ms of
    the first charge by each attacker)."""
    n = len(B)
    alone = np.ones(n, dtype=bool)
    if n < 2:
        return alone
    order = np.argsort(B[:, 0], kind="stable")
    close = np.diff(B[order, 0]) < 1e-6
    if not close.any():
        return alone
    # runs of consecutive close neighbours: [start, end] positions in the sorted order
    edge = np.diff(np.concatenate(([0], close.astype(np.int8), [0])))
    for a, b in zip(np.flatnonzero(edge == 1).tolist(), np.flatnonzero(edge == -1).tolist()):
        rows = order[a:b + 1]
        d = np.hypot(B[rows, None, 0] - B[None, rows, 0], B[rows, None, 1] - B[None, rows, 1])
        alone[rows] = (d < 1e-6).sum(axis=1) == 1
    return alone


class ChargeFrom:
    """One mover's side of its charges (:func:`plan_charge`): the checked start, the graph
    for its radius, where it steps out to when it stands too close to a wall, the movement
    cap. Plans at many targets from one of these give the same answers as
    :func:`plan_charge` for each, without doing the mover's part again (the GUI's charge
    column asks for every target of one attacker)."""

    def __init__(self, nav: Navigator, mover_xy, mover_radius: float, reach: float = 1.0,
                 runup: float = 4.0, max_movement: float | None = None):
        self.nav = nav
        self.s = nav.check_point(mover_xy, "mover")
        self.r1 = check_positive(mover_radius, "the mover's radius")
        self.reach = check_positive(reach, "the reach", allow_zero=True)
        self.runup = check_positive(runup, "the run-up", allow_zero=True)
        if max_movement is not None:
            max_movement = check_positive(max_movement, "the movement allowed", allow_zero=True)
        self.max_movement = max_movement
        self.g = nav.graph(self.r1)
        self.s2 = self.g.escape(self.s)
        # the walk to the run-up start may cost at most cap: with a movement allowance the
        # search (and the bodies it must know of) stays within that distance of the mover
        self.cap = math.inf if max_movement is None else max(max_movement - self.runup, 0.0) + 1e-9
        self._base: tuple | None = None  # (bodies, as an array, alone, key): plan_at

    def plan_at(self, bodies: np.ndarray, j: int, *, shared_tree: bool | None = None) -> ChargePlan:
        """The mover's shortest charge at row ``j`` of ``bodies`` (every body but the mover,
        rows x, y, r): the same as :meth:`plan` at that row with the other rows as discs.
        Give the same array object for the charges at its rows: what they share (the bodies
        as a key of the shared search) is worked out once for it."""
        base = self._base
        if base is None or base[0] is not bodies:
            B = disc_array(bodies)
            s, r1, rg = self.s, self.r1, self.g.r
            same = (np.hypot(B[:, 0] - s[0], B[:, 1] - s[1]) < 1e-6) & (np.abs(B[:, 2] - r1) < 1e-6)
            # a row that no other row sits on (within 1e-6 m), not the mover's twin: the bodies
            # of a charge at it are all the rows but the mover's twins, whatever the row
            alone = _alone(B) & ~same
            D = B[~same].copy()
            D[:, 2] += rg
            D = D[np.hypot(D[:, 0] - s[0], D[:, 1] - s[1]) >= D[:, 2] - TOUCH]
            base = self._base = (bodies, B, alone, D[np.lexsort(D.T[::-1])].tobytes())
        _, B, alone, key = base
        if not 0 <= j < len(B):
            raise InvalidInputError(f"target index {j} is not a row of the {len(B)} bodies")
        return self.plan(B[j, :2], B[j, 2], np.delete(B, j, axis=0), shared_tree=shared_tree,
                         bodies_key=key if alone[j] else None)

    def plan(self, target_xy, target_radius: float, discs: np.ndarray | None = None,
             *, shared_tree: bool | None = None, bodies_key: bytes | None = None) -> ChargePlan:
        """The mover's shortest charge at the target (see :func:`plan_charge`; ``discs`` are
        the other bodies, the target not among them). ``bodies_key``: the key of the bodies
        the search meets (from :meth:`plan_at`), when the caller knows it."""
        nav, s, r1, runup, cap = self.nav, self.s, self.r1, self.runup, self.cap
        T = nav.check_point(target_xy, "target")
        r2 = check_positive(target_radius, "the target's radius")
        max_movement = self.max_movement
        g = self.g
        rg = g.r
        c = r1 + r2 + self.reach
        D = disc_array(discs)
        if len(D):
            same_mover = (np.hypot(D[:, 0] - s[0], D[:, 1] - s[1]) < 1e-6) & (np.abs(D[:, 2] - r1) < 1e-6)
            at_target = np.hypot(D[:, 0] - T[0], D[:, 1] - T[1]) < 1e-6
            D = D[~same_mover & ~at_target]
        D = np.vstack([D, [[T[0], T[1], r2]]])
        D[:, 2] += rg
        D = D[np.hypot(D[:, 0] - s[0], D[:, 1] - s[1]) >= D[:, 2] - TOUCH]  # bodies already overlapped
        s2 = self.s2
        if s2 is None:
            return _no_charge("the charging body is wedged in and cannot move")
        head: list[XY] = [s] if s2 == s else [s, s2]
        near = None if math.isinf(cap) else (s2, cap)
        key = (int(round(rg * 100)), s, D[np.lexsort(D.T[::-1])].tobytes() if bodies_key is None else bodies_key,
               cap)
        tree = nav.charge_trees.get(key) if shared_tree is not False else None
        if tree is not None:
            nav.charge_trees.move_to_end(key)
            q = tree.q
        else:
            q = Query(g, D, near=near)
        run = Runup(q, T, c, runup)
        use_tree = shared_tree is True or (shared_tree is None and nav.charge_seen.get(key, 0) >= TREE_AFTER)
        if tree is None and use_tree:
            si = q.add_nodes(np.array([s2]))[0]
            tree = nav.charge_trees[key] = ChargeTree(q, si, s2, limit=cap)
            while len(nav.charge_trees) > 4:
                nav.charge_trees.popitem(last=False)
        nav.charge_seen[key] = nav.charge_seen.get(key, 0) + 1
        if len(nav.charge_seen) > 64:
            nav.charge_seen.pop(next(iter(nav.charge_seen)))
        fin = Finisher(q, run)
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
                a = AStar(q, si, h, wlimit=cap)
                while True:
                    a.advance(U)
                    done = fin.best(np.asarray(a.settled, dtype=np.int64), np.asarray(a.settled_g), U, a.wanted,
                                    *settled_xy(q, a))
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
        pts = merge_collinear(head[:-1] + approach + [contact])
        return ChargePlan(True, tuple(pts), polyline_length(pts), pts[-2], contact, None)


def plan_charges(nav: Navigator, mover_xy, mover_radius: float, bodies: np.ndarray,
                 targets: Sequence[int] | None = None, reach: float = 1.0, runup: float = 4.0,
                 *, max_movement: float | None = None) -> list[ChargePlan]:
    """Charge plans of one mover at many targets: ``bodies`` are all the other bodies ((m, 3)
    rows x, y, r; the mover not among them), ``targets`` the indices of the rows to charge
    (default: every row). Same answers as :func:`plan_charge` one by one, sharing one
    shortest-path tree from the mover (and the mover's side, :class:`ChargeFrom`)."""
    B = disc_array(bodies)
    m = check_point(mover_xy, "mover")
    idx = list(range(len(B))) if targets is None else [int(i) for i in targets]
    for j in idx:
        if not 0 <= j < len(B):
            raise InvalidInputError(f"target index {j} is not a row of the {len(B)} bodies")
    # farthest first: the shared tree grows once to the largest bound, the rest reuse it
    order = sorted(range(len(idx)), key=lambda k: -math.hypot(B[idx[k], 0] - m[0], B[idx[k], 1] - m[1]))
    out: list[ChargePlan | None] = [None] * len(idx)
    mover = ChargeFrom(nav, m, mover_radius, reach, runup, max_movement) if idx else None
    for k in order:
        out[k] = mover.plan_at(B, idx[k], shared_tree=True)
    return out  # type: ignore[return-value]
