"""Shadowrun: the light at the target (engine.vision.light_at) and the attacker's vision feed the
environment modifier (seed 001's table: partial light -1, dim -3, total darkness -6; low-light
vision removes the partial and dim penalties, thermographic shifts one row)."""

from __future__ import annotations

import pytest

from engine.model import Light
from engine.sr5.attack import AttackDeclaration, plan_attack
from engine.sr5.blast import BlastDeclaration
from engine.sr5.facts import TargetFacts, facts
from engine.sr5.sheet import Environment, Settings
from engine.sr5.system import SYSTEM
from engine.vision import Vision, light_at
from tests.engine.sr5.helpers import AK, encounter, token

FRAG = AK.model_copy(update={"name": "Frag", "category": "standard_grenade", "blast": "fragmentation",
                             "modes": (), "ammo": None, "loaded": 3})


def _scene(light: str, lamp_level: str | None, vision=()):
    sam = token("sam", 10, 50, side="runner", weapons=(AK,), agility=4, skills={"automatics": 6}, vision=vision)
    razor = token("razor", 20, 50)
    e = encounter(sam, razor, settings=Settings(environment=Environment(light=light)))
    if lamp_level is not None:  # a lamp over razor, 3 m round
        e = e.model_copy(update={"lights": (Light(id="lamp", x=20, y=50, radius=3, level=lamp_level),)})
    return e


def _env(e) -> tuple[int, str]:
    p = plan_attack(e, AttackDeclaration("sam", ("razor",), mode="SA"), facts([TargetFacts("razor", 10, "none")]))
    part = p.common.part("environment")
    return (0, "") if part is None else (part.value, part.label)


@pytest.mark.parametrize("ambient, lamp, vision, modifier, label", [
    ("dark", None, (), -6, "total darkness"),
    ("dark", "partial", (), -1, "partial light at the target (a light)"),
    ("dark", "partial", ("low_light",), 0, ""),  # low-light vision in partial light: no penalty
    ("dark", "dim", (), -3, "dim light at the target (a light)"),
    ("dark", "full", (), 0, ""),
    ("partial", None, ("low_light",), 0, ""),
    ("partial", None, (), -1, "partial light"),
    ("dim", "partial", (), -1, "partial light at the target (a light)"),  # a light brighter than the ambient
    ("partial", "dim", (), -1, "partial light"),  # a dimmer light changes nothing
    ("dark", None, ("low_light",), -6, "total darkness"),  # low-light does not help in total darkness
    ("dark", None, ("thermographic",), -3, "total darkness [thermographic]"),
])
def test_the_light_at_the_target_and_the_attackers_vision(ambient, lamp, vision, modifier, label):
    e = _scene(ambient, lamp, vision)
    value, text = _env(e)
    assert (value, text) == (modifier, label)


def test_the_gm_environment_setting_stays_the_ambient_level():
    e = _scene("dim", "full")
    assert SYSTEM.light_level(e) == "dim" and light_at(e, 20, 50) == "full" and light_at(e, 40, 50) == "dim"
    e2 = SYSTEM.with_light_level(e, "dark")
    assert e2.rules["sr5"].environment.light == "dark" and light_at(e2, 40, 50) == "dark"


def test_the_sheets_vision_is_the_tokens_vision():
    e = _scene("full", None, ("low_light", "thermographic"))
    sam = e.token("sam").model_copy(update={"vision_range": 5.0})
    assert SYSTEM.vision(e, sam) == Vision("thermographic", 5.0)
    assert SYSTEM.vision(e, e.token("razor")) == Vision("normal", 0.0)


def test_a_grenade_at_a_lit_aim_point():
    from engine.model import Zone

    sam = token("sam", 10, 50, side="runner", weapons=(FRAG,), agility=4, skills={"throwing_weapons": 4})
    e = encounter(sam, token("razor", 20, 50), settings=Settings(environment=Environment(light="dark")),
                  zones=(Zone(id="g", kind="blast", x=20, y=50, radius=10, owner="sam"),))
    dark = SYSTEM.preview(e, BlastDeclaration("sam", "g", weapon="Frag"))
    lit = SYSTEM.preview(e.model_copy(update={"lights": (Light(id="lamp", x=20, y=50, radius=3, level="dim"),)}),
                         BlastDeclaration("sam", "g", weapon="Frag"))
    env = lambda p: next(m for m in p.attack.parts if m.key == "environment")  # noqa: E731
    assert env(dark).value == -6 and env(lit).value == -3


def test_a_prone_target_in_a_low_walls_shadow_is_in_total_darkness():
    # tests/engine/test_vision.py's shadow: a lamp 2 m up, a 1.5 m wall whose far face is
    # d_out = 4.2 m from it; a prone body (0.4 m) is wholly in its shadow out to
    # 4.2 * (2 - 0.4) / (2 - 1.5) = 13.44 m from the lamp, a standing one (1.8 m) nowhere
    # (4.2 * 0.2 / 0.5 = 1.68 m < 4.2 m). Razor 6 m from the lamp behind the wall: prone,
    # total darkness (-6); standing, full light (0).
    from engine.model import Obstacle

    sam = token("sam", 26, 20, side="runner", weapons=(AK,), agility=4, skills={"automatics": 6})
    razor = token("razor", 26, 30)
    wall = Obstacle(id="w", height=1.5, polygon=((24, 25), (24.2, 25), (24.2, 35), (24, 35)))
    e = encounter(sam, razor, settings=Settings(environment=Environment(light="dark")))
    e = e.model_copy(update={"obstacles": (wall,), "lights": (Light(id="lamp", x=20, y=30, radius=15),)})
    assert _env(e) == (0, "")
    prone = e.model_copy(update={"tokens": (sam, razor.model_copy(update={"stance": "prone"}))})
    assert _env(prone) == (-6, "total darkness")
