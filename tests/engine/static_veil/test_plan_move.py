"""RULESET.plan_move: a normal move's path and cost, planned for the map before it is made.

Numbers by hand (the crate of scenarios/charge.json): radii 0.4; bodies are grown by an
octagon around the circle, so a box corner grows two vertices at (0.4, 0.16569) from it
(0.16569 = 0.4 tan 22.5 deg). Rook (4, 10) to (14.33534, 10.68477) past the crate x 8..10,
y 7..12: the south side wins, (4,10) -> (7.83431, 12.4) -> (10.16569, 12.4) -> goal;
length hypot(3.83431, 2.4) = 4.52352, + 2.33137, + hypot(4.16965, 1.71523) = 4.50866:
11.36352 m. Rook has 12 m of Movement; Moss 6 m.
"""

from __future__ import annotations

import pytest

from engine.files import encounter_from_data
from engine.rules import find_system
from engine.static_veil.system import Move

RULESET = find_system("static-veil")


def _enc():
    return encounter_from_data({
        "format": "coverfire.encounter", "version": 1, "ruleset": "static-veil",
        "map": {"width": 24, "height": 16},
        "obstacles": [{"id": "crate", "name": "Crate", "height": 1.2,
                       "polygon": [[8, 7], [10, 7], [10, 12], [8, 12]]}],
        "tokens": [
            {"id": "rook", "name": "Rook", "x": 4, "y": 10, "static_veil": {"movement": 12}},
            {"id": "moss", "name": "Moss", "x": 2, "y": 3, "static_veil": {"movement": 6}},
            {"id": "pat", "name": "Pat", "x": 20, "y": 3,
             "static_veil": {"grapple": {"other": "lou", "initiator": True}}},
            {"id": "lou", "name": "Lou", "x": 21, "y": 3, "static_veil": {"grapple": {"other": "pat"}}},
        ],
    })


def test_the_way_around_the_crate_and_its_length():
    pv = RULESET.plan_move(_enc(), "rook", (14.33534, 10.68477))
    assert pv.allowed and pv.reason is None and pv.ap_cost == 0
    flat = [v for p in pv.path for v in p]
    assert flat == pytest.approx([4, 10, 7.83431, 12.4, 10.16569, 12.4, 14.33534, 10.68477], abs=1e-4)
    assert pv.movement_cost == pytest.approx(11.36352, abs=1e-4)
    # applying it along that path spends exactly that Movement
    res = RULESET.apply(_enc(), Move("rook", pv.path[-1], pv.path))
    assert RULESET.sheet(res.encounter.token("rook")).movement_left == pytest.approx(12 - 11.36352, abs=1e-4)


def test_refused_moves_say_why():
    enc = _enc()
    far = RULESET.plan_move(enc, "moss", (2, 10))  # 7 m straight down, 6 m of Movement
    assert not far.allowed and far.movement_cost == pytest.approx(7.0)
    assert far.reason == "Moss has 6.0 m of Movement left; this move is 7.0 m"
    assert far.path == ((2.0, 3.0), (2.0, 10.0))  # still drawn, in red
    away = RULESET.plan_move(enc, "pat", (17, 3))
    assert not away.allowed and "in a grapple with Lou" in away.reason
    wall = RULESET.plan_move(enc, "rook", (9, 9))  # inside the crate
    assert not wall.allowed and wall.path == () and "lies inside Crate" in wall.reason
