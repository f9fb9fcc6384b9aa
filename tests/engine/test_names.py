"""engine.names: the one display name of each kind of object (issue 30 item 4)."""

from __future__ import annotations

from engine.model import Encounter, MapSpec, Obstacle, Token, Zone
from engine.names import display_name, geometry_text, name_of, new_zone_name, obstacle_name, token_name, zone_name
from geometry.errors import InsideObstacleError, InvalidInputError


def test_the_name_helpers():
    a = Token(id="ganger-1", name="Razor", x=1, y=1)
    b = Token(id="b-7", x=5, y=5)
    sup = Zone(id="sup-1", kind="suppressive", owner="ganger-1", length=20)
    boom = Zone(id="zone-3", kind="blast", x=3, y=3, radius=2)
    named = Zone(id="z", kind="circle", name="The yard", x=3, y=3, radius=2)
    wall = Obstacle(id="wall-4", height=3, polygon=((0, 0), (1, 0), (1, 1)))
    door = Obstacle(id="o-1", height=3, polygon=((0, 0), (1, 0), (1, 1)), door=True)
    sedan = Obstacle(id="car-1", name="Sedan", height=1.4, polygon=((0, 0), (1, 0), (1, 1)))
    enc = Encounter(map=MapSpec(width=10, height=10), tokens=(a, b), zones=(sup, boom, named),
                    obstacles=(wall, door, sedan))
    assert (token_name(a), token_name(b)) == ("Razor", "b-7")  # no name: the id is all it has
    assert zone_name(sup, enc) == "suppressive fire of Razor" and zone_name(sup) == "suppressive fire of ganger-1"
    assert (zone_name(boom), zone_name(named)) == ("Blast 3", "The yard")
    assert [obstacle_name(o) for o in (wall, door, sedan)] == ["wall", "door", "Sedan"]
    assert [name_of(enc, i) for i in ("ganger-1", "sup-1", "car-1", "gone", None)] == [
        "Razor", "suppressive fire of Razor", "Sedan", "gone", ""]
    assert display_name(sedan) == "Sedan" and display_name(sup, enc) == "suppressive fire of Razor"


def test_a_new_zone_is_named_after_its_owner_or_its_number():
    razor = Token(id="ganger-1", name="Razor", x=1, y=1)
    assert new_zone_name("suppressive", razor, "zone-1") == "Razor's suppressive fire"
    assert new_zone_name("blast", None, "zone-2") == "Blast 2"
    assert new_zone_name("rect", None, "area") == "Area"


def test_a_point_inside_an_obstacle_is_said_with_its_name():
    sedan = Obstacle(id="car-1", name="Sedan", height=1.4, polygon=((0, 0), (1, 0), (1, 1)))
    enc = Encounter(map=MapSpec(width=10, height=10), obstacles=(sedan,))
    exc = InsideObstacleError("goal", (0.8, 0.2), "car-1")
    assert "'car-1'" in str(exc)  # geometry/ knows ids only
    assert geometry_text(exc, enc) == "the goal point (0.80, 0.20) lies inside Sedan"
    assert geometry_text(InvalidInputError("radius must be positive"), enc) == "radius must be positive"
