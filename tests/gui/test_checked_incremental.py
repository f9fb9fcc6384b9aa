"""edits.checked(new, base) validates only what an edit changed (the rest is shared with the
valid encounter it came from), with the verdict and the JSON paths of a whole revalidation,
and keeps every untouched value the same object (so the indexes see only the change)."""

from __future__ import annotations

import pytest

from bench.scene import make_scene
from engine.errors import EncounterFileError
from engine.model import Obstacle, Token, Zone
from gui import edits


@pytest.fixture(scope="module")
def scene():
    return make_scene(2, tokens=30, obstacles=300, size=90.0)


def test_an_added_obstacle_is_checked_alone_and_the_rest_stays_the_same_objects(scene):
    o = Obstacle(id="new-wall", name="wall", height=2.0, polygon=((1, 1), (5, 1), (5, 1.3), (1, 1.3)))
    new = edits.add(scene, o)
    assert new == edits.checked(edits.add_unchecked(scene, o))  # (a whole revalidation)
    assert all(a is b for a, b in zip(new.obstacles, scene.obstacles))
    assert all(a is b for a, b in zip(new.tokens, scene.tokens)) and new.map is scene.map
    assert new.obstacles[-1] == o and len(new.obstacles) == len(scene.obstacles) + 1


def test_a_changed_value_is_refused_with_its_path(scene):
    i = 17
    bad = scene.obstacles[i].model_copy(update={"polygon": ((0, 0), (2, 2), (2, 0), (0, 2))})  # a bow-tie
    with pytest.raises(EncounterFileError) as err:
        edits.checked(edits.replace(scene, bad), scene)
    assert err.value.path == f"$.obstacles[{i}].polygon" and "crosses itself" in str(err.value)
    # the same path as a whole revalidation gives
    with pytest.raises(EncounterFileError) as whole:
        edits.checked(edits.replace(scene, bad))
    assert whole.value.path == err.value.path
    # a height past the model's bound, and text past the limits, in the new value only
    tall = scene.obstacles[3].model_copy(update={"height": 5000.0})
    with pytest.raises(EncounterFileError) as err:
        edits.checked(edits.replace(scene, tall), scene)
    assert err.value.path == "$.obstacles[3].height"
    t = scene.tokens[4].model_copy(update={"name": "x" * 100_000})
    with pytest.raises(EncounterFileError) as err:
        edits.checked(edits.replace(scene, t), scene)
    assert err.value.path == "$.tokens[4].name" and "characters long" in str(err.value)


def test_the_encounters_own_checks_still_see_the_whole(scene):
    # an id used twice (by an untouched obstacle and a new token)
    t = Token(id=scene.obstacles[0].id, name="Dup", x=10.0, y=10.0)
    with pytest.raises(EncounterFileError, match="duplicate id") as err:
        edits.checked(edits.add_unchecked(scene, t), scene)
    assert err.value.path == f"$.tokens[{len(scene.tokens)}].id"
    # a zone whose owner is no token
    z = Zone(id="z-new", kind="cone", owner="nobody", direction=0.0, length=10.0, angle=30.0)
    with pytest.raises(EncounterFileError, match="no token of this encounter"):
        edits.checked(edits.add_unchecked(scene, z), scene)
    # a token moved past the coordinate limit (a model_copy skips every check)
    far = scene.tokens[0].model_copy(update={"x": 1e7})
    with pytest.raises(EncounterFileError, match="coordinate limit"):
        edits.checked(edits.replace(scene, far), scene)


def test_top_level_fields_and_a_new_ruleset(scene):
    renamed = edits.apply_encounter_fields(scene, {"name": "Docks", "map.grid": 1.5})
    assert renamed.name == "Docks" and renamed.map.grid == 1.5
    assert all(a is b for a, b in zip(renamed.obstacles, scene.obstacles))
    with pytest.raises(EncounterFileError) as err:
        edits.apply_encounter_fields(scene, {"name": "y" * 100_000})
    assert err.value.path == "$.name"
    # another rule system: everything is checked again (a whole revalidation)
    other = "d100" if scene.ruleset != "d100" else "sr5"
    moved = edits.checked(scene.model_copy(update={"ruleset": other}), scene)
    assert moved.ruleset == other and moved == edits.checked(scene.model_copy(update={"ruleset": other}))
