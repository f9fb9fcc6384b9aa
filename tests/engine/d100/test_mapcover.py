"""The map's hidden locations against the stance table (engine.d100.mapcover).

A 1 m wall 0.2 m thick (x 9.4-9.6) stands right in front of the target at (10, 25); the
shooter is D metres west. geometry.cover hides each column up to the line from the eye over
the wall's top: an eye above the wall grazes the far top edge (0.4 m before the target),
eye + (1 - eye) * D / (D - 0.4), e.g. 0.908 m for a standing eye (1.6 m) at 3 m; an eye below
it the near top edge (0.6 m before), e.g. 0.3 + 0.7 * 5 / 4.4 = 1.095 m for a prone eye at 5 m;
a crouched eye (1.0 m) gives 1.0 m at any distance. The layouts (geometry/locations.py) then give the fractions checked below.
"""

from __future__ import annotations

import pytest

from engine.d100.actions import Aim, Fire
from engine.d100.dice import ScriptedDice
from engine.d100.mapcover import map_cover
from engine.errors import UnknownIdError
from engine.model import Encounter
from engine.rules import find_system

RULESET = find_system("d100")

LEGS = ("left_leg", "right_leg")
WALL = {"id": "wall", "height": 1.0, "polygon": [[9.4, 15], [9.6, 15], [9.6, 35], [9.4, 35]]}


def scene(distance, shooter_stance="standing", target_stance="standing_cover", obstacles=(WALL,), facing=180.0):
    map_stance = {"standing_cover": "standing", "crouched_cover": "crouched", "normal": "standing",
                  "hiding": "crouched", "prone": "prone"}[target_stance]
    return Encounter.model_validate({
        "ruleset": "d100", "map": {"width": 50, "height": 50},
        "obstacles": list(obstacles),
        "tokens": [
            {"id": "s", "x": 10 - distance, "y": 25, "stance": shooter_stance, "d100": {
                "skills": {"gun": 100}, "weapons": [{"name": "Gun", "damage": "d10"}], "weapon": "Gun"}},
            {"id": "t", "x": 10, "y": 25, "stance": map_stance, "facing": facing, "d100": {"stance": target_stance}},
        ],
    })


@pytest.mark.parametrize("distance", [3, 5, 10, 30])
@pytest.mark.parametrize("eye", ["standing", "crouched"])
def test_low_wall_agrees_with_standing_behind_cover(distance, eye):
    r = map_cover(scene(distance, eye, "standing_cover"), "s", "t")
    assert r.table_hidden == ("groin", *LEGS)
    assert r.map_hidden == ("groin", *LEGS), r.fractions
    assert r.agrees and not r.map_full
    assert r.fractions["abdomen"] < 0.3  # 0.023 (standing eye, 3 m) .. 0.286 (crouched eye)


@pytest.mark.parametrize("distance", [3, 5, 10, 30])
@pytest.mark.parametrize("eye", ["standing", "crouched"])
def test_low_wall_agrees_with_crouched_behind_cover(distance, eye):
    r = map_cover(scene(distance, eye, "crouched_cover"), "s", "t")
    assert r.table_hidden == ("abdomen", "groin", *LEGS)
    assert r.map_hidden == ("abdomen", "groin", *LEGS), r.fractions
    assert r.agrees
    assert r.fractions["head"] == 0.0


@pytest.mark.parametrize("distance", [5, 10, 30])
def test_prone_shooter_agrees_on_a_standing_target(distance):
    r = map_cover(scene(distance, "prone", "standing_cover"), "s", "t")
    assert r.agrees, r.fractions
    if distance == 5:
        # hidden to 0.3 + 0.7 * 5 / 4.4 = 1.095 m: abdomen (1.095 - 0.90) / 0.35 = 0.56 < 0.75
        assert r.fractions["abdomen"] == pytest.approx((0.3 + 0.7 * 5 / 4.4 - 0.90) / 0.35, abs=1e-6)


def test_exact_fractions_standing_eye_three_metres():
    r = map_cover(scene(3, "standing", "standing_cover"), "s", "t")
    h = 1.6 - 0.6 * 3 / 2.6  # 0.9077 m
    assert r.hidden[0] == pytest.approx(h)
    assert r.fractions["groin"] == 1.0
    assert r.fractions["abdomen"] == pytest.approx((h - 0.90) / 0.35)
    assert r.fractions["right_arm"] == pytest.approx((h - 0.85) / 0.70)


def test_where_map_and_table_part():
    # no wall: the table says groin and legs are behind cover, the map shows everything
    r = map_cover(scene(10, "standing", "standing_cover", obstacles=()), "s", "t")
    assert r.map_hidden == () and r.only_table == ("groin", *LEGS) and not r.agrees
    # 2 m from the wall a standing eye sees over it down to 0.85 m: groin (0.85 - 0.76) / 0.14 = 0.64 < 0.75
    r = map_cover(scene(2, "standing", "standing_cover"), "s", "t")
    assert r.fractions["groin"] == pytest.approx(0.09 / 0.14)
    assert r.only_table == ("groin",)
    # a prone eye 10 m off hides more of a crouched body: to 0.3 + 0.7 * 10 / 9.4 = 1.045 m,
    # chest (1.045 - 0.86) / 0.22 = 0.84, arms (1.045 - 0.80) / 0.32 = 0.76
    r = map_cover(scene(10, "prone", "crouched_cover"), "s", "t")
    assert r.only_map == ("chest", "left_arm", "right_arm")
    assert r.fractions["chest"] == pytest.approx((0.3 + 0.7 * 10 / 9.4 - 0.86) / 0.22)


def test_tall_wall_is_full_cover_and_picks_feed_the_attack():
    tall = {**WALL, "height": 3.0}
    enc = scene(10, "standing", "standing_cover", obstacles=(tall,))
    r = map_cover(enc, "s", "t")
    assert r.map_full and not r.table_full
    assert r.map_hidden == RULESET.locations
    spec = r.target_spec("map")
    assert spec.hidden == RULESET.locations
    assert "full cover" in RULESET.why_not(enc, Aim("s", "t", full_cover=r.map_full))
    # the GM picks the map: a chest hit (location 20) is behind cover (value 5): 8 - 5 = 3
    change = RULESET.apply(enc, Fire("s", (spec,)), ScriptedDice([50, 20, 8])).detail
    assert change.shots[0].damage.hidden and change.shots[0].damage.taken == 3


def test_a_wall_hiding_one_side_hides_the_right_arm_of_a_body_facing_the_shooter():
    # a 2 m wall north of y = 25 only; looking east, +u is south, so the wall hides u < 0;
    # the target faces the shooter (west), so its right side is at -u
    half = {"id": "half", "height": 2.0, "polygon": [[9.4, 15], [9.6, 15], [9.6, 25], [9.4, 25]]}
    r = map_cover(scene(5, "standing", "normal", obstacles=(half,)), "s", "t")
    assert r.side == -1
    assert r.fractions["right_arm"] == 1.0 and r.fractions["right_leg"] == 1.0
    assert r.fractions["left_arm"] == 0.0 and r.fractions["left_leg"] == 0.0
    assert r.fractions["chest"] == pytest.approx(0.5)
    # facing away, the same wall hides the left side
    r = map_cover(scene(5, "standing", "normal", obstacles=(half,), facing=0.0), "s", "t")
    assert r.fractions["left_arm"] == 1.0 and r.fractions["right_arm"] == 0.0


def test_unknown_token():
    with pytest.raises(UnknownIdError):
        map_cover(scene(5), "s", "nobody")
