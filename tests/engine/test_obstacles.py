"""engine.obstacles: the blocking obstacles and their indexes follow edits incrementally, with
the same answers as indexes built from scratch (the bench scene: 300 obstacles, 40 tokens)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from bench.scene import make_scene
from engine.analysis import Tactics
from engine.obstacles import ObstacleSet, footprints


@pytest.fixture(scope="module")
def scene():
    return make_scene(3, tokens=40, obstacles=300, size=90.0)


def with_obstacles(enc, obstacles):
    return enc.model_copy(update={"obstacles": tuple(obstacles)})


def moved(o, dx, dy=0.0):
    return o.model_copy(update={"polygon": tuple((x + dx, y + dy) for x, y in o.polygon)})


def all_cover(t: Tactics, attackers=("t0", "t5", "t11")):
    return np.array([[r.cover.fraction for r in t.targets(a)] for a in attackers])


def test_footprints_equal_one_polygon_per_obstacle(scene):
    got = footprints(scene.obstacles)
    want = [shapely.Polygon(o.polygon) for o in scene.obstacles]
    assert len(got) == len(want)
    assert all(shapely.equals_exact(got, want, 0.0))


def test_moving_one_obstacle_edits_the_index_and_answers_as_a_fresh_build(scene):
    t = Tactics(scene)
    obs = list(scene.obstacles)
    k = 17
    obs[k] = moved(obs[k], 0.5, -0.25)
    edited = with_obstacles(scene, obs)
    t.update(edited)
    assert t.obstacle_set.rebuilds == 1 and t.index_builds == 2  # one build, then one edit
    fresh = Tactics(edited)
    assert np.array_equal(all_cover(t), all_cover(fresh))
    # undo: the old tuple again, the same answers as at first
    t.update(scene)
    assert t.obstacle_set.rebuilds == 1
    assert np.array_equal(all_cover(t), all_cover(Tactics(scene)))


def test_door_toggle_wall_drawn_and_deleted_are_edits(scene):
    t = Tactics(scene)
    first = scene.obstacles[0]
    door = first.model_copy(update={"door": True, "open": True})
    step1 = with_obstacles(scene, (door,) + scene.obstacles[1:])
    t.update(step1)
    assert len(t.cover_index.polygons) == len(scene.obstacles) - 1  # an open door blocks nothing
    wall = first.model_copy(update={"id": "new-wall", "polygon": ((40, 40), (48, 40), (48, 40.3), (40, 40.3)),
                                    "height": 2.5})
    step2 = with_obstacles(step1, step1.obstacles + (wall,))
    t.update(step2)
    step3 = with_obstacles(step2, step2.obstacles[5:])  # five deleted at once
    t.update(step3)
    assert t.obstacle_set.rebuilds == 1 and t.index_builds == 4
    for e in (step2, step3):
        t.update(e)
        assert np.array_equal(all_cover(t), all_cover(Tactics(e)))


def test_a_change_the_indexes_do_not_see_is_no_change(scene):
    t = Tactics(scene)
    renamed = scene.obstacles[3].model_copy(update={"name": "a crate", "hidden": True})
    t.update(with_obstacles(scene, scene.obstacles[:3] + (renamed,) + scene.obstacles[4:]))
    assert t.index_builds == 1


def test_many_changes_at_once_rebuild(scene):
    t = Tactics(scene)
    t.update(with_obstacles(scene, [moved(o, 0.1) for o in scene.obstacles]))
    assert t.obstacle_set.rebuilds == 2


def test_edited_navigator_plans_as_a_fresh_one(scene):
    t = Tactics(scene)
    before = t.charge("t0", "t1")
    obs = list(scene.obstacles)
    obs[40] = moved(obs[40], 0.3)
    edited = with_obstacles(scene, obs)
    t.update(edited)
    after, fresh = t.charge("t0", "t1"), Tactics(edited).charge("t0", "t1")
    assert after.possible == fresh.possible
    if fresh.possible:
        assert after.movement == pytest.approx(fresh.movement, abs=1e-6)
    assert before.possible in (True, False)


def test_ids_used_twice_still_answer(scene):
    dup = scene.obstacles[1].model_copy(update={"id": scene.obstacles[0].id})
    s = ObstacleSet()
    s.update(scene.obstacles[:1] + (dup,) + scene.obstacles[2:], (0, 0, 90, 90))
    assert len(s.cover.polygons) == len(scene.obstacles)
    s.update(scene.obstacles, (0, 0, 90, 90))
    assert len(s.cover.polygons) == len(scene.obstacles)


def test_after_an_edit_only_targets_seen_past_it_are_measured_again(scene, monkeypatch):
    from geometry.cover import CoverIndex

    t = Tactics(scene)
    before = all_cover(t, ("t0",))
    measured = []
    real = CoverIndex.cover_fractions

    def counting(self, eye, z, xy, r, h):
        measured.append(len(xy))
        return real(self, eye, z, xy, r, h)

    monkeypatch.setattr(CoverIndex, "cover_fractions", counting)
    state = scene
    for k, d in ((17, 0.5), (40, -0.4), (123, 0.3), (17, -0.5)):
        obs = list(state.obstacles)
        obs[k] = moved(obs[k], d, 0.2)
        state = with_obstacles(state, obs)
        t.update(state)
        measured.clear()
        got = all_cover(t, ("t0",))
        mine = list(measured)  # (what t measured: the fresh Tactics below measures too)
        assert np.array_equal(got, all_cover(Tactics(state), ("t0",)))  # exactly a fresh answer
        assert sum(mine[:1]) < len(scene.tokens) - 1  # not every target again
    assert before.shape == got.shape


def test_segment_box_distance_by_hand():
    from geometry.cover import segment_box_distance

    box = (2.0, 2.0, 4.0, 3.0)
    b = np.array([[6.0, 0.0], [3.0, 4.0], [0.0, 2.5], [1.0, 1.0], [3.0, 5.0]])
    d = segment_box_distance((0.0, 0.0), b, box)
    # (0,0)-(6,0): 2 m below the box; (0,0)-(3,4) crosses it (at x = 2, y = 8/3); (0,0)-(0,2.5):
    # 2 m left of it; (0,0)-(1,1): its end is sqrt(2) from the corner (2, 2); (0,0)-(3,5) passes
    # above the corner (2, 3), |5 * 2 - 3 * 3| / sqrt(34) from it
    assert d.tolist() == pytest.approx([2.0, 0.0, 2.0, math.sqrt(2.0), 1.0 / math.sqrt(34.0)])
