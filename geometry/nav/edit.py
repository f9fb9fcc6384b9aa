"""Editing a visibility graph near a changed obstacle instead of building it again.

When a few footprints change (a door opened, a crate moved, a wall drawn), a graph built
with a per-corner reach (dense scenes, see docs/movement.md "Dense scenes") changes only
near them:

* the grown shapes change only inside the box ``W`` around the old and new grown pieces;
  the merged shapes touching them are merged again from their pieces (a cluster may split
  or join others), everything else is kept;
* corners of the merged-again shapes are new; corners of other shapes are kept, with the
  reach they had (the density grid and candidate count of the build are kept too);
* an edge is a pair of corners within the reach of either, tangent at both ends, whose
  segment is free. Its freedom can only have changed if the segment meets ``W``; its
  tangency only if a corner is new. So kept edges meeting ``W`` are dropped, and the pairs
  that meet ``W`` or have a new corner are found again (only corners within reach of the
  change can be in one) and tested.

The result is the graph a build would make with the same reach per corner: an edit and its
undo give back the same edges (tests check it). A fresh build of the edited scene may set
the reaches a little differently (the density of corners moved), which changes paths only
within the dense-graph tolerance (docs/movement.md).
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from geometry.nav.graph import Graph, footprint_pieces, grow, merge
from geometry.nav.values import TOUCH

#: Edits changing more footprints than this rebuild the graph instead.
EDIT_MAX_FOOTPRINTS = 64
#: Metres the changed box is grown by (covers the TOUCH shrink of the tested shapes).
MARGIN = 0.01


def _meets_box(P: np.ndarray, Q: np.ndarray, box) -> np.ndarray:
    """Whether each segment P[k]-Q[k] meets the closed box (x0, y0, x1, y1) (Liang-Barsky)."""
    x0, y0, x1, y1 = box
    d = Q - P
    t0 = np.zeros(len(P))
    t1 = np.ones(len(P))
    ok = np.ones(len(P), dtype=bool)
    for k, lo, hi in ((0, x0, x1), (1, y0, y1)):
        dk, pk = d[:, k], P[:, k]
        flat = dk == 0
        ok &= ~(flat & ((pk < lo) | (pk > hi)))
        with np.errstate(divide="ignore", invalid="ignore"):
            ta = (lo - pk) / dk
            tb = (hi - pk) / dk
        near = np.where(flat, -np.inf, np.minimum(ta, tb))
        far = np.where(flat, np.inf, np.maximum(ta, tb))
        t0 = np.maximum(t0, near)
        t1 = np.minimum(t1, far)
    return ok & (t0 <= t1)


def _box_distance(P: np.ndarray, box) -> np.ndarray:
    x0, y0, x1, y1 = box
    dx = np.maximum(np.maximum(x0 - P[:, 0], P[:, 0] - x1), 0.0)
    dy = np.maximum(np.maximum(y0 - P[:, 1], P[:, 1] - y1), 0.0)
    return np.hypot(dx, dy)


def _union_box(*boxes):
    bs = [b for b in boxes if b is not None and np.all(np.isfinite(b))]
    if not bs:
        return None
    a = np.array(bs)
    return (a[:, 0].min(), a[:, 1].min(), a[:, 2].max(), a[:, 3].max())


def edit_graph(g: Graph, removed: list[int], added: list[shapely.Polygon], polygons) -> Graph | None:
    """``g`` with the footprints at indices ``removed`` (of ``g.polygons``) taken out and
    ``added`` put in; ``polygons`` are all the footprints after the edit (each kept one the
    same object as in ``g.polygons``). None when the graph should be built again instead
    (a complete graph -- small scenes --, a forced edge limit, or many footprints changed)."""
    if math.isinf(g.max_edge) or g.max_edge >= 0 or g.density is None:
        return None
    if len(removed) + len(added) > EDIT_MAX_FOOTPRINTS:
        return None
    polygons = tuple(polygons)
    where = {id(p): k for k, p in enumerate(polygons)}
    old_to_new = np.array([where.get(id(p), -1) for p in g.polygons], dtype=np.int64)
    if len(removed) and (old_to_new[np.asarray(removed)] != -1).any():
        return None
    added_idx = np.array([where.get(id(p), -1) for p in added], dtype=np.int64)
    if (added_idx < 0).any() or (old_to_new >= 0).sum() + len(added) != len(polygons):
        return None

    # 1. the grown pieces after the edit, and the box where the grown shapes changed
    gone_piece = np.isin(g.grown_owner, np.asarray(removed, dtype=np.int64))
    old_grown = g.grown[gone_piece]
    if added:
        pcs = footprint_pieces(added, g.sides)
        new_grown = grow(added, g.r, g.sides, pcs)
        new_owner = added_idx[pcs[3]]
    else:
        new_grown, new_owner = np.empty(0, dtype=object), np.zeros(0, dtype=np.int64)
    changed = np.concatenate([old_grown, new_grown])
    if len(changed) == 0:
        return None
    W = shapely.total_bounds(changed)
    W = (W[0] - MARGIN, W[1] - MARGIN, W[2] + MARGIN, W[3] + MARGIN)
    grown = np.concatenate([g.grown[~gone_piece], new_grown])
    owner = np.concatenate([old_to_new[g.grown_owner[~gone_piece]], new_owner])

    # 2. merged shapes touching the change are merged again from their pieces
    aff = np.unique(g.parts_tree.query(changed, predicate="intersects")[1]) if len(g.parts) else \
        np.zeros(0, dtype=np.int64)
    grown_tree = shapely.STRtree(grown)
    probe = np.concatenate([g.parts[aff], new_grown])
    members = np.unique(grown_tree.query(probe, predicate="intersects")[1]) if len(probe) else \
        np.zeros(0, dtype=np.int64)
    if len(members):
        remade = shapely.get_parts(shapely.orient_polygons(merge(grown[members])))
    else:
        remade = np.empty(0, dtype=object)
    keep_part = np.ones(len(g.parts), dtype=bool)
    keep_part[aff] = False
    part_map = np.full(len(g.parts), -1, dtype=np.int64)
    part_map[keep_part] = np.arange(int(keep_part.sum()))
    n_kept_parts = int(keep_part.sum())
    remade_solid = shapely.buffer(remade, -TOUCH, join_style="mitre") if len(remade) else remade
    parts = np.concatenate([g.parts[keep_part], remade])
    solid = np.concatenate([g.solid[keep_part], remade_solid])

    # 3. corners: kept where their shape is kept, new on the merged-again shapes
    keep_node = keep_part[g.node_part] if g.n else np.zeros(0, dtype=bool)
    ring0 = int(g.node_ring.max()) + 1 if g.n else 0
    Nn, An, Bn, rn, pn, sn, partn = g.corners(remade, ring0, n_kept_parts)
    n_keep = int(keep_node.sum())
    node_map = np.full(g.n, -1, dtype=np.int64)
    node_map[keep_node] = np.arange(n_keep)
    N = np.vstack([g.N[keep_node], Nn])
    A = np.vstack([g.A[keep_node], An])
    B = np.vstack([g.B[keep_node], Bn])
    aa_new = np.arctan2(An[:, 1], An[:, 0])
    w_new = np.mod(np.arctan2(Bn[:, 1], Bn[:, 0]) + np.pi - aa_new, 2 * np.pi)
    L = np.concatenate([g.L[keep_node], g.reach(Nn, w_new)])

    out = Graph.__new__(Graph)
    out.r, out.sides, out.inset = g.r, g.sides, g.inset
    out.polygons = polygons
    out.grown, out.grown_owner = grown, owner
    out.set_parts(parts, solid)
    kept = np.flatnonzero(keep_node)
    out.set_nodes(N, A, B, np.concatenate([g.node_ring[keep_node], rn]), np.concatenate([g.node_pos[keep_node], pn]),
                  np.concatenate([g.node_size[keep_node], sn]),
                  np.concatenate([part_map[g.node_part[keep_node]], partn]),
                  xy=[g.xy[k] for k in kept.tolist()] + [tuple(p) for p in Nn.tolist()])
    out.diag, out.K, out.density, out.max_edge, out.L = g.diag, g.K, g.density, g.max_edge, L

    # 4. edges: kept ones away from the change; pairs near it found and tested again
    ki, kj = node_map[g.ei], node_map[g.ej]
    ok = (ki >= 0) & (kj >= 0)
    ki, kj = ki[ok], kj[ok]
    kept_edges = np.flatnonzero(ok)  # (their ids in g)
    if len(ki):
        away = ~_meets_box(N[ki], N[kj], W)
        ki, kj = ki[away], kj[away]
        kept_edges = kept_edges[away]
    R = _union_box(W, tuple(shapely.total_bounds(remade)) if len(remade) else None)
    dist = _box_distance(N, R)
    own = dist <= L
    lmax = float(L[own].max()) if own.any() else 0.0
    # a pair that meets W or has a new corner is within the reach of a corner at most its
    # own reach from R (an "own" corner; new corners are): only those look for partners
    S = np.flatnonzero(own | (dist <= lmax))
    if len(S) >= 2:
        aa = np.arctan2(A[S, 1], A[S, 0])
        w = np.mod(np.arctan2(B[S, 1], B[S, 0]) + np.pi - aa, 2 * np.pi)
        si, sj = out.wedge_pairs(N[S], A[S], B[S], L[S], aa, w, query=own[S])
        ci, cj = S[si], S[sj]
        near = (ci >= n_keep) | (cj >= n_keep) | _meets_box(N[ci], N[cj], W)
        ci, cj = ci[near], cj[near]
        free = out.free_pairs(ci, cj) if len(ci) else np.zeros(0, dtype=bool)
        ci, cj = ci[free], cj[free]
    else:
        ci = cj = np.zeros(0, dtype=np.int64)
    i = np.concatenate([ki, np.minimum(ci, cj)])
    j = np.concatenate([kj, np.maximum(ci, cj)])
    order = np.lexsort((j, i))
    out.set_edges(i[order], j[order])
    out._disc_cache = {}
    # the edge search trees follow: kept edges keep their entries (renumbered), the new
    # ones get a small tree of their own
    where = np.empty(len(order), dtype=np.int64)
    where[order] = np.arange(len(order))
    old_to_new = np.full(len(g.ei), -1, dtype=np.int64)
    old_to_new[kept_edges] = where[:len(kept_edges)]
    out._edge_tree = g._edge_tree.edited(old_to_new, out.N, out.ei, out.ej, where[len(kept_edges):]) \
        if g._edge_tree is not None else None
    # run-up rings whose box (as Runup looks shapes up) stays clear of every changed shape
    # see the same shapes as before: their blocked bearings are kept
    out.runup_cache = {}
    if g.runup_cache:
        keys = list(g.runup_cache)
        ring = np.array(keys, dtype=float)
        reach = ring[:, 3] * 1.01
        x0, y0, x1, y1 = R
        clear = (ring[:, 0] + reach < x0) | (ring[:, 0] - reach > x1) | (ring[:, 1] + reach < y0) \
            | (ring[:, 1] - reach > y1)
        out.runup_cache = {k: g.runup_cache[k] for k, c in zip(keys, clear.tolist()) if c}
    return out
