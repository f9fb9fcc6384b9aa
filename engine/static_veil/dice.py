"""Tests of the Static Veil maneuvers: what the GM enters, and the optional dice model.

Seed 004 names its tests (Success Target, Opposed Test, Net Hits, a Passive Defense roll, a
Grip or Vigor check) but not the dice behind them. So, by default (``Settings.dice == "gm"``)
the GM rolls at the table and enters each outcome:

* an opposed test as :class:`Opposed` (did the acting character win, by how many net hits),
* an attack as :class:`Attack` (did it get through the defences, net hits, damage if known),
* a single check (Grip against Disarm, Vigor against Knockdown) as :class:`Check`,
* a Passive Defense roll as a number of hits.

``Settings.dice == "d100"`` rolls instead, with this model (docs/static-veil.md):

* roll 1..100; success when ``roll <= Success Target``;
* hits on a success = ``1 + (Success Target - roll) // hit_step`` (``hit_step`` 10: one hit
  for the success plus one per full 10 points under the target); a failure has 0 hits;
* opposed test: more hits wins, net hits = the difference; equal hits (both above 0): the
  larger margin ``Success Target - roll`` wins with 0 net hits; otherwise (both fail, or an
  exact tie) the acting character does not win;
* single check: passes when ``roll <= Success Target`` (the penalty already applied).

Rolls are reproducible: roll number ``i`` of an encounter is drawn from
``random.Random(seed * 1_000_003 + i)``, and ``Settings.rolls`` counts the rolls made, so
saving, loading and undoing replay the same dice.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

TestKind = Literal["opposed", "attack", "check", "passive_defense"]


@dataclass(frozen=True)
class Opposed:
    """The outcome of an opposed test, from the acting character's side: ``won`` and the
    ``net_hits`` (>= 0) by which the winner beat the loser."""

    won: bool
    net_hits: int = 0

    def __post_init__(self) -> None:
        _check_hits("net_hits", self.net_hits)


@dataclass(frozen=True)
class Attack:
    """The outcome of an attack: ``hit`` (it got through the target's defences), its
    ``net_hits``, and the ``damage`` it deals by the normal combat rules if the GM enters it
    (None: the engine reports bonuses such as a head shot's +3 but records no damage)."""

    hit: bool
    net_hits: int = 0
    damage: int | None = None

    def __post_init__(self) -> None:
        _check_hits("net_hits", self.net_hits)
        if self.damage is not None and (not isinstance(self.damage, int) or self.damage < 0):
            raise ValueError(f"damage must be a whole number >= 0, got {self.damage!r}")


@dataclass(frozen=True)
class Check:
    """The outcome of a single check (a Grip check against Disarm, Vigor against Knockdown)."""

    passed: bool


def _check_hits(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")


@dataclass(frozen=True)
class TestSpec:
    """A test a maneuver needs, for the GM's dialog and the dice model.

    ``actor_target`` is the acting character's Success Target with every modifier applied
    (``modifiers`` lists them, label and points); for an opposed test ``opponent_target`` is
    the other side's. ``per_net_hit`` is the penalty a check takes per net hit of the attack
    (Disarm, Knockdown: -5)."""

    name: str
    kind: TestKind
    actor_skill: str | None = None
    actor_target: int | None = None
    opponent_skill: str | None = None
    opponent_target: int | None = None
    modifiers: tuple[tuple[str, int], ...] = ()
    opponent_modifiers: tuple[tuple[str, int], ...] = ()
    per_net_hit: int = 0
    note: str = ""


@dataclass(frozen=True)
class Roll:
    """One d100 roll of the dice model: who rolled, against what, the roll and its hits."""

    index: int
    who: str
    what: str
    target: int
    roll: int
    hits: int

    @property
    def success(self) -> bool:
        return self.hits > 0

    def text(self) -> str:
        verdict = f"{self.hits} hit{'s' if self.hits != 1 else ''}" if self.hits else "fails"
        return f"{self.who} {self.what}: rolled {self.roll} vs {self.target} ({verdict})"


def d100(seed: int, index: int) -> int:
    """Roll number ``index`` (0-based) of the encounter's seeded sequence: 1..100."""
    return random.Random(seed * 1_000_003 + index).randint(1, 100)


def hits(target: int, roll: int, step: int = 10) -> int:
    """Hits of a d100 roll-under: 0 on a failure (``roll > target``), else
    ``1 + (target - roll) // step``."""
    if roll > target:
        return 0
    return 1 + (target - roll) // step


@dataclass
class Dice:
    """A running d100 sequence (seed, position) that records what it rolled."""

    seed: int
    position: int
    step: int = 10
    rolls: list[Roll] = field(default_factory=list)

    def roll(self, who: str, what: str, target: int) -> Roll:
        r = d100(self.seed, self.position)
        out = Roll(self.position, who, what, int(target), r, hits(int(target), r, self.step))
        self.position += 1
        self.rolls.append(out)
        return out

    def opposed(self, actor: str, actor_what: str, actor_target: int,
                opponent: str, opponent_what: str, opponent_target: int) -> Opposed:
        """Roll both sides of an opposed test (actor first) and compare as documented above."""
        a = self.roll(actor, actor_what, actor_target)
        b = self.roll(opponent, opponent_what, opponent_target)
        return compare(a, b)

    def check(self, who: str, what: str, target: int) -> Check:
        return Check(self.roll(who, what, target).success)


def compare(a: Roll, b: Roll) -> Opposed:
    """The opposed outcome of the actor's roll ``a`` against the opponent's roll ``b``."""
    if a.hits != b.hits:
        won = a.hits > b.hits
        return Opposed(won, abs(a.hits - b.hits))
    if a.hits > 0 and (a.target - a.roll) != (b.target - b.roll):
        won = (a.target - a.roll) > (b.target - b.roll)
        return Opposed(won, 0)
    return Opposed(False, 0)
