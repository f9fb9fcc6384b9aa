"""Sight: what an eye sees among obstacle prisms, as a yes/no per body and as an area.

Two answers, one model (the prisms and silhouettes of :mod:`geometry.cover`):

* :func:`sees` -- can an eye see a body: some part of the body's silhouette is not hidden.
  It *is* the cover computation: seen exactly when the cover fraction is not full
  (:data:`geometry.cover.FULL_COVER_AT`), so "A sees B" and "B has full cover from A" can
  never disagree.
* :func:`sight_area` / :func:`party_sight` -- the map area in sight, as a Shapely polygon
  (for drawing fog). A map point is *in sight* when a thin standing body there (a vertical
  column ``body`` metres tall, :func:`geometry.bodies.body_height` of ``"standing"`` by
  default) would not be fully hidden, and the point is within the vision range.

When is a column hidden (the derivation, docs/geometry.md "Sight")? Eye at height ``e``,
column of height ``H`` at plan distance ``rho`` from the eye, an obstacle of height ``h``
that the plan ray enters at distance ``d_in`` and leaves at ``d_out`` (``d_out < rho``). The
3-D sight line to the column's top has height ``z(s) = e + (H - e) * s / rho`` at plan
distance ``s``. The top is hidden when ``z(s) <= h`` somewhere in ``[d_in, d_out]``, and
then the whole column is (every lower point's sight line runs below the top's, and the
prism reaches the ground). ``z`` is linear, so its least value over the crossing is at an
end:

* ``H > e`` (the sight line rises: the usual case, 1.8 m body, eyes at 1.6 m or lower):
  the least is ``z(d_in) = e + (H - e) * d_in / rho``; hidden iff ``rho >= k * d_in`` with
  ``k = (H - e) / (h - e)`` when ``h > e``, never when ``h <= e``. So an obstacle at least
  as tall as the body (``k <= 1``) hides its whole shadow; one between eye and body height
  hides only from ``k`` times its entry distance on (a 1.7 m wall seen from 1.6 m eyes
  hides a standing body 2 times as far behind as the wall is in front); one no taller than
  the eye hides no standing body at all. On each ray the hidden part is therefore
  ``[min over obstacles of max(k, 1) * d_in, inf)``: the area in sight is star-shaped, the
  visibility polygon of the eye among the footprints *scaled about the eye by
  max(k, 1)*.
* ``H < e`` (an eye above the body's top): the least is ``z(d_out)``; hidden iff
  ``rho <= k * d_out`` with ``k = (e - H) / (e - h)`` when ``h < e`` (a bounded band
  behind the obstacle, none when ``k <= 1``), always when ``h >= e`` (whole shadow).
* ``H == e``: hidden iff ``h >= e``.

Worked check (the issue's): eyes 1.6 m, wall 1 m tall entered at 5 m. A prone body
(0.4 m) at 6 m: ``H < e``, ``k = (1.6 - 0.4) / (1.6 - 1.0) = 2``, the wall (0.3 m thick,
left at 5.3 m) hides out to 10.6 m: hidden. A standing body (1.8 m): ``h <= e``, never
hidden. A 3 m wall: ``h >= e`` hides both.

How the area is computed: rays from the eye at every obstacle vertex's bearing (just either
side of it) plus an even fan (:data:`ARC_RAYS`, for the vision circle), each ray cut at the
nearest scaled obstacle edge it crosses; candidate (ray, edge) pairs come from each edge's
bearing interval by binary search over the sorted rays, all at once as numpy arrays. Between
two neighbouring rays the boundary is a straight piece of one edge (every vertex bearing is
a ray), except where two scaled footprints' edges cross between rays: the outline's chord
then cuts the corner off (a V of two walls opening towards the eye at 250 m loses a metre
of its depth between the fan's rays 2.2 m apart). The area never holds a hidden point;
:func:`sight_bounds` also gives a polygon sure to hold every point in sight (the corners
where the two edges' lines meet), for deciding "not seen" only where it is certain.

Units: metres; heights are metres above the ground. No Qt, no rules.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from numpy.typing import ArrayLike

from geometry._arrays import ragged_arange as _ragged_arange
from geometry.bodies import body_height
from geometry.cover import FULL_COVER_AT, CoverIndex
from geometry.errors import InvalidInputError

#: Rays in the even fan that draws the vision circle (and fills open ground).
ARC_RAYS = 720
#: Angle (radians) either side of a vertex's bearing at which its rays are cast.
VERTEX_EPS = 1e-7
#: Obstacles in the first, bounding pass of the area in sight (the nearest ones).
FIRST_PASS = 64
#: Points of an area in sight this close (m) to the line of their neighbours are dropped.
SIMPLIFY = 1e-4
#: The vision range used when none is given: further than any map Coverfire opens.
UNLIMITED = 1e5

_TWO_PI = 2.0 * math.pi


def sees(index: CoverIndex, eye_xy: ArrayLike, eye_z: float, targets_xy: ArrayLike,
         radii: ArrayLike, heights: ArrayLike) -> np.ndarray:
    """Whether an eye at ``eye_xy`` (metres), ``eye_z`` m above the ground, sees each body:
    some of its silhouette (``radii`` half-width, ``heights`` tall, metres; see
    :meth:`CoverIndex.cover_fractions`) is not hidden. Defined as "cover is not full", the
    very same computation, so it agrees with the cover class ``full`` everywhere. Returns a
    bool array, one per target."""
    frac = index.cover_fractions(eye_xy, eye_z, targets_xy, radii, heights)
    return frac < FULL_COVER_AT


def _check_eye(eye_xy, eye_z, body, vision) -> tuple[float, float, float, float, float]:
    eye = np.asarray(eye_xy, dtype=float).reshape(-1)
    if eye.shape != (2,) or not np.all(np.isfinite(eye)):
        raise InvalidInputError(f"the eye position must be two finite numbers, got {eye_xy!r}")
    e, H = float(eye_z), float(body)
    if not math.isfinite(e) or e < 0:
        raise InvalidInputError(f"the eye height must be a finite number >= 0 m, got {eye_z!r}")
    if not math.isfinite(H) or H <= 0:
        raise InvalidInputError(f"the body height must be a finite number > 0 m, got {body!r}")
    R = UNLIMITED if vision is None else float(vision)
    if not math.isfinite(R) or R < 0:
        raise InvalidInputError(f"the vision range must be a finite number >= 0 m, got {vision!r}")
    return float(eye[0]), float(eye[1]), e, H, min(R, UNLIMITED)


def hiding_factors(heights: ArrayLike, eye_z: float, body: float) -> tuple[np.ndarray, np.ndarray]:
    """For obstacles of ``heights`` (m), an eye at ``eye_z`` and a column ``body`` m tall:
    ``(k, beyond)``. Where ``beyond`` is True the obstacle hides every point at or beyond
    ``k`` times the distance at which the sight ray enters it (``k >= 1``; ``inf``: hides
    nothing); where False (eye above the body, obstacle below the eye) it hides the points
    from where the ray leaves it out to ``k`` times that distance (nothing when ``k <= 1``).
    See the module docstring for the derivation."""
    h = np.asarray(heights, dtype=float)
    e, H = float(eye_z), float(body)
    with np.errstate(divide="ignore", invalid="ignore"):
        if H > e:
            k = np.where(h > e, np.maximum((H - e) / (h - e), 1.0), np.inf)
            return k, np.ones(h.shape, dtype=bool)
        if H == e:
            return np.where(h >= e, 1.0, np.inf), np.ones(h.shape, dtype=bool)
        beyond = h >= e
        k = np.where(beyond, 1.0, (e - H) / (e - h))
        return k, beyond


def sight_area(index: CoverIndex, eye_xy: ArrayLike, eye_z: float, body: float | None = None,
               vision: float | None = None) -> shapely.Geometry:
    """The area in sight of an eye at ``eye_xy`` (metres), ``eye_z`` m above the ground: the
    points where a thin column ``body`` m tall (default: a standing body) would not be fully
    hidden by the obstacles of ``index``, within ``vision`` metres (None: unlimited). Returns
    a Shapely Polygon (empty when ``vision`` is 0). Give only the obstacles that block
    (closed doors, not open ones); a window's ``height`` is its sill, so sight passes above
    it like above a wall that tall. It never holds a hidden point (to :data:`SIMPLIFY`); it
    may leave out a little of what is in sight where two footprints' edges cross between
    rays (:func:`sight_bounds` gives a polygon sure to hold all of it too)."""
    return _sight(index, eye_xy, eye_z, body, vision, False)[0]


def sight_bounds(index: CoverIndex, eye_xy: ArrayLike, eye_z: float, body: float | None = None,
                 vision: float | None = None) -> tuple[shapely.Geometry, shapely.Geometry]:
    """``(inner, outer)``: :func:`sight_area` (``inner``: every point of it is in sight) and
    a polygon ``outer`` that holds every point in sight (the very same object when the two
    agree). Where two footprints' edges cross between neighbouring rays (a V of two walls
    opening towards the eye, an inner corner of overlapping walls) the area's outline joins
    the two rays' ends by a straight chord, cutting the corner off; the true outline there
    lies between the chord and the point where the two edges' lines meet (between two rays
    that no vertex bearing separates, each edge crossing one spans the gap, so the points in
    sight there are on the eye's side of both lines: a convex piece holding the chord).
    ``outer`` adds those points. Within :data:`VERTEX_EPS` of a vertex's bearing the
    outlines can differ by up to ``2 * VERTEX_EPS`` times the distance (sideways), and the
    vision circle stays drawn by chords (by ``R * (1 - cos(pi / ARC_RAYS))`` inside it at
    most): callers deciding "not in sight" allow that much more."""
    return _sight(index, eye_xy, eye_z, body, vision, True)


def _sight(index: CoverIndex, eye_xy, eye_z, body, vision, bounds: bool):
    """:func:`sight_bounds`; without ``bounds`` the outer polygon is not worked out (the
    area itself is returned in its place)."""
    ex, ey, e, H, R = _check_eye(eye_xy, eye_z, body_height("standing") if body is None else body,
                                 vision)
    if R <= 0:
        return shapely.Polygon(), shapely.Polygon()
    k_obs, beyond_obs = hiding_factors(index.heights, e, H)
    rays, rho, line = _star(index, ex, ey, R, np.where(beyond_obs, k_obs, np.inf))
    star = _polygon(ex, ey, rays, rho)
    outer = _outer(ex, ey, rays, rho, line, R) if bounds else None
    band = ~beyond_obs & (k_obs > 1.0)
    if band.any():
        bands = _bands(index, ex, ey, R, k_obs, _reaching(index, ex, ey, band, rays, rho))
        star = shapely.difference(star, bands)
        outer = None if outer is None else shapely.difference(outer, bands)
    return star, star if outer is None else outer


def _tangents(rays: np.ndarray, R: float) -> np.ndarray:
    """(4, n): for each ray a line (two points, eye-relative) bounding what it sees uncut:
    the vision circle's tangent at its end."""
    c, s = np.cos(rays), np.sin(rays)
    return np.stack((R * c, R * s, R * c - s, R * s + c))


def _outer(ex: float, ey: float, rays: np.ndarray, rho: np.ndarray, line: np.ndarray,
           R: float) -> shapely.Geometry | None:
    """The star polygon through the ray ends (not simplified) with, between each two
    neighbouring rays cut by different lines (``line``: the cutting edge of each ray,
    :func:`_cut`), the point where those lines meet when it lies between the rays beyond the
    chord (:func:`sight_bounds`); None when there is no such point. Where the lines meet
    beyond the vision circle the circle bounds the gap instead (its circumscribed sector).
    The bearings still grow along the outline, so the polygon is simple."""
    n = rays.size
    if n < 3:
        return None
    j = np.roll(np.arange(n), -1)
    ax, ay, bx, by = line
    dix, diy = bx - ax, by - ay
    djx, djy = dix[j], diy[j]
    den = dix * djy - diy * djx
    scale = np.hypot(dix, diy) * np.hypot(djx, djy)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = ((ax[j] - ax) * djy - (ay[j] - ay) * djx) / den
        xx, xy = ax + t * dix, ay + t * diy
    ci, si = np.cos(rays), np.sin(rays)
    cj, sj = ci[j], si[j]
    pix, piy = rho * ci, rho * si
    pjx, pjy = pix[j], piy[j]
    cx, cy = pjx - pix, pjy - piy
    clen = np.maximum(np.hypot(cx, cy), 1e-300)
    with np.errstate(invalid="ignore"):
        off = (cx * (xy - piy) - cy * (xx - pix)) / clen  # the eye is on the negative side
        eye_side = (cx * (0.0 - piy) - cy * (0.0 - pix))
        inside = (ci * xy - si * xx > 0) & (xx * sj - xy * cj > 0)
    cand = (np.abs(den) > 1e-12 * scale) & np.isfinite(t) & inside & (off * np.sign(-eye_side) > SIMPLIFY)
    cand &= ~((rays[j] - rays) % _TWO_PI > math.pi)
    cand &= (rho < R) | (rho[j] < R)  # (two uncut rays: the circle's chord, within the slack)
    if not cand.any():
        return None
    gap = (rays[j] - rays) % _TWO_PI
    Rc = R / np.cos(gap / 2)  # the circle's circumscribed sector reaches this far
    with np.errstate(invalid="ignore"):
        far = cand & ~(np.hypot(xx, xy) <= Rc * (1 + 1e-9))
    near = cand & ~far
    far_i, near_i = np.nonzero(far)[0], np.nonzero(near)[0]
    # where the lines meet beyond the circle, the sector's corner points just inside the gap
    # (a sliver of VERTEX_EPS sideways left out, within the slack callers allow)
    d = np.minimum(VERTEX_EPS, gap[far_i] / 4)
    b0, b1 = rays[far_i] + d, rays[far_i] + gap[far_i] - d
    Rf = Rc[far_i]
    px = np.concatenate((pix, xx[near_i], Rf * np.cos(b0), Rf * np.cos(b1)))
    py = np.concatenate((piy, xy[near_i], Rf * np.sin(b0), Rf * np.sin(b1)))
    key = np.concatenate((np.arange(n, dtype=float), near_i + 0.5, far_i + 0.3, far_i + 0.6))
    order = np.argsort(key, kind="stable")
    poly = shapely.Polygon(np.column_stack((ex + px[order], ey + py[order])))
    if rho.min() < 1e-9 and not poly.is_valid:  # the eye on an obstacle's edge
        poly = shapely.make_valid(poly)
    return poly


def _star(index: CoverIndex, ex: float, ey: float, R: float, k_obs: np.ndarray) -> tuple:
    """The star-shaped polygon of points on each ray nearer than the first obstacle edge
    scaled by ``k_obs`` about the eye (inf: ignored), cut at ``R``, as ``(rays, rho, line)``
    (:func:`_cast`).

    In passes, nearest obstacles first. The :data:`FIRST_PASS` obstacles nearest the eye
    give a star polygon that contains the answer (fewer obstacles hide less); an obstacle
    can then cut a ray only where that polygon reaches beyond the obstacle's nearest
    (scaled) distance somewhere in its bearing interval. Between rays the polygon's boundary
    is straight, so its farthest point over a bearing interval is at a ray inside it or at
    the two rays either side: the test is exact. The obstacles that pass it are cast in
    batches of growing size, nearest first: each batch's new rays are cut by every obstacle
    cast before, every ray by the batch, and the test is made again before each batch (the
    polygon only shrinks), so a far obstacle a nearer one already hides is never cast. At
    the end the rays of the vertices of the obstacles that passed the first test but were
    left out later are added (cut by the obstacles cast, the only ones that can cut them):
    the very rays, and the same cuts, as casting every obstacle that passed the first test
    at once. Each obstacle's bounding circle (no farther, its bearing interval no narrower
    than its footprint's) makes a cheap first test, so the footprints' bearings and
    distances are worked out only for the obstacles it keeps (:class:`_Known`)."""
    vx = index.vx - ex
    vy = index.vy - ey
    live = np.isfinite(k_obs)
    if not index.n or not live.any():
        return _cast(vx, vy, index, np.zeros(0, dtype=np.int64), k_obs, R)
    cx, cy, cr = _circles(index)
    wx, wy = cx - ex, cy - ey
    dc = np.hypot(wx, wy)
    with np.errstate(invalid="ignore"):  # inf * 0 where ``live`` is False anyway
        near_c = np.where(live, k_obs * np.maximum(dc - cr, 0.0), np.inf)
    cand = np.nonzero(live & (near_c < R))[0]
    known = _Known(index, ex, ey, k_obs)
    first = _nearest(known, cand, near_c, R)
    if first is None:  # no more than FIRST_PASS obstacles within reach: all at once
        known.add(cand)
        return _cast(vx, vy, index, cand[known.near[cand] < R], k_obs, R)
    cast = _edges(vx, vy, index, first, k_obs)
    rays = np.unique(np.concatenate((_fan(), cast[-1])))
    rho = np.full(rays.size, R)
    line = _tangents(rays, R)
    _cut(rays, rho, cast, line)
    rest = np.setdiff1d(cand, first, assume_unique=True)
    # the bounding circles' test, first of the cells' (:func:`_cells`) then of the obstacles
    # in the cells it keeps: it keeps every obstacle the footprint's test keeps
    cell_of, ccx, ccy, ccr = _cells(index)
    cwx, cwy = ccx - ex, ccy - ey
    cd = np.hypot(cwx, cwy)
    with np.errstate(invalid="ignore", divide="ignore"):
        chalf = np.arcsin(np.minimum(ccr / cd, 1.0))
    clo = (np.arctan2(cwy, cwx) - chalf) % _TWO_PI
    cell_keep = (cd <= ccr) | (_reach(rays, rho, clo, 2.0 * chalf) > cd - ccr)
    rest = rest[cell_keep[cell_of[rest]]]
    dr, rr = dc[rest], cr[rest]
    with np.errstate(invalid="ignore", divide="ignore"):
        half = np.arcsin(np.minimum(rr / dr, 1.0))
    lo_c = (np.arctan2(wy[rest], wx[rest]) - half) % _TWO_PI
    rest = rest[(dr <= rr) | (_reach(rays, rho, lo_c, 2.0 * half) > near_c[rest])]
    known.add(rest)
    near = known.near[rest]
    order = np.argsort(near, kind="stable")
    rest, near = rest[order], near[order]
    full, lo, span = known.full[rest], known.lo[rest], known.span[rest]
    batch = FIRST_PASS
    passed = []  # obstacles that passed the test against the first pass, left out later
    first_test = True
    while rest.size:
        keep = full | (_reach(rays, rho, lo, span) > near)
        if not keep.all():
            if not first_test:
                passed.append(rest[~keep])
            rest, near, full, lo, span = rest[keep], near[keep], full[keep], lo[keep], span[keep]
        first_test = False
        if not rest.size:
            break
        eb = _edges(vx, vy, index, rest[:batch], k_obs)
        rest, near, full, lo, span = rest[batch:], near[batch:], full[batch:], lo[batch:], span[batch:]
        rays, rho, line = _add_rays(rays, rho, line, eb[-1], cast, R)
        _cut(rays, rho, eb, line)
        cast = tuple(np.concatenate((a, b)) for a, b in zip(cast, eb))
        batch *= 2
    if passed:
        rays, rho, line = _add_rays(rays, rho, line, _edges(vx, vy, index, np.concatenate(passed), k_obs)[-1],
                                    cast, R)
    return rays, rho, line


def _add_rays(rays: np.ndarray, rho: np.ndarray, line: np.ndarray, more: np.ndarray, edges: tuple,
              R: float) -> tuple:
    """``(rays, rho, line)`` (cut by every one of ``edges``, :func:`_cut`, and holding the
    rays either side of every vertex of theirs) with the bearings ``more`` that are not rays
    yet added, each cut by ``edges`` too, in bearing order. A new ray whose two neighbours
    are cut by the same edge is cut by that edge: another edge nearer between them would
    have to cross it there and be nearer at one of them, or end between them, where its
    vertex's rays would be. Only the others are cut by every edge."""
    new = np.setdiff1d(more, rays)
    if not new.size:
        return rays, rho, line
    n = rays.size
    j = np.searchsorted(rays, new) % n
    i = (j - 1) % n
    same = (line[:, i] == line[:, j]).all(axis=0) & (rho[i] < R) & (rho[j] < R)
    rho_new = np.full(new.size, R)
    line_new = _tangents(new, R)
    if same.any():
        w = np.nonzero(same)[0]
        ax, ay, bx, by = line[:, i[w]]
        dx, dy = np.cos(new[w]), np.sin(new[w])
        sx, sy = bx - ax, by - ay
        with np.errstate(divide="ignore", invalid="ignore"):
            dist = (ax * sy - ay * sx) / (dx * sy - dy * sx)
        ok = np.isfinite(dist) & (dist > 0)
        w, dist = w[ok], dist[ok]
        rho_new[w] = np.minimum(dist, R)
        line_new[:, w] = line[:, i[w]]
        same[:] = False
        same[w] = True
    if not same.all():
        rest = np.nonzero(~same)[0]
        r_rho = rho_new[rest]
        r_line = line_new[:, rest]
        _cut(new[rest], r_rho, edges, r_line)
        rho_new[rest] = r_rho
        line_new[:, rest] = r_line
    all_rays = np.concatenate((rays, new))
    order = np.argsort(all_rays, kind="stable")
    return (all_rays[order], np.concatenate((rho, rho_new))[order],
            np.concatenate((line, line_new), axis=1)[:, order])


class _Known:
    """The bearing intervals and scaled nearest distances of an eye's obstacles
    (:meth:`CoverIndex._view`), worked out only for the obstacles asked about (:meth:`add`)."""

    def __init__(self, index: CoverIndex, ex: float, ey: float, k_obs: np.ndarray) -> None:
        n = index.n
        self.index, self.ex, self.ey, self.k = index, ex, ey, k_obs
        self.known = np.zeros(n, dtype=bool)
        self.near = np.full(n, np.inf)  # k * the plan distance to the footprint
        self.full = np.zeros(n, dtype=bool)
        self.lo = np.zeros(n)
        self.span = np.zeros(n)

    def add(self, obs: np.ndarray) -> None:
        obs = obs[~self.known[obs]]
        if not obs.size:
            return
        v = self.index._view(self.ex, self.ey, obs)
        self.known[obs] = True
        with np.errstate(invalid="ignore"):  # inf * 0: an obstacle that hides nothing
            self.near[obs] = self.k[obs] * v.dmin[obs]
        self.full[obs], self.lo[obs], self.span[obs] = v.full[obs], v.lo[obs], v.span[obs]


def _nearest(known: _Known, cand: np.ndarray, near_c: np.ndarray, R: float) -> np.ndarray | None:
    """The :data:`FIRST_PASS` obstacles of ``cand`` nearest the eye by their scaled
    distance (those under ``R`` only; ties by index), or None when there are no more than
    that many. ``near_c`` (no more than the distance, from the bounding circles) picks
    which footprints are measured: those nearest by it, until the farthest chosen is no
    farther than every one not measured."""
    if cand.size <= FIRST_PASS:
        return None
    m = 2 * FIRST_PASS
    while True:
        if m >= cand.size:
            known.add(cand)
            near = known.near[cand]
            ok = cand[near < R]
            if ok.size <= FIRST_PASS:
                return None
            return ok[np.argsort(known.near[ok], kind="stable")[:FIRST_PASS]]
        part = np.argpartition(near_c[cand], m)
        some, others = cand[part[:m]], cand[part[m:]]
        known.add(some)
        near = known.near[some]
        ok = near < R
        if ok.sum() > FIRST_PASS:
            some, near = some[ok], near[ok]
            order = np.lexsort((some, near))[:FIRST_PASS]
            if near[order[-1]] <= near_c[others].min():
                return some[order]
        m *= 4


def _circles(index: CoverIndex) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each obstacle's bounding circle ``(cx, cy, r)`` (metres): the mean of its vertices
    and a radius reaching its farthest vertex. Worked out once per index and kept on it (an
    index is immutable)."""
    got = getattr(index, "_sight_circles", None)
    if got is not None:
        return got
    cnt = np.maximum(index.vcount, 1)
    start = index.vstart
    cx = np.add.reduceat(index.vx, start) / cnt
    cy = np.add.reduceat(index.vy, start) / cnt
    d2 = (index.vx - np.repeat(cx, index.vcount)) ** 2 + (index.vy - np.repeat(cy, index.vcount)) ** 2
    r = np.sqrt(np.maximum.reduceat(d2, start)) * (1.0 + 1e-9) + 1e-9
    got = (cx, cy, r)
    index._sight_circles = got
    return got


#: Obstacles per cell, about, in the cells of the passes' first test (:func:`_cells`).
CELL_OBSTACLES = 16


def _cells(index: CoverIndex) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A square grid over the obstacles' bounding circles (:func:`_circles`), about
    :data:`CELL_OBSTACLES` a cell: ``(cell of each obstacle, cx, cy, r)`` with each cell's
    circle round its centre holding every circle of its obstacles (an empty cell's radius is
    -inf: never kept). Kept on the index, as the circles are."""
    got = getattr(index, "_sight_cells", None)
    if got is not None:
        return got
    cx, cy, cr = _circles(index)
    x0, y0 = float(cx.min()), float(cy.min())
    wdt, hgt = max(float(cx.max()) - x0, 1e-9), max(float(cy.max()) - y0, 1e-9)
    size = math.sqrt(wdt * hgt * CELL_OBSTACLES / max(index.n, 1))
    size = max(size, wdt / 256, hgt / 256, 1e-6)
    nx = int(wdt // size) + 1
    ny = int(hgt // size) + 1
    ix = np.minimum(((cx - x0) // size).astype(np.int64), nx - 1)
    iy = np.minimum(((cy - y0) // size).astype(np.int64), ny - 1)
    cell = iy * nx + ix
    gx = x0 + (np.arange(nx * ny) % nx + 0.5) * size
    gy = y0 + (np.arange(nx * ny) // nx + 0.5) * size
    reach = np.hypot(cx - gx[cell], cy - gy[cell]) + cr
    rad = np.full(nx * ny, -np.inf)
    np.maximum.at(rad, cell, reach * (1.0 + 1e-9) + 1e-9)
    got = (cell, gx, gy, rad)
    index._sight_cells = got
    return got


def _reach(rays: np.ndarray, rho: np.ndarray, lo: np.ndarray, span: np.ndarray) -> np.ndarray:
    """The farthest a star polygon (ray bearings ``rays`` sorted in [0, 2 pi), distances
    ``rho``) reaches within each bearing interval ``[lo, lo + span]``: the largest ``rho``
    of the rays inside and of the ray either side."""
    nr = rays.size
    rho3 = np.concatenate((rho, rho, rho))
    rays3 = np.concatenate((rays - _TWO_PI, rays, rays + _TWO_PI))
    i0 = np.searchsorted(rays3, lo, side="left") - 1
    i1 = np.searchsorted(rays3, lo + span, side="right") + 1
    i0 = np.clip(i0, 0, 3 * nr - 1)
    i1 = np.clip(np.maximum(i1, i0 + 1), 1, 3 * nr)
    idx = np.empty(2 * lo.size, dtype=np.int64)
    idx[0::2] = i0
    idx[1::2] = i1
    if idx.size and idx.max() >= 3 * nr:  # reduceat needs indices inside the array
        rho3 = np.concatenate((rho3, [0.0]))
    return np.maximum.reduceat(rho3, idx)[0::2] if lo.size else np.zeros(0)


def _cast(vx, vy, index: CoverIndex, obs: np.ndarray, k_obs: np.ndarray, R: float):
    """Rays (sorted bearings in [0, 2 pi)) and their free distances: the even fan and either
    side of every vertex of the obstacles ``obs``, each cut at the nearest edge of those
    obstacles scaled by ``k_obs`` about the eye (eye-relative ``vx``, ``vy``), or at ``R``;
    and the line that cuts each ray (:func:`_cut`)."""
    edges = _edges(vx, vy, index, obs, k_obs)
    rays = np.unique(np.concatenate((_fan(), edges[-1])))
    rho = np.full(rays.size, R)
    line = _tangents(rays, R)
    _cut(rays, rho, edges, line)
    return rays, rho, line


def _fan() -> np.ndarray:
    return np.linspace(0.0, _TWO_PI, ARC_RAYS, endpoint=False)


def _edges(vx, vy, index: CoverIndex, obs: np.ndarray, k_obs: np.ndarray) -> tuple:
    """The edges of the obstacles ``obs`` scaled by ``k_obs`` about the eye: their ends
    (eye-relative), bearing intervals ``[lo, lo + span]`` and the rays either side of each
    vertex (unsorted)."""
    cnt_v = index.vcount[obs]
    ev = np.repeat(index.vstart[obs], cnt_v) + _ragged_arange(cnt_v)  # edges a -> nxt[a]
    b = index.nxt[ev]
    ke = k_obs[index.v_obs[ev]]
    ax, ay = vx[ev] * ke, vy[ev] * ke
    bx, by = vx[b] * ke, vy[b] * ke
    ang_a = np.arctan2(ay, ax) % _TWO_PI
    ang_b = np.arctan2(by, bx) % _TWO_PI
    span = (ang_b - ang_a) % _TWO_PI
    fwd = span <= math.pi
    lo = np.where(fwd, ang_a, ang_b)
    span = np.where(fwd, span, _TWO_PI - span)
    vrays = np.concatenate(((ang_a - VERTEX_EPS) % _TWO_PI, (ang_a + VERTEX_EPS) % _TWO_PI))
    return ax, ay, bx, by, lo, span, vrays


def _cut(rays: np.ndarray, rho: np.ndarray, edges: tuple, line: np.ndarray | None = None) -> None:
    """Cut ``rho`` (the free distances along the sorted bearings ``rays``) in place at the
    nearest of ``edges`` (:func:`_edges`) each ray crosses, and write that edge's ends into
    ``line`` ((4, n): ax, ay, bx, by eye-relative) where one of them cuts it. Each (ray,
    edge) answer depends on that ray and edge alone, so rays and edges may be cut in any
    grouping."""
    ax, ay, bx, by, lo, span, _ = edges
    nr = rays.size
    if not ax.size or not nr:
        return
    rays2 = np.concatenate((rays, rays + _TWO_PI))
    i0 = np.searchsorted(rays2, lo, side="left")
    i1 = np.searchsorted(rays2, lo + span, side="right")
    cnt = np.maximum(i1 - i0, 0)
    edge = np.repeat(np.arange(ax.size), cnt)
    ri = (np.repeat(i0, cnt) + _ragged_arange(cnt)) % nr
    dx, dy = np.cos(rays)[ri], np.sin(rays)[ri]
    sx, sy = (bx - ax)[edge], (by - ay)[edge]
    pax, pay = ax[edge], ay[edge]
    den = dx * sy - dy * sx
    with np.errstate(divide="ignore", invalid="ignore"):
        dist = (pax * sy - pay * sx) / den
        mu = (pax * dy - pay * dx) / den
    ok = (mu >= -1e-12) & (mu <= 1.0 + 1e-12) & (dist > 0) & np.isfinite(dist)
    ri, dist, edge = ri[ok], dist[ok], edge[ok]
    np.minimum.at(rho, ri, dist)
    if line is not None:
        win = dist == rho[ri]
        w, e = ri[win], edge[win]
        line[0, w], line[1, w], line[2, w], line[3, w] = ax[e], ay[e], bx[e], by[e]


def _polygon(ex: float, ey: float, rays: np.ndarray, rho: np.ndarray) -> shapely.Geometry:
    """The star polygon through the ray ends, less the points within :data:`SIMPLIFY` of
    the line through their neighbours (four rounds of every other point, so the outline
    moves by at most 4 * SIMPLIFY) (rays along one edge, the pairs either side of a
    vertex that hit the same edge): fewer points to union and draw. With bearings strictly
    increasing and every distance above 0 the polygon is simple (a radial graph)."""
    x = rho * np.cos(rays)
    y = rho * np.sin(rays)
    for parity in (0, 1, 0, 1):  # a point goes only while both its neighbours stay
        n = x.size
        if n <= 8:
            break
        idx = np.arange(parity, n, 2)  # this round's turn (every other point)
        if n % 2:
            idx = idx[idx != n - 1]  # (the last and the first are neighbours)
        nxt = idx + 1
        nxt[nxt == n] = 0
        cx, cy = x[idx], y[idx]
        px, py = x[idx - 1], y[idx - 1]
        sx, sy = x[nxt] - px, y[nxt] - py
        off = np.abs((cx - px) * sy - (cy - py) * sx) / np.maximum(np.hypot(sx, sy), 1e-300)
        ahead = (cx - px) * sx + (cy - py) * sy  # between its neighbours, not a spike back
        drop = (off <= SIMPLIFY) & (ahead > 0) & (ahead < sx * sx + sy * sy)
        keep = np.ones(n, dtype=bool)
        keep[idx[drop]] = False
        x, y, rho = x[keep], y[keep], rho[keep]
    poly = shapely.Polygon(np.column_stack((ex + x, ey + y)))
    if rho.min() < 1e-9 and not poly.is_valid:  # the eye on an obstacle's edge
        poly = shapely.make_valid(poly)
    return poly


def _reaching(index: CoverIndex, ex: float, ey: float, obs: np.ndarray, rays: np.ndarray,
              rho: np.ndarray) -> np.ndarray:
    """``obs`` (a bool per obstacle) where the obstacle comes nearer the eye than the star
    polygon (``rays``, ``rho``) reaches in its bearing interval: where anything it hides
    behind it can lie inside that polygon (the rest are left False). First by the bounding
    circles (:func:`_circles`), then by the footprints they keep."""
    idx = np.nonzero(obs)[0]
    out = np.zeros(index.n, dtype=bool)
    if not idx.size or not rays.size:
        return out
    cx, cy, cr = _circles(index)
    wx, wy = cx[idx] - ex, cy[idx] - ey
    dc, rr = np.hypot(wx, wy), cr[idx]
    with np.errstate(invalid="ignore", divide="ignore"):
        half = np.arcsin(np.minimum(rr / dc, 1.0))
    lo_c = (np.arctan2(wy, wx) - half) % _TWO_PI
    idx = idx[(dc <= rr) | (_reach(rays, rho, lo_c, 2.0 * half) > dc - rr)]
    if idx.size:
        v = index._view(ex, ey, idx)
        idx = idx[v.full[idx] | (_reach(rays, rho, v.lo[idx], v.span[idx]) > v.dmin[idx])]
    out[idx] = True
    return out


def _bands(index: CoverIndex, ex: float, ey: float, R: float, k_obs: np.ndarray,
           band: np.ndarray) -> shapely.Geometry:
    """The union of the bounded hidden bands (eye above the body, obstacle below the eye):
    behind each edge the ray leaves an obstacle through, out to ``k`` times its distance,
    of the obstacles ``band`` (those whose bands can meet the area: :func:`_reaching`)."""
    vx = index.vx - ex
    vy = index.vy - ey
    ev = np.nonzero(band[index.v_obs])[0]
    b = index.nxt[ev]
    ax, ay, bx, by = vx[ev], vy[ev], vx[b], vy[b]
    exit_edge = (ax * (by - ay) - ay * (bx - ax)) > 0  # the solid lies on the eye's side
    ev, ax, ay, bx, by = ev[exit_edge], ax[exit_edge], ay[exit_edge], bx[exit_edge], by[exit_edge]
    k = k_obs[index.v_obs[ev]]
    ring = np.stack([np.column_stack((ax, ay)), np.column_stack((bx, by)),
                     np.column_stack((bx * k, by * k)), np.column_stack((ax * k, ay * k))], axis=1)
    ring = ring + np.array([ex, ey])
    quads = shapely.polygons(ring)
    quads = quads[shapely.is_valid(quads) & (shapely.area(quads) > 0)]
    return shapely.union_all(quads) if quads.size else shapely.Polygon()


def party_sight(index: CoverIndex, eyes_xy: ArrayLike, eyes_z: ArrayLike, body: float | None = None,
                vision: ArrayLike | None = None) -> shapely.Geometry:
    """The union of :func:`sight_area` over several eyes (``eyes_xy`` (n, 2) metres,
    ``eyes_z`` (n,) or one height, ``vision`` (n,), one range or None): what a party sees."""
    xy = np.asarray(eyes_xy, dtype=float).reshape(-1, 2)
    n = xy.shape[0]
    z = np.broadcast_to(np.asarray(eyes_z, dtype=float), (n,))
    vis = [None] * n if vision is None else \
        [float(v) for v in np.broadcast_to(np.asarray(vision, dtype=float), (n,))]
    areas = [sight_area(index, xy[i], float(z[i]), body, vis[i]) for i in range(n)]
    if not areas:
        return shapely.Polygon()
    return shapely.union_all(areas)


#: Height (m) of a light source above the ground when none is given (a lamp, a torch held up).
LIGHT_HEIGHT = 2.0


def lit_area(index: CoverIndex, lights: ArrayLike, body: float | None = None,
             light_z: float = LIGHT_HEIGHT) -> shapely.Geometry:
    """The area lit by ``lights`` ((n, 3): x, y, radius, metres; a radius of 0 is off): a
    point is lit when a standing body there (``body`` m) is not wholly in a light's shadow,
    within its radius -- the light "sees" it, by :func:`sight_area` from ``light_z`` m up.
    Walls therefore cast shadows; a low wall leaves a standing body lit behind it."""
    arr = np.asarray(lights, dtype=float).reshape(-1, 3)
    if not np.all(np.isfinite(arr)) or (arr[:, 2] < 0).any():
        raise InvalidInputError("lights must be finite (x, y, radius) metres with a radius >= 0")
    on = arr[arr[:, 2] > 0]
    if not on.size:
        return shapely.Polygon()
    return party_sight(index, on[:, :2], light_z, body, on[:, 2])


def seen_in_light(sight: shapely.Geometry, eye_xy: ArrayLike, lit: shapely.Geometry | None = None,
                  dark_range: float = 0.0) -> shapely.Geometry:
    """What a token makes out of its area in ``sight`` in the dark: the parts that are
    ``lit`` (see :func:`lit_area`; None: the place is lit all over, e.g. daylight, or dim
    light for a low-light eye -- the rule system decides) or within ``dark_range`` metres of
    its eye (its own vision in the dark: thermographic, a vision range, a light it carries)."""
    if lit is None:
        return sight
    d = float(dark_range)
    if not math.isfinite(d) or d < 0:
        raise InvalidInputError(f"the dark vision range must be a finite number >= 0 m, got {dark_range!r}")
    visible = lit
    if d > 0:
        x, y = (float(v) for v in np.asarray(eye_xy, dtype=float).reshape(2))
        visible = shapely.union(visible, shapely.Point(x, y).buffer(d, quad_segs=64))
    return shapely.intersection(sight, visible)
