"""geometry.locations: the eight hit locations on a silhouette and the part a profile hides.

Profiles here are made by hand (no obstacles): a flat hidden height across the whole body,
or a step hiding one side. Expected fractions are worked out from the layout's numbers in
the module docstring."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geometry.errors import InvalidInputError
from geometry.locations import (
    LOCATIONS,
    hidden_fractions,
    hidden_locations,
    layout,
    right_side,
    sample_columns,
)

R = 0.4


def flat(boxes, h):
    u = sample_columns(boxes)
    return hidden_fractions(boxes, u, np.full(u.size, h))


def test_standing_boxes_in_metres():
    b = {x.location: x for x in layout("standing", R)}
    assert set(b) == set(LOCATIONS)
    # head within 0.35 r = 0.14 m; torso 0.6 r = 0.24 m; arms 0.24 .. 0.40 m; legs halves of the torso
    assert (b["head"].u0, b["head"].u1, b["head"].z0, b["head"].z1) == pytest.approx((-0.14, 0.14, 1.55, 1.80))
    assert (b["right_arm"].u0, b["right_arm"].u1) == pytest.approx((0.24, 0.40))
    assert (b["left_leg"].u0, b["left_leg"].u1, b["left_leg"].z1) == pytest.approx((-0.24, 0.0, 0.76))
    # the boxes tile the silhouette without overlap: torso column 1.80 m tall (legs..head, head narrower)
    total = sum(x.area for x in b.values())
    # legs 0.48*0.76 + groin 0.48*0.14 + abdomen 0.48*0.35 + chest 0.48*0.30 + head 0.28*0.25 + arms 2*0.16*0.70
    assert total == pytest.approx(0.48 * 0.76 + 0.48 * 0.14 + 0.48 * 0.35 + 0.48 * 0.30 + 0.28 * 0.25 + 2 * 0.16 * 0.70)


def test_flat_profile_behind_a_low_wall_standing():
    # standing shooter 3 m from a 1 m wall: hidden to 0.908 m (geometry.cover's closed form)
    f = flat(layout("standing", R), 0.908)
    assert f["left_leg"] == f["right_leg"] == 1.0
    assert f["groin"] == 1.0  # 0.76 .. 0.90 lies under 0.908
    assert f["abdomen"] == pytest.approx((0.908 - 0.90) / 0.35)  # 0.0229
    assert f["left_arm"] == pytest.approx((0.908 - 0.85) / 0.70)  # 0.0829
    assert f["chest"] == f["head"] == 0.0
    assert hidden_locations(f) == ("groin", "left_leg", "right_leg")


def test_flat_profile_behind_a_low_wall_crouched():
    # crouched shooter: hidden to exactly 1.0 m at any distance
    f = flat(layout("crouched", R), 1.0)
    assert f["abdomen"] == f["groin"] == f["left_leg"] == 1.0
    assert f["chest"] == pytest.approx((1.0 - 0.86) / 0.22)  # 0.636 < 0.75: not hidden
    assert f["right_arm"] == pytest.approx((1.0 - 0.80) / 0.32)  # 0.625
    assert f["head"] == 0.0
    assert hidden_locations(f) == ("abdomen", "groin", "left_leg", "right_leg")
    assert hidden_locations(f, threshold=0.5) == ("chest", "abdomen", "groin", "left_arm", "right_arm",
                                                  "left_leg", "right_leg")


def test_step_profile_hides_one_side_and_mirrors():
    boxes = layout("standing", R)
    u = np.linspace(-R, R, 81)  # columns every 1 cm, 0 included
    h = np.where(u < 0, math.inf, 0.0)
    f = hidden_fractions(boxes, u, h)
    # -u side: the body's left when seen from behind (side = +1)
    assert f["left_arm"] == f["left_leg"] == 1.0
    assert f["right_arm"] == f["right_leg"] == 0.0
    assert f["head"] == pytest.approx(0.5) and f["chest"] == pytest.approx(0.5)
    g = hidden_fractions(layout("standing", R, side=-1), u, h)
    assert g["right_arm"] == g["right_leg"] == 1.0 and g["left_arm"] == 0.0


def test_right_side_by_facing():
    # shooter at the origin looking east at (10, 0): +u points south (90 degrees)
    assert right_side((0, 0), (10, 0), 0.0) == 1  # faces away: its right is south too
    assert right_side((0, 0), (10, 0), 180.0) == -1  # faces the shooter: its right is north
    assert right_side((0, 0), (10, 0), 90.0) == 1  # side-on counts as +1
    assert right_side((0, 0), (0, 10), 90.0) == 1  # looking south at a body facing south
    assert right_side((0, 0), (0, 10), 270.0) == -1


def test_height_scales_z():
    b = {x.location: x for x in layout("standing", R, height=0.9)}
    assert (b["head"].z0, b["head"].z1) == pytest.approx((0.775, 0.9))


def test_bad_input_is_named():
    with pytest.raises(InvalidInputError, match="unknown stance 'kneeling'"):
        layout("kneeling", R)
    with pytest.raises(InvalidInputError, match="radius"):
        layout("standing", 0.0)
    with pytest.raises(InvalidInputError, match="as many hidden heights as columns"):
        hidden_fractions(layout("standing", R), [0.0, 0.1], [1.0])
    with pytest.raises(InvalidInputError, match="finite"):
        right_side((0, 0), (float("nan"), 0), 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 3), min_size=5, max_size=5), st.floats(0, 1), st.sampled_from(["standing", "crouched", "prone"]))
def test_fractions_bounded_and_monotone(heights, raise_by, stance):
    boxes = layout(stance, R)
    u = np.linspace(-R, R, 5)
    h = np.array(heights)
    a = hidden_fractions(boxes, u, h)
    b = hidden_fractions(boxes, u, h + raise_by)
    for loc in LOCATIONS:
        assert 0.0 <= a[loc] <= 1.0
        assert b[loc] >= a[loc] - 1e-12  # a taller hidden profile never hides less
