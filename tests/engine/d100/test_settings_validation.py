"""The d100 settings' validation the GM's settings dialog relies on: the location table as
d100 ranges (every roll 1-100 on exactly one location, the wrong location named), severity
thresholds rising (the step at fault named), the always-succeed / always-fail ranges."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.d100.sheet import (
    DEFAULT_LOCATION_TABLE,
    LOCATIONS,
    LocationTableError,
    Settings,
    location_ranges,
    table_from_ranges,
    threshold_fault,
)

# docs/d100.md: head 1-10, chest 11-30, left arm 31-40, right arm 41-50, abdomen 51-65,
# groin 66-70, left leg 71-85, right leg 86-100
DEFAULT_RANGES = {
    "head": (1, 10), "chest": (11, 30), "left_arm": (31, 40), "right_arm": (41, 50),
    "abdomen": (51, 65), "groin": (66, 70), "left_leg": (71, 85), "right_leg": (86, 100),
}


def with_(**changes):
    return {**DEFAULT_RANGES, **changes}


def test_default_table_as_ranges_and_back():
    assert location_ranges(DEFAULT_LOCATION_TABLE) == DEFAULT_RANGES
    assert list(location_ranges(DEFAULT_LOCATION_TABLE)) == [loc for loc, _ in DEFAULT_LOCATION_TABLE]
    assert table_from_ranges(DEFAULT_RANGES) == DEFAULT_LOCATION_TABLE


def test_ranges_in_another_order_give_the_table_in_roll_order():
    # legs first: left leg 1-15, right leg 16-30, then the rest shifted up by 30 minus the legs
    r = {"left_leg": (1, 15), "right_leg": (16, 30), "head": (31, 40), "chest": (41, 60),
         "left_arm": (61, 70), "right_arm": (71, 80), "abdomen": (81, 95), "groin": (96, 100)}
    assert table_from_ranges(r) == (
        ("left_leg", 15), ("right_leg", 30), ("head", 40), ("chest", 60),
        ("left_arm", 70), ("right_arm", 80), ("abdomen", 95), ("groin", 100),
    )
    assert Settings(location_table=table_from_ranges(r)).location_table[0] == ("left_leg", 15)


@pytest.mark.parametrize(
    "ranges, location, words",
    [
        # left arm starts at 25, inside chest 11-30: rolls 25-30 in both
        (with_(left_arm=(25, 40)), "left_arm", "left arm 25-40 overlaps chest 11-30 (rolls 25-30 are in both)"),
        # groin 60-70 reaches back into abdomen 51-65
        (with_(groin=(60, 70)), "groin", "groin 60-70 overlaps abdomen 51-65 (rolls 60-65"),
        # a range inside another one: rolls 15-20 are both chest and left arm
        (with_(left_arm=(15, 20)), "left_arm", "left arm 15-20 overlaps chest 11-30 (rolls 15-20"),
        # left arm starts at 35: 31-34 land nowhere
        (with_(left_arm=(35, 40)), "left_arm", "rolls 31-34 land on no location: left arm 35-40 starts at 35, after chest 11-30"),
        # head from 2: roll 1 lands nowhere
        (with_(head=(2, 10)), "head", "roll 1 lands on no location: head 2-10 starts at 2"),
        # right leg stops at 95
        (with_(right_leg=(86, 95)), "right_leg", "rolls 96-100 land on no location: right leg 86-95"),
        (with_(head=(10, 1)), "head", "head 10-1 runs backwards"),
        (with_(right_leg=(86, 101)), "right_leg", "right leg 86-101 goes outside the rolls 1-100"),
        ({k: v for k, v in DEFAULT_RANGES.items() if k != "groin"}, "groin", "groin has no range"),
        (with_(tail=(1, 1)), "tail", "'tail' is not a location"),
    ],
)
def test_ranges_that_do_not_tile_1_to_100_name_the_location(ranges, location, words):
    with pytest.raises(LocationTableError) as err:
        table_from_ranges(ranges)
    assert err.value.location == location
    assert words in str(err.value)
    assert isinstance(err.value, ValueError)


def test_settings_refuse_a_table_whose_highest_rolls_do_not_rise_naming_the_location():
    bad = tuple((loc, 30 if loc == "left_arm" else top) for loc, top in DEFAULT_LOCATION_TABLE)
    with pytest.raises(ValidationError, match="left arm ends at roll 30, after chest, which ends at 30"):
        Settings(location_table=bad)
    short = tuple((loc, 99 if loc == "right_leg" else top) for loc, top in DEFAULT_LOCATION_TABLE)
    with pytest.raises(ValidationError, match="the last location, right leg, ends at roll 99, not 100"):
        Settings(location_table=short)


def test_threshold_fault_names_the_step():
    assert threshold_fault((1, 6, 11, 16, 21)) is None
    assert threshold_fault((1, 8, 7, 16, 21)) == "serious starts at 7, not above heavy (8)"
    assert threshold_fault((1, 8, 8, 16, 21)) == "serious starts at 8, not above heavy (8)"
    assert threshold_fault((0, 6, 11, 16, 21)) == "light starts at 0; it must start at 1 damage or more"
    assert threshold_fault((1, 2, 3)) == "give 5 thresholds (light, heavy, serious, acute, crippled), not 3"
    with pytest.raises(ValidationError, match="acute starts at 12, not above serious \\(14\\)"):
        Settings(thresholds=(1, 8, 14, 12, 21))
    with pytest.raises(ValidationError, match="thresholds of left leg 1, 4, 4, 10, 13: serious starts at 4"):
        Settings(location_thresholds={"left_leg": (1, 4, 4, 10, 13)})
    assert Settings(thresholds=(1, 8, 14, 20, 26)).thresholds_for("chest") == (1, 8, 14, 20, 26)


def test_always_succeed_must_end_below_always_fail():
    assert Settings(auto_success=10, auto_failure=91).auto_success == 10
    with pytest.raises(ValidationError, match="rolls 1-96 always succeed and 96-100 always fail"):
        Settings(auto_success=96, auto_failure=96)
    assert Settings(auto_success=0, auto_failure=101)  # no automatic results at all


def test_every_location_is_in_the_default_ranges():
    assert set(DEFAULT_RANGES) == set(LOCATIONS)
