"""The d100 dice model and the GM-entered outcome values (hand-derived numbers)."""

from __future__ import annotations

import pytest

from engine.static_veil.dice import Attack, Dice, Opposed, Roll, compare, d100, hits


@pytest.mark.parametrize(
    "target, roll, expected",
    [
        (50, 51, 0),  # over the target: a failure
        (50, 50, 1),  # exactly the target: a bare success
        (50, 41, 1),  # margin 9: no full 10
        (50, 40, 2),  # margin 10: one extra hit
        (50, 1, 5),  # margin 49: 1 + 4
        (120, 5, 12),  # margin 115: 1 + 11
        (0, 1, 0),  # a target of 0 never succeeds
    ],
)
def test_hits_are_one_plus_full_tens_under_the_target(target, roll, expected):
    assert hits(target, roll) == expected


def test_hit_step_is_configurable():
    # margin 14 with 5 points per hit: 1 + 14 // 5 = 3
    assert hits(40, 26, step=5) == 3


def _r(target, roll):
    return Roll(0, "x", "t", target, roll, hits(target, roll))


def test_more_hits_win_by_the_difference():
    # 25 vs 60: 1 + 35//10 = 4 hits; 40 vs 45: 1 + 5//10 = 1 hit -> net 3
    assert compare(_r(60, 25), _r(45, 40)) == Opposed(True, 3)
    assert compare(_r(45, 40), _r(60, 25)) == Opposed(False, 3)


def test_equal_hits_go_to_the_larger_margin_with_no_net_hits():
    # margins 5 and 2, one hit each
    assert compare(_r(60, 55), _r(40, 38)) == Opposed(True, 0)
    assert compare(_r(40, 38), _r(60, 55)) == Opposed(False, 0)


def test_both_failing_or_an_exact_tie_is_not_a_win_for_the_actor():
    assert compare(_r(30, 80), _r(30, 90)) == Opposed(False, 0)
    assert compare(_r(50, 45), _r(40, 35)) == Opposed(False, 0)  # margins 5 and 5


def test_the_sequence_is_reproducible_and_uniform_enough():
    a = [d100(3, i) for i in range(5000)]
    assert a == [d100(3, i) for i in range(5000)]
    assert min(a) == 1 and max(a) == 100
    assert abs(sum(a) / len(a) - 50.5) < 1.5  # sd of the mean ~0.41
    assert a[:20] != [d100(4, i) for i in range(20)]


def test_dice_records_its_rolls_and_position():
    d = Dice(seed=7, position=0)
    o = d.opposed("A", "athletics", 60, "B", "athletics", 45)
    # seed 7 starts 20, 23: 5 hits against 3
    assert (o.won, o.net_hits) == (True, 2)
    assert d.position == 2 and [r.roll for r in d.rolls] == [20, 23]
    assert d.rolls[0].text() == "A athletics: rolled 20 vs 60 (5 hits)"


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_entered_net_hits_must_be_whole_and_not_negative(bad):
    with pytest.raises(ValueError, match="net_hits"):
        Opposed(True, bad)
    with pytest.raises(ValueError, match="net_hits"):
        Attack(True, bad)


def test_damage_must_be_whole_and_not_negative():
    with pytest.raises(ValueError, match="damage"):
        Attack(True, 1, -2)
