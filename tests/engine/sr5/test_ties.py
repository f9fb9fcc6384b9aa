"""Issue 16 item 11: "If its a tie, its a grazing hit" (seed 001) - 0 hits against 0 hits too,
unless the GM picks the SR5-core reading (``Options.zero_hit_tie = "miss"``)."""

from __future__ import annotations

from engine.sr5.attack import AttackDeclaration, apply_attack, plan_attack
from engine.sr5.facts import TargetFacts, facts
from engine.sr5.sheet import Options, Settings
from tests.engine.sr5.helpers import AK, encounter, token
from engine.sr5.system import SYSTEM as SR5

# Sam: Automatics 6 + Agility 4 = 10 dice, no hit among them; Razor: REA 3 + INT 3 = 6 dice, none.
NO_HITS_10 = [1, 1, 1, 2, 2, 2, 3, 3, 4, 4]
NO_HITS_6 = [1, 2, 3, 4, 2, 3]


def _enc(settings=None):
    sam = token("sam", 0, 0, weapons=(AK,), side="runner", agility=4, skills={"automatics": 6})
    return encounter(sam, token("razor", 10, 0), settings=settings)


def _resolve(enc):
    p = plan_attack(enc, AttackDeclaration("sam", ("razor",), mode="SA"), facts([TargetFacts("razor", 10, "none")]))
    assert p.targets[0].attack.total == 10 and p.targets[0].defense.total == 6
    return SR5.resolve(p, [NO_HITS_10, NO_HITS_6])


def test_zero_against_zero_is_a_graze_by_default():
    enc = _enc()
    r = _resolve(enc)
    o = r.outcome("razor")
    assert (o.attack.hits, o.defense.hits, o.net_hits, o.result) == (0, 0, 0, "graze")
    assert r.done  # a graze rolls no soak
    new, ch = apply_attack(enc, r)
    assert new.token("razor").rules["sr5"].physical_damage == 0
    assert "0 vs 0: graze" in new.rules["sr5"].log[-1].text


def test_zero_against_zero_is_a_miss_with_the_core_option():
    enc = _enc(Settings(options=Options(zero_hit_tie="miss")))
    o = _resolve(enc).outcome("razor")
    assert (o.attack.hits, o.defense.hits, o.result) == (0, 0, "miss")


def test_fewer_attack_hits_still_miss_and_a_tie_above_zero_grazes_either_way():
    for option in ("graze", "miss"):
        enc = _enc(Settings(options=Options(zero_hit_tie=option)))
        p = plan_attack(enc, AttackDeclaration("sam", ("razor",), mode="SA"), facts([TargetFacts("razor", 10, "none")]))
        miss = SR5.resolve(p, [NO_HITS_10, [5, 1, 1, 2, 2, 3]]).outcome("razor")
        assert (miss.net_hits, miss.result) == (-1, "miss")
        tie = SR5.resolve(p, [[5, 5, 1, 1, 2, 2, 3, 3, 4, 4], [5, 6, 1, 2, 3, 4]]).outcome("razor")
        assert (tie.attack.hits, tie.defense.hits, tie.result) == (2, 2, "graze")
