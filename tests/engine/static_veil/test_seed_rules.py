"""Issue 16 items 15 and 16, Static Veil (seed 004): an approach walked earlier in the turn is
the run-up of a Charge and of the Shove bonus; a Shove of a target held in a grapple."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.files import encounter_from_data
from engine.rules import MoveTo, find_system
from engine.static_veil.dice import Attack, Opposed
from engine.static_veil.actions import Charge, Shove
from engine.static_veil.system import StartTurn

RULESET = find_system("static-veil")


def _enc(settings=None, rook_x=2.0, **extra_tokens):
    # Rook (radius 0.4) at (2, 5), Vex at (8, 5): 6 m apart, no walls.
    tokens = [
        {"id": "rook", "name": "Rook", "x": rook_x, "y": 5, "static_veil": {"movement": 12}},
        {"id": "vex", "name": "Vex", "x": 8, "y": 5},
    ]
    tokens += list(extra_tokens.values())
    enc = encounter_from_data({
        "format": "coverfire.encounter", "version": 1, "ruleset": "static-veil",
        "map": {"width": 24, "height": 16}, "tokens": tokens, "static_veil": settings or {},
    })
    return RULESET.apply(enc, StartTurn("rook")).encounter


def _walk(enc, *points):
    """Drags of Rook, one a point, through the system's move hook (as the map does)."""
    sv = find_system("static-veil")
    for p in points:
        enc = sv.on_moves(enc, [MoveTo("rook", p)]).encounter
    return enc


def test_a_straight_approach_walked_earlier_is_the_charges_run_up():
    # 5.2 m east at Vex, to (7.2, 5): the gap is 8 - 7.2 - 0.8 = 0 m, within reach
    enc = _walk(_enc(), (7.2, 5.0))
    assert RULESET.sheet(enc.token("rook")).turn_path == ((2.0, 5.0), (7.2, 5.0))
    pv = RULESET.preview(enc, Charge("rook", "vex"))
    assert pv.allowed and pv.movement_cost == 0.0 and pv.path == () and pv.runup_start == (2.0, 5.0)
    assert "the 5.2 m straight approach walked earlier this turn is the run-up" in pv.notes
    res = RULESET.apply(enc, Charge("rook", "vex", attack=Attack(True, 1)))
    rook = res.encounter.token("rook")
    assert (rook.x, rook.y) == (7.2, 5.0)
    assert RULESET.sheet(res.encounter.token("rook")).movement_left == pytest.approx(12 - 5.2)


def test_two_drags_in_line_join_into_one_approach():
    enc = _walk(_enc(), (4.0, 5.0), (7.2, 5.0))  # 2 m then 3.2 m, both east
    assert RULESET.preview(enc, Charge("rook", "vex")).movement_cost == 0.0


def test_a_bent_or_short_approach_does_not_count():
    # (2,5) -> (5,2) -> (7.2,5): the last straight leg is hypot(2.2, 3) = 3.72 m < 4 m; 8 m
    # walked (3 sqrt 2 + 3.72 = 7.96), so a fresh run-up (back to 2.2 m out, 9 m) is too long
    bent = _walk(_enc(), (5.0, 2.0), (7.2, 5.0))
    pv = RULESET.preview(bent, Charge("rook", "vex"))
    assert not pv.allowed and pv.reason == "the charge needs 9.0 m of Movement; Rook has 4.0 m left"
    # 4 m straight at Vex but ending 8 - 6 - 0.8 = 1.2 m from it, beyond reach: no approach
    far = _walk(_enc(), (6.0, 5.0))
    assert RULESET.why_not(far, Shove("rook", "vex")) == \
        "Vex is 1.2 m from Rook edge to edge; to shove it must be within reach (1.0 m)"
    pv = RULESET.preview(far, Charge("rook", "vex"))
    assert pv.allowed and pv.movement_cost == pytest.approx(7.8) and pv.notes == ()  # a new run-up
    # 3.7 m straight (from 3.5 m) ending in reach: the Shove has no run-up bonus
    short = _walk(_enc(rook_x=3.5), (7.2, 5.0))
    assert ("run-up", 10) not in RULESET.preview(short, Shove("rook", "vex")).tests[0].modifiers


def test_the_approach_gives_the_shove_its_bonus_without_a_run_up():
    enc = _walk(_enc(), (7.2, 5.0))
    pv = RULESET.preview(enc, Shove("rook", "vex"))
    assert pv.allowed and ("run-up", 10) in pv.tests[0].modifiers
    assert pv.tests[0].actor_target == 30 + 10  # athletics 30 (default) + 10
    plain = RULESET.preview(_walk(_enc(), (5.0, 2.0), (7.2, 5.0)), Shove("rook", "vex"))
    assert ("run-up", 10) not in plain.tests[0].modifiers
    # an approach that points away from the target does not count: Ash south of Rook's line
    off = _walk(_enc(ash={"id": "ash", "name": "Ash", "x": 7.2, "y": 6.0}), (7.2, 5.0))
    assert ("run-up", 10) not in RULESET.preview(off, Shove("rook", "ash")).tests[0].modifiers


GRAPPLED = {
    "pat": {"id": "pat", "name": "Pat", "x": 14, "y": 9.5, "static_veil": {"grapple": {"other": "lou", "initiator": True}}},
    "lou": {"id": "lou", "name": "Lou", "x": 15, "y": 9.5, "static_veil": {"grapple": {"other": "pat"}}},
    "ned": {"id": "ned", "name": "Ned", "x": 16.2, "y": 9.5},
}


def test_a_shove_of_a_grappled_target_moves_the_pair_and_the_grapple_holds():
    # Ned (16.2, 9.5) shoves Lou (15, 9.5) west (180 deg), 1 net hit: 2 m. Pat, her partner,
    # slides with her: Lou -> (13, 9.5), Pat -> (12, 9.5); nothing in the way.
    enc = RULESET.apply(_enc(**GRAPPLED), StartTurn("ned")).encounter
    pv = RULESET.preview(enc, Shove("ned", "lou"))
    assert pv.allowed and "both are pushed, the grapple holds" in " ".join(pv.notes)
    end = pv.shove_ends[1]
    assert end.partner == "pat" and end.end == pytest.approx((13.0, 9.5)) and end.partner_end == pytest.approx((12.0, 9.5))
    res = RULESET.apply(enc, Shove("ned", "lou", outcome=Opposed(True, 1)))
    lou, pat = res.encounter.token("lou"), res.encounter.token("pat")
    assert (lou.x, pat.x) == pytest.approx((13.0, 12.0))
    assert RULESET.sheet(res.encounter.token("lou")).grapple.other == "pat"
    assert RULESET.sheet(res.encounter.token("pat")).grapple.other == "lou"
    assert "Pat with them (the grapple holds)" in res.detail.summary


def test_the_refuse_option_keeps_the_old_rule():
    enc = RULESET.apply(_enc({"shove_grappled": "refuse"}, **GRAPPLED), StartTurn("ned")).encounter
    with pytest.raises(IllegalActionError, match="Lou is held in a grapple with Pat"):
        RULESET.check(enc, Shove("ned", "lou"))
