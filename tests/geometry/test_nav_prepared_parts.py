"""A movement graph tests segments and points against its grown obstacles as prepared parts
(the parts whose boxes a segment meets, each tested prepared: :meth:`Graph.solid_hits`);
the answers are those of the parts' tree testing each segment itself, and the charge plans
built on them are the same plans."""

from __future__ import annotations

import numpy as np
import shapely

from geometry.nav import Navigator
from geometry.nav.graph import Graph

BOUNDS = (0.0, 0.0, 60.0, 40.0)


def tree_hits(g: Graph, geoms: np.ndarray) -> np.ndarray:
    """The former test: the tree's own predicate (each segment prepared in turn)."""
    out = np.zeros(len(geoms), dtype=bool)
    if len(g.solid) and len(geoms):
        gi, _ = g.solid_tree.query(geoms, predicate="intersects")
        out[gi] = True
    return out


def test_a_box_grown_by_half_a_metre_blocks_what_crosses_it_and_not_what_runs_along_it():
    # the 4 m box from (10, 10) grows by 0.5 m on every side (an octagon whose sides are
    # exactly r out): x and y in [9.5, 14.5]; the tested shape is that shrunk by 1e-4 m
    g = Navigator([shapely.box(10, 10, 14, 14)], bounds=BOUNDS).graph(0.5)
    segs = shapely.linestrings([
        [(5, 12), (20, 12)],  # straight through
        [(5, 9.0), (20, 9.0)],  # 0.5 m below the grown side
        [(5, 9.5), (20, 9.5)],  # along the grown side (touching it is allowed)
        [(5, 9.6), (20, 9.6)],  # 0.1 m into it
        [(12, 2), (12, 9.4)],  # stops short of it
    ])
    assert g.solid_hits(segs).tolist() == [True, False, False, True, False]
    assert g.solid_hits_xy([12, 12, 9.45, 14.6], [12, 9.6, 12, 12]).tolist() == [True, True, False, False]


def test_random_segments_and_points_get_the_trees_answers_and_a_unions():
    rng = np.random.default_rng(7)
    boxes = []
    for _ in range(120):
        x, y = rng.uniform(2, 56), rng.uniform(2, 36)
        w, h = rng.uniform(0.3, 3), rng.uniform(0.3, 3)
        boxes.append(shapely.box(x, y, x + w, y + h))
    boxes.append(shapely.Polygon([(30, 5), (40, 5), (40, 15), (35, 8)]))  # a concave one
    g = Navigator(boxes, bounds=BOUNDS).graph(0.4)
    P = rng.uniform(0, 60, (3000, 2)) * [1, 40 / 60]
    ang = rng.uniform(0, 2 * np.pi, 3000)
    Q = P + np.column_stack([np.cos(ang), np.sin(ang)]) * rng.uniform(0.2, 12, 3000)[:, None]
    segs = shapely.linestrings(np.stack([P, Q], axis=1))
    pts = shapely.points(P)
    whole = shapely.union_all(g.solid)  # a third way: one shape, nothing prepared
    for geoms in (segs, pts):
        got = g.solid_hits(geoms)
        assert got.tolist() == tree_hits(g, geoms).tolist()
        assert got.tolist() == shapely.intersects(whole, geoms).tolist()
        assert 0.1 < got.mean() < 0.9  # (both kinds of answer are asked)


def test_charge_plans_are_the_same_with_the_former_test(monkeypatch):
    from bench.scene import make_scene
    from engine.analysis import Tactics

    enc = make_scene(5, tokens=30, obstacles=150)
    ids = [t.id for t in enc.tokens]

    def plans():
        tac = Tactics(enc)
        return [tac.charge(ids[i], ids[(i * 7 + 3) % len(ids)]) for i in range(len(ids)) if (i * 7 + 3) % len(ids) != i]

    new = plans()
    monkeypatch.setattr(Graph, "solid_hits", lambda self, geoms: tree_hits(self, geoms))
    old = plans()
    assert len(new) == 30 and sum(p.possible for p in new) >= 10, sum(p.possible for p in new)
    assert [(p.possible, p.path, p.movement, p.reason) for p in new] == \
        [(p.possible, p.path, p.movement, p.reason) for p in old]
