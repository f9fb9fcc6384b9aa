"""ObstacleSet.build_steps (a big map indexed a slice per event-loop turn) ends exactly where
one update() does: the same blocking obstacles in the same order, the same cover answers,
and later edits work on it as on a set built at once."""

from __future__ import annotations

import numpy as np
import pytest

from bench.scene import make_scene
from engine.analysis import Tactics
from engine.errors import GeometryError
from engine.model import Obstacle
from engine.obstacles import ObstacleSet
from gui import edits


@pytest.fixture(scope="module")
def scene():
    return make_scene(3, tokens=40, obstacles=900, size=120.0, doors=6)


def _stepped(enc, chunk):
    obs = ObstacleSet()
    bounds = (0.0, 0.0, float(enc.map.width), float(enc.map.height))
    shares = list(obs.build_steps(enc.obstacles, bounds, chunk=chunk))
    return obs, shares


def test_steps_give_the_set_one_update_gives(scene):
    obs, shares = _stepped(scene, 100)
    blocking = [o for o in scene.obstacles if o.blocks]
    # one step per 100 blocking obstacles, shares rising to 1
    assert len(shares) == -(-len(blocking) // 100)
    assert shares == sorted(shares) and shares[-1] == 1.0 and 0 < shares[0] < 1
    ref = ObstacleSet()
    ref.update(scene.obstacles, (0.0, 0.0, float(scene.map.width), float(scene.map.height)))
    assert [o.id for o in obs.blocking] == [o.id for o in ref.blocking]
    assert all(a is b for a, b in zip(obs.blocking, ref.blocking))
    assert obs.cover.n == ref.cover.n and list(obs.cover.source) == list(ref.cover.source)
    assert (obs.revision, obs.rebuilds) == (1, 1)
    # every token's cover from the first token's eye: identical numbers
    a, b = Tactics(scene, obstacles=obs), Tactics(scene)
    eye = scene.tokens[0].id
    got, want = a.cover(eye), b.cover(eye)
    assert got.keys() == want.keys()
    assert np.array_equal([got[k].fraction for k in got], [want[k].fraction for k in got])
    assert any(0 < want[k].fraction < 1 for k in want)  # (partial cover occurs: a real check)


def test_an_edit_after_the_steps_is_incremental_and_right(scene):
    obs, _ = _stepped(scene, 128)
    t = Tactics(scene, obstacles=obs)
    door = next(o for o in scene.obstacles if o.door)
    opened = edits.replace(scene, door.model_copy(update={"open": True}))
    t.update(opened)
    assert obs.rebuilds == 1 and obs.revision == 2  # edited near the door, not rebuilt
    ref = Tactics(opened)
    eye = scene.tokens[1].id
    assert {k: v.fraction for k, v in t.cover(eye).items()} == {k: v.fraction for k, v in ref.cover(eye).items()}


def test_small_sets_and_repeated_ids_take_one_step(scene):
    obs, shares = _stepped(scene, 10_000)
    assert shares == [1.0]
    assert obs.cover.n == sum(1 for o in scene.obstacles if o.blocks) and obs.revision == 1
    twice = scene.model_copy(update={"obstacles": scene.obstacles + (scene.obstacles[0],)})
    obs2, shares2 = _stepped(twice, 100)
    assert shares2 == [1.0] and obs2._dups


def test_steps_refuse_a_used_set_and_name_bad_geometry(scene):
    obs, _ = _stepped(scene, 300)
    with pytest.raises(ValueError, match="new obstacle set"):
        next(obs.build_steps(scene.obstacles, (0, 0, 1, 1)))
    # a footprint the geometry refuses (a bow-tie made without validation) is a GeometryError
    bad = Obstacle.model_construct(id="bow", name="bow", height=2.0, polygon=((0, 0), (2, 2), (2, 0), (0, 2)),
                                   hidden=False, door=False, open=False, kind=None)
    many = scene.model_copy(update={"obstacles": scene.obstacles + (bad,)})
    with pytest.raises(GeometryError):
        list(ObstacleSet().build_steps(many.obstacles, (0.0, 0.0, 120.0, 120.0), chunk=100))


def test_adding_and_removing_one_obstacle_edits_the_index(scene):
    # (a wall drawn is appended; its undo, or a delete, takes one out): edits, not rebuilds,
    # with the answers of an index built from scratch
    obs = ObstacleSet()
    bounds = (0.0, 0.0, float(scene.map.width), float(scene.map.height))
    obs.update(scene.obstacles, bounds)
    wall = Obstacle(id="wall-new", name="wall", height=2.5, polygon=((50, 50), (58, 50), (58, 50.3), (50, 50.3)))
    grown = scene.obstacles + (wall,)
    obs.update(grown, bounds)
    assert obs.rebuilds == 1 and obs.revision == 2 and obs.edits_since(1) == [([], [wall])]
    middle = scene.obstacles[:400] + scene.obstacles[401:]
    obs.update(middle + (wall,), bounds)  # the 401st taken out
    assert obs.rebuilds == 1 and obs.edits_since(2) == [([scene.obstacles[400].id], [])]
    obs.update(middle, bounds)  # and the wall (undo)
    assert obs.rebuilds == 1 and obs.edits_since(3) == [(["wall-new"], [])]
    ref = ObstacleSet()
    ref.update(middle, bounds)
    assert sorted(obs.cover.source.tolist()) == sorted(ref.cover.source.tolist())
    t, r = Tactics(scene.model_copy(update={"obstacles": middle}), obstacles=obs), Tactics(scene.model_copy(update={"obstacles": middle}))
    eye = scene.tokens[2].id
    assert {k: v.fraction for k, v in t.cover(eye).items()} == pytest.approx({k: v.fraction for k, v in r.cover(eye).items()}, abs=1e-12)
