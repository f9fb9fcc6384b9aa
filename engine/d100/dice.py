"""Dice for the d100 rules: rolled, seeded, or entered by the GM.

Every roll the rules make has a ``label`` (``"hit"``, ``"location"``, ``"damage"``,
``"parry"``, ``"recover"``, ``"heal"``, ``"stun"``, ``"pass out"``, ``"drop"``, ``"extra"``,
``"bleed"``) and a number of ``sides``. A :class:`Dice` source answers each request; the
rules record every answer as a :class:`Roll`, which goes into the change record and the log.

* :class:`RandomDice` rolls with Python's ``random`` (optionally seeded).
* :class:`SeededDice` is reproducible per encounter: roll number ``i`` is drawn from
  ``random.Random(seed * 1_000_003 + i)``, and ``Settings.rolls`` counts rolls made, so undo
  followed by the same action rolls the same numbers (undo is not a reroll).
* :class:`ScriptedDice` answers from a list, in order (golden tests; a GM entering every die).
* :class:`EnteredDice` answers the first request of each label from the GM's entries
  (``{"hit": 34, "location": 71}``, or ``"hit#2"`` for the second hit roll) and the rest from
  another source; the attack dialog uses it for "roll or enter the d100".
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Roll:
    """One die as rolled: what it was for (``label``), its ``sides`` and the ``value`` 1..sides;
    ``who`` names the token that rolled it; ``entered`` is True when the GM typed it in."""

    label: str
    sides: int
    value: int
    who: str | None = None
    entered: bool = False

    def text(self) -> str:
        src = " (entered)" if self.entered else ""
        return f"{self.label} d{self.sides}: {self.value}{src}"


class Dice(Protocol):
    """A source of dice: ``roll(sides, label)`` answers one die, 1..sides."""

    def roll(self, sides: int, label: str) -> int: ...


def _check(value: int, sides: int, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not (1 <= value <= sides):
        raise ValueError(f"the {label} roll must be a whole number from 1 to {sides}, got {value!r}")
    return value


@dataclass
class RandomDice:
    """Python's pseudo-random dice; ``seed`` makes a sequence repeatable."""

    seed: int | None = None
    _rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def roll(self, sides: int, label: str) -> int:
        return self._rng.randint(1, sides)


@dataclass
class SeededDice:
    """Roll ``position`` of the encounter's sequence ``seed``, then the next, and so on."""

    seed: int
    position: int = 0

    def roll(self, sides: int, label: str) -> int:
        value = random.Random(self.seed * 1_000_003 + self.position).randint(1, sides)
        self.position += 1
        return value


@dataclass
class ScriptedDice:
    """Answers from ``values`` in order; raises ``ValueError`` when a value is out of range
    for the die asked or the list runs out (naming the roll that was wanted)."""

    values: Iterable[int]
    _it: object = field(init=False, repr=False)
    used: int = 0

    def __post_init__(self) -> None:
        self._it = iter(list(self.values))

    def roll(self, sides: int, label: str) -> int:
        try:
            value = next(self._it)  # type: ignore[call-overload]
        except StopIteration:
            raise ValueError(
                f"no die left for the {label} roll (d{sides}); {self.used} were given"
            ) from None
        self.used += 1
        return _check(value, sides, label)


@dataclass
class EnteredDice:
    """The GM's entries first, by label (``"hit"`` is the first hit roll, ``"hit#2"`` the
    second, and so on), then ``fallback`` for every die not entered."""

    entered: Mapping[str, int]
    fallback: Dice = field(default_factory=RandomDice)
    _seen: dict[str, int] = field(default_factory=dict, repr=False)
    used_entries: set[str] = field(default_factory=set, repr=False)

    def roll(self, sides: int, label: str) -> int:
        n = self._seen.get(label, 0) + 1
        self._seen[label] = n
        for key in ((label, f"{label}#1") if n == 1 else (f"{label}#{n}",)):
            if key in self.entered:
                self.used_entries.add(key)
                return _check(self.entered[key], sides, label)
        return self.fallback.roll(sides, label)

    def is_entered(self, label: str) -> bool:
        n = self._seen.get(label, 0)
        keys = (label, f"{label}#1") if n == 1 else (f"{label}#{n}",)
        return any(k in self.used_entries for k in keys)


class Recorder:
    """Wraps a :class:`Dice` and keeps every die it answered as a :class:`Roll`."""

    def __init__(self, dice: Dice) -> None:
        self.source = dice
        self.rolls: list[Roll] = []

    def roll(self, sides: int, label: str, who: str | None = None) -> int:
        value = self.source.roll(sides, label)
        entered = isinstance(self.source, EnteredDice) and self.source.is_entered(label)
        self.rolls.append(Roll(label, sides, value, who, entered))
        return value

    def d100(self, label: str, who: str | None = None) -> int:
        return self.roll(100, label, who)

    def dice(self, n: int, sides: int, label: str, who: str | None = None) -> list[int]:
        """``n`` dice of ``sides`` for one purpose (each recorded)."""
        return [self.roll(sides, label, who) for _ in range(n)]
