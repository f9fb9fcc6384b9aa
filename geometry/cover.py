"""Cover: how much of a body is hidden from an eye by obstacle prisms.

Model (issue 2, section 3). An obstacle is a prism: its footprint polygon, ``height`` metres
tall. A target's *silhouette* is the vertical rectangle through its centre, square to the
line of sight, ``2 r`` wide and as tall as its stance. A point of the silhouette is hidden
when the 3D segment from the eye to it passes through a prism. The cover fraction is the
hidden share of the silhouette's area.

How it is computed (no shadow polygons, see docs/geometry.md):

* Look along the line of sight from the eye ``E`` to the target centre ``T`` (plan distance
  ``D``) and put plan coordinates ``t`` (along the sight line) and ``q`` (across it, + to the
  shooter's right) on every obstacle vertex. The silhouette column at offset ``u`` is hit by
  the plan ray ``lam * (D, u)``; ``lam = 1`` is the silhouette itself.
* A column is hidden from the ground up: an obstacle of height ``h`` that the ray enters at
  ``lam_in`` and leaves at ``lam_out`` (within ``0 < lam <= 1``) hides it up to
  ``e + (h - e) / lam_in`` when ``h > e`` and ``e + (h - e) / lam_out`` when ``h < e``
  (the segment's height is linear along the ray, so the lowest point over the obstacle is
  at one end of the crossing). Several obstacles: the highest of these. Only the first
  entry and the last exit matter, so any polygon (convex or not, with holes) works.
* Along one obstacle edge, ``1 / lam`` is *linear* in ``u``; the hidden height is piecewise
  linear between the offsets where the ray passes a vertex, an edge crosses the
  silhouette's own line, or an edge's profile crosses the ground or the body's top. Those
  offsets are added as column boundaries (to :data:`BASE_COLUMNS` even ones), so the
  midpoint rule on the columns is exact but for the kinks where two obstacles' profiles
  cross (measured against the shadow-union reference: worst 0.2 percentage points in
  adversarial random scenes, typically 1e-12).
* Candidates come from bearings: every obstacle blocks an interval of bearings from the
  eye; obstacles are binned by bearing once per eye, each target looks up the bins its
  silhouette's bearings fall in, and all (target, obstacle, column, edge) combinations are
  evaluated at once as flat numpy arrays.

Units: metres; the eye height and body heights are metres above the ground.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.ma  # noqa: F401 - np.unique imports it on its first call (~40 ms, inside a GUI turn)
import shapely
from numpy.typing import ArrayLike

from geometry._arrays import ragged_arange as _ragged_arange
from geometry.errors import InvalidInputError

# --- cover classes: the thresholds live here and only here --------------------------------
#: Fractions below this are no cover.
PARTIAL_COVER_FROM = 0.25
#: Fractions up to and including this (from PARTIAL_COVER_FROM) are partial cover; above, good.
GOOD_COVER_ABOVE = 0.50
#: A fraction at or above this counts as "all hidden" (full cover); absorbs float noise.
FULL_COVER_AT = 1.0 - 1e-9

#: The classes, weakest first, and their rule (for docs and UIs).
COVER_CLASSES: tuple[tuple[str, str], ...] = (
    ("none", f"under {PARTIAL_COVER_FROM:.0%} hidden"),
    ("partial", f"{PARTIAL_COVER_FROM:.0%} to {GOOD_COVER_ABOVE:.0%} hidden"),
    ("good", f"over {GOOD_COVER_ABOVE:.0%} hidden, but not all"),
    ("full", "all hidden"),
)

#: Silhouette columns per target before obstacle breakpoints are added.
BASE_COLUMNS = 4
#: Look only at the obstacles near the eye and targets when their box is under this share of
#: the scene's area (a zone check, one line of sight); else at all of them.
SUBSET_AREA = 0.25
#: Bearing bins per eye used to find the obstacles in front of each target.
BEARING_BINS = 1024

_TWO_PI = 2.0 * math.pi


def cover_percent(fraction: float, cls: str | None = None) -> int:
    """The hidden share as a whole percentage for display: rounded *down* (so 99.6 % of a
    body, which is good cover, never reads "100 %"), 100 only when all is hidden. ``cls``,
    when given, decides full cover (for fractions already rounded for a report)."""
    f = float(fraction)
    if not math.isfinite(f):
        raise InvalidInputError(f"a cover fraction must be a finite number, got {fraction!r}")
    if cls == "full" or (cls is None and f >= FULL_COVER_AT):
        return 100
    return max(0, min(99, math.floor(f * 100 + 1e-9)))


def cover_class(fraction: float) -> str:
    """The cover class of a hidden fraction in [0, 1]: ``none`` (< 25 %), ``partial``
    (25-50 %), ``good`` (> 50 %, not all) or ``full`` (all hidden)."""
    f = float(fraction)
    if not math.isfinite(f):
        raise InvalidInputError(f"a cover fraction must be a finite number, got {fraction!r}")
    if f >= FULL_COVER_AT:
        return "full"
    if f > GOOD_COVER_ABOVE:
        return "good"
    if f >= PARTIAL_COVER_FROM:
        return "partial"
    return "none"


def cover_classes(fractions: ArrayLike) -> list[str]:
    """:func:`cover_class` of each fraction (a list, same order), at once."""
    f = np.asarray(fractions, dtype=float).reshape(-1)
    if not np.all(np.isfinite(f)):
        raise InvalidInputError("cover fractions must be finite numbers")
    k = np.where(f >= FULL_COVER_AT, 3, np.where(f > GOOD_COVER_ABOVE, 2, np.where(f >= PARTIAL_COVER_FROM, 1, 0)))
    names = [c for c, _ in COVER_CLASSES]
    return [names[i] for i in k.tolist()]


@dataclass(frozen=True)
class _EyeView:
    """Per-eye facts about every obstacle (bearing interval, distances)."""

    lo: np.ndarray  # obstacle bearing interval start, [0, 2pi)
    span: np.ndarray  # its width, radians (2pi = all round)
    full: np.ndarray  # bool: blocks every bearing (eye inside / surrounded)
    dmin: np.ndarray  # plan distance eye -> footprint (0 inside)
    dmax: np.ndarray  # plan distance eye -> farthest vertex
    eye_in: np.ndarray  # bool: eye strictly inside the footprint


class CoverIndex:
    """The blocking obstacles of a scene, indexed once for many cover questions.

    ``polygons`` are footprints (shapely Polygons or MultiPolygons, metres) and ``heights``
    their prism heights (metres, > 0); give blocking obstacles only. ``labels`` name the
    obstacles (default: their positions in the list; :attr:`source` holds each part's).
    Immutable: :meth:`edited` makes the index of a scene with a few obstacles changed,
    reusing everything else (an edit costs in proportion to what changed, plus the tree)."""

    def __init__(self, polygons: Sequence[shapely.Geometry], heights: ArrayLike,
                 labels: Sequence | None = None) -> None:
        self._assemble(_Parts.build(polygons, heights, labels))

    def edited(self, remove: Sequence, polygons: Sequence[shapely.Geometry] = (),
               heights: ArrayLike = (), labels: Sequence | None = None) -> "CoverIndex":
        """A new index without the obstacles labelled ``remove`` and with ``polygons`` /
        ``heights`` (labelled ``labels``) added; the same answers as an index built from
        scratch over the resulting obstacles (the order of obstacles never matters)."""
        gone = set(remove)
        keep = np.fromiter((s not in gone for s in self.source.tolist()), dtype=bool, count=self.n)
        added = _Parts.build(polygons, heights, labels)
        out = CoverIndex.__new__(CoverIndex)
        out._assemble(_Parts.concat(self._parts.take(keep), added))
        return out

    def _assemble(self, parts: "_Parts") -> None:
        self._parts = parts
        self.polygons = parts.polygons
        self.heights = parts.heights
        self.source = parts.source  # part -> label (or index) of the input polygon
        self.n = len(parts.polygons)
        shapely.prepare(self.polygons)  # (already prepared parts stay as they are)
        self.tree = shapely.STRtree(self.polygons)
        self.vx, self.vy, self.nxt = parts.vx, parts.vy, parts.nxt
        vcount, ecount = parts.vcount, parts.ecount
        self.vstart = np.cumsum(vcount) - vcount
        self.vcount = vcount
        self.ext_count = ecount
        self.v_obs = np.repeat(np.arange(self.n), vcount)
        # exterior-ring vertices (each obstacle's come first), grouped by obstacle
        self._ext_idx = np.repeat(self.vstart, ecount) + _ragged_arange(ecount)
        self._ext_start = np.cumsum(ecount) - ecount
        self._holed = parts.holed
        if self.n:
            x0, y0, x1, y1 = shapely.total_bounds(self.polygons)
            self._area = max((x1 - x0) * (y1 - y0), 1e-9)
        else:
            self._area = 1.0
        for arr in (self.vx, self.vy, self.nxt, self.heights):
            arr.flags.writeable = False


    # -- per eye ------------------------------------------------------------------------------
    def _view(self, ex: float, ey: float, obs: np.ndarray | None = None) -> _EyeView:
        """Bearing intervals and distances of the obstacles (all, or only ``obs``) from an
        eye at (ex, ey); obstacles left out get ``dmin = inf`` (never candidates)."""
        if obs is None:
            vx, vy, nxt, vstart = self.vx, self.vy, self.nxt, self.vstart
            ext_idx, ext_start, ecount = self._ext_idx, self._ext_start, self.ext_count
        else:
            vcount = self.vcount[obs]
            vstart = np.cumsum(vcount) - vcount
            sv = np.repeat(self.vstart[obs], vcount) + _ragged_arange(vcount)
            vx, vy = self.vx[sv], self.vy[sv]
            shift = np.repeat(vstart - self.vstart[obs], vcount)
            nxt = self.nxt[sv] + shift
            ecount = self.ext_count[obs]
            ext_start = np.cumsum(ecount) - ecount
            ext_idx = np.repeat(vstart, ecount) + _ragged_arange(ecount)
        wx = vx - ex
        wy = vy - ey
        # bearing interval of each exterior ring, unwrapped along the ring
        ang = np.arctan2(wy, wx)
        delta = ang[nxt[ext_idx]] - ang[ext_idx]
        delta = np.where(delta >= math.pi, delta - _TWO_PI, delta)
        delta = np.where(delta < -math.pi, delta + _TWO_PI, delta)
        cum = np.cumsum(delta)
        before = np.concatenate(([0.0], cum))[ext_start]
        rel = cum - np.repeat(before, ecount)
        lo_rel = np.minimum(np.minimum.reduceat(rel, ext_start), 0.0)
        hi_rel = np.maximum(np.maximum.reduceat(rel, ext_start), 0.0)
        winding = rel[ext_start + ecount - 1]  # +-2 pi when the ring goes round the eye
        eye_in = np.abs(winding) > math.pi
        if self._holed.any() and eye_in.any():  # inside the outline, but maybe in a hole
            ids = np.arange(self.n) if obs is None else obs
            chk = np.nonzero(eye_in & self._holed[ids])[0]
            eye_in[chk] = shapely.contains_xy(self.polygons[ids[chk]], ex, ey)
        lo = (ang[ext_idx[ext_start]] + lo_rel) % _TWO_PI
        span = hi_rel - lo_rel
        full = eye_in | (span >= _TWO_PI - 1e-9)
        # distances: eye to each edge segment (squared), then per obstacle
        bx = wx[nxt] - wx
        by = wy[nxt] - wy
        l2 = bx * bx + by * by
        with np.errstate(invalid="ignore", divide="ignore"):
            tt = np.clip(-(wx * bx + wy * by) / l2, 0.0, 1.0)
        tt = np.where(l2 > 0, tt, 0.0)
        dx = wx + tt * bx
        dy = wy + tt * by
        dmin = np.sqrt(np.minimum.reduceat(dx * dx + dy * dy, vstart))
        dmin = np.where(eye_in, 0.0, dmin)
        dmax = np.sqrt(np.maximum.reduceat(wx * wx + wy * wy, vstart))
        if obs is None:
            return _EyeView(lo, span, full, dmin, dmax, eye_in)
        n = self.n
        out = [np.zeros(n), np.zeros(n), np.zeros(n, dtype=bool), np.full(n, np.inf),
               np.zeros(n), np.zeros(n, dtype=bool)]
        for arr, val in zip(out, (lo, span, full, dmin, dmax, eye_in)):
            arr[obs] = val
        return _EyeView(*out)

    def _pairs(self, view: _EyeView, e: float, theta: np.ndarray, alpha: np.ndarray,
               dist: np.ndarray, lmax: np.ndarray, live: np.ndarray,
               body: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Candidate (target, obstacle) pairs: obstacles whose bearing bins overlap the
        target's silhouette, nearer than it, and able to hide some of it; with ``body``
        (the targets' heights) also which targets are *walled* (wholly hidden, see
        :meth:`_walled_bins`): those get no pairs (their fraction is 1). Returns
        ``(p_t, p_o, walled)``, ``walled`` None without ``body``.

        Every obstacle is listed in each bearing bin it spans; a target takes all the
        obstacles of its first bin and, from its further bins, only those that start there,
        so each pair comes up once (twice at most when both intervals wrap round into each
        other, which is harmless: hidden heights are maxima). Bins are 360/BEARING_BINS
        degrees wide; a pair whose intervals only share a bin costs a little work later and
        contributes nothing. Only obstacles in the bins of targets that are not walled are
        listed (the pairs of the others are the same as when all are)."""
        n = self.n
        none = np.zeros(0, dtype=np.int64)
        nt = theta.shape[0]
        walled = np.zeros(nt, dtype=bool) if body is not None else None
        if n == 0 or not live.any():
            return none, none, walled
        reach = float(lmax[live].max())
        useful = view.dmin < reach
        bins = BEARING_BINS
        mask = bins - 1
        bw = _TWO_PI / bins
        ob = np.nonzero(useful & ~view.full)[0]
        lo = view.lo[ob]
        k0 = np.minimum(np.floor(lo / bw).astype(np.int64), mask)
        nk = np.minimum(np.floor((lo + view.span[ob]) / bw).astype(np.int64) - k0 + 1, bins)
        tl = np.nonzero(live)[0]
        tlo = (theta[tl] - alpha[tl]) % _TWO_PI
        tk0 = np.minimum(np.floor(tlo / bw).astype(np.int64), mask)
        tnk = np.minimum(np.floor((tlo + 2 * alpha[tl]) / bw).astype(np.int64) - tk0 + 1, bins)
        if body is not None and ob.size:
            w = self._walled_bins(view, e, ob, lo, dist, body, tl, tk0, tnk)
            walled[tl[w]] = True
            if w.all():
                return none, none, walled
            tl, tk0, tnk = tl[~w], tk0[~w], tnk[~w]
        toff = _ragged_arange(tnk)
        q_k = (np.repeat(tk0, tnk) + toff) & mask
        if body is not None and ob.size:
            # list only the obstacles whose bins meet a bin of a target left
            need = np.zeros(2 * bins + 1, dtype=np.int64)
            need[1:bins + 1][q_k] = 1
            need[bins + 1:] = need[1:bins + 1]
            need = np.cumsum(need)
            touch = need[k0 + nk] > need[k0]
            ob, k0, nk = ob[touch], k0[touch], nk[touch]
        off = _ragged_arange(nk)
        ent_o = np.repeat(ob, nk)
        ent_k = (np.repeat(k0, nk) + off) & mask
        start = off == 0
        key = (ent_k << 1) | ~start  # within a bin, the obstacles that start there come first
        items = ent_o[np.argsort(key.astype(np.int16), kind="stable")]  # radix sort
        cnt_all = np.bincount(ent_k, minlength=bins)
        cnt_start = np.bincount(ent_k[start], minlength=bins)
        ptr = np.cumsum(cnt_all) - cnt_all
        cnt = np.where(toff == 0, cnt_all[q_k], cnt_start[q_k])
        p_t = np.repeat(np.repeat(tl, tnk), cnt)
        p_o = items[np.repeat(ptr[q_k], cnt) + _ragged_arange(cnt)]
        fo = np.nonzero(useful & view.full)[0]
        if fo.size:
            p_t = np.concatenate((p_t, np.repeat(tl, fo.size)))
            p_o = np.concatenate((p_o, np.tile(fo, tl.size)))
        # the bins only approximate the bearings: keep the pairs whose intervals do overlap
        # (an obstacle outside the silhouette's bearings crosses no ray to it, adds no
        # column boundary: the answers are the same, for less work on far targets)
        t_lo = theta[p_t] - alpha[p_t]
        o_lo = view.lo[p_o]
        overlap = view.full[p_o] | (np.mod(t_lo - o_lo, _TWO_PI) <= view.span[p_o] + 1e-12) \
            | (np.mod(o_lo - t_lo, _TWO_PI) <= 2.0 * alpha[p_t] + 1e-12)
        near = overlap & (view.dmin[p_o] < lmax[p_t])
        hh = self.heights[p_o]
        # an obstacle lower than the eye hides at most e + (h - e) * max(1, D / dmax)
        with np.errstate(divide="ignore"):
            ratio = np.maximum(1.0, dist[p_t] / view.dmax[p_o])
        keep = near & ((hh >= e) | (e + (hh - e) * ratio > 0))
        p_t, p_o = p_t[keep], p_o[keep]
        if body is not None and p_t.size:
            w = self._walled(view, e, theta, alpha, dist, body, p_t, p_o)
            if w.any():
                walled |= w
                keep = ~w[p_t]
                p_t, p_o = p_t[keep], p_o[keep]
        return p_t, p_o, walled

    def _walled_bins(self, view: _EyeView, e: float, ob: np.ndarray, lo: np.ndarray,
                     dist: np.ndarray, body: np.ndarray, tl: np.ndarray, tk0: np.ndarray,
                     tnk: np.ndarray) -> np.ndarray:
        """Which of the targets ``tl`` (bearing bins ``tk0`` .. ``tk0 + tnk - 1``) are wholly
        hidden by the obstacles ``ob`` (bearing intervals from ``lo``), bin by bin (bool per
        target in ``tl``).

        A bin is *walled* at distance d for bodies up to height b when an obstacle taller
        than the eye and at least b tall, all of it within d of the eye, covers the whole
        bin (with 1e-9 rad to spare each side): every ray of those bearings enters it before
        d. A target is hidden when each of its bins is walled nearer than it for its body:
        the argument of :meth:`_walled`, with the bins' obstacles in turn."""
        levels = np.unique(body[tl])
        h = self.heights[ob]
        lvl = np.searchsorted(levels, h, side="right") - 1  # the highest body it hides
        bins = BEARING_BINS
        bw = _TWO_PI / bins
        f0 = np.ceil((lo + 1e-9) / bw).astype(np.int64)
        nf = np.floor((lo + view.span[ob] - 1e-9) / bw).astype(np.int64) - f0
        use = np.nonzero((h > e) & (lvl >= 0) & (nf > 0))[0]
        if use.size == 0:
            return np.zeros(tl.size, dtype=bool)
        nf = np.minimum(nf[use], bins)
        ent = (np.repeat(f0[use], nf) + _ragged_arange(nf)) & (bins - 1)
        table = np.full(levels.size * bins, np.inf)
        np.minimum.at(table, np.repeat(lvl[use] * bins, nf) + ent, np.repeat(view.dmax[ob[use]], nf))
        table = np.minimum.accumulate(table.reshape(levels.size, bins)[::-1], axis=0)[::-1].ravel()
        t_lvl = np.searchsorted(levels, body[tl])
        q = np.repeat(t_lvl * bins, tnk) + ((np.repeat(tk0, tnk) + _ragged_arange(tnk)) & (bins - 1))
        far = np.maximum.reduceat(table[q], np.cumsum(tnk) - tnk)
        return far < dist[tl]

    def _walled(self, view: _EyeView, e: float, theta: np.ndarray, alpha: np.ndarray,
                dist: np.ndarray, body: np.ndarray, p_t: np.ndarray, p_o: np.ndarray) -> np.ndarray:
        """Targets wholly hidden by one obstacle of the candidate pairs (bool per target).

        An obstacle taller than the eye and than the target's body, every vertex of it nearer
        the eye than the target (``dmax < D``), whose bearing interval contains all of the
        silhouette's bearings (with 1e-9 rad to spare): every column's ray enters it (a
        connected footprint is met by every ray within its bearing interval) at some
        ``lam < 1``, so each column is hidden up to ``e + (h - e) / lam_in > h >= body`` --
        the whole body, whatever else is in the way. Such targets need no more work: their
        fraction is 1."""
        hb = self.heights[p_o]
        off = np.mod(theta[p_t] - alpha[p_t] - view.lo[p_o], _TWO_PI)
        wall = (hb > e) & (hb >= body[p_t]) & ~view.full[p_o] & (view.dmax[p_o] < dist[p_t]) \
            & (off + 2.0 * alpha[p_t] <= view.span[p_o] - 1e-9)
        out = np.zeros(theta.shape[0], dtype=bool)
        out[p_t[wall]] = True
        return out

    # -- the core -------------------------------------------------------------------------------
    def _solve(self, eye_xy, eye_z: float, targets_xy, radii, cells=None, base_columns: int | None = None,
               body: np.ndarray | None = None):
        """Hidden heights on silhouette columns. Returns (cell_target, cell_u, cell_width,
        hidden_height) as flat arrays grouped by target; ``cells`` = (target index, u)
        gives the columns instead of building them (widths are then zero)."""
        ex, ey = (float(v) for v in np.asarray(eye_xy, dtype=float).reshape(2))
        e = float(eye_z)
        txy = np.asarray(targets_xy, dtype=float).reshape(-1, 2)
        r = np.broadcast_to(np.asarray(radii, dtype=float), (txy.shape[0],)).astype(float)
        nt = txy.shape[0]
        dxt = txy[:, 0] - ex
        dyt = txy[:, 1] - ey
        dist = np.hypot(dxt, dyt)
        live = dist > 1e-9
        safe = np.where(live, dist, 1.0)
        cx = np.where(live, dxt / safe, 1.0)  # sight direction
        cy = np.where(live, dyt / safe, 0.0)
        theta = np.arctan2(cy, cx)
        alpha = np.arctan2(r, np.where(live, dist, 1.0))
        lmax = np.hypot(dist, r)

        view = None
        if self.n and live.any():
            # only obstacles within the box around the eye and the targets can matter; when
            # that box is a small part of the scene, look at those alone
            m = float(r.max())
            box = (min(ex, float(txy[:, 0].min()) - m), min(ey, float(txy[:, 1].min()) - m),
                   max(ex, float(txy[:, 0].max()) + m), max(ey, float(txy[:, 1].max()) + m))
            if (box[2] - box[0]) * (box[3] - box[1]) < SUBSET_AREA * self._area:
                obs = np.sort(self.tree.query(shapely.box(*box)))
                view = self._view(ex, ey, obs) if obs.size else None
            else:
                view = self._view(ex, ey)
        walled = None
        if view is not None:
            p_t, p_o, walled = self._pairs(view, e, theta, alpha, dist, lmax, live, body)
        else:
            p_t = p_o = np.zeros(0, dtype=np.int64)

        # pair-edges: every edge of every candidate obstacle, in sight coordinates (t, q):
        # t along the line of sight, q to the shooter's right; the ray of column u is
        # lam * (D, u) and reaches the silhouette at lam = 1.
        ne = self.vcount[p_o]
        pe_first = np.cumsum(ne) - ne
        pe_pair = np.repeat(np.arange(p_o.size), ne)
        pe_v = np.repeat(self.vstart[p_o], ne) + _ragged_arange(ne)
        pe_t = p_t[pe_pair]
        if p_o.size:
            wxa, wya = self.vx[pe_v] - ex, self.vy[pe_v] - ey
            vb = self.nxt[pe_v]
            wxb, wyb = self.vx[vb] - ex, self.vy[vb] - ey
            c, s = cx[pe_t], cy[pe_t]
            ta = wxa * c + wya * s
            qa = wya * c - wxa * s
            tb = wxb * c + wyb * s
            qb = wyb * c - wxb * s
        else:
            ta = qa = tb = qb = np.zeros(0)
        D = dist[pe_t]

        # columns, sorted by (target, u)
        order_back = None
        if cells is None:
            c_t, c_u, c_w = self._columns(e, live, r, p_o, pe_pair, pe_t, ta, qa, tb, qb, D,
                                          base_columns, body)
        else:
            c_t = np.asarray(cells[0], dtype=np.int64)
            c_u = np.asarray(cells[1], dtype=float)
            order = np.argsort(c_t * 4.0 + (c_u / r[c_t] + 1.0), kind="stable")
            order_back = np.empty_like(order)
            order_back[order] = np.arange(order.size)
            c_t, c_u = c_t[order], c_u[order]
            c_w = np.zeros_like(c_u)
        ncell_t = np.bincount(c_t, minlength=nt)
        cstart = np.cumsum(ncell_t) - ncell_t
        ckey = c_t * 4.0 + (c_u / r[c_t] + 1.0)

        hidden = np.zeros(c_t.shape[0])
        if p_o.size and c_t.size:
            n_e = ta * qb - qa * tb  # cross(A, B - A): < 0 where the ray enters the solid
            with np.errstate(divide="ignore", invalid="ignore"):
                k1 = D * (qb - qa) / n_e  # 1 / lam = k1 - u * k2 along this edge's line
                k2 = (tb - ta) / n_e
            straddle = (np.minimum(ta, tb) <= D) & (np.maximum(ta, tb) >= D)
            hard = view.eye_in[p_o] | (np.add.reduceat(straddle.astype(np.int64), pe_first) > 0)
            h_pe = self.heights[p_o][pe_pair]
            self._simple(hidden, e, ~hard[pe_pair], h_pe, pe_t, ta, qa, tb, qb, D, n_e, k1, k2,
                         r, c_u, ckey)
            if hard.any():
                self._hard(hidden, e, view, np.nonzero(hard)[0], p_t, p_o, ne, pe_first, ta, qa,
                           D, tb, qb, k1, k2, c_u, ncell_t, cstart)
        hidden = np.maximum(hidden, 0.0)
        if walled is not None:
            hidden[walled[c_t]] = np.inf
        if order_back is not None:
            c_t, c_u, hidden = c_t[order_back], c_u[order_back], hidden[order_back]
            c_w = c_w[order_back]
        return c_t, c_u, c_w, hidden

    def _columns(self, e, live, r, p_o, pe_pair, pe_t, ta, qa, tb, qb, D, base_columns, body):
        """Silhouette columns (target, centre u, width), sorted by (target, u): even
        :data:`BASE_COLUMNS` per target, split where the hidden-height profile may jump or
        bend (obstacle vertices seen on the silhouette line, edges crossing it, and with
        ``body`` heights the offsets where an edge's profile meets the ground or the top)."""
        nb = int(BASE_COLUMNS if base_columns is None else base_columns)
        if nb < 1:
            raise InvalidInputError("base_columns must be at least 1")
        lt = np.nonzero(live)[0]
        base_t = np.repeat(lt, nb + 1)
        base_u = np.tile(np.linspace(-1.0, 1.0, nb + 1), lt.size) * r[base_t]
        rr = r[pe_t]
        ts, us = [base_t], [base_u]
        with np.errstate(divide="ignore", invalid="ignore"):
            uv = np.where(ta > 1e-12, D * qa / ta, np.inf)  # a vertex seen on the silhouette line
            k = np.abs(uv) < rr
            ts.append(pe_t[k])
            us.append(uv[k])
            fa, fb = ta - D, tb - D
            k = np.nonzero((fa * fb) < 0)[0]  # edges crossing the silhouette line
            if k.size:
                lam = fa[k] / (fa[k] - fb[k])
                ux = qa[k] + lam * (qb[k] - qa[k])
                m = np.abs(ux) < rr[k]
                ts.append(pe_t[k][m])
                us.append(ux[m])
            if body is not None and pe_t.size:
                # where an edge's (linear) hidden height crosses the ground or the body's
                # top, the clipped profile bends: make those column boundaries too. Only
                # for edges wholly in front of the eye whose projection meets the silhouette.
                ub = np.where(tb > 1e-12, D * qb / tb, np.inf)
                front = (ta > 1e-12) & (tb > 1e-12)
                lo = np.minimum(uv, ub)
                hi = np.maximum(uv, ub)
                k = np.nonzero(front & (lo < rr) & (hi > -rr))[0]
                if k.size:
                    tk = pe_t[k]
                    dh = self.heights[p_o[pe_pair[k]]] - e
                    n_e = ta[k] * qb[k] - qa[k] * tb[k]
                    a1 = dh * (tb[k] - ta[k]) / n_e
                    a0 = e + dh * D[k] * (qb[k] - qa[k]) / n_e
                    for level in (0.0, body[tk]):
                        uk = (a0 - level) / a1
                        m = (uk > lo[k]) & (uk < hi[k]) & (np.abs(uk) < rr[k])
                        ts.append(tk[m])
                        us.append(uk[m])
        all_t = np.concatenate(ts)
        all_u = np.concatenate(us)
        order = np.argsort(all_t * 4.0 + (all_u / r[all_t] + 1.0), kind="stable")
        st, su = all_t[order], all_u[order]
        same = st[1:] == st[:-1]
        c_t = st[:-1][same]
        c_w = (su[1:] - su[:-1])[same]
        c_u = 0.5 * (su[1:] + su[:-1])[same]
        keepc = c_w > 1e-12 * r[c_t]
        c_t, c_u, c_w = c_t[keepc], c_u[keepc], c_w[keepc]
        return c_t, c_u, c_w

    def _simple(self, hidden, e, use, h_pe, pe_t, ta, qa, tb, qb, D, n_e, k1, k2, r, c_u, ckey):
        """Obstacles wholly in front of the silhouette line (none crosses it, the eye is
        outside): every crossing counts; the first entry is on an edge facing the eye, the
        last exit on one facing away. Such an edge, seen from the eye, covers the columns
        between its ends' projections, and its hidden height is linear in u there:
        ``e + (h - e) * (k1 - u * k2)``."""
        before = use & (np.maximum(ta, tb) < D)  # (wholly beyond the silhouette: no effect)
        rel = before & (n_e != 0) & np.where(h_pe > e, n_e < 0, np.where(h_pe < e, n_e > 0, True))
        idx = np.nonzero(rel)[0]
        if idx.size == 0:
            return
        ta, qa, tb, qb, Dd = ta[idx], qa[idx], tb[idx], qb[idx], D[idx]
        t_of = pe_t[idx]
        dh = h_pe[idx] - e
        a0 = e + dh * k1[idx]  # hidden height = a0 - u * a1
        a1 = dh * k2[idx]
        front = (ta > 1e-9) & (tb > 1e-9)
        fi = np.nonzero(front)[0]
        if fi.size:
            ua = Dd[fi] * qa[fi] / ta[fi]
            ub = Dd[fi] * qb[fi] / tb[fi]
            rt = r[t_of[fi]]
            base = t_of[fi] * 4.0 + 1.0
            first = np.searchsorted(ckey, base + np.clip(np.minimum(ua, ub) / rt, -1.5, 1.5))
            last = np.searchsorted(ckey, base + np.clip(np.maximum(ua, ub) / rt, -1.5, 1.5))
            cnt = last - first
            total = int(cnt.sum())
            if total:
                cell = np.repeat(first, cnt) + _ragged_arange(cnt)
                hh = np.repeat(a0[fi], cnt) - c_u[cell] * np.repeat(a1[fi], cnt)
                np.maximum.at(hidden, cell, hh)
        si = np.nonzero(~front)[0]
        if si.size:  # edges reaching behind the eye: test each column's ray against them
            tt = t_of[si]
            lo = np.searchsorted(ckey, tt * 4.0)
            cnt = np.searchsorted(ckey, tt * 4.0 + 3.0) - lo
            el = np.repeat(np.arange(si.size), cnt)
            cell = np.repeat(lo, cnt) + _ragged_arange(cnt)
            u = c_u[cell]
            g = si[el]
            with np.errstate(divide="ignore", invalid="ignore"):
                den = Dd[g] * (qb - qa)[g] - u * (tb - ta)[g]
                mu = (ta[g] * u - qa[g] * Dd[g]) / den
                inv_lam = (den / (ta * qb - qa * tb)[g])
            ok = (mu >= 0.0) & (mu < 1.0) & (inv_lam >= 1.0) & np.isfinite(inv_lam)
            hh = a0[g] - u * a1[g]
            np.maximum.at(hidden, cell[ok], hh[ok])

    def _hard(self, hidden, e, view, pairs, p_t, p_o, ne, pe_first, ta, qa, D, tb, qb, k1, k2,
              c_u, ncell_t, cstart):
        """Obstacles that contain the eye or cross the silhouette line: every (column, edge)
        crossing is found, the entry/exit order comes from counting them."""
        ne_p = ne[pairs]
        nc_p = ncell_t[p_t[pairs]]
        m_p = nc_p * ne_p
        el_pair = np.repeat(np.arange(pairs.size), m_p)
        k = _ragged_arange(m_p)
        nep = ne_p[el_pair]
        cl = k // nep
        el_cell = cstart[p_t[pairs]][el_pair] + cl
        el_pe = pe_first[pairs][el_pair] + (k - cl * nep)
        u = c_u[el_cell]
        Dd = D[el_pe]
        den = Dd * (qb - qa)[el_pe] - u * (tb - ta)[el_pe]
        with np.errstate(divide="ignore", invalid="ignore"):
            mu = (ta[el_pe] * u - qa[el_pe] * Dd) / den
            inv_lam = k1[el_pe] - u * k2[el_pe]
        inv_lam = np.where(np.isnan(inv_lam), np.inf, inv_lam)
        hit = (mu >= 0.0) & (mu < 1.0) & (inv_lam >= 1.0)
        grp = np.cumsum(m_p) - m_p
        pc_pair = np.repeat(np.arange(pairs.size), nc_p)
        pc_local = _ragged_arange(nc_p)
        pc_start = grp[pc_pair] + pc_local * ne_p[pc_pair]
        cnt = np.add.reduceat(hit.astype(np.int64), pc_start)
        mx = np.maximum.reduceat(np.where(hit, inv_lam, -np.inf), pc_start)
        mn = np.minimum.reduceat(np.where(hit, inv_lam, np.inf), pc_start)
        o = p_o[pairs][pc_pair]
        h = self.heights[o]
        e_in = view.eye_in[o]
        end_in = e_in ^ (cnt % 2 == 1)
        any_hit = e_in | (cnt > 0)
        sel = np.where(h > e, np.where(e_in, np.inf, mx), np.where(end_in, 1.0, mn))
        with np.errstate(invalid="ignore"):
            hh = np.where(h == e, e, e + (h - e) * sel)
        hh = np.where(any_hit & ~np.isnan(hh), hh, 0.0)
        pc_cell = cstart[p_t[pairs]][pc_pair] + pc_local
        np.maximum.at(hidden, pc_cell, hh)

    # -- public ------------------------------------------------------------------------------------
    def cover_fractions(self, eye_xy: ArrayLike, eye_z: float, targets_xy: ArrayLike,
                        radii: ArrayLike, heights: ArrayLike) -> np.ndarray:
        """The hidden fraction (0..1) of each target's silhouette seen from an eye at
        ``eye_xy`` (metres), ``eye_z`` metres above the ground. ``targets_xy`` (n, 2) are
        the targets' centres, ``radii`` (n,) half their silhouette widths and ``heights``
        (n,) their body heights, all metres. A target at the eye's own position gets 0."""
        txy = np.asarray(targets_xy, dtype=float).reshape(-1, 2)
        nt = txy.shape[0]
        hgt = np.broadcast_to(np.asarray(heights, dtype=float), (nt,)).astype(float)
        r = np.broadcast_to(np.asarray(radii, dtype=float), (nt,)).astype(float)
        _check_targets(txy, r, hgt, eye_xy, eye_z)
        if nt == 0:
            return np.zeros(0)
        c_t, _, c_w, hidden = self._solve(eye_xy, eye_z, txy, r, body=hgt)
        part = np.minimum(hidden, hgt[c_t]) / hgt[c_t] * c_w
        frac = np.bincount(c_t, weights=part, minlength=nt) / (2.0 * r)
        return np.clip(frac, 0.0, 1.0)

    def hidden_heights(self, eye_xy: ArrayLike, eye_z: float, target_xy: ArrayLike,
                       radius: float, u: ArrayLike) -> np.ndarray:
        """For silhouette columns at signed offsets ``u`` (metres across the line of sight,
        + to the shooter's right), the height in metres up to which each column of the
        target at ``target_xy`` is hidden from the eye: 0 = not hidden, ``inf`` = hidden at
        any height. The target's own height does not matter here."""
        uu = np.asarray(u, dtype=float).reshape(-1)
        txy = np.asarray(target_xy, dtype=float).reshape(1, 2)
        _check_targets(txy, np.array([float(radius)]), np.array([1.0]), eye_xy, eye_z)
        if uu.size == 0:
            return np.zeros(0)
        if not np.all(np.isfinite(uu)):
            raise InvalidInputError("column offsets must be finite numbers of metres")
        r = max(float(radius), float(np.abs(uu).max()), 1e-9)
        _, _, _, hidden = self._solve(eye_xy, eye_z, txy, np.array([r]),
                                      cells=(np.zeros(uu.size, dtype=np.int64), uu))
        return hidden


@dataclass(frozen=True)
class _Parts:
    """The polygon parts of a set of obstacles as flat arrays: each part's polygon (solid to
    the left of every edge), height and source label; every ring's vertices (closing point
    dropped, exterior first) with the index of the next vertex round the ring; per part
    its vertex count, exterior vertex count and whether it has holes."""

    polygons: np.ndarray
    heights: np.ndarray
    source: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    nxt: np.ndarray
    vcount: np.ndarray
    ecount: np.ndarray
    holed: np.ndarray

    @staticmethod
    def build(polygons, heights, labels=None) -> "_Parts":
        polys = np.empty(len(polygons), dtype=object)
        polys[:] = list(polygons)
        hs = np.asarray(heights, dtype=float).reshape(-1)
        if len(polys) != hs.shape[0]:
            raise InvalidInputError(f"{len(polys)} polygons but {hs.shape[0]} heights")
        if hs.size and not (np.all(np.isfinite(hs)) and np.all(hs > 0)):
            raise InvalidInputError("obstacle heights must be finite and above 0 m")
        if labels is None:
            lab = np.arange(len(polys), dtype=np.int64)
        else:
            lab = np.empty(len(polys), dtype=object)
            lab[:] = list(labels)
            if len(lab) != len(polys):
                raise InvalidInputError(f"{len(lab)} labels for {len(polys)} polygons")
        kind = np.array([-1 if g is None else shapely.get_type_id(g) for g in polys.tolist()], dtype=np.int64) \
            if len(polys) else np.zeros(0, dtype=np.int64)
        bad = np.flatnonzero((kind != -1) & (kind != 3) & (kind != 6))
        if bad.size:
            i = int(bad[0])
            raise InvalidInputError(f"obstacle {i} is a {polys[i].geom_type}, not a polygon")
        use = np.flatnonzero(kind != -1)
        use = use[~shapely.is_empty(polys[use])] if use.size else use
        parts, owner = shapely.get_parts(polys[use], return_index=True)
        owner = use[owner]
        if len(parts):
            invalid = np.flatnonzero(~shapely.is_valid(parts))
            if invalid.size:
                k = int(invalid[0])
                raise InvalidInputError(f"obstacle {int(owner[k])}'s footprint is not a valid polygon: "
                                        f"{shapely.is_valid_reason(parts[k])}")
            parts = shapely.orient_polygons(parts)  # solid to the left of every edge
        rings, ring_part = shapely.get_rings(parts, return_index=True)
        xy, ring_of = shapely.get_coordinates(rings, return_index=True)
        closing = np.ones(len(xy), dtype=bool)
        closing[:-1] = ring_of[1:] != ring_of[:-1]
        xy, ring_of = xy[~closing], ring_of[~closing]
        rsize = np.bincount(ring_of, minlength=len(rings))
        rstart = np.cumsum(rsize) - rsize
        pos = np.arange(len(xy)) - rstart[ring_of]
        nxt = rstart[ring_of] + (pos + 1) % np.maximum(rsize[ring_of], 1)
        npart = len(parts)
        vcount = np.bincount(ring_part[ring_of], minlength=npart).astype(np.int64)
        first_ring = np.searchsorted(ring_part, np.arange(npart))
        ecount = rsize[first_ring].astype(np.int64) if npart else np.zeros(0, dtype=np.int64)
        holed = np.bincount(ring_part, minlength=npart) > 1
        return _Parts(np.asarray(parts, dtype=object), hs[owner].astype(float), lab[owner],
                      np.ascontiguousarray(xy[:, 0]), np.ascontiguousarray(xy[:, 1]),
                      nxt.astype(np.int64), vcount, ecount, holed)

    def take(self, keep: np.ndarray) -> "_Parts":
        """The parts where ``keep`` is True, in order."""
        vcount = self.vcount[keep]
        vstart = (np.cumsum(self.vcount) - self.vcount)[keep]
        sv = np.repeat(vstart, vcount) + _ragged_arange(vcount)
        new_start = np.cumsum(vcount) - vcount
        nxt = self.nxt[sv] + np.repeat(new_start - vstart, vcount)
        return _Parts(self.polygons[keep], self.heights[keep], self.source[keep], self.vx[sv],
                      self.vy[sv], nxt, vcount, self.ecount[keep], self.holed[keep])

    @staticmethod
    def concat(a: "_Parts", b: "_Parts") -> "_Parts":
        src = np.concatenate([a.source.astype(object), b.source.astype(object)]) \
            if a.source.dtype != b.source.dtype else np.concatenate([a.source, b.source])
        return _Parts(np.concatenate([a.polygons, b.polygons]), np.concatenate([a.heights, b.heights]),
                      src, np.concatenate([a.vx, b.vx]), np.concatenate([a.vy, b.vy]),
                      np.concatenate([a.nxt, b.nxt + len(a.vx)]), np.concatenate([a.vcount, b.vcount]),
                      np.concatenate([a.ecount, b.ecount]), np.concatenate([a.holed, b.holed]))


def segment_box_distance(a: ArrayLike, b: ArrayLike, box: tuple[float, float, float, float]) -> np.ndarray:
    """Plan distance (metres) from each segment a-b[i] (a: one point, b: (n, 2)) to the box
    (x0, y0, x1, y1); 0 where they meet. Exact: the distance between a segment and a convex
    box is reached at a segment end or where the segment is nearest a box corner or edge
    line, so it is the least of the ends' distances to the box, the corners' distances to
    the segment, and 0 where the segment crosses the box."""
    A = np.broadcast_to(np.asarray(a, dtype=float).reshape(-1, 2), np.shape(b)).astype(float)
    B = np.asarray(b, dtype=float).reshape(-1, 2)
    x0, y0, x1, y1 = box

    def point_box(P):
        dx = np.maximum(np.maximum(x0 - P[:, 0], P[:, 0] - x1), 0.0)
        dy = np.maximum(np.maximum(y0 - P[:, 1], P[:, 1] - y1), 0.0)
        return np.hypot(dx, dy)

    best = np.minimum(point_box(A), point_box(B))
    d = B - A
    dd = np.einsum("ij,ij->i", d, d)
    for cx, cy in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
        w = np.array([cx, cy]) - A
        t = np.clip(np.einsum("ij,ij->i", w, d) / np.where(dd > 0, dd, 1.0), 0.0, 1.0)
        f = A + t[:, None] * d - np.array([cx, cy])
        best = np.minimum(best, np.hypot(f[:, 0], f[:, 1]))
    # crossing: Liang-Barsky clip of the segment against the box
    t0 = np.zeros(len(A))
    t1 = np.ones(len(A))
    ok = np.ones(len(A), dtype=bool)
    for k, lo, hi in ((0, x0, x1), (1, y0, y1)):
        dk, pk = d[:, k], A[:, k]
        flat = dk == 0
        ok &= ~(flat & ((pk < lo) | (pk > hi)))
        with np.errstate(divide="ignore", invalid="ignore"):
            ta, tb = (lo - pk) / dk, (hi - pk) / dk
        t0 = np.maximum(t0, np.where(flat, -np.inf, np.minimum(ta, tb)))
        t1 = np.minimum(t1, np.where(flat, np.inf, np.maximum(ta, tb)))
    return np.where(ok & (t0 <= t1), 0.0, best)


def _check_targets(txy, r, hgt, eye_xy, eye_z) -> None:
    eye = np.asarray(eye_xy, dtype=float).reshape(-1)
    if eye.shape != (2,) or not np.all(np.isfinite(eye)):
        raise InvalidInputError(f"the eye position must be two finite numbers, got {eye_xy!r}")
    if not math.isfinite(float(eye_z)) or float(eye_z) < 0:
        raise InvalidInputError(f"the eye height must be a finite number >= 0 m, got {eye_z!r}")
    if not np.all(np.isfinite(txy)):
        raise InvalidInputError("target positions must be finite numbers of metres")
    if r.size and not (np.all(np.isfinite(r)) and np.all(r > 0)):
        raise InvalidInputError("target radii must be finite and above 0 m")
    if hgt.size and not (np.all(np.isfinite(hgt)) and np.all(hgt > 0)):
        raise InvalidInputError("target heights must be finite and above 0 m")
