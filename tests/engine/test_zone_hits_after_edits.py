"""Zone hits after obstacle edits are kept where the edit cannot reach (engine.analysis
Tactics.zone_hits): always the answers of a Tactics made afresh on the edited encounter."""

from __future__ import annotations

import numpy as np
import pytest

import engine.analysis as analysis
from bench.scene import make_scene
from engine.analysis import Tactics
from engine.model import Obstacle


def _fresh(enc):
    return Tactics(enc).zone_hits()


def _moved(o: Obstacle, dx: float, dy: float) -> Obstacle:
    return o.model_copy(update={"polygon": tuple((x + dx, y + dy) for x, y in o.polygon)})


def test_zone_hits_after_random_obstacle_edits_equal_a_fresh_computation():
    enc = make_scene(3, tokens=25, obstacles=80, size=60.0)
    assert enc.zones
    t = Tactics(enc)
    t.zone_hits()
    rng = np.random.default_rng(7)
    for step in range(9):
        obs = list(enc.obstacles)
        k = int(rng.integers(len(obs)))
        what = step % 3
        if what == 0:  # moved
            obs[k] = _moved(obs[k], float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3)))
        elif what == 1:  # removed
            del obs[k]
        else:  # a tall wall put up near a token
            tk = enc.tokens[int(rng.integers(len(enc.tokens)))]
            x, y = tk.x + 2.0, tk.y - 2.0
            obs.append(Obstacle(id=f"new-{step}", height=3.0,
                                polygon=((x, y), (x + 0.3, y), (x + 0.3, y + 4.0), (x, y + 4.0))))
        enc = enc.model_copy(update={"obstacles": tuple(obs)})
        t.update(enc)
        assert t.zone_hits() == _fresh(enc), f"step {step}"


def test_an_obstacle_moved_far_from_every_zone_measures_no_zone_again(monkeypatch):
    # two tokens and a suppressive triangle at the west end of a 200 m map; a crate at the
    # far east end moves: no line from the zone's origin passes near it
    from engine.files import encounter_from_data

    enc = encounter_from_data({
        "format": "coverfire.encounter", "version": 1, "name": "t", "ruleset": "sr5",
        "map": {"width": 200, "height": 60},
        "tokens": [{"id": "a", "x": 10, "y": 30}, {"id": "b", "x": 30, "y": 30}],
        "zones": [{"id": "sup", "kind": "suppressive", "owner": "a", "direction": 0, "length": 30,
                   "width": 10}],
        "obstacles": [{"id": "crate", "height": 1.0,
                       "polygon": [[180, 30], [182, 30], [182, 32], [180, 32]]}],
    })
    t = Tactics(enc)
    assert [h.id for h in t.zone_hits()["sup"]] == ["b"]
    calls = []
    real = analysis.discs_in_shape
    monkeypatch.setattr(analysis, "discs_in_shape", lambda *a, **k: calls.append(1) or real(*a, **k))
    moved = enc.model_copy(update={"obstacles": (_moved(enc.obstacles[0], 5.0, 0.0),)})
    t.update(moved)
    assert [h.id for h in t.zone_hits()["sup"]] == ["b"]
    assert calls == []  # kept: nothing measured again
    # a wall across the triangle between a and b: b's answer is measured again (hidden now)
    wall = Obstacle(id="w", height=4.0, polygon=((20, 20), (20.2, 20), (20.2, 40), (20, 40)))
    t.update(moved.model_copy(update={"obstacles": moved.obstacles + (wall,)}))
    assert t.zone_hits()["sup"] == []
    assert calls == [1]


@pytest.mark.parametrize("seed", [5])
def test_a_door_toggled_twice_gives_the_first_answers_back(seed):
    enc = make_scene(seed, tokens=30, obstacles=80, size=60.0, doors=4)
    t = Tactics(enc)
    first = t.zone_hits()
    doors = [i for i, o in enumerate(enc.obstacles) if o.door]
    obs = list(enc.obstacles)
    for i in doors:
        obs[i] = obs[i].model_copy(update={"open": True})
    opened = enc.model_copy(update={"obstacles": tuple(obs)})
    t.update(opened)
    assert t.zone_hits() == _fresh(opened)
    t.update(enc)
    assert t.zone_hits() == first
