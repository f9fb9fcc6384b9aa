"""The planner process's message loop (:func:`gui.charge_process.main`), run here on a
scripted connection: the ruler's walks are answered with the GUI thread's path, only the
latest of the walks waiting is answered, and a walk does not stop a charge job."""

from __future__ import annotations

import numpy as np
import pytest

from engine.analysis import DEFAULT_REACH, DEFAULT_RUNUP, Tactics
from engine.files import load_encounter
from engine.obstacles import flat_footprints
from gui import charge_process


class Conn:
    """A connection whose messages are all waiting; ``then`` maps a reply kind to the
    messages that arrive once the process sent such a reply."""

    def __init__(self, messages, then=None):
        self.inbox = list(messages)
        self.sent: list = []
        self.then = dict(then or {})

    def poll(self):
        return bool(self.inbox)

    def recv(self):
        if not self.inbox:
            raise EOFError("nothing more")
        return self.inbox.pop(0)

    def send(self, msg):
        self.sent.append(msg)
        key = (msg[0], msg[-1]) if msg[0] == "plans" else msg[0]
        self.inbox += self.then.pop(key, [])


@pytest.fixture
def demo(demo_path):
    enc = load_encounter(demo_path)
    t = Tactics(enc)
    blocking = t.obstacle_set.blocking
    counts, xy = flat_footprints(blocking)
    reset = ("reset", t.obstacle_set.bounds, [o.id for o in blocking], counts, xy)
    return enc, t, reset


def _path(t, start, goal, r):
    p = t.navigator.shortest_path(start, goal, r)
    return ("path", tuple((float(x), float(y)) for x, y in p.points), float(p.length))


def test_only_the_latest_walk_waiting_is_answered_with_the_obstacles_before_it(demo):
    enc, t, reset = demo
    wall = ((18.0, 15.0), (18.3, 15.0), (18.3, 25.0), (18.0, 25.0))
    counts, xy = np.array([4]), np.array(wall, dtype=float)
    conn = Conn([reset, ("walk", 1, (12.0, 20.0), (24.0, 20.0), 0.4, 1),
                 ("walk", 2, (12.0, 20.0), (31.0, 33.0), 0.4, 1),
                 ("edit", [], ["wall-new"], counts, xy),
                 ("walk", 3, (12.0, 20.0), (24.0, 20.0), 0.4, 1)],
                then={"walk": [("walk", 4, (12.0, 20.0), (5.0, 5.0), 0.4, 1), ("walk", 5, (12.0, 20.0), (31.0, 29.8), 0.4, 1),
                               ("quit",)]})
    charge_process.main(conn)
    walks = [m for m in conn.sent if m[0] == "walk"]
    assert [m[1] for m in walks] == [3, 5]  # 1 and 2 (and 4) had a newer walk waiting
    from engine.model import Obstacle

    edited = enc.model_copy(update={"obstacles": enc.obstacles + (Obstacle(id="wall-new", height=2.0, polygon=wall),)})
    want = _path(Tactics(edited), (12.0, 20.0), (24.0, 20.0), 0.4)
    assert walks[0][2][0] == "path" and walks[0][2][2] == pytest.approx(want[2], abs=1e-9) and walks[0][2] == want
    assert want[2] > 12.5  # (round the new wall)
    assert walks[1][2] == ("none",)  # 0.2 m from wall-1: a 0.4 m body does not fit


def test_a_refused_walk_says_why_as_the_geometry_does(demo):
    enc, t, reset = demo
    conn = Conn([reset, ("walk", 1, (12.0, 20.0), (5.0, 5.0), 0.4, 1)], then={"walk": [("quit",)]})
    charge_process.main(conn)
    with pytest.raises(ValueError) as refused:
        t.navigator.shortest_path((12.0, 20.0), (5.0, 5.0), 0.4)
    assert conn.sent == [("walk", 1, ("refused", str(refused.value), ("goal", (5.0, 5.0), "building-1")))]
    assert "building-1" in str(refused.value)
    # the window names the obstacle (issue 30 item 4)
    assert charge_process.refusal_text(conn.sent[0][2], enc) == \
        "the goal point (5.00, 5.00) lies inside Warehouse corner"


def test_a_walk_is_answered_between_plans_and_the_job_goes_on(demo):
    """(a prepare -- the ruler taken up -- waits for the job's end; neither stops it)"""
    enc, t, reset = demo
    ids, pos, discs = t.bodies()
    targets = [pos[i] for i in ids if i != "sam"]
    plan = ("plan", 1, ids, discs, pos["sam"], targets, t.charge_movement("sam"), DEFAULT_REACH, DEFAULT_RUNUP)
    conn = Conn([reset, plan, ("walk", 7, (12.0, 20.0), (24.0, 20.0), 0.4, 1), ("prepare", 0.5),
                 ("walk", 8, (12.0, 20.0), (31.0, 33.0), 0.4, 1)],
                then={("plans", True): [("quit",)]})
    charge_process.main(conn)
    walks = [m for m in conn.sent if m[0] == "walk"]
    assert walks == [("walk", 8, _path(t, (12.0, 20.0), (31.0, 33.0), 0.4))]
    plans = {}
    for m in conn.sent:
        if m[0] == "plans":
            plans.update(m[2])
    assert conn.sent[-1][0] == "plans" and conn.sent[-1][3] is True
    assert set(plans) == {i for i in ids if i != "sam"}  # every charge planned: the walk stopped nothing
    for tid, got in plans.items():
        want = t.charge("sam", tid)
        assert got.possible == want.possible
        if want.possible:
            assert got.movement == pytest.approx(want.movement)


def test_two_rulers_walks_are_each_answered(demo):
    """(two windows' rulers: the latest walk of each is answered, neither's drops the other's)"""
    enc, t, reset = demo
    conn = Conn([reset, ("walk", 1, (12.0, 20.0), (24.0, 20.0), 0.4, 1), ("walk", 2, (12.0, 20.0), (31.0, 33.0), 0.4, 2),
                 ("walk", 3, (12.0, 20.0), (20.0, 20.0), 0.4, 1), ("quit",)])
    charge_process.main(conn)
    assert [m[1] for m in conn.sent] == [2, 3]
    assert conn.sent[0][2] == _path(t, (12.0, 20.0), (31.0, 33.0), 0.4)
    assert conn.sent[1][2] == _path(t, (12.0, 20.0), (20.0, 20.0), 0.4) and conn.sent[1][2][2] == pytest.approx(8.0)
