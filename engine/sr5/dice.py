"""Shadowrun dice: pools of six-sided dice, hits on 5 and 6, glitches, Edge, typed-in dice.

A *roller* hands out die faces: :class:`SeededRoller` (``random.Random(seed)``, so a fight
replays exactly) or :class:`EnteredDice` (faces the GM read off physical dice, or fixed
faces in a test). :func:`roll_test` turns a pool into a :class:`TestResult`.

Rules (seed 001, sr5-facts.md, defaults in docs/sr5.md):

- a hit is a 5 or a 6; hits above the limit are lost unless Edge was used (Push the Limit);
- with Edge every 6 is rolled again (exploding sixes) and the extra dice count too;
- a glitch is more than half of the dice rolled showing 1; a critical glitch is a glitch
  with no hits at all;
- a pool of 0 or less rolls no dice: no hits, no glitch.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.errors import IllegalActionError

MAX_DICE = 200  # a pool larger than this is a typo, not a character


class Roller(Protocol):
    """Something that produces ``n`` die faces (integers 1..6)."""

    def roll(self, n: int) -> tuple[int, ...]: ...


class SeededRoller:
    """Dice from ``random.Random(seed)``: the same seed gives the same fight."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def roll(self, n: int) -> tuple[int, ...]:
        return tuple(self._rng.randint(1, 6) for _ in range(max(0, n)))


def default_roller(settings) -> SeededRoller:
    """The roller used when a caller gives no dice: fresh randomness when ``settings.seed``
    is None, else seeded by the seed and the length of the combat log, so every roll of a
    fight differs and the same fight replays with the same dice."""
    seed = getattr(settings, "seed", None)
    if seed is None:
        return SeededRoller(None)
    return SeededRoller(int(seed) * 1_000_003 + len(getattr(settings, "log", ())))


class EnteredDice:
    """Faces typed in by the GM (physical dice) or fixed by a test, handed out in order.

    Raises :class:`IllegalActionError` when asked for more dice than were entered, naming
    how many are missing."""

    def __init__(self, faces: Sequence[int], *, what: str = "entered dice") -> None:
        self.faces = check_faces(faces, what=what)
        self.what = what
        self._next = 0

    def roll(self, n: int) -> tuple[int, ...]:
        if n <= 0:
            return ()
        if self._next + n > len(self.faces):
            have = len(self.faces) - self._next
            raise IllegalActionError(
                f"{self.what}: {n} dice needed but only {have} left of the {len(self.faces)} entered"
            )
        out = self.faces[self._next : self._next + n]
        self._next += n
        return out

    @property
    def left(self) -> int:
        """Faces not handed out yet."""
        return len(self.faces) - self._next


def check_faces(faces: Sequence[int], *, what: str = "dice") -> tuple[int, ...]:
    """The faces as a tuple of ints, or :class:`IllegalActionError` naming the bad one."""
    out = []
    for i, f in enumerate(faces):
        if isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 6:
            raise IllegalActionError(f"{what}: die {i + 1} shows {f!r}; a die shows 1 to 6")
        out.append(int(f))
    return tuple(out)


@dataclass(frozen=True)
class TestResult:
    """One dice test: ``dice`` are all faces rolled (exploded sixes after the pool).

    ``hits`` are the hits that count (limited unless Edge was used); ``raw_hits`` all 5s
    and 6s. ``threshold`` is set for success tests; ``net_hits`` is hits minus it."""

    pool: int
    dice: tuple[int, ...] = ()
    limit: int | None = None
    edge: bool = False
    threshold: int | None = None
    entered: bool = False
    second_chance: bool = False  # the misses were rerolled (Edge: Second Chance)
    close_call: bool = False  # Edge: Close Call - a glitch is ignored, a critical one softened
    raw_hits: int = field(init=False)
    hits: int = field(init=False)
    ones: int = field(init=False)
    glitch: bool = field(init=False)
    critical_glitch: bool = field(init=False)

    def __post_init__(self) -> None:
        raw = sum(1 for d in self.dice if d >= 5)
        hits = raw if (self.edge or self.limit is None) else min(raw, max(0, self.limit))
        ones = sum(1 for d in self.dice if d == 1)
        glitch = bool(self.dice) and ones * 2 > len(self.dice)
        object.__setattr__(self, "raw_hits", raw)
        object.__setattr__(self, "hits", hits)
        object.__setattr__(self, "ones", ones)
        critical = glitch and hits == 0
        if self.close_call:
            glitch, critical = critical, False  # Close Call: a glitch goes, a critical one is a glitch
        object.__setattr__(self, "glitch", glitch)
        object.__setattr__(self, "critical_glitch", critical)

    @property
    def exploded(self) -> int:
        """Extra dice rolled for sixes (Edge)."""
        return max(0, len(self.dice) - max(0, self.pool))

    @property
    def limited(self) -> int:
        """Hits lost to the limit."""
        return self.raw_hits - self.hits

    @property
    def success(self) -> bool | None:
        """For a success test, whether hits reach the threshold; None without a threshold."""
        return None if self.threshold is None else self.hits >= self.threshold

    @property
    def net_hits(self) -> int:
        """Hits above the threshold (0 when there is none or it is not reached)."""
        return max(0, self.hits - (self.threshold or 0))

    def describe(self) -> str:
        """One line for the log: ``9 dice [6 5 1 ...] -> 3 hits (limit 4)``."""
        faces = " ".join(str(d) for d in self.dice) or "-"
        s = f"{max(0, self.pool)} dice [{faces}] -> {self.hits} hit{'s' if self.hits != 1 else ''}"
        if self.limited:
            s += f" ({self.raw_hits} rolled, limit {self.limit})"
        if self.edge:
            s += " (Edge: sixes explode, no limit)"
        if self.threshold is not None:
            s += f" vs threshold {self.threshold}: {'success' if self.success else 'failure'}"
        if self.second_chance:
            s += " (Second Chance)"
        if self.close_call:
            s += " (Close Call)"
        if self.critical_glitch:
            s += " CRITICAL GLITCH"
        elif self.glitch:
            s += " GLITCH"
        return s


def roll_test(
    pool: int,
    dice: Roller | Sequence[int],
    *,
    limit: int | None = None,
    edge: bool = False,
    threshold: int | None = None,
) -> TestResult:
    """Roll ``pool`` dice from ``dice`` (a roller, or the faces themselves).

    With ``edge`` the sixes explode: for each 6 one more die is rolled, again and again. When
    faces are given directly they must be exactly the pool plus its explosions, else an
    :class:`IllegalActionError` says how many were expected."""
    n = max(0, int(pool))
    if n > MAX_DICE:
        raise IllegalActionError(f"a pool of {n} dice is more than {MAX_DICE}; check the modifiers")
    entered = not hasattr(dice, "roll")
    if entered:
        faces = check_faces(dice)  # type: ignore[arg-type]
        expected = _expected_count(faces, n, edge)
        if expected != len(faces):
            extra = " (the pool plus one die for each 6, again for each 6 of those)" if edge else ""
            raise IllegalActionError(f"{n} dice to enter{extra}: expected {expected} faces, got {len(faces)}")
        return TestResult(n, faces, limit, edge, threshold, True)
    roller: Roller = dice  # type: ignore[assignment]
    out = list(roller.roll(n))
    if edge:
        sixes = sum(1 for d in out if d == 6)
        while sixes:
            more = roller.roll(sixes)
            out += more
            sixes = sum(1 for d in more if d == 6)
    return TestResult(n, tuple(out), limit, edge, threshold, isinstance(roller, EnteredDice))


def _expected_count(faces: tuple[int, ...], n: int, edge: bool) -> int:
    """How many faces a pool of ``n`` needs given these faces (explosions follow sixes)."""
    if not edge:
        return n
    need, i = n, 0
    while i < min(need, len(faces)):
        if faces[i] == 6:
            need += 1
        i += 1
    return need
