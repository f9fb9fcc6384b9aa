"""Dice, pools and the environment table (hand-checked numbers)."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.sr5.dice import EnteredDice, SeededRoller, roll_test
from engine.sr5.environment import combine, environment
from engine.sr5.pools import Pool, base, divide, mod
from engine.sr5.sheet import Environment, Sheet


# -- dice ----------------------------------------------------------------------------------------
def test_seeded_roller_replays_exactly():
    assert SeededRoller(42).roll(20) == SeededRoller(42).roll(20)
    assert SeededRoller(42).roll(20) != SeededRoller(43).roll(20)
    assert all(1 <= d <= 6 for d in SeededRoller(1).roll(500))


def test_hits_are_fives_and_sixes_and_glitch_needs_more_than_half_ones():
    r = roll_test(6, [5, 6, 1, 1, 1, 2])  # three 1s of six dice: exactly half, no glitch
    assert (r.hits, r.ones, r.glitch) == (2, 3, False)
    r = roll_test(6, [1, 1, 1, 1, 5, 2])  # four of six: glitch, one hit: not critical
    assert (r.hits, r.glitch, r.critical_glitch) == (1, True, False)
    r = roll_test(5, [1, 1, 1, 3, 4])  # glitch without hits: critical
    assert (r.hits, r.glitch, r.critical_glitch) == (0, True, True)


def test_limit_caps_hits_unless_edge():
    r = roll_test(4, [5, 5, 6, 6], limit=2)
    assert (r.raw_hits, r.hits, r.limited) == (4, 2, 2)
    # Edge: 3 dice [6 5 1], the 6 explodes into a 6, which explodes into a 2: 5 faces, 3 hits, no limit
    r = roll_test(3, [6, 5, 1, 6, 2], limit=1, edge=True)
    assert (r.hits, r.exploded) == (3, 2)


def test_entered_dice_must_match_the_pool():
    with pytest.raises(IllegalActionError, match="expected 3 faces, got 2"):
        roll_test(3, [5, 5])
    with pytest.raises(IllegalActionError, match="die 2 shows 7"):
        roll_test(2, [5, 7])
    with pytest.raises(IllegalActionError, match="expected 4 faces"):
        roll_test(3, [6, 1, 1], edge=True)  # the 6 needs one more die


def test_entered_dice_roller_runs_out_with_a_clear_message():
    d = EnteredDice([5, 5, 1])
    assert d.roll(2) == (5, 5)
    with pytest.raises(IllegalActionError, match="2 dice needed but only 1 left"):
        d.roll(2)


def test_zero_pool_rolls_nothing_and_cannot_glitch():
    r = roll_test(-2, SeededRoller(1))
    assert (r.dice, r.hits, r.glitch) == ((), 0, False)


def test_threshold_success_and_net_hits():
    r = roll_test(4, [5, 6, 5, 1], threshold=2)
    assert (r.success, r.net_hits) == (True, 1)


# -- pools ---------------------------------------------------------------------------------------
def test_divide_as_evenly_as_possible_seed_example():
    assert divide(11, 3) == (4, 4, 3)
    assert divide(7, 3) == (3, 2, 2)
    assert divide(2, 3) == (1, 1, 0)
    assert divide(9, 1) == (9,)


def test_pool_override_keeps_the_rules_value_and_adds_gm_parts():
    p = Pool("attack", (base("skill", "Automatics", 6), base("agility", "Agility", 4),
                        mod("range", "range band 34 m -> long", -3, "map")),
             (base("accuracy", "accuracy", 5),))
    assert (p.total, p.limit) == (7, 5)
    q = p.override("range", -1)
    assert q.total == 9 and q.part("range").original == -3
    assert "GM; rules said -3" in q.part("range").text()
    q = q.override("range", -3)  # back to the rules' value: no longer marked
    assert not q.part("range").overridden
    r = p.override("spotter", 2, label="spotter calls the shots")
    assert r.total == 9 and r.part("spotter").source == "gm"
    assert p.override("limit:accuracy", 3).limit == 3
    assert p.describe() == "Automatics 6 + Agility 4, range band 34 m -> long -3 = 7 [limit 5]"
    with pytest.raises(IllegalActionError):
        p.override("range", 1.5)


def test_pool_never_below_zero():
    assert Pool("x", (base("a", "a", 2), mod("b", "b", -5))).total == 0


# -- environment ---------------------------------------------------------------------------------
def test_combine_worst_level_one_worse_when_shared():
    assert combine([0, 0, 0, 0]) == 0
    assert combine([2, 0, 0, 2]) == 3  # long range in moderate fog: -6
    assert combine([3, 3, 0, 0]) == 4  # two at -6: -10
    assert combine([2, 1, 1, 0]) == 2


def test_long_range_in_moderate_fog_is_minus_6_not_minus_6_plus():
    e = environment(Environment(visibility="moderate"), band="long", distance=34)
    assert e.modifier == -6
    assert "range 34 m -> long (-3)" in e.label() and "-> -6" in e.label()


def test_single_column_label_reads_like_the_dialog():
    e = environment(Environment(), band="long", distance=34)
    assert (e.modifier, e.label()) == (-3, "range 34 m -> long")


def test_heavy_fog_at_extreme_range_is_minus_10():
    assert environment(Environment(visibility="heavy"), band="extreme", distance=500).modifier == -10


def test_dim_light_is_minus_3_and_low_light_vision_removes_it():
    assert environment(Environment(light="dim"), band="short", distance=3).modifier == -3
    assert environment(Environment(light="dim"), Sheet(vision=("low_light",)), band="short").modifier == 0


def test_blind_fire_is_not_cumulative_with_darkness():
    e = environment(Environment(light="dark"), band="short", distance=3, blind=True)
    assert e.modifier == -6  # not -12
    # thermographic vision does not see through a wall
    assert environment(Environment(), Sheet(vision=("thermographic",)), band="short", blind=True).modifier == -6


def test_thermographic_sees_through_smoke_but_not_thermal_smoke():
    s = Sheet(vision=("thermographic",))
    assert environment(Environment(visibility="moderate"), s).modifier == -1
    assert environment(Environment(visibility="moderate", thermal_smoke=True), s).modifier == -3


def test_smartlink_shifts_wind_one_row():
    assert environment(Environment(wind="strong")).modifier == -6
    assert environment(Environment(wind="strong"), smartlink=True).modifier == -3


def test_image_magnification_needs_the_aim_spent_on_it():
    s = Sheet(vision=("image_magnification",))
    assert environment(Environment(), s, band="long", distance=60).modifier == -3
    s2 = s.model_copy(update={"aim_magnified": True})
    assert environment(Environment(), s2, band="long", distance=60).modifier == -1


def test_melee_counts_only_light_and_visibility():
    e = environment(Environment(wind="strong", light="partial"), band="extreme", melee=True)
    assert e.modifier == -1
    assert {c.name for c in e.columns} == {"visibility", "light"}


def test_glare_and_flare_compensation():
    assert environment(Environment(glare="blinding")).modifier == -6
    assert environment(Environment(glare="blinding"), Sheet(vision=("flare_compensation",))).modifier == -1
