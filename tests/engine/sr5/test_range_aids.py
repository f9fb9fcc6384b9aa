"""One range modifier (issue 24): the map's answers give a band's modifier as the attack takes
it. Shadowrun's environment table takes the range column one row better for each aid: an
improved rangefinder with a smartlink in use, an image magnifier lined up, tracer rounds
(shared/reference/sr5-facts.md). A submachine gun (bands 10 / 40 / 80 / 150 m, modifiers
0 / -1 / -3 / -6) at 50 m is Long: -3; with the rangefinder and the smartgun's smartlink, -1;
with the magnifier lined up too, 0; without a smartgun the rangefinder does nothing."""

from __future__ import annotations

import pytest

from engine.analysis import Tactics
from engine.model import Encounter, Token, Weapon
from engine.sr5.sheet import Sheet

SMG = Weapon(name="Ingram Smartgun X", category="submachine_gun", damage="8P", accuracy=6,
             modes=("BF", "FA"), smartgun=True, skill="automatics")


@pytest.mark.parametrize("sheet, smartgun, modifier", [
    (Sheet(), True, -3),
    (Sheet(smartlink="gear", vision=("improved_rangefinder",)), True, -1),
    (Sheet(smartlink="gear", vision=("improved_rangefinder",)), False, -3),
    (Sheet(smartlink="gear", vision=("improved_rangefinder", "image_magnification"), aim_magnified=True), True, 0),
])
def test_the_range_modifier_is_the_attacks(sheet, smartgun, modifier):
    w = SMG.model_copy(update={"smartgun": smartgun})
    enc = Encounter(name="Street", ruleset="sr5", map={"width": 80.0, "height": 20.0},
                    tokens=(Token(id="pop", side="runner", x=10.0, y=10.0, weapons=(w,), rules={"sr5": sheet}),
                            Token(id="ganger", side="ganger", x=60.0, y=10.0)))
    (rep,) = Tactics(enc).targets("pop")
    assert (rep.range.band, rep.range.modifier) == ("long", modifier)
