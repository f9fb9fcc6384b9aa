"""Seed 003's location damage effects as data: what happens when a location reaches a step.

:data:`EFFECTS` maps (location group, severity step) to an :class:`Effect`. Groups are
``head``, ``chest``, ``abdomen``, ``groin``, ``arm`` (each arm) and ``leg`` (each leg). Steps
the seed does not list for a location (head and groin ``serious``, arm and leg ``light``)
carry no new effect. "As above" in the seed is written out in full here.

Two kinds of effect:

* one-off, applied when a step is reached (``stun``, ``prone``, ``extra`` damage to the
  injury total, a new ``bleed``\\ ing wound, ``drop`` chance or drop all, ``pass_out`` chance,
  ``dead``);
* lasting while the location stays at or above the step (``speed`` -1, ``stay_prone``,
  ``crawl``, ``half_chance`` for an arm, ``arm_useless``): :func:`lasting` derives them from
  the current severities, so a Recover that drops a step lifts them.

Whether reaching several steps with one hit applies each step's effects or only the
highest's is ``Settings.crossing_effects`` (default ``"each"``, the seed's "every time a
damage threshold is crossed").
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.d100.sheet import SEVERITIES


@dataclass(frozen=True)
class Effect:
    """What reaching one severity step of one location does (see the module text)."""

    text: str = "No additional penalties."
    stun: bool = False
    prone: bool = False
    speed: int = 0
    extra: str | None = None  # dice added to the injury total: "d3" or "d6"
    bleed: bool = False
    drop: str | None = None  # "may" (a drop_chance roll) or "all" (drops anything held)
    pass_out: bool = False  # a pass_out_chance roll
    dead: bool = False
    stay_prone: bool = False
    crawl: bool = False
    half_chance: bool = False
    arm_useless: bool = False


NONE = Effect()

_HEAD = {
    "light": Effect("Stunned for one turn.", stun=True),
    "heavy": Effect("Stunned for one turn, d6 to the injury total, -1 speed.", stun=True, extra="d6", speed=1),
    "serious": Effect("No listed effect."),
    "acute": Effect("May pass out from system shock.", pass_out=True),
    "crippled": Effect("Dead, dead, dead!", dead=True),
}
_CHEST = {
    "light": Effect("Falls prone.", prone=True),
    "heavy": Effect("Falls prone, -1 speed.", prone=True, speed=1),
    "serious": Effect("Falls prone, stunned for a turn, d3 to the injury total, -1 speed.",
                      prone=True, stun=True, extra="d3", speed=1),
    "acute": Effect("Falls prone, stunned for a turn, d3 to the injury total, -1 speed, starts bleeding.",
                    prone=True, stun=True, extra="d3", speed=1, bleed=True),
    "crippled": Effect("May pass out from system shock.", pass_out=True),
}
_ABDOMEN = {
    "light": Effect("d3 to the injury total.", extra="d3"),
    "heavy": Effect("d3 to the injury total, falls prone, -1 speed.", extra="d3", prone=True, speed=1),
    "serious": Effect("d3 to the injury total, falls prone, -1 speed, starts bleeding.",
                      extra="d3", prone=True, speed=1, bleed=True),
    "acute": Effect("d3 to the injury total, falls prone, -1 speed, starts bleeding, stunned for a turn.",
                    extra="d3", prone=True, speed=1, bleed=True, stun=True),
    "crippled": Effect("d3 to the injury total, falls prone, -1 speed, starts bleeding, stunned for a turn, "
                       "must remain prone.",
                       extra="d3", prone=True, speed=1, bleed=True, stun=True, stay_prone=True),
}
_GROIN = {
    "light": Effect("Falls prone.", prone=True),
    "heavy": Effect("Falls prone, stunned for a turn, -1 speed.", prone=True, stun=True, speed=1),
    "serious": Effect("No listed effect."),
    "acute": Effect("Falls prone, stunned for a turn, -1 speed, d3 to the injury total, starts bleeding.",
                    prone=True, stun=True, speed=1, extra="d3", bleed=True),
    "crippled": Effect("May pass out from system shock.", pass_out=True),
}
_ARM = {
    "light": Effect("No additional penalties."),
    "heavy": Effect("May drop the weapon.", drop="may"),
    "serious": Effect("May drop the weapon, d3 to the injury total, base chance halved with this arm.",
                      drop="may", extra="d3", half_chance=True),
    "acute": Effect("Drops anything held, can no longer use the arm, starts bleeding.",
                    drop="all", arm_useless=True, bleed=True),
    "crippled": Effect("Drops anything held, arm useless, starts bleeding, may pass out from system shock.",
                       drop="all", arm_useless=True, bleed=True, pass_out=True),
}
_LEG = {
    "light": Effect("No additional penalties."),
    "heavy": Effect("-1 speed.", speed=1),
    "serious": Effect("-1 speed, falls prone, d3 to the injury total.", speed=1, prone=True, extra="d3"),
    "acute": Effect("-1 speed, falls prone, d3 to the injury total, must remain prone, may only crawl.",
                    speed=1, prone=True, extra="d3", stay_prone=True, crawl=True),
    "crippled": Effect("-1 speed, falls prone, d3 to the injury total, must remain prone, crawls, "
                       "may pass out from system shock.",
                       speed=1, prone=True, extra="d3", stay_prone=True, crawl=True, pass_out=True),
}

#: (group, severity name) -> Effect
EFFECTS: dict[tuple[str, str], Effect] = {}
for _group, _table in (("head", _HEAD), ("chest", _CHEST), ("abdomen", _ABDOMEN),
                       ("groin", _GROIN), ("arm", _ARM), ("leg", _LEG)):
    for _sev, _eff in _table.items():
        EFFECTS[(_group, _sev)] = _eff


def group_of(location: str) -> str:
    """``"left_arm"`` -> ``"arm"``, ``"right_leg"`` -> ``"leg"``, others unchanged."""
    if location.endswith("_arm"):
        return "arm"
    if location.endswith("_leg"):
        return "leg"
    return location


def effect(location: str, step: int) -> Effect:
    """The effect of reaching severity ``step`` (1..5) at ``location``."""
    if step <= 0:
        return NONE
    return EFFECTS[(group_of(location), SEVERITIES[step])]


def crossed(location: str, old: int, new: int, mode: str = "each") -> list[tuple[int, Effect]]:
    """The (step, effect) pairs a location suffers going from step ``old`` to ``new``:
    every step passed (``mode="each"``) or only the highest (``"highest"``)."""
    if new <= old:
        return []
    steps = range(old + 1, new + 1) if mode == "each" else (new,)
    return [(s, effect(location, s)) for s in steps]


@dataclass(frozen=True)
class Lasting:
    """The lasting penalties of one character's current severities."""

    speed_penalty: int = 0
    stay_prone: bool = False
    crawl: bool = False
    useless_arms: tuple[str, ...] = ()
    halved_arms: tuple[str, ...] = ()


def lasting(steps: dict[str, int], mode: str = "each") -> Lasting:
    """Lasting penalties from each location's current step (``steps``: location -> 0..5).

    Speed: with ``mode="each"`` every step at or below the current one that lists -1 speed
    counts; with ``"highest"`` a location costs at most 1. An arm at ``serious`` has its base
    chance halved; at ``acute`` or worse it is useless (no longer halved: unusable)."""
    speed = 0
    stay = crawl = False
    useless: list[str] = []
    halved: list[str] = []
    for loc, step in steps.items():
        effs = [effect(loc, s) for s in range(1, step + 1)]
        n = sum(e.speed for e in effs)
        speed += n if mode == "each" else min(n, 1)
        stay = stay or any(e.stay_prone for e in effs)
        crawl = crawl or any(e.crawl for e in effs)
        if any(e.arm_useless for e in effs):
            useless.append(loc)
        elif any(e.half_chance for e in effs):
            halved.append(loc)
    return Lasting(speed, stay, crawl, tuple(sorted(useless)), tuple(sorted(halved)))
