"""The selection forgets the ids an edit took away by looking them up in the encounter's kept
indexes (obstacles, zones, lights), not by building a set of every id: on a map of 3,000
crates and 40 lights a selected crate, zone and light survive a drag step, and an undone wall
(its id gone) is forgotten while the others stay."""

from __future__ import annotations

from engine.model import Encounter, Light, MapSpec, Obstacle, Token, Zone
from gui.edits import move_tokens
from gui.selection import Selection


def crates(n: int) -> tuple[Obstacle, ...]:
    return tuple(Obstacle(id=f"c{i}", polygon=((3.0 * (i % 100), 3.0 * (i // 100)), (3.0 * (i % 100) + 1, 3.0 * (i // 100)),
                                                (3.0 * (i % 100) + 1, 3.0 * (i // 100) + 1)), height=1.0)
                 for i in range(n))


def test_crate_zone_and_light_stay_a_gone_wall_goes(monkeypatch):
    wall = Obstacle(id="wall-1", polygon=((5.0, 280.0), (25.0, 280.0), (25.0, 280.5), (5.0, 280.5)), height=3.0)
    enc = Encounter(map=MapSpec(width=400, height=400), obstacles=crates(3000) + (wall,),
                    tokens=(Token(id="a", x=350, y=350),),
                    zones=(Zone(id="z", kind="circle", x=5, y=5, radius=2),),
                    lights=tuple(Light(id=f"l{i}", x=10.0 + i, y=390.0, radius=5.0) for i in range(40)))
    sel = Selection()
    sel.select(["a", "c2999", "z", "l39", "wall-1"], enc)
    monkeypatch.setattr(Encounter, "all_ids", lambda self: (_ for _ in ()).throw(AssertionError("all_ids built")))
    sel.prune(move_tokens(enc, {"a": (351.0, 350.0)}))  # a drag step: nothing is gone
    assert sel.ids == ("a", "c2999", "z", "l39", "wall-1")
    undone = enc.model_copy(update={"obstacles": enc.obstacles[:-1]})  # the wall undone
    sel.prune(undone)
    assert sel.ids == ("a", "c2999", "z", "l39")
    no_light = undone.model_copy(update={"lights": undone.lights[:-1]})
    sel.prune(no_light)
    assert sel.ids == ("a", "c2999", "z")
